package engine

import (
	"errors"
	"strings"
	"testing"
)

// chasePos builds a Chase position string from "cell=glyph" items
// ("B4=d" is a White 4) and the side to move ("r" or "w").
func chasePos(turn string, cells ...string) string {
	var grid [9][9]byte
	for r := range grid {
		for c := range grid[r] {
			grid[r][c] = '.'
		}
	}
	for _, cell := range cells {
		name, glyph, _ := strings.Cut(cell, "=")
		r, c := int(name[0]-'A'), int(name[1]-'1')
		grid[r][c] = glyph[0]
	}
	rows := make([]string, 9)
	for r := range grid {
		rows[r] = string(grid[r][:])
	}
	return strings.Join(rows, "/") + " " + turn
}

// cellOf returns the glyph on a named cell of g's position.
func cellOf(g *Game, name string) byte {
	sq, _ := g.r.topo.square(name)
	return glyphChase(g.State().Board[sq])
}

// pipTotals sums the pips of each side.
func pipTotals(s *State) (sum, dice [2]int) {
	for sq := 0; sq < 81; sq++ {
		if pc := s.Board[sq]; pc != 0 {
			sum[pc.Owner()] += int(pc.Kind())
			dice[pc.Owner()]++
		}
	}
	return sum, dice
}

func TestChaseStart(t *testing.T) {
	g := mustGame(t, "chase")
	ms := g.LegalMoves()
	ex := 0
	for _, m := range ms {
		if strings.Contains(m.String(), ">") {
			ex++
		}
	}
	if len(ms) != 46 || ex != 24 {
		t.Errorf("start: %d moves, %d exchanges; want 46 and 24", len(ms), ex)
	}
	if g.ToMove() != First || g.PlayerName(First) != "Red" {
		t.Errorf("Red should move first")
	}
	g2 := mustGame(t, "chase", WithFirstPlayer(Second))
	if g2.ToMove() != Second {
		t.Errorf("WithFirstPlayer(Second) ignored")
	}
}

func TestChaseRowRotation(t *testing.T) {
	// A1-A2 pushes the whole home row one cell east (A9's 1 wraps onto
	// A1); A9-A1 gives the same position.
	a := mustGame(t, "chase")
	mustPlay(t, a, "A1-A2")
	b := mustGame(t, "chase")
	mustPlay(t, b, "A9-A1")
	if a.Position() != b.Position() {
		t.Errorf("A1-A2 gives %s, A9-A1 gives %s", a.Position(), b.Position())
	}
	if got := strings.Split(a.Position(), "/")[0]; got != "112345432" {
		t.Errorf("home row after A1-A2: %s, want 112345432", got)
	}
}

func TestChaseBumpCapture(t *testing.T) {
	// The 1 on B1 moves onto its own 3 on B2, which bumps the 2 on B3,
	// which lands on White's 4 on B4 and captures it. White's 4 lost pips
	// go to its lowest dice: the 3s on I7 and I9 tie, board order serves
	// I7 first (to 6), the last pip goes to I9.
	pos := chasePos("r", "B1=1", "B2=3", "B3=2", "A1=5", "A3=6", "A5=6", "A7=2",
		"B4=d", "I1=e", "I3=e", "I5=e", "I7=c", "I9=c")
	g := mustGame(t, "chase", WithPosition(pos))
	mustPlay(t, g, "B1-B2")
	want := chasePos("w", "B2=1", "B3=3", "B4=2", "A1=5", "A3=6", "A5=6", "A7=2",
		"I1=e", "I3=e", "I5=e", "I7=f", "I9=d")
	if g.Position() != want {
		t.Errorf("after B1-B2:\n got  %s\n want %s", g.Position(), want)
	}
}

func TestChaseChamberRules(t *testing.T) {
	base := []string{"A1=6", "A2=6", "A3=6", "I1=e", "I2=e", "I3=e", "I4=e", "I5=e"}
	// A die may not be bumped into the Chamber: E3 (a 1) onto its own E4
	// would push E4 into E5.
	g := mustGame(t, "chase", WithPosition(chasePos("r", append(base, "E3=1", "E4=2")...)))
	for _, m := range g.LegalMoves() {
		if strings.HasPrefix(m.String(), "E3-E4") {
			t.Errorf("%v bumps a die into the Chamber", m)
		}
	}
	// A die may not pass over the Chamber: a 3 on E3 cannot go east.
	g = mustGame(t, "chase", WithPosition(chasePos("r", append(base, "E3=3")...)))
	for _, m := range g.LegalMoves() {
		if strings.HasPrefix(m.String(), "E3-E6") {
			t.Errorf("%v passes over the Chamber", m)
		}
	}
}

func TestChaseChamberSplit(t *testing.T) {
	// A 3 entering the Chamber in each direction: the 2 leaves on the
	// mover's left, the 1 on its right (cells flanking the entry).
	cases := []struct {
		dir         int
		left, right string
	}{
		{hexE, "F5", "D5"}, {hexNE, "E4", "D6"}, {hexNW, "D5", "E6"},
		{hexW, "D6", "F6"}, {hexSW, "E6", "F5"}, {hexSE, "F6", "E4"},
	}
	t0 := hexCylinder(9, 9)
	chamber := 4*9 + 4
	for _, tc := range cases {
		// Walk three cells back from the Chamber against the direction.
		sq := chamber
		for i := 0; i < 3; i++ {
			sq = t0.step(sq, int(t0.opposite[tc.dir]))
		}
		from := t0.names[sq]
		pos := chasePos("r", "A1=6", "A2=6", "A9=6", "B5=4", from+"=3",
			"I1=e", "I2=e", "I3=e", "I4=e", "I5=e")
		g := mustGame(t, "chase", WithPosition(pos))
		if _, err := g.Play(from + "-E5"); err != nil {
			t.Errorf("%s-E5: %v", from, err)
			continue
		}
		if cellOf(g, tc.left) != '2' || cellOf(g, tc.right) != '1' || cellOf(g, "E5") != '.' {
			t.Errorf("entering %s from %s: want 2 on %s and 1 on %s\n%s",
				t0.dirNames[tc.dir], from, tc.left, tc.right, g.Diagram(First))
		}
	}
}

