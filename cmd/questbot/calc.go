package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/questbot/questbot/formula"
	"github.com/questbot/questbot/formula/alea"
)

// defaultCalcSeed seeds the generator when -seed is not given, so that a formula with ranges
// prints the same value every time; pass -seed to see other draws.
const defaultCalcSeed = "calc"

// runCalc is the `calc` command: it evaluates one quest formula and prints the value.
//
//	questbot calc [-p v1,v2,…] [-seed S] [-draws] 'formula'
//
// -p gives the parameter values [p1], [p2], …; -seed the Alea seed (default "calc");
// -draws lists every random(n) draw on stderr. Several arguments are joined with spaces, so
// quoting is optional; a formula may start with "-" (-5+2), since a flag starts with a letter
// after its dash. A syntax error is one line that quotes the formula around its position. Exit
// status: 0 on success, 1 when the formula fails, 2 on bad usage.
func runCalc(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("calc", flag.ContinueOnError)
	paramsFlag := fs.String("p", "", "comma-separated parameter values `v1,v2,…` for [p1], [p2], …")
	seed := fs.String("seed", defaultCalcSeed, "Alea `seed` for the random draws")
	showDraws := fs.Bool("draws", false, "print every random(n) draw to stderr")
	help := func(w io.Writer) {
		fmt.Fprintln(w, "usage: questbot calc [-p v1,v2,…] [-seed S] [-draws] [--] 'formula'")
		fmt.Fprintln(w, "Evaluates a quest formula and prints its value.")
	}
	operands, code, ok := parseOperands(fs, args, help, stdout, stderr)
	if !ok {
		return code
	}
	if len(operands) == 0 {
		return usageError(stderr, "calc", "no formula given")
	}
	params, err := parseParams(*paramsFlag)
	if err != nil {
		fmt.Fprintf(stderr, "questbot calc: -p: %v\n", err)
		return 2
	}
	src := strings.Join(operands, " ")

	e, err := formula.Parse(src)
	var se *formula.SyntaxError
	if errors.As(err, &se) {
		fmt.Fprintf(stderr, "questbot calc: %v (%s)\n", err, position(src, se.Pos))
		return 1
	}
	rnd := &drawLog{a: alea.New(*seed)}
	if *showDraws {
		rnd.w = stderr
	}
	v, err := e.Eval(params, rnd)
	if err != nil {
		fmt.Fprintf(stderr, "questbot calc: %v\n", err)
		return 1
	}
	fmt.Fprintln(stdout, v)
	return 0
}

// parseParams parses "v1,v2,…" (spaces allowed); an empty string means no parameters.
func parseParams(s string) ([]int, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	fields := strings.Split(s, ",")
	params := make([]int, len(fields))
	for i, f := range fields {
		v, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			return nil, fmt.Errorf("value %d is %q, not a whole number", i+1, strings.TrimSpace(f))
		}
		params[i] = v
	}
	return params, nil
}

// position says where byte offset pos of the formula src is, in words that fit on the error's
// line: what comes before it and what is at it, quoted, or "at the end". Line breaks are shown
// as spaces (the formula language treats them so).
func position(src string, pos int) string {
	line := strings.NewReplacer("\r", " ", "\n", " ").Replace(src)
	pos = min(max(pos, 0), len(line))
	before, at := line[:pos], line[pos:]
	switch {
	case before == "":
		return fmt.Sprintf("at the start, at %q", at)
	case at == "":
		return fmt.Sprintf("after %q, at the end", before)
	}
	return fmt.Sprintf("after %q, at %q", before, at)
}

// drawLog passes draws through to the generator and, if w is set, lists them.
type drawLog struct {
	a *alea.Alea
	w io.Writer
}

func (d *drawLog) Random(n int) int {
	v := d.a.Random(n)
	if d.w != nil {
		fmt.Fprintf(d.w, "random(%d) = %d\n", n, v)
	}
	return v
}
