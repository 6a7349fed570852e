package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/questbot/questbot/engine"
)

// asUCIEnv makes the test binary a UCI chess engine (fakeUCI), standing in for Stockfish.
const asUCIEnv = "QUESTBOT_TEST_RUN_AS_UCI"

// fakeUCI is a UCI engine that answers the commands the strength command sends and plays the
// first legal move of each position, and counts perft as Stockfish does (the perftcmp command's
// test), with the engine's own perft. It records the options it was given on stderr.
func fakeUCI(in io.Reader, out io.Writer) int {
	sc := bufio.NewScanner(in)
	var g *engine.Game
	for sc.Scan() {
		line := sc.Text()
		switch f := strings.Fields(line); {
		case line == "uci":
			fmt.Fprintln(out, "id name fake\nuciok")
		case line == "isready":
			fmt.Fprintln(out, "readyok")
		case strings.HasPrefix(line, "setoption"):
			fmt.Fprintln(os.Stderr, line)
		case len(f) >= 2 && f[0] == "position" && f[1] == "startpos":
			g, _ = engine.NewGame("chess")
			for _, m := range f[min(3, len(f)):] {
				if _, err := g.Play(m); err != nil {
					fmt.Fprintln(out, "info string illegal", m)
					return 1
				}
			}
		case len(f) >= 3 && f[0] == "position" && f[1] == "fen":
			fen, _, _ := strings.Cut(strings.Join(f[2:], " "), " moves ")
			var err error
			if g, err = engine.NewGame("chess", engine.WithPosition(fen)); err != nil {
				fmt.Fprintln(out, "info string", err)
				return 1
			}
		case len(f) == 3 && f[0] == "go" && f[1] == "perft":
			d, err := strconv.Atoi(f[2])
			if err != nil {
				return 1
			}
			fmt.Fprintf(out, "\nNodes searched: %d\n\n", g.Perft(d))
		case len(f) >= 1 && f[0] == "go":
			legal := g.LegalMoves()
			if len(legal) == 0 {
				fmt.Fprintln(out, "bestmove (none)")
				continue
			}
			fmt.Fprintln(out, "bestmove", legal[0].String())
		case line == "quit":
			return 0
		}
	}
	return 0
}

// Ensure the ladder is played (rungs against each other, then each level against each rung, in
// pairs with colours swapped) and the ratings are printed, the first rung as the anchor.
func TestStrengthLadder(t *testing.T) {
	var out, errs bytes.Buffer
	code := runStrength(context.Background(), []string{"-game", "russian", "-levels", "easy", "-pairs", "1", "-depths", "1,2"}, &out, &errs)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs.String())
	}
	games := regexp.MustCompile(`(?m)^\S+ v \S+, \S+ moving first: \S+ (wins|loses|draws) \(`).FindAllString(out.String(), -1)
	if len(games) != 6 {
		t.Errorf("%d games, want 6 (a pair between the rungs, a pair per rung for the level):\n%s", len(games), out.String())
	}
	for _, want := range []string{"russian: ratings from 6 games", "depth-1 1000 (anchor)", "  easy "} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("no %q in:\n%s", want, out.String())
		}
	}
}

// Ensure a level given a window of depths plays only those rungs, that a run without levels
// plays the rungs alone, and that -refit rates a run's log as the run did.
func TestStrengthLadderWindows(t *testing.T) {
	var out, errs bytes.Buffer
	code := runStrength(context.Background(), []string{"-game", "english", "-levels", "easy:2", "-pairs", "1", "-depths", "1,2,3"}, &out, &errs)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs.String())
	}
	games := regexp.MustCompile(`(?m)^(\S+ v \S+), \S+ moving first`).FindAllStringSubmatch(out.String(), -1)
	var got []string
	for _, g := range games {
		got = append(got, g[1])
	}
	want := "[depth-2 v depth-1 depth-2 v depth-1 depth-3 v depth-2 depth-3 v depth-2 easy v depth-2 easy v depth-2]"
	if fmt.Sprint(got) != want {
		t.Errorf("games %v, want %s", got, want)
	}
	log := filepath.Join(t.TempDir(), "run.txt")
	if err := os.WriteFile(log, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	var again bytes.Buffer
	if code := runStrength(context.Background(), []string{"-refit", log}, &again, &errs); code != 0 {
		t.Fatalf("refit: exit %d: %s", code, errs.String())
	}
	ratings := func(s string) string { return s[strings.Index(s, "ratings from"):strings.Index(s, "time a move")] }
	if r := ratings(out.String()); !strings.HasSuffix(again.String(), r[strings.Index(r, "\n"):]) {
		t.Errorf("refit gives\n%s\nthe run gave\n%s", again.String(), r)
	}

	out.Reset()
	code = runStrength(context.Background(), []string{"-game", "english", "-levels", "", "-pairs", "1", "-depths", "2,3"}, &out, &errs)
	if code != 0 {
		t.Fatalf("rungs only: exit %d: %s", code, errs.String())
	}
	if n := strings.Count(out.String(), " moving first: "); n != 2 || !strings.Contains(out.String(), "depth-2, is held at 1000") {
		t.Errorf("rungs only from depth 2: %d games, want 2, and a word on the anchor:\n%s", n, out.String())
	}
}

