package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/questbot/questbot/internal/hostile"
	"github.com/questbot/questbot/qmm"
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

// Ensure bad usage exits 2 with one line that says where the help is.
func TestQmsUsage(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{nil, {"compile"}, {"frobnicate", "x.qms"}, {"compile", "a.qms", "b.qms"}} {
		var out, errOut bytes.Buffer
		if code := runQms(context.Background(), args, &out, &errOut); code != 2 {
			t.Errorf("%q: exit %d, want 2", args, code)
		}
		if !strings.Contains(errOut.String(), "(see questbot help qms)\n") || strings.Count(errOut.String(), "\n") != 1 {
			t.Errorf("%q: not one line pointing to the help: %q", args, errOut.String())
		}
	}
}

// Ensure neither compile nor decompile overwrites a file that exists (a source edited since it
// was decompiled, the original quest beside its source) unless -f is given: the refusal is one
// line, exit status 1, and the file is left as it was.
func TestQmsKeepsExistingFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	original, err := os.ReadFile(filepath.Join("..", "..", "uploads", "duel_en.qmm"))
	if err != nil {
		t.Fatal(err)
	}
	quest, src := filepath.Join(dir, "cave.qmm"), filepath.Join(dir, "cave.qms")
	const edited = "// my edits, not yet compiled\n"
	for path, data := range map[string][]byte{quest: original, src: []byte(edited)} {
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run := func(args ...string) (int, string) {
		var out, errOut bytes.Buffer
		code := runQms(context.Background(), args, &out, &errOut)
		return code, errOut.String()
	}
	unchanged := func(path string, want []byte) {
		t.Helper()
		if got, err := os.ReadFile(path); err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s was changed (%v)", filepath.Base(path), err)
		}
	}
	refusal := func(path string) string {
		return path + " exists; -f overwrites it, -o names another output\n"
	}

	// decompile cave.qmm: cave.qms holds the author's edits.
	if code, stderr := run("decompile", quest); code != 1 || stderr != "questbot qms decompile: "+refusal(src) {
		t.Errorf("decompile over an existing source: exit %d, stderr %q", code, stderr)
	}
	unchanged(src, []byte(edited))
	// compile the source: cave.qmm is the original quest.
	other := filepath.Join(dir, "other.qms")
	if code, stderr := run("decompile", quest, "-o", other); code != 0 {
		t.Fatalf("decompile to a new file: exit %d, %s", code, stderr)
	}
	if code, stderr := run("compile", other, "-o", quest); code != 1 || stderr != "questbot qms compile: "+refusal(quest) {
		t.Errorf("compile over an existing quest: exit %d, stderr %q", code, stderr)
	}
	unchanged(quest, original)
	if code, stderr := run("decompile", quest, "-o", other); code != 1 || stderr != "questbot qms decompile: "+refusal(other) {
		t.Errorf("decompile over a file it made before: exit %d, stderr %q", code, stderr)
	}
	// -f overwrites, whole.
	if code, stderr := run("decompile", "-f", quest); code != 0 || stderr != "" {
		t.Fatalf("decompile -f: exit %d, stderr %q", code, stderr)
	}
	if got, _ := os.ReadFile(src); bytes.Equal(got, []byte(edited)) || !bytes.Contains(got, []byte("#quest:")) {
		t.Errorf("decompile -f did not write the source:\n%.200s", got)
	}
	if err := os.WriteFile(quest, []byte("a stale build"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, stderr := run("compile", src, "-f"); code != 0 || stderr != "" {
		t.Fatalf("compile -f: exit %d, stderr %q", code, stderr)
	}
	if got, _ := os.ReadFile(quest); bytes.Equal(got, []byte("a stale build")) {
		t.Error("compile -f did not write the quest")
	} else if _, err := qmm.DecodeBytes(got); err != nil {
		t.Errorf("compile -f wrote a quest that does not decode: %v", err)
	}
	// Nothing is left beside the outputs.
	entries, _ := os.ReadDir(dir)
	if len(entries) != 3 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("the folder holds %q, want cave.qmm, cave.qms and other.qms", names)
	}
}

// Ensure the compile command refuses a source that asks for too much work (two nested #for
// loops asking for 300,000 sites) with one error naming the limit, exit 1, and writes nothing.
func TestQmsCompileRefusesBomb(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	src := filepath.Join(dir, "bomb.qms")
	if err := os.WriteFile(src, []byte(hostile.QMSBomb), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	if code := runQms(context.Background(), []string{"compile", src}, &out, &errOut); code != 1 {
		t.Fatalf("exit %d, want 1\n%s%s", code, out.String(), errOut.String())
	}
	if !strings.Contains(errOut.String(), "bomb.qms:3:1: the source passes the limit of 10000 sites") {
		t.Errorf("the error does not name the limit: %s", errOut.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "bomb.qmm")); !os.IsNotExist(err) {
		t.Errorf("a quest was written (%v)", err)
	}
}
