package engine

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// refMini is a reference move generator of Gardner's minichess written
// for the tests: every piece's pseudo-legal moves on a plain 5x5 grid,
// then the moves that leave the mover's king attacked dropped by trying
// every reply that could take it. Moves are "from to promotion" strings.
func refMini(b [5][5]int, side int) []string {
	in := func(x, y int) bool { return x >= 0 && x < 5 && y >= 0 && y < 5 }
	pseudo := func(b [5][5]int, side int) [][5]int { // fromX, fromY, toX, toY, promo
		var out [][5]int
		for x := 0; x < 5; x++ {
			for y := 0; y < 5; y++ {
				v := b[x][y] * side
				if v <= 0 {
					continue
				}
				add := func(tx, ty int) bool { // false: the line stops here
					if !in(tx, ty) || b[tx][ty]*side > 0 {
						return false
					}
					out = append(out, [5]int{x, y, tx, ty, 0})
					return b[tx][ty] == 0
				}
				switch v {
				case 1: // pawn
					ty := y + side
					if !in(x, ty) {
						continue
					}
					var to [][2]int
					if b[x][ty] == 0 {
						to = append(to, [2]int{x, ty})
					}
					for _, dx := range []int{-1, 1} {
						if in(x+dx, ty) && b[x+dx][ty]*side < 0 {
							to = append(to, [2]int{x + dx, ty})
						}
					}
					for _, t := range to {
						if ty == 0 || ty == 4 {
							for pr := 2; pr <= 5; pr++ {
								out = append(out, [5]int{x, y, t[0], t[1], pr})
							}
						} else {
							out = append(out, [5]int{x, y, t[0], t[1], 0})
						}
					}
				case 2: // knight
					for _, d := range [][2]int{{1, 2}, {2, 1}, {-1, 2}, {-2, 1}, {1, -2}, {2, -1}, {-1, -2}, {-2, -1}} {
						add(x+d[0], y+d[1])
					}
				case 6: // king
					for dx := -1; dx <= 1; dx++ {
						for dy := -1; dy <= 1; dy++ {
							if dx != 0 || dy != 0 {
								add(x+dx, y+dy)
							}
						}
					}
				default: // sliders
					var dirs [][2]int
					if v == 3 || v == 5 {
						dirs = append(dirs, [2]int{1, 1}, [2]int{1, -1}, [2]int{-1, 1}, [2]int{-1, -1})
					}
					if v == 4 || v == 5 {
						dirs = append(dirs, [2]int{1, 0}, [2]int{-1, 0}, [2]int{0, 1}, [2]int{0, -1})
					}
					for _, d := range dirs {
						for k := 1; add(x+k*d[0], y+k*d[1]); k++ {
						}
					}
				}
			}
		}
		return out
	}
	var out []string
	for _, m := range pseudo(b, side) {
		nb := b
		nb[m[2]][m[3]] = nb[m[0]][m[1]]
		if m[4] != 0 {
			nb[m[2]][m[3]] = m[4] * side
		}
		nb[m[0]][m[1]] = 0
		safe := true
		for _, r := range pseudo(nb, -side) {
			if nb[r[2]][r[3]] == 6*side {
				safe = false
			}
		}
		if safe {
			out = append(out, fmt.Sprint(m))
		}
	}
	slices.Sort(out)
	return out
}

// TestGardnerAgreesWithReference compares the engine's legal moves with
// the reference generator at every position of random games (50, 1000
// with -deep), and their
// ends by mate or stalemate with the positions where it has no move.
func TestGardnerAgreesWithReference(t *testing.T) {
	t.Parallel()
	games := 50
	if *deep {
		games = 1000
	}
	rng := rand.New(rand.NewPCG(9, 9))
	for i := 0; i < games; i++ {
		g := mustGame(t, "gardner", WithPlyLimit(200))
		board := func() ([5][5]int, int) {
			s := g.State()
			var b [5][5]int
			for sq := 0; sq < 25; sq++ {
				if pc := s.Board[sq]; pc != 0 {
					v := int(pc.Kind())
					if pc.Owner() == Second {
						v = -v
					}
					b[sq%5][sq/5] = v
				}
			}
			side := 1
			if s.Turn == Second {
				side = -1
			}
			return b, side
		}
		for g.Status().Result == Ongoing {
			b, side := board()
			var got []string
			for _, m := range g.LegalMoves() {
				f, to := m.m.from(), m.m.to()
				got = append(got, fmt.Sprint([5]int{f % 5, f / 5, to % 5, to / 5, int(m.m.tag)}))
			}
			slices.Sort(got)
			if want := refMini(b, side); !slices.Equal(got, want) {
				t.Fatalf("after %v:\n engine    %v\n reference %v\n%s", g.History(), got, want, g.Diagram(First))
			}
			ms := g.LegalMoves()
			if err := g.Apply(ms[rng.IntN(len(ms))]); err != nil {
				t.Fatal(err)
			}
		}
		// The game ends by mate or stalemate exactly when the reference
		// finds no move.
		st := g.Status()
		b, side := board()
		if none := len(refMini(b, side)) == 0; none != (st.Rule == RuleCheckmate || st.Rule == RuleStalemate) {
			t.Fatalf("after %v: status %+v, the reference has moves: %v\n%s", g.History(), st, !none, g.Diagram(First))
		}
	}
}

func TestGardnerRules(t *testing.T) {
	g := mustGame(t, "gardner")
	checkMoves(t, g, "a2a3", "b1a3", "b1c3", "b2b3", "c2c3", "d2d3", "e2e3")
	// No double step: a pawn on its first rank goes one square.
	g = mustGame(t, "gardner", WithPosition("4k/5/5/P4/K4 w"))
	checkMoves(t, g, "a1b1", "a1b2", "a2a3")
	// Promotion to any of four pieces.
	g = mustGame(t, "gardner", WithPosition("4k/P4/5/5/K4 w"))
	mustPlay(t, g, "a4a5n")
	// Checkmate and stalemate.
	g = mustGame(t, "gardner", WithPosition("k4/2K2/5/5/4R w"))
	mustPlay(t, g, "e1a1")
	if st := g.Status(); st.Result != Win || st.Rule != RuleCheckmate {
		t.Errorf("status %+v, want checkmate", st)
	}
	g = mustGame(t, "gardner", WithPosition("k4/2Q2/1K3/5/5 b"))
	if st := g.Status(); st.Result != Draw || st.Rule != RuleStalemate {
		t.Errorf("status %+v, want stalemate", st)
	}
	for _, bad := range []string{"5/5/5/5/5 w", "kk3/5/5/5/K4 w", "P3k/5/5/5/K4 w", "4k/5/5/5/K4 x"} {
		if _, err := NewGame("gardner", WithPosition(bad)); err == nil {
			t.Errorf("position %q accepted", bad)
		}
	}
}
