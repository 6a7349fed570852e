package formula

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/questbot/questbot/formula/alea"
	"github.com/questbot/questbot/quest/questtrace/corpus"
)

// refCase is one record of the shared case files: a formula, its parameters, the game seed, and
// what the reference returned (value or error message) with every random(n) draw it made.
type refCase struct {
	ID     string          `json:"id"`
	Quest  string          `json:"quest"`
	Kind   string          `json:"kind"`
	Expr   string          `json:"expr"`
	Params json.RawMessage `json:"params"` // a list, or "P01" for the legend's list
	Seed   string          `json:"seed"`
	Value  *float64        `json:"value"`
	Error  *string         `json:"error"`
	Rnd    [][2]int        `json:"rnd"`
	P01    []int           `json:"P01"` // legend line only
}

// readCases reads a JSON-lines file of the corpus's formulas/ folder (see package corpus),
// gzip-compressed if its name ends in .gz, resolving "P01" parameter lists through the legend
// line.
func readCases(t testing.TB, name string) []refCase {
	t.Helper()
	f, err := os.Open(corpus.Path(t, "formulas", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(name, ".gz") {
		zr, err := gzip.NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		r = zr
	}
	var cases []refCase
	var p01 []int
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var c refCase
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if c.ID == "legend" {
			p01 = c.P01
			continue
		}
		cases = append(cases, c)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(cases) == 0 {
		t.Fatalf("%s: no cases", name)
	}
	for i := range cases {
		if string(cases[i].Params) == `"P01"` {
			if p01 == nil {
				t.Fatalf("%s: params P01 without a legend", name)
			}
			cases[i].Params, _ = json.Marshal(p01)
		}
	}
	return cases
}

func (c *refCase) params(t testing.TB) []int {
	var p []int
	if len(c.Params) > 0 {
		if err := json.Unmarshal(c.Params, &p); err != nil {
			t.Fatalf("%q: bad params: %v", c.Expr, err)
		}
	}
	return p
}

// recorder is a Random that logs every draw as [n, value].
type recorder struct {
	a   *alea.Alea
	log [][2]int
}

func (r *recorder) Random(n int) int {
	v := r.a.Random(n)
	r.log = append(r.log, [2]int{n, v})
	return v
}

// check evaluates c with Alea seeded from c.Seed and compares the value or error and the
// draws with the reference's.
func (c *refCase) check(t testing.TB) {
	t.Helper()
	rec := &recorder{a: alea.New(c.Seed)}
	got, err := Calculate(c.Expr, c.params(t), rec)
	switch {
	case c.Error != nil:
		if err == nil {
			t.Errorf("%q: got %d, want error %q", c.Expr, got, *c.Error)
		} else if !sameError(err, *c.Error) {
			t.Errorf("%q: got error %q, want %q", c.Expr, err, *c.Error)
		}
	case c.Value == nil:
		t.Fatalf("%q: case has neither value nor error", c.Expr)
	case err != nil:
		t.Errorf("%q: got error %v, want %v", c.Expr, err, *c.Value)
	case float64(got) != *c.Value:
		t.Errorf("%q: got %d, want %v", c.Expr, got, *c.Value)
	}
	if len(rec.log) != len(c.Rnd) || (len(c.Rnd) > 0 && !slices.Equal(rec.log, c.Rnd)) {
		t.Errorf("%q: draws %v, want %v", c.Expr, rec.log, c.Rnd)
	}
}

// sameError compares an error with the reference's message: syntax errors word for word,
// evaluation errors by their type.
func sameError(err error, want string) bool {
	var se *SyntaxError
	var ue *UndefinedParamError
	switch {
	case errors.As(err, &se):
		return se.Msg == want
	case errors.As(err, &ue):
		return err.Error() == "formula: "+want
	case errors.Is(err, ErrEmptyRange):
		return strings.HasPrefix(want, "Error in finding random value")
	}
	return false
}

func TestCases(t *testing.T) {
	t.Parallel()
	cases := readCases(t, "formula-cases.jsonl")
	mustFail := 0
	for _, c := range cases {
		c.check(t)
		if c.ID == "02-formula-throws" {
			mustFail++
			if _, err := Parse(c.Expr); !errors.As(err, new(*SyntaxError)) {
				t.Errorf("must-fail %q: Parse gave %v, want a *SyntaxError", c.Expr, err)
			}
		}
	}
	if mustFail != 12 {
		t.Errorf("%d must-fail formulas, want the reference's 12", mustFail)
	}
	t.Logf("%d cases", len(cases))
}

func TestCorpus(t *testing.T) {
	t.Parallel()
	cases := readCases(t, "formula-corpus.jsonl.gz")
	for _, c := range cases {
		c.check(t)
	}
	t.Logf("%d corpus formulas", len(cases))
}

// TestCanonical checks that every shared formula that parses prints to a text that parses to
// the same tree, and that printing is stable.
func TestCanonical(t *testing.T) {
	t.Parallel()
	cases := readCases(t, "formula-cases.jsonl")
	cases = append(cases, readCases(t, "formula-corpus.jsonl.gz")...)
	for _, c := range cases {
		e, err := Parse(c.Expr)
		if err != nil {
			continue
		}
		checkRoundTrip(t, c.Expr, e)
	}
}

func checkRoundTrip(t testing.TB, src string, e *Expr) {
	t.Helper()
	s := e.String()
	e2, err := Parse(s)
	if err != nil {
		t.Fatalf("%q printed as %q, which does not parse: %v", src, s, err)
	}
	if !reflect.DeepEqual(e.root, e2.root) {
		t.Fatalf("%q printed as %q, which parses to a different tree (%q)", src, s, e2.String())
	}
	if s2 := e2.String(); s2 != s {
		t.Fatalf("%q printed as %q, then as %q", src, s, s2)
	}
}

// fixed is a Random that returns preset values and counts the calls.
type fixed struct {
	vals  []int
	calls []int
}

func (f *fixed) Random(n int) int {
	f.calls = append(f.calls, n)
	if len(f.vals) == 0 {
		return 0
	}
	v := f.vals[0]
	f.vals = f.vals[1:]
	return v
}

// inf is a literal beyond the largest double, which parses to +Inf; it is the only way to get
// infinities and NaN into a formula.
var inf = "1" + strings.Repeat("0", 309)

func TestEval(t *testing.T) {
	t.Parallel()
	tests := []struct {
		src    string
		params []int
		draws  []int // what the random source returns, in order (0 once exhausted)
		want   int
		calls  []int // the n of every draw made
	}{
		{"2 + 2 * 2", nil, nil, 6, nil},
		{"10 div 3 * 3", nil, nil, 9, nil},
		{" 1 \n + \r\n 1", nil, nil, 2, nil},
		{"0.49999999999999994", nil, nil, 0, nil},
		{"-0.49999999999999994", nil, nil, 0, nil},
		{"-1.5", nil, nil, -1, nil},
		{"1.5", nil, nil, 2, nil},
		{"4503599627370495.5", nil, nil, 4503599627370496, nil},
		{"0 mod 0", nil, nil, -2000000000, nil},
		{"7 / 0.5", nil, nil, 14, nil},
		{"-7 mod 2.5", nil, nil, -2, nil},
		{"[5]", nil, nil, 5, []int{1}},
		{"[0] and [0]", nil, nil, 0, []int{1, 1}},
		{"1 or [1..3]", nil, nil, 1, []int{3}},
		{"[1..0]", nil, []int{1}, 1, []int{2}},
		{"[1.9..-1.9]", nil, []int{0}, -1, []int{3}},
		{"[2; 2; 7..9]", nil, []int{3}, 8, []int{5}},
		{"[1..3] in [2..4]", nil, []int{1}, 1, []int{3}},
		{"[1..3; 10] in 10", nil, nil, 1, nil},
		{"(2 to 4) in [3]", nil, []int{0}, 0, []int{3}},
		{"[1..3] in [p1] to [p2]", []int{-4, -2}, []int{2}, 0, []int{5}},
		{"-1 in -5 to -4", nil, nil, 1, nil},
		{"5 in [p1]", []int{3000000000}, nil, 0, nil},
		{"[p1] in 3000000000", []int{3000000000}, nil, 1, nil}, // a parameter is no range list
		{"3000000000 in 2000000000", nil, nil, 1, nil},
		{"[] to 5", nil, nil, 5, []int{1}},
		{"[2..3; 9] to [4]", nil, []int{7}, 9, []int{8}},
		{"[p1] * 2", []int{1 << 40}, nil, 2000000000, nil},
		{"[p1]", []int{1 << 40}, nil, 1 << 40, nil},
		{inf + " + 0", nil, nil, 2000000000, nil},
		{inf, nil, nil, math.MaxInt, nil},
		{"-" + inf, nil, nil, math.MinInt, nil},
		{"(" + inf + " - " + inf + ") or 0", nil, nil, 0, nil},
		{"(" + inf + " - " + inf + ") <> 1", nil, nil, 1, nil},
		{"[1..3]", nil, []int{-1}, 0, []int{3}},
	}
	for _, tt := range tests {
		rnd := &fixed{vals: tt.draws}
		got, err := Calculate(tt.src, tt.params, rnd)
		if err != nil || got != tt.want {
			t.Errorf("%.40q: got %d, %v; want %d", tt.src, got, err, tt.want)
		}
		if !slices.Equal(rnd.calls, tt.calls) {
			t.Errorf("%.40q: draws %v, want %v", tt.src, rnd.calls, tt.calls)
		}
	}
}

func TestEvalErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		src    string
		params []int
		draws  []int
		want   error
		calls  []int
	}{
		{"[p1]", nil, nil, &UndefinedParamError{Index: 0}, nil},
		{"[p0]", []int{1}, nil, &UndefinedParamError{Index: -1}, nil},
		{"[1..2] + [p3]", []int{1, 2}, nil, &UndefinedParamError{Index: 2}, []int{2}},
		{"[]", nil, nil, ErrEmptyRange, []int{0}},
		{"[;;]", nil, nil, ErrEmptyRange, []int{0}},
		{"[] to []", nil, nil, ErrEmptyRange, []int{-1999999999}},
		{"[1..3]", nil, []int{3}, ErrEmptyRange, []int{3}},
		{"[0.." + inf + "]", nil, nil, ErrRangeTooLarge, nil},
		{"(" + inf + " - " + inf + ") + 1", nil, nil, ErrNotANumber, nil},
	}
	for _, tt := range tests {
		rnd := &fixed{vals: tt.draws}
		_, err := Calculate(tt.src, tt.params, rnd)
		var ue *UndefinedParamError
		switch want := tt.want.(type) {
		case *UndefinedParamError:
			if !errors.As(err, &ue) || *ue != *want {
				t.Errorf("%.40q: got error %v, want %v", tt.src, err, want)
			}
		default:
			if !errors.Is(err, want) {
				t.Errorf("%.40q: got error %v, want %v", tt.src, err, want)
			}
		}
		if errors.As(err, new(*SyntaxError)) {
			t.Errorf("%.40q: evaluation error %v is a *SyntaxError", tt.src, err)
		}
		if !slices.Equal(rnd.calls, tt.calls) {
			t.Errorf("%.40q: draws %v, want %v", tt.src, rnd.calls, tt.calls)
		}
	}
	if got := (&UndefinedParamError{Index: 1}).Error(); got != "formula: Parameter p2 is not defined" {
		t.Errorf("UndefinedParamError message %q", got)
	}

	// A formula without ranges needs no random source; one with ranges reports its absence.
	if v, err := Calculate("1 + 1", nil, nil); v != 2 || err != nil {
		t.Errorf("Calculate(1 + 1, nil random) = %d, %v", v, err)
	}
	if _, err := Calculate("[1..2]", nil, nil); !errors.Is(err, ErrNoRandom) {
		t.Errorf("range with nil random: got %v, want ErrNoRandom", err)
	}
	var zero Expr
	if _, err := zero.Eval(nil, nil); !errors.Is(err, ErrEmptyExpr) {
		t.Errorf("zero Expr: got %v, want ErrEmptyExpr", err)
	}
	if _, err := (*Expr)(nil).Eval(nil, nil); !errors.Is(err, ErrEmptyExpr) {
		t.Errorf("nil Expr: got %v, want ErrEmptyExpr", err)
	}
	if s := (*Expr)(nil).String(); s != "" {
		t.Errorf("nil Expr prints %q", s)
	}
}

func TestSyntaxErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		src     string
		pos     int
		msg     string
		errText string
	}{
		{"", 0, "Expected value at 0", "formula: Expected value at 0"},
		{"2 + 2 {", 6, "Unknown char {", "formula: Unknown char { at 6"},
		{"1 + 2 Кек", 6, "Unknown char К", "formula: Unknown char К at 6"},
		{"1) Кек", 1, "Unexpected data at 1: ')' kind=close brace token", ""},
		{"[1 2 +]", 6, "Expecting primary value at 6 but got ']' kind=close paren token", ""}, // "1 2" is 12
		{"[1 + 2 3)", 8, "Unexpected token inside paren ')' pos=8 ", ""},
		{"[p1 + 1]", 4, "Expected ], but got '+' at 4", ""},
		{"[ and ]", 2, "Expecting primary value at 2 but got 'and' kind=and keyword", ""},
		{"1 order 2", 4, "Expecting primary value at 4 but got 'der' kind=identifier", ""},
		{"1 MOD 2", 2, "Unexpected data at 2: 'MOD' kind=identifier", ""},
		{"1\t+\t", 4, "Expected value at 4", ""},
		{strings.Repeat("(", maxNesting+1) + "1", maxNesting, "Expression nested too deeply at 1000", ""},
		{strings.Repeat("-", maxNesting+1) + "1", maxNesting, "Expression nested too deeply at 1000", ""},
	}
	for _, tt := range tests {
		_, err := Parse(tt.src)
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("%.40q: got %v, want a *SyntaxError", tt.src, err)
			continue
		}
		if se.Pos != tt.pos || se.Msg != tt.msg {
			t.Errorf("%.40q: got {%d, %q}, want {%d, %q}", tt.src, se.Pos, se.Msg, tt.pos, tt.msg)
		}
		if tt.errText != "" && err.Error() != tt.errText {
			t.Errorf("%.40q: Error() = %q, want %q", tt.src, err.Error(), tt.errText)
		}
	}
	// Nesting right up to the limit is fine.
	src := strings.Repeat("(", maxNesting) + "1" + strings.Repeat(")", maxNesting)
	if v, err := Calculate(src, nil, nil); v != 1 || err != nil {
		t.Errorf("%d nested parentheses: got %d, %v", maxNesting, v, err)
	}
}

