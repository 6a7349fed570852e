package qmm_test

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/questbot/questbot/qmm"
)

// fileBuilder writes quest files by hand, for inputs the encoder never produces.
type fileBuilder struct{ b []byte }

func (f *fileBuilder) i32(vs ...int32) *fileBuilder {
	for _, v := range vs {
		f.b = binary.LittleEndian.AppendUint32(f.b, uint32(v))
	}
	return f
}

func (f *fileBuilder) u8(vs ...uint8) *fileBuilder {
	f.b = append(f.b, vs...)
	return f
}

func (f *fileBuilder) f64(v float64) *fileBuilder {
	f.b = binary.LittleEndian.AppendUint64(f.b, math.Float64bits(v))
	return f
}

// str writes a present string of ASCII characters.
func (f *fileBuilder) str(s string) *fileBuilder {
	f.i32(1, int32(len(s)))
	for _, c := range []byte(s) {
		f.b = append(f.b, c, 0)
	}
	return f
}

// none writes an absent string.
func (f *fileBuilder) none(n int) *fileBuilder {
	for range n {
		f.i32(0)
	}
	return f
}

// header writes a QMM_6 header announcing nParams parameters.
func (f *fileBuilder) header(nParams int32) *fileBuilder {
	f.i32(int32(qmm.MagicQMM6)).u8(1, 0, 64, 1, 4)
	return f.i32(5, 800, 600, 10, 8, 0, 50, nParams)
}

// param writes a .qmm parameter with range min..max.
func (f *fileBuilder) param(name string, min, max int32) *fileBuilder {
	f.i32(min, max).u8(0, 0, 0, 0, 1, 0, 1).i32(0).u8(0)
	return f.str(name).str("crit").none(3).str("[0]")
}

// stringsBlock writes a .qmm strings block announcing the given counts.
func (f *fileBuilder) stringsBlock(nLocations, nJumps int32) *fileBuilder {
	return f.none(7).i32(nLocations, nJumps).str("win").str("task")
}

// change writes a .qmm change record: add delta to parameter number paramNo (1-based).
func (f *fileBuilder) change(paramNo, delta int32) *fileBuilder {
	return f.i32(paramNo, delta).u8(0, 1).none(5)
}

// condition writes a .qmm condition record without value lists.
func (f *fileBuilder) condition(paramNo, from, to int32) *fileBuilder {
	return f.i32(paramNo, from, to, 0).u8(0).i32(0).u8(0)
}

// location writes the start of a .qmm location, up to its change count.
func (f *fileBuilder) location(id, nChanges int32) *fileBuilder {
	return f.i32(0, 10, 20, id, 0).u8(uint8(qmm.LocationStarting)).i32(nChanges)
}

// endLocation writes a .qmm location's texts (one) and text selection.
func (f *fileBuilder) endLocation() *fileBuilder {
	return f.i32(1).str("text").none(3).u8(0).str("")
}

// jump writes the start of a .qmm jump, up to its condition count.
func (f *fileBuilder) jump(id, nConds int32) *fileBuilder {
	return f.f64(1).i32(0, id, 1, 1).u8(0).i32(0, 0, nConds)
}

// endJump writes a .qmm jump's texts and media.
func (f *fileBuilder) endJump() *fileBuilder {
	return f.str("").str("go").str("").none(3)
}

// qmHeader writes a .qm header (magic m) up to the parameters.
func (f *fileBuilder) qmHeader(m qmm.Magic) *fileBuilder {
	f.i32(int32(m), 0).u8(2, 1).i32(0).u8(64).i32(0).u8(4).i32(0).u8(31)
	return f.i32(-3, 1024, 768, 10, 8, 0, 7, 60)
}

// paramQM writes a .qm parameter with range min..max.
func (f *fileBuilder) paramQM(name string, min, max int32) *fileBuilder {
	f.i32(min, max, (min+max)/2).u8(0).i32(0).u8(1, 0, 1).i32(1).u8(0).str(name)
	return f.i32(min, max).str("<>").str("crit").str(fmt.Sprintf("[%d]", min))
}

