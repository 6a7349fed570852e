package engine

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"
)

// Perft of the games added as descriptions and of Othello. Othello's
// table is the published one (passes count as moves); so are the
// draughts variants' first levels, which draughts_published_test.go
// checks deeper against their published tables. The other games' values
// are the engine's, checked by the second generators of the tests on
// random games (see the package doc), and kept here so that a change of
// the rules shows.
var gamePerftTables = []struct {
	variant string
	pos     string
	quick   int
	want    []uint64
}{
	{"othello", "", 7, []uint64{4, 12, 56, 244, 1396, 8200, 55092, 390216, 3005288}},
	{"breakthrough", "", 4, []uint64{22, 484, 11132, 256036, 6182818}},
	{"canadian", "", 4, []uint64{11, 121, 1222, 10053, 79049}},
	{"pool", "", 6, []uint64{7, 49, 302, 1469, 7482, 37986, 190146}},
	{"czech", "", 6, []uint64{7, 49, 302, 1469, 7361, 36768, 179740}},
	{"spanish", "", 6, []uint64{7, 49, 302, 1469, 7361, 36473, 177532}},
	{"italian", "", 6, []uint64{7, 49, 302, 1469, 7361, 36473, 177532}},
	{"thai", "", 4, []uint64{7, 49, 392, 3136, 26592}},
	{"armenian", "", 3, []uint64{22, 484, 12174, 268670, 6280482}},
	// Atari Go: 81·80·79 placements to depth 3; at depth 4, 81·80·79·78
	// less 624 White suicides (a corner whose two neighbours Black holds,
	// 4 corners × 2 orders × 78 places of White's first stone) and less
	// the 624 leaves below the 8 games Black has already won at ply 3 (a
	// White stone in a corner taken by Black's two stones).
	{"atarigo", "", 3, []uint64{81, 6480, 511920, 39928512}},
	// Gardner's minichess: the engine's values, which the reference
	// generator of minichess_test.go confirms on random games.
	{"gardner", "", 5, []uint64{7, 53, 506, 4775, 52512, 572874}},
	// Frisian draughts: Rein Halbersma's table (damforum.nl, "Perft for
	// all recognized draughts variants", May 2010); it and the published
	// tables of the other draughts are in draughts_published_test.go.
	{"frisian", "", 5, []uint64{9, 81, 658, 3874, 21265, 102431}},
}

func TestGamePerft(t *testing.T) {
	for _, tc := range gamePerftTables {
		t.Run(tc.variant, func(t *testing.T) {
			t.Parallel()
			checkPerft(t, tc.variant, tc.pos, tc.quick, tc.want)
		})
	}
}

// The rule positions: each checks one rule of a variant's rule book (the
// sources are in each variant's documentation).

func TestOthelloRules(t *testing.T) {
	g := mustGame(t, "othello")
	if g.ToMove() != Second || g.PlayerName(Second) != "Black" {
		t.Fatalf("Black must move first, got %s", g.PlayerName(g.ToMove()))
	}
	checkMoves(t, g, "c4", "d3", "e6", "f5")
	mustPlay(t, g, "d3")
	if pc := g.State().Board[3*8+3]; pc.Owner() != Second {
		t.Errorf("d4 not flipped by d3")
	}
	checkMoves(t, g, "c3", "c5", "e3")

	// A placement flips every bracketed run, in every direction.
	g = mustGame(t, "othello", WithPosition("8/8/8/8/8/8/1bbb4/w1w1w3 w"))
	mustPlay(t, g, "c3")
	s := g.State()
	if n := discs(&s); n[First] != 7 || n[Second] != 0 {
		t.Errorf("after c3 discs %v, want 7 white 0 black\n%s", n, g.Diagram(First))
	}

	// A side without a placement passes; when neither can place, the side
	// with more discs wins.
	g = mustGame(t, "othello", WithPosition("8/8/8/8/8/8/8/bw6 w"))
	checkMoves(t, g, "pass")
	mustPlay(t, g, "pass")
	checkMoves(t, g, "c1")
	mustPlay(t, g, "c1")
	if st := g.Status(); st.Result != Win || st.Winner != Second || st.Rule != RuleMoreDiscs {
		t.Errorf("status %+v, want Black wins on discs", st)
	}
	// Equal discs draw.
	g = mustGame(t, "othello", WithPosition("8/8/8/8/8/8/8/b6w b"))
	if st := g.Status(); st.Result != Draw || st.Rule != RuleMoreDiscs {
		t.Errorf("status %+v, want a draw", st)
	}
	// The keyboard offers the pass as a square to tap.
	g = mustGame(t, "othello", WithPosition("8/8/8/8/8/8/8/bw6 w"))
	si, err := g.Steps(nil)
	if err != nil || len(si.Next) != 1 || si.Next[0] != "pass" {
		t.Fatalf("Steps = %+v, %v", si, err)
	}
	if si, _ = g.Steps([]string{"pass"}); func() bool { _, ok := si.Done(); return !ok }() {
		t.Errorf("tapping pass does not complete the move: %+v", si)
	}
	for _, bad := range []string{"8/8/8 w", "9/8/8/8/8/8/8/8 w", "8/8/8/8/8/8/8/8 x", "8/8/8/8/8/8/8/7q w"} {
		if _, err := NewGame("othello", WithPosition(bad)); err == nil {
			t.Errorf("position %q accepted", bad)
		}
	}
}

