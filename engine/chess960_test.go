package engine

import (
	"context"
	"strings"
	"testing"
)

// chess960Perft is the published Chess960 perft table (Reinhard
// Scharnagl's positions, the Chess Programming Wiki's "Chess960 Perft
// Results", which engines' test suites carry as fischer.epd), to depth
// 5; depth 6 of the first three is 227689589, 590751109 and 177654692,
// too slow even for -deep. The default tests take every position to
// depth 3 and three of them to depth 4.
var chess960Perft = []struct {
	fen   string
	quick int
	want  []uint64
}{
	{"bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9", 3, []uint64{21, 528, 12189, 326672, 8146062}},
	{"2nnrbkr/p1qppppp/8/1ppb4/6PP/3PP3/PPP2P2/BQNNRBKR w HEhe - 1 9", 3, []uint64{21, 807, 18002, 667366, 16253601}},
	{"b1q1rrkb/pppppppp/3nn3/8/P7/1PPP4/4PPPP/BQNNRKRB w GE - 1 9", 4, []uint64{20, 479, 10471, 273318, 6417013}},
	{"qbbnnrkr/2pp2pp/p7/1p2pp2/8/P3PP2/1PPP1KPP/QBBNNR1R w hf - 0 9", 3, []uint64{22, 593, 13440, 382958, 9183776}},
	{"1nbbnrkr/p1p1ppp1/3p4/1p3P1p/3Pq2P/8/PPP1P1P1/QNBBNRKR w HFhf - 0 9", 3, []uint64{28, 1120, 31058, 1171749, 34030312}},
	{"bqnr1kr1/pppppp1p/6p1/5n2/4B3/3N2PP/PbPPPP2/BQNR1KR1 w GDgd - 2 9", 3, []uint64{31, 1132, 36559, 1261476, 43256823}},
	{"nqn2krb/p1prpppp/1pbp4/7P/5P2/8/PPPPPKP1/NQNRB1RB w g - 3 9", 4, []uint64{21, 461, 10608, 248069, 6194124}},
	{"nnr1kqbr/pp1pp1p1/2p5/b4p1p/P7/1PNP4/2P1PPPP/N1RBKQBR w HChc - 1 9", 4, []uint64{12, 421, 6530, 227044, 4266410}},
	{"1rqkbnrb/pp1ppp1p/1n4p1/B1p5/3PP3/4N3/PPP2PPP/NRQK2RB w GBgb - 0 9", 3, []uint64{33, 723, 23991, 590970, 19715083}},
}

func TestChess960Perft(t *testing.T) {
	for _, tc := range chess960Perft {
		t.Run(tc.fen[:8], func(t *testing.T) {
			t.Parallel()
			g := mustGame(t, "chess960", WithPosition(tc.fen))
			if g.Position() != tc.fen {
				t.Errorf("position %q reads back as %q", tc.fen, g.Position())
			}
			depth := tc.quick
			if *deep {
				depth = len(tc.want)
			}
			for d := 1; d <= depth; d++ {
				if got := g.perft(d); got != tc.want[d-1] {
					t.Fatalf("perft(%d) = %d, want %d", d, got, tc.want[d-1])
				}
			}
		})
	}
}