func TestString(t *testing.T) {
	t.Parallel()
	tests := []struct{ src, want string }{
		{"2+(2 *2 +3   )+4", "2 + (2 * 2 + 3) + 4"},
		{"(1 - 2) - 3", "1 - 2 - 3"},
		{"1 - (2 - 3)", "1 - (2 - 3)"},
		{"2 * (7 mod 4)", "2 * 7 mod 4"},
		{"(2 * 7) mod 4", "(2 * 7) mod 4"},
		{"- - 2", "--2"},
		{"-(2 + 3)", "-(2 + 3)"},
		{"-[p01]", "-[p1]"},
		{"[ 1 ,5 .. 3 ; ; 7 ]", "[1.5..3; 7]"},
		{"[]", "[]"},
		{"10 000,25", "10000.25"},
		{"0.0000001", "0.0000001"},
		{"123456789012345678901234567890", "123456789012345680000000000000"},
		{inf, inf},
		{"([1..3]) in 2 to 5", "[1..3] in 2 to 5"},
		{"1 or 0 and 0", "1 or 0 and 0"},
		{"(1 or 0) and 0", "(1 or 0) and 0"},
		{"2 to 3 to 10", "2 to 3 to 10"},
		{"2 to (3 to 10)", "2 to (3 to 10)"},
		{"[p1]mod 3>=[p2]div1000", "[p1] mod 3 >= [p2] div 1000"},
	}
	for _, tt := range tests {
		e, err := Parse(tt.src)
		if err != nil {
			t.Errorf("%q: %v", tt.src, err)
			continue
		}
		if got := e.String(); got != tt.want {
			t.Errorf("%.40q prints as %.60q, want %.60q", tt.src, got, tt.want)
		}
		checkRoundTrip(t, tt.src, e)
	}
}

