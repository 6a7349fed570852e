package formula

import (
	"errors"
	"reflect"
	"slices"
	"testing"

	"github.com/questbot/questbot/quest/questtrace/corpus"
)

// FuzzParse checks that no input makes Parse or Eval panic, that a syntax error carries a
// position inside the input, and that the canonical form of a parsed formula parses to the same
// tree and evaluates the same way, with the same draws.
//
// The seeds are a few formulas of each construct and, when the corpus is there, its reference
// cases and a sample of its quests' formulas.
func FuzzParse(f *testing.F) {
	for _, src := range []string{"[p1] * 2 + [1..6]", "[p1] div 3 mod 2", "[3;5..7;-2]", "(1 > 2) or not 0",
		"[p2] in [1..3]", "-(2.5 * [p3]) / 0", "[d1:1..3]"} {
		f.Add(src)
	}
	if _, ok := corpus.Optional(f); ok {
		for _, c := range readCases(f, "formula-cases.jsonl") {
			f.Add(c.Expr)
		}
		// A sample of the short corpus formulas: long seeds make the fuzzer slow to minimize.
		cases := readCases(f, "formula-corpus.jsonl.gz")
		for i := 0; i < len(cases); i += 50 {
			if len(cases[i].Expr) <= 200 {
				f.Add(cases[i].Expr)
			}
		}
	}
	f.Fuzz(func(t *testing.T, src string) {
		e, err := Parse(src)
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("%q: error %v is not a *SyntaxError", src, err)
			}
			if se.Pos < 0 || se.Pos > len(src) {
				t.Fatalf("%q: error position %d outside the input", src, se.Pos)
			}
			return
		}
		s := e.String()
		e2, err := Parse(s)
		if err != nil {
			t.Fatalf("%q printed as %q, which does not parse: %v", src, s, err)
		}
		if !reflect.DeepEqual(e.root, e2.root) {
			t.Fatalf("%q printed as %q, which parses to another tree, printed %q", src, s, e2.String())
		}
		if s2 := e2.String(); s2 != s {
			t.Fatalf("%q printed as %q, then as %q", src, s, s2)
		}
		params := []int{3, -2, 0, 7, 3000000000}
		r1, r2 := &fixed{vals: []int{1, 0, 2, 5}}, &fixed{vals: []int{1, 0, 2, 5}}
		v1, err1 := e.Eval(params, r1)
		v2, err2 := e2.Eval(params, r2)
		if v1 != v2 || (err1 == nil) != (err2 == nil) || (err1 != nil && err1.Error() != err2.Error()) {
			t.Fatalf("%q = %d, %v but its canonical form %q = %d, %v", src, v1, err1, s, v2, err2)
		}
		if !slices.Equal(r1.calls, r2.calls) {
			t.Fatalf("%q draws %v but its canonical form %q draws %v", src, r1.calls, s, r2.calls)
		}
		if err1 != nil && errors.As(err1, new(*SyntaxError)) {
			t.Fatalf("%q: Eval returned a syntax error %v", src, err1)
		}
	})
}