func TestChess960Rules(t *testing.T) {
	// Scharnagl's numbering: 518 is the usual start; every number gives a
	// legal start with the king between the rooks and the bishops on both
	// colours, all 960 different.
	if s := chess960Start(518); s != "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w HAha - 0 1" {
		t.Errorf("start 518: %s", s)
	}
	seen := map[string]bool{}
	for n := 0; n < 960; n++ {
		fen := chess960Start(n)
		board := strings.Fields(fen)[0]
		rank := board[strings.LastIndexByte(board, '/')+1:]
		k, r1, r2 := strings.IndexByte(rank, 'K'), strings.IndexByte(rank, 'R'), strings.LastIndexByte(rank, 'R')
		b1, b2 := strings.IndexByte(rank, 'B'), strings.LastIndexByte(rank, 'B')
		if !(r1 < k && k < r2) || (b1+b2)%2 == 0 || seen[rank] {
			t.Fatalf("start %d: %s", n, fen)
		}
		seen[rank] = true
		g := mustGame(t, "chess960", WithPosition(fen))
		if n := len(g.LegalMoves()); n < 18 || n > 21 {
			t.Fatalf("start %s: %d moves", fen, n)
		}
	}
	// The seed chooses the start.
	if g := mustGame(t, "chess960", WithSeed(518)); g.Position() != chess960Start(518) {
		t.Errorf("seed 518 starts %s", g.Position())
	}
	if g := mustGame(t, "chess960", WithSeed(518+960)); g.Position() != chess960Start(518) {
		t.Errorf("seed 1478 starts %s", g.Position())
	}

	// Castling is the king taking its own rook; both end on the usual
	// squares, whichever squares they came from. (A rook on g8 would
	// forbid e1g1: the king would land on the g-file it opens.)
	g := mustGame(t, "chess960", WithPosition("1r2k2r/8/8/8/8/8/8/1R2K1R1 w GBhb - 0 1"))
	mustPlay(t, g, "e1g1")
	if s := g.Position(); !strings.HasPrefix(s, "1r2k2r/8/8/8/8/8/8/1R3RK1 b hb ") {
		t.Errorf("after e1g1 (O-O): %s", s)
	}
	mustPlay(t, g, "O-O-O")
	if s := g.Position(); !strings.HasPrefix(s, "2kr3r/8/8/8/8/8/8/1R3RK1 w - ") {
		t.Errorf("after O-O-O: %s", s)
	}
	// The king on g1 castles by moving the rook only.
	g = mustGame(t, "chess960", WithPosition("6kr/8/8/8/8/8/8/6KR w Hh - 0 1"))
	mustPlay(t, g, "g1h1")
	if s := g.Position(); !strings.HasPrefix(s, "6kr/8/8/8/8/8/8/5RK1 b h ") {
		t.Errorf("after g1h1: %s", s)
	}
	// Not through an attacked square, not out of check, not with a piece
	// between.
	for _, fen := range []string{
		"4k3/8/8/8/8/8/5r2/1R2K1R1 w GB - 0 1", // f1 is attacked: no O-O
		"4k3/8/8/8/8/8/4r3/1R2K1R1 w GB - 0 1", // in check
		"4k3/8/8/8/8/8/8/1R2KNR1 w GB - 0 1",   // a knight on f1
		"4k1r1/8/8/8/8/8/8/1R2K1R1 w GB - 0 1", // g1 would be attacked once the rook leaves it
	} {
		g := mustGame(t, "chess960", WithPosition(fen))
		for _, m := range g.LegalMoves() {
			if m.String() == "e1g1" {
				t.Errorf("%s: castling allowed", fen)
			}
		}
	}
	// Moving a castling rook loses its right only.
	g = mustGame(t, "chess960", WithPosition("4k3/8/8/8/8/8/8/1R2K1R1 w GB - 0 1"))
	mustPlay(t, g, "g1g2")
	if s := g.Position(); !strings.Contains(s, " b B ") {
		t.Errorf("after the g-rook moved: %s", s)
	}
	for _, bad := range []string{
		"4k3/8/8/8/8/8/8/1R2K1R1 w A - 0 1", // no rook on a1
		"4k3/8/8/8/8/8/8/1R2K1R1 w E - 0 1", // the king's file
	} {
		if _, err := NewGame("chess960", WithPosition(bad)); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
	// The AI plays castling like any move.
	g = mustGame(t, "chess960", WithSeed(7))
	if _, _, err := g.BestMove(context.Background(), Limits{Nodes: 2000}); err != nil {
		t.Fatal(err)
	}
}

// TestChess960Notation: castling is written O-O and O-O-O, whichever
// files the king and the rook start on, and read so, as the king taking
// its own rook, and in standard algebraic notation.
func TestChess960Notation(t *testing.T) {
	// The kings on b1 and b8, the rooks in the corners: castling on the
	// king's side takes the king to g1 and the rook to f1, on the queen's
	// side the king to c8 and the rook to d8.
	g := mustGame(t, "chess960", WithPosition("rk5r/pppppppp/8/8/8/8/PPPPPPPP/RK5R w HAha - 0 1"))
	mustPlay(t, g, "O-O", "b8a8", "e4", "Kb8")
	if got, want := strings.Join(g.Record(), " "), "O-O O-O-O e4 Kb8"; got != want {
		t.Errorf("record %q, want %q", got, want)
	}
	if got, want := g.Position(), "1k1r3r/pppppppp/8/8/4P3/8/PPPP1PPP/R4RK1 w - - 1 3"; got != want {
		t.Errorf("position %q, want %q", got, want)
	}
	// The king taking its rook and O-O are the same move.
	a := mustGame(t, "chess960", WithPosition("rk5r/pppppppp/8/8/8/8/PPPPPPPP/RK5R w HAha - 0 1"))
	b := mustGame(t, "chess960", WithPosition("rk5r/pppppppp/8/8/8/8/PPPPPPPP/RK5R w HAha - 0 1"))
	mustPlay(t, a, "b1h1")
	mustPlay(t, b, "0-0")
	if a.Position() != b.Position() || a.History()[0].String() != b.History()[0].String() {
		t.Errorf("b1h1 gives %q (%s), 0-0 %q (%s)", a.Position(), a.History()[0], b.Position(), b.History()[0])
	}
	// Castling through a piece is refused, and the position stays.
	g = mustGame(t, "chess960", WithPosition("rk5r/pppppppp/8/8/8/8/PPPPPPPP/RKN4R w HAha - 0 1"))
	if _, err := g.Play("O-O"); err == nil || g.Ply() != 0 {
		t.Errorf("O-O through a knight: %v, ply %d", err, g.Ply())
	}
	mustPlay(t, g, "Nd3")
}
