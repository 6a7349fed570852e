package alea

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/questbot/questbot/quest/questtrace/corpus"
)

// golden holds, per seed, the state right after seeding, the first eight draws of
// random(1000), and the state after 10 000 more draws, as the reference generator gives them.
var golden = []struct {
	seed    string
	st0     [4]float64
	draws   [8]int
	st10008 [4]float64
}{
	{"", [4]float64{0.8633289230056107, 0.15019597788341343, 0.9176952994894236, 1}, [8]int{445, 765, 278, 514, 953, 607, 791, 593}, [4]float64{0.5746510548051447, 0.615678277797997, 0.05933611444197595, 722810}},
	{"formula", [4]float64{0.2218523311894387, 0.0839342309627682, 0.6102671958506107, 1}, [8]int{988, 111, 667, 189, 749, 250, 226, 14}, [4]float64{0.4170095417648554, 0.33767233579419553, 0.8224703713785857, 1462023}},
	{"a", [4]float64{0.6564107977319509, 0.8672755148727447, 0.008185631828382611, 1}, [8]int{424, 290, 387, 523, 603, 588, 465, 757}, [4]float64{0.525664190063253, 0.3297469331882894, 0.449706147890538, 539127}},
	{"s1", [4]float64{0.8490794769022614, 0.6956550392787904, 0.6698416287545115, 1}, [8]int{747, 211, 874, 645, 516, 255, 750, 850}, [4]float64{0.7584301584865898, 0.9013612207490951, 0.2858019426930696, 315777}},
	{"0.4fzyo82mvyq", [4]float64{0.552110887831077, 0.44630882260389626, 0.13453829078935087, 1}, [8]int{665, 939, 536, 748, 70, 583, 520, 611}, [4]float64{0.40573955164290965, 0.9384358813986182, 0.033762396313250065, 1269423}},
	{"Кек", [4]float64{0.34283297788351774, 0.6365096720401198, 0.5521183011587709, 1}, [8]int{827, 454, 171, 562, 303, 582, 784, 44}, [4]float64{0.4145019499119371, 0.6713562186341733, 0.6119922259822488, 155821}},
	{"ёж🙂", [4]float64{0.40745654702186584, 0.06801225943490863, 0.45632406673394144, 1}, [8]int{4, 94, 214, 69, 63, 407, 507, 316}, [4]float64{0.7375606088899076, 0.3411201420240104, 0.09208774287253618, 645620}},
	{"a\x00b", [4]float64{0.1322062045801431, 0.9245119092520326, 0.4746227615978569, 1}, [8]int{653, 165, 478, 530, 752, 581, 419, 905}, [4]float64{0.8037562232930213, 0.283299959031865, 0.01255384273827076, 1029210}},
}

func TestGolden(t *testing.T) {
	t.Parallel()
	for _, g := range golden {
		a := New(g.seed)
		if got := a.State(); got != g.st0 {
			t.Errorf("New(%q).State() = %v, want %v", g.seed, got, g.st0)
			continue
		}
		for i, want := range g.draws {
			if got := a.Random(1000); got != want {
				t.Errorf("seed %q: draw %d = %d, want %d", g.seed, i, got, want)
			}
		}
		for range 10000 {
			a.Float()
		}
		if got := a.State(); got != g.st10008 {
			t.Errorf("seed %q: state after 10008 draws = %v, want %v", g.seed, got, g.st10008)
		}
	}
}

func TestSmallN(t *testing.T) {
	t.Parallel()
	// random(0) and random(1) return 0 but still advance the state.
	a, b := New("formula"), New("formula")
	for _, n := range []int{0, 1, 0, 1} {
		if got := a.Random(n); got != 0 {
			t.Errorf("Random(%d) = %d, want 0", n, got)
		}
		b.Float()
		if a.State() != b.State() {
			t.Fatalf("Random(%d) did not consume exactly one draw", n)
		}
	}
	// A negative n is not checked; the reference's floor(u*n) is in [n, 0].
	c := New("ёж🙂")
	c.Random(10)
	c.Random(0)
	if got := c.Random(-5); got != -2 {
		t.Errorf("Random(-5) = %d, want -2", got)
	}
}

func TestCopyAndState(t *testing.T) {
	t.Parallel()
	a := New("copy")
	a.Random(7)
	b := *a
	c := FromState(a.State())
	for i := range 100 {
		x, y, z := a.Random(100), b.Random(100), c.Random(100)
		if x != y || x != z {
			t.Fatalf("draw %d: original %d, copy %d, imported %d", i, x, y, z)
		}
	}
	// NaN (and -0) import as 0, like the reference's `+x || 0`.
	d := FromState([4]float64{math.NaN(), math.Copysign(0, -1), 0.5, math.NaN()})
	if got := d.State(); got != [4]float64{0, 0, 0.5, 0} || math.Signbit(got[1]) {
		t.Errorf("FromState(NaN, -0, 0.5, NaN).State() = %v", got)
	}
	// A corrupt state must not panic.
	e := FromState([4]float64{math.Inf(1), math.MaxFloat64, -1e300, math.Inf(-1)})
	for range 10 {
		e.Random(1 << 62)
	}
}

func TestToInt32(t *testing.T) {
	t.Parallel()
	cases := []struct{ in, want float64 }{
		{0, 0}, {-0.5, 0}, {1.9, 1}, {-1.9, -1}, {2147483647.5, 2147483647}, {2147483648, -2147483648},
		{4294967296 + 5, 5}, {-2147483649, 2147483647}, {math.NaN(), 0}, {math.Inf(1), 0},
	}
	for _, c := range cases {
		if got := toInt32(c.in); got != c.want || (got == 0 && math.Signbit(got)) {
			t.Errorf("toInt32(%v) = %v, want %v", c.in, got, c.want)
		}
	}
}

// TestTraceStart checks the generator against the step-0 state of a golden player trace: the
// game is seeded from the header's seed and every starting value drew once per logged pair.
func TestTraceStart(t *testing.T) {
	t.Parallel()
	dir := corpus.Path(t, "traces", "srq-tests")
	files, err := filepath.Glob(filepath.Join(dir, "*.jsonl.gz"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden traces in %s (err %v)", dir, err)
	}
	withDraws := 0
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		zr, err := gzip.NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(zr)
		sc.Buffer(nil, 64<<20)
		var header struct{ Seed string }
		var step struct {
			Step      int
			AleaState [4]float64
			Rnd       [][2]int
		}
		if !sc.Scan() || json.Unmarshal(sc.Bytes(), &header) != nil || !sc.Scan() || json.Unmarshal(sc.Bytes(), &step) != nil {
			t.Fatalf("%s: cannot read header and step 0", name)
		}
		f.Close()
		a := New(header.Seed)
		if len(step.Rnd) > 0 {
			withDraws++
		}
		for i, d := range step.Rnd {
			if got := a.Random(d[0]); got != d[1] {
				t.Fatalf("%s: step 0 draw %d: random(%d) = %d, want %d", filepath.Base(name), i, d[0], got, d[1])
			}
		}
		if got := a.State(); got != step.AleaState {
			t.Errorf("%s: step 0 state %v, want %v", filepath.Base(name), got, step.AleaState)
		}
	}
	if withDraws == 0 {
		t.Errorf("no trace in %s draws at step 0; the check proved nothing", dir)
	}
}