// TestDistribution repeats the reference's statistical check: each of the six values of
// "3 + [1;3;6..9] - 3" comes up within ±10% of a sixth of 10 000 draws.
func TestDistribution(t *testing.T) {
	t.Parallel()
	e, err := Parse("3 + [1;3;6..9] - 3")
	if err != nil {
		t.Fatal(err)
	}
	rnd := alea.New("distribution")
	counts := map[int]int{}
	for range 10000 {
		v, err := e.Eval(nil, rnd)
		if err != nil {
			t.Fatal(err)
		}
		counts[v]++
	}
	for _, v := range []int{1, 3, 6, 7, 8, 9} {
		if c := counts[v]; c < 1500 || c > 1834 {
			t.Errorf("value %d drawn %d times in 10000, want about 1667", v, c)
		}
	}
	if len(counts) != 6 {
		t.Errorf("values drawn: %v", counts)
	}
}

// TestNoAllocs checks that evaluating a parsed formula allocates nothing, with ranges or not.
// TestCarriedOperands checks the instructions that carry their operands (a literal on the
// right, a parameter on the left): the programs they shorten, and their values next to the
// same operations on operands from the stack.
func TestCarriedOperands(t *testing.T) {
	t.Parallel()
	params := []int{7, -3, 64}
	tests := []struct {
		src   string
		want  int
		instr int // instructions in the program
	}{
		{"[p1] >= 7", 1, 1},
		{"([p1]) >= 7", 1, 1},
		{"[p1] >= 7 and [p2] < 0", 1, 4},
		{"[p1] - 10", -3, 1},
		{"10 - [p1]", 3, 3},
		{"[p3] div 64 = 1", 1, 2},
		{"[p2] mod 2", -1, 1},
		{"[p1] / 0", 2000000000, 1},
		{"[p2] div 0", -2000000000, 1},
		{"[p1] * 3000000000", 2000000000, 1},
		{"[p1] + [p2] * 2", 1, 3},
		{"-[p1] + 1", -6, 3},
		{"[p2] >= -3", 1, 1},
		{"[p1] * - - 2", 14, 1},
		{"-5 - [p1]", -12, 3},
		{"[p1] + 1 + ([p2] > 4)", 8, 3},
		{"[1..1] + 1", 2, 5},
		{"[p1] in 7", 1, 5},
	}
	for _, tt := range tests {
		e, err := Parse(tt.src)
		if err != nil {
			t.Fatalf("%q: %v", tt.src, err)
		}
		got, err := e.Eval(params, &fixed{})
		if err != nil || got != tt.want {
			t.Errorf("%q: got %d, %v; want %d", tt.src, got, err, tt.want)
		}
		if len(e.prog) != tt.instr {
			t.Errorf("%q: %d instructions, want %d", tt.src, len(e.prog), tt.instr)
		}
		if e.maxStack < 1 || e.maxStack > 3 {
			t.Errorf("%q: stack of %d values", tt.src, e.maxStack)
		}
	}
	// A missing parameter fails where its push would have.
	e, err := Parse("[1..2] + [p9] >= 1")
	if err != nil {
		t.Fatal(err)
	}
	rnd := &fixed{}
	_, err = e.Eval(params, rnd)
	var u *UndefinedParamError
	if !errors.As(err, &u) || u.Index != 8 || !slices.Equal(rnd.calls, []int{2}) {
		t.Errorf("got %v after draws %v, want parameter 9 undefined after one draw", err, rnd.calls)
	}
	if _, err := Calculate("[p4] = 0", params, nil); !errors.As(err, &u) || u.Index != 3 {
		t.Errorf("[p4] = 0: got %v, want parameter 4 undefined", err)
	}
}

