package bottest

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// fakeTB records a skip or a failure and ends the goroutine, as testing.T does.
type fakeTB struct {
	testing.TB
	outcome string
}

func (f *fakeTB) Helper() {}

func (f *fakeTB) Skipf(format string, args ...any) {
	f.outcome = "skip: " + fmt.Sprintf(format, args...)
	runtime.Goexit()
}

func (f *fakeTB) Fatalf(format string, args ...any) {
	f.outcome = "fail: " + fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// outcome calls fn with a fakeTB and returns what became of it ("" when it returned).
func outcome(fn func(tb testing.TB)) string {
	f := &fakeTB{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn(f)
	}()
	<-done
	return f.outcome
}

// Ensure a missing Chromium skips a browser test with the reason, fails it where the browser
// tests are required (CI or QUESTBOT_BROWSER_REQUIRED), and that a Chromium found is used.
func TestChromiumMissing(t *testing.T) {
	t.Parallel()
	missing := func(string) (string, error) {
		return "", errors.New(`exec: "chromium": executable file not found in $PATH`)
	}
	found := func(string) (string, error) { return "/usr/bin/chromium", nil }
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

	out := outcome(func(tb testing.TB) { chromiumIn(tb, env(nil), missing) })
	if !strings.HasPrefix(out, "skip: Chromium is missing") || !strings.Contains(out, "not found") {
		t.Errorf("missing: %q, want a skip saying why", out)
	}
	for _, required := range []map[string]string{{"CI": "true"}, {browserRequiredEnv: "1"}} {
		out := outcome(func(tb testing.TB) { chromiumIn(tb, env(required), missing) })
		if !strings.HasPrefix(out, "fail: ") || !strings.Contains(out, browserRequiredEnv) {
			t.Errorf("missing with %v: %q, want a failure", required, out)
		}
	}
	var path string
	if out := outcome(func(tb testing.TB) { path = chromiumIn(tb, env(map[string]string{"CI": "true"}), found) }); out != "" ||
		path != "/usr/bin/chromium" {
		t.Errorf("found: %q, %q", out, path)
	}
}

// Ensure `make chromium` on a machine without Chromium, run by a user who is not root, says so
// in one line and lets the tests run (they skip the browser ones), but fails at once where the
// browser tests are required; it never calls sudo or apt-get. The machine is simulated by a
// PATH holding only an id that answers a user's id.
func TestMakeChromiumWithoutRoot(t *testing.T) {
	t.Parallel()
	mk, err := exec.LookPath("make")
	if err != nil {
		t.Fatalf("make is needed to run the project's tests: %v", err)
	}
	root, err := filepath.Abs(filepath.Join("..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	write := func(name, script string) {
		if err := os.WriteFile(filepath.Join(bin, name), []byte("#!/bin/sh\n"+script+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write("id", "echo 1000")
	// What the target must not run: each leaves a trace.
	for _, name := range []string{"sudo", "apt-get"} {
		write(name, "echo "+name+" >> "+filepath.Join(bin, "ran")+"; exit 1")
	}
	run := func(env ...string) (string, error) {
		cmd := exec.Command(mk, "-s", "-C", root, "chromium")
		cmd.Env = append([]string{"PATH=" + bin, "HOME=" + t.TempDir()}, env...)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}

	out, err := run()
	if err != nil {
		t.Fatalf("make chromium without root: %v\n%s", err, out)
	}
	if strings.Count(out, "\n") != 1 || !strings.Contains(out, "chromium is missing") || !strings.Contains(out, "skipped") {
		t.Errorf("make chromium without root says %q, want one line that the browser tests are skipped", out)
	}
	for _, env := range []string{"CI=true", browserRequiredEnv + "=1"} {
		out, err := run(env)
		if err == nil {
			t.Errorf("make chromium without root, %s: it succeeded\n%s", env, out)
		}
		if !strings.Contains(out, "chromium is missing") || !strings.Contains(out, browserRequiredEnv) {
			t.Errorf("make chromium without root, %s: %q", env, out)
		}
	}
	if ran, err := os.ReadFile(filepath.Join(bin, "ran")); err == nil {
		t.Errorf("make chromium ran %q", ran)
	}
}
