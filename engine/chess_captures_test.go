package engine

import (
	"math/rand/v2"
	"testing"
)

// tacticalPositions are positions where the tactical moves or the test
// for a legal move are easiest to get wrong, per game.
var tacticalPositions = map[string][]string{
	"chess": {
		"8/8/3k4/8/2pP4/8/8/4K2B b - d3 0 1",                            // en passant, its pawn pinned on the diagonal
		"8/8/8/8/k2Pp2Q/8/8/4K3 b - d3 0 1",                             // en passant uncovers the king on a rank
		"8/8/8/2k5/3Pp3/8/8/4K3 b - d3 0 1",                             // en passant takes the checking pawn
		"2n1k3/1P4P1/8/8/8/8/8/4K3 w - - 0 1",                           // quiet and capturing promotions
		"4k3/8/8/8/8/8/1p6/R3K3 b - - 0 1",                              // black promotions, one of them a capture
		"4k3/8/8/8/1b6/8/3R4/r1B1K2R w K - 0 1",                         // pins on a diagonal and a rank
		"4k3/8/8/8/8/2b5/3P4/4K3 w - - 0 1",                             // a pinned pawn takes its pinner
		"k3r3/8/8/8/8/8/4P3/4K3 w - - 0 1",                              // a pinned pawn only steps
		"4k3/8/8/3q4/8/8/3K4/8 w - - 0 1",                               // the king takes a queen beside it
		"4k3/8/8/2rq4/8/8/3K4/8 w - - 0 1",                              // ... but not a defended one
		"7k/5Q2/6K1/8/8/8/8/8 b - - 0 1",                                // stalemate
		"7k/6Q1/6K1/8/8/8/8/8 b - - 0 1",                                // checkmate
		"k7/8/8/8/8/p7/P7/K7 w - - 0 1",                                 // a king with one step, pawns blocked
		"k7/8/1q6/8/8/p7/P7/K7 w - - 0 1",                               // stalemate with pawns blocked
		"4k3/8/8/8/8/5n2/8/r3K2R w K - 0 1",                             // double check
		"r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",                          // castling, no capture
		"rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3", // en passant beside a capture
	},
	"chess960": {
		// Castling is the only legal move: the king stays on g1 and the
		// rook passes it to f1.
		"k4r2/8/8/8/8/7p/7P/6KR w H - 0 1",
		// No castling rights: the same position is stalemate.
		"k4r2/8/8/8/8/7p/7P/6KR w - - 0 1",
	},
}

// wantTactical is the list the quiescence search used to play when not
// in check: generate's list without the moves that are neither captures
// nor promotions to a queen, in order.
func wantTactical(all []move) []move {
	var out []move
	for _, m := range all {
		if m.ncap > 0 || (m.flags&flagPromotion != 0 && m.tag == uint8(kindQueen)) {
			out = append(out, m)
		}
	}
	return out
}

