package engine

import (
	"strings"
	"testing"
)

// Known-answer positions of the engine reference, section 3.5, plus rule
// checks of the draughts family.

func TestRussianSeedExample(t *testing.T) {
	// 1.g3-f4 f6-g5 2.e3-d4: Black must take twice, g5:e3:c5.
	g := mustGame(t, "russian")
	mustPlay(t, g, "g3-f4", "f6-g5", "e3-d4")
	checkMoves(t, g, "g5:e3:c5")
}

func TestRussianPromotionInCapture(t *testing.T) {
	// The man crowns on d8 and goes on capturing as a flying king.
	pos := "W:Wb6:Bc7,f6,h2"
	checkMoves(t, mustGame(t, "russian", WithPosition(pos)), "b6:d8:g5", "b6:d8:h4")
	// International rules crown only at the end of the move: b6:d8.
	checkMoves(t, mustGame(t, "brazilian", WithPosition(pos)), "b6:d8")
	g := mustGame(t, "brazilian", WithPosition(pos))
	mustPlay(t, g, "b6:d8")
	if pc := g.State().Board[mustSquare(g.r.topo, "d8")]; pc != makePiece(First, kindKing) {
		t.Errorf("d8 holds %v after b6:d8, want a White king", pc)
	}
}

func TestRussianFreeChoice(t *testing.T) {
	// No majority rule: both branches are legal.
	checkMoves(t, mustGame(t, "russian", WithPosition("W:Wc3:Bd4,f6,f4")), "c3:e5:g7", "c3:e5:g3")
}

func TestRussianKings(t *testing.T) {
	// A lone king on h2 has 7 moves.
	g := mustGame(t, "russian", WithPosition("W:WKh2:Ba7"))
	if n := len(g.LegalMoves()); n != 7 {
		t.Errorf("king on h2: %d moves, want 7", n)
	}
	// King h2 against a man on f4: four landing squares.
	checkMoves(t, mustGame(t, "russian", WithPosition("W:WKh2:Bf4")), "h2:e5", "h2:d6", "h2:c7", "h2:b8")
}

func TestRussianLongChain(t *testing.T) {
	// A man on h2 against seven men (the dagaz-v2 test): 7 raw capture
	// sequences, the longest crowning on f8 in the middle of the chain.
	// The king's landing rule removes h2:f4:d6:f8:h6:f4, :e3 and :c1
	// (after g5 the king must land on d2 to go on), and h2:f4:h6:f8:c5:a3
	// is h2:f4:h6:f8:d6:a3 by another landing square, so 3 moves remain.
	g := mustGame(t, "russian", WithPosition("W:Wh2:Ba7,b4,e5,e7,g3,g5,g7"))
	raw := *g.r
	raw.filters, raw.dedupe = nil, false
	s := g.State()
	ms := raw.generate(&s, raw.newCtx(), nil)
	if len(ms) != 7 {
		t.Errorf("raw capture sequences: %d, want 7", len(ms))
	}
	checkMoves(t, g, "h2:f4:d6:f8:h6:d2:a5", "h2:f4:h6:f8:d6:a3", "h2:f4:h6:f8:d6:f4")
}

func TestRussianKingLandingRule(t *testing.T) {
	// The king jumps b2 from a1 and may land on c3..g7, but only e5 lets
	// it capture again (f4, towards g3 or h2), so it must land there.
	g := mustGame(t, "russian", WithPosition("W:WKa1:Bb2,f4,h8"))
	checkMoves(t, g, "a1:e5:g3", "a1:e5:h2")
}

func TestRingCaptureMerged(t *testing.T) {
	// A man that takes four pieces in a ring and lands on its own square
	// can go round either way; both orders are one move.
	g := mustGame(t, "russian", WithPosition("W:Wc3:Bd4,d6,b6,b4,h8"))
	n := 0
	for _, m := range g.LegalMoves() {
		if m.Captures() == 4 {
			n++
		}
	}
	if n != 1 {
		t.Errorf("ring captures: %d moves, want 1: %v", n, notations(g))
	}
	raw := *g.r
	raw.dedupe = false
	s := g.State()
	if n := len(raw.generate(&s, raw.newCtx(), nil)); n != 2 {
		t.Errorf("ring captures before merging: %d, want 2 (both directions)", n)
	}
}

func TestTurkishKingCapture(t *testing.T) {
	// The Dagaz unit test: the king takes three, two landing squares.
	checkMoves(t, mustGame(t, "turkish", WithPosition("W:WKd4:Bc4,a6,f8")), "d4:a4:a8:g8", "d4:a4:a8:h8")
}

