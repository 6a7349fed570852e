package boards_test

import (
	"github.com/questbot/questbot/bot/tgemu"
	"strings"
	"testing"

	"github.com/questbot/questbot/sessions"
)

// startPair has Ann (English) wait for an opponent in a game and clock (their English names)
// and Boris (Russian, theirs in Russian) join her, and returns the board.
func (e *env) startPair(t *testing.T, game, clock, gameRU, clockRU string) int64 {
	t.Helper()
	e.user(t, 1, "Ann", "en")
	e.user(t, 2, "Boris", "ru")
	e.menu(t, 1, "/games", game, "🔎 Find an opponent", clock)
	e.WaitText(t, 1, 0, "Waiting for an opponent")
	e.menu(t, 2, "/games", gameRU, "🔎 Найти соперника", clockRU)
	e.waitBoard(t, 1, "the start", func(m tgemu.Message) bool { return strings.Contains(m.Text, "Boris joined") })
	e.waitBoard(t, 2, "the start", func(m tgemu.Message) bool { return strings.Contains(m.Text, "ход 1") })
	id := e.lastBoard(t, 1)
	if e.lastBoard(t, 2) != id {
		t.Fatalf("Boris plays board %d, Ann %d", e.lastBoard(t, 2), id)
	}
	return id
}

// Ensure two users play Russian draughts to the end through the bot, with the buttons and with
// typed moves (Cyrillic look-alikes too): each move reaches the opponent as a new board, each
// chat keeps one board, and the result counts in both players' statistics and ratings.
func TestRussianBetweenPlayers(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.start(t)
	id := e.startPair(t, "Russian draughts", "1 day a move", "Русские шашки", "1 день на ход")
	users := [2]int64{}
	bd := e.board(t, id)
	for i, s := range bd.Seats {
		users[i] = s.User
	}
	for ply := 0; ; ply++ {
		bd = e.board(t, id)
		if bd.Status == sessions.BoardFinished {
			break
		}
		if ply > 300 {
			t.Fatal("the game does not end")
		}
		user := users[bd.ToMove]
		g := e.replay(t, id)
		mv := choose(t, g, 1000)
		e.turn(t, user, id, ply)
		if ply%4 < 2 {
			e.playButtons(t, user, g, mv)
		} else {
			e.Send(t, user, typed(g, mv, user == 2))
		}
		bd = e.waitPly(t, id, ply+1)
		if got := bd.Moves[ply].Text; got != mv.String() {
			t.Fatalf("ply %d: %s played, %s meant", ply+1, got, mv)
		}
	}
	o := bd.Outcome
	t.Logf("finished after %d plies: %+v", bd.Ply(), o)
	for seat, user := range users {
		var want string
		switch {
		case o.Draw && user == 1:
			want = "Draw"
		case o.Draw:
			want = "Ничья"
		case o.Winner == seat && user == 1:
			want = "You win"
		case o.Winner == seat:
			want = "Вы выиграли"
		case user == 1:
			want = "You lose"
		default:
			want = "Вы проиграли"
		}
		m := e.waitCaption(t, user, want)
		if len(m.Keyboard) != 0 {
			t.Errorf("user %d: the finished board keeps buttons %v", user, labels(m))
		}
		if !strings.Contains(m.Text, "rating: 15") && !strings.Contains(m.Text, "рейтинг: 15") &&
			!strings.Contains(m.Text, "rating: 14") && !strings.Contains(m.Text, "рейтинг: 14") {
			t.Errorf("user %d: no new rating in %q", user, m.Text)
		}
		n := 0
		for _, msg := range e.BotMessages(user) {
			if msg.Photo != "" {
				n++
			}
		}
		if n != 1 {
			t.Errorf("user %d: %d boards in the chat, want 1", user, n)
		}
	}
	e.WaitIdle(t)
	// /rating: one game, rated.
	after := e.LastID(1)
	e.Send(t, 1, "/rating")
	m := e.WaitTextAfter(t, 1, after, "Russian draughts")
	if !strings.Contains(m.Text, "Elo") || strings.Contains(m.Text, "—") {
		t.Errorf("/rating: %q", m.Text)
	}
	if n := e.QueryInt(t, `SELECT count(*) FROM board_stats WHERE played = 1 AND rated = 1`); n != 2 {
		t.Errorf("%d players with one rated game, want 2", n)
	}
}
