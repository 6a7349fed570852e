package engine

import (
	"math/rand/v2"
	"testing"
)

// chessCountPositions are positions where counting without building the
// moves is easiest to get wrong, with their number of legal moves.
var chessCountPositions = []struct {
	name, fen string
	want      int
}{
	{"start", "", 20},
	{"kiwipete", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq -", 48},
	{"en passant uncovers the king on a rank", "8/8/8/K1pP3r/8/8/8/7k w - c6 0 2", 5},
	{"black en passant uncovers the king on a rank", "8/8/8/8/k2Pp2Q/8/8/4K3 b - d3 0 1", 6},
	{"en passant along the pinning diagonal", "8/8/6k1/8/3Pp3/8/8/1B2K3 b - d3 0 1", 9},
	{"en passant takes the checking pawn", "8/8/8/2k5/3Pp3/8/8/4K3 b - d3 0 1", 9},
	{"castling both ways, both sides", "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", 26},
	{"queen's side castling past an attacked b1", "1r2k3/8/8/8/8/8/8/R3K2R w KQ - 0 1", 26},
	{"no castling through an attacked c1", "2r1k3/8/8/8/8/8/8/R3K2R w KQ - 0 1", 25},
	{"no castling out of check", "4k3/8/8/8/8/8/8/R3K1rR w KQ - 0 1", 4},
	{"no castling into check", "4k1r1/8/8/8/8/8/8/R3K2R w KQ - 0 1", 25},
	{"promotion by a step or a capture", "1r2k3/P7/8/8/8/8/8/4K3 w - - 0 1", 13},
	{"black promotions", "4k3/8/8/8/8/8/p7/1R2K3 b - - 0 1", 13},
	{"double check", "4k3/8/8/8/8/5n2/8/r3K2R w K - 0 1", 2},
	{"pins on a diagonal and a rank", "4k3/8/8/8/1b6/8/3R4/r1B1K2R w K - 0 1", 14},
	{"pinned pawn takes its pinner", "4k3/8/8/8/8/2b5/3P4/4K3 w - - 0 1", 5},
	{"pinned pawn steps along the file", "k3r3/8/8/8/8/8/4P3/4K3 w - - 0 1", 6},
	{"checkmate", "7k/6Q1/6K1/8/8/8/8/8 b - - 0 1", 0},
	{"stalemate", "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", 0},
}

// Ensure the count of legal moves (perft's bulk counting) equals the
// length of the generated list, and the reference's, and the count below
// a position (perft(2), with the bitboards updated by each move) the sum
// of the counts after each of its moves, in the special
// positions, in every position of random games from them and from the
// perft positions (more games with -deep), and in a position the fast
// generator leaves to the move rules (a side without its king).
func TestChessCountMatchesGenerate(t *testing.T) {
	r := mustGame(t, "chess").r
	if r.count == nil || r.countBelow == nil {
		t.Fatal("chess has no count hooks")
	}
	cc, cg, cr := r.newCtx(), r.newCtx(), r.newCtx()
	check := func(t *testing.T, s *State) int {
		t.Helper()
		n := r.count(r, s, cc)
		if g := len(r.generate(s, cg, nil)); n != g {
			t.Fatalf("%s: count %d, generate %d", r.encode(r, s), n, g)
		}
		if ref := len(r.generateRef(s, cr, nil)); n != ref {
			t.Fatalf("%s: count %d, reference %d", r.encode(r, s), n, ref)
		}
		ms := r.generate(s, cg, nil)
		var below int64
		for i := range ms {
			child := *s
			r.apply(&child, &ms[i])
			below += int64(r.count(r, &child, cc))
		}
		if got := r.countBelow(r, s, cc, ms, new(State)); got != below {
			t.Fatalf("%s: count below %d, the counts after each move %d", r.encode(r, s), got, below)
		}
		return n
	}
	var starts []State
	for _, tc := range chessCountPositions {
		var opts []Option
		if tc.fen != "" {
			opts = append(opts, WithPosition(tc.fen))
		}
		s := mustGame(t, "chess", opts...).State()
		if got := check(t, &s); got != tc.want {
			t.Errorf("%s: %d legal moves, want %d", tc.name, got, tc.want)
		}
		starts = append(starts, s)
	}
	for _, fen := range fastGenStarts["chess"] {
		starts = append(starts, mustGame(t, "chess", WithPosition(fen)).State())
	}

	kingless := starts[0]
	kingless.Board[sqE1] = 0
	if got := check(t, &kingless); got == 0 {
		t.Errorf("a side without its king: no moves counted")
	}

	games := 100
	if *deep {
		games = 3000
	}
	rng := rand.New(rand.NewPCG(33, 2))
	var ms []move
	positions, withEP, withPromo, withCastle, inCheck := 0, 0, 0, 0, 0
	for i := 0; i < games; i++ {
		s := starts[i%len(starts)]
		for ply := 0; ply < 300; ply++ {
			n := check(t, &s)
			positions++
			if n == 0 {
				break
			}
			ms = r.generate(&s, cg, ms)
			if s.Aux[auxEP] != 0 {
				withEP++
			}
			if r.inCheck(&s) {
				inCheck++
			}
			promo, castle := false, false
			for j := range ms {
				promo = promo || ms[j].flags&flagPromotion != 0
				castle = castle || ms[j].flags&flagCastle != 0
			}
			if promo {
				withPromo++
			}
			if castle {
				withCastle++
			}
			r.apply(&s, &ms[rng.IntN(len(ms))])
		}
	}
	// The games must reach every kind of position the count treats apart.
	if withEP == 0 || withPromo == 0 || withCastle == 0 || inCheck == 0 {
		t.Errorf("%d positions: %d with en passant, %d with promotions, %d with castling, %d in check",
			positions, withEP, withPromo, withCastle, inCheck)
	}
	t.Logf("%d positions: %d with en passant, %d with promotions, %d with castling, %d in check",
		positions, withEP, withPromo, withCastle, inCheck)
}
