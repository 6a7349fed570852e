package engine

import "testing"

func TestChessRules(t *testing.T) {
	// Castling both ways, written several ways.
	g := mustGame(t, "chess", WithPosition("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1"))
	mustPlay(t, g, "O-O", "e8c8")
	if got := g.Position(); got != "2kr3r/8/8/8/8/8/8/R4RK1 w - - 2 2" {
		t.Errorf("after castling: %s", got)
	}
	// En passant and promotion.
	g = mustGame(t, "chess", WithPosition("4k3/1P6/8/8/5p2/8/4P3/4K3 w - - 0 1"))
	mustPlay(t, g, "e2e4", "f4xe3", "b7b8=Q")
	if got := g.Position(); got != "1Q2k3/8/8/8/8/4p3/8/4K3 b - - 0 2" {
		t.Errorf("after e.p. and promotion: %s", got)
	}
	// Promotion is a choice among four moves on the same squares.
	g = mustGame(t, "chess", WithPosition("4k3/1P6/8/8/8/8/8/4K3 w - -"))
	si, err := g.Steps([]string{"b7", "b8"})
	if err != nil || len(si.Moves) != 4 {
		t.Errorf("promotion steps: %+v %v", si, err)
	}
	// Standard algebraic notation.
	g = mustGame(t, "chess")
	mustPlay(t, g, "e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Bxc6", "dxc6")
	if got := g.Position(); got != "r1bqkbnr/1pp2ppp/p1p5/4p3/4P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 0 5" {
		t.Errorf("after the Ruy Lopez exchange: %s", got)
	}
}

func TestChessEnds(t *testing.T) {
	g := mustGame(t, "chess")
	mustPlay(t, g, "f3", "e5", "g4", "Qh4")
	if st := g.Status(); st.Result != Win || st.Winner != Second || st.Reason != "checkmate" {
		t.Errorf("fool's mate: %+v", st)
	}
	g = mustGame(t, "chess", WithPosition("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1"))
	if st := g.Status(); st.Result != Draw || st.Reason != "stalemate" {
		t.Errorf("stalemate: %+v", st)
	}
	g = mustGame(t, "chess", WithPosition("7k/8/6K1/8/8/8/8/6N1 b - - 0 1"))
	if st := g.Status(); st.Result != Draw {
		t.Errorf("K+N vs K: %+v", st)
	}
	// Threefold repetition.
	g = mustGame(t, "chess")
	mustPlay(t, g, "Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6", "Ng1", "Ng8")
	if st := g.Status(); st.Result != Draw || st.Rule != RuleRepetition {
		t.Errorf("repetition: %+v", st)
	}
}

func TestChessBadFEN(t *testing.T) {
	for _, fen := range []string{
		"8/8/8/8/8/8/8/8 w - -", "x", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq -",
		"rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -", "4k3/8/8/8/8/8/8/4Q1K1 w - -",
		"P3k3/8/8/8/8/8/8/4K3 w - -", "4k3/8/8/8/8/8/8/4K3 w - e4",
	} {
		if _, err := NewGame("chess", WithPosition(fen)); err == nil {
			t.Errorf("FEN %q accepted", fen)
		}
	}
}
