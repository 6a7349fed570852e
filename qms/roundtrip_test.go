package qms_test

import (
	"bytes"
	"fmt"
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
				back, src := recompile(t, filepath.Join(dir, name))
				// The source is stable: the recompiled quest decompiles to it again (but for the
				// comments at its top, which count what the first decompilation left out).
				if again := qms.Decompile(back); !bytes.Equal(body(again), body(src)) {
					t.Errorf("decompiling the recompiled quest gives another source:\n%s", firstDiff(body(src), body(again)))
				}
				pq, err := quest.Compile(back)
				if err != nil {
					t.Fatal(err)
				}
				for _, f := range traces {
					if err := questtrace.Check(pq, readTrace(t, f)); err != nil {
						t.Errorf("%s: %v", filepath.Base(f), err)
					}
				}
				nQuests.Add(1)
				nTraces.Add(int64(len(traces)))
			})
		}
	}
}

// firstDiff shows the first line where two sources differ.
func firstDiff(a, b []byte) string {
	la, lb := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	for i := 0; i < len(la) || i < len(lb); i++ {
		var x, y string
		if i < len(la) {
			x = la[i]
		}
		if i < len(lb) {
			y = lb[i]
		}
		if x != y {
			return fmt.Sprintf("line %d:\n  %q\n  %q", i+1, x, y)
		}
	}
	return "no difference"
}

// body is a source without the comment lines at its top.
func body(src []byte) []byte {
	for bytes.HasPrefix(src, []byte("//")) {
		_, src, _ = bytes.Cut(src, []byte("\n"))
	}
	return src
}