// stringsQM writes a .qm strings block announcing the given counts.
func (f *fileBuilder) stringsQM(nLocations, nJumps int32) *fileBuilder {
	f.str("star").str("parsec").none(1).none(6).i32(nLocations, nJumps)
	return f.str("win").str("task").none(1)
}

// locationQM writes a .qm location of the given kind (five flags) with one text; the change
// for the first parameter adds delta, the others change nothing.
func (f *fileBuilder) locationQM(id int32, nParams int, flags [5]uint8, delta int32) *fileBuilder {
	f.i32(1, 30, 40, id).u8(flags[:]...)
	for p := range nParams {
		d := int32(0)
		if p == 0 {
			d = delta
		}
		f.i32(0, 0, 0, d).u8(0).i32(0).u8(0, 0, 0).none(1).u8(make([]byte, 10)...).none(1)
	}
	f.str("text").none(9)
	return f.u8(0).i32(0).none(2).str("")
}

// jumpQM writes a .qm jump whose conditions are the parameters' whole ranges, except that the
// first parameter must be in from..to.
func (f *fileBuilder) jumpQM(id, fromLoc, toLoc int32, ranges [][2]int32, from, to int32) *fileBuilder {
	f.f64(0.5).i32(0, id, fromLoc, toLoc).u8(3, 1).i32(2, 3)
	for p, r := range ranges {
		if p == 0 {
			r = [2]int32{from, to}
		}
		f.i32(0, r[0], r[1], 0, 0).u8(0, 0, 0, 0).none(1).i32(0).u8(1).i32(0).u8(1).none(1)
	}
	return f.str("").str("go").str("went")
}

// minimalQM2 is a QM_2 quest (24 parameters) with two locations and one jump; no corpus quest
// has this magic.
func minimalQM2() []byte {
	f := (&fileBuilder{}).qmHeader(qmm.MagicQM2)
	var ranges [][2]int32
	for p := range 24 {
		f.paramQM(fmt.Sprint("p", p+1), int32(p), int32(p+10))
		ranges = append(ranges, [2]int32{int32(p), int32(p + 10)})
	}
	f.stringsQM(2, 1)
	f.locationQM(1, 24, [5]uint8{1, 0, 0, 0, 0}, 5)
	f.locationQM(2, 24, [5]uint8{0, 1, 0, 0, 1}, 0)
	return f.jumpQM(1, 1, 2, ranges, 3, 4).b
}

// TestQM2 decodes a hand-made QM_2 file.
func TestQM2(t *testing.T) {
	t.Parallel()
	q, err := qmm.DecodeBytes(minimalQM2())
	if err != nil {
		t.Fatal(err)
	}
	l1, l2, j := &q.Locations[0], &q.Locations[1], &q.Jumps[0]
	checks := []fieldCheck{
		{"magic", q.Magic, qmm.MagicQM2},
		{"old TGE", q.OldTGE(), true},
		{"params", len(q.Params), 24},
		{"param 2", q.Params[1].Min, int32(1)},
		{"param ranges", q.Params[1].Ranges, []qmm.ParamRange{{From: 1, To: 11, Text: "<>"}}},
		{"starting", q.Params[23].Starting, "[23]"},
		{"header", []any{q.GivingRace, q.WhenDone, q.PlanetRace, q.PlayerCareer, q.PlayerRace, q.Hardness},
			[]any{uint8(2), uint8(1), uint8(64), uint8(4), uint8(31), int32(60)}},
		{"parsec", q.Strings.Parsec, qmm.Some("parsec")},
		{"artefact", q.Strings.Artefact, qmm.OptString{}},
		{"texts", len(l1.Texts), 10},
		{"text", l1.Texts[0].Text, "text"},
		{"start", q.StartLocation(), 0},
		{"location change", l1.Changes, []qmm.ParamChange{{Param: 0, Change: 5}}},
		{"two kinds", []bool{l2.IsSuccess, l2.IsEmpty, l2.Type() == qmm.LocationSuccess}, []bool{true, true, true}},
		{"conditions", len(j.Conditions), 24}, // the flags make every one differ from the default
		{"condition 1", q.Condition(j, 0), qmm.Condition{Param: 0, MustFrom: 3, MustTo: 4, MustEqual: true, MustMod: true}},
		{"jump", []any{j.Priority, j.AlwaysShow, j.CountLimit, j.ShowingOrder, j.Text, j.Description},
			[]any{0.5, true, int32(2), int32(3), "go", "went"}},
	}
	for _, c := range checks {
		if d := diff(c.want, c.got, 1); len(d) > 0 {
			t.Errorf("%s: %s", c.name, d[0])
		}
	}
	q2, err := qmm.DecodeBytes(encode(t, q))
	if err != nil {
		t.Fatal(err)
	}
	checkEqual(t, asWritten(q), q2)
}

