package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/questbot/questbot/quest/questtrace/corpus"
)

// Ensure replay accepts matching traces, exits 0 and prints the summary.
func TestReplayMatches(t *testing.T) {
	files, _ := filepath.Glob(corpus.Path(t, "traces", "srq-tests", "saveAndValidation.qm__*.jsonl.gz"))
	if len(files) == 0 {
		t.Fatal("no traces of saveAndValidation.qm in the corpus")
	}
	var out, errOut bytes.Buffer
	args := append([]string{"--quests", corpus.Path(t, "quests", "srq-tests")}, files...)
	if code := runReplay(context.Background(), args, &out, &errOut); code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out.String(), errOut.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != len(files)+1 || !strings.HasPrefix(lines[0], "ok ") {
		t.Fatalf("output:\n%s", out.String())
	}
	if want := "traces match"; !strings.HasSuffix(lines[len(lines)-1], want) {
		t.Fatalf("last line %q", lines[len(lines)-1])
	}
}

// Ensure replay reports the first differing field of a trace that does not match, and exits 1.
func TestReplayMismatch(t *testing.T) {
	files, _ := filepath.Glob(corpus.Path(t, "traces", "srq-tests", "saveAndValidation.qm__*.jsonl.gz"))
	if len(files) == 0 {
		t.Fatal("no traces of saveAndValidation.qm in the corpus")
	}
	f, err := os.Open(files[0])
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	data, err := io.ReadAll(zr)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	// Spoil the day counter of step 1.
	lines := strings.Split(string(data), "\n")
	lines[2] = strings.Replace(lines[2], `"daysPassed":0`, `"daysPassed":7`, 1)
	spoilt := filepath.Join(t.TempDir(), "spoilt.jsonl.gz")
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write([]byte(strings.Join(lines, "\n")))
	zw.Close()
	if err := os.WriteFile(spoilt, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	code := runReplay(context.Background(), []string{"--quests",
		corpus.Path(t, "quests", "srq-tests"), spoilt}, &out, &errOut)
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s", code, out.String())
	}
	want := "FAIL " + spoilt + " step 1: daysPassed: want 7 got 0"
	if !strings.Contains(out.String(), want) || !strings.Contains(out.String(), "0/1 traces match") {
		t.Fatalf("output:\n%s\nwant a line %q", out.String(), want)
	}
}

// Ensure replay without traces or without --quests is a usage error.
func TestReplayUsage(t *testing.T) {
	for _, args := range [][]string{nil, {"--quests", "x"}, {"a.jsonl.gz"}} {
		var out, errOut bytes.Buffer
		if code := runReplay(context.Background(), args, &out, &errOut); code != 2 {
			t.Errorf("%q: exit %d, want 2", args, code)
		}
	}
}