// TestSkips checks that `and` and `or` skip a right side that draws nothing only when the left
// one decides and every parameter is there, giving the values, draws and errors of the full
// evaluation.
func TestSkips(t *testing.T) {
	t.Parallel()
	tests := []struct {
		src    string
		params []int
		want   int
		err    bool
		calls  []int
		skips  int // skip instructions in the program
	}{
		{"[p1] = 0 and [p2] > 1 + [p3]", []int{1, 5, 2}, 0, false, nil, 1},
		{"[p1] = 0 and [p2] > 1 + [p3]", []int{0, 5, 2}, 1, false, nil, 1},
		{"[p1] = 0 or [p2] > 1 + [p3]", []int{0, 0, 2}, 1, false, nil, 1},
		{"[p1] = 0 or [p2] > 1 + [p3]", []int{1, 0, 2}, 0, false, nil, 1},
		{"[p1] and [p2] > 1 + [p3]", []int{7, 5, 2}, 1, false, nil, 1},
		{"[p1] = 0 and [p2] > 1 + [p3] and [p3] <> 6", []int{1, 5, 2}, 0, false, nil, 2},
		// A missing parameter fails even where the left side decides, as in the reference.
		{"[p1] = 0 and [p2] > 1 + [p3]", []int{1, 5}, 0, true, nil, 1},
		{"[p1] = 0 and [p0] > 1 + [p3]", []int{1, 5, 2}, 0, true, nil, 1},
		// A right side that draws is always evaluated, so is one too short to skip.
		{"[p1] = 0 and [p2] > [1..3]", []int{1, 5, 2}, 0, false, []int{3}, 0},
		{"[p1] = 0 and 1", []int{1, 5, 2}, 0, false, nil, 0},
		{"[1..2] = 0 or [p2] > 1 + [p3]", []int{1, 5, 2}, 1, false, []int{2}, 1},
		{"(0/0) and [p2] > 1 + [p3]", []int{1, 5, 2}, 1, false, nil, 1},
		{"(" + inf + " - " + inf + ") and [p2] > 1 + [p3]", []int{1, 5, 2}, 0, false, nil, 1},
		{"(" + inf + " - " + inf + ") or [p2] > 1 + [p3]", []int{1, 5, 2}, 1, false, nil, 1},
	}
	for _, tt := range tests {
		e, err := Parse(tt.src)
		if err != nil {
			t.Fatalf("%q: %v", tt.src, err)
		}
		rnd := &fixed{vals: []int{1}}
		got, err := e.Eval(tt.params, rnd)
		if (err != nil) != tt.err || got != tt.want {
			t.Errorf("%q %v: got %d, %v; want %d (error %v)", tt.src, tt.params, got, err, tt.want,
				tt.err)
		}
		if !slices.Equal(rnd.calls, tt.calls) {
			t.Errorf("%q: draws %v, want %v", tt.src, rnd.calls, tt.calls)
		}
		skips := 0
		for _, in := range e.prog {
			if in.op == opSkipFalse || in.op == opSkipTrue {
				skips++
			}
		}
		if skips != tt.skips {
			t.Errorf("%q: %d skips, want %d", tt.src, skips, tt.skips)
		}
	}
}