// checkFormatError checks that err is a *qmm.FormatError and whether it reports truncation.
func checkFormatError(t *testing.T, err error, truncated bool) *qmm.FormatError {
	t.Helper()
	var fe *qmm.FormatError
	if !errors.As(err, &fe) {
		t.Fatalf("got error %v (%T), want a *qmm.FormatError", err, err)
	}
	if errors.Is(err, io.ErrUnexpectedEOF) != truncated {
		t.Fatalf("%v: errors.Is(err, io.ErrUnexpectedEOF) = %v, want %v", err, !truncated, truncated)
	}
	if !strings.HasPrefix(err.Error(), "qmm: invalid format at offset 0x") {
		t.Fatalf("error message %q", err)
	}
	return fe
}

// TestReaders decodes quests through readers that return few bytes at a time.
func TestReaders(t *testing.T) {
	t.Parallel()
	files := someQuests(t)
	readers := []struct {
		name string
		wrap func(io.Reader) io.Reader
	}{
		{"OneByteReader", iotest.OneByteReader},
		{"HalfReader", iotest.HalfReader},
		{"DataErrReader", iotest.DataErrReader},
	}
	for _, r := range readers {
		t.Run(r.name, func(t *testing.T) {
			t.Parallel()
			// The project's quests, the corpus's small test quests of every layout, and its
			// largest quest.
			for _, f := range files {
				if f.Set != "uploads" && f.Set != "srq-tests" && f.Name != "t18.qmm" {
					continue
				}
				want, err := qmm.DecodeBytes(f.Data)
				if err != nil {
					t.Fatal(err)
				}
				got, err := qmm.Decode(r.wrap(bytes.NewReader(f.Data)))
				if err != nil {
					t.Fatalf("%s: %v", f.Name, err)
				}
				checkEqual(t, want, got)
			}
		})
	}
}

// TestReadError checks that an error of the reader is returned as it is, not as a format error.
func TestReadError(t *testing.T) {
	t.Parallel()
	data := ownQuests(t)[0].Data
	_, err := qmm.Decode(iotest.TimeoutReader(bytes.NewReader(data)))
	if !errors.Is(err, iotest.ErrTimeout) {
		t.Fatalf("got %v, want iotest.ErrTimeout", err)
	}
	var fe *qmm.FormatError
	if errors.As(err, &fe) {
		t.Fatalf("read error reported as a format error: %v", err)
	}
}

