package engine

import (
	"fmt"
	"testing"
)

// playQuiet plays n plies of quiet moves: no capture, no crowning, no move
// after which the opponent could capture, and no position seen twice
// before (new positions first).
// With preferMen a man moves whenever the reversible-move clock passes
// 20 plies (so that the king-moves rule stays out of the way); otherwise
// kings move when they can. It stops the test if no such move exists.
func playQuiet(t *testing.T, g *Game, n int, preferMen bool) {
	t.Helper()
	if msg := tryQuiet(g, n, preferMen); msg != "" {
		t.Fatal(msg)
	}
}

// tryQuiet is playQuiet reporting a failure as a message.
func tryQuiet(g *Game, n int, preferMen bool) string {
	seen := map[uint64]int{}
	for _, s := range g.hist {
		seen[s.Hash]++
	}
	c := g.r.newCtx()
	for i := 0; i < n; i++ {
		if st := g.Status(); st.Result != Ongoing {
			return fmt.Sprintf("game ended after %d of %d quiet plies: %+v\n%s", i, n, st, g.Diagram(First))
		}
		s := g.State()
		var pick *Move
		var pickMan bool
		pickSeen := 0
		for _, m := range g.LegalMoves() {
			if m.isCapture() || m.m.flags&flagPromotion != 0 {
				continue
			}
			child := s
			g.r.apply(&child, &m.m)
			if seen[child.Hash] > 1 {
				continue
			}
			threat := false
			for _, reply := range g.r.generate(&child, c, nil) {
				if reply.ncap > 0 {
					threat = true
					break
				}
			}
			if threat {
				continue
			}
			man := s.Board[m.m.from()].Kind() == kindMan
			wantMan := preferMen && s.Clock >= 20
			better := pick == nil || seen[child.Hash] < pickSeen ||
				seen[child.Hash] == pickSeen && man == wantMan && pickMan != wantMan
			if better {
				mm := m
				pick, pickMan, pickSeen = &mm, man, seen[child.Hash]
			}
		}
		if pick == nil {
			return fmt.Sprintf("no quiet move after %d plies\n%s", i, g.Diagram(First))
		}
		if err := g.Apply(*pick); err != nil {
			return err.Error()
		}
		seen[g.State().Hash]++
	}
	return ""
}

// checkDrawAt plays quiet plies up to the ply before the rule must act,
// checks that the game goes on, plays one more and checks the rule.
func checkDrawAt(t *testing.T, g *Game, plies int, preferMen bool, want Rule) {
	t.Helper()
	playQuiet(t, g, plies-1, preferMen)
	if st := g.Status(); st.Result != Ongoing {
		t.Fatalf("after %d plies: %+v, want the game to go on", plies-1, st)
	}
	playQuiet(t, g, 1, preferMen)
	if st := g.Status(); st.Result != Draw || st.Rule != want {
		t.Errorf("after %d plies: %+v, want a draw by %v\n%s", plies, st, want, g.Diagram(First))
	}
}

func TestRussianThreeKingsRule(t *testing.T) {
	// Three kings against one: drawn when White's 15th move has not
	// taken the king (29 plies with White to move first), before the
	// 15-move king rule (30 plies) would act.
	g := mustGame(t, "russian", WithPosition("W:WKa1,Kc1,Ke1:BKh2"))
	checkDrawAt(t, g, 29, false, RuleThreeKings)
}

func TestRussianKingMovesRule(t *testing.T) {
	// One king each: only the 15-move king rule applies (30 plies).
	g := mustGame(t, "russian", WithPosition("W:WKa1:BKh2"))
	checkDrawAt(t, g, 30, false, RuleKingMoves)
}

func TestRussianBalanceRule(t *testing.T) {
	// Five pieces, kings on both sides, men moving now and then: drawn
	// after 30 moves each (60 plies) without a capture or a crowning.
	g := mustGame(t, "russian", WithPosition("W:WKg1,a1,c1:BKb8,h6"))
	checkDrawAt(t, g, 60, true, RuleBalance)
	// Seven pieces: 60 moves each.
	g = mustGame(t, "russian", WithPosition("W:WKh2,a1,c1,e1:BKa7,f8,h8"))
	checkDrawAt(t, g, 120, true, RuleBalance)
}