// TestPure checks which formulas report that they neither draw nor fail.
func TestPure(t *testing.T) {
	t.Parallel()
	tests := []struct {
		src     string
		nParams int
		want    bool
	}{
		{"[p1] + 2 * [p3] div 4 mod 3 > 1 and 5 / 0 <= [p2] or 0 / 0", 3, true},
		{"[p1] in [1..3; 7] and [p2] in 2 to 4", 2, true},
		{"-" + strings.Repeat("9", 300) + " * 0", 0, true},
		{"[p3] + 1", 2, false},
		{"[p0] + 1", 2, false},
		{"[1..3] + [p1]", 1, false},
		{"[p1] and [5]", 1, false},
		{"2 to 3", 0, false},
		{"[1..2] in [p1]", 1, true}, // the sides swap: the list is tested, not drawn
		{"[1..2] in 2 to 3", 0, false},
		{inf + " * 0", 0, false},
		{"[p1] - " + inf, 1, false},
	}
	for _, tt := range tests {
		e, err := Parse(tt.src)
		if err != nil {
			t.Fatalf("%.40q: %v", tt.src, err)
		}
		if got := e.Pure(tt.nParams); got != tt.want {
			t.Errorf("%.40q with %d parameters: pure %v, want %v", tt.src, tt.nParams, got, tt.want)
		}
	}
	var none *Expr
	if none.Pure(1) {
		t.Error("a nil Expr is pure")
	}
}

