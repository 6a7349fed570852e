package quest

import (
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/questbot/questbot/formula/alea"
	"github.com/questbot/questbot/qmm"
	"github.com/questbot/questbot/quest/questtrace/corpus"
)

// seqRandom returns pre-set draws, like the reference tests' createDetermenisticRandom: it
// fails the test when the draws run out or a draw is not below n.
type seqRandom struct {
	t    *testing.T
	vals []int
}

func (r *seqRandom) Random(n int) int {
	r.t.Helper()
	if len(r.vals) == 0 {
		r.t.Errorf("no draws left for random(%d)", n)
		return 0
	}
	v := r.vals[0]
	r.vals = r.vals[1:]
	if v >= n {
		r.t.Errorf("draw %d for random(%d)", v, n)
	}
	return v
}

// displayRangeSpec is a display range of a test quest.
type displayRangeSpec struct {
	from, to int
	text     string
}

// rangesQuest is a quest with parameters that have the given display ranges, and nothing else.
// It returns the compiler of the quest's texts too.
func rangesQuest(params [][]displayRangeSpec) (*Quest, *textCompiler) {
	q := &Quest{params: make([]param, len(params))}
	texts := make([][]string, len(params))
	for i, rs := range params {
		for _, r := range rs {
			texts[i] = append(texts[i], r.text)
		}
	}
	tc := newTextCompiler(len(params), texts)
	for i, rs := range params {
		compiled := tc.displayTexts(i, i)
		for k, r := range rs {
			q.params[i].ranges = append(q.params[i].ranges,
				displayRange{from: r.from, to: r.to, text: compiled[k]})
		}
	}
	return q, tc
}

// substQuest is the quest of the reference's substitution tests (09-substitution.ts): three
// parameters with display ranges. It returns the compiler of the quest's texts too.
func substQuest() (*Quest, *textCompiler) {
	return rangesQuest([][]displayRangeSpec{
		{{0, 20, "Param1valueString"}},
		{{0, 5, "Fial"}, {5, 21, "Фиал"}, {21, 26, "Bottle"}},
		{{30, 30, "Lol [d1]"}},
	})
}

