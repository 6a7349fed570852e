package quest_test

import (
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/questbot/questbot/quest"
	"github.com/questbot/questbot/quest/questtrace"
)

// sharedDir is the project's shared test data (quests and golden traces).
var sharedDir = filepath.Join("..", "..", "shared")

// traceSets are the trace folders and the quest folders they play.
var traceSets = []string{"dagazbot", "srq-tests"}

// traceFiles lists the golden traces of a set, failing the test when there are none.
func traceFiles(t testing.TB, set string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(sharedDir, "traces", set, "*.jsonl.gz"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no traces in %s (err %v): the shared test data is missing",
			filepath.Join(sharedDir, "traces", set), err)
	}
	sort.Strings(files)
	return files
}

// TestGoldenTraces replays every golden trace of the reference player and requires every step
// to match on every field.
func TestGoldenTraces(t *testing.T) {
	if _, err := os.Stat(sharedDir); err != nil {
		t.Fatalf("shared test data missing: %v", err)
	}
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
					q, err = questtrace.LoadQuest(filepath.Join(sharedDir, "quests", set),
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
