package telegram_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/questbot/questbot/bot/boards"
	"github.com/questbot/questbot/bot/emulator/tgemu"
	"github.com/questbot/questbot/sessions/board"
)

// shared is a board played in one message of a group: an inline message (inlineID) or the bot's
// message (msgID).
type shared struct {
	e        *env
	chat     int64
	inlineID string
	msgID    int
}

// message returns the shared message as the group shows it.
func (s *shared) message(t *testing.T) tgemu.Message {
	t.Helper()
	if s.inlineID != "" {
		m, ok := s.e.Bot.InlineMessage(s.inlineID)
		if !ok {
			t.Fatalf("no inline message %q", s.inlineID)
		}
		return m
	}
	for _, m := range s.e.Bot.Messages(s.chat) {
		if m.ID == s.msgID {
			return m
		}
	}
	t.Fatalf("no message %d in chat %d", s.msgID, s.chat)
	return tgemu.Message{}
}

// press presses the button labelled label as user and returns the bot's answer to the press.
func (s *shared) press(t *testing.T, user int64, label string) string {
	t.Helper()
	m := s.message(t)
	data := m.Button(label)
	if data == "" {
		t.Fatalf("the message has no button %q: %+v", label, m.Keyboard)
	}
	var id string
	var err error
	if s.inlineID != "" {
		id, err = s.e.Bot.PressInline(user, s.inlineID, data)
	} else {
		id, err = s.e.Bot.PressGroup(s.chat, user, s.msgID, data)
	}
	if err != nil {
		t.Fatal(err)
	}
	var text string
	s.e.WaitFor(t, "the answer to "+label, func() bool {
		var ok bool
		text, ok = s.e.Bot.CallbackAnswer(id)
		return ok
	})
	return text
}

// tap presses a button as a player and waits until the message changes.
func (s *shared) tap(t *testing.T, user int64, label string) tgemu.Message {
	t.Helper()
	before := s.message(t)
	s.press(t, user, label)
	var m tgemu.Message
	s.e.WaitFor(t, "the message after "+label, func() bool {
		m = s.message(t)
		return m.Text != before.Text || fmt.Sprint(m.Keyboard) != fmt.Sprint(before.Keyboard)
	})
	return m
}

// refused presses a button as someone whose press must change nothing, and returns the answer.
func (s *shared) refused(t *testing.T, user int64, label string) string {
	t.Helper()
	before := s.message(t)
	answer := s.press(t, user, label)
	s.e.WaitIdle(t)
	if after := s.message(t); after.Text != before.Text || fmt.Sprint(after.Keyboard) != fmt.Sprint(before.Keyboard) {
		t.Fatalf("user %d's press of %q changed the message:\n%s\n%v", user, label, after.Text, after.Keyboard)
	}
	return answer
}

// move plays a chess move by the buttons: the square of the piece, then where it goes; the
// message then shows the next ply.
func (s *shared) move(t *testing.T, user int64, from, to string) tgemu.Message {
	t.Helper()
	m := s.tap(t, user, from)
	if !strings.Contains(m.Text, "Chosen: <b>"+from+"</b>") {
		t.Fatalf("after %s: %s\n%v", from, m.Text, m.Keyboard)
	}
	return s.tap(t, user, to)
}

