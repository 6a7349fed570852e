package quest_test

import (
	"encoding/json"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"

	"github.com/questbot/questbot/quest"
	"github.com/questbot/questbot/quest/questtrace"
	"github.com/questbot/questbot/quest/questtrace/corpus"
)

// benchGame is one golden trace prepared for the benchmark.
type benchGame struct {
	seed    string
	actions []int
	player  quest.Player
}

// BenchmarkReplay replays the golden traces quest by quest, doing what the bot does on a click:
// perform the action, then build the view. Quests are decoded and compiled beforehand. Each
// sub-benchmark reports steps/s (one step = Perform + View; the initial view counts as a step)
// and the size of the largest serialised state met; on Linux also steps per second of CPU time
// of the replaying thread (steps/cpu-s), which stays meaningful on a busy machine. Run with a
// small -benchtime, for example -benchtime=3x.
func BenchmarkReplay(b *testing.B) {
	// Traces are grouped by quest from their file names (<quest>__<policy>__<seed>__<walk>),
	// and only read by the sub-benchmarks that run.
	byQuest := make(map[string][]string)
	for _, set := range traceSets {
		for _, file := range traceFiles(b, set) {
			name, _, _ := strings.Cut(filepath.Base(file), "__")
			byQuest[set+"/"+name] = append(byQuest[set+"/"+name], file)
		}
	}
	names := make([]string, 0, len(byQuest))
	for k := range byQuest {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, name := range names {
		b.Run(name, func(b *testing.B) {
			var q *quest.Quest
			var games []benchGame
			for _, file := range byQuest[name] {
				tr, err := questtrace.ReadFile(file)
				if err != nil {
					b.Fatal(err)
				}
				if q == nil {
					set, _, _ := strings.Cut(name, "/")
					q, err = questtrace.LoadQuest(corpus.Path(b, "quests", set),
						tr.Header.Quest, tr.Header.SHA256)
					if err != nil {
						b.Fatal(err)
					}
				}
				p, err := tr.Player()
				if err != nil {
					b.Fatal(err)
				}
				games = append(games, benchGame{seed: tr.Header.Seed, actions: tr.Actions(), player: p})
			}
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			steps, cpu0 := 0, threadCPU()
			for b.Loop() {
				for _, g := range games {
					s, err := q.Start(g.seed)
					if err != nil {
						b.Fatal(err)
					}
					if _, err := q.View(s, g.player); err != nil {
						b.Fatal(err)
					}
					steps++
					for _, a := range g.actions {
						if s, err = q.Perform(s, a); err != nil {
							b.Fatal(err)
						}
						if _, err := q.View(s, g.player); err != nil {
							b.Fatal(err)
						}
						steps++
					}
				}
			}
			b.ReportMetric(float64(steps)/b.Elapsed().Seconds(), "steps/s")
			if cpu := threadCPU() - cpu0; cpu > 0 {
				b.ReportMetric(float64(steps)/cpu, "steps/cpu-s")
			}
			b.ReportMetric(float64(maxStateSize(b, q, games)), "state-bytes")
		})
	}
}

// maxStateSize returns the size of the largest serialised state met in the games.
func maxStateSize(b *testing.B, q *quest.Quest, games []benchGame) int {
	size := 0
	for _, g := range games {
		s, err := q.Start(g.seed)
		if err != nil {
			b.Fatal(err)
		}
		for _, a := range g.actions {
			if s, err = q.Perform(s, a); err != nil {
				b.Fatal(err)
			}
			data, err := json.Marshal(s)
			if err != nil {
				b.Fatal(err)
			}
			size = max(size, len(data))
		}
	}
	return size
}