func TestChaseChamberAfterRicochet(t *testing.T) {
	// A 5 on B8 moving south-west hits the bottom edge on A7, ricochets
	// north-west (B7, C6, D6) and enters the Chamber moving north-west:
	// the 3 leaves south-west (D5), the 2 east (E6).
	pos := chasePos("r", "B8=5", "A1=6", "A2=6", "A3=6", "A4=2", "I1=e", "I2=e", "I3=e", "I4=e", "I5=e")
	g := mustGame(t, "chase", WithPosition(pos))
	mustPlay(t, g, "B8-E5")
	if cellOf(g, "D5") != '3' || cellOf(g, "E6") != '2' {
		t.Errorf("split after ricochet wrong:\n%s", g.Diagram(First))
	}
}

func TestChaseChamberNoSplit(t *testing.T) {
	// A 1 cannot split: it leaves whole to the left.
	pos := chasePos("r", "E4=1", "A1=6", "A2=6", "A3=6", "A4=6", "I1=e", "I2=e", "I3=e", "I4=e", "I5=e")
	g := mustGame(t, "chase", WithPosition(pos))
	mustPlay(t, g, "E4-E5")
	if cellOf(g, "F5") != '1' || cellOf(g, "D5") != '.' {
		t.Errorf("1 in the Chamber:\n%s", g.Diagram(First))
	}
	// With all ten dice on the board there is no spare: the 3 leaves
	// whole to the left.
	pos = chasePos("r", "E2=3", "A1=1", "A2=1", "A3=1", "A4=1", "A5=1", "A6=1", "A7=1", "A8=1", "A9=1",
		"I1=e", "I2=e", "I3=e", "I4=e", "I5=e")
	g = mustGame(t, "chase", WithPosition(pos))
	mustPlay(t, g, "E2-E5")
	if cellOf(g, "F5") != '3' || cellOf(g, "D5") != '.' {
		t.Errorf("split with ten dice:\n%s", g.Diagram(First))
	}
}

func TestChaseDoubleCapture(t *testing.T) {
	// Both halves land on White dice: two captures in one move, 3 + 2
	// pips reallocated to White's lowest dice.
	pos := chasePos("r", "E3=2", "A1=6", "A2=6", "A3=6", "A4=5",
		"F5=c", "D5=b", "I1=d", "I2=d", "I3=d", "I4=d", "I5=d")
	g := mustGame(t, "chase", WithPosition(pos))
	mustPlay(t, g, "E3-E5")
	sum, dice := pipTotals(&g.hist[len(g.hist)-1])
	if cellOf(g, "F5") != '1' || cellOf(g, "D5") != '1' || dice[1] != 5 || sum[1] != 25 {
		t.Errorf("double capture: dice %v pips %v\n%s", dice, sum, g.Diagram(First))
	}
}

func TestChaseExchange(t *testing.T) {
	g := mustGame(t, "chase")
	mustPlay(t, g, "A3>A4:2")
	if got := strings.Split(g.Position(), "/")[0]; got != "121654321" {
		t.Errorf("home row after A3>A4:2: %s, want 121654321", got)
	}
}

func TestChaseFiveDiceLoss(t *testing.T) {
	// White has five dice; losing one more ends the game.
	pos := chasePos("r", "A1=6", "A2=6", "A3=6", "A4=6", "B1=1", "B2=a",
		"I1=f", "I2=f", "I3=f", "I4=f")
	g := mustGame(t, "chase", WithPosition(pos))
	mustPlay(t, g, "B1-B2")
	st := g.Status()
	if st.Result != Win || st.Winner != First {
		t.Errorf("status %+v, want Red wins", st)
	}
}

func TestChaseDisambiguation(t *testing.T) {
	// The 6 on D8 reaches D2 going west and, ricocheting off row I, going
	// north-east; the bumps go different ways, so the moves differ and
	// carry their direction of arrival.
	pos := "..2..5.../..1....../.2c.2..../.1.....6./.e.6...../........./.......db/.b.f...../..c...... r"
	g := mustGame(t, "chase", WithPosition(pos))
	n := 0
	for _, m := range g.LegalMoves() {
		if strings.HasPrefix(m.String(), "D8-D2(") {
			n++
		}
	}
	if n != 2 {
		t.Errorf("D8-D2 moves with a direction: %d, want 2: %v", n, notations(g))
	}
	if _, err := g.ParseMove("D8-D2"); !errors.Is(err, ErrAmbiguousMove) {
		t.Errorf("D8-D2 alone: %v, want ErrAmbiguousMove", err)
	}
	if _, err := g.Play("d8 d2 w"); err != nil {
		t.Errorf("d8 d2 w: %v", err)
	}
}

func TestChaseShortNotation(t *testing.T) {
	// From the start no two die moves share origin and stopping cell, so
	// none carries its direction.
	for _, m := range mustGame(t, "chase").LegalMoves() {
		if strings.Contains(m.String(), "(") {
			t.Errorf("%s carries a direction it does not need", m)
		}
	}
}