// TestTruncated decodes every prefix of small quests of each layout: all must fail as
// truncated.
func TestTruncated(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"uploads/cargo-run_en.qmm", "uploads/duel_ru.qmm", "srq-tests/qmreader-1.qm", "srq-tests/qmreader-1.qmm",
		"srq-tests/mediatest.qmm", "dagazbot/15.qm", "dagazbot/steelrat.qmm"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			q := readQuest(t, name)
			for _, data := range [][]byte{readFile(t, name), encode(t, q)} {
				// Every cut in the first 500 bytes (the header and the first records), then
				// about 150 more.
				for n := 0; n < len(data); n += 1 + min(n/500, 1)*len(data)/150 {
					_, err := qmm.DecodeBytes(data[:n])
					fe := checkFormatError(t, err, true)
					if fe.Offset > int64(n) {
						t.Fatalf("prefix of %d bytes: offset %d past the end", n, fe.Offset)
					}
				}
				_, err := qmm.Decode(iotest.OneByteReader(bytes.NewReader(data[:len(data)-1])))
				checkFormatError(t, err, true)
			}
		})
	}
}

func TestTrailingBytes(t *testing.T) {
	t.Parallel()
	data := append(bytes.Clone(readFile(t, "uploads/cargo-run_en.qmm")), 0)
	_, err := qmm.DecodeBytes(data)
	fe := checkFormatError(t, err, false)
	if fe.Offset != int64(len(data)-1) || !strings.Contains(fe.Msg, "1 bytes after the last jump") {
		t.Fatalf("got %v", err)
	}
}

func TestUnknownMagic(t *testing.T) {
	t.Parallel()
	for _, data := range [][]byte{
		[]byte("\x89PNG\r\n\x1a\n"),
		(&fileBuilder{}).i32(0x423A35D5).b,
		(&fileBuilder{}).i32(0).b,
	} {
		_, err := qmm.DecodeBytes(data)
		checkFormatError(t, err, false)
		if !errors.Is(err, qmm.ErrUnknownMagic) {
			t.Fatalf("got %v, want ErrUnknownMagic", err)
		}
	}
	for n := range 4 {
		_, err := qmm.DecodeBytes([]byte{0xD7, 0x35, 0x3A, 0x42}[:n])
		checkFormatError(t, err, true)
	}
}

// TestHugeCounts feeds small files that announce huge counts or lengths: each must fail at once
// as truncated, without allocating memory for what it announces.
func TestHugeCounts(t *testing.T) {
	const billion = 1_000_000_000
	cases := map[string][]byte{
		"params":    (&fileBuilder{}).header(billion).b,
		"locations": (&fileBuilder{}).header(0).stringsBlock(billion, 0).b,
		"jumps":     (&fileBuilder{}).header(0).stringsBlock(0, billion).b,
		"qm locations": (&fileBuilder{}).i32(int32(qmm.MagicQM2)).i32(0).u8(0, 0).i32(0).u8(0).
			i32(0).u8(0).i32(0).u8(0).i32(0, 0, 0, 0, 0, 0, 0, 0).b,
		"string":     (&fileBuilder{}).header(0).i32(1, billion).b,
		"ranges":     (&fileBuilder{}).header(1).i32(0, 1).u8(0, 0, 0, 0, 0, 0, 0).i32(billion).b,
		"texts":      (&fileBuilder{}).header(0).stringsBlock(1, 0).location(1, 0).i32(billion).b,
		"changes":    (&fileBuilder{}).header(0).stringsBlock(1, 0).location(1, billion).b,
		"conditions": (&fileBuilder{}).header(1).param("p", 0, 9).stringsBlock(0, 1).jump(1, billion).b,
		"equal values": (&fileBuilder{}).header(1).param("p", 0, 9).stringsBlock(0, 1).jump(1, 1).
			i32(1, 0, 9, billion).b,
		"max string": (&fileBuilder{}).header(0).i32(1, math.MaxInt32).b,
		"max params": (&fileBuilder{}).header(math.MaxInt32).b,
	}
	for name, data := range cases {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err := qmm.DecodeBytes(data)
		runtime.ReadMemStats(&after)
		checkFormatError(t, err, true)
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<10 {
			t.Errorf("%s: %d bytes allocated for a %d-byte file", name, alloc, len(data))
		}
	}
}

