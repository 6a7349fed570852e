package board

import (
	"testing"
	"time"
)

// longGame returns a board of variant after up to plies moves (fewer when the game ends
// first), each picked from the legal moves by a fixed rule, so the game is always the same.
func longGame(tb testing.TB, variant string, plies int) *Board {
	tb.Helper()
	b, _, err := Open(Spec{Service: 1, Creator: alice, Variant: variant, Seed: 3}, t0)
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := b.Join(bob, t0); err != nil {
		tb.Fatal(err)
	}
	for b.Status == Active && b.Ply() < plies {
		g, err := b.engine()
		if err != nil {
			tb.Fatal(err)
		}
		legal := g.LegalMoves()
		user := b.Seats[b.ToMove].User
		if _, err := b.Move(user, legal[b.Ply()*7919%len(legal)].String(), b.Ply(), at(time.Duration(b.Ply())*time.Second)); err != nil {
			tb.Fatal(err)
		}
	}
	return b
}

// BenchmarkRebuild measures the replay a stored board needs before its first operation, for
// games of 100 and 400 plies.
func BenchmarkRebuild(b *testing.B) {
	for _, tt := range []struct {
		name, variant string
		plies         int
	}{{"chess-100", "chess", 100}, {"chess-400", "chess", 400}, {"russian-100", "russian", 100}} {
		b.Run(tt.name, func(b *testing.B) {
			board := longGame(b, tt.variant, tt.plies)
			for b.Loop() {
				if _, err := board.Rebuild(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(board.Ply()), "plies")
		})
	}
}
