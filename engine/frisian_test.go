package engine

import (
	"errors"
	"testing"
)

// The rule positions of Frisian draughts (frisian.go). Squares are PDN's:
// 28 is e5, its neighbours on the file 18 (e7) and 38 (e3), on the rank
// 27 (c5) and 29 (g5).
func TestFrisianCaptures(t *testing.T) {
	for _, tc := range []struct {
		name, pos string
		want      []string
	}{
		{"a man jumps along its file, forwards", "W:W28:B18", []string{"28x8"}},
		{"and backwards", "W:W28:B38", []string{"28x48"}},
		{"and along its rank", "W:W28:B29", []string{"28x30"}},
		{"a king flies orthogonally", "W:WK28:B18", []string{"28x8"}},
		{"a king steps diagonally only", "W:WK46:B1", []string{"46-5", "46-10", "46-14", "46-19", "46-23", "46-28", "46-32", "46-37", "46-41"}},
		// Article 11: two men (28x19x10) weigh more than one king (28x48).
		{"two men before a king", "W:W28:BK38,23,14", []string{"28x10"}},
		// A king and a man (23 then 29, 28x19x39) weigh more than two men.
		{"a king and a man before two men", "W:W28:BK29,23,14", []string{"28x39"}},
		// Two kings (27 then 16, 28x26x6) weigh more than three men (23,
		// 14, 9: 28x19x10x8).
		{"two kings before three men", "W:W28:B23,14,9,K27,K16", []string{"28x6"}},
		// Equal values: the king must capture (46 takes 36; the man on 28
		// could take 23).
		{"a king captures when values are equal", "W:W28,K46:B23,36", []string{"46x16", "46x26", "46x6"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkMoves(t, mustGame(t, "frisian", WithPosition(tc.pos)), tc.want...)
		})
	}
}

func TestFrisianCrowning(t *testing.T) {
	// A man passing the far rank during a capture stays a man: 12 takes 7
	// onto 1, then 11 onto 21.
	g := mustGame(t, "frisian", WithPosition("W:W12:B7,11,45"))
	mustPlay(t, g, "12x21")
	if pc := g.State().Board[20]; pc != makePiece(First, kindMan) {
		t.Errorf("the piece on 21 is %v, want a man", pc)
	}
	// One whose move ends there is crowned.
	g = mustGame(t, "frisian", WithPosition("W:W7:B45"))
	mustPlay(t, g, "7-1")
	if pc := g.State().Board[0]; pc != makePiece(First, kindKing) {
		t.Errorf("the piece on 1 is %v, want a king", pc)
	}
}

// TestFrisianThreeMoves: a king may make three non-capturing moves in a
// row while its side has men, then another piece must move.
func TestFrisianThreeMoves(t *testing.T) {
	g := mustGame(t, "frisian", WithPosition("W:W45,K26:B3,4,5"))
	mustPlay(t, g, "26-21", "5-10", "21-26", "10-15", "26-21", "4-9")
	if got, want := g.Position(), "W:WK21,45:B3,9,15:KW3@21"; got != want {
		t.Errorf("position %q, want %q", got, want)
	}
	checkMoves(t, g, "45-40")
	var me *MoveError
	if _, err := g.Play("21-26"); !errors.As(err, &me) || me.Kind != MoveIllegal || !me.Rested || me.Square != "21" {
		t.Errorf("a fourth move of the king: %v, want it refused for the three moves rule", err)
	}
	// Another piece's move frees the king.
	mustPlay(t, g, "45-40", "9-14", "21-26")
	// A second king's moves start a count of their own.
	g = mustGame(t, "frisian", WithPosition("W:W45,K26,K50:B2,3,4,5"))
	mustPlay(t, g, "26-21", "5-10", "21-26", "10-15", "26-21", "4-9", "50-44", "2-7")
	if got, want := g.Position(), "W:WK21,K44,45:B3,7,9,15:KW1@44"; got != want {
		t.Errorf("position %q, want %q", got, want)
	}
	mustPlay(t, g, "21-26")
	// A side without men is not restricted.
	g = mustGame(t, "frisian", WithPosition("W:WK26:B3,4,5"))
	mustPlay(t, g, "26-21", "5-10", "21-26", "10-15", "26-21", "4-9", "21-26")
	// The run is part of the position: the same board with another run is
	// another position, and a position string carries it.
	g = mustGame(t, "frisian", WithPosition("W:WK21,45:B3,9,15:KW3@21"))
	checkMoves(t, g, "45-40")
	if free := mustGame(t, "frisian", WithPosition("W:WK21,45:B3,9,15")); free.State().Hash == g.State().Hash {
		t.Errorf("the run does not change the position's hash")
	}
}

func TestFrisianBadRuns(t *testing.T) {
	for _, pos := range []string{
		"W:WK21,45:B3:KW4@21",           // too long a run
		"W:WK21,45:B3:KW0@21",           // an empty one
		"W:WK21,45:B3:KW2@22",           // no king there
		"W:WK21,45:B3:KB2@21",           // not Black's king
		"W:WK21:B3:KW2@21",              // White has no men
		"W:WK21,45:B3:KW2@99",           // no such square
		"W:WK21,45:B3:KW2-21",           // no "@"
		"W:WK21,45:B3:KX2@21",           // no such side
		"W:WK21,K22,45:B3:KW2@21,W1@22", // two runs of one side
		"W:WK21,45:B3:K",                // a field of runs without any
	} {
		if _, err := NewGame("frisian", WithPosition(pos)); !errors.Is(err, ErrBadPosition) {
			t.Errorf("%q: %v, want ErrBadPosition", pos, err)
		}
	}
}

func TestFrisianEndings(t *testing.T) {
	// One king against one king: a draw at once...
	g := mustGame(t, "frisian", WithPosition("W:WK46:BK4"))
	if st := g.Status(); st.Result != Draw || st.Rule != RuleLoneKings {
		t.Errorf("king against king: %+v, want a draw", st)
	}
	// ...unless the side to move must give its king away: White's king in
	// the corner has only the long diagonal, which Black's king holds.
	g = mustGame(t, "frisian", WithPosition("W:WK46:BK5"))
	if st := g.Status(); st.Result != Ongoing {
		t.Fatalf("a forced capture: %+v, want the game to go on", st)
	}
	mustPlay(t, g, "46-28", "5x46")
	if st := g.Status(); st.Result != Win || st.Winner != Second {
		t.Errorf("after the capture: %+v, want Black to win", st)
	}
	// ...or can capture the other king at once.
	g = mustGame(t, "frisian", WithPosition("W:WK28:BK18"))
	if st := g.Status(); st.Result != Ongoing {
		t.Errorf("a capture at once: %+v, want the game to go on", st)
	}
	// Two kings against one: 7 moves each.
	g = mustGame(t, "frisian", WithPosition("W:WK47,K49:BK4"))
	checkDrawAt(t, g, 14, false, RuleSevenMoves)
	// Counted from the moment the ending arose.
	g = mustGame(t, "frisian", WithPosition("W:WK47,K49:BK4,38"))
	mustPlay(t, g, "47x33")
	checkDrawAt(t, g, 14, false, RuleSevenMoves)
}
