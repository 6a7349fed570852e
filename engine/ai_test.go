package engine

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"
)

// randomPositions plays a few random moves in each variant to get
// positions that are not the start.
func randomPositions(t *testing.T, variant string, n int) []*Game {
	t.Helper()
	rng := rand.New(rand.NewPCG(7, 7))
	var out []*Game
	for i := 0; i < n; i++ {
		g := mustGame(t, variant)
		for k := rng.IntN(20); k > 0 && g.Status().Result == Ongoing; k-- {
			ms := g.LegalMoves()
			if err := g.Apply(ms[rng.IntN(len(ms))]); err != nil {
				t.Fatal(err)
			}
		}
		if g.Status().Result == Ongoing {
			out = append(out, g)
		}
	}
	return out
}

func isLegal(g *Game, m Move) bool {
	for _, lm := range g.LegalMoves() {
		if lm.m.equal(&m.m) {
			return true
		}
	}
	return false
}

func TestAILegalAndDeterministic(t *testing.T) {
	for _, v := range variants() {
		t.Run(v.Name, func(t *testing.T) {
			t.Parallel()
			for _, g := range randomPositions(t, v.Name, 2) {
				for _, alg := range []Algorithm{AlphaBeta, MCTS} {
					lim := Limits{Nodes: 3000, Algorithm: alg, Seed: 99}
					m1, i1, err := g.BestMove(context.Background(), lim)
					if err != nil || !isLegal(g, m1) {
						t.Fatalf("%v: move %v err %v", alg, m1, err)
					}
					m2, i2, _ := g.BestMove(context.Background(), lim)
					if m1.String() != m2.String() || i1.Nodes != i2.Nodes || i1.Score != i2.Score {
						t.Errorf("%v not deterministic: %v %+v / %v %+v", alg, m1, i1, m2, i2)
					}
				}
			}
		})
	}
}

func TestAILimits(t *testing.T) {
	g := mustGame(t, "russian")
	// Cancelled before it starts: still a legal move.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, alg := range []Algorithm{AlphaBeta, MCTS} {
		m, _, err := g.BestMove(ctx, Limits{Time: time.Hour, Algorithm: alg})
		if err != nil || !isLegal(g, m) {
			t.Errorf("%v cancelled: %v %v", alg, m, err)
		}
	}
	// A fake clock that advances 1 ms per reading: a 50 ms budget ends
	// after about 50 polls of the clock.
	var now time.Time
	clock := func() time.Time { now = now.Add(time.Millisecond); return now }
	for _, alg := range []Algorithm{AlphaBeta, MCTS} {
		m, info, err := g.BestMove(context.Background(), Limits{Time: 50 * time.Millisecond, Now: clock, Algorithm: alg})
		if err != nil || !isLegal(g, m) || info.Nodes > 200_000 {
			t.Errorf("%v timed: %v %+v %v", alg, m, info, err)
		}
	}
	// Depth cap.
	_, info, _ := g.BestMove(context.Background(), Limits{Depth: 3, Nodes: 1_000_000, Algorithm: AlphaBeta})
	if info.Depth != 3 {
		t.Errorf("depth cap 3: searched %d", info.Depth)
	}
	// Game over.
	over := mustGame(t, "chess")
	mustPlay(t, over, "f3", "e5", "g4", "Qh4")
	if _, _, err := over.BestMove(context.Background(), Limits{}); err == nil {
		t.Errorf("BestMove after mate succeeded")
	}
}

func TestAIFindsWins(t *testing.T) {
	cases := []struct {
		variant, pos, want string
	}{
		{"chess", "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1", "d1d8"},
		{"chess", "k7/8/1K6/8/8/8/8/7R w - - 0 1", "h1h8"},
		// Russian: taking with the king on the long diagonal wins both
		// black men at once; the quiet alternatives lose a piece.
		{"russian", "W:WKa1,g1:Bc3,e5,h8", "a1:d4:f6"},
	}
	for _, tc := range cases {
		for _, alg := range []Algorithm{AlphaBeta, MCTS} {
			g := mustGame(t, tc.variant, WithPosition(tc.pos))
			m, info, err := g.BestMove(context.Background(), Limits{Nodes: 20_000, Algorithm: alg, Seed: 1})
			if err != nil || m.String() != tc.want {
				t.Errorf("%s %s %v: %v (%+v), want %s", tc.variant, tc.pos, alg, m, info, tc.want)
			}
		}
	}
}

func TestAIDefaultAlgorithm(t *testing.T) {
	for v, want := range map[string]Algorithm{"russian": AlphaBeta, "chess": AlphaBeta, "chase": AlphaBeta, "foxgeese13": AlphaBeta} {
		g := mustGame(t, v)
		_, info, _ := g.BestMove(context.Background(), Limits{Nodes: 500})
		if info.Algorithm != want {
			t.Errorf("%s: default %v, want %v", v, info.Algorithm, want)
		}
	}
}

// TestNoAllocations checks the fast path: generating moves and applying
// them into a preallocated state allocates nothing.
func TestNoAllocations(t *testing.T) {
	for _, v := range []string{"russian", "international", "turkish", "chess", "chase", "foxgeese13"} {
		g := mustGame(t, v)
		r := g.r
		c := r.newCtx()
		s := g.State()
		buf := make([]move, 0, 256)
		child := new(State)
		allocs := testing.AllocsPerRun(100, func() {
			ms := r.generate(&s, c, buf)
			for i := range ms {
				*child = s
				r.apply(child, &ms[i])
			}
		})
		if allocs != 0 {
			t.Errorf("%s: %.1f allocations per generate+apply", v, allocs)
		}
	}
}