// Ensure substitution gives the reference's results for every case of its test suite, both
// through the staged substitution and through compiled texts.
func TestSubstituteReference(t *testing.T) {
	cases := []struct{ in, want string }{
		{"", ""},
		{"lol kek", "lol kek"},
		{"У вас [p3] кредитов", "У вас <clr>30<clrEnd> кредитов"},
		{"Boo {2+3}", "Boo <clr>5<clrEnd>"},
		{"Boo {2+[10..20]}", "Boo <clr>17<clrEnd>"},
		{"Lol <Ranger><Ranger>", "Lol <clr>MyName<clrEnd><clr>MyName<clrEnd>"},
		{"Special char <ToStar>", "Special char <clr><ToStar><clrEnd>"},
		{"Diamond <>", "Diamond <clr>20<clrEnd>"},
		{"Один [d2]", "Один <clr>Фиал<clrEnd>"},
		{"Один [d2:25]", "Один <clr>Bottle<clrEnd>"},
		{"Один [d2:10+15]", "Один <clr>Bottle<clrEnd>"},
		{"Один [d2:{25}]", "Один <clr>Bottle<clrEnd>"},
		{"Один [d2:{10+15}]", "Один <clr>Bottle<clrEnd>"},
		{"Один [d2:[p1] + 15]", "Один <clr>Bottle<clrEnd>"},
		{"Один [d2:{[p1] + 15}]", "Один <clr>Bottle<clrEnd>"},
		{"Deep [d3]", "Deep <clr>Lol <clr>Param1valueString<clrEnd><clrEnd>"},
		{"Random [d1:[10..20]]", "Random <clr>Param1valueString<clrEnd>"},
		{"Random [d1:{[10..20]}]", "Random <clr>Param1valueString<clrEnd>"},
		{"Spaces [d2: { 6  -    3    }    ] ", "Spaces <clr>Fial<clrEnd> "},
		{"Multiple [d1] [d1]", "Multiple <clr>Param1valueString<clrEnd> <clr>Param1valueString<clrEnd>"},
		{"Incorrect [d] [d1]", "Incorrect [d] <clr>Param1valueString<clrEnd>"},
		{"Incorrect [d:] [d1]", "Incorrect [d:] <clr>Param1valueString<clrEnd>"},
		{"Incorrect [d[d1]", "Incorrect [d<clr>Param1valueString<clrEnd>"},
		{"Incorrect [d:{3+5] [d1]", "Incorrect [d:{3+5] <clr>Param1valueString<clrEnd>"},
		{"Incorrect [d:4+] [d1]", "Incorrect [d:4+] <clr>Param1valueString<clrEnd>"},
		{"Incorrect [d:4+[[] [d1]", "Incorrect [d:4+[[] <clr>Param1valueString<clrEnd>"},
		{"Unknown param [d666]", "Unknown param <clr>UNKNOWN_PARAM<clrEnd>"},
	}
	q, tc := substQuest()
	tags := [10]string{"MyName", "Player", "FromPlanet", "FromStar", "ToPlanet", "<ToStar>",
		"Money", "Date", "Day", "CurDate"}
	for _, c := range cases {
		newSubst := func() *substituter {
			return &substituter{q: q, params: []int{10, 20, 30},
				rnd: &seqRandom{t: t, vals: []int{5, 6, 7}}, tags: tags, tagsDone: true,
				tagsNested: true}
		}
		got, err := newSubst().subst(c.in, 1, 0)
		if err != nil || got != c.want {
			t.Errorf("subst(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
		// The compiled form, with a player whose tags are safe for it.
		s := newSubst()
		s.tags[5], s.tagsNested = "ToStar", false
		want := strings.ReplaceAll(c.want, "<clr><ToStar><clrEnd>", "<clr>ToStar<clrEnd>")
		got, err = s.render(tc.text(c.in, 1))
		if err != nil || got != want {
			t.Errorf("render(%q) = %q, %v; want %q", c.in, got, err, want)
		}
	}
}

// Ensure compiled texts render exactly as the staged substitution on texts made of the
// fragments that matter to it.
func TestCompiledTextMatchesStaged(t *testing.T) {
	t.Parallel()
	frags := []string{"{", "}", "{[p1]+1}", "{[1..3]}", "[p1]", "[p2]", "[p3]", "[p4]", "[p01]",
		"[p", "]", "<", ">", "<>", "<Ranger>", "<Day>", "<Date>", "<CurDate>", "<Money>",
		"<Ranger", "x", "Ж", " ", "\n", "[d1]", "[d2:{[p1]}]", "[d", "1", "0"}
	q, tc := substQuest()
	p := DefaultPlayer(Russian, time.Date(2024, 1, 1, 12, 0, 0, 0, time.UTC))
	gen := alea.New("texts")
	for n := 0; n < 20000; n++ {
		var b strings.Builder
		for k := gen.Random(8); k >= 0; k-- {
			b.WriteString(frags[gen.Random(len(frags))])
		}
		src := b.String()
		diamond := gen.Random(4) - 1
		staged := &substituter{q: q, params: []int{3, 20, 30}, rnd: alea.New(src), player: p, days: 2}
		compiled := &substituter{q: q, params: []int{3, 20, 30}, rnd: alea.New(src), player: p, days: 2}
		want, werr := staged.subst(src, diamond, 0)
		got, gerr := compiled.render(tc.text(src, diamond))
		if got != want || (werr == nil) != (gerr == nil) {
			t.Fatalf("text %q diamond %d: compiled %q (%v), staged %q (%v)", src, diamond, got, gerr,
				want, werr)
		}
	}
}

// Ensure a text compiled as inert renders as an inert display string whatever the parameters.
func TestInertText(t *testing.T) {
	frags := []string{"[", "d", "[d", "[d1]", "{[p1]*7}", "{[p1] div 3}", "[p1]", "[p2]", "<>",
		"<Ranger>", "{", "}", "]", "x", " ", "1", "-"}
	q, tc := substQuest()
	p := DefaultPlayer(English, time.Time{})
	gen := alea.New("inert")
	inert := 0
	for n := 0; n < 20000; n++ {
		var b strings.Builder
		for k := gen.Random(6); k >= 0; k-- {
			b.WriteString(frags[gen.Random(len(frags))])
		}
		x := tc.text(b.String(), gen.Random(4)-1)
		if !x.inert {
			continue
		}
		inert++
		params := []int{gen.Random(200) - 100, gen.Random(30), gen.Random(60)}
		c := &substituter{q: q, params: params, rnd: alea.New("x"), player: p}
		got, err := c.render(x)
		if err == nil && !inertDisplay([]byte(got)) {
			t.Fatalf("text %q params %v: inert, but renders as %q", x.src, params, got)
		}
	}
	if inert == 0 {
		t.Fatal("no inert text")
	}
}

// Ensure the sort gives the reference's order for its test suite (08-qmplayer-funcs.ts).
func TestSortByOrderReference(t *testing.T) {
	ids := func(items []int32) []int32 { return items }
	t.Run("empty", func(t *testing.T) {
		if got := sortByOrder(nil, nil, nil, &seqRandom{t: t}); len(got) != 0 {
			t.Errorf("got %v", got)
		}
	})
	t.Run("distinct", func(t *testing.T) {
		items := []int32{0, 1, 2, 3, 4, 5}
		ord := []int32{5, 6, 2, 3, 9, 0}
		sortByOrder(items, ord, nil, &seqRandom{t: t})
		if want := []int32{5, 2, 3, 0, 1, 4}; fmt.Sprint(ids(items)) != fmt.Sprint(want) {
			t.Errorf("got %v, want %v", items, want)
		}
	})
	t.Run("ties", func(t *testing.T) {
		items := []int32{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}
		ord := []int32{5, 6, 2, 3, 9, 0, 5, 2, 3, 3}
		rnd := &seqRandom{t: t, vals: []int{1, 0, 0, 1}}
		sortByOrder(items, ord, nil, rnd)
		if want := []int32{5, 7, 2, 3, 8, 9, 0, 6, 1, 4}; fmt.Sprint(items) != fmt.Sprint(want) {
			t.Errorf("got %v, want %v", items, want)
		}
		if len(rnd.vals) != 0 {
			t.Errorf("%d draws left", len(rnd.vals))
		}
	})
}

// naiveSort is the reference's _sortJumps, step by step.
func naiveSort(items, ord []int32, rnd *alea.Alea) {
	for i := range items {
		var minIdx []int
		for k := i; k < len(items); k++ {
			switch {
			case len(minIdx) == 0 || ord[k] < ord[minIdx[0]]:
				minIdx = []int{k}
			case ord[k] == ord[minIdx[0]]:
				minIdx = append(minIdx, k)
			}
		}
		at := minIdx[0]
		if len(minIdx) > 1 {
			at = minIdx[rnd.Random(len(minIdx))]
		}
		items[i], items[at] = items[at], items[i]
		ord[i], ord[at] = ord[at], ord[i]
	}
}

// Ensure the grouped sort makes the same draws and the same order as the reference's.
func TestSortByOrderMatchesNaive(t *testing.T) {
	gen := alea.New("sort")
	for n := 0; n < 5000; n++ {
		size := gen.Random(40)
		items, ord := make([]int32, size), make([]int32, size)
		keys := 1 + gen.Random(10)
		for i := range items {
			items[i], ord[i] = int32(i), int32(gen.Random(keys))
		}
		items2, ord2 := append([]int32(nil), items...), append([]int32(nil), ord...)
		seed := fmt.Sprint(n)
		r1, r2 := alea.New(seed), alea.New(seed)
		naiveSort(items, ord, r1)
		sortByOrder(items2, ord2, nil, r2)
		if fmt.Sprint(items) != fmt.Sprint(items2) || r1.State() != r2.State() {
			t.Fatalf("case %d: got %v, want %v", n, items2, items)
		}
	}
}

// Ensure the sort of items with one key makes the same draws and the same order as the
// reference's.
func TestShuffleTiesMatchesNaive(t *testing.T) {
	for size := 0; size < 60; size++ {
		items, ord := make([]int32, size), make([]int32, size)
		for i := range items {
			items[i], ord[i] = int32(i), 5
		}
		items2 := append([]int32(nil), items...)
		seed := fmt.Sprint(size)
		r1, r2 := alea.New(seed), alea.New(seed)
		naiveSort(items, ord, r1)
		shuffleTies(items2, r2)
		if fmt.Sprint(items) != fmt.Sprint(items2) || r1.State() != r2.State() {
			t.Fatalf("size %d: got %v, want %v", size, items2, items)
		}
	}
}

// Ensure dates are written as the reference writes them, in the clock's time zone.
func TestSRDate(t *testing.T) {
	now := time.Date(2024, 1, 1, 12, 0, 0, 0, time.UTC)
	if got := srDate(now, 35, Russian); got != "5 Февраля 3024" {
		t.Errorf("rus: got %q", got)
	}
	if got := srDate(now, 35, English); got != "5 February 3024" {
		t.Errorf("eng: got %q", got)
	}
	east := now.In(time.FixedZone("UTC+13", 13*3600)) // 2024-01-02 01:00 there
	if got := srDate(east, 0, English); got != "2 January 3024" {
		t.Errorf("time zone: got %q", got)
	}
}

// chainQuest is a quest whose start leads through n empty locations, each left by the only,
// empty jump, to a final location with a text; with loop the last jump leads back to the start
// instead, and the chain never ends.
func chainQuest(n int, loop bool) *qmm.Quest {
	q := &qmm.Quest{Magic: qmm.MagicQMM7, TaskText: "task"}
	for i := 1; i <= n+1; i++ {
		l := qmm.Location{ID: int32(i), Texts: []qmm.LocationText{{}}}
		l.IsStarting = i == 1
		if i == n+1 {
			l.Texts[0].Text = "the end"
		}
		q.Locations = append(q.Locations, l)
	}
	for i := 1; i <= n; i++ {
		to := int32(i + 1)
		if loop && i == n {
			to = 1
		}
		q.Jumps = append(q.Jumps, qmm.Jump{ID: int32(i), From: int32(i), To: to, Priority: 1})
	}
	return q
}

// Ensure a chain of 200,000 automatic jumps runs in one action without a stack overflow.
func TestLongAutoJumpChain(t *testing.T) {
	t.Parallel()
	const n = 200_000
	q, err := Compile(chainQuest(n, false))
	if err != nil {
		t.Fatal(err)
	}
	s, err := q.replay("seed", []int{JumpIAgree})
	if err != nil {
		t.Fatal(err)
	}
	if s.LocationID != n+1 || s.LastJumpID != n {
		t.Fatalf("stopped at location %d after jump %d", s.LocationID, s.LastJumpID)
	}
	v, err := q.View(s, DefaultPlayer(English, time.Time{}))
	if err != nil || v.Text != "the end" {
		t.Fatalf("view %q, %v", v.Text, err)
	}
}

// Ensure an endless chain of automatic jumps ends with ErrAutoJumpLimit, leaving the state as
// it was.
func TestEndlessAutoJumpChain(t *testing.T) {
	t.Parallel()
	q, err := Compile(chainQuest(3, true))
	if err != nil {
		t.Fatal(err)
	}
	s, err := q.Start("seed")
	if err != nil {
		t.Fatal(err)
	}
	got, err := q.Perform(s, JumpIAgree)
	if !errors.Is(err, ErrAutoJumpLimit) {
		t.Fatalf("err %v, want ErrAutoJumpLimit", err)
	}
	if got.Phase != PhaseStarting {
		t.Fatalf("state changed to %v", got.Phase)
	}
}

// Ensure the lunolet_2.qmm golden trace contains a step with more than 3,000 automatic jumps
// and that the player runs it (the whole trace is checked by TestGoldenTraces).
func TestLunoletAutoJumps(t *testing.T) {
	dir := corpus.Dir(t)
	files, _ := filepath.Glob(filepath.Join(dir, "traces", "dagazbot", "lunolet_2.qmm__*.jsonl.gz"))
	if len(files) == 0 {
		t.Fatal("no lunolet_2.qmm traces in the shared test data")
	}
	data, err := os.ReadFile(filepath.Join(dir, "quests", "dagazbot", "lunolet_2.qmm"))
	if err != nil {
		t.Fatal(err)
	}
	mq, err := qmm.Decode(strings.NewReader(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	q, err := Compile(mq)
	if err != nil {
		t.Fatal(err)
	}
	most := 0
	for _, file := range files {
		seed, actions := readTraceActions(t, file)
		s, err := q.Start(seed)
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range actions {
			ns := s
			e := &engine{q: q, s: &ns, rnd: alea.FromState(s.Alea)}
			if err := e.perform(a); err != nil {
				t.Fatal(err)
			}
			most = max(most, e.autos)
			if s, err = q.Perform(s, a); err != nil {
				t.Fatal(err)
			}
		}
	}
	if most <= 3000 {
		t.Fatalf("longest chain %d automatic jumps, want over 3000", most)
	}
}

// readTraceActions reads the seed and the actions of a golden trace.
func readTraceActions(t *testing.T, file string) (string, []int) {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(zr)
	var seed string
	var actions []int
	for dec.More() {
		var rec struct {
			Type   string `json:"type"`
			Seed   string `json:"seed"`
			Step   int    `json:"step"`
			Action *int   `json:"action"`
		}
		if err := dec.Decode(&rec); err != nil {
			t.Fatal(err)
		}
		switch {
		case rec.Type == "header":
			seed = rec.Seed
		case rec.Type == "step" && rec.Step > 0 && rec.Action != nil:
			actions = append(actions, *rec.Action)
		}
	}
	return seed, actions
}

// naiveDisplayTags is the reference's [d processing step by step: the whole string is rebuilt
// at each replacement and the search position is carried over. displayTags must agree with it.
func (t *substituter) naiveDisplayTags(str string, diamond, depth int) (string, error) {
	pos := 0 // where the next search starts, a byte offset into str
	for pos <= len(str) {
		k := strings.Index(str[pos:], "[d")
		if k < 0 {
			break
		}
		d := pos + k
		scan := d + 2
		for scan < len(str) && str[scan] >= '0' && str[scan] <= '9' {
			scan++
		}
		digits := str[d+2 : scan]
		if digits == "" {
			pos = scan
			continue
		}
		idx := paramIndex(digits, len(t.params))
		if idx < 0 {
			str = str[:d] + clr + "UNKNOWN_PARAM" + clrEnd + str[skipUnit(str, scan):]
			continue
		}
		value := t.params[idx]
		switch {
		case scan < len(str) && str[scan] == ']':
			scan++
		case scan < len(str) && str[scan] == ':':
			scan++
			var src string
			src, scan = tagFormula(str, scan)
			if inner, ok := insideBraces(src); ok {
				src = inner
			}
			v, err := t.q.textFormula(src).eval(t.params, t.rnd)
			if err != nil {
				return "", err
			}
			value = v
		default:
			return str, nil
		}

		replaced := false
		for _, r := range t.q.params[idx].ranges {
			if value >= r.from && value <= r.to {
				inner, err := t.subst(r.text.src, diamond, depth+1)
				if err != nil {
					return "", err
				}
				old := str
				str = old[:d] + clr + inner + clrEnd + old[min(scan, len(old)):]
				// The reference goes on from the tag's end as an offset into the old string
				// (in UTF-16 units), applied to the new one.
				pos = d + advanceUnits(str[d:], utf16Len(old[d:min(scan, len(old))]))
				if scan > len(old) {
					pos = len(str) + 1
				}
				replaced = true
				break
			}
		}
		if !replaced {
			pos = scan
		}
	}
	return str, nil
}

// Ensure displayTags agrees with the step-by-step port of the reference on texts made of the
// fragments that matter to it, including malformed tags and non-ASCII text around them.
func TestDisplayTagsMatchesNaive(t *testing.T) {
	t.Parallel()
	frags := []string{"[d1]", "[d2]", "[d3]", "[d4]", "[d", "[d1:", "[d2:{[p1]+4}]", "[d2:25]",
		"[d1:[1..3]]", "[d2: { 6 - 3 } ]", "[d0]", "[d99x", "[d2x", "]", "[", "{", "}", "x", "Жж",
		"😀", " ", "[d1:{", "[d3:30]", "[d2:1+1]", "[d1:{[p1] + [p2] - [p2] + 0 + 0 + 0 + 0}]"}
	// Longer and shorter display strings than the tags, some with malformed tags of their own
	// or braces.
	q, tc := rangesQuest([][]displayRangeSpec{
		{{0, 20, "Ж"}, {21, 40, "a long display string 😀 with [d and more"}},
		{{0, 5, "Fial"}, {5, 21, "Фиал {"}, {21, 26, "Bottle"}},
		{{0, 29, "[d x"}, {30, 30, "Lol [d1]"}},
	})
	gen := alea.New("dtags")
	for n := 0; n < 20000; n++ {
		var b strings.Builder
		for k := gen.Random(8); k >= 0; k-- {
			b.WriteString(frags[gen.Random(len(frags))])
		}
		src := b.String()
		params := []int{gen.Random(41), gen.Random(30), 25 + gen.Random(10)}
		p := DefaultPlayer(English, time.Time{})
		a := &substituter{q: q, params: params, rnd: alea.New(src), player: p}
		c := &substituter{q: q, params: params, rnd: alea.New(src), player: p}
		want, werr := a.naiveDisplayTags(src, -1, 0)
		got, gerr := c.displayTags(src, -1, 0)
		if got != want || (werr == nil) != (gerr == nil) {
			t.Fatalf("text %q params %v: got %q (%v), want %q (%v)", src, params, got, gerr,
				want, werr)
		}
		// The whole substitution, staged and compiled, with the same draws.
		diamond := gen.Random(4) - 1
		staged := &substituter{q: q, params: params, rnd: alea.New(src), player: p}
		compiled := &substituter{q: q, params: params, rnd: alea.New(src), player: p}
		want, werr = staged.subst(src, diamond, 0)
		got, gerr = compiled.render(tc.text(src, diamond))
		if got != want || (werr == nil) != (gerr == nil) ||
			staged.rnd.(*alea.Alea).State() != compiled.rnd.(*alea.Alea).State() {
			t.Fatalf("text %q params %v diamond %d: compiled %q (%v), staged %q (%v)", src,
				params, diamond, got, gerr, want, werr)
		}
	}
}

// Ensure a display string that refers to itself ends with ErrTextTooDeep instead of recursing
// without end.
func TestDisplayTagsTooDeep(t *testing.T) {
	q, tc := rangesQuest([][]displayRangeSpec{{{0, 10, "again [d1]"}}})
	p := DefaultPlayer(English, time.Time{})
	s := &substituter{q: q, params: []int{5}, rnd: alea.New("x"), player: p}
	if _, err := s.render(tc.text("start [d1]", -1)); !errors.Is(err, ErrTextTooDeep) {
		t.Fatalf("err %v, want ErrTextTooDeep", err)
	}
	if _, err := s.subst("start [d1]", -1, 0); !errors.Is(err, ErrTextTooDeep) {
		t.Fatalf("staged: err %v, want ErrTextTooDeep", err)
	}
}

// Ensure a formula that does not parse leaves the quest playable until the formula is needed,
// and is then reported as a *FormulaError, the state unchanged.
func TestBrokenFormula(t *testing.T) {
	mq := chainQuest(2, false)
	mq.Jumps[1].FormulaToPass = "2 +" // the jump out of the second location
	q, err := Compile(mq)
	if err != nil {
		t.Fatal(err)
	}
	s, err := q.Start("seed")
	if err != nil {
		t.Fatal(err)
	}
	got, err := q.Perform(s, JumpIAgree)
	var fe *FormulaError
	if !errors.As(err, &fe) || fe.Formula != "2 +" {
		t.Fatalf("err %v, want a *FormulaError for %q", err, "2 +")
	}
	if got.Phase != PhaseStarting {
		t.Fatalf("state changed to %v", got.Phase)
	}
}
