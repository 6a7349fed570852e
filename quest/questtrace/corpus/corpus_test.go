package corpus

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// Ensure the corpus is looked for beside the checkout's root by default, or where
// QUESTBOT_CORPUS says (a relative path from the checkout's root), and that CI or
// QUESTBOT_CORPUS_REQUIRED make it required.
func TestLocate(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	repo := filepath.Join(tmp, "repo")
	pkg := filepath.Join(repo, "bot", "questplay")
	for _, d := range []string{pkg, filepath.Join(tmp, "shared"), filepath.Join(repo, "data")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(repo, "go.mod"), []byte("module x\n"), 0o644)
	os.WriteFile(filepath.Join(tmp, "file"), nil, 0o644)
	for _, c := range []struct {
		env      map[string]string
		dir      string
		present  bool
		required bool
	}{
		{nil, filepath.Join(tmp, "shared"), true, false},
		{map[string]string{env: "data"}, filepath.Join(repo, "data"), true, false},
		{map[string]string{env: filepath.Join(tmp, "nothing")}, filepath.Join(tmp, "nothing"), false, false},
		{map[string]string{env: filepath.Join(tmp, "file")}, filepath.Join(tmp, "file"), false, false},
		{map[string]string{env: "missing", "CI": "true"}, filepath.Join(repo, "missing"), false, true},
		{map[string]string{requiredEnv: "1"}, filepath.Join(tmp, "shared"), true, true},
	} {
		w := locate(func(k string) string { return c.env[k] }, pkg)
		if w.dir != c.dir || w.present != c.present || w.required != c.required || (w.err == nil) != c.present {
			t.Errorf("%v: got %+v, want dir %s, present %v, required %v", c.env, w, c.dir, c.present, c.required)
		}
	}
}

// fakeTB records a skip or a failure and ends the goroutine, as testing.T does.
type fakeTB struct {
	testing.TB
	outcome string
}

func (f *fakeTB) Helper() {}

func (f *fakeTB) Skip(args ...any) {
	f.outcome = "skip: " + fmt.Sprint(args...)
	runtime.Goexit()
}

func (f *fakeTB) Fatal(args ...any) {
	f.outcome = "fail: " + fmt.Sprint(args...)
	runtime.Goexit()
}

func (f *fakeTB) Fatalf(format string, args ...any) { f.Fatal(fmt.Sprintf(format, args...)) }

// run calls fn with a fakeTB and returns what became of it ("" when it returned).
func run(fn func(tb testing.TB)) string {
	f := &fakeTB{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn(f)
	}()
	<-done
	return f.outcome
}

// Ensure a missing corpus skips the tests that need it, fails them where it is required, and
// leaves the tests that only may use it going, unless it is required.
func TestMissing(t *testing.T) {
	t.Parallel()
	missing := where{dir: "/nowhere/shared", err: os.ErrNotExist}
	required := missing
	required.required = true
	present := where{dir: "/here/shared", present: true}
	var got string
	if out := run(func(tb testing.TB) { got = dirIn(tb, present) }); out != "" || got != "/here/shared" {
		t.Errorf("present: %q, %q", out, got)
	}
	if out := run(func(tb testing.TB) { dirIn(tb, missing) }); !strings.HasPrefix(out, "skip: ") ||
		!strings.Contains(out, "/nowhere/shared") || !strings.Contains(out, env) {
		t.Errorf("missing: %q, want a skip naming where and %s", out, env)
	}
	if out := run(func(tb testing.TB) { dirIn(tb, required) }); !strings.HasPrefix(out, "fail: ") {
		t.Errorf("missing and required: %q, want a failure", out)
	}
	var ok bool
	if out := run(func(tb testing.TB) { _, ok = optionalIn(tb, missing) }); out != "" || ok {
		t.Errorf("optional, missing: %q, %v", out, ok)
	}
	if out := run(func(tb testing.TB) { optionalIn(tb, required) }); !strings.HasPrefix(out, "fail: ") {
		t.Errorf("optional, missing and required: %q, want a failure", out)
	}
}
