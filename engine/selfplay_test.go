package engine

import (
	"context"
	"flag"
	"testing"
)

// selfplay runs the matches that choose each game's default AI
// (rules.useMCTS): go test ./engine -run SelfPlay -selfplay 6 -v
var selfplay = flag.Int("selfplay", 0, "play this many alpha-beta vs MCTS games per variant and report the score")

func TestSelfPlay(t *testing.T) {
	if *selfplay == 0 {
		t.Skip("use -selfplay N")
	}
	for _, v := range []string{"chase", "foxgeese13", "russian"} {
		var ab, mc, draws int
		for i := 0; i < *selfplay; i++ {
			g := mustGame(t, v, WithSeed(uint64(i+1)), WithPlyLimit(200))
			// Alternate colours: in even games alpha-beta plays First.
			abSide := Player(i % 2)
			for g.Status().Result == Ongoing {
				alg := MCTS
				if g.ToMove() == abSide {
					alg = AlphaBeta
				}
				m, _, err := g.BestMove(context.Background(), Limits{Nodes: 20_000, Algorithm: alg})
				if err != nil {
					t.Fatal(err)
				}
				if err := g.Apply(m); err != nil {
					t.Fatal(err)
				}
			}
			st := g.Status()
			switch {
			case st.Result == Draw:
				draws++
			case st.Winner == abSide:
				ab++
			default:
				mc++
			}
			t.Logf("%s game %d: alpha-beta plays %s: %s %v (%s) after %d plies", v, i, g.PlayerName(abSide), st.Result, g.PlayerName(st.Winner), st.Reason, g.Ply())
		}
		t.Logf("%s: alpha-beta %d, MCTS %d, draws %d", v, ab, mc, draws)
	}
}
