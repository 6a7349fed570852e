package engine

import (
	"slices"
	"strings"
	"testing"
)

// Published perft tables of the draughts variants described in
// draughts_family.go (those of Russian, International, Brazilian and
// English draughts are in perft_test.go). Counts merge moves with the
// same effect, as the tables do.
//
//   - Pool: the "Standard validation generator moves" thread of the
//     Shashki forum (shashki.com), as kept in the test suite of R.
//     Halbersma's draughts library DCTL (rhalbersma/dctl on GitHub,
//     test/src/ai/traversal/initial/board8x8.cpp).
//   - Czech, Spanish, Italian and Thai: R. Halbersma, "Perft for all
//     recognized draughts variants", FMJD forum (laatste.info, topic
//     2822, April 2010), the same suite. The Thai table starts from the
//     twelve men a side of the other 8x8 games (DCTL's Thai rules with
//     three rows of men), not from Thai draughts' own start with eight.
//   - Canadian: the "Perft on large boards" thread of the FMJD forum
//     (laatste.info, topic 4563), the same suite (large.cpp).
//   - Frisian: R. Halbersma, same thread, May 2010 (damforum.nl); its
//     first kings appear at depth 7 and no king can make a fourth move
//     in a row before depth 13, so the three moves rule, which that
//     generator left out, does not change these counts.
//
// The Pool and Czech tables separate a king that must land where it can
// capture again from one that may stop anywhere beyond its victim from
// depth 9 on (4570534 and 3963671; 4570536 and 3963673 without the rule).
var draughtsPerftTables = []struct {
	name    string
	variant string
	pos     string
	quick   int // depth of the default run; -deep runs every level listed
	want    []uint64
}{
	{"pool", "pool", "", 6, []uint64{7, 49, 302, 1469, 7482, 37986, 190146, 929896, 4570534}},
	{"czech", "czech", "", 6, []uint64{7, 49, 302, 1469, 7361, 36768, 179740, 845931, 3963671}},
	{"spanish", "spanish", "", 6, []uint64{7, 49, 302, 1469, 7361, 36473, 177532, 828783, 3860866}},
	{"italian", "italian", "", 6, []uint64{7, 49, 302, 1469, 7361, 36473, 177532, 828783, 3860875}},
	{"thai, twelve men", "thai", "W:Wa1,c1,e1,g1,b2,d2,f2,h2,a3,c3,e3,g3:Bb6,d6,f6,h6,a7,c7,e7,g7,b8,d8,f8,h8", 6,
		[]uint64{7, 49, 302, 1469, 7361, 36768, 179740, 845931, 3963648}},
	{"canadian", "canadian", "", 5, []uint64{11, 121, 1222, 10053, 79049, 584100, 4369366}},
	{"frisian", "frisian", "", 5, []uint64{9, 81, 658, 3874, 21265, 102431, 540126, 2825779}},
}

func TestDraughtsPublishedPerft(t *testing.T) {
	for _, tc := range draughtsPerftTables {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			checkPerft(t, tc.variant, tc.pos, tc.quick, tc.want)
		})
	}
}

// routes lists the legal moves as their paths ("a1 e5 g3").
func routes(g *Game) []string {
	var out []string
	for _, m := range g.LegalMoves() {
		path, _ := g.Describe(m)
		out = append(out, strings.Join(path, " "))
	}
	slices.Sort(out)
	return out
}

func checkRoutes(t *testing.T, g *Game, want ...string) {
	t.Helper()
	slices.Sort(want)
	if got := routes(g); !slices.Equal(got, want) {
		t.Errorf("%s: legal moves\n got  %v\n want %v\n%s", g.Position(), got, want, g.Diagram(First))
	}
}

// TestFlyingKingLandsWhereItCapturesAgain: in pool and Czech draughts,
// as in Russian, a king that has jumped a piece may land on any free
// square beyond it, but if it can capture again from some of them it
// must land on one of those and go on. The pool rules: "It can stop on
// whatever square on the same line. If a new capture is possible from
// one of these squares, it must continue the capture" (the rules of play
// of the American Pool Checkers Association, after Ramsey and Kaplan:
// "a king must make all the possible jumps"); the Czech rules: a
// multiple capture "must be made in full" (Czech Draughts Federation).
// The published perft tables agree (draughtsPerftTables).
func TestFlyingKingLandsWhereItCapturesAgain(t *testing.T) {
	// The king on a1 (29) takes c3 (22); only from e5 (15) can it take
	// f4 (19) as well, landing on g3 (24) or h2 (28).
	checkRoutes(t, mustGame(t, "pool", WithPosition("W:WK29:B22,19,1")), "29 15 24", "29 15 28")
	checkRoutes(t, mustGame(t, "czech", WithPosition("W:WKa1:Bc3,f4,b8")), "a1 e5 g3", "a1 e5 h2")
	// With nothing more to take it may stop on any square beyond.
	checkRoutes(t, mustGame(t, "pool", WithPosition("W:WK29:B22,1")), "29 18", "29 15", "29 11", "29 8", "29 4")
	checkRoutes(t, mustGame(t, "czech", WithPosition("W:WKa1:Bc3,b8")), "a1 d4", "a1 e5", "a1 f6", "a1 g7", "a1 h8")
}

// TestItalianRulebookPositions plays the diagrams of the capture
// articles of the Italian federation's rules (Federazione Italiana Dama,
// Regolamento tecnico, capo I, articles 5 and 6, as collected in DCTL's
// rulebook tests), written here with the engine's algebraic squares (the
// federation numbers the dark squares 1-32 from a8).
func TestItalianRulebookPositions(t *testing.T) {
	for _, tc := range []struct {
		article, pos string
		want         []string
	}{
		// A man captures forwards only (5.6) and goes on capturing (5.7).
		{"5.6", "W:Wd1:Be2", []string{"d1 f3"}},
		{"5.7", "W:Wf1:Bg2,g4,g6", []string{"f1 h3 f5 h7"}},
		// A king captures in every direction (5.8) and goes on (5.9).
		{"5.8", "W:WKd3:Bc4,e4,e2", []string{"d3 b5", "d3 f5", "d3 f1"}},
		{"5.9", "W:WKe2:Bb7,d7,b5,f5,b3,f3", []string{"e2 g4 e6 c8 a6 c4 a2"}},
		// The most pieces (6.6), with the king (6.7), the most kings
		// (6.8), the king met first (6.9); otherwise a free choice (6.10).
		{"6.6", "W:WKb3,f1:Bc6,c4,e2", []string{"f1 d3 b5 d7"}},
		{"6.7", "W:WKf3,f1:Be4,c2,e2", []string{"f3 d1 b3"}},
		{"6.8", "W:WKf3:Be4,Kg2", []string{"f3 h1"}},
		{"6.9", "W:WKd1:Bc6,g6,c4,Kg4,Kc2,e2", []string{"d1 b3 d5 b7"}},
		{"6.10", "W:WKf1:Bc4,g4,Ke2,Kg2", []string{"f1 d3 b5", "f1 h3 f5"}},
	} {
		t.Run(tc.article, func(t *testing.T) {
			checkRoutes(t, mustGame(t, "italian", WithPosition(tc.pos)), tc.want...)
		})
	}
}
