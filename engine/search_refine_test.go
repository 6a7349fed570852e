package engine

import (
	"context"
	"testing"
)

// Ensure the refined chess search plays a legal move and the same one each time for a node
// limit, in chess and Chess960.
func TestRefinedSearchLegalAndDeterministic(t *testing.T) {
	for _, v := range []string{"chess", "chess960"} {
		for _, g := range randomPositions(t, v, 4) {
			lim := Limits{Nodes: 20_000, Refine: true}
			m1, i1, err := g.BestMove(context.Background(), lim)
			if err != nil || !isLegal(g, m1) {
				t.Fatalf("%s %s: move %v, err %v", v, g.Position(), m1, err)
			}
			m2, i2, _ := g.BestMove(context.Background(), lim)
			if m1.String() != m2.String() || i1.Nodes != i2.Nodes || i1.Score != i2.Score || i1.Depth != i2.Depth {
				t.Errorf("%s %s: not deterministic: %v %+v / %v %+v", v, g.Position(), m1, i1, m2, i2)
			}
		}
	}
}

// Ensure Refine changes nothing in the games other than chess and Chess960: Gardner's
// minichess (a check rule on a 5x5 board) and games without a check rule search move for move
// as without it.
func TestRefineOnlyInChess(t *testing.T) {
	for _, v := range []string{"gardner", "russian", "othello", "chase"} {
		for _, g := range randomPositions(t, v, 2) {
			m1, i1, err1 := g.BestMove(context.Background(), Limits{Nodes: 5_000, Algorithm: AlphaBeta})
			m2, i2, err2 := g.BestMove(context.Background(), Limits{Nodes: 5_000, Algorithm: AlphaBeta, Refine: true})
			if err1 != nil || err2 != nil {
				t.Fatalf("%s: %v, %v", v, err1, err2)
			}
			if m1.String() != m2.String() || i1.Nodes != i2.Nodes || i1.Score != i2.Score || i1.Depth != i2.Depth {
				t.Errorf("%s %s: Refine changed the search: %v %+v / %v %+v", v, g.Position(), m1, i1, m2, i2)
			}
		}
	}
}

// Ensure the refined search finds the winning move of tactical positions: mates, a fork that
// wins the queen, and the capture that wins a piece rather than the one that loses the queen.
func TestRefinedSearchFindsWins(t *testing.T) {
	cases := []struct{ pos, want string }{
		{"6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1", "d1d8"},
		{"k7/8/1K6/8/8/8/8/7R w - - 0 1", "h1h8"},
		// A knight fork of king and queen.
		{"3q3k/6pp/8/4N3/8/8/5PPP/6K1 w - - 0 1", "e5f7"},
		// Mate in two: the rook lift to the open file, then the back rank.
		{"6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1", "a1a8"},
		// Queen takes the defended knight (and loses itself to the pawn), or the rook takes
		// the loose bishop: only the second wins material.
		{"4k3/8/2p5/3n4/8/1b6/8/1R1QK3 w - - 0 1", "b1b3"},
	}
	for _, tc := range cases {
		g := mustGame(t, "chess", WithPosition(tc.pos))
		m, info, err := g.BestMove(context.Background(), Limits{Nodes: 50_000, Refine: true})
		if err != nil || m.String() != tc.want {
			t.Errorf("%s: %v (%+v, %v), want %s", tc.pos, m, info, err, tc.want)
		}
	}
}

// Ensure a bucket of the refined table keeps the deeper entry in its first slot and the most
// recent other one in the second, and that an entry of the same position is overwritten.
func TestRefinedTableBuckets(t *testing.T) {
	sr := &searcher{refine: true, tt: make([]ttEntry, 8), ttMask: 7}
	const a, b, c = 2 | 16, 3 | 32, 2 | 64 // all in the bucket of slots 2 and 3
	sr.storeRefined(ttEntry{hash: a, depth: 5, move: 1})
	sr.storeRefined(ttEntry{hash: b, depth: 2, move: 2})
	if sr.tt[2].hash != a || sr.tt[3].hash != b {
		t.Fatalf("after a deep and a shallow entry: %+v %+v", sr.tt[2], sr.tt[3])
	}
	sr.storeRefined(ttEntry{hash: c, depth: 1, move: 3}) // shallower: replaces the second
	if sr.tt[2].hash != a || sr.tt[3].hash != c || sr.probeRefined(b) != nil {
		t.Fatalf("after a shallower entry: %+v %+v", sr.tt[2], sr.tt[3])
	}
	sr.storeRefined(ttEntry{hash: b, depth: 7, move: 4}) // deeper: takes the first, which moves on
	if sr.tt[2].hash != b || sr.tt[3].hash != a {
		t.Fatalf("after a deeper entry: %+v %+v", sr.tt[2], sr.tt[3])
	}
	sr.storeRefined(ttEntry{hash: a, depth: 9, move: 5}) // the same position, now deeper
	if e := sr.probeRefined(a); e == nil || e.move != 5 || sr.tt[2].hash != a || sr.tt[3].hash != b {
		t.Fatalf("after the same position deeper: %+v %+v", sr.tt[2], sr.tt[3])
	}
	if e := sr.probeRefined(c); e != nil {
		t.Errorf("a replaced entry is still found: %+v", e)
	}
}

// Ensure the refined move order searches a capture that wins material first and the capture
// of a defended piece by a more valuable one after every quiet move, and that the history
// stays within its bound however often a move is rewarded or punished.
func TestRefinedOrderAndHistory(t *testing.T) {
	// White: the rook can take a loose bishop on b3, the queen a knight on d5 that a pawn guards.
	g := mustGame(t, "chess", WithPosition("4k3/8/2p5/3n4/8/1b6/8/1R1QK3 w - - 0 1"))
	s := g.State()
	sr := &searcher{r: g.r, refine: true}
	sr.prev[0] = noPrev
	moves := append([]move(nil), g.rawMoves()...)
	sr.orderMoves(&s, moves, 0, 0)
	for i := range moves {
		sr.pick(moves, 0, i)
	}
	text := func(m *move) string { return g.r.topo.names[m.path[0]] + g.r.topo.names[m.path[m.npath-1]] }
	if got := text(&moves[0]); got != "b1b3" {
		t.Errorf("first move %s, want the winning capture b1b3", got)
	}
	if got := text(&moves[len(moves)-1]); got != "d1d5" {
		t.Errorf("last move %s, want the losing capture d1d5", got)
	}
	m := &moves[1]
	for range 1000 {
		sr.addHistory(m, historyMax/8)
	}
	if h := sr.history[m.path[0]][m.path[m.npath-1]]; h > historyMax || h < historyMax/2 {
		t.Errorf("history after many rewards: %d, want within (%d, %d]", h, historyMax/2, historyMax)
	}
	for range 1000 {
		sr.addHistory(m, -historyMax/8)
	}
	if h := sr.history[m.path[0]][m.path[m.npath-1]]; h < -historyMax || h > -historyMax/2 {
		t.Errorf("history after many punishments: %d, want within [%d, %d)", h, -historyMax, -historyMax/2)
	}
}
