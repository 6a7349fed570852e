package engine

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// fastGenVariants are the games with a fast generator (rules.fast).
var fastGenVariants = []string{"russian", "international", "brazilian", "turkish", "english", "chess"}

// fastGenStarts are further start positions of the playouts: the chess
// perft positions rich in castling, en passant, pins and promotions.
var fastGenStarts = map[string][]string{
	"chess": {
		"r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq -",
		"8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - -",
		"r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
		"rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
		"8/8/8/K1pP3r/8/8/8/7k w - c6 0 2",      // en passant would uncover the king
		"r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",  // castling both ways, both sides
		"1r2k3/P7/8/8/8/8/8/4K3 w - - 0 1",      // promotion by a step or a capture
		"4k3/8/8/8/8/5n2/8/r3K2R w K - 0 1",     // double check
		"4k3/8/8/8/1b6/8/3R4/r1B1K2R w K - 0 1", // pins on a diagonal and a rank
	},
	"russian":       {"W:WKc1,e3,g3:Bb6,d6,f6,h6,Kh8"},
	"international": {"W:WK46,31,33,35:B17,18,19,22,24,K5"},
	"turkish":       {"W:WKa1,b3,c3,d3:Ba6,b6,Kh8,g6"},
}

// Ensure every game listed has a fast generator and that it agrees with
// the reference generator, move for move and in the same order, in every
// position of random games (playouts to the end or 400 plies; more games
// with -deep). Equal lists mean equal sets of legal moves, and equal order
// keeps the AI's move ordering and the notation of merged captures as
// they were.
func TestFastGenMatchesReference(t *testing.T) {
	games := 60
	if *deep {
		games = 1500
	}
	for vi, v := range fastGenVariants {
		t.Run(v, func(t *testing.T) {
			t.Parallel()
			starts := []State{mustGame(t, v).State()}
			for _, pos := range fastGenStarts[v] {
				starts = append(starts, mustGame(t, v, WithPosition(pos)).State())
			}
			r := mustGame(t, v).r
			if r.fast == nil {
				t.Fatalf("%s has no fast generator", v)
			}
			rng := rand.New(rand.NewPCG(uint64(vi), 33))
			cf, cr, cc := r.newCtx(), r.newCtx(), r.newCtx()
			var fast, ref []move
			// counted: positions the count hook counted; kingsCounted: those
			// with a king's move among them.
			positions, captures, counted, kingsCounted := 0, 0, 0, 0
			for i := 0; i < games; i++ {
				s := starts[i%len(starts)]
				for ply := 0; ply < 400; ply++ {
					fast = r.generate(&s, cf, fast)
					ref = r.generateRef(&s, cr, ref)
					if err := sameMoves(fast, ref); err != nil {
						t.Fatalf("game %d ply %d, %s: %v", i, ply, r.encode(r, &s), err)
					}
					positions++
					if r.count != nil {
						if n := r.count(r, &s, cc); n >= 0 {
							counted++
							if n != len(fast) {
								t.Fatalf("game %d ply %d, %s: count %d, generate %d", i, ply, r.encode(r, &s), n, len(fast))
							}
							for j := range fast {
								if fast[j].pc[1].Kind() == kindKing && fast[j].flags&flagPromotion == 0 {
									kingsCounted++
									break
								}
							}
						} else if len(fast) == 0 || fast[0].ncap == 0 {
							t.Fatalf("game %d ply %d, %s: count left a position without captures to generate", i, ply, r.encode(r, &s))
						}
					}
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
			if r.count != nil && (counted == 0 || kingsCounted == 0) {
				t.Errorf("%d positions counted without generating them, %d with a king's move", counted, kingsCounted)
			}
			t.Logf("%d positions, %d with captures, %d counted (%d with a king's move)", positions, captures, counted, kingsCounted)
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