// Ensure the openings of a run are all different positions, and that the run says so when it
// runs out of them (Othello has four first moves).
func TestOpeningsDistinct(t *testing.T) {
	m := &match{game: "othello", rng: rand.New(rand.NewPCG(1, 0)), openingPlies: 1, balance: defaultBalance, seen: map[string]bool{}}
	seen := map[string]bool{}
	for range 4 {
		o, err := m.opening(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if seen[o[0]] {
			t.Errorf("opening %v twice", o)
		}
		seen[o[0]] = true
	}
	if _, err := m.opening(context.Background()); err == nil || !strings.Contains(err.Error(), "no new opening") {
		t.Errorf("a fifth opening of one ply: %v", err)
	}
}

// Ensure an opening is kept only when a search judges it within the balance of level: in
// Russian draughts, with four random plies, some give a man away, and none of those is drawn.
func TestOpeningsBalanced(t *testing.T) {
	const balance = 30
	judge := func(o []string) int {
		t.Helper()
		g, _ := engine.NewGame("russian")
		for _, mv := range o {
			if _, err := g.Play(mv); err != nil {
				t.Fatal(err)
			}
		}
		_, info, err := g.BestMove(context.Background(), engine.Limits{Depth: balanceDepth, Nodes: 1 << 40, Algorithm: engine.AlphaBeta})
		if err != nil {
			t.Fatal(err)
		}
		return info.Score
	}
	// Without the balance (any judgement passes), some random openings are lopsided.
	lopsided := 0
	m := &match{game: "russian", rng: rand.New(rand.NewPCG(3, 0)), openingPlies: 4, balance: 1 << 30, seen: map[string]bool{}}
	for range 40 {
		o, err := m.opening(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if s := judge(o); s > balance || s < -balance {
			lopsided++
		}
	}
	if lopsided == 0 {
		t.Fatal("no lopsided opening among 40 drawn freely: the test proves nothing")
	}
	m = &match{game: "russian", rng: rand.New(rand.NewPCG(3, 0)), openingPlies: 4, balance: balance, seen: map[string]bool{}}
	for range 40 {
		o, err := m.opening(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if s := judge(o); s > balance || s < -balance {
			t.Errorf("opening %v judged %d", o, s)
		}
	}
}

// Ensure chess is played against a UCI engine set to each Elo (here this binary as a stand-in
// for Stockfish, playing the first legal move), whose ratings anchor the estimate.
func TestStrengthUCI(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(asUCIEnv, "1")
	var out, errs bytes.Buffer
	code := runStrength(context.Background(), []string{"-game", "chess", "-levels", "easy", "-pairs", "1",
		"-elo", "1350,1500", "-movetime", "10ms", "-stockfish", self}, &out, &errs)
	if code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, errs.String(), out.String())
	}
	for _, want := range []string{"chess: ratings from 4 games", "stockfish-1350 1350 (anchor)", "stockfish-1500 1500 (anchor)",
		"easy v stockfish-1350, stockfish-1350 moving first"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("no %q in:\n%s", want, out.String())
		}
	}
}

// Ensure a run interrupted (its context cancelled) stops with an error and scores no game it
// did not finish: the searches, cut short, would have played on with moves no level plays.
func TestStrengthInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out, errs bytes.Buffer
	code := runStrength(ctx, []string{"-game", "russian", "-levels", "easy", "-pairs", "1", "-depths", "1,2"}, &out, &errs)
	if code != 1 || !strings.Contains(errs.String(), context.Canceled.Error()) {
		t.Errorf("exit %d, stderr %q, want 1 and the cancellation", code, errs.String())
	}
	if strings.Contains(out.String(), " moving first: ") {
		t.Errorf("a game scored after the interruption:\n%s", out.String())
	}
}

// Ensure -versus plays each level against node-limited searches, the first of them the anchor
// at 0, and names the refined search apart.
func TestStrengthVersus(t *testing.T) {
	var out, errs bytes.Buffer
	code := runStrength(context.Background(), []string{"-game", "chess", "-levels", "easy", "-pairs", "1",
		"-versus", "300,500+refine"}, &out, &errs)
	if code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, errs.String(), out.String())
	}
	for _, want := range []string{"chess: ratings from 4 games", "nodes-300 0 (anchor)", "  nodes-500+refine ",
		"easy v nodes-300, nodes-300 moving first", "easy v nodes-500+refine, easy moving first"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("no %q in:\n%s", want, out.String())
		}
	}
}

// Ensure bad command lines are refused before anything is played.
func TestStrengthUsage(t *testing.T) {
	for _, args := range [][]string{{"-game", "nogame"}, {"-levels", "godlike"}, {"-pairs", "0"}, {"extra"},
		{"-levels", "easy,easy"}, {"-levels", "easy:3-2"}, {"-levels", "easy:0"}, {"-levels", "easy:x"}, {"-levels", ""},
		{"-rung-pairs", "-1"}, {"-opening", "-1"}, {"-opening", "41"}, {"-balance", "0"},
		{"-game", "russian", "-depths", "1"}, {"-game", "russian", "-depths", "2,1"}, {"-game", "russian", "-depths", "1,1"},
		{"-game", "russian", "-depths", "0,1"}, {"-game", "russian", "-depths", "1,99"}, {"-game", "russian", "-depths", ""},
		{"-game", "russian", "-depths", "1,2", "-levels", "easy:3-4"},
		{"-versus", "many"}, {"-versus", "0"}, {"-versus", "400000,"}, {"-versus", "400000+deep"}} {
		var out, errs bytes.Buffer
		if code := runStrength(context.Background(), args, &out, &errs); code != 2 || errs.Len() == 0 {
			t.Errorf("%v: exit %d, stderr %q", args, code, errs.String())
		}
	}
}