// TestCorrupt checks the values that are errors although enough data follows.
func TestCorrupt(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		data []byte
		msg  string
	}{
		"negative params": {(&fileBuilder{}).header(-1).b, "negative parameters count -1"},
		"negative locations": {(&fileBuilder{}).header(0).stringsBlock(-5, 0).b,
			"negative locations count -5"},
		"negative string": {(&fileBuilder{}).header(0).i32(1, -1).none(20).b,
			"negative string length -1"},
		"param number 0": {(&fileBuilder{}).header(1).param("p", 0, 9).stringsBlock(1, 0).
			location(1, 1).change(0, 1).endLocation().b, "parameter number 0 out of range 1..1"},
		"param number too big": {(&fileBuilder{}).header(1).param("p", 0, 9).stringsBlock(0, 1).
			jump(1, 1).condition(2, 0, 1).i32(0).endJump().b, "parameter number 2 out of range 1..1"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := qmm.DecodeBytes(c.data)
			fe := checkFormatError(t, err, false)
			if !strings.Contains(fe.Msg, c.msg) {
				t.Fatalf("got %q, want it to contain %q", fe.Msg, c.msg)
			}
		})
	}
}

// TestCorruptBytes overwrites bytes of real files: decoding must never panic, must fail with a
// *FormatError or succeed, and a successful result must encode and decode again.
func TestCorruptBytes(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"uploads/cargo-run_en.qmm", "srq-tests/qmreader-1.qm", "srq-tests/qmreader-1.qmm"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			orig := readFile(t, name)
			data := bytes.Clone(orig)
			// Every byte of the first 256, then about 150 more positions.
			for i := 0; i < len(data); i += 1 + min(i/256, 1)*len(data)/150 {
				for _, v := range []byte{0xFF, 0x01} {
					data[i] = v
					q, err := qmm.DecodeBytes(data)
					if err != nil {
						var fe *qmm.FormatError
						if !errors.As(err, &fe) {
							t.Fatalf("%s byte %d=%#x: %v", name, i, v, err)
						}
					} else if _, err := qmm.DecodeBytes(encode(t, q)); err != nil {
						t.Fatalf("%s byte %d=%#x: decode the encoding: %v", name, i, v, err)
					}
				}
				data[i] = orig[i]
			}
		})
	}
}

// TestSparseLists checks how .qmm change and condition lists become the sparse model: any order,
// the last record of a parameter wins, records equal to the default are dropped.
func TestSparseLists(t *testing.T) {
	t.Parallel()
	f := (&fileBuilder{}).header(3).param("a", 0, 10).param("b", -5, 5).param("c", 0, 1).
		stringsBlock(1, 1).
		location(7, 4).change(3, 1).change(1, 2).change(3, 4).change(2, 0).endLocation().
		jump(9, 4).condition(2, -1, 1).condition(1, 0, 10).condition(3, 0, 1).condition(2, -2, 2).
		i32(2).change(2, 5).change(2, 0).endJump()
	q, err := qmm.DecodeBytes(f.b)
	if err != nil {
		t.Fatal(err)
	}
	l, j := &q.Locations[0], &q.Jumps[0]
	add := func(p, delta int32) qmm.ParamChange { return qmm.ParamChange{Param: p, Change: delta} }
	checks := []fieldCheck{
		{"location changes", l.Changes, []qmm.ParamChange{add(0, 2), add(2, 4)}},
		{"location Change(1)", l.Change(1), qmm.ParamChange{Param: 1}},
		{"location Change(2)", l.Change(2), add(2, 4)},
		{"dense changes", qmm.DenseChanges(l.Changes, 3), []qmm.ParamChange{add(0, 2), {Param: 1}, add(2, 4)}},
		{"jump conditions", j.Conditions, []qmm.Condition{{Param: 1, MustFrom: -2, MustTo: 2}}},
		{"jump Condition(0)", q.Condition(j, 0), qmm.Condition{Param: 0, MustFrom: 0, MustTo: 10}},
		{"jump Condition(1)", q.Condition(j, 1), qmm.Condition{Param: 1, MustFrom: -2, MustTo: 2}},
		{"jump Conditions", q.Conditions(j), []qmm.Condition{
			{Param: 0, MustFrom: 0, MustTo: 10},
			{Param: 1, MustFrom: -2, MustTo: 2},
			{Param: 2, MustFrom: 0, MustTo: 1},
		}},
		{"jump changes", j.Changes, []qmm.ParamChange(nil)},
		{"kind", l.Changes[0].Kind(), qmm.ChangeAdd},
		{"start", q.StartLocation(), 0},
		{"old TGE", q.OldTGE(), false},
	}
	for _, c := range checks {
		if d := diff(c.want, c.got, 1); len(d) > 0 {
			t.Errorf("%s: %s", c.name, d[0])
		}
	}
	q2, err := qmm.DecodeBytes(encode(t, q))
	if err != nil {
		t.Fatal(err)
	}
	checkEqual(t, asWritten(q), q2)
}