// Ensure an inline game: "@bot chess" in a group of three lists the game; the chosen result is a
// challenge the challenger cannot join and only they can withdraw; the second member joins and
// the two play the fool's mate with the buttons in that one message, edited in place (its text
// and keyboard checked after each step, nothing new posted); the third member's presses, and the
// presses of the player not to move, change nothing and are answered; the end shows the result
// and no buttons.
func TestInlineGame(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.noPublic = true // the inline message is the board as text
	const ann, bob, eve, group = 1, 2, 3, -100
	e.user(t, ann, "Ann", "en")
	e.user(t, bob, "Bob", "en")
	e.user(t, eve, "Eve", "en")
	e.start(t)
	if err := e.Bot.AddGroup(group, "Club", ann, bob, eve); err != nil {
		t.Fatal(err)
	}

	qid, err := e.Bot.InlineQuery(ann, group, "ches")
	if err != nil {
		t.Fatal(err)
	}
	var results []tgemu.InlineResult
	e.WaitFor(t, "the answer to the inline query", func() bool {
		var ok bool
		results, ok = e.Bot.InlineAnswer(qid)
		return ok
	})
	// Chess's four clocks come first; Gardner's minichess and Chess960 match "ches" too.
	if len(results) < 4 || results[0].ID != "chess.none" || results[0].Title != "Chess · no clock" || results[0].Description == "" ||
		!strings.Contains(results[0].Text, "<b>Ann</b> wants to play <b>Chess</b>") ||
		!strings.Contains(results[3].Text, "<b>Chess, 10 min + 5 s per move</b>") {
		t.Fatalf("results = %+v", results)
	}
	// An empty query: every game with every clock, as many as Telegram takes at a time, every
	// game on the first page (with no clock first), the rest when the user scrolls on.
	all, _ := e.Bot.InlineQuery(eve, group, "")
	var first []tgemu.InlineResult
	e.WaitFor(t, "the answer to an empty query", func() bool { var ok bool; first, ok = e.Bot.InlineAnswer(all); return ok })
	games := map[string]bool{}
	for i, r := range first {
		game, clock, _ := strings.Cut(r.ID, ".")
		games[game] = true
		if i < len(boards.Games) && (game != boards.Games[i] || clock != "none") {
			t.Errorf("result %d of the empty query is %q, want %s.none", i, r.ID, boards.Games[i])
		}
	}
	if len(first) != 50 || len(games) != len(boards.Games) {
		t.Errorf("the first page of an empty query has %d results of %d games, want 50 of %d", len(first), len(games), len(boards.Games))
	}
	more, err := e.Bot.MoreInlineResults(all)
	if err != nil {
		t.Fatal(err)
	}
	var second []tgemu.InlineResult
	e.WaitFor(t, "the second page of an empty query", func() bool { var ok bool; second, ok = e.Bot.InlineAnswer(more); return ok })
	ids := map[string]bool{}
	for _, r := range append(first, second...) {
		ids[r.ID] = true
	}
	if next, _ := e.Bot.InlineNextOffset(more); next != "" || len(ids) != 4*len(boards.Games) {
		t.Errorf("the two pages list %d distinct results (next offset %q), want %d and no more", len(ids), next, 4*len(boards.Games))
	}
	fox, _ := e.Bot.InlineQuery(eve, group, "fox 3 days")
	e.WaitFor(t, "the answer to a query of a game and a clock", func() bool {
		r, ok := e.Bot.InlineAnswer(fox)
		return ok && len(r) == 3 && r[0].ID == "foxgeese13.corr3d"
	})

	inlineID, _, err := e.Bot.ChooseInlineResult(qid, "chess.none")
	if err != nil {
		t.Fatal(err)
	}
	e.WaitFor(t, "the challenge recorded", func() bool {
		return e.QueryInt(t, `SELECT count(*) FROM board_shared WHERE inline_message_id = $1`, inlineID) == 1
	})
	s := &shared{e: e, chat: group, inlineID: inlineID}
	if got := s.refused(t, eve, "✖ Withdraw"); got != "Only Ann can do that." {
		t.Errorf("Eve's withdrawal answered %q", got)
	}
	if got := s.refused(t, ann, "✅ Join"); !strings.Contains(got, "your own challenge") {
		t.Errorf("Ann's own join answered %q", got)
	}
	posted := len(e.Bot.Messages(group))

	m := s.tap(t, bob, "✅ Join")
	id := e.lastBoard(t, bob)
	bd := e.board(t, id)
	if bd.Status != board.Active {
		t.Fatalf("board %d is %v", id, bd.Status)
	}
	white, black := bd.Seats[0].User, bd.Seats[1].User
	name := map[int64]string{ann: "Ann", bob: "Bob"}
	if !strings.Contains(m.Text, "<pre>") || !strings.Contains(m.Text, name[white]+" to move") || m.Button("f2") == "" ||
		m.Button("🏳 Resign") == "" {
		t.Fatalf("the board at the start:\n%s\n%v", m.Text, m.Keyboard)
	}
	if got := s.refused(t, eve, "f2"); got != "This game is between Ann and Bob." && got != "This game is between Bob and Ann." {
		t.Errorf("Eve's press answered %q", got)
	}
	if got := s.refused(t, eve, "🏳 Resign"); !strings.HasPrefix(got, "This game is between") {
		t.Errorf("Eve's resignation answered %q", got)
	}
	if got := s.refused(t, black, "f2"); got == "" {
		t.Error("a press of the player not to move is not answered")
	}

	m = s.move(t, white, "f2", "f3")
	if !strings.Contains(m.Text, name[black]+" to move") || m.Button("e7") == "" || e.board(t, id).Ply() != 1 {
		t.Fatalf("after f3:\n%s\n%v", m.Text, m.Keyboard)
	}
	m = s.move(t, black, "e7", "e5")
	if !strings.Contains(m.Text, name[white]+" to move") || e.board(t, id).Ply() != 2 {
		t.Fatalf("after e5:\n%s", m.Text)
	}
	// A selection is the selecting player's: the other one's press changes nothing.
	m = s.tap(t, white, "g2")
	if got := s.refused(t, black, "g4"); got == "" {
		t.Error("the other player's press of a square offered to the player to move is not answered")
	}
	m = s.tap(t, white, "g4")
	if !strings.Contains(m.Text, name[black]+" to move") {
		t.Fatalf("after g4:\n%s", m.Text)
	}
	s.move(t, black, "d8", "h4")
	e.WaitFor(t, "the game over", func() bool {
		m = s.message(t)
		return e.board(t, id).Status == board.Finished && strings.Contains(m.Text, "wins")
	})
	if !strings.Contains(m.Text, "<b>"+name[black]+" wins</b>") || !strings.Contains(m.Text, "checkmate") || len(m.Keyboard) != 0 {
		t.Errorf("the end:\n%s\n%v", m.Text, m.Keyboard)
	}
	// The moves as the private boards write them: the game ended on move 2, Black's Qh4 mate.
	if !strings.Contains(m.Text, "<b>Chess</b> · move 2\n") || !strings.Contains(m.Text, "Last move: 2… Qh4#") {
		t.Errorf("the end's move number and last move:\n%s", m.Text)
	}
	if n := len(e.Bot.Messages(group)); n != posted {
		t.Errorf("%d messages posted in the group during the game", n-posted)
	}
	for _, u := range []int64{ann, bob, eve} {
		if msgs := e.BotMessages(u); len(msgs) != 0 {
			t.Errorf("user %d got %d messages in their chat: %+v", u, len(msgs), msgs)
		}
	}
}

