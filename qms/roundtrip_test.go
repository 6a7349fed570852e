package qms_test

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/questbot/questbot/qmm"
	"github.com/questbot/questbot/qms"
	"github.com/questbot/questbot/quest"
	"github.com/questbot/questbot/quest/questtrace"
	"github.com/questbot/questbot/quest/questtrace/corpus"
)

// traceSets are the quest sets that have golden traces (quests/<set> and traces/<set>).
var traceSets = []string{"dagazbot", "srq-tests"}

// tracedQuests maps each quest file of a set that has golden traces to its traces.
func tracedQuests(t *testing.T, set string) (dir string, quests map[string][]string) {
	t.Helper()
	dir = corpus.Path(t, "quests", set)
	files, err := filepath.Glob(filepath.Join(corpus.Path(t, "traces", set), "*.jsonl.gz"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no traces for %s (%v)", set, err)
	}
	quests = map[string][]string{}
	for _, f := range files {
		name, _, _ := strings.Cut(filepath.Base(f), "__")
		quests[name] = append(quests[name], f)
	}
	return dir, quests
}

// recompile decompiles a quest file and compiles the source again.
func recompile(t *testing.T, file string) (*qmm.Quest, []byte) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	q, err := qmm.DecodeBytes(data)
	if err != nil {
		t.Fatal(err)
	}
	src := qms.Decompile(q)
	back, err := qms.CompileSource(filepath.Base(file)+".qms", src)
	if err != nil {
		t.Fatalf("compiling the decompiled source: %v", err)
	}
	return back, src
}

// TestQmsRoundTrip decompiles every quest that has golden traces, compiles the source again and
// requires the result to replay all of the quest's traces exactly.
func TestQmsRoundTrip(t *testing.T) {
	t.Parallel()
	var nQuests, nTraces atomic.Int64
	t.Cleanup(func() { t.Logf("round trip: %d quests, %d traces", nQuests.Load(), nTraces.Load()) })
	for _, set := range traceSets {
		dir, quests := tracedQuests(t, set)
		names := make([]string, 0, len(quests))
		for n := range quests {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, name := range names {
			traces := quests[name]
			t.Run(set+"/"+name, func(t *testing.T) {
				t.Parallel()
				back, _ := recompile(t, filepath.Join(dir, name))
				pq, err := quest.Compile(back)
				if err != nil {
					t.Fatal(err)
				}
				for _, f := range traces {
					tr, err := questtrace.ReadFile(f)
					if err != nil {
						t.Fatal(err)
					}
					if err := questtrace.Check(pq, tr); err != nil {
						t.Errorf("%s: %v", filepath.Base(f), err)
					}
				}
				nQuests.Add(1)
				nTraces.Add(int64(len(traces)))
			})
		}
	}
}
