package main

import (
	"bytes"
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/questbot/questbot/formula"
	"github.com/questbot/questbot/formula/alea"
)

func TestCalc(t *testing.T) {
	t.Parallel()
	rangeWant, err := formula.Calculate("[1..100] + [p1]", []int{1000}, alea.New("x"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		args      []string
		code      int
		stdout    string
		stderrHas []string // substrings expected on stderr
	}{
		{"OK", []string{"2 + 2 * 2"}, 0, "6\n", nil},
		{"OKJoinedArgs", []string{"2", "+", "2", "*", "2"}, 0, "6\n", nil},
		{"OKRounding", []string{"--", "-2.5"}, 0, "-2\n", nil},
		{"OKParams", []string{"-p", "5, -3,10", "[p1] * [p2] + [p3]"}, 0, "-5\n", nil},
		{"OKSeed", []string{"-seed", "x", "-p", "1000", "[1..100] + [p1]"}, 0, strconv.Itoa(rangeWant) + "\n", nil},
		{"OKDraws", []string{"-seed", "a", "-draws", "2 to 3 to 10"}, 0, "4\n", []string{"random(2) = 0\n", "random(9) = 2\n"}},
		{"OKNegative", []string{"-5+2"}, 0, "-3\n", nil},
		{"ErrSyntax", []string{"2 + (3 * Кек"}, 1, "", []string{"questbot calc: formula: Unknown char К at 9 (after \"2 + (3 * \", at \"Кек\")\n"}},
		{"ErrSyntaxTab", []string{"1\t+ ("}, 1, "", []string{"questbot calc: formula: Expected value at 5 (after \"1\\t+ (\", at the end)\n"}},
		{"ErrUndefinedParam", []string{"-p", "1,2", "[p3]"}, 1, "", []string{"Parameter p3 is not defined"}},
		{"ErrEmptyRange", []string{"[]"}, 1, "", []string{"empty range list"}},
		{"ErrNoFormula", nil, 2, "", []string{"no formula given"}},
		{"ErrBadParams", []string{"-p", "1,x", "1"}, 2, "", []string{`-p: value 2 is "x", not a whole number`}},
		{"ErrBadFlag", []string{"-nope", "1"}, 2, "", []string{"flag provided but not defined"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var stdout, stderr bytes.Buffer
			code := runCalc(context.Background(), tt.args, &stdout, &stderr)
			if code != tt.code {
				t.Errorf("exit code %d, want %d (stderr %q)", code, tt.code, stderr.String())
			}
			if stdout.String() != tt.stdout {
				t.Errorf("stdout %q, want %q", stdout.String(), tt.stdout)
			}
			for _, s := range tt.stderrHas {
				if !strings.Contains(stderr.String(), s) {
					t.Errorf("stderr %q does not contain %q", stderr.String(), s)
				}
			}
		})
	}
}

// TestCalcDefaultSeed checks that the result without -seed is reproducible and documented.
func TestCalcDefaultSeed(t *testing.T) {
	t.Parallel()
	want, err := formula.Calculate("[1..1000000]", nil, alea.New(defaultCalcSeed))
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if code := runCalc(context.Background(), []string{"[1..1000000]"}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit code %d: %s", code, stderr.String())
	}
	if got := stdout.String(); got != strconv.Itoa(want)+"\n" {
		t.Errorf("got %q, want %d", got, want)
	}
}

// TestCalcRegistered checks that the command is reachable through the dispatcher.
func TestCalcRegistered(t *testing.T) {
	t.Parallel()
	var stdout, stderr bytes.Buffer
	if code := dispatch(context.Background(), []string{"calc", "1 + 1"}, &stdout, &stderr); code != 0 || stdout.String() != "2\n" {
		t.Errorf("questbot calc 1 + 1: exit %d, stdout %q, stderr %q", code, stdout.String(), stderr.String())
	}
}
