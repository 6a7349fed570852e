package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/questbot/questbot/quest/questlog"
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

// Ensure replay plays the log of a game (a .log file, as /log gives it) on its quest, found by its
// digest under another name, and fails a log whose move is not a choice.
func TestReplayLog(t *testing.T) {
	src := corpus.Path(t, "quests", "srq-tests", "saveAndValidation.qm")
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal("shared test data missing")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "renamed.qm"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	write := func(name string, moves ...int) string {
		l := &questlog.Log{Header: questlog.Header{Quest: "saveAndValidation.qm", SHA256: hex.EncodeToString(sum[:]), Seed: "someseed"}}
		for _, a := range moves {
			l.Moves = append(l.Moves, questlog.Act(a))
		}
		var b bytes.Buffer
		if err := questlog.Write(&b, l); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	good := write("good.log", -1, 2, 3, 6)
	var out, errOut bytes.Buffer
	if code := runReplay(context.Background(), []string{"--quests", dir, good}, &out, &errOut); code != 0 ||
		!strings.Contains(out.String(), "good.log: 4 moves, at location") || !strings.Contains(out.String(), "1/1 logs replay") {
		t.Fatalf("exit %d\n%s%s", code, out.String(), errOut.String())
	}
	bad := write("bad.log", -1, 999)
	out.Reset()
	if code := runReplay(context.Background(), []string{"--quests", dir, good, bad}, &out, &errOut); code != 1 ||
		!strings.Contains(out.String(), "FAIL "+bad+": move 2 (action 999)") || !strings.Contains(out.String(), "1/2 logs replay") {
		t.Fatalf("exit %d\n%s", code, out.String())
	}
}

// Ensure replay -any-build plays the golden traces of a quest on the quest decompiled and
// compiled again by the qms command: every trace matches, and the output notes the other build.
// Without the option the traces refuse the file, whose digest is not theirs.
func TestReplayAnyBuild(t *testing.T) {
	t.Parallel()
	files, _ := filepath.Glob(corpus.Path(t, "traces", "dagazbot", "hanoi.qmm__*.jsonl.gz"))
	if len(files) == 0 {
		t.Fatal("no traces of hanoi.qmm in the corpus")
	}
	dir := t.TempDir()
	src, built := filepath.Join(dir, "hanoi.qms"), filepath.Join(dir, "hanoi.qmm")
	var out, errOut bytes.Buffer
	ctx := context.Background()
	if code := runQms(ctx, []string{"decompile", corpus.Path(t, "quests", "dagazbot", "hanoi.qmm"), "-o", src}, &out, &errOut); code != 0 {
		t.Fatalf("decompile: exit %d\n%s%s", code, out.String(), errOut.String())
	}
	if code := runQms(ctx, []string{"compile", src, "-o", built}, &out, &errOut); code != 0 {
		t.Fatalf("compile: exit %d\n%s%s", code, out.String(), errOut.String())
	}

	out.Reset()
	args := append([]string{"--quests", dir}, files...)
	if code := runReplay(ctx, args, &out, &errOut); code != 1 || !strings.Contains(out.String(), "trace expects") {
		t.Fatalf("without -any-build: exit %d, want 1 and the digest refused\n%s", code, out.String())
	}

	out.Reset()
	args = append([]string{"--quests", dir, "-any-build"}, files...)
	if code := runReplay(ctx, args, &out, &errOut); code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out.String(), errOut.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != len(files)+2 || !strings.HasPrefix(lines[0], "note: hanoi.qmm is another build (sha256 ") {
		t.Fatalf("output:\n%s", out.String())
	}
	for _, l := range lines[1 : len(lines)-1] {
		if !strings.HasPrefix(l, "ok ") {
			t.Fatalf("trace line %q\n%s", l, out.String())
		}
	}
	if want := fmt.Sprintf("%d/%d traces match", len(files), len(files)); lines[len(lines)-1] != want {
		t.Fatalf("last line %q, want %q", lines[len(lines)-1], want)
	}
}
