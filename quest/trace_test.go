package quest_test

import (
	"path/filepath"
	"sort"
	"testing"

	"github.com/questbot/questbot/quest"
	"github.com/questbot/questbot/quest/questtrace"
	"github.com/questbot/questbot/quest/questtrace/corpus"
)

// traceSets are the trace folders and the quest folders they play.
var traceSets = []string{"dagazbot", "srq-tests"}

// traceFiles lists the golden traces of a set, failing the test when there are none.
func traceFiles(t testing.TB, set string) []string {
	t.Helper()
	dir := corpus.Path(t, "traces", set)
	files, err := filepath.Glob(filepath.Join(dir, "*.jsonl.gz"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no traces in %s (err %v)", dir, err)
	}
	sort.Strings(files)
	return files
}

// TestGoldenTraces replays every golden trace of the reference player and requires every step
// to match on every field.
func TestGoldenTraces(t *testing.T) {
	t.Parallel()
	for _, set := range traceSets {
		quests := make(map[string]*quest.Quest)
		for _, file := range traceFiles(t, set) {
			t.Run(set+"/"+filepath.Base(file), func(t *testing.T) {
				tr, err := questtrace.ReadFile(file)
				if err != nil {
					t.Fatal(err)
				}
				q, ok := quests[tr.Header.Quest]
				if !ok {
					q, err = questtrace.LoadQuest(corpus.Path(t, "quests", set),
						tr.Header.Quest, tr.Header.SHA256)
					if err != nil {
						t.Fatal(err)
					}
					quests[tr.Header.Quest] = q
				}
				if err := questtrace.Check(q, tr); err != nil {
					t.Fatal(err)
				}
			})
		}
	}
}
