package telegram_test

import (
	"strings"
	"testing"

	"github.com/questbot/questbot/bot/emulator/tgemu"
	"github.com/questbot/questbot/engine"
	"github.com/questbot/questbot/sessions/board"
)

// Ensure the games added as descriptions, Othello and Atari Go are offered by /games and played
// against the bot with the buttons and typed moves: Othello and Atari Go to their end (passes
// included when they come), the others for their first moves.
func TestNewGamesAgainstBot(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.start(t)
	for i, game := range []struct {
		title string
		moves int
	}{
		{"Othello", 0}, {"Breakthrough", 6}, {"Canadian draughts", 4}, {"Pool checkers", 4},
		{"Czech draughts", 4}, {"Spanish draughts", 4}, {"Italian draughts", 4}, {"Thai draughts", 4},
		{"Armenian draughts (tama)", 4}, {"Atari Go", 0},
		{"Gardner's minichess (5×5)", 6}, {"Chess960", 6},
	} {
		user := int64(40 + i)
		e.user(t, user, "Player", "en")
		id, seat := e.playBot(t, user, game.title, "Easy")
		bd := e.againstBot(t, user, id, seat, 2000, false, game.moves, func(i int, g *engine.Game, mv engine.Move) {
			if i%3 == 2 {
				e.Send(t, user, mv.String())
				return
			}
			e.playButtons(t, user, g, mv)
		})
		if game.moves == 0 {
			if bd.Status != board.Finished {
				t.Fatalf("%s: not finished", game.title)
			}
			m := e.waitBoard(t, user, "the result", func(m tgemu.Message) bool {
				return strings.Contains(m.Text, "You win") || strings.Contains(m.Text, "You lose") || strings.Contains(m.Text, "Draw")
			})
			t.Logf("%s: %d plies, %+v: %q", game.title, bd.Ply(), bd.Outcome, m.Text)
		} else if bd.Ply() < game.moves {
			t.Fatalf("%s: %d plies played", game.title, bd.Ply())
		}
	}
}