// TestCondForm checks which formulas get the form evaluated without the stack, that it gives the
// stack machine's values, and that Test decides as Eval does.
func TestCondForm(t *testing.T) {
	t.Parallel()
	tests := []struct {
		src  string
		cond bool
	}{
		{"0", true},
		{"[p2]", true},
		{"[p2] = 5", true},
		{"[p3]=12", true},
		{"[p1] = -1", true},
		{"([p3] div 10) > 0 and ([p3] div 10) <= 3 and ([p1] = 0 or ([p1] = 4 and [p2] < 10))", true},
		{"[p1] * 2 - 7 >= 1 or 0", true},
		{"[p2] <= -1 and [p2] > - -2 or [p1] = -0", true},
		{"[p1] / 4", true},
		{"[p1] = 0 and [p2] > 1 or [p3] > 25 and [p1] < 3 or [p2] - 4", true},
		{"([p1] / 4 and [p2] or [p3] / 7) and ([p1] + 1 or [p2] = 3 and [p3] <= 30)", true},
		{"[p1] > 0 and [p2] > 0 and [p3] > 9 and [p1] - 2 and [p2] mod 3 = 1", true},
		{"[p2] / 10 + 0,5", true},
		{"[p2] * " + infLiteral, true},
		{"[p1] + [p2]", false},
		{"[p1] = 0 and [p2] > 1 + [p3]", false},
		{"[p1] = 0 and [1..3]", false},
		{"-[p1] > 0", false},
		{"[p1] in 7", false},
	}
	rnd := alea.New("cond")
	for _, tt := range tests {
		e, err := Parse(tt.src)
		if err != nil {
			t.Fatalf("%q: %v", tt.src, err)
		}
		if (e.cond != nil) != tt.cond {
			t.Errorf("%q: cond form %v, want %v", tt.src, e.cond != nil, tt.cond)
		}
		if e.cond == nil {
			continue
		}
		if _, ok := e.Cond(3); ok != e.Pure(3) {
			t.Errorf("%q: Cond %v, want %v", tt.src, ok, e.Pure(3))
		}
		for n := 0; n < 200; n++ {
			params := []int{rnd.Random(12) - 3, rnd.Random(30) - 5, rnd.Random(60)}
			stack := make([]float64, e.maxStack)
			want, err := run(e.prog, stack, params, nil, false)
			if got := e.cond.eval(params); err != nil || got != want && (got == got || want == want) {
				t.Fatalf("%q %v: cond form %v, stack %v (%v)", tt.src, params, got, want, err)
			}
			v, err := e.Eval(params, nil)
			if ok, terr := e.Test(params, nil); ok != (v != 0) || (terr == nil) != (err == nil) {
				t.Fatalf("%q %v: Test %v, %v; Eval %v, %v", tt.src, params, ok, terr, v, err)
			}
			c, ok := e.Cond(len(params))
			if ok && (err != nil || c.Holds(params) != (v != 0)) {
				t.Fatalf("%q %v: Holds %v; Eval %v, %v", tt.src, params, c.Holds(params), v, err)
			}
			if p, x, eq := c.Equality(); eq && (float64(params[p]) == x) != (v != 0) {
				t.Fatalf("%q %v: Equality [p%d] = %v; Eval %v", tt.src, params, p+1, x, v)
			}
		}
	}
}

// TestBinaryInRun checks that the binary operations of the stack machine and of the cond form
// agree with binary.
func TestBinaryInRun(t *testing.T) {
	t.Parallel()
	vals := []float64{0, math.Copysign(0, -1), 1, -1, 2.5, -7.25, 3, 1e300, -1e300, 2e9, -2e9,
		math.Inf(1), math.Inf(-1), math.NaN()}
	same := func(x, y float64) bool {
		return x == y && math.Signbit(x) == math.Signbit(y) || x != x && y != y
	}
	for op := opAdd; op <= opOr; op++ {
		for _, a := range vals {
			for _, b := range vals {
				prog := []instr{{op: opNumber, val: a}, {op: opNumber, val: b}, {op: op}}
				got, err := run(prog, make([]float64, 2), nil, nil, false)
				if want := binary(op, a, b); err != nil || !same(got, want) {
					t.Errorf("op %d, %v and %v: run %v (%v), binary %v", op, a, b, got, err, want)
				}
				code := cond{{op: opNumber, val: a}, {op: op, lit: true, val: b}}
				if got, want := code.eval(nil), binary(op, a, b); !same(got, want) {
					t.Errorf("op %d, %v and %v: cond %v, binary %v", op, a, b, got, want)
				}
			}
		}
	}
}