func TestBreakthroughRules(t *testing.T) {
	// Forward and diagonal steps to free squares; captures only diagonally.
	g := mustGame(t, "breakthrough", WithPosition("W:Wd4:Bd5,e5,a8"))
	checkMoves(t, g, "d4-c5", "d4:e5")
	// Reaching the far rank wins at once.
	g = mustGame(t, "breakthrough", WithPosition("W:Wa7,h1:Bc8,h8"))
	mustPlay(t, g, "a7-a8")
	if st := g.Status(); st.Result != Win || st.Winner != First || st.Rule != RuleGoal {
		t.Errorf("status %+v, want White wins by the goal", st)
	}
	if len(g.LegalMoves()) != 0 {
		t.Errorf("moves after the game ended")
	}
	// A side without pieces loses.
	g = mustGame(t, "breakthrough", WithPosition("W:We4:Bf5"))
	mustPlay(t, g, "e4:f5")
	if st := g.Status(); st.Result != Win || st.Winner != First || st.Rule != RuleNoMoves {
		t.Errorf("status %+v, want White wins", st)
	}
}

func TestCanadianRules(t *testing.T) {
	g := mustGame(t, "canadian")
	if len(g.LegalMoves()) != 11 {
		t.Errorf("start: %d moves, want 11", len(g.LegalMoves()))
	}
	// The majority rule, with men capturing backwards: e5 takes d6 and b8
	// (45x19) and may not take f6 alone (45x34).
	g = mustGame(t, "canadian", WithPosition("W:W45:B38,25,39"))
	checkMoves(t, g, "45x19")
}

func TestPoolRules(t *testing.T) {
	g := mustGame(t, "pool")
	if g.ToMove() != Second {
		t.Errorf("Black must move first")
	}
	// A man reaching the king row in a capture jumps on backwards and is
	// not crowned.
	g = mustGame(t, "pool", WithPosition("W:W11:B6,7"))
	checkMoves(t, g, "11x9")
	mustPlay(t, g, "11x9")
	if pc := g.State().Board[8]; pc != makePiece(First, kindMan) {
		t.Errorf("the man on 9 is %v, want an uncrowned man", pc)
	}
	// A man whose capture ends on the king row is crowned.
	g = mustGame(t, "pool", WithPosition("W:W10:B6,20"))
	mustPlay(t, g, "10x1")
	if pc := g.State().Board[0]; pc != makePiece(First, kindKing) {
		t.Errorf("the man on 1 is %v, want a king", pc)
	}
	// No majority rule: the one-piece capture is as legal as the two-piece one.
	g = mustGame(t, "pool", WithPosition("W:W23:B18,9,19"))
	checkMoves(t, g, "23x5", "23x16")
	// Kings fly.
	g = mustGame(t, "pool", WithPosition("W:WK29:B1"))
	if n := len(g.LegalMoves()); n != 7 {
		t.Errorf("a king on 29 has %d moves, want 7", n)
	}
}

func TestCzechRules(t *testing.T) {
	// When a king can capture, a man may not.
	g := mustGame(t, "czech", WithPosition("W:Wc3,Kh2:Bd4,f4,h8"))
	checkMoves(t, g, "h2:e5", "h2:d6", "h2:c7", "h2:b8")
	// Men capture forwards only.
	g = mustGame(t, "czech", WithPosition("W:Wd4:Bc3,h8"))
	checkMoves(t, g, "d4-c5", "d4-e5")
}

func TestSpanishRules(t *testing.T) {
	// The played squares are h1's: b1, d1, f1, h1 on the first rank.
	g := mustGame(t, "spanish")
	for _, sq := range []string{"b1", "d1", "f1", "h1", "a2", "g2"} {
		if si, ok := g.r.topo.square(sq); !ok || g.State().Board[si] != makePiece(First, kindMan) {
			t.Errorf("no White man on %s", sq)
		}
	}
	// The quality rule: between captures of one piece, take the king.
	g = mustGame(t, "spanish", WithPosition("W:We2:Bd3,Kf3"))
	checkMoves(t, g, "e2:g4")
	// The quantity rule comes first.
	g = mustGame(t, "spanish", WithPosition("W:We2:Bd3,b5,Kf3"))
	checkMoves(t, g, "e2:c4:a6")
}