func TestFMJDSixteenMoveRule(t *testing.T) {
	// Three kings against a lone king: 16 moves each (32 plies).
	g := mustGame(t, "international", WithPosition("W:WK46,K47,K48:BK3"))
	checkDrawAt(t, g, 32, false, RuleSixteenMoves)
	// Two kings and a man: the same rule.
	g = mustGame(t, "international", WithPosition("W:WK46,K47,40:BK3"))
	checkDrawAt(t, g, 32, false, RuleSixteenMoves)
}

func TestFMJDFiveMoveRule(t *testing.T) {
	// Two kings against a lone king: 5 moves each (10 plies).
	g := mustGame(t, "international", WithPosition("W:WK46,K48:BK3"))
	checkDrawAt(t, g, 10, false, RuleFiveMoves)
	// The same rule in Brazilian draughts, king against king.
	g = mustGame(t, "brazilian", WithPosition("W:WKa1:BKh2"))
	checkDrawAt(t, g, 10, false, RuleFiveMoves)
}

// TestCanadianDraws: Canadian draughts draw as International draughts do
// (FMJD article 6), on its 12x12 board.
func TestCanadianDraws(t *testing.T) {
	// Three kings against a lone king: 16 moves each (6.4).
	g := mustGame(t, "canadian", WithPosition("W:WK67,K68,K69:BK4"))
	checkDrawAt(t, g, 32, false, RuleSixteenMoves)
	// Two kings and a man: the same.
	g = mustGame(t, "canadian", WithPosition("W:WK67,K68,60:BK4"))
	checkDrawAt(t, g, 32, false, RuleSixteenMoves)
	// Two kings against a lone king: 5 moves each (6.5).
	g = mustGame(t, "canadian", WithPosition("W:WK67,K69:BK4"))
	checkDrawAt(t, g, 10, false, RuleFiveMoves)
	// 25 moves each with only kings moving (6.3).
	g = mustGame(t, "canadian", WithPosition("W:WK67,K68,K69,K70:BK3,K4"))
	checkDrawAt(t, g, 50, false, RuleKingMoves)
}

func TestFMJDKingMovesRule(t *testing.T) {
	// 25 moves each with only kings moving: 50 plies.
	g := mustGame(t, "international", WithPosition("W:WK46,K47,K48,K49:BK3,K4"))
	checkDrawAt(t, g, 50, false, RuleKingMoves)
}

func TestTurkishEndings(t *testing.T) {
	// One king against one king: a draw at once.
	g := mustGame(t, "turkish", WithPosition("W:WKa1:BKh8"))
	if st := g.Status(); st.Result != Draw || st.Rule != RuleLoneKings {
		t.Errorf("king against king: %+v", st)
	}
	// A king against a single man plays on, and the king wins by taking
	// the man.
	g = mustGame(t, "turkish", WithPosition("W:WKa1:Bc5"))
	if st := g.Status(); st.Result != Ongoing {
		t.Errorf("king against a man: %+v, want the game to go on", st)
	}
	mustPlay(t, g, "a1-a5")
	mustPlay(t, g, "c5-b5")
	mustPlay(t, g, "a5:c5")
	if st := g.Status(); st.Result != Win || st.Winner != First || st.Rule != RuleNoMoves {
		t.Errorf("after taking the man: %+v", st)
	}
}

