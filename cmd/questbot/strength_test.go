package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/questbot/questbot/engine"
)

// asUCIEnv makes the test binary a UCI chess engine (fakeUCI), standing in for Stockfish.
const asUCIEnv = "QUESTBOT_TEST_RUN_AS_UCI"

// fakeUCI is a UCI engine that answers the commands the strength command sends and plays the
// first legal move of each position. It records the options it was given on stderr.
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
		{"-versus", "many"}, {"-versus", "0"}, {"-versus", "400000,"}, {"-versus", "400000+deep"}} {
		var out, errs bytes.Buffer
		if code := runStrength(context.Background(), args, &out, &errs); code != 2 || errs.Len() == 0 {
			t.Errorf("%v: exit %d, stderr %q", args, code, errs.String())
		}
	}
}
