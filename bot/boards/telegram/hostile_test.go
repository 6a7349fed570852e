package telegram_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/questbot/questbot/sessions/board"
)

// Ensure forged and stale presses are answered and change nothing: another ply, squares no
// keyboard offers, unknown operations and boards, a board of others, the opponent's turn.
func TestForgedPresses(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.start(t)
	id := e.startPair(t, "Russian draughts", "no clock", "Русские шашки", "без часов")
	e.user(t, 3, "Carl", "en")
	users := e.seats(t, id)
	a, b := users[0], users[1]
	m := e.turn(t, a, id, 0)
	e.WaitIdle(t)
	before := e.board(t, id)
	lang := map[int64]map[string]string{
		1: {"stale": "This button is no longer active.", "moved": "The board has moved on.", "turn": "It is not your turn.",
			"offer": "There is no draw offer to answer."},
		2: {"stale": "Эта кнопка больше не действует.", "moved": "Доска уже изменилась.", "turn": "Сейчас не ваш ход.",
			"offer": "Предложения ничьей, на которое можно ответить, нет."},
	}
	for _, tc := range []struct {
		user int64
		data string
		want string
	}{
		{a, fmt.Sprintf("g:%d:5:u", id), lang[a]["moved"]},
		{a, fmt.Sprintf("g:%d:1:s0", id), lang[a]["moved"]},
		{a, fmt.Sprintf("g:%d:0:s9", id), lang[a]["stale"]},
		{a, fmt.Sprintf("g:%d:0:s05", id), lang[a]["stale"]},
		{a, fmt.Sprintf("g:%d:0:s0000", id), lang[a]["stale"]},
		{a, fmt.Sprintf("g:%d:0:c1.5", id), lang[a]["stale"]},
		{a, fmt.Sprintf("g:%d:0:c.0", id), lang[a]["stale"]},
		{a, fmt.Sprintf("g:%d:0:zz", id), lang[a]["stale"]},
		{a, fmt.Sprintf("g:%d:0:a", id), lang[a]["offer"]},
		{a, "g:999999:0:u", lang[a]["stale"]},
		{a, "g:" + strings.Repeat("9", 40), lang[a]["stale"]},
		{b, fmt.Sprintf("g:%d:0:s0", id), lang[b]["turn"]},
		{3, fmt.Sprintf("g:%d:0:s0", id), "This is not your game."},
		{3, fmt.Sprintf("g:%d:0:R", id), "This is not your game."},
	} {
		if got := e.inject(t, tc.user, m.ID, tc.data)(); got != tc.want {
			t.Errorf("user %d %q: answered %q, want %q", tc.user, tc.data, got, tc.want)
		}
	}
	after := e.board(t, id)
	if after.Revision() != before.Revision() || after.Ply() != 0 || after.Status != board.Active {
		t.Errorf("the forged presses changed the board: revision %d → %d, ply %d, %v", before.Revision(), after.Revision(),
			after.Ply(), after.Status)
	}
	// The real buttons still work.
	g := e.replay(t, id)
	e.playButtons(t, a, g, choose(t, g, 500))
	e.waitPly(t, id, 1)
}

// Ensure a typed move that is not legal is answered with why and with the moves of the piece
// it names, that a move typed out of turn is answered so, and that texts that are no moves, or
// come from users who play no game, are left to the relay.
func TestTypedMoveRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.start(t)
	id := e.startPair(t, "Russian draughts", "no clock", "Русские шашки", "без часов")
	users := e.seats(t, id)
	a, b := users[0], users[1]
	words := map[int64]map[string]string{
		1: {"illegal": "«c3-e5» is not a legal move here.", "from": "Moves of the piece on c3: c3-b4, c3-d4.",
			"none": "The piece on b2 cannot move now.", "turn": "It is not your turn in Russian draughts.",
			"admins": "Your message went to the admins"},
		2: {"illegal": "«c3-e5» — здесь такого хода нет.", "from": "Ходы фигуры с c3: c3-b4, c3-d4.",
			"none": "Фигура на b2 сейчас не может ходить.", "turn": "В партии «Русские шашки» сейчас не ваш ход.",
			"admins": "Ваше сообщение отправлено администраторам"},
	}
	e.turn(t, a, id, 0)
	e.Send(t, a, "c3-e5")
	r := e.WaitText(t, a, 0, words[a]["illegal"])
	if !strings.Contains(r.Text, words[a]["from"]) || r.ReplyTo == 0 {
		t.Errorf("the answer: %q (a reply to %d)", r.Text, r.ReplyTo)
	}
	e.Send(t, a, "b2-c3")
	e.WaitText(t, a, 0, words[a]["none"])
	e.Send(t, b, "f6-g5")
	e.WaitText(t, b, 0, words[b]["turn"])
	if bd := e.board(t, id); bd.Ply() != 0 {
		t.Errorf("the refused moves changed the board: ply %d", bd.Ply())
	}
	// A text that is no move goes to the admins (there are none here: the relay says so).
	e.user(t, 3, "Carl", "en")
	e.Send(t, 3, "/start")
	e.WaitText(t, 3, 0, "Hello")
	e.Exec(t, `UPDATE users SET is_admin = true WHERE id = 3`)
	e.Send(t, a, "good luck!")
	e.WaitText(t, a, 0, words[a]["admins"])
	e.WaitText(t, 3, 0, "good luck!")
	// A move typed by a user who plays no game goes there too.
	e.user(t, 4, "Dan", "en")
	e.Send(t, 4, "e2-e4")
	e.WaitText(t, 4, 0, "Your message went to the admins")
	e.WaitText(t, 3, 0, "e2-e4")
	if n := e.QueryInt(t, `SELECT count(*) FROM board_move`); n != 0 {
		t.Errorf("%d moves stored", n)
	}
}
