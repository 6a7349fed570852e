package engine

import (
	"testing"
)

// Perft tables from the engine reference (published values for chess,
// English, Brazilian, Russian and International draughts; Turkish and
// Chase values are from independent implementations, Chase provisional).
// Counts merge moves with the same effect, as the published Russian and
// International tables do.
//
// By default each table runs to the depth in "quick" (chosen so that the
// whole package test stays fast under -race); with -deep every listed
// depth runs.
var perftTables = []struct {
	name    string
	variant string
	pos     string
	quick   int
	want    []uint64
}{
	{"chess start", "chess", "", 4,
		[]uint64{20, 400, 8902, 197281, 4865609, 119060324}},
	{"chess kiwipete", "chess", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq -", 3,
		[]uint64{48, 2039, 97862, 4085603}},
	{"chess position 3", "chess", "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - -", 5,
		[]uint64{14, 191, 2812, 43238, 674624, 11030083}},
	{"russian", "russian", "", 8,
		[]uint64{7, 49, 302, 1469, 7482, 37986, 190146, 929899, 4570586, 22444032}},
	{"international", "international", "", 6,
		[]uint64{9, 81, 658, 4265, 27117, 167140, 1049442, 6483961}},
	{"brazilian", "brazilian", "", 7,
		[]uint64{7, 49, 302, 1469, 7473, 37628, 187302, 907830}},
	{"turkish", "turkish", "", 5,
		[]uint64{8, 64, 708, 7538, 85090, 931312, 10782308}},
	{"english", "english", "", 7,
		[]uint64{7, 49, 302, 1469, 7361, 36768, 179740, 845931, 3963680, 18391564}},
	{"chase", "chase", "", 3,
		[]uint64{46, 2114, 95737, 4328837}},
}

func TestPerft(t *testing.T) {
	for _, tc := range perftTables {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			checkPerft(t, tc.variant, tc.pos, tc.quick, tc.want)
		})
	}
}

// checkPerft compares a game's perft from pos (its start when empty) with a table, to depth
// quick, or to the table's end with -deep; a level that differs is logged move by move.
func checkPerft(t *testing.T, variant, pos string, quick int, want []uint64) {
	t.Helper()
	var opts []Option
	if pos != "" {
		opts = append(opts, WithPosition(pos))
	}
	g := mustGame(t, variant, opts...)
	depth := quick
	if *deep {
		depth = len(want)
	}
	for d := 1; d <= depth; d++ {
		if got := g.perft(d); got != want[d-1] {
			t.Errorf("perft(%d) = %d, want %d", d, got, want[d-1])
			for _, e := range g.divide(d) {
				t.Logf("  %s %d", e.Move, e.Nodes)
			}
			return
		}
	}
}

// TestChaseDistinctPositions checks the second Chase table of the
// reference: distinct child positions per node (44 from the start, since
// the two 1-dice can rotate the home row either way from either end).
func TestChaseDistinctPositions(t *testing.T) {
	g := mustGame(t, "chase")
	seen := map[uint64]bool{}
	for _, m := range g.LegalMoves() {
		s := g.State()
		g.r.apply(&s, &m.m)
		seen[s.Hash] = true
	}
	if len(seen) != 44 {
		t.Errorf("distinct positions after one move = %d, want 44", len(seen))
	}
}

func TestDivideSumsToPerft(t *testing.T) {
	g := mustGame(t, "russian")
	var sum uint64
	for _, e := range g.divide(4) {
		sum += e.Nodes
	}
	if want := g.perft(4); sum != want {
		t.Errorf("divide sum %d, perft %d", sum, want)
	}
}
