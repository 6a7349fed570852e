package main

import (
	"bytes"
	"context"
	"os"
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

// Ensure the player's language, without -lang, is the quest's own: English for a quest written in
// English whatever its file is called, and for files named *_en.* or *_eng.*; Russian for a quest
// written in Russian. -lang still decides when given.
func TestPlayLanguage(t *testing.T) {
	t.Parallel()
	en, err := os.ReadFile(filepath.Join("..", "..", "uploads", "cargo-run_en.qmm"))
	if err != nil {
		t.Fatal(err)
	}
	ru, err := os.ReadFile(filepath.Join("..", "..", "uploads", "cargo-run_ru.qmm"))
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2024, 1, 1, 12, 0, 0, 0, time.UTC)
	const english, russian = "1. I agree", "1. Я берусь за это задание"
	for _, c := range []struct {
		name string
		data []byte
		args []string
		want string
	}{
		{"cargo-run_en.qmm", en, nil, english},
		{"cargo.qmm", en, nil, english},
		{"cargo_eng.qmm", en, nil, english},
		{"cargo_ru.qmm", ru, nil, russian},
		{"груз.qmm", ru, nil, russian},
		{"cargo_en.qmm", ru, nil, english},
		{"cargo_EN.QMM", ru, nil, english},
		{"cargo-run_en.qmm", en, []string{"-lang", "ru"}, russian},
		{"cargo.qmm", ru, []string{"-lang", "en"}, english},
	} {
		t.Run(c.name+strings.Join(c.args, ""), func(t *testing.T) {
			t.Parallel()
			file := filepath.Join(t.TempDir(), c.name)
			if err := os.WriteFile(file, c.data, 0o644); err != nil {
				t.Fatal(err)
			}
			var out, errOut bytes.Buffer
			code := play(context.Background(), append([]string{file, "-seed", "s"}, c.args...), strings.NewReader("q\n"), &out, &errOut, now)
			if code != 0 {
				t.Fatalf("exit %d\n%s", code, &errOut)
			}
			if !strings.Contains(out.String(), c.want) {
				t.Errorf("the first screen lacks %q:\n%s", c.want, &out)
			}
		})
	}
}