// TestStringsRoundTrip checks strings outside the basic plane, lone surrogates and invalid
// UTF-8 through Encode and Decode.
func TestStringsRoundTrip(t *testing.T) {
	t.Parallel()
	cases := []struct{ in, want string }{
		{"", ""},
		{"plain ASCII", "plain ASCII"},
		{"Привет, <Ranger>!", "Привет, <Ranger>!"},
		{"emoji 😀 and 𝄞", "emoji 😀 and 𝄞"},
		{"lone high \xed\xa0\x80 end", "lone high \xed\xa0\x80 end"},
		{"lone low \xed\xbf\xbf", "lone low \xed\xbf\xbf"},
		{"\xed\xb0\x80\xed\xa0\x80", "\xed\xb0\x80\xed\xa0\x80"}, // low then high: no pair
		{"bad \xff byte", "bad \uFFFD byte"},
		{"cut \xe2\x82", "cut \uFFFD\uFFFD"},
	}
	for _, c := range cases {
		q := &qmm.Quest{Magic: qmm.MagicQMM7, TaskText: c.in, ChangeLog: qmm.Some(c.in)}
		got, err := qmm.DecodeBytes(encode(t, q))
		if err != nil {
			t.Fatal(err)
		}
		if got.TaskText != c.want || got.ChangeLog != qmm.Some(c.want) {
			t.Errorf("%q: got %q and %q, want %q", c.in, got.TaskText, got.ChangeLog.Value, c.want)
		}
	}
	// A valid pair split across the file's code units is one character in the model.
	f := (&fileBuilder{}).header(0).i32(1, 2).u8(0x3D, 0xD8, 0x00, 0xDE).none(6).
		i32(0, 0).str("").str("")
	q, err := qmm.DecodeBytes(f.b)
	if err != nil {
		t.Fatal(err)
	}
	if q.Strings.ToStar != "😀" {
		t.Fatalf("got %q", q.Strings.ToStar)
	}
}

// TestDecodeBytesCopies checks that the model does not share memory with the input.
func TestDecodeBytesCopies(t *testing.T) {
	t.Parallel()
	data := bytes.Clone(readFile(t, "srq-tests/qmreader-1.qmm"))
	q, err := qmm.DecodeBytes(data)
	if err != nil {
		t.Fatal(err)
	}
	before := q.TaskText
	clear(data)
	if q.TaskText != "TaskText" || before != "TaskText" {
		t.Fatalf("TaskText changed to %q", q.TaskText)
	}
}