func TestItalianRules(t *testing.T) {
	// Men may not capture kings.
	g := mustGame(t, "italian", WithPosition("W:We2:Bd3,Kf3"))
	checkMoves(t, g, "e2:c4")
	// Between captures of as many pieces, the king must capture.
	g = mustGame(t, "italian", WithPosition("W:WKb1,g2:Bc2,f3"))
	checkMoves(t, g, "b1:d3")
	// Kings do not fly.
	g = mustGame(t, "italian", WithPosition("W:WKd3:Bg8"))
	checkMoves(t, g, "d3-c2", "d3-c4", "d3-e2", "d3-e4")
	// Among equal captures by kings, the one taking more kings.
	g = mustGame(t, "italian", WithPosition("W:WKd1:Bc2,Ke2"))
	checkMoves(t, g, "d1:f3")
	// Then the one taking a king first: d1 takes the king on e2, then the
	// man on g4 (d1:f3:h5), rather than the man on c2, then the king on c4
	// (d1:b3:d5).
	g = mustGame(t, "italian", WithPosition("W:WKd1:Bc2,Ke2,Kc4,g4"))
	checkMoves(t, g, "d1:f3:h5")
	// A man reaching the last rank is crowned and the move ends.
	g = mustGame(t, "italian", WithPosition("W:Wa6:Bb7,h3"))
	mustPlay(t, g, "a6:c8")
	if sq, _ := g.r.topo.square("c8"); g.State().Board[sq] != makePiece(First, kindKing) {
		t.Errorf("not crowned on c8")
	}
}

func TestThaiRules(t *testing.T) {
	g := mustGame(t, "thai")
	if g.Position() != "W:Wa1,c1,e1,g1,b2,d2,f2,h2:Ba7,c7,e7,g7,b8,d8,f8,h8" {
		t.Errorf("start %s", g.Position())
	}
	// A king lands right behind the piece it takes and goes on from there.
	g = mustGame(t, "thai", WithPosition("W:WKa1:Bc3,e5,h8"))
	checkMoves(t, g, "a1:d4:f6")
	// Men capture forwards only.
	g = mustGame(t, "thai", WithPosition("W:Wd4:Bc3,h8"))
	checkMoves(t, g, "d4-c5", "d4-e5")
	// Free choice: a one-piece capture is legal beside a two-piece one.
	g = mustGame(t, "thai", WithPosition("W:Wc3,a3:Bd4,f6,b4,h8"))
	checkMoves(t, g, "a3:c5", "c3:a5", "c3:e5:g7")
}

func TestArmenianRules(t *testing.T) {
	g := mustGame(t, "armenian")
	if n := len(g.LegalMoves()); n != 22 {
		t.Errorf("start: %d moves, want 22 (forward, diagonally forward, sideways)", n)
	}
	// Men capture sideways and forwards, never diagonally.
	g = mustGame(t, "armenian", WithPosition("W:Wd4:Be4,e5,a8"))
	checkMoves(t, g, "d4:f4")
	// Kings move like a queen but capture only along ranks and files.
	g = mustGame(t, "armenian", WithPosition("W:WKd4:Bh8"))
	if ms := g.LegalMoves(); len(ms) != 26 || ms[0].Captures() != 0 {
		t.Errorf("a king on d4: %v", notations(g))
	}
	// The most pieces must be taken: d4 takes d5, then c6 or e6, not
	// the lone man on c4.
	g = mustGame(t, "armenian", WithPosition("W:Wd4:Bd5,c6,e6,c4,a8"))
	checkMoves(t, g, "d4:d6:b6", "d4:d6:f6")
}

