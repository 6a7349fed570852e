package main

import (
	"bytes"
	"context"
	"os"
	"regexp"
	"strings"
	"testing"
)

// Ensure the comparison counts both positions on both sides (here this binary as the stand-in
// for Stockfish, counting with the engine's perft) and prints a row for each with the published
// count, both rates and the ratio.
func TestPerftcmp(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(asUCIEnv, "1")
	var out, errs bytes.Buffer
	code := runPerftcmp(context.Background(), []string{"-start", "4", "-kiwipete", "3", "-runs", "2", "-stockfish", self}, &out, &errs)
	if code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, errs.String(), out.String())
	}
	if !strings.HasPrefix(out.String(), "perft, the fastest of 2 runs in user CPU time") {
		t.Errorf("no heading in:\n%s", out.String())
	}
	for _, row := range []string{`start +4 +197281`, `kiwipete +3 +97862`} {
		re := regexp.MustCompile(`(?m)^` + row + ` +\d+\.\d{3}s +(\d+\.\d|-) +\d+\.\d{3}s +(\d+\.\d|-) +(\d+\.\d\d|-)$`)
		if !re.MatchString(out.String()) {
			t.Errorf("no row %q in:\n%s", row, out.String())
		}
	}
}

// Ensure a position left out (depth 0) prints no row.
func TestPerftcmpLeavesOut(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(asUCIEnv, "1")
	var out, errs bytes.Buffer
	code := runPerftcmp(context.Background(), []string{"-start", "0", "-kiwipete", "2", "-runs", "1", "-stockfish", self}, &out, &errs)
	if code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, errs.String(), out.String())
	}
	if strings.Contains(out.String(), "\nstart ") || !strings.Contains(out.String(), "\nkiwipete      2        2039 ") {
		t.Errorf("want only the kiwipete row in:\n%s", out.String())
	}
}

// Ensure a UCI engine's perft count is read from its "Nodes searched" line, past the root moves'
// lines, and that an engine that ends without one, or with a count that is no number, is an error.
func TestReadPerftNodes(t *testing.T) {
	n, err := readPerftNodes(strings.NewReader("info string NNUE\na2a3: 380\nb2b3: 420\n\nNodes searched: 8902\n\n"))
	if err != nil || n != 8902 {
		t.Errorf("got %d, %v; want 8902", n, err)
	}
	for _, text := range []string{"a2a3: 380\n", "Nodes searched: many\n"} {
		if n, err := readPerftNodes(strings.NewReader(text)); err == nil {
			t.Errorf("%q: got %d, want an error", text, n)
		}
	}
}

// Ensure the fastest run counts, and runs that count different leaves are an error.
func TestBestRun(t *testing.T) {
	runs := []perftRun{{100, 30}, {100, 20}, {100, 25}}
	i := 0
	best, err := bestRun(3, func() (perftRun, error) { i++; return runs[i-1], nil })
	if err != nil || best != runs[1] {
		t.Errorf("got %v, %v; want %v", best, err, runs[1])
	}
	runs[2].nodes = 99
	i = 0
	if best, err := bestRun(3, func() (perftRun, error) { i++; return runs[i-1], nil }); err == nil {
		t.Errorf("got %v, want an error for runs that disagree", best)
	}
}

// Ensure the flags are checked before anything is counted.
func TestPerftcmpUsage(t *testing.T) {
	for _, c := range []cliCase{
		{args: []string{"perftcmp", "-h"}, stdoutHas: "usage: questbot perftcmp"},
		{args: []string{"perftcmp", "extra"}, code: 2,
			stderr: "questbot perftcmp: unexpected argument \"extra\" (see questbot help perftcmp)\n"},
		{args: []string{"perftcmp", "-start", "8"}, code: 2,
			stderr: "questbot perftcmp: -start must be a depth from 0 to 7, not 8 (see questbot help perftcmp)\n"},
		{args: []string{"perftcmp", "-kiwipete", "-1"}, code: 2,
			stderr: "questbot perftcmp: -kiwipete must be a depth from 0 to 6, not -1 (see questbot help perftcmp)\n"},
		{args: []string{"perftcmp", "-runs", "0"}, code: 2,
			stderr: "questbot perftcmp: -runs must be 1 or more, not 0 (see questbot help perftcmp)\n"},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) { c.check(t) })
	}
}
