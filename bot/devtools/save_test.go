package devtools

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/questbot/questbot/quest"
)

// Ensure a .qms save reads back what was written, Unicode included.
func TestQMSRoundTrip(t *testing.T) {
	t.Parallel()
	want := &qmsFile{Quest: "Груз 🚀.qmm", Location: 42, Params: []qmsParam{
		{Title: "Топливо", Min: -5, Max: 10, Value: 3}, {Title: "", Max: 1, Value: 1, Hidden: true}}}
	got, err := parseQMS(encodeQMS(want))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
}

// Ensure a JSON save reads back what was written, and is refused when it is not one.
func TestSaveRoundTrip(t *testing.T) {
	t.Parallel()
	st := quest.State{Seed: "s", Phase: quest.PhaseLocation, LocationID: 3, CritParam: quest.NoCrit, Params: []int{1, 2},
		Shown: quest.Flags{true, false}, Jumps: []quest.JumpOption{{ID: 4, Active: true}}, Alea: [4]float64{0.5, 0.25, 0.125, 7}}
	s := save{Format: saveFormat, Version: saveVersion, SavedAt: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
		Quest: saveQuest{ID: 9, Name: "Q", SHA256: "ab"}, Ranger: "Zed", State: st}
	data, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	got, err := parseSave(data)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(*got, s) {
		t.Errorf("got %+v, want %+v", *got, s)
	}
	for _, bad := range []string{``, `null`, `[]`, `{"format": "other", "version": 1}`, `{"format": "questbot-save"}`,
		`{"format": "questbot-save", "version": 1, "quest": {"id": 1}} {}`} {
		var se *saveError
		if _, err := parseSave([]byte(bad)); !errors.As(err, &se) {
			t.Errorf("ParseSave(%q) = %v, want a refusal", bad, err)
		}
	}
}

// Ensure the file names senders give become safe labels.
func TestCleanName(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"quest.qmm":                "quest.qmm",
		"../../etc/passwd.qmm":     "passwd.qmm",
		`C:\quests\maze.qm`:        "maze.qm",
		"a\x00b\u202ec.png":        "abc.png",
		"":                         "file",
		"..":                       "file",
		"   ":                      "file",
		string(make([]rune, 0)):    "file",
		"x" + string(rune(0xFFFD)): "x",
	} {
		if got := cleanName(in); got != want {
			t.Errorf("cleanName(%q) = %q, want %q", in, got, want)
		}
	}
	long := ""
	for range 100 {
		long += "ж"
	}
	if got := []rune(cleanName(long + ".qmm")); len(got) != 64 {
		t.Errorf("a long name keeps %d characters, want 64", len(got))
	}
}

// FuzzParseQMS checks that no input makes the .qms reader panic or allocate beyond its input,
// and that what it accepts encodes back to the same bytes.
func FuzzParseQMS(f *testing.F) {
	f.Add(encodeQMS(&qmsFile{Quest: "q.qmm", Location: 1, Params: []qmsParam{{Title: "p", Max: 3, Value: 2}}}))
	f.Add([]byte{1, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0x7F})
	f.Add([]byte{0, 0, 0, 0, 1, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0x7F})
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := parseQMS(data)
		if err != nil {
			var se *saveError
			if !errors.As(err, &se) {
				t.Fatalf("error %v is not a refusal", err)
			}
			return
		}
		if len(s.Params)*20 > len(data) {
			t.Fatalf("%d parameters from %d bytes", len(s.Params), len(data))
		}
	})
}

// FuzzParseSave checks that no input makes the JSON save reader panic, and that what it accepts
// has a quest and a valid random generator state.
func FuzzParseSave(f *testing.F) {
	f.Add([]byte(`{"format": "questbot-save", "version": 1, "quest": {"id": 1}, "state": {"params": [1], "shown": "1", "alea": [0.1, 0.2, 0.3, 4]}}`))
	f.Add([]byte(`{"format": "questbot-save", "version": 1, "quest": {"id": 1}, "state": {"jumped": [1, 2, 1]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := parseSave(data)
		if err != nil {
			return
		}
		if s.Quest.ID <= 0 || !validAlea(s.State.Alea) {
			t.Fatalf("accepted %+v", s)
		}
	})
}
