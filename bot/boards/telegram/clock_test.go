package telegram_test

import (
	"strings"
	"testing"
	"time"

	"github.com/questbot/questbot/bot/texts"
	"github.com/questbot/questbot/sessions/board"
)

// Ensure the server runs the clock: a player who does not move within their time loses when
// the deadlines job finds it, both players hear of it with a new board, and the clocks are shown.
func TestTimeout(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.start(t)
	id := e.startPair(t, "Chess", "10 min + 5 s per move", "Шахматы", "10 мин на партию + 5 с за ход")
	users := e.seats(t, id)
	white, black := users[0], users[1]
	m := e.turn(t, white, id, 0)
	if !strings.Contains(m.Text, "10:00") {
		t.Errorf("no clock on the board: %q", m.Text)
	}
	e.moveTyped(t, id)
	before := map[int64]int{}
	for _, u := range users {
		b, _ := e.boardMessage(u)
		before[u] = b.ID
	}
	e.clock.advance(10*time.Minute + 6*time.Second)
	lose := map[int64]string{1: "You lose</b>: time ran out", 2: "Вы проиграли</b>: истекло время"}
	win := map[int64]string{1: "You win</b>: time ran out", 2: "Вы выиграли</b>: истекло время"}
	for u, want := range map[int64]string{black: lose[black], white: win[white]} {
		b := e.waitCaption(t, u, want)
		if b.ID == before[u] {
			t.Errorf("user %d was not notified: the board was edited in place", u)
		}
	}
	bd := e.board(t, id)
	if bd.Outcome == nil || bd.Outcome.End != board.EndTimeout || bd.Outcome.Winner != 0 {
		t.Errorf("outcome %+v", bd.Outcome)
	}
}

// Ensure a correspondence player is reminded once, two hours before the deadline, with the board
// sent again, and loses on time after it.
func TestReminder(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.start(t)
	id := e.startPair(t, "Turkish draughts", "1 day a move", "Турецкие шашки", "1 день на ход")
	users := e.seats(t, id)
	first := users[0]
	reminder := "⏰"
	e.turn(t, first, id, 0)
	e.clock.advance(22*time.Hour + time.Minute)
	m := e.waitCaption(t, first, reminder)
	if !strings.Contains(m.Text, "1 h 5") && !strings.Contains(m.Text, "1 ч 5") {
		t.Errorf("the reminder: %q", m.Text)
	}
	// A clock of so long a move: the time is for the move.
	if perMove := map[int64]string{1: "left for your move", 2: "На ход осталось"}[first]; !strings.Contains(m.Text, perMove) {
		t.Errorf("the reminder does not speak of the move: %q", m.Text)
	}
	e.clock.advance(time.Hour)
	e.settle(t)
	if n := e.CountText(first, reminder); n != 1 {
		t.Errorf("%d reminders, want 1", n)
	}
	e.clock.advance(time.Hour)
	e.waitCaption(t, first, map[int64]string{1: "You lose</b>: time ran out", 2: "Вы проиграли</b>: истекло время"}[first])
}

// Ensure a game between players goes on across a restart of the bot: the buttons sent before it
// work after it.
func TestRestartBetweenPlayers(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	p := e.start(t)
	id := e.startPair(t, "Brazilian draughts", "no clock", "Бразильские шашки", "без часов")
	e.moveTyped(t, id)
	e.moveTyped(t, id)
	p.Stop()
	e.start(t)
	for ply := 2; ply < 6; ply++ {
		bd := e.board(t, id)
		user := bd.Seats[bd.ToMove].User
		g := e.replay(t, id)
		e.turn(t, user, id, ply)
		e.playButtons(t, user, g, choose(t, g, 500))
		e.waitPly(t, id, ply+1)
	}
	if bd := e.board(t, id); bd.Ply() != 6 || bd.Status != board.Active {
		t.Errorf("after the restart: ply %d, %v", bd.Ply(), bd.Status)
	}
}

// Ensure a bot's move pending when the bot stops is made after it restarts (the AI's lease runs
// out), and a move against the bot can be taken back with the bot's reply.
func TestRestartPendingBotMove(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.jobs.ai = false
	p := e.start(t)
	e.user(t, 1, "Ann", "en")
	id, seat := e.playBot(t, 1, "Russian draughts", texts.For("en").LevelChoice("russian", board.BotStrong))
	if seat == 1 {
		// The bot plays first: its move comes after the restart too.
		p.Stop()
		e.jobs.ai = true
		p = e.start(t)
		e.waitMine(t, id, seat)
		p.Stop()
		e.jobs.ai = false
		p = e.start(t)
	}
	bd := e.board(t, id)
	g := e.replay(t, id)
	e.turn(t, 1, id, bd.Ply())
	e.playButtons(t, 1, g, choose(t, g, 500))
	e.waitPly(t, id, bd.Ply()+1)
	e.waitCaption(t, 1, "The bot is thinking")
	p.Stop()
	e.jobs.ai = true
	e.start(t)
	bd = e.waitMine(t, id, seat)
	ply := bd.Ply()
	if bd.Moves[ply-1].Seat == seat {
		t.Fatalf("the bot did not move: %+v", bd.Moves[ply-1])
	}
	m := e.turn(t, 1, id, ply)
	// Take back: the user's move and the bot's reply.
	e.Press(t, 1, m, "⟲ Take back")
	e.WaitFor(t, "the moves taken back", func() bool { return e.board(t, id).Ply() == ply-2 })
	m = e.turn(t, 1, id, ply-2)
	if !strings.Contains(m.Text, "You took back your move") {
		t.Errorf("after the take-back: %q", m.Text)
	}
}

// Ensure a player who presses a button after their time ran out, before the deadlines job came,
// loses on time then, and the press does nothing else.
func TestTimeoutOnPress(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.jobs.deadlines = false
	e.start(t)
	id := e.startPair(t, "Chess", "10 min + 5 s per move", "Шахматы", "10 мин на партию + 5 с за ход")
	white := e.seats(t, id)[0]
	m := e.turn(t, white, id, 0)
	e.clock.advance(11 * time.Minute)
	e.Press(t, white, m, "e2")
	e.waitCaption(t, white, map[int64]string{1: "You lose</b>: time ran out", 2: "Вы проиграли</b>: истекло время"}[white])
	if bd := e.board(t, id); bd.Ply() != 0 || bd.Outcome == nil || bd.Outcome.End != board.EndTimeout {
		t.Errorf("after the late press: ply %d, %+v", bd.Ply(), bd.Outcome)
	}
}
