package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/questbot/questbot/quest/questtrace"
	"github.com/questbot/questbot/quest/questtrace/corpus"
)

// Ensure a quest decompiled and compiled again by the command replays the quest's golden traces.
func TestQmsDecompileCompileReplays(t *testing.T) {
	t.Parallel()
	const name = "saveAndValidation.qm"
	traces, _ := filepath.Glob(corpus.Path(t, "traces", "srq-tests", name+"__*.jsonl.gz"))
	if len(traces) == 0 {
		t.Fatal("no traces of " + name)
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "save.qms")
	var out, errOut bytes.Buffer
	args := []string{"decompile", corpus.Path(t, "quests", "srq-tests", name), "-o", src}
	if code := runQms(context.Background(), args, &out, &errOut); code != 0 {
		t.Fatalf("decompile: exit %d\n%s%s", code, out.String(), errOut.String())
	}
	if code := runQms(context.Background(), []string{"compile", src}, &out, &errOut); code != 0 {
		t.Fatalf("compile: exit %d\n%s%s", code, out.String(), errOut.String())
	}
	if errOut.Len() != 0 {
		t.Fatalf("a decompiled source compiles without warnings, got:\n%s", errOut.String())
	}
	q, err := questtrace.LoadQuest(dir, "save.qmm", "") // the default output, next to the source
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range traces {
		tr, err := questtrace.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := questtrace.Check(q, tr); err != nil {
			t.Errorf("%s: %v", filepath.Base(f), err)
		}
	}
}

// Ensure a source with errors exits 1, lists every error with its place and writes nothing.
func TestQmsCompileErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	src := filepath.Join(dir, "bad.qms")
	text := "#site:a #default\nHello\n#for:i:1..xy\n#end\n#include:missing\n#macro:m\n"
	if err := os.WriteFile(src, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	if code := runQms(context.Background(), []string{"compile", src, "-o", filepath.Join(dir, "bad.qmm")}, &out, &errOut); code != 1 {
		t.Fatalf("exit %d, want 1\n%s%s", code, out.String(), errOut.String())
	}
	for _, want := range []string{"3 errors", "bad.qms:3:1: bad range", "bad.qms:5:1: file", "bad.qms:6:1: #macro is not closed"} {
		if !strings.Contains(errOut.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut.String())
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "bad.qmm")); !os.IsNotExist(err) {
		t.Errorf("a failed compilation wrote its output (%v)", err)
	}
}

// Ensure warnings are printed and the quest is still written.
func TestQmsCompileWarnings(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	src := filepath.Join(dir, "warn.qms")
	if err := os.WriteFile(src, []byte("#site:a #default\nHello\n#case:nowhere 'Go'\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	if code := runQms(context.Background(), []string{"compile", src}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out.String(), errOut.String())
	}
	if !strings.Contains(errOut.String(), `warning: warn.qms:3:1: no site "nowhere"`) {
		t.Errorf("stderr:\n%s", errOut.String())
	}
	if !strings.Contains(out.String(), "warn.qmm: 0 parameters, 1 locations, 0 jumps") {
		t.Errorf("stdout:\n%s", out.String())
	}
}

// Ensure bad usage exits 2.
func TestQmsUsage(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{nil, {"compile"}, {"frobnicate", "x.qms"}, {"compile", "a.qms", "b.qms"}} {
		var out, errOut bytes.Buffer
		if code := runQms(context.Background(), args, &out, &errOut); code != 2 {
			t.Errorf("%q: exit %d, want 2", args, code)
		}
		if !strings.Contains(errOut.String(), "usage: questbot qms") {
			t.Errorf("%q: no usage in %q", args, errOut.String())
		}
	}
}