func TestNoAllocs(t *testing.T) {
	params := []int{44, 4631, 7584, 3152, 8270, 72}
	rnd := alea.New("allocs")
	for _, src := range []string{
		"(-(([p4] div 1000) mod 10)*1000*(([p1] div 10)=1)-(([p4] div 100) mod 10)*100*(([p1] div 10)=2))",
		"[p2] in [1..10; 20] and [p3] >= 3 or [p1] * 2 div 7 > 1",
		"[p1]+[0..1]*[0..1]*[-1..1]+([p1]=0)*[1..8] + (2 to 5)",
	} {
		e, err := Parse(src)
		if err != nil {
			t.Fatal(err)
		}
		if n := testing.AllocsPerRun(100, func() { e.Eval(params, rnd) }); n != 0 {
			t.Errorf("%q: %v allocations per Eval, want 0", src, n)
		}
	}
}

// TestConcurrentEval evaluates one Expr from several goroutines (run it with -race).
func TestConcurrentEval(t *testing.T) {
	t.Parallel()
	e, err := Parse("[p1] * [1..6] + [p2] div 3")
	if err != nil {
		t.Fatal(err)
	}
	want := make([]int, 100)
	ref := alea.New("concurrent")
	for i := range want {
		want[i], _ = e.Eval([]int{i, 2 * i}, ref)
	}
	done := make(chan error)
	for range 4 {
		go func() {
			rnd := alea.New("concurrent")
			for i := range want {
				if got, _ := e.Eval([]int{i, 2 * i}, rnd); got != want[i] {
					done <- fmt.Errorf("eval %d: got %d, want %d", i, got, want[i])
					return
				}
			}
			done <- nil
		}()
	}
	for range 4 {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
}

func TestJSMod(t *testing.T) {
	t.Parallel()
	vals := []float64{0, math.Copysign(0, -1), 1, -1, 2, -3, 7, -7, 10, 7.5, -7.5, 0.1, 2.5, 1e15 + 1, -1e15 - 3,
		1<<53 - 1, 1 << 53, -(1 << 53), 1e300, math.Inf(1), math.Inf(-1), math.NaN(), 2000000000, 3000000000}
	for _, a := range vals {
		for _, b := range vals {
			got, want := jsMod(a, b), math.Mod(a, b)
			if math.Float64bits(got) != math.Float64bits(want) && !(math.IsNaN(got) && math.IsNaN(want)) {
				t.Errorf("jsMod(%v, %v) = %v, want %v", a, b, got, want)
			}
		}
	}
}

// TestEquality checks which conditions are recognised as a parameter equal to a literal.
func TestEquality(t *testing.T) {
	t.Parallel()
	tests := []struct {
		src   string
		param int
		x     float64
		ok    bool
	}{
		{"[p23]=7", 22, 7, true},
		{"[p1] = -2", 0, -2, true},
		{"[p1] = 2,5", 0, 2.5, true},
		{"[p1] <> 2", 0, 0, false},
		{"[p1] = 2 and [p2] = 3", 0, 0, false},
		{"[p1] + 1 = 2", 0, 0, false},
		{"2 = [p1]", 0, 0, false},
	}
	for _, tt := range tests {
		e, err := Parse(tt.src)
		if err != nil {
			t.Fatalf("%q: %v", tt.src, err)
		}
		c, _ := e.Cond(30) // the zero Cond when the formula is none
		p, x, ok := c.Equality()
		if ok != tt.ok || ok && (p != tt.param || x != tt.x) {
			t.Errorf("%q: Equality %d, %v, %v; want %d, %v, %v", tt.src, p, x, ok, tt.param, tt.x, tt.ok)
		}
	}
	if _, _, ok := (Cond{}).Equality(); ok {
		t.Error("the zero Cond is an equality")
	}
}
