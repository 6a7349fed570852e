package boards

import (
	"context"
	"testing"
	"time"

	"github.com/questbot/questbot/engine"
	"github.com/questbot/questbot/sessions/board"
)

// BenchmarkBotMove measures the bot's search for a move at each level, in each game the bot
// offers, from a position a few moves in, with the limits the AI job gives it (the levels' node
// limits, capped in time: 2 s at most, for the strongest). Each sub-benchmark reports the time of
// one search.
//
//	go test -run '^$' -bench BotMove -benchtime 3x ./bot/boards
func BenchmarkBotMove(b *testing.B) {
	boards := New(Config{Dir: b.TempDir()})
	for _, variant := range Games {
		for _, level := range []board.BotLevel{board.BotEasy, board.BotNormal, board.BotStrong} {
			b.Run(variant+"/"+level.String(), func(b *testing.B) {
				g, err := engine.NewGame(variant, engine.WithSeed(5))
				if err != nil {
					b.Fatal(err)
				}
				for range 6 { // out of the opening's symmetry
					mv, _, err := g.BestMove(context.Background(), engine.Limits{Nodes: 200})
					if err == nil {
						err = g.Apply(mv)
					}
					if err != nil {
						b.Fatal(err)
					}
				}
				lim := boards.limits(level, variant)
				var worst time.Duration
				for range b.N {
					start := time.Now()
					if _, _, err := g.BestMove(context.Background(), lim); err != nil {
						b.Fatal(err)
					}
					worst = max(worst, time.Since(start))
				}
				b.ReportMetric(worst.Seconds()*1000, "worst-ms")
			})
		}
	}
}
