package engine

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// fastGenVariants are the games with a fast generator (rules.fast).
var fastGenVariants = []string{"russian", "international", "brazilian", "turkish", "english"}

// Ensure every game listed has a fast generator and that it agrees with
// the reference generator, move for move and in the same order, in every
// position of random games (playouts to the end or 400 plies; more games
// with -deep). Equal lists mean equal sets of legal moves, and equal order
// keeps the AI's move ordering and the notation of merged captures as
// they were.
func TestFastGenMatchesReference(t *testing.T) {
	games := 200
	if *deep {
		games = 1500
	}
	for vi, v := range fastGenVariants {
		t.Run(v, func(t *testing.T) {
			t.Parallel()
			g := mustGame(t, v)
			r := g.r
			if r.fast == nil {
				t.Fatalf("%s has no fast generator", v)
			}
			rng := rand.New(rand.NewPCG(uint64(vi), 33))
			cf, cr := r.newCtx(), r.newCtx()
			var fast, ref []move
			positions, captures := 0, 0
			for i := 0; i < games; i++ {
				s := g.State()
				for ply := 0; ply < 400; ply++ {
					fast = r.generate(&s, cf, fast)
					ref = r.generateRef(&s, cr, ref)
					if err := sameMoves(fast, ref); err != nil {
						t.Fatalf("game %d ply %d, %s: %v", i, ply, r.encode(r, &s), err)
					}
					positions++
					if len(fast) == 0 {
						break
					}
					if fast[0].ncap > 0 {
						captures++
					}
					r.apply(&s, &fast[rng.IntN(len(fast))])
				}
			}
			// The playouts must reach both kinds of position.
			if captures == 0 || captures == positions {
				t.Errorf("%d positions, %d with captures", positions, captures)
			}
			t.Logf("%d positions, %d with captures", positions, captures)
		})
	}
}

// sameMoves reports the first difference between two move lists: every
// field a move's effect, notation and search use (dir, for Chase only, is
// left out).
func sameMoves(a, b []move) error {
	if len(a) != len(b) {
		return fmt.Errorf("%d moves, reference %d", len(a), len(b))
	}
	for i := range a {
		x, y := &a[i], &b[i]
		if x.key != y.key || x.nchg != y.nchg || x.npath != y.npath || x.ncap != y.ncap ||
			x.nking != y.nking || x.flags != y.flags || x.tag != y.tag || x.auxMask != y.auxMask {
			return fmt.Errorf("move %d differs: %+v, reference %+v", i, moveSummary(x), moveSummary(y))
		}
		for j := 0; j < numAux; j++ {
			if x.auxMask&(1<<j) != 0 && x.aux[j] != y.aux[j] {
				return fmt.Errorf("move %d: aux %v, reference %v", i, x.aux, y.aux)
			}
		}
		for j := 0; j < int(x.nchg); j++ {
			if x.sq[j] != y.sq[j] || x.pc[j] != y.pc[j] {
				return fmt.Errorf("move %d: changes %v, reference %v", i, moveSummary(x), moveSummary(y))
			}
		}
		for j := 0; j < int(x.npath); j++ {
			if x.path[j] != y.path[j] {
				return fmt.Errorf("move %d: path %v, reference %v", i, x.path[:x.npath], y.path[:y.npath])
			}
		}
	}
	return nil
}

// moveSummary shows the used part of a move.
func moveSummary(m *move) string {
	return fmt.Sprintf("path %v sq %v pc %v ncap %d nking %d flags %b tag %d aux %v/%b",
		m.path[:m.npath], m.sq[:m.nchg], m.pc[:m.nchg], m.ncap, m.nking, m.flags, m.tag, m.aux, m.auxMask)
}
