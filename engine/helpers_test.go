package engine

import (
	"flag"
	"sort"
	"strings"
	"testing"
)

// deep enables the long tests: the full perft tables and thousands of
// random games. Run them with: go test ./engine -deep
var deep = flag.Bool("deep", false, "run deep perft tables and long random-playout tests")

// mustGame starts a game or fails the test.
func mustGame(tb testing.TB, variant string, opts ...Option) *Game {
	tb.Helper()
	g, err := NewGame(variant, opts...)
	if err != nil {
		tb.Fatalf("NewGame(%q): %v", variant, err)
	}
	return g
}

// mustPlay plays moves given as text or fails the test.
func mustPlay(tb testing.TB, g *Game, moves ...string) {
	tb.Helper()
	for _, m := range moves {
		if _, err := g.Play(m); err != nil {
			tb.Fatalf("Play(%q): %v\n%s", m, err, g.Diagram(First))
		}
	}
}

// notations returns the sorted notation of the legal moves.
func notations(g *Game) []string {
	var out []string
	for _, m := range g.LegalMoves() {
		out = append(out, m.String())
	}
	sort.Strings(out)
	return out
}

// checkMoves compares the legal moves of g with want (any order).
func checkMoves(t *testing.T, g *Game, want ...string) {
	t.Helper()
	got := notations(g)
	sort.Strings(want)
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("legal moves:\n got  %v\n want %v\n%s", got, want, g.Diagram(First))
	}
}
