package telegram_test

import (
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/questbot/questbot/bot/emulator/tgemu"
	"github.com/questbot/questbot/bot/texts"
	"github.com/questbot/questbot/engine"
	"github.com/questbot/questbot/sessions/board"
)

// playBot starts a game against the bot for a user from /games, and returns the board and the
// user's seat.
func (e *env) playBot(t *testing.T, user int64, game, level string) (int64, int) {
	t.Helper()
	e.menu(t, user, "/games", game, "🤖 Play the bot", level)
	e.waitBoard(t, user, "the board", func(tgemu.Message) bool { return true })
	id := e.lastBoard(t, user)
	seat, err := e.board(t, id).SeatOf(user)
	if err != nil {
		t.Fatal(err)
	}
	return id, seat
}

// waitMine waits until a board is finished or it is the seat's turn, and returns it.
func (e *env) waitMine(t *testing.T, id int64, seat int) *board.Board {
	t.Helper()
	var bd *board.Board
	e.WaitFor(t, "the bot's move", func() bool {
		bd = e.board(t, id)
		return bd.Status == board.Finished || bd.ToMove == seat
	})
	return bd
}

// againstBot plays a user's moves against the bot, chosen by a search of nodes nodes (or, with
// greedy, the move that captures most when there is one, for a short game) and entered by enter,
// until the game ends or the user has made moves moves (0: no limit), and returns the board.
func (e *env) againstBot(t *testing.T, user, id int64, seat int, nodes int64, greedy bool, moves int,
	enter func(i int, g *engine.Game, mv engine.Move)) *board.Board {
	t.Helper()
	for i := 0; moves == 0 || i < moves; i++ {
		bd := e.waitMine(t, id, seat)
		if bd.Status == board.Finished {
			return bd
		}
		if bd.Ply() > 700 {
			t.Fatal("the game does not end")
		}
		e.turn(t, user, id, bd.Ply())
		g := e.replay(t, id)
		mv := choose(t, g, nodes)
		if greedy {
			for _, m := range g.LegalMoves() {
				if m.Captures() > mv.Captures() {
					mv = m
				}
			}
		}
		enter(i, g, mv)
		if got := e.waitPly(t, id, bd.Ply()+1).Moves[bd.Ply()].Text; got != mv.String() {
			t.Fatalf("move %d: %s played, %s meant", i+1, got, mv)
		}
	}
	return e.board(t, id)
}

// metric returns the value of a counter (or the count of a histogram) of a registry with the
// given labels.
func metric(t *testing.T, reg *prometheus.Registry, name string, labels map[string]string) float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	total := 0.0
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
	metrics:
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if v, ok := labels[l.GetName()]; ok && v != l.GetValue() {
					continue metrics
				}
			}
			switch {
			case m.Counter != nil:
				total += m.Counter.GetValue()
			case m.Histogram != nil:
				total += float64(m.Histogram.GetSampleCount())
			}
		}
	}
	return total
}

// Ensure a user plays chess against the bot for 20 moves, typed (with a dash, in Cyrillic
// look-alikes) and with the buttons: the bot answers each move through the AI job, the chat
// keeps one board, edited in place, and the moves, the games and the thinking are counted.
func TestChessAgainstBot(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	reg := prometheus.NewRegistry()
	e.start(t)
	if err := e.app.Register(reg); err != nil {
		t.Fatal(err)
	}
	e.user(t, 1, "Ann", "en")
	id, seat := e.playBot(t, 1, "Chess", texts.For("en").LevelChoice("chess", board.BotNormal))
	first, _ := e.boardMessage(1)
	bd := e.againstBot(t, 1, id, seat, 2000, false, 20, func(i int, g *engine.Game, mv engine.Move) {
		switch i % 3 {
		case 0:
			e.Send(t, 1, typed(g, mv, false))
		case 1:
			e.Send(t, 1, typed(g, mv, true))
		default:
			e.playButtons(t, 1, g, mv)
		}
	})
	mine := 0
	for _, m := range bd.Moves {
		if m.Seat == seat {
			mine++
		}
	}
	if mine < 20 && bd.Status != board.Finished {
		t.Fatalf("%d moves played", mine)
	}
	if bd.Status == board.Active {
		bd = e.waitMine(t, id, seat)
	}
	e.WaitIdle(t)
	var boards []tgemu.Message
	for _, m := range e.BotMessages(1) {
		if m.Photo != "" {
			boards = append(boards, m)
		}
	}
	if len(boards) != 1 || boards[0].ID != first.ID {
		t.Errorf("%d boards in the chat (the first %d); want the first alone, edited", len(boards), first.ID)
	}
	bot := float64(bd.Ply() - mine)
	if got := metric(t, reg, "questbot_board_moves_total", map[string]string{"game": "chess", "by": "bot"}); got != bot {
		t.Errorf("bot moves counted: %v, want %v", got, bot)
	}
	if got := metric(t, reg, "questbot_board_moves_total", map[string]string{"by": "human"}); got != float64(mine) {
		t.Errorf("human moves counted: %v, want %d", got, mine)
	}
	if got := metric(t, reg, "questbot_board_ai_think_seconds", map[string]string{"level": "normal"}); got < bot {
		t.Errorf("searches timed: %v, want at least %v", got, bot)
	}
	t.Logf("%d plies; the last board: %q", bd.Ply(), boards[len(boards)-1].Text)
}