// Ensure a group game: /games with a game's name asks its sender the clock, and their choice
// turns the question into the challenge, a photo of the start position naming the clock; a
// member joins (the board shows both clocks), the two play a couple of moves in that message
// (its picture changing with them: the squares tapped, the position), a stranger's press is
// refused, and a player resigns (confirmed): the message shows the result and no buttons.
func TestGroupGame(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	const ann, bob, eve, group = 11, 12, 13, -200
	e.user(t, ann, "Ann", "en")
	e.user(t, bob, "Bob", "en")
	e.user(t, eve, "Eve", "en")
	e.start(t)
	if err := e.Bot.AddGroup(group, "Club", ann, bob, eve); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Bot.SendGroupText(group, ann, "/games@boards_test_bot chess"); err != nil {
		t.Fatal(err)
	}
	var question tgemu.Message
	e.WaitFor(t, "the choice of a clock", func() bool {
		for _, m := range e.BotMessages(group) {
			if strings.Contains(m.Text, "With which clock?") {
				question = m
				return true
			}
		}
		return false
	})
	if !strings.Contains(question.Text, "<b>Ann</b> wants to play <b>Chess</b>") || len(question.Keyboard) != 4 ||
		question.Keyboard[0][0].Text != "no clock" {
		t.Fatalf("the choice of a clock:\n%s\n%v", question.Text, question.Keyboard)
	}
	s := &shared{e: e, chat: group, msgID: question.ID}
	if got := s.refused(t, bob, "10 min + 5 s per move"); got != "Only Ann can do that." {
		t.Errorf("Bob's choice of the clock answered %q", got)
	}
	challenge := s.tap(t, ann, "10 min + 5 s per move")
	if challenge.Photo == "" || strings.Contains(challenge.Text, "<pre>") ||
		!strings.Contains(challenge.Text, "<b>Chess, 10 min + 5 s per move</b>") || challenge.Button("✅ Join") == "" {
		t.Fatalf("the challenge: %+v", challenge)
	}
	start := s.tap(t, bob, "✅ Join")
	if !strings.Contains(start.Text, "Ann · 10:00") || !strings.Contains(start.Text, "Bob · 10:00") {
		t.Errorf("the board does not show both clocks:\n%s", start.Text)
	}
	id := e.lastBoard(t, bob)
	bd := e.board(t, id)
	white, black := bd.Seats[0].User, bd.Seats[1].User
	posted := len(e.Bot.Messages(group))
	tapped := s.tap(t, white, "e2")
	moved := s.tap(t, white, "e4")
	if tapped.Photo == start.Photo || moved.Photo == tapped.Photo || moved.Photo == start.Photo || strings.Contains(moved.Text, "<pre>") {
		t.Errorf("the pictures: at the start %q, e2 tapped %q, after e4 %q; the caption:\n%s", start.Photo, tapped.Photo, moved.Photo, moved.Text)
	}
	s.move(t, black, "e7", "e5")
	if got := s.refused(t, eve, "🏳 Resign"); !strings.HasPrefix(got, "This game is between") {
		t.Errorf("Eve's press answered %q", got)
	}
	// A draw offered and declined: the group reads who declined it, not "your offer".
	name := map[int64]string{ann: "Ann", bob: "Bob"}
	s.tap(t, white, "½ Offer a draw")
	// The offer is the other player's to answer: the offerer's own answer is told so.
	for _, label := range []string{"✖ Decline", "✔ Accept the draw"} {
		if got := s.refused(t, white, label); got != "Only "+name[black]+" can answer this question." {
			t.Errorf("the offerer's %q answered %q", label, got)
		}
	}
	if m := s.tap(t, black, "✖ Decline"); !strings.Contains(m.Text, name[black]+" declined the draw offer.") ||
		strings.Contains(m.Text, "Your") {
		t.Errorf("after the decline:\n%s", m.Text)
	}
	// The player not to move asks to resign: the player to move keeps her squares, her clock
	// running, under the question's answers.
	m := s.tap(t, black, "🏳 Resign")
	if !strings.Contains(m.Text, "resign this game?") || m.Button("Yes, I resign") == "" || m.Button("g1") == "" {
		t.Fatalf("the confirmation:\n%s\n%v", m.Text, m.Keyboard)
	}
	// The confirmation is its presser's: the other player's "yes" resigns nobody, and is told
	// whose question it is.
	if got := s.refused(t, white, "Yes, I resign"); got != "Only "+name[black]+" can answer this question." {
		t.Errorf("the other player's yes answered %q", got)
	}
	if got := s.refused(t, white, "No, play on"); got != "Only "+name[black]+" can answer this question." {
		t.Errorf("the other player's no answered %q", got)
	}
	// Her own "no" takes the question away; she asks again.
	if m := s.tap(t, black, "No, play on"); strings.Contains(m.Text, "resign this game?") || m.Button("🏳 Resign") == "" {
		t.Errorf("after no:\n%s\n%v", m.Text, m.Keyboard)
	}
	s.tap(t, black, "🏳 Resign")
	m = s.tap(t, black, "Yes, I resign")
	if e.board(t, id).Status != board.Finished || !strings.Contains(m.Text, "wins") || len(m.Keyboard) != 0 {
		t.Errorf("after the resignation:\n%s\n%v", m.Text, m.Keyboard)
	}
	if n := len(e.Bot.Messages(group)); n != posted {
		t.Errorf("%d messages posted in the group during the game", n-posted)
	}
}

