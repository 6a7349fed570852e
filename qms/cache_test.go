package qms_test

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/questbot/questbot/qmm"
	"github.com/questbot/questbot/qms"
	"github.com/questbot/questbot/quest/questtrace"
)

// The corpus work the tests share is done once per test binary: each golden trace is read
// once, and each source of the corpus compiled once (the library detection, the corpus test and
// the pairs report all need the compiled quests).

// once is a value computed on first use, for every test that asks.
type once[T any] struct {
	o   sync.Once
	v   T
	err error
}

func (c *once[T]) get(f func() (T, error)) (T, error) {
	c.o.Do(func() { c.v, c.err = f() })
	return c.v, c.err
}

var traceCache sync.Map // file → *once[*questtrace.Trace]

// readTrace reads a golden trace, once per test binary.
func readTrace(t *testing.T, file string) *questtrace.Trace {
	t.Helper()
	c, _ := traceCache.LoadOrStore(file, &once[*questtrace.Trace]{})
	tr, err := c.(*once[*questtrace.Trace]).get(func() (*questtrace.Trace, error) { return questtrace.ReadFile(file) })
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// compiledSource is a corpus source compiled (or its error).
type compiledSource struct {
	q   *qmm.Quest
	err error
}

// sourceSetCache is the source folder compiled: every file that is not a library, and which
// files are libraries.
type sourceSetCache struct {
	quests    []string
	libraries map[string][]string
	compiled  map[string]compiledSource
}

var sourcesOnce once[*sourceSetCache]

// compileSources lists the sources of dir and compiles each that is not included by another,
// once per test binary. A file another includes, or that defines no site at all (only macros
// and variables, such as a set of variables shared by quests), is a library.
func compileSources(dir string) (*sourceSetCache, error) {
	return sourcesOnce.get(func() (*sourceSetCache, error) {
		names, err := filepath.Glob(filepath.Join(dir, "*.qms"))
		if err != nil {
			return nil, err
		}
		c := &sourceSetCache{libraries: map[string][]string{}, compiled: map[string]compiledSource{}}
		texts := map[string]string{}
		for _, n := range names {
			b, err := os.ReadFile(n)
			if err != nil {
				return nil, err
			}
			texts[filepath.Base(n)] = strings.TrimPrefix(string(b), "\ufeff")
		}
		for name, text := range texts {
			for _, m := range includeLineRE.FindAllStringSubmatch(text, -1) {
				lib := strings.TrimSuffix(m[1], ".qms") + ".qms"
				c.libraries[lib] = append(c.libraries[lib], name)
			}
		}
		fsys := os.DirFS(dir)
		var mu sync.Mutex
		var wg sync.WaitGroup
		var siteless []string // libraries found by compiling: they define no site
		for name := range texts {
			if _, ok := c.libraries[name]; ok {
				continue
			}
			wg.Go(func() {
				q, err := qms.Compile(fsys, name)
				mu.Lock()
				defer mu.Unlock()
				if err != nil && strings.Contains(err.Error(), ": no site (") {
					siteless = append(siteless, name)
					return
				}
				c.compiled[name] = compiledSource{q, err}
				c.quests = append(c.quests, name)
			})
		}
		wg.Wait()
		for _, name := range siteless {
			c.libraries[name] = nil
		}
		sort.Strings(c.quests)
		return c, nil
	})
}
