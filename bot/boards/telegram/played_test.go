package telegram_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/questbot/questbot/bot/emulator/tgemu"
	"github.com/questbot/questbot/bot/texts"
	"github.com/questbot/questbot/engine"
	"github.com/questbot/questbot/sessions/board"
)

// Ensure a typed move the bot plays is answered at the bottom of the chat with the move, the
// game and the opponent, so that with two games waiting the player knows which took it, and
// that the answer's button brings that board to the bottom of the chat.
func TestTypedMoveAnswered(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.start(t)
	e.user(t, 1, "Ann", "en")
	chess, chessSeat := e.playBot(t, 1, "Chess", texts.For("en").LevelChoice("chess", board.BotNormal))
	e.menu(t, 1, "/games", "Russian draughts", "🤖 Play the bot", texts.For("en").LevelChoice("russian", board.BotEasy))
	e.waitCaption(t, 1, "Russian draughts")
	draughts := e.lastBoard(t, 1)
	draughtsSeat, err := e.board(t, draughts).SeatOf(1)
	if err != nil || draughts == chess {
		t.Fatalf("the second game %d (the first %d): %v", draughts, chess, err)
	}
	e.waitMine(t, chess, chessSeat)
	e.waitMine(t, draughts, draughtsSeat)

	for _, game := range []struct {
		id    int64
		seat  int
		title string
		bot   string
	}{{chess, chessSeat, "Chess", texts.For("en").BotName("chess", board.BotNormal)},
		{draughts, draughtsSeat, "Russian draughts", texts.For("en").BotName("russian", board.BotEasy)}} {
		bd := e.waitMine(t, game.id, game.seat)
		g := e.replay(t, game.id)
		// A move of this game that the other cannot read as its own.
		var mv engine.Move
		for _, m := range g.LegalMoves() {
			if other := e.replay(t, map[int64]int64{chess: draughts, draughts: chess}[game.id]); !legalIn(other, m.String()) {
				mv = m
				break
			}
		}
		if mv.String() == "" {
			t.Fatalf("no move of %s that the other game cannot read: %v", game.title, g.LegalMoves())
		}
		shown := g.Display(mv)
		number := bd.Ply()/2 + 1
		want := fmt.Sprintf("You played <b>%d. %s</b> in %s against %s.", number, shown, game.title, game.bot)
		if game.seat == 1 {
			want = fmt.Sprintf("You played <b>%d. %s</b> in %s against %s.", number, shown, game.title, game.bot)
		}
		sent := e.Send(t, 1, mv.String())
		answer := e.WaitTextAfter(t, 1, sent, want)
		if answer.ReplyTo != sent || len(answer.Keyboard) != 1 || len(answer.Keyboard[0]) != 1 ||
			answer.Keyboard[0][0].Text != "♟ To the board" {
			t.Fatalf("the answer: %+v", answer)
		}
		if got := e.waitPly(t, game.id, bd.Ply()+1).Moves[bd.Ply()].Text; got != mv.String() {
			t.Fatalf("played %s, typed %s", got, mv)
		}
		// The button brings this game's board to the bottom of the chat.
		e.Press(t, 1, answer, "♟ To the board")
		e.waitBoard(t, 1, "the board of "+game.title, func(m tgemu.Message) bool {
			return m.ID > answer.ID && strings.Contains(m.Text, game.title) && hasData(m, fmt.Sprintf("g:%d:", game.id))
		})
	}
}

// legalIn reports whether a text reads as a legal move of g.
func legalIn(g *engine.Game, text string) bool {
	_, err := g.ParseMove(text)
	return err == nil
}

// hasData reports whether a button of the message carries callback data starting with prefix.
func hasData(m tgemu.Message, prefix string) bool {
	for _, row := range m.Keyboard {
		for _, b := range row {
			if strings.HasPrefix(b.Data, prefix) {
				return true
			}
		}
	}
	return false
}
