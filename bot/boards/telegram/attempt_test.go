package telegram_test

import (
	"strings"
	"testing"
)

// Ensure a move typed with the Cyrillic file letters read by their sound ("с3-д4") is played,
// and that while a game waits for the user's move, a text that only looks like a move is
// answered as a refused move and never reaches the admins: their chat stays silent and the
// relay keeps nothing.
func TestTypedAttemptNeverRelayed(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.start(t)
	id := e.startPair(t, "Russian draughts", "no clock", "Русские шашки", "без часов")
	users := e.seats(t, id)
	a, b := users[0], users[1]
	e.user(t, 3, "Carl", "en")
	e.Send(t, 3, "/start")
	e.WaitText(t, 3, 0, "Hello")
	e.Exec(t, `UPDATE users SET is_admin = true WHERE id = 3`)
	adminBefore := len(e.BotMessages(3))

	e.turn(t, a, id, 0)
	e.Send(t, a, "с3-д4")
	if bd := e.waitPly(t, id, 1); bd.Moves[0].Text != "c3-d4" {
		t.Fatalf("played %q, want c3-d4", bd.Moves[0].Text)
	}

	// Not legal, and the words are not even squares of the board: answered as a move.
	refused := map[int64]string{1: "is not", 2: "здесь такого хода нет"}
	unread := map[int64]string{1: "is not a move I can read", 2: "не понимаю такой записи хода"}
	e.turn(t, b, id, 1)
	for _, text := range []string{"а7-б8", "ф6-х4", "12-77", "h6:h4"} {
		sent := e.Send(t, b, text)
		r := e.WaitTextAfter(t, b, sent, "«"+text+"»")
		if !strings.Contains(r.Text, refused[b]) && !strings.Contains(r.Text, unread[b]) {
			t.Errorf("%q: answered %q", text, r.Text)
		}
	}
	if bd := e.board(t, id); bd.Ply() != 1 {
		t.Errorf("the refused moves changed the board: ply %d", bd.Ply())
	}
	if n := len(e.BotMessages(3)); n != adminBefore {
		t.Errorf("the admin was sent %d messages: %v", n-adminBefore, e.BotMessages(3)[adminBefore:])
	}
	if n := e.QueryInt(t, `SELECT count(*) FROM relay_message`); n != 0 {
		t.Errorf("the relay keeps %d messages", n)
	}
}
