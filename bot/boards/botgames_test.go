package boards_test

import (
	"context"
	"errors"
	"testing"

	"github.com/questbot/questbot/bot/boards"
	"github.com/questbot/questbot/sessions/board"
)

// Ensure a player may have Config.BotGames games against the bot going at once: the next is
// refused with its own error (and words), another player is not held by it, and a game ended
// frees a place.
func TestBotGamesCap(t *testing.T) {
	t.Parallel()
	e := newTEnv(t, 2, 1)
	open := func(user int64) (*board.Board, error) {
		var bd *board.Board
		err := e.do.Do(context.Background(), e.service, func(ctx context.Context, tx boards.Tx) error {
			var err error
			bd, _, err = e.svc().Open(ctx, tx, e.player(user), boards.Opening{Variant: "russian", Level: board.BotEasy})
			return err
		})
		return bd, err
	}
	alice, bob := e.players[0], e.players[1]
	var first *board.Board
	for i := range boards.DefaultBotGames {
		bd, err := open(alice)
		if err != nil {
			t.Fatalf("game %d against the bot: %v", i+1, err)
		}
		if first == nil {
			first = bd
		}
	}
	if _, err := open(alice); !errors.Is(err, board.ErrTooManyBotGames) {
		t.Fatalf("game %d against the bot: %v, want ErrTooManyBotGames", boards.DefaultBotGames+1, err)
	}
	if _, err := open(bob); err != nil {
		t.Fatalf("another player's game against the bot: %v", err)
	}
	e.act(alice, first.ID, boards.Action{Op: boards.OpResign})
	if _, err := open(alice); err != nil {
		t.Fatalf("a game against the bot after one ended: %v", err)
	}
}
