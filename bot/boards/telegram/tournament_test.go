package telegram_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/questbot/questbot/bot"
	"github.com/questbot/questbot/bot/boards"
	"github.com/questbot/questbot/bot/emulator/tgemu"
)

// A tournament in Telegram: an admin creates it with /tournament, one player joins with the
// button of /tournaments and the other with the join link; at the start both are paired, get
// their board and a standings message, which is edited in place when the game ends, and are
// told their places.
func TestTournamentInTelegram(t *testing.T) {
	e := newEnv(t)
	e.start(t)
	const admin, alice, bob int64 = 1, 2, 3
	e.user(t, admin, "Admin", "en")
	e.user(t, alice, "Alice", "en")
	e.user(t, bob, "Bob", "ru")

	// Nobody is admin until the row says so; the command tree's users are made by a first
	// message.
	after := e.LastID(admin)
	e.Send(t, admin, "/tournaments")
	e.WaitMessage(t, admin, after, "no tournament", func(m tgemu.Message) bool { return strings.Contains(m.Text, "No tournament") })
	// /tournaments is a command of the tree: in the menus, in both languages, and in /help.
	menu, err := e.app.Tree.Menu(context.Background(), e.Pool, e.service)
	if err != nil {
		t.Fatal(err)
	}
	menus := map[string]string{}
	for _, r := range menu {
		menus[r.Params["language_code"]] = r.Params["commands"]
	}
	if !strings.Contains(menus[""], `{"command":"tournaments","description":"Board game tournaments"}`) ||
		!strings.Contains(menus["ru"], `{"command":"tournaments","description":"Турниры по настольным играм"}`) {
		t.Errorf("the command menus: %v", menus)
	}
	after = e.LastID(admin)
	e.Send(t, admin, "/help")
	e.WaitMessage(t, admin, after, "/help", func(m tgemu.Message) bool {
		return strings.Contains(m.Text, "/tournaments — tournaments to join and their standings")
	})
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
	if !strings.Contains(created.Text, fmt.Sprintf("start=t%d", id)) {
		t.Fatalf("no join link in %q", created.Text)
	}

	// Alice joins with the button; the list then offers her to leave.
	after = e.LastID(alice)
	e.Send(t, alice, "/tournaments")
	list := e.WaitMessage(t, alice, after, "the list", func(m tgemu.Message) bool { return m.Button(fmt.Sprintf("Join #%d", id)) != "" })
	e.Press(t, alice, list, fmt.Sprintf("Join #%d", id))
	e.WaitFor(t, "the list edited with Leave", func() bool {
		for _, m := range e.BotMessages(alice) {
			if m.ID == list.ID && m.Button(fmt.Sprintf("Leave #%d", id)) != "" {
				return true
			}
		}
		return false
	})
	// Bob joins by the link.
	after = e.LastID(bob)
	e.Send(t, bob, fmt.Sprintf("/start t%d", id))
	e.WaitMessage(t, bob, after, "joined", func(m tgemu.Message) bool { return strings.Contains(m.Text, "Вы участвуете") })
	if n := e.QueryInt(t, `SELECT count(*) FROM tournament_entrant WHERE tournament_id = $1`, id); n != 2 {
		t.Fatalf("%d players entered, want 2", n)
	}

	// The start: both are paired, and see their board and their standings.
	e.clock.advance(3 * time.Minute)
	if err := e.app.Tournaments.Tournaments(context.Background(), boards.DoerOf(e.proc.Transport.Do)); err != nil {
		t.Fatal(err)
	}
	standings := func(user int64, what string, ok func(m tgemu.Message) bool) tgemu.Message {
		t.Helper()
		var found tgemu.Message
		e.WaitFor(t, what, func() bool {
			for _, m := range e.BotMessages(user) {
				if strings.Contains(m.Text, fmt.Sprintf("#%d</b>", id)) || strings.Contains(m.Text, fmt.Sprintf("Tournament #%d ·", id)) ||
					strings.Contains(m.Text, fmt.Sprintf("Турнир #%d ·", id)) {
					if ok(m) {
						found = m
						return true
					}
				}
			}
			return false
		})
		return found
	}
	first := standings(alice, "Alice's standings in round 1", func(m tgemu.Message) bool {
		return strings.Contains(m.Text, "Round 1 of 1") && strings.Contains(m.Text, "Your game: #")
	})
	standings(bob, "Bob's standings", func(m tgemu.Message) bool { return strings.Contains(m.Text, "Тур 1 из 1") })
	boardID := e.lastBoard(t, alice)
	// The board's caption names the tournament and the round, in each player's language.
	e.waitBoard(t, alice, "the tournament's board", func(m tgemu.Message) bool {
		return m.Photo != "" && strings.Contains(m.Text, fmt.Sprintf("🏆 Tournament #%d, round 1 of 1", id))
	})
	e.waitBoard(t, bob, "the tournament's board in Russian", func(m tgemu.Message) bool {
		return m.Photo != "" && strings.Contains(m.Text, fmt.Sprintf("🏆 Турнир #%d, тур 1 из 1", id))
	})
	bd := e.board(t, boardID)
	if bd.Seats[0].User+bd.Seats[1].User != alice+bob || bd.Control.Name != "5+3" {
		t.Fatalf("board %d: seats %+v, control %q", boardID, bd.Seats, bd.Control.Name)
	}

	// Bob resigns: Alice's standings message changes in place to the final standings.
	err = e.proc.Transport.Do(context.Background(), e.service, func(ctx context.Context, tx bot.Tx) error {
		h, err := e.app.Boards.Take(ctx, tx, boards.Player{Service: e.service, User: bob, By: boards.ByTelegram}, boardID)
		if err != nil {
			return err
		}
		return h.Act(ctx, boards.Action{Op: boards.OpResign})
	})
	if err != nil {
		t.Fatal(err)
	}
	final := standings(alice, "Alice's final standings", func(m tgemu.Message) bool {
		return m.ID == first.ID && strings.Contains(m.Text, "Final standings")
	})
	if !final.Edited || !strings.Contains(final.Text, "1. Alice") {
		t.Fatalf("final standings: %+v", final)
	}
	e.WaitMessage(t, alice, first.ID, "Alice's place", func(m tgemu.Message) bool {
		return strings.Contains(m.Text, "you placed 1 of 2")
	})
	e.WaitMessage(t, bob, 0, "Bob's place", func(m tgemu.Message) bool { return strings.Contains(m.Text, "ваше место 2 из 2") })
}
