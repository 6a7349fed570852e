package engine

import (
	"strings"
	"testing"
)

// Button entry through Steps: pieces first, then destinations, one press
// per jump of a capture, choices among moves with the same path, back.

// stepsOf calls Steps or fails the test.
func stepsOf(t *testing.T, g *Game, tapped ...string) StepInfo {
	t.Helper()
	si, err := g.Steps(tapped)
	if err != nil {
		t.Fatalf("Steps(%v): %v", tapped, err)
	}
	return si
}

func TestStepsMultiCapture(t *testing.T) {
	// c3 takes d4 and lands on e5, then goes on to g7 or g3.
	g := mustGame(t, "russian", WithPosition("W:Wc3:Bd4,f6,f4"))
	si := stepsOf(t, g)
	if strings.Join(si.Next, " ") != "c3" || si.Back != nil {
		t.Errorf("pieces: %+v", si)
	}
	si = stepsOf(t, g, "c3")
	if strings.Join(si.Next, " ") != "e5" || moveList(si.Remaining) != "c3:e5:g3, c3:e5:g7" || len(si.Back) != 0 {
		t.Errorf("after c3: %+v", si)
	}
	si = stepsOf(t, g, "c3", "e5")
	if strings.Join(si.Next, " ") != "g3 g7" || len(si.Remaining) != 2 || strings.Join(si.Back, " ") != "c3" {
		t.Errorf("after c3 e5: %+v", si)
	}
	si = stepsOf(t, g, "c3", "e5", "g7")
	if m, ok := si.Done(); !ok || m.String() != "c3:e5:g7" || moveList(si.Remaining) != "c3:e5:g7" {
		t.Errorf("after c3 e5 g7: %+v", si)
	}
	if err := g.Apply(si.Moves[0]); err != nil {
		t.Fatal(err)
	}
}

func TestStepsPromotionChoice(t *testing.T) {
	g := mustGame(t, "chess", WithPosition("4k3/1P6/8/8/8/8/8/4K3 w - -"))
	si := stepsOf(t, g, "b7")
	if strings.Join(si.Next, " ") != "b8" {
		t.Errorf("after b7: %+v", si)
	}
	si = stepsOf(t, g, "b7", "b8")
	if _, ok := si.Done(); ok || len(si.Choices) != 4 {
		t.Fatalf("promotion: %+v", si)
	}
	var labels []string
	for _, c := range si.Choices {
		labels = append(labels, c.Label)
	}
	if strings.Join(labels, " ") != "B N Q R" {
		t.Errorf("choice labels %v", labels)
	}
	if err := g.Apply(si.Choices[1].Move); err != nil || !strings.HasPrefix(g.Position(), "1N2k3") {
		t.Errorf("apply the knight: %v %s", err, g.Position())
	}
}

func TestStepsCastling(t *testing.T) {
	g := mustGame(t, "chess", WithPosition("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1"))
	si := stepsOf(t, g, "e1")
	if !strings.Contains(" "+strings.Join(si.Next, " ")+" ", " c1 ") || !strings.Contains(strings.Join(si.Next, " "), "g1") {
		t.Errorf("king's destinations lack castling: %v", si.Next)
	}
	si = stepsOf(t, g, "e1", "g1")
	m, ok := si.Done()
	if !ok || m.String() != "e1g1" {
		t.Fatalf("castling: %+v", si)
	}
	if err := g.Apply(m); err != nil || !strings.HasPrefix(strings.Split(g.Position(), "/")[7], "R4RK1") {
		t.Errorf("after castling: %v %s", err, g.Position())
	}
}

func TestStepsChase(t *testing.T) {
	g := mustGame(t, "chase")
	si := stepsOf(t, g)
	if len(si.Next) != 9 {
		t.Errorf("Chase pieces: %v", si.Next)
	}
	// A3 (a 3) onto its neighbour A4: no die move (the 3 cannot go one
	// cell), but exchanges of 1 or 2 pips.
	si = stepsOf(t, g, "A3", "A4")
	var labels []string
	for _, c := range si.Choices {
		labels = append(labels, c.Label)
	}
	if strings.Join(labels, " ") != "A3>A4:1 A3>A4:2" {
		t.Errorf("A3 A4 choices: %v", labels)
	}
	// A die move: the 1 on A1 north-east.
	si = stepsOf(t, g, "A1")
	if !strings.Contains(strings.Join(si.Next, " "), "B1") {
		t.Errorf("A1 destinations: %v", si.Next)
	}
	si = stepsOf(t, g, "A1", "B1")
	if m, ok := si.Done(); !ok || m.String() != "A1-B1" {
		t.Errorf("A1 B1: %+v", si)
	}
}
