package engine

import (
	"bytes"
	"errors"
	"image/png"
	"strings"
	"testing"
)

func TestVariants(t *testing.T) {
	vs := variants()
	if len(vs) != 23 {
		t.Errorf("%d variants, want 23", len(vs))
	}
	for _, v := range vs {
		g := mustGame(t, v.Name)
		if g.Variant() != v.Name || g.Title() == "" {
			t.Errorf("%s: variant %q title %q", v.Name, g.Variant(), g.Title())
		}
		// Every start position survives a round trip.
		g2 := mustGame(t, v.Name, WithPosition(g.Position()))
		if g2.State() != g.State() {
			t.Errorf("%s: start position does not round-trip: %s", v.Name, g.Position())
		}
	}
	if _, err := NewGame("go"); !errors.Is(err, ErrUnknownVariant) {
		t.Errorf("NewGame(go) = %v, want ErrUnknownVariant", err)
	}
	if _, err := NewGame("chase", WithFirstPlayer(7)); !errors.Is(err, ErrBadOption) {
		t.Errorf("bad player accepted: %v", err)
	}
	if _, err := NewGame("russian", WithDiagonals(true)); !errors.Is(err, ErrBadOption) {
		t.Errorf("fox option for draughts accepted: %v", err)
	}
	if _, err := NewGame("foxgeese13", WithFoxWinThreshold(40)); !errors.Is(err, ErrBadOption) {
		t.Errorf("bad threshold accepted: %v", err)
	}
}

func TestLenientMoveText(t *testing.T) {
	for _, text := range []string{"c3-d4", "c3d4", "C3 D4", " c3 - d4 ", "c3xd4"} {
		g := mustGame(t, "russian")
		m, err := g.Play(text)
		if err != nil || m.String() != "c3-d4" {
			t.Errorf("Play(%q) = %v, %v", text, m, err)
		}
	}
	// A capture by origin and destination only.
	for _, text := range []string{"g5:e3:c5", "g5xc5", "g5-c5", "g5c5", "G5:E3:C5"} {
		g := mustGame(t, "russian")
		mustPlay(t, g, "g3-f4", "f6-g5", "e3-d4")
		if m, err := g.Play(text); err != nil || m.String() != "g5:e3:c5" {
			t.Errorf("Play(%q) = %v, %v", text, m, err)
		}
	}
	// International short and full forms.
	g := mustGame(t, "international")
	mustPlay(t, g, "32-28", "19-23")
	if m, err := g.Play("28x19"); err != nil || m.String() != "28x19" {
		t.Errorf("28x19: %v %v", m, err)
	}
}

func TestMoveErrors(t *testing.T) {
	g := mustGame(t, "russian")
	for _, text := range []string{"", "zz", "a1-h8", "c3-c4", "c3", "###", strings.Repeat("c3", 500), "\x00\xff"} {
		if _, err := g.Play(text); !errors.Is(err, ErrIllegalMove) {
			t.Errorf("Play(%q) = %v, want ErrIllegalMove", text, err)
		}
	}
	c := mustGame(t, "chess", WithPosition("4k3/1P6/8/8/8/8/8/4K3 w - -"))
	if _, err := c.Play("b7b8"); !errors.Is(err, ErrAmbiguousMove) {
		t.Errorf("b7b8 = %v, want ErrAmbiguousMove", err)
	}
	if _, err := c.Play("b7b8n"); err != nil {
		t.Errorf("b7b8n: %v", err)
	}
	// A move of another position is illegal here.
	other := mustGame(t, "russian").LegalMoves()[0]
	g2 := mustGame(t, "russian")
	mustPlay(t, g2, "c3-d4")
	if err := g2.Apply(other); !errors.Is(err, ErrIllegalMove) {
		t.Errorf("stale move: %v", err)
	}
	// The zero Move is never legal.
	if err := g2.Apply(Move{}); !errors.Is(err, ErrIllegalMove) {
		t.Errorf("zero move: %v", err)
	}
	g2.Describe(Move{})
	intl := mustGame(t, "international").LegalMoves()
	g2.Describe(intl[len(intl)-1]) // squares beyond this board: no panic
	if err := g2.Apply(intl[len(intl)-1]); !errors.Is(err, ErrIllegalMove) {
		t.Errorf("move of another game: %v", err)
	}
	// No moves after the end.
	over := mustGame(t, "chess")
	mustPlay(t, over, "f3", "e5", "g4", "Qh4")
	if _, err := over.Play("a2a3"); !errors.Is(err, ErrGameOver) {
		t.Errorf("move after mate: %v", err)
	}
	if len(over.LegalMoves()) != 0 {
		t.Errorf("legal moves after mate")
	}
}

func TestUndo(t *testing.T) {
	g := mustGame(t, "russian")
	if err := g.Undo(); !errors.Is(err, ErrNoHistory) {
		t.Errorf("Undo at start: %v", err)
	}
	start := g.State()
	mustPlay(t, g, "c3-d4", "f6-g5")
	if g.Ply() != 2 || len(g.History()) != 2 || g.History()[1].String() != "f6-g5" {
		t.Errorf("history %v", g.History())
	}
	if err := g.Undo(); err != nil {
		t.Fatal(err)
	}
	if err := g.Undo(); err != nil {
		t.Fatal(err)
	}
	if g.State() != start || len(g.LegalMoves()) != 7 {
		t.Errorf("undo did not restore the start")
	}
}

