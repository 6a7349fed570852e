package qms_test

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/questbot/questbot/qmm"
	"github.com/questbot/questbot/qms"
	"github.com/questbot/questbot/quest"
	"github.com/questbot/questbot/quest/questtrace"
	"github.com/questbot/questbot/quest/questtrace/corpus"
)

// sourceSet is the corpus folder of .qms sources; pairSet holds the compiled quests of the same
// names and traceSet their golden traces.
const (
	sourceSet = "dagazbot-qms"
	pairSet   = "dagazbot"
)

var includeLineRE = regexp.MustCompile(`(?m)^\s*#include:([^:\s]+)`)

// sources lists the corpus sources, compiled, and tells which are libraries (see
// compileSources).
func sources(t *testing.T) (dir string, c *sourceSetCache) {
	t.Helper()
	dir = corpus.Path(t, "quests", sourceSet)
	c, err := compileSources(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.quests) == 0 {
		t.Fatalf("no sources in %s", dir)
	}
	return dir, c
}

// compiled returns the quest compiled from the corpus source name.
func (c *sourceSetCache) quest(t *testing.T, name string) *qmm.Quest {
	t.Helper()
	r := c.compiled[name]
	if r.err != nil {
		t.Fatal(r.err)
	}
	return r.q
}

// withFile is a file system with one more file.
type withFile struct {
	fs.FS
	name string
	data []byte
}

func (w withFile) Open(name string) (fs.File, error) {
	if name == w.name {
		return fstest.MapFS{name: {Data: w.data}}.Open(name)
	}
	return w.FS.Open(name)
}

// playable checks that a compiled quest encodes, decodes, compiles in the player and starts.
func playable(t *testing.T, q *qmm.Quest) *quest.Quest {
	t.Helper()
	var buf bytes.Buffer
	if err := qmm.Encode(&buf, q); err != nil {
		t.Fatalf("encode: %v", err)
	}
	dq, err := qmm.DecodeBytes(buf.Bytes())
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	if dq.Magic != qmm.MagicQMM7 || len(dq.Locations) != len(q.Locations) || len(dq.Jumps) != len(q.Jumps) ||
		len(dq.Params) != len(q.Params) {
		t.Fatalf("decoded quest differs: magic %v, %d/%d locations, %d/%d jumps, %d/%d params", dq.Magic,
			len(dq.Locations), len(q.Locations), len(dq.Jumps), len(q.Jumps), len(dq.Params), len(q.Params))
	}
	pq, err := quest.Compile(dq)
	if err != nil {
		t.Fatalf("player compile: %v", err)
	}
	s, err := pq.Start("s1")
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	if _, err := pq.View(s, quest.DefaultPlayer(quest.Russian, fixedNow)); err != nil {
		t.Fatalf("view: %v", err)
	}
	return pq
}

// TestQmsCorpus compiles every source of the corpus; each quest must encode as QMM 7, decode,
// compile in the player and start. Libraries are compiled through the quests that include
// them, and those nobody includes through a one-site quest that includes them.
func TestQmsCorpus(t *testing.T) {
	t.Parallel()
	dir, c := sources(t)
	fsys := os.DirFS(dir)
	for _, name := range c.quests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			playable(t, c.quest(t, name))
		})
	}
	for lib, users := range c.libraries {
		if len(users) > 0 {
			continue
		}
		t.Run("library/"+lib, func(t *testing.T) {
			t.Parallel()
			use := withFile{fsys, "use-library.qms",
				[]byte("#include:" + strings.TrimSuffix(lib, ".qms") + "\n#site:start #default\nA quest that uses the library.\n")}
			q, err := qms.Compile(use, "use-library.qms")
			if err != nil {
				t.Fatal(err)
			}
			playable(t, q)
		})
	}
}

// TestQmsPairs reports, for each source with a compiled quest of the same name in the corpus,
// whether the quest compiled from the source plays that quest's golden traces. The compiled
// file may come from another version of the source, so this is a report, not a requirement.
func TestQmsPairs(t *testing.T) {
	t.Parallel()
	_, c := sources(t)
	pairDir := corpus.Path(t, "quests", pairSet)
	traceDir := corpus.Path(t, "traces", pairSet)
	var mu sync.Mutex
	var report []string
	t.Cleanup(func() {
		if len(report) == 0 {
			t.Error("no source has a compiled quest of the same name")
			return
		}
		sort.Strings(report)
		t.Log("sources against the compiled quests of the same name:\n" + strings.Join(report, "\n"))
	})
	for _, name := range c.quests {
		base := strings.TrimSuffix(name, ".qms")
		var pair string
		for _, ext := range []string{".qmm", ".qm"} {
			if _, err := os.Stat(filepath.Join(pairDir, base+ext)); err == nil {
				pair = base + ext
				break
			}
		}
		if pair == "" {
			continue
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			traces, _ := filepath.Glob(filepath.Join(traceDir, pair+"__*.jsonl.gz"))
			pq := playable(t, c.quest(t, name))
			ok := 0
			first := ""
			for _, f := range traces {
				if err := questtrace.Check(pq, readTrace(t, f)); err != nil {
					if first == "" {
						first = err.Error()
					}
					continue
				}
				ok++
			}
			line := fmt.Sprintf("%-18s %-20s %d/%d traces", name, pair, ok, len(traces))
			if first != "" {
				if len(first) > 120 {
					first = first[:120] + "…"
				}
				line += "  first difference: " + first
			}
			mu.Lock()
			report = append(report, line)
			mu.Unlock()
		})
	}
}

// fixedNow is the clock of the views the tests build.
var fixedNow = time.Date(2024, 1, 1, 12, 0, 0, 0, time.UTC)