// Ensure Chase and Fox and Geese are played to their end against the bot, with the buttons
// (exchanges and multi-captures included), and the result shown.
func TestChaseAndFoxAgainstBot(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.start(t)
	// The seeds give the player White in Chase and the geese in Fox and Geese (the side is the
	// seed's bit 32).
	for i, game := range []struct {
		name string
		seed uint64
	}{{"Chase", 1<<32 | 7}, {"Fox and Geese (13 geese)", 7}} {
		user := int64(10 + i)
		e.user(t, user, "Player", "en")
		e.seed.Store(game.seed)
		id, seat := e.playBot(t, user, game.name, "Easy")
		bd := e.againstBot(t, user, id, seat, 4000, true, 0, func(i int, g *engine.Game, mv engine.Move) {
			if i%5 == 4 {
				e.Send(t, user, mv.String())
				return
			}
			e.playButtons(t, user, g, mv)
		})
		m := e.waitBoard(t, user, "the result", func(m tgemu.Message) bool {
			return strings.Contains(m.Text, "You win") || strings.Contains(m.Text, "You lose") || strings.Contains(m.Text, "Draw")
		})
		t.Logf("%s: %d plies, %+v: %q", game.name, bd.Ply(), bd.Outcome, m.Text)
	}
}

// Ensure the buttons enter a move a tap at a time: a piece, then where it goes, the caption
// listing the whole moves still possible; "back" starts over; when several moves end on the
// squares tapped (a Chase exchange of one or two pips), they are offered by name.
func TestButtonsChooseAndBack(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.start(t)
	e.user(t, 1, "Ann", "en")
	e.seed.Store(7) // Ann plays Red, who moves first
	id, seat := e.playBot(t, 1, "Chase", "Easy")
	if seat != 0 {
		t.Fatalf("Ann plays seat %d", seat)
	}
	m := e.turn(t, 1, id, 0)
	if got := labels(m); len(got) < 9 || got[0] != "A1" || got[8] != "A9" {
		t.Fatalf("the pieces to move: %v", got)
	}
	m = e.tap(t, 1, "A3")
	if !strings.Contains(m.Text, "Chosen: <b>A3</b>") || !strings.Contains(m.Text, "Possible: A3-D2, A3-D5, A3&gt;A2:1") ||
		m.Button("A2") == "" || m.Button("↩ Back") == "" {
		t.Fatalf("after A3: %q %v", m.Text, labels(m))
	}
	m = e.tap(t, 1, "↩ Back")
	if strings.Contains(m.Text, "Chosen") || m.Button("A1") == "" {
		t.Fatalf("after back: %q %v", m.Text, labels(m))
	}
	e.tap(t, 1, "A3")
	m = e.tap(t, 1, "A2")
	if !strings.Contains(m.Text, "Choose the move:") || m.Button("A3>A2:1") == "" || m.Button("A3>A2:2") == "" {
		t.Fatalf("after A3, A2: %q %v", m.Text, labels(m))
	}
	// Back goes one tap back: A3 is still chosen.
	m = e.tap(t, 1, "↩ Back")
	if !strings.Contains(m.Text, "Chosen: <b>A3</b>") || m.Button("A2") == "" {
		t.Fatalf("back from A3, A2: %q %v", m.Text, labels(m))
	}
	m = e.tap(t, 1, "A2")
	e.Press(t, 1, m, "A3>A2:2")
	if bd := e.waitPly(t, id, 1); bd.Moves[0].Text != "A3>A2:2" {
		t.Errorf("played %q", bd.Moves[0].Text)
	}
	e.waitMine(t, id, seat)
}