func TestAtariGoRules(t *testing.T) {
	g := mustGame(t, "atarigo")
	if g.ToMove() != Second || len(g.LegalMoves()) != 81 {
		t.Fatalf("Black must start with 81 placements")
	}
	// The first capture wins.
	g = mustGame(t, "atarigo", WithPosition("9/9/9/9/9/9/9/9/bw7 w"))
	mustPlay(t, g, "a2")
	if st := g.Status(); st.Result != Win || st.Winner != First || st.Rule != RuleFirstCapture {
		t.Errorf("status %+v, want White wins by the first capture", st)
	}
	if g.State().Board[0] != 0 {
		t.Errorf("the captured stone is still on a1")
	}
	if pos := g.Position(); !strings.HasSuffix(pos, " +") || mustGame(t, "atarigo", WithPosition(pos)).Status().Result != Win {
		t.Errorf("the finished position %q does not load as finished", pos)
	}
	// Suicide is illegal...
	g = mustGame(t, "atarigo", WithPosition("9/9/9/9/9/9/9/w8/1w7 b"))
	if len(g.LegalMoves()) != 78 {
		t.Errorf("%d moves, want 78 (a1 is suicide)", len(g.LegalMoves()))
	}
	if _, err := g.Play("a1"); err == nil {
		t.Errorf("suicide on a1 accepted")
	}
	// ...unless the stone captures.
	g = mustGame(t, "atarigo", WithPosition("9/9/9/9/9/9/9/wb7/1wb6 b"))
	mustPlay(t, g, "a1")
	if st := g.Status(); st.Result != Win || st.Winner != Second {
		t.Errorf("status %+v, want Black wins", st)
	}
	// A side whose every placement is suicide passes.
	full := strings.Repeat("wwwwwwwww/", 8)
	g = mustGame(t, "atarigo", WithPosition(full+"1w1wwwwww b"))
	checkMoves(t, g, "pass")
	mustPlay(t, g, "pass")
	checkMoves(t, g, "a1", "c1")
}

// TestAtariGoLiberties plays random games and checks after every move
// that no group is left without a liberty unless the move captured, by a
// flood fill written for the test.
func TestAtariGoLiberties(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 8))
	for i := 0; i < 30; i++ {
		g := mustGame(t, "atarigo")
		for g.Status().Result == Ongoing {
			ms := g.LegalMoves()
			m := ms[rng.IntN(len(ms))]
			mustPlay(t, g, m.String())
			s := g.State()
			for sq := 0; sq < 81; sq++ {
				if s.Board[sq] == 0 {
					continue
				}
				seen := map[int]bool{sq: true}
				stack, libs := []int{sq}, 0
				for len(stack) > 0 {
					p := stack[len(stack)-1]
					stack = stack[:len(stack)-1]
					c, r := p%9, p/9
					for _, d := range [][2]int{{0, 1}, {1, 0}, {0, -1}, {-1, 0}} {
						x, y := c+d[0], r+d[1]
						if x < 0 || x > 8 || y < 0 || y > 8 {
							continue
						}
						q := y*9 + x
						if s.Board[q] == 0 {
							libs++
						} else if s.Board[q] == s.Board[sq] && !seen[q] {
							seen[q] = true
							stack = append(stack, q)
						}
					}
				}
				if libs == 0 {
					t.Fatalf("after %v a group on %s has no liberty", g.History(), g.r.topo.names[sq])
				}
			}
			if m.isCapture() != (g.Status().Rule == RuleFirstCapture) {
				t.Fatalf("%v: capture %v, status %+v", m, m.isCapture(), g.Status())
			}
		}
	}
}

// newGames are the games added as descriptions and Othello.
var newGames = []string{"othello", "breakthrough", "canadian", "pool", "czech", "spanish", "italian", "thai", "armenian", "atarigo", "gardner", "chess960", "frisian"}

// TestAIBeatsRandom plays the AI at the bot's easy level (2,000 nodes)
// against random moves, on both sides: the AI must win nearly every game
// (all but one in four) and never play an illegal move. By default one
// game a side, both to be won; with -deep, 20 games per game; the figures
// are logged (go test ./engine -run AIBeatsRandom -deep -v).
func TestAIBeatsRandom(t *testing.T) {
	games := 2
	if *deep {
		games = 20
	}
	for vi, v := range newGames {
		t.Run(v, func(t *testing.T) {
			t.Parallel()
			rng := rand.New(rand.NewPCG(uint64(vi), 99))
			wins, draws := 0, 0
			for i := 0; i < games; i++ {
				ai := Player(i % 2)
				g := mustGame(t, v, WithSeed(uint64(i+1)))
				for g.Status().Result == Ongoing {
					var m Move
					if g.ToMove() == ai {
						var err error
						m, _, err = g.BestMove(context.Background(), Limits{Nodes: 2_000})
						if err != nil {
							t.Fatal(err)
						}
					} else {
						ms := g.LegalMoves()
						m = ms[rng.IntN(len(ms))]
					}
					if err := g.Apply(m); err != nil {
						t.Fatalf("%v: %v", m, err)
					}
				}
				switch st := g.Status(); {
				case st.Result == Win && st.Winner == ai:
					wins++
				case st.Result == Draw:
					draws++
				}
			}
			t.Logf("%s: the AI won %d of %d games against random play, %d draws", v, wins, games, draws)
			if wins < games-games/4 {
				t.Errorf("the AI won only %d of %d games", wins, games)
			}
		})
	}
}
