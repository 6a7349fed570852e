package telegram_test

import (
	"github.com/questbot/questbot/bot/emulator/tgemu"
	"github.com/questbot/questbot/sessions/board"
	"strings"
	"testing"
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
// typed moves (Cyrillic look-alikes too): each move reaches the opponent's board (changed in
// place: a correspondence game notifies after 15 minutes by default, see TestNotifyAfterDelay),
// each chat keeps one board, and the result counts in both players' statistics and ratings.
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
		if bd.Status == board.Finished {
			break
		}
		if ply > 300 {
			t.Fatal("the game does not end")
		}
		user := users[bd.ToMove]
		g := e.replay(t, id)
		// White plays a short search, Black its first legal move: a short game.
		mv := g.LegalMoves()[0]
		if bd.ToMove == 0 {
			mv = choose(t, g, 300)
		}
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
		// Two newcomers' first game (Glicko-2): the winner gains 162, the loser loses as many.
		rating := "1500"
		switch {
		case !o.Draw && o.Winner == seat:
			rating = "1662"
		case !o.Draw:
			rating = "1338"
		}
		if !strings.Contains(m.Text, "rating: "+rating) && !strings.Contains(m.Text, "рейтинг: "+rating) {
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
	// /rating: one game, rated: the chart, captioned.
	after := e.LastID(1)
	e.Send(t, 1, "/rating")
	m := e.WaitMessage(t, 1, after, "the chart", func(m tgemu.Message) bool { return m.Photo != "" })
	if !strings.Contains(m.Text, "Russian draughts") || !strings.Contains(m.Text, "1 rated game of 1") {
		t.Errorf("/rating: %q", m.Text)
	}
	if n := e.QueryInt(t, `SELECT count(*) FROM board_stats WHERE played = 1 AND rated = 1`); n != 2 {
		t.Errorf("%d players with one rated game, want 2", n)
	}
}

// seats returns the users of a board's seats.
func (e *env) seats(t *testing.T, id int64) [2]int64 {
	t.Helper()
	bd := e.board(t, id)
	return [2]int64{bd.Seats[0].User, bd.Seats[1].User}
}

// moveTyped has the player to move type the move a short search chooses, and waits for it.
func (e *env) moveTyped(t *testing.T, id int64) *board.Board {
	t.Helper()
	bd := e.board(t, id)
	user := bd.Seats[bd.ToMove].User
	e.turn(t, user, id, bd.Ply())
	g := e.replay(t, id)
	e.Send(t, user, typed(g, choose(t, g, 500), false))
	return e.waitPly(t, id, bd.Ply()+1)
}

// Ensure a move can be taken back until the opponent has seen it: the mover's button works
// while the opponent has not looked, and goes once the opponent presses a button of their
// board; a press of the old button is then refused and changes nothing.
func TestUndoUntilSeen(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.start(t)
	id := e.startPair(t, "Russian draughts", "no clock", "Русские шашки", "без часов")
	users := e.seats(t, id)
	mover, other := users[0], users[1]
	e.moveTyped(t, id)
	m := e.waitBoard(t, mover, "the take-back button", func(m tgemu.Message) bool {
		return m.Button("⟲ Take back") != "" || m.Button("⟲ Вернуть ход") != ""
	})
	undo := "⟲ Take back"
	if mover == 2 {
		undo = "⟲ Вернуть ход"
	}
	e.Press(t, mover, m, undo)
	e.WaitFor(t, "the move taken back", func() bool { return e.board(t, id).Ply() == 0 })
	e.turn(t, mover, id, 0)
	took := "took back their move"
	if other == 2 {
		took = "берёт ход назад"
	}
	e.waitCaption(t, other, took)

	// Again, and now the opponent looks (taps a square of their board) before the take-back.
	e.moveTyped(t, id)
	before := e.waitBoard(t, mover, "the take-back button", func(m tgemu.Message) bool { return m.Button(undo) != "" })
	stale := before.Button(undo)
	o := e.turn(t, other, id, 1)
	e.Press(t, other, o, o.Keyboard[0][0].Text)
	e.waitBoard(t, mover, "the button gone", func(m tgemu.Message) bool { return m.Button(undo) == "" && len(m.Keyboard) > 0 })
	answer := e.inject(t, mover, before.ID, stale)
	if got := answer(); !strings.Contains(got, map[int64]string{1: "You cannot take back", 2: "Сейчас ход не вернуть"}[mover]) {
		t.Errorf("the old take-back button is answered %q", got)
	}
	if bd := e.board(t, id); bd.Ply() != 1 || bd.Status != board.Active {
		t.Errorf("the refused take-back changed the board: ply %d, %v", bd.Ply(), bd.Status)
	}
}

// Ensure a draw offer reaches the opponent as a new board with its answers, a decline is told
// to the offerer, and an accepted offer ends the game as a draw for both; and that a
// resignation asks first, and ends the game for both.
func TestDrawAndResign(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.start(t)
	id := e.startPair(t, "Chess", "10 min + 5 s per move", "Шахматы", "10 мин на партию + 5 с за ход")
	users := e.seats(t, id)
	label := func(user int64, en, ru string) string {
		if user == 1 {
			return en
		}
		return ru
	}
	a, b := users[0], users[1] // a is White, to move
	e.Press(t, a, e.turn(t, a, id, 0), label(a, "½ Offer a draw", "½ Предложить ничью"))
	offered := e.waitBoard(t, b, "the offer", func(m tgemu.Message) bool {
		return m.Button(label(b, "✔ Accept the draw", "✔ Согласиться на ничью")) != ""
	})
	if !strings.Contains(offered.Text, label(b, "offers a draw", "предлагает ничью")) {
		t.Errorf("the offer's board: %q", offered.Text)
	}
	e.Press(t, b, offered, label(b, "✖ Decline", "✖ Отказаться"))
	e.waitCaption(t, a, label(a, "Your draw offer was declined", "Ваше предложение ничьей отклонено"))
	m := e.turn(t, a, id, 0)
	if m.Button(label(a, "½ Offer a draw", "½ Предложить ничью")) != "" {
		t.Errorf("a second offer in the same move is offered: %v", labels(m))
	}
	e.moveTyped(t, id)
	// Now b, to move, offers, and a accepts.
	e.Press(t, b, e.turn(t, b, id, 1), label(b, "½ Offer a draw", "½ Предложить ничью"))
	offered = e.waitBoard(t, a, "the offer", func(m tgemu.Message) bool {
		return m.Button(label(a, "✔ Accept the draw", "✔ Согласиться на ничью")) != ""
	})
	e.Press(t, a, offered, label(a, "✔ Accept the draw", "✔ Согласиться на ничью"))
	for _, u := range users {
		e.waitCaption(t, u, label(u, "Draw</b>: agreement", "Ничья</b>: по согласию"))
	}
	if bd := e.board(t, id); bd.Outcome == nil || !bd.Outcome.Draw || bd.Outcome.End != board.EndAgreement {
		t.Errorf("outcome %+v", bd.Outcome)
	}

	// A second game of the same two: a resignation asks first.
	e.menu(t, 1, "/games", "Chess", "🔎 Find an opponent", "no clock")
	e.WaitText(t, 1, 0, "Waiting for an opponent")
	e.menu(t, 2, "/games", "Шахматы", "🔎 Найти соперника", "без часов")
	e.WaitFor(t, "the second game", func() bool { return e.lastBoard(t, 2) != id })
	id = e.lastBoard(t, 2)
	users = e.seats(t, id)
	a, b = users[0], users[1]
	e.Press(t, a, e.turn(t, a, id, 0), label(a, "🏳 Resign", "🏳 Сдаться"))
	ask := e.waitCaption(t, a, label(a, "Resign this game?", "Сдаться в этой партии?"))
	e.Press(t, a, ask, label(a, "No, play on", "Нет, играем дальше"))
	m = e.waitBoard(t, a, "the question gone", func(m tgemu.Message) bool {
		return !strings.Contains(m.Text, "Resign this game") && !strings.Contains(m.Text, "Сдаться в этой")
	})
	e.Press(t, a, m, label(a, "🏳 Resign", "🏳 Сдаться"))
	ask = e.waitCaption(t, a, label(a, "Resign this game?", "Сдаться в этой партии?"))
	e.Press(t, a, ask, label(a, "Yes, I resign", "Да, сдаюсь"))
	e.waitCaption(t, a, label(a, "You lose</b>: resignation", "Вы проиграли</b>: сдача"))
	e.waitCaption(t, b, label(b, "You win</b>: resignation", "Вы выиграли</b>: сдача"))
	if n := e.QueryInt(t, `SELECT count(*) FROM board_stats WHERE played = 2 AND drawn = 1 AND rated = 2`); n != 2 {
		t.Errorf("%d players with a draw and a resignation rated, want 2", n)
	}
}