func TestTurkishStrike(t *testing.T) {
	// The last jump crosses d4, captured first: only possible because
	// captured pieces vanish at once.
	g := mustGame(t, "turkish", WithPosition("W:WKb4:Bd4,f6,e7,d2"))
	checkMoves(t, g, "b4:f4:f7:d7:d1")
	if n := g.LegalMoves()[0].Captures(); n != 4 {
		t.Errorf("captures = %d, want 4", n)
	}
}

func TestTurkishNoReverse(t *testing.T) {
	// After jumping c4 westwards the king may not turn back east to take
	// f4 (which would need crossing its own path the other way).
	g := mustGame(t, "turkish", WithPosition("W:WKd4:Bb4,f4,h8"))
	for _, m := range g.LegalMoves() {
		if m.Captures() > 1 {
			t.Errorf("king reversed direction: %v", m)
		}
	}
}

func TestTurkishManCrownsAtEnd(t *testing.T) {
	// The seed article's rule: the man reaches c8, goes on capturing
	// sideways as a man, and is crowned on e8 when the move ends.
	g := mustGame(t, "turkish", WithPosition("W:Wc6:Bc7,d8,a1"))
	checkMoves(t, g, "c6:c8:e8")
	mustPlay(t, g, "c6:c8:e8")
	if pc := g.State().Board[mustSquare(g.r.topo, "e8")]; pc != makePiece(First, kindKing) {
		t.Errorf("e8 holds %v, want a White king", pc)
	}
}

func TestMajorityRule(t *testing.T) {
	// International: the capture of two beats the capture of one.
	g := mustGame(t, "international", WithPosition("W:W32,33:B28,19,29"))
	for _, m := range g.LegalMoves() {
		if m.Captures() != 2 {
			t.Errorf("%v takes %d, want only two-piece captures", m, m.Captures())
		}
	}
}

func TestEnglishPromotionStops(t *testing.T) {
	// An English man that reaches the last rank by capturing is crowned
	// and stops, even if a king could go on.
	// d6 (10) takes e7 (7) and is crowned on f8 (3); a king could go on
	// over g7 (8), a man that has just been crowned may not.
	checkMoves(t, mustGame(t, "english", WithPosition("W:W10:B7,8")), "10x3")
}

func TestMandatoryCapture(t *testing.T) {
	g := mustGame(t, "russian", WithPosition("W:Wc3,g3:Bd4"))
	checkMoves(t, g, "c3:e5")
}

func TestNoMovesLoses(t *testing.T) {
	g := mustGame(t, "russian", WithPosition("B:Wc3:Bh8"))
	// Black's only piece h8 is a man on White's side? h8 is Black's
	// back rank: it moves down to g7.
	checkMoves(t, g, "h8-g7")
	g = mustGame(t, "russian", WithPosition("B:Wc3,b2:Ba1"))
	st := g.Status()
	if st.Result != Win || st.Winner != First {
		t.Errorf("blocked Black: status %+v, want White wins", st)
	}
}

func TestDrawRules(t *testing.T) {
	// 25 moves each with kings only and no capture.
	g := mustGame(t, "russian", WithPosition("W:WKa1:BKh2"))
	g.hist[0].Clock = 30
	if st := g.Status(); st.Result != Draw || st.Rule != RuleKingMoves {
		t.Errorf("clock draw: %+v", st)
	}
	// Threefold repetition.
	g = mustGame(t, "russian", WithPosition("W:WKa1:BKh2"))
	mustPlay(t, g, "a1-b2", "h2-g1", "b2-a1", "g1-h2", "a1-b2", "h2-g1", "b2-a1", "g1-h2")
	if st := g.Status(); st.Result != Draw || st.Rule != RuleRepetition {
		t.Errorf("repetition: %+v", st)
	}
	// The ply limit.
	g = mustGame(t, "russian", WithPlyLimit(2))
	mustPlay(t, g, "c3-d4", "f6-g5")
	if st := g.Status(); st.Result != Draw || st.Rule != RulePlyLimit {
		t.Errorf("ply limit: %+v", st)
	}
}

func TestDescribe(t *testing.T) {
	g := mustGame(t, "russian")
	mustPlay(t, g, "g3-f4", "f6-g5", "e3-d4")
	path, caps := g.Describe(g.LegalMoves()[0])
	if strings.Join(path, " ") != "g5 e3 c5" || strings.Join(caps, " ") != "f4 d4" {
		t.Errorf("Describe: path %v captured %v", path, caps)
	}
}
