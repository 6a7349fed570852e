package qmm_test

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/questbot/questbot/qmm"
	"github.com/questbot/questbot/quest/questtrace/corpus"
)

// corpusSets are the quest folders of the corpus (quests/ of the shared test corpus, see package
// corpus), each with a reference dump per quest in parsed/<set>.
var corpusSets = []string{"dagazbot", "srq-tests"}

// ownDir is the folder of the quests the project ships, which the codec's tests use without the
// corpus; their set is "uploads".
var ownDir = filepath.Join("..", "uploads")

// corpusFile is one quest of the corpus, or of the project's own.
type corpusFile struct {
	Set, Name string // folder and file name
	Path      string
	Data      []byte
}

// readSet reads every quest of a folder.
func readSet(tb testing.TB, set, dir string) []corpusFile {
	tb.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		tb.Fatal(err)
	}
	var out []corpusFile
	for _, e := range entries {
		ext := strings.ToLower(filepath.Ext(e.Name()))
		if e.IsDir() || (ext != ".qm" && ext != ".qmm") {
			continue
		}
		path := filepath.Join(dir, e.Name())
		data, err := os.ReadFile(path)
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, corpusFile{Set: set, Name: e.Name(), Path: path, Data: data})
	}
	if len(out) == 0 {
		tb.Fatalf("no quests in %s", dir)
	}
	return out
}

// loadCorpus reads every quest of the corpus; without the corpus the test is skipped (or fails
// where the corpus is required).
func loadCorpus(tb testing.TB) []corpusFile {
	tb.Helper()
	var out []corpusFile
	for _, set := range corpusSets {
		out = append(out, readSet(tb, set, corpus.Path(tb, "quests", set))...)
	}
	return out
}

// ownQuests reads the quests the project ships: every codec test that needs only valid quests
// runs on them, with or without the corpus.
func ownQuests(tb testing.TB) []corpusFile {
	tb.Helper()
	return readSet(tb, "uploads", ownDir)
}

// someQuests is the project's own quests, and the corpus's when it is there.
func someQuests(tb testing.TB) []corpusFile {
	tb.Helper()
	files := ownQuests(tb)
	if _, ok := corpus.Optional(tb); ok {
		files = append(files, loadCorpus(tb)...)
	}
	return files
}

// questPath is the file of a quest named "set/file": "uploads/..." is one of the project's own,
// anything else a quest of the corpus (e.g. "srq-tests/qmreader-1.qmm").
func questPath(tb testing.TB, name string) string {
	tb.Helper()
	if rest, ok := strings.CutPrefix(name, "uploads/"); ok {
		return filepath.Join(ownDir, rest)
	}
	return corpus.Path(tb, "quests", filepath.FromSlash(name))
}

// readFile reads a quest named as questPath names it.
func readFile(tb testing.TB, name string) []byte {
	tb.Helper()
	data, err := os.ReadFile(questPath(tb, name))
	if err != nil {
		tb.Fatal(err)
	}
	return data
}

// readQuest decodes a quest named as questPath names it.
func readQuest(tb testing.TB, name string) *qmm.Quest {
	tb.Helper()
	q, err := qmm.Decode(bytes.NewReader(readFile(tb, name)))
	if err != nil {
		tb.Fatalf("decode %s: %v", name, err)
	}
	return q
}

// encode encodes q, failing the test on error.
func encode(tb testing.TB, q *qmm.Quest) []byte {
	tb.Helper()
	var buf bytes.Buffer
	if err := qmm.Encode(&buf, q); err != nil {
		tb.Fatalf("encode: %v", err)
	}
	return buf.Bytes()
}

