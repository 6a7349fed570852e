package telegram_test

import (
	"fmt"
	"testing"

	"github.com/questbot/questbot/bot/emulator/tgemu"
)

// forge presses data under a group's message msgID as user, data no button of it carries, and
// returns the bot's answer.
func (e *env) forge(t *testing.T, group, user int64, msgID int, data string) string {
	t.Helper()
	id, err := e.Bot.ForgeGroupPress(group, user, msgID, data)
	if err != nil {
		t.Fatal(err)
	}
	var answer string
	e.WaitFor(t, "the answer to "+data, func() bool { var ok bool; answer, ok = e.Bot.CallbackAnswer(id); return ok })
	return answer
}

// Ensure a press in a group acts only on the menu or board of its presser, whatever data it
// carries: a member's choice with their own id under another member's /games menu, a board's Join
// under the presser's own menu, and the same under another board's message, are refused with
// words at once (no retries, nothing logged), and change no message and no record; the real
// buttons still work.
func TestGroupForgedPresses(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	const ann, bob, eve, group = 61, 62, 63, -700
	e.user(t, ann, "Ann", "en")
	e.user(t, bob, "Bob", "en")
	e.user(t, eve, "Eve", "en")
	e.start(t)
	if err := e.Bot.AddGroup(group, "Club", ann, bob, eve); err != nil {
		t.Fatal(err)
	}
	stale := "This button is no longer active."
	unchanged := func(m tgemu.Message) {
		t.Helper()
		e.WaitIdle(t)
		for _, n := range e.BotMessages(group) {
			if n.ID == m.ID && (n.Text != m.Text || fmt.Sprint(n.Keyboard) != fmt.Sprint(m.Keyboard) || n.Photo != m.Photo) {
				t.Errorf("message %d changed:\n%s\n%v", m.ID, n.Text, n.Keyboard)
			}
		}
	}

	// Eve's choice, with her own id, under Ann's menu.
	if _, err := e.Bot.SendGroupText(group, ann, "/games@boards_test_bot"); err != nil {
		t.Fatal(err)
	}
	menu := e.WaitTextAfter(t, group, 0, "Which one?")
	if got := e.forge(t, group, eve, menu.ID, fmt.Sprintf("G:c:russian:none:%d", eve)); got != stale {
		t.Errorf("Eve's choice under Ann's menu answered %q", got)
	}
	if got := e.forge(t, group, eve, menu.ID, fmt.Sprintf("G:o:chess:%d", eve)); got != stale {
		t.Errorf("Eve's game under Ann's menu answered %q", got)
	}
	unchanged(menu)
	if n := e.QueryInt(t, `SELECT count(*) FROM board_shared`); n != 0 {
		t.Fatalf("%d boards opened by forged presses", n)
	}

	// Ann's game on that menu, joined by Bob: a board with its message.
	s := &shared{e: e, chat: group, msgID: menu.ID}
	s.tap(t, ann, "Chess")
	s.tap(t, ann, "no clock")
	s.tap(t, bob, "✅ Join")
	board := e.lastBoard(t, bob)
	annBoard := s.message(t)

	// Eve's own menu, then Ann's board's Join pressed under it: nothing re-pointed.
	if _, err := e.Bot.SendGroupText(group, eve, "/games@boards_test_bot"); err != nil {
		t.Fatal(err)
	}
	evesMenu := e.WaitTextAfter(t, group, menu.ID, "<b>Eve</b> wants to play a board game")
	if got := e.forge(t, group, eve, evesMenu.ID, fmt.Sprintf("G:j:%d", board)); got != stale {
		t.Errorf("Ann's board's Join under Eve's menu answered %q", got)
	}
	unchanged(evesMenu)
	// Eve's menu becomes her challenge, another board's message: Ann's board's Join under it.
	eves := &shared{e: e, chat: group, msgID: evesMenu.ID}
	eves.tap(t, eve, "Chase")
	eves.tap(t, eve, "no clock")
	challenge := eves.message(t)
	if got := e.forge(t, group, eve, evesMenu.ID, fmt.Sprintf("G:j:%d", board)); got != stale {
		t.Errorf("Ann's board's Join under Eve's challenge answered %q", got)
	}
	if got := e.forge(t, group, ann, evesMenu.ID, fmt.Sprintf("G:%d:0:s0", board)); got != stale {
		t.Errorf("Ann's board's square under Eve's challenge answered %q", got)
	}
	unchanged(challenge)
	if got := e.QueryInt(t, `SELECT message_id FROM board_shared WHERE board_id = $1`, board); got != annBoard.ID {
		t.Errorf("Ann's board is recorded in message %d, want %d", got, annBoard.ID)
	}
	// The real buttons of Ann's board still work, in its message.
	bd := e.board(t, board)
	white := bd.Seats[0].User
	s.move(t, white, "e2", "e4")
}
