package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Ensure the terminal player shows the task, takes numbered choices, refuses a number that is
// not a choice and plays a seeded game to its end.
func TestPlay(t *testing.T) {
	file := filepath.Join("..", "..", "uploads", "cargo-run_en.qmm")
	now := time.Date(2024, 1, 1, 12, 0, 0, 0, time.UTC)
	// Accept the task, try a number that is not a choice, quit.
	var out, errOut bytes.Buffer
	in := strings.NewReader("1\n9\nq\n")
	code := play(context.Background(), []string{file, "-seed", "someseed", "-lang", "en"}, in, &out, &errOut, now)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out.String(), errOut.String())
	}
	got := out.String()
	for _, want := range []string{"cargo-run_en.qmm, seed someseed", "1. I agree", "type a choice number"} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "<clr>") {
		t.Errorf("markup left in the output:\n%s", got)
	}
}

// Ensure a game played to its end stops by itself with its result.
func TestPlayToTheEnd(t *testing.T) {
	file := filepath.Join("..", "..", "uploads", "cargo-run_en.qmm")
	now := time.Date(2024, 1, 1, 12, 0, 0, 0, time.UTC)
	// Always taking the first choice ends the game within a few dozen steps.
	in := strings.NewReader(strings.Repeat("1\n", 200))
	var out, errOut bytes.Buffer
	code := play(context.Background(), []string{"-seed", "someseed", file}, in, &out, &errOut, now)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out.String(), errOut.String())
	}
	if !strings.Contains(out.String(), "*** ") {
		t.Fatalf("no end of game:\n%s", out.String())
	}
}

// Ensure bad arguments are usage errors.
func TestPlayUsage(t *testing.T) {
	for _, args := range [][]string{nil, {"a.qmm", "b.qmm"}, {"a.qmm", "-lang", "fr"}} {
		var out, errOut bytes.Buffer
		if code := play(context.Background(), args, strings.NewReader(""), &out, &errOut, time.Now()); code != 2 {
			t.Errorf("%q: exit %d, want 2", args, code)
		}
	}
}

// Ensure plainText removes the player's markup and keeps other angle brackets.
func TestPlainText(t *testing.T) {
	cases := []struct{ in, want string }{
		{"a <clr>5<clrEnd> b", "a 5 b"},
		{"<fix>x</fix><br>y", "x\ny"},
		{"<format=left,10>t</format>", "t"},
		{"1 < 2 and <3> stay", "1 < 2 and <3> stay"},
		{"line\r\nnext", "line\nnext"},
		{"open <", "open <"},
	}
	for _, c := range cases {
		if got := plainText(c.in); got != c.want {
			t.Errorf("plainText(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