func TestSortedUniqueNotation(t *testing.T) {
	for _, v := range variants() {
		g := mustGame(t, v.Name)
		ms := g.LegalMoves()
		seen := map[string]bool{}
		for i, m := range ms {
			if seen[m.String()] {
				t.Errorf("%s: duplicate notation %s", v.Name, m)
			}
			seen[m.String()] = true
			if i > 0 && naturalLess(m.String(), ms[i-1].String()) {
				t.Errorf("%s: %s sorted after %s", v.Name, m, ms[i-1])
			}
		}
	}
	if !naturalLess("2-7", "10-14") || !naturalLess("a2", "a10") || naturalLess("b1", "a9") {
		t.Errorf("naturalLess")
	}
}

func TestSteps(t *testing.T) {
	g := mustGame(t, "russian")
	si, err := g.Steps(nil)
	if err != nil || strings.Join(si.Next, " ") != "a3 c3 e3 g3" {
		t.Errorf("first tap: %+v %v", si, err)
	}
	si, _ = g.Steps([]string{"c3"})
	if strings.Join(si.Next, " ") != "b4 d4" || len(si.Moves) != 0 {
		t.Errorf("after c3: %+v", si)
	}
	si, _ = g.Steps([]string{"c3", "d4"})
	if m, ok := si.Done(); !ok || m.String() != "c3-d4" {
		t.Errorf("after c3 d4: %+v", si)
	}
	if _, err := g.Steps([]string{"c3", "c4"}); !errors.Is(err, ErrIllegalMove) {
		t.Errorf("bad tap: %v", err)
	}
	if _, err := g.Steps([]string{"q9"}); !errors.Is(err, ErrIllegalMove) {
		t.Errorf("bad square: %v", err)
	}
	// A capture chain is tapped square by square.
	mustPlay(t, g, "g3-f4", "f6-g5", "e3-d4")
	si, _ = g.Steps([]string{"g5", "e3"})
	if strings.Join(si.Next, " ") != "c5" {
		t.Errorf("mid-capture: %+v", si)
	}
}

func TestDiagramAndImage(t *testing.T) {
	for _, v := range variants() {
		g := mustGame(t, v.Name)
		ms := g.LegalMoves()
		if err := g.Apply(ms[0]); err != nil {
			t.Fatal(err)
		}
		for _, p := range []Player{First, Second} {
			d := g.Diagram(p)
			if !strings.Contains(d, "[") || strings.Count(d, "\n") < g.r.topo.height {
				t.Errorf("%s diagram:\n%s", v.Name, d)
			}
			if p == Second && v.Name != "chase" {
				continue // one picture per board shape from each side is enough
			}
			var buf bytes.Buffer
			if err := g.WritePNG(&buf, p); err != nil {
				t.Fatal(err)
			}
			img, err := png.Decode(&buf)
			if err != nil || img.Bounds().Dx() < 300 {
				t.Errorf("%s PNG: %v", v.Name, err)
			}
		}
	}
	g := mustGame(t, "russian")
	want := " 1  w     w     w     w\n"
	if d := g.Diagram(First); !strings.Contains(d, want) {
		t.Errorf("Russian diagram lacks %q:\n%s", want, d)
	}
}

func TestBadPositions(t *testing.T) {
	bad := map[string][]string{
		"russian":    {"X", "W:Wz9", "W:Wc3:Wd4", "W:Wc3,c3", "Q:Wc3", "W:Wc3:Bd4:Bf6:W"},
		"turkish":    {"W:Wa9"},
		"english":    {"B:W1-40"},
		"chase":      {"123454321 r", strings.Repeat("........./", 8) + "......... r", chasePos("x", "A1=1", "I1=a")},
		"foxgeese13": {".../.../......./...F.../GGGGGGG/GGG/GGG", ".../.../......./......./GGGGGGG/GGG/GGG g", ".../.../......./...F.../GGGGGGG/GGG/GGZ g"},
	}
	for v, list := range bad {
		for _, pos := range list {
			if _, err := NewGame(v, WithPosition(pos)); !errors.Is(err, ErrBadPosition) {
				t.Errorf("%s %q: %v, want ErrBadPosition", v, pos, err)
			}
		}
	}
	// PDN ranges on numbered boards.
	g := mustGame(t, "english", WithPosition("B:W21-32:B1-12"))
	if g.perft(3) != 302 {
		t.Errorf("English from a PDN range position: perft(3) = %d", g.perft(3))
	}
}

// FuzzPosition and FuzzMoveText check that no input makes the engine
// panic; their seeds run with the normal tests.
func FuzzPosition(f *testing.F) {
	for _, s := range []string{"W:Wc3:Bd4", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "123454321/a r", ".../... g"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, pos string) {
		for _, v := range variants() {
			if g, err := NewGame(v.Name, WithPosition(pos)); err == nil {
				_ = g.LegalMoves()
				_ = g.Status()
				_ = g.Diagram(First)
				_ = g.render(ImageOptions{Viewer: Second, Selected: []string{pos}})
			}
		}
	})
}

func FuzzMoveText(f *testing.F) {
	for _, s := range []string{"c3-d4", "e2e4", "A3>A4:2", "O-O", "Nf3", "x:x", "32x28", "с3-d4", "bxc5", "e8=Q", "Кd2", "д4", "d4"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		for _, v := range variants() {
			g := mustGame(t, v.Name)
			if m, err := g.ParseMove(text); err == nil {
				if err := g.Apply(m); err != nil {
					t.Errorf("%s: parsed %q but Apply failed: %v", v.Name, text, err)
				}
			}
			_, _ = g.Steps([]string{text})
		}
	})
}
