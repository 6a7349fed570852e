package telegram_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"

	"github.com/questbot/questbot/bot/boards"
	"github.com/questbot/questbot/bot/emulator/tgemu"
)

// A player without a first name, known by their @username only, is named alike by every view:
// the shared board of a group game, the private board's caption, the web's state of the board
// and the tournament standings all say "@ann_u".
func TestPlayerNamedAlike(t *testing.T) {
	e := newEnv(t)
	const admin, ann, bob, group int64 = 21, 22, 23, -300
	const want = "@ann_u"
	e.user(t, admin, "Admin", "en")
	e.Bot.AddUser(tgbotapi.User{ID: ann, UserName: "ann_u", LanguageCode: "en"})
	e.user(t, bob, "Bob", "en")
	e.start(t)

	// A group game: the shared board.
	if err := e.Bot.AddGroup(group, "Club", ann, bob); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Bot.SendGroupText(group, ann, "/games@boards_test_bot chess"); err != nil {
		t.Fatal(err)
	}
	question := e.WaitTextAfter(t, group, 0, "With which clock?")
	if !strings.Contains(question.Text, "<b>"+want+"</b> wants to play") {
		t.Errorf("the choice of a clock names Ann otherwise:\n%s", question.Text)
	}
	s := &shared{e: e, chat: group, msgID: question.ID}
	s.tap(t, ann, "10 min + 5 s per move")
	start := s.tap(t, bob, "✅ Join")
	if !strings.Contains(start.Text, want+" · 10:00") {
		t.Errorf("the shared board names Ann otherwise:\n%s", start.Text)
	}

	// A tournament game: the private board, the web's state and the standings.
	// The command tree's users are made by a first message.
	after := e.LastID(admin)
	e.Send(t, admin, "/tournaments")
	e.WaitMessage(t, admin, after, "no tournament", func(m tgemu.Message) bool { return strings.Contains(m.Text, "No tournament") })
	e.Exec(t, `UPDATE users SET is_admin = true WHERE id = $1`, admin)
	after = e.LastID(admin)
	e.Send(t, admin, "/tournament new roundrobin russian 5+3 in 2")
	created := e.WaitMessage(t, admin, after, "the tournament created", func(m tgemu.Message) bool {
		return strings.Contains(m.Text, "created")
	})
	var id int64
	if _, err := fmt.Sscanf(created.Text[strings.Index(created.Text, "#"):], "#%d", &id); err != nil {
		t.Fatalf("%q: %v", created.Text, err)
	}
	for _, u := range []int64{ann, bob} {
		after := e.LastID(u)
		e.Send(t, u, fmt.Sprintf("/start t%d", id))
		e.WaitMessage(t, u, after, "joined", func(m tgemu.Message) bool { return strings.Contains(m.Text, "You are in") })
	}
	e.clock.advance(3 * time.Minute)
	if err := e.app.Tournaments.Tournaments(context.Background(), boards.DoerOf(e.proc.Transport.Do)); err != nil {
		t.Fatal(err)
	}
	e.WaitFor(t, "Bob's standings", func() bool {
		for _, m := range e.BotMessages(bob) {
			if strings.Contains(m.Text, fmt.Sprintf("Tournament #%d</b>", id)) && strings.Contains(m.Text, "Round 1 of 1") {
				if !strings.Contains(m.Text, ". "+want+" ") {
					t.Errorf("the standings name Ann otherwise:\n%s", m.Text)
				}
				return true
			}
		}
		return false
	})
	caption := e.waitBoard(t, bob, "the tournament's board", func(m tgemu.Message) bool {
		return strings.Contains(m.Text, fmt.Sprintf("Tournament #%d", id))
	})
	if !strings.Contains(caption.Text, want) {
		t.Errorf("the private board names Ann otherwise:\n%s", caption.Text)
	}
	st := e.webState(t, bob, e.lastBoard(t, bob))
	var names []string
	for _, seat := range st.Seats {
		names = append(names, seat.Name)
	}
	if len(names) != 2 || (names[0] != want && names[1] != want) {
		t.Errorf("the web's state names the players %q", names)
	}
}