// Ensure the tactical hook gives, in every position of random chess and
// Chess960 games (and from the perft positions and those above), exactly
// the captures and queen promotions of the full legal list when the side
// to move is not in check, and the whole list when it is, in the same
// order (the search breaks ties in its move ordering by list order); that
// the standing hook and the rules' inCheck see a check as a scan of the
// board does; and that standing knows when a side not in check has no
// legal move at all.
func TestChessTacticalMatchesGenerate(t *testing.T) {
	games := 40
	if *deep {
		games = 1200
	}
	for vi, v := range []string{"chess", "chess960"} {
		t.Run(v, func(t *testing.T) {
			t.Parallel()
			var fens []string
			switch v {
			case "chess":
				fens = append(fens, fastGenStarts["chess"]...)
				for _, tc := range chessCountPositions {
					fens = append(fens, tc.fen)
				}
			case "chess960":
				for _, tc := range chess960Perft {
					fens = append(fens, tc.fen)
				}
				for n := 0; n < 960; n += 97 {
					fens = append(fens, chess960Start(n))
				}
			}
			fens = append(fens, tacticalPositions[v]...)
			// Each start position is a game of its own: Chess960's castling
			// squares come from it.
			var starts []*Game
			for _, fen := range fens {
				var opts []Option
				if fen != "" {
					opts = append(opts, WithPosition(fen))
				}
				g, err := NewGame(v, opts...)
				if err != nil {
					t.Fatalf("%s: %v", fen, err)
				}
				starts = append(starts, g)
			}
			var stats struct {
				positions, inCheck, noMoves, stalemates, quiet, ep, promo, capturePromo int
			}
			var all, tac []move
			mailbox := newChessData(rectBoard(8, 8, false, false))
			check := func(t *testing.T, r *rules, s *State) {
				t.Helper()
				stats.positions++
				all = r.generate(s, r.newCtx(), all)
				tac = r.tactical(r, s, r.newCtx(), tac)
				if len(all) == 0 {
					stats.noMoves++
				}
				// The check as the board's scan finds it: the king's square,
				// then the pieces that reach it.
				k := kingSquare(&s.Board, s.Turn)
				inCheck := k != none && mailbox.attacked(&s.Board, k, s.Turn.other())
				if r.inCheck(s) != inCheck {
					t.Fatalf("%s: in check %v, want %v", r.encode(r, s), !inCheck, inCheck)
				}
				stInCheck, hasMove := r.standing(r, s, r.newCtx(), nil)
				if stInCheck != inCheck || (!inCheck && hasMove != (len(all) > 0)) {
					t.Fatalf("%s: standing: in check %v, a legal move %v; want %v, %d moves",
						r.encode(r, s), stInCheck, hasMove, inCheck, len(all))
				}
				want := all
				if inCheck {
					stats.inCheck++
				} else {
					want = wantTactical(all)
				}
				if err := sameMoves(tac, want); err != nil {
					t.Fatalf("%s: in check %v: %v", r.encode(r, s), inCheck, err)
				}
				if inCheck {
					return
				}
				switch {
				case len(all) == 0:
					stats.stalemates++
				case len(tac) == 0:
					stats.quiet++
				}
				for i := range tac {
					m := &tac[i]
					switch {
					case m.nchg == 3:
						stats.ep++
					case m.flags&flagPromotion != 0 && m.ncap > 0:
						stats.capturePromo++
					case m.flags&flagPromotion != 0:
						stats.promo++
					}
				}
			}
			for _, g := range starts {
				s := g.State()
				check(t, g.r, &s)
			}
			rng := rand.New(rand.NewPCG(uint64(vi), 34))
			for i := 0; i < games; i++ {
				g := starts[i%len(starts)]
				r, s := g.r, g.State()
				var ms []move
				for ply := 0; ply < 300; ply++ {
					check(t, r, &s)
					if ms = r.generate(&s, r.newCtx(), ms); len(ms) == 0 {
						break
					}
					r.apply(&s, &ms[rng.IntN(len(ms))])
				}
			}
			// The games must reach every kind of position told apart.
			if stats.inCheck == 0 || stats.noMoves == 0 || stats.stalemates == 0 || stats.quiet == 0 || stats.ep == 0 ||
				stats.promo == 0 || stats.capturePromo == 0 {
				t.Errorf("%+v", stats)
			}
			t.Logf("%+v", stats)
		})
	}
}

// Ensure a position the fast generator leaves to the move rules (a side
// without its king) is filtered as before.
func TestChessTacticalKingless(t *testing.T) {
	g := mustGame(t, "chess", WithPosition("4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1"))
	r, s := g.r, g.State()
	s.Board[sqE1] = 0
	all := r.generate(&s, r.newCtx(), nil)
	tac := r.tactical(r, &s, r.newCtx(), nil)
	if inCheck, hasMove := r.standing(r, &s, r.newCtx(), nil); inCheck || !hasMove || r.inCheck(&s) {
		t.Fatalf("standing: in check %v, a legal move %v; inCheck %v", inCheck, hasMove, r.inCheck(&s))
	}
	if err := sameMoves(tac, wantTactical(all)); err != nil {
		t.Fatal(err)
	}
	if len(tac) != 1 {
		t.Errorf("%d tactical moves, want 1 (exd5)", len(tac))
	}
}

// Ensure a Chess960 position whose only legal move is a castling (the
// king stays on g1, the rook passes it) has a legal move for the
// standing hook, and none without the castling right.
func TestChessTacticalCastlingOnly(t *testing.T) {
	for _, tc := range []struct {
		fen  string
		want int
	}{
		{"k4r2/8/8/8/8/7p/7P/6KR w H - 0 1", 1},
		{"k4r2/8/8/8/8/7p/7P/6KR w - - 0 1", 0},
	} {
		g := mustGame(t, "chess960", WithPosition(tc.fen))
		r, s := g.r, g.State()
		all := r.generate(&s, r.newCtx(), nil)
		if len(all) != tc.want || (tc.want == 1 && all[0].flags&flagCastle == 0) {
			t.Fatalf("%s: %d legal moves, want %d", tc.fen, len(all), tc.want)
		}
		tac := r.tactical(r, &s, r.newCtx(), nil)
		inCheck, hasMove := r.standing(r, &s, r.newCtx(), nil)
		if len(tac) != 0 || inCheck || hasMove != (tc.want > 0) {
			t.Errorf("%s: %d tactical moves, in check %v, a legal move %v", tc.fen, len(tac), inCheck, hasMove)
		}
	}
}
