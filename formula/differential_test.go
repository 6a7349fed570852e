package formula

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/questbot/questbot/formula/alea"
)

var diffFile = flag.String("difffile", filepath.Join("testdata", "differential.jsonl.gz"),
	"JSON lines of randomly generated formulas with the reference's results")

// diffCase is one generated formula with the reference's result: a value, an error message,
// or a special value (NaN or an infinity, which an int cannot carry). A draw's n is a number, or
// a string such as "NaN" or "Infinity" when the reference drew from a non-finite size.
type diffCase struct {
	Expr    string
	Params  []int
	Seed    string
	Value   *float64
	Error   *string
	Special string
	Rnd     [][2]any
}

// TestDifferential replays formulas generated at random from the grammar, many of them then
// mangled, against what the reference returned for them and the draws it made. They reach
// corners the quest corpus never does: NaN and infinite literals, swapped `in` sides, huge
// bounds, malformed input.
func TestDifferential(t *testing.T) {
	t.Parallel()
	f, err := os.Open(*diffFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(*diffFile, ".gz") {
		if r, err = gzip.NewReader(f); err != nil {
			t.Fatal(err)
		}
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	n := 0
	for sc.Scan() {
		var c diffCase
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatal(err)
		}
		n++
		c.check(t)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatalf("%s: no cases", *diffFile)
	}
	t.Logf("%d generated formulas", n)
}

func (c *diffCase) check(t *testing.T) {
	t.Helper()
	// Where the reference drew from a size an int cannot hold, we stop with ErrRangeTooLarge
	// before that draw (see the package documentation).
	wantDraws := make([][2]int, 0, len(c.Rnd))
	tooLarge := false
	for _, d := range c.Rnd {
		n, ok := d[0].(float64)
		if !ok || !(n >= math.MinInt64 && n < math.MaxInt64) {
			tooLarge = true
			break
		}
		v, _ := d[1].(float64)
		wantDraws = append(wantDraws, [2]int{int(n), int(v)})
	}
	rec := &recorder{a: alea.New(c.Seed)}
	got, err := Calculate(c.Expr, c.Params, rec)
	switch {
	case tooLarge:
		if !errors.Is(err, ErrRangeTooLarge) {
			t.Errorf("%q: got %d, %v; want ErrRangeTooLarge", c.Expr, got, err)
		}
	case c.Error != nil:
		if err == nil || !sameError(err, *c.Error) {
			t.Errorf("%q: got %d, %v; want error %q", c.Expr, got, err, *c.Error)
		}
	case c.Special == "NaN":
		if !errors.Is(err, ErrNotANumber) {
			t.Errorf("%q: got %d, %v; want ErrNotANumber", c.Expr, got, err)
		}
	case c.Special == "+Inf" || c.Special == "-Inf":
		want := math.MaxInt
		if c.Special == "-Inf" {
			want = math.MinInt
		}
		if err != nil || got != want {
			t.Errorf("%q: got %d, %v; want %d", c.Expr, got, err, want)
		}
	case c.Value != nil:
		want, _ := jsRound(*c.Value) // saturates values beyond the int range
		if err != nil || got != want {
			t.Errorf("%q: got %d, %v; want %v", c.Expr, got, err, *c.Value)
		}
	default:
		t.Fatalf("%q: case has no result", c.Expr)
	}
	if !slices.Equal(rec.log, wantDraws) {
		t.Errorf("%q: draws %v, want %v", c.Expr, rec.log, wantDraws)
	}
	// Test decides as Eval does, with the same draws and the same error.
	if e, perr := Parse(c.Expr); perr == nil {
		rec2 := &recorder{a: alea.New(c.Seed)}
		ok, terr := e.Test(c.Params, rec2)
		if (terr == nil) != (err == nil) || err != nil && terr.Error() != err.Error() ||
			err == nil && ok != (got != 0) || !slices.Equal(rec2.log, rec.log) {
			t.Errorf("%q: Test %v, %v, draws %v; Eval %d, %v, draws %v", c.Expr, ok, terr,
				rec2.log, got, err, rec.log)
		}
		if cd, ok := e.Cond(len(c.Params)); ok && (err != nil || cd.Holds(c.Params) != (got != 0)) {
			t.Errorf("%q: Holds %v; Eval %d, %v", c.Expr, cd.Holds(c.Params), got, err)
		}
	}
}