func TestEncodeErrors(t *testing.T) {
	t.Parallel()
	params := []qmm.Param{{Min: 0, Max: 1}}
	cases := map[string]*qmm.Quest{
		"nil":           nil,
		"unknown magic": {Magic: 7},
		"change out of range": {Magic: qmm.MagicQMM7, Params: params,
			Locations: []qmm.Location{{Changes: []qmm.ParamChange{{Param: 1, Change: 1}}}}},
		"negative change param": {Magic: qmm.MagicQMM7, Params: params,
			Jumps: []qmm.Jump{{Changes: []qmm.ParamChange{{Param: -1, Change: 1}}}}},
		"condition twice": {Magic: qmm.MagicQMM7, Params: params,
			Jumps: []qmm.Jump{{Conditions: []qmm.Condition{{Param: 0, MustTo: 1}, {Param: 0}}}}},
	}
	for name, q := range cases {
		var buf bytes.Buffer
		err := qmm.Encode(&buf, q)
		if !errors.Is(err, qmm.ErrInvalidQuest) {
			t.Errorf("%s: got %v, want ErrInvalidQuest", name, err)
		}
		if buf.Len() != 0 {
			t.Errorf("%s: %d bytes written", name, buf.Len())
		}
	}
	// Unsorted lists are fine.
	q := &qmm.Quest{Magic: qmm.MagicQMM6, Params: append(params, qmm.Param{Max: 3}),
		Jumps: []qmm.Jump{{Changes: []qmm.ParamChange{{Param: 1, Change: 1}, {Param: 0, Change: 2}}}}}
	got, err := qmm.DecodeBytes(encode(t, q))
	if err != nil {
		t.Fatal(err)
	}
	if want := []qmm.ParamChange{{Param: 0, Change: 2}, {Param: 1, Change: 1}}; len(diff(want, got.Jumps[0].Changes, 1)) > 0 {
		t.Fatalf("got %+v", got.Jumps[0].Changes)
	}
	if got.Magic != qmm.MagicQMM7 || got.MajorVersion != 1 || got.MinorVersion != 0 {
		t.Fatalf("QMM_6 written as %v %d.%d, want QMM_7 1.0", got.Magic, got.MajorVersion, got.MinorVersion)
	}
}

// TestJSON checks the JSON form used by the inspector: absent strings are left out, present
// empty ones kept.
func TestJSON(t *testing.T) {
	t.Parallel()
	q := readQuest(t, "srq-tests/qmreader-1.qmm")
	b, err := json.Marshal(q)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	for _, want := range []string{`"header":1111111127`, `"media":{"img":"p2img","sound":"p2sound","track":"p2track"}`, `"locX":204`} {
		if !strings.Contains(s, want) {
			t.Errorf("JSON lacks %s", want)
		}
	}
	if strings.Contains(s, `"changeLogString"`) || strings.Contains(s, `"Parsec"`) {
		t.Errorf("JSON has absent strings")
	}
	b, _ = json.Marshal(qmm.Media{Image: qmm.Some("")})
	if string(b) != `{"img":""}` {
		t.Errorf("got %s", b)
	}
}

func TestMagic(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		m                      qmm.Magic
		name                   string
		qm, oldTGE, hasVersion bool
		params                 int
	}{
		{qmm.MagicQM2, "QM_2", true, true, false, 24},
		{qmm.MagicQM3, "QM_3", true, true, false, 48},
		{qmm.MagicQM4, "QM_4", true, true, false, 96},
		{qmm.MagicQMM6, "QMM_6", false, false, false, 0},
		{qmm.MagicQMM7, "QMM_7", false, false, true, 0},
		{qmm.MagicQMM7OldTGE, "QMM_7_WITH_OLD_TGE_BEHAVIOUR", false, true, true, 0},
	} {
		if c.m.String() != c.name || c.m.IsQM() != c.qm || c.m.IsQMM() == c.qm || !c.m.Known() ||
			c.m.OldTGE() != c.oldTGE || c.m.HasVersion() != c.hasVersion || c.m.ParamsCount() != c.params {
			t.Errorf("%s: wrong properties", c.name)
		}
	}
	if m := qmm.Magic(0x12345678); m.Known() || m.String() != "0x12345678" || m.IsQM() || m.IsQMM() {
		t.Errorf("unknown magic: wrong properties")
	}
}
