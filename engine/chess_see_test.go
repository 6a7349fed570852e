package engine

import "testing"

// TestSEE checks the exchange evaluation on positions whose exchanges are
// worked out by hand (values: pawn 100, knight 325, bishop 335, rook 500,
// queen 975).
func TestSEE(t *testing.T) {
	for _, c := range []struct {
		fen, move string
		want      int
	}{
		{"1k1r4/1pp4p/p7/4p3/8/P5P1/1PP4P/2K1R3 w - - 0 1", "e1e5", 100},           // an undefended pawn
		{"1k1r3q/1ppn3p/p4b2/4p3/8/P2N2P1/1PP1R1BP/2K1Q3 w - - 0 1", "d3e5", -225}, // the knight is lost for the pawn
		{"4k3/8/2p5/3p4/8/8/8/3QK3 w - - 0 1", "d1d5", -875},                       // the queen for a defended pawn
		{"4k3/8/8/3p4/8/8/8/4K2Q w - - 0 1", "h1d5", 100},
		{"4k3/8/8/3p4/8/8/8/4K2Q w - - 0 1", "h1h5", 0},                  // a quiet move to a safe square
		{"4k3/8/8/3p4/8/8/8/4K2Q w - - 0 1", "h1e4", -975},               // a quiet move into a pawn's capture
		{"4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1", "e5d6", 100},               // en passant
		{"3rk3/3r4/8/3p4/8/8/3R4/3RK3 w - - 0 1", "d2d5", -400},          // two rooks on each side: the second white rook comes too late
		{"3rk3/8/8/3p4/8/8/3R4/3RK3 w - - 0 1", "d2d5", 100},             // two against one
		{"4k3/8/8/3p4/4K3/8/8/8 w - - 0 1", "e4d5", 100},                 // the king takes what nobody defends
		{"4k3/8/1n6/3p4/4K3/8/8/3R4 w - - 0 1", "d1d5", 100 - 500 + 325}, // the king takes last
		{"4k3/1P6/8/8/8/8/8/4K3 w - - 0 1", "b7b8q", 875},                // a promotion gains the queen less the pawn
		{"1r2k3/P7/8/8/8/8/8/4K3 w - - 0 1", "a7b8q", 500 + 875},         // a capturing promotion
		{"1r2k3/P7/8/8/8/8/8/4K3 w - - 0 1", "a7a8q", 875 - 975},         // a promotion into the rook's capture
	} {
		g := mustGame(t, "chess", WithPosition(c.fen))
		mv, err := g.ParseMove(c.move)
		if err != nil {
			t.Fatalf("%s %s: %v", c.fen, c.move, err)
		}
		s := g.cur()
		if got := see(&s.Board, &mv.m, s.Turn); got != c.want {
			t.Errorf("%s %s: see %d, want %d", c.fen, c.move, got, c.want)
		}
	}
}