func TestChessDeadPositions(t *testing.T) {
	for _, tc := range []struct {
		fen  string
		dead bool
	}{
		{"8/8/4k3/8/8/3K4/8/8 w - - 0 1", true},        // kings only
		{"8/8/4k3/8/8/3K4/8/6N1 w - - 0 1", true},      // a knight
		{"8/8/4k3/8/8/3K4/8/1b6 w - - 0 1", true},      // a bishop
		{"8/8/4k3/8/8/3KB3/8/2B5 w - - 0 1", true},     // two bishops, both dark (c1, e3)
		{"8/8/4kb2/8/8/3K4/8/2B5 w - - 0 1", true},     // bishop against bishop, both dark
		{"8/5b2/4k3/8/8/3K4/8/1B6 b - - 0 1", true},    // bishop against bishop, both light
		{"8/8/4k3/8/8/3K4/8/B1b1B1b1 w - - 0 1", true}, // many bishops of one colour
		{"8/8/4k3/8/8/3K4/8/2B2B2 w - - 0 1", false},   // bishops of both colours (c1, f1)
		{"8/8/4kb2/8/8/3K4/8/3B4 w - - 0 1", false},    // opposite bishops
		{"8/8/4kn2/8/8/3K4/8/2B5 w - - 0 1", false},    // bishop against knight
		{"8/8/4k3/8/8/3K4/8/2N3N1 w - - 0 1", false},   // two knights
		{"8/8/4k3/8/8/3K4/P7/8 w - - 0 1", false},      // a pawn
		{"8/8/4k3/8/8/3K4/8/r7 w - - 0 1", false},      // a rook
		{"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", false},
	} {
		st := mustGame(t, "chess", WithPosition(tc.fen)).Status()
		if got := st.Result == Draw && st.Rule == RuleDeadPosition; got != tc.dead {
			t.Errorf("%s: status %+v, dead position %v", tc.fen, st, tc.dead)
		}
	}
}

func TestChessFiftyMoves(t *testing.T) {
	g := mustGame(t, "chess", WithPosition("8/8/4k3/8/8/3K4/8/R7 w - - 99 80"))
	if st := g.Status(); st.Result != Ongoing {
		t.Errorf("after 99 plies: %+v", st)
	}
	mustPlay(t, g, "Ra2")
	if st := g.Status(); st.Result != Draw || st.Rule != RuleFiftyMoves {
		t.Errorf("after 100 plies: %+v, want the fifty-move draw", st)
	}
	// A capture or a pawn move starts the count again.
	g = mustGame(t, "chess", WithPosition("8/8/4k3/8/8/3K4/P7/R7 w - - 99 80"))
	mustPlay(t, g, "a3")
	if st := g.Status(); st.Result != Ongoing {
		t.Errorf("after a pawn move: %+v", st)
	}
}

func TestRuleNames(t *testing.T) {
	seen := map[string]bool{}
	for r := RuleNone; r <= RulePlyLimit; r++ {
		name := r.String()
		if name == "" || name == "unknown" || seen[name] {
			t.Errorf("rule %d has name %q", r, name)
		}
		seen[name] = true
	}
	if Rule(200).String() != "unknown" {
		t.Errorf("Rule(200) = %q", Rule(200))
	}
}

func TestFMJDFiveMovesWithinSixteen(t *testing.T) {
	// A history of 27 positions of three kings against one, then a
	// capture leaves two kings against one: the five-move count starts
	// afresh, but the sixteen moves of article 6.4 still end the game
	// first, 32 plies after the small ending began.
	g := mustGame(t, "international", WithPosition("W:WK46,K47,K48:BK3"))
	load := func(pos string) State {
		s, err := g.r.load(pos)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	three := [2]State{load("W:WK46,K47,K48:BK3"), load("B:WK46,K47,K48:BK3")}
	two := [2]State{load("W:WK46,K47:BK3"), load("B:WK46,K47:BK3")}
	g.hist = g.hist[:0]
	for ply := 0; ply <= 31; ply++ {
		if ply < 27 {
			g.hist = append(g.hist, three[ply%2])
		} else {
			g.hist = append(g.hist, two[ply%2])
		}
	}
	g.moved()
	if st := g.Status(); st.Result != Ongoing {
		t.Fatalf("after 31 plies: %+v", st)
	}
	g.hist = append(g.hist, two[0])
	g.moved()
	if st := g.Status(); st.Rule != RuleSixteenMoves {
		t.Errorf("after 32 plies: %+v, want the sixteen-move draw", st)
	}
}