// challenge posts an inline challenge of user in chat for variant and waits until it is recorded.
func (e *env) challenge(t *testing.T, user, chat int64, variant string) *shared {
	t.Helper()
	qid, err := e.Bot.InlineQuery(user, chat, variant)
	if err != nil {
		t.Fatal(err)
	}
	e.WaitFor(t, "the answer to the inline query", func() bool { _, ok := e.Bot.InlineAnswer(qid); return ok })
	inlineID, _, err := e.Bot.ChooseInlineResult(qid, variant+".none")
	if err != nil {
		t.Fatal(err)
	}
	e.WaitFor(t, "the challenge recorded", func() bool {
		return e.QueryInt(t, `SELECT count(*) FROM board_shared WHERE inline_message_id = $1`, inlineID) == 1
	})
	return &shared{e: e, chat: chat, inlineID: inlineID}
}

// Ensure a challenge nobody joins within the invitation's lifetime expires and says so: pressed
// too late, its Join is answered so; left alone, the job closes it; the challenger may withdraw
// one before.
func TestChallengeExpires(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.noPublic = true // the inline message is the board as text
	const ann, bob, group = 21, 22, -300
	e.user(t, ann, "Ann", "en")
	e.user(t, bob, "Bob", "en")
	e.start(t)
	if err := e.Bot.AddGroup(group, "Club", ann, bob); err != nil {
		t.Fatal(err)
	}
	withdrawn := e.challenge(t, ann, group, "foxgeese13")
	m := withdrawn.tap(t, ann, "✖ Withdraw")
	if !strings.Contains(m.Text, "Ann withdrew the challenge") || len(m.Keyboard) != 0 {
		t.Errorf("withdrawn:\n%s\n%v", m.Text, m.Keyboard)
	}
	late := e.challenge(t, ann, group, "chess")
	alone := e.challenge(t, ann, group, "russian")
	e.clock.advance(board.InviteLifetime + time.Hour)
	if got := late.press(t, bob, "✅ Join"); got != "This challenge has expired." {
		t.Errorf("a late join answered %q", got)
	}
	e.WaitFor(t, "the late challenge closed", func() bool { return strings.Contains(late.message(t).Text, "Nobody joined") })
	if m := late.message(t); !strings.Contains(m.Text, "⌛ Nobody joined Ann's game of Chess in time.") || len(m.Keyboard) != 0 {
		t.Errorf("expired:\n%s\n%v", m.Text, m.Keyboard)
	}
	if err := e.app.BoardChat.ExpireChallenges(context.Background(), e.proc.Transport); err != nil {
		t.Fatal(err)
	}
	e.WaitFor(t, "the challenge left alone closed", func() bool {
		m := alone.message(t)
		return strings.Contains(m.Text, "Nobody joined Ann's game of Russian draughts") && len(m.Keyboard) == 0
	})
}

