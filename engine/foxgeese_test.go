package engine

import "testing"

// foxPos builds a Fox and Geese position with the fox to move.
func foxPos(tb testing.TB, fox string, geese ...string) string {
	tb.Helper()
	r, err := foxGeeseRules(foxConfig{geese: 13})
	if err != nil {
		tb.Fatal(err)
	}
	var s State
	s.Turn = Second
	s.Board[mustSquare(r.topo, fox)] = makePiece(Second, kindFox)
	for _, g := range geese {
		s.Board[mustSquare(r.topo, g)] = makePiece(First, kindGoose)
	}
	return encodeFox(r, &s)
}

// longest returns the captures of the longest chains.
func longest(g *Game) (int, []string) {
	best, out := 0, []string(nil)
	for _, m := range g.LegalMoves() {
		switch {
		case m.Captures() > best:
			best, out = m.Captures(), []string{m.String()}
		case m.Captures() == best && best > 0:
			out = append(out, m.String())
		}
	}
	return best, out
}

func TestFoxLongestChains(t *testing.T) {
	// The reference positions (orthogonal board). The fox is not obliged
	// to capture, and the threshold is lowered so these sparse positions
	// are not already won by the fox.
	opts := func(pos string) []Option {
		return []Option{WithPosition(pos), WithFoxWinThreshold(1)}
	}
	g := mustGame(t, "foxgeese13", opts(foxPos(t, "d1", "d2", "d4", "d6", "c3", "e5", "f4"))...)
	if n, ms := longest(g); n != 4 || len(ms) != 1 || ms[0] != "d1:d3:d5:f5:f3" {
		t.Errorf("longest chain %d %v, want 4 [d1:d3:d5:f5:f3]", n, ms)
	}
	// Two orders of the same five captures are one move, passing back
	// through the fox's own square.
	g = mustGame(t, "foxgeese13", opts(foxPos(t, "c3", "c4", "d5", "e4", "d3", "b3"))...)
	if n, ms := longest(g); n != 5 || len(ms) != 1 {
		t.Errorf("longest chain %d %v, want 5 and one move", n, ms)
	}
	// Surrounded: four single captures, no chain.
	g = mustGame(t, "foxgeese13", opts(foxPos(t, "d4", "d5", "d3", "c4", "e4"))...)
	if n, ms := longest(g); n != 1 || len(ms) != 4 {
		t.Errorf("surrounded fox: %d %v, want four single captures", n, ms)
	}
}

func TestFoxOptions(t *testing.T) {
	pos := foxPos(t, "d1", "d2", "d4", "d6", "c3", "e5", "f4")
	// Longest capture: only the 4-chain among the captures, quiet moves stay.
	g := mustGame(t, "foxgeese13", WithPosition(pos), WithFoxWinThreshold(1), WithLongestCapture(true))
	quiet := 0
	for _, m := range g.LegalMoves() {
		if m.Captures() == 0 {
			quiet++
		} else if m.String() != "d1:d3:d5:f5:f3" {
			t.Errorf("longest capture rule allows %v", m)
		}
	}
	if quiet == 0 {
		t.Errorf("quiet moves should stay legal")
	}
	// Mandatory capture removes the quiet moves.
	g = mustGame(t, "foxgeese13", WithPosition(pos), WithFoxWinThreshold(1), WithFoxMustCapture(true))
	for _, m := range g.LegalMoves() {
		if m.Captures() == 0 {
			t.Errorf("mandatory capture allows %v", m)
		}
	}
	// Diagonals give the fox on d4 eight directions.
	g = mustGame(t, "foxgeese13", WithDiagonals(true), WithPosition(foxPos(t, "d4", "a3", "g3", "c1", "e1", "d2", "c2", "e2", "b3", "f3")))
	if n := len(g.LegalMoves()); n != 8 {
		t.Errorf("fox on d4 with diagonals: %d moves, want 8", n)
	}
}

func TestFoxSetups(t *testing.T) {
	for _, tc := range []struct {
		variant string
		geese   int
	}{{"foxgeese13", 13}, {"foxgeese15", 15}, {"foxgeese17", 17}} {
		g := mustGame(t, tc.variant)
		n := 0
		s := g.State()
		for sq := 0; sq < g.r.topo.n(); sq++ {
			if s.Board[sq].Kind() == kindGoose {
				n++
			}
		}
		if n != tc.geese || g.ToMove() != First {
			t.Errorf("%s: %d geese, %v to move", tc.variant, n, g.ToMove())
		}
	}
}

func TestFoxEnds(t *testing.T) {
	// The fox on c7 boxed in by geese on d7, c6 (backed by e7 and c5).
	g := mustGame(t, "foxgeese13", WithPosition(foxPos(t, "c7", "d7", "e7", "c6", "c5", "d6", "a3", "b3", "c3", "d3", "e3", "f3", "g3")))
	if st := g.Status(); st.Result != Win || st.Winner != First {
		t.Errorf("trapped fox: %+v", st)
	}
	// Too few geese: the fox wins.
	g = mustGame(t, "foxgeese13", WithPosition(foxPos(t, "d4", "a3", "b3", "c3")))
	if st := g.Status(); st.Result != Win || st.Winner != Second {
		t.Errorf("three geese: %+v", st)
	}
}
