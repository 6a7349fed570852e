// Package corpus finds the shared test corpus for the tests that read it: the reference quests
// (quests/), their golden traces (traces/) and the formula cases (formulas/). The corpus is not
// part of the repository; it lives beside the checkout, in ../shared, or where QUESTBOT_CORPUS
// says (a relative path is taken from the checkout's root).
//
// A test that needs the corpus calls Dir or Path. When the corpus is there they return its
// paths; when it is not, the test is skipped, so that a clone without the corpus tests what it
// can (the project's own quests in uploads/ and the packages' testdata/ cover the codec, the
// player and the bot). Where the corpus must be there (CI set, or QUESTBOT_CORPUS_REQUIRED), its
// absence fails every test that needs it at once instead. The first call says in one line, on
// the test binary's standard error, where the corpus is expected and what becomes of the tests.
//
// The package is for tests only and imports nothing but the standard library, so that the tests
// of every package, the pure ones included, may use it.
package corpus

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// env is the environment variable that names the corpus folder.
const env = "QUESTBOT_CORPUS"

// requiredEnv, or CI, set to anything, makes a missing corpus fail the tests instead of skipping
// them.
const requiredEnv = "QUESTBOT_CORPUS_REQUIRED"

// where is what was found, once per test binary.
type where struct {
	dir      string // absolute, or as given when the checkout's root was not found
	present  bool
	required bool
	err      error // why the corpus is missing
}

var (
	once  sync.Once
	found where
	// announce is where the one line goes.
	announce io.Writer = os.Stderr
)

// locate finds the corpus: QUESTBOT_CORPUS, else ../shared beside the checkout's root (the
// folder of go.mod, looked for upwards from the working directory).
func locate(getenv func(string) string, wd string) where {
	w := where{required: getenv(requiredEnv) != "" || getenv("CI") != ""}
	root := moduleRoot(wd)
	dir := getenv(env)
	if dir == "" {
		dir = filepath.Join("..", "shared")
	}
	if !filepath.IsAbs(dir) && root != "" {
		dir = filepath.Join(root, dir)
	}
	w.dir = filepath.Clean(dir)
	fi, err := os.Stat(w.dir)
	switch {
	case err != nil:
		w.err = err
	case !fi.IsDir():
		w.err = fmt.Errorf("%s is not a folder", w.dir)
	default:
		w.present = true
	}
	return w
}

// moduleRoot is the nearest folder at or above dir holding a go.mod, or "".
func moduleRoot(dir string) string {
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// get locates the corpus once and says where in one line.
func get() where {
	once.Do(func() {
		wd, err := os.Getwd()
		if err != nil {
			wd = "."
		}
		found = locate(os.Getenv, wd)
		switch {
		case found.present:
			fmt.Fprintf(announce, "corpus: %s (%s; default ../shared beside the checkout)\n", found.dir, env)
		case found.required:
			fmt.Fprintf(announce, "corpus: expected at %s (%s; default ../shared beside the checkout), missing: "+
				"the tests that need it fail (%s or CI is set)\n", found.dir, env, requiredEnv)
		default:
			fmt.Fprintf(announce, "corpus: expected at %s (%s; default ../shared beside the checkout), missing: "+
				"the tests that need it are skipped\n", found.dir, env)
		}
	})
	return found
}

// errMissing is the error of a missing corpus.
var errMissing = errors.New("corpus: the shared test corpus is missing")

// Dir returns the corpus folder. When it is missing the test is skipped, or failed when the
// corpus is required.
func Dir(tb testing.TB) string {
	tb.Helper()
	return dirIn(tb, get())
}

// dirIn is Dir with the corpus found as w.
func dirIn(tb testing.TB, w where) string {
	tb.Helper()
	if w.present {
		return w.dir
	}
	msg := fmt.Sprintf("%v: expected at %s (set %s): %v", errMissing, w.dir, env, w.err)
	if w.required {
		tb.Fatal(msg)
	}
	tb.Skip(msg)
	return ""
}

// Path returns a path in the corpus, such as Path(t, "quests", "srq-tests"); see Dir for what
// happens when the corpus is missing.
func Path(tb testing.TB, elem ...string) string {
	tb.Helper()
	return filepath.Join(append([]string{Dir(tb)}, elem...)...)
}

// Optional returns the corpus folder and true when it is there, for tests that use it only when
// it is (a fuzz target's seeds); when it is missing and required the test fails, otherwise it
// goes on without.
func Optional(tb testing.TB) (string, bool) {
	tb.Helper()
	return optionalIn(tb, get())
}

// optionalIn is Optional with the corpus found as w.
func optionalIn(tb testing.TB, w where) (string, bool) {
	tb.Helper()
	if !w.present && w.required {
		tb.Fatalf("%v: expected at %s (set %s): %v", errMissing, w.dir, env, w.err)
	}
	return w.dir, w.present
}