// Ensure an inline game with a clock: the challenge names it, and the board shows both clocks
// once joined; /mygames' button of it shows it again in its message, not in the player's chat.
func TestInlineClock(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.noPublic = true // the inline message is the board as text
	const ann, bob, group = 31, 32, -400
	e.user(t, ann, "Ann", "en")
	e.user(t, bob, "Bob", "en")
	e.start(t)
	if err := e.Bot.AddGroup(group, "Club", ann, bob); err != nil {
		t.Fatal(err)
	}
	qid, err := e.Bot.InlineQuery(ann, group, "chess blitz")
	if err != nil {
		t.Fatal(err)
	}
	e.WaitFor(t, "the answer", func() bool { r, ok := e.Bot.InlineAnswer(qid); return ok && len(r) > 0 && r[0].ID == "chess.blitz10+5" })
	inlineID, _, err := e.Bot.ChooseInlineResult(qid, "chess.blitz10+5")
	if err != nil {
		t.Fatal(err)
	}
	e.WaitFor(t, "the challenge recorded", func() bool {
		return e.QueryInt(t, `SELECT count(*) FROM board_shared WHERE inline_message_id = $1`, inlineID) == 1
	})
	s := &shared{e: e, chat: group, inlineID: inlineID}
	if m := s.message(t); !strings.Contains(m.Text, "<b>Chess, 10 min + 5 s per move</b>") {
		t.Errorf("the challenge: %s", m.Text)
	}
	m := s.tap(t, bob, "✅ Join")
	if !strings.Contains(m.Text, "Ann · 10:00") || !strings.Contains(m.Text, "Bob · 10:00") {
		t.Errorf("the board does not show both clocks:\n%s", m.Text)
	}
	e.menu(t, ann, "/mygames")
	list := e.WaitMessage(t, ann, 0, "the list of games", func(m tgemu.Message) bool { return len(m.Keyboard) > 0 })
	e.Press(t, ann, list, list.Keyboard[0][0].Text)
	e.WaitIdle(t)
	for _, m := range e.BotMessages(ann) {
		if m.Photo != "" || strings.Contains(m.Text, "<pre>") {
			t.Errorf("the board came to Ann's chat: %+v", m)
		}
	}
}

