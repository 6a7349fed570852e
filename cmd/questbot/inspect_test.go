package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/questbot/questbot/qmm"
	"github.com/questbot/questbot/quest/questtrace/corpus"
)

func runInspectTest(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = runInspect(context.Background(), args, &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestInspect(t *testing.T) {
	t.Parallel()
	// A small quest of the shared corpus, whose every field the summary is checked against.
	inspectQuest := corpus.Path(t, "quests", "srq-tests", "qmreader-1.qmm")
	broken := filepath.Join(t.TempDir(), "broken.qmm")
	data, err := os.ReadFile(inspectQuest)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(broken, data[:len(data)/2], 0o644); err != nil {
		t.Fatal(err)
	}

	t.Run("summary", func(t *testing.T) {
		t.Parallel()
		code, out, errOut := runInspectTest(t, inspectQuest)
		if code != 0 || errOut != "" {
			t.Fatalf("exit %d, stderr %q", code, errOut)
		}
		for _, want := range []string{
			"qmreader-1.qmm: .qmm, magic QMM_7, version 1.41, new (TGE 5) player rules",
			"counts: 13 parameters (13 active), 10 locations",
			"5 jumps",
			"start location: id 2, \"loc2start\"",
			`p2   "param2success"`,
			"wins at min",
			`ToStar "TS"`,
			`task: "TaskText"`,
		} {
			if !strings.Contains(out, want) {
				t.Errorf("summary lacks %q:\n%s", want, out)
			}
		}
	})

	t.Run("broken file among good ones", func(t *testing.T) {
		t.Parallel()
		code, out, errOut := runInspectTest(t, broken, inspectQuest, "--json")
		if code != 1 {
			t.Errorf("exit %d, want 1", code)
		}
		if !strings.Contains(errOut, "broken.qmm: qmm: invalid format at offset") ||
			!strings.Contains(errOut, "unexpected end of data") {
			t.Errorf("stderr %q", errOut)
		}
		var got struct {
			File  string
			Quest *qmm.Quest
		}
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("stdout is not one JSON object: %v\n%s", err, out)
		}
		want, err := qmm.DecodeBytes(data)
		if err != nil {
			t.Fatal(err)
		}
		if got.File != inspectQuest || !reflect.DeepEqual(got.Quest, want) {
			t.Errorf("JSON output does not hold the decoded model")
		}
	})

	t.Run("usage", func(t *testing.T) {
		t.Parallel()
		if code, _, errOut := runInspectTest(t); code != 2 || !strings.Contains(errOut, "see questbot help inspect") {
			t.Errorf("no files: exit %d, stderr %q", code, errOut)
		}
		if code, _, _ := runInspectTest(t, "--nope", inspectQuest); code != 2 {
			t.Errorf("bad flag: exit %d", code)
		}
		if code, _, errOut := runInspectTest(t, filepath.Join(t.TempDir(), "missing.qmm")); code != 1 ||
			!strings.Contains(errOut, "no such file") {
			t.Errorf("missing file: exit %d, stderr %q", code, errOut)
		}
	})
}