// diff lists up to max differences between want and got as "path: want X, got Y" lines.
// Floats are equal when their bits are, so NaN equals itself.
func diff(want, got any, max int) []string {
	var out []string
	var walk func(path string, a, b reflect.Value)
	walk = func(path string, a, b reflect.Value) {
		if len(out) >= max {
			return
		}
		switch a.Kind() {
		case reflect.Pointer:
			if a.IsNil() || b.IsNil() {
				if a.IsNil() != b.IsNil() {
					out = append(out, fmt.Sprintf("%s: want nil=%v, got nil=%v", path, a.IsNil(), b.IsNil()))
				}
				return
			}
			walk(path, a.Elem(), b.Elem())
		case reflect.Struct:
			for i := range a.NumField() {
				walk(path+"."+a.Type().Field(i).Name, a.Field(i), b.Field(i))
			}
		case reflect.Slice:
			if a.IsNil() != b.IsNil() && (a.Len() > 0 || b.Len() > 0) {
				out = append(out, fmt.Sprintf("%s: want nil=%v, got nil=%v", path, a.IsNil(), b.IsNil()))
				return
			}
			if a.IsNil() != b.IsNil() {
				out = append(out, fmt.Sprintf("%s: want nil=%v (empty), got nil=%v (empty)", path, a.IsNil(), b.IsNil()))
				return
			}
			if a.Len() != b.Len() {
				out = append(out, fmt.Sprintf("%s: want len %d, got len %d", path, a.Len(), b.Len()))
			}
			for i := range min(a.Len(), b.Len()) {
				walk(fmt.Sprintf("%s[%d]", path, i), a.Index(i), b.Index(i))
			}
		case reflect.Float64:
			if math.Float64bits(a.Float()) != math.Float64bits(b.Float()) {
				out = append(out, fmt.Sprintf("%s: want %v, got %v", path, a.Float(), b.Float()))
			}
		default:
			if !a.Equal(b) {
				out = append(out, fmt.Sprintf("%s: want %#v, got %#v", path, a.Interface(), b.Interface()))
			}
		}
	}
	walk("", reflect.ValueOf(want), reflect.ValueOf(got))
	return out
}

// checkEqual fails the test with the first differences between want and got.
func checkEqual(tb testing.TB, want, got *qmm.Quest) {
	tb.Helper()
	if d := diff(want, got, 10); len(d) > 0 {
		tb.Errorf("models differ (want, got):\n%s", strings.Join(d, "\n"))
	}
}

// asWritten returns a copy of q changed the way Encode documents: the magic and version it
// writes, no Parsec or Artefact, changes that change nothing dropped. Decoding q's encoding
// must give exactly this.
func asWritten(q *qmm.Quest) *qmm.Quest {
	c := *q
	if !c.Magic.HasVersion() {
		c.MajorVersion, c.MinorVersion = 1, 0
	}
	if c.Magic.OldTGE() {
		c.Magic = qmm.MagicQMM7OldTGE
	} else {
		c.Magic = qmm.MagicQMM7
	}
	c.Strings.Parsec, c.Strings.Artefact = qmm.OptString{}, qmm.OptString{}
	c.Locations = slices.Clone(c.Locations)
	for i := range c.Locations {
		l := &c.Locations[i]
		l.Changes = asWrittenChanges(l.Changes)
		t := l.Type()
		l.IsStarting, l.IsSuccess, l.IsEmpty = t == qmm.LocationStarting, t == qmm.LocationSuccess, t == qmm.LocationEmpty
		l.IsFail, l.IsDeadly = t == qmm.LocationFail, t == qmm.LocationDeadly
	}
	c.Jumps = slices.Clone(c.Jumps)
	for i := range c.Jumps {
		c.Jumps[i].Changes = asWrittenChanges(c.Jumps[i].Changes)
	}
	return &c
}

func asWrittenChanges(list []qmm.ParamChange) []qmm.ParamChange {
	var out []qmm.ParamChange
	for _, c := range list {
		m := c.Media
		if c.Change == 0 && c.Showing == 0 && !c.IsFormula && !c.IsValue && !c.IsPercentage &&
			c.Formula == "" && c.CritText == "" && m.Image.Value == "" && m.Sound.Value == "" &&
			m.Track.Value == "" {
			continue // not written
		}
		switch {
		case c.IsFormula:
			c.IsValue, c.IsPercentage = false, false
		case c.IsValue:
			c.IsPercentage = false
		}
		c.Showing &= 0xFF
		if !c.IsDefault() {
			out = append(out, c)
		}
	}
	return out
}
