package engine

import (
	"math/rand"
	"testing"
)

// TestChessEvalMirror checks that the evaluation favours neither colour:
// a position and its mirror image (ranks reversed, colours swapped, the
// other side to move) score the same for the side to move.
func TestChessEvalMirror(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	n := 0
	for game := 0; game < 60; game++ {
		g := mustGame(t, "chess")
		for ply := 0; ply < 160; ply++ {
			ms := g.LegalMoves()
			if len(ms) == 0 {
				break
			}
			s := g.cur()
			var mirror [maxSquares]Piece
			for sq := 0; sq < 64; sq++ {
				if pc := s.Board[sq]; pc != 0 {
					mirror[sq^56] = makePiece(pc.Owner().other(), pc.Kind())
				}
			}
			if a, b := chessScore(&s.Board, s.Turn), chessScore(&mirror, s.Turn.other()); a != b {
				t.Fatalf("%s scores %d, its mirror image %d", g.Position(), a, b)
			}
			n++
			if err := g.Apply(ms[rng.Intn(len(ms))]); err != nil {
				t.Fatal(err)
			}
		}
	}
	if n < 5000 {
		t.Fatalf("only %d positions compared", n)
	}
}

// TestChessEvalThreats checks each threat term on a position that has it
// and no other.
func TestChessEvalThreats(t *testing.T) {
	for _, c := range []struct {
		name, fen string
		side      Player
		wantMG    int
	}{
		{"a knight attacked by a pawn", "4k3/8/8/4p3/3N4/8/8/4K3 w - - 0 1", First, -threatMG[0]},
		{"a rook attacked by a knight", "4k3/8/8/8/8/2n5/8/3RK3 w - - 0 1", First, -threatMG[1]},
		{"a queen attacked by a rook, defended", "3rk3/8/8/8/8/8/8/3QK3 w - - 0 1", First, -threatMG[2]},
		{"a knight left hanging", "4k3/8/8/8/3n4/8/8/3RK3 w - - 0 1", Second, -threatMG[3]},
		{"a pawn left hanging", "4k3/8/8/3p4/8/8/8/3RK3 w - - 0 1", Second, -threatMG[4]},
		{"a defended knight", "4k3/8/4p3/3n4/8/8/8/3RK3 w - - 0 1", Second, 0},
		{"the rook that attacks it", "4k3/8/4p3/3n4/8/8/8/3RK3 w - - 0 1", First, 0},
	} {
		g := mustGame(t, "chess", WithPosition(c.fen))
		var cb chessBits
		cb.load(&g.cur().Board)
		var sd [2]evalSide
		readSides(&cb, &sd)
		s := &sd[c.side]
		s.mg, s.eg = 0, 0
		threats(s, &sd[c.side^1], &cb)
		if s.mg != c.wantMG {
			t.Errorf("%s (%s): threats score %d in the middlegame, want %d", c.name, c.fen, s.mg, c.wantMG)
		}
	}
	// And the evaluation counts them: the knight attacked by the pawn
	// costs White the term's weight, between its endgame and middlegame
	// values by the phase.
	g := mustGame(t, "chess", WithPosition("4k3/p7/8/4p3/3N4/8/P7/4K3 w - - 0 1"))
	with := chessScore(&g.cur().Board, First)
	saveMG, saveEG := threatMG, threatEG
	threatMG, threatEG = [5]int{}, [5]int{}
	without := chessScore(&g.cur().Board, First)
	threatMG, threatEG = saveMG, saveEG
	if d := without - with; d < threatEG[0]-1 || d > threatMG[0]+1 {
		t.Errorf("the threatened knight costs %d, want %d to %d", d, threatEG[0], threatMG[0])
	}
}