// Ensure /games in a group without a game asks its sender which one, then which clock; only they
// choose, and their choices turn the message into the challenge, a photo.
func TestGroupChooser(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	const ann, bob, group = 41, 42, -500
	e.user(t, ann, "Ann", "en")
	e.user(t, bob, "Bob", "en")
	e.start(t)
	if err := e.Bot.AddGroup(group, "Club", ann, bob); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Bot.SendGroupText(group, ann, "/games"); err != nil {
		t.Fatal(err)
	}
	var chooser tgemu.Message
	e.WaitFor(t, "the choice of a game", func() bool {
		for _, m := range e.BotMessages(group) {
			if strings.Contains(m.Text, "Which one?") {
				chooser = m
				return true
			}
		}
		return false
	})
	if len(chooser.Keyboard) != len(boards.Games) {
		t.Errorf("the choice offers %d games, want %d", len(chooser.Keyboard), len(boards.Games))
	}
	s := &shared{e: e, chat: group, msgID: chooser.ID}
	if got := s.refused(t, bob, "Chase"); got != "Only Ann can do that." {
		t.Errorf("Bob's choice answered %q", got)
	}
	m := s.tap(t, ann, "Chase")
	if !strings.Contains(m.Text, "With which clock?") || m.Button("no clock") == "" || m.Photo != "" {
		t.Fatalf("the choice of a clock:\n%s\n%v", m.Text, m.Keyboard)
	}
	m = s.tap(t, ann, "no clock")
	if !strings.Contains(m.Text, "<b>Ann</b> wants to play <b>Chase</b>") || m.Button("✅ Join") == "" || m.Photo == "" {
		t.Errorf("the challenge:\n%s\n%v", m.Text, m.Keyboard)
	}
	if n := e.QueryInt(t, `SELECT count(*) FROM board_shared WHERE chat_id = $1 AND message_id = $2`, group, chooser.ID); n != 1 {
		t.Errorf("%d boards in the message", n)
	}
	s.tap(t, bob, "✅ Join")
	if bd := e.board(t, e.lastBoard(t, bob)); bd.Status != board.Active || bd.Variant != "chase" {
		t.Errorf("the game: %v %s", bd.Status, bd.Variant)
	}
}
