package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/questbot/questbot/qmm"
	"github.com/questbot/questbot/quest"
)

// caveSource is the sample quest of the quest authoring guide, as the project ships it.
const caveSource = "../../uploads/src/cave.qms"

// guideCave returns the source the walk-through of .qms in docs/quest-authoring.md shows (step
// 1, "Write cave.qms"), without the indentation of its list item.
func guideCave(t *testing.T) string {
	t.Helper()
	guide, err := os.ReadFile("../../docs/quest-authoring.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(guide), "1. Write `cave.qms`")
	if !ok {
		t.Fatal("docs/quest-authoring.md has no step writing cave.qms")
	}
	_, rest, ok = strings.Cut(rest, "```\n")
	block, _, ok2 := strings.Cut(rest, "   ```\n")
	if !ok || !ok2 {
		t.Fatal("the cave.qms of docs/quest-authoring.md is not in a code block")
	}
	var b strings.Builder
	for _, line := range strings.SplitAfter(block, "\n") {
		b.WriteString(strings.TrimPrefix(line, "   "))
	}
	return b.String()
}

// Ensure the guide's sample quest has a way on from every screen whatever the dice: compiled
// as the guide says (questbot qms compile), it is played by the quest player over 200 seeds,
// every choice of every screen reached, and each screen is an ending or offers a choice; the
// terminal player (questbot play) reaches an ending for each seed too. The guide shows the
// source the project ships.
func TestCaveHasNoDeadEnd(t *testing.T) {
	t.Parallel()
	src, err := os.ReadFile(caveSource)
	if err != nil {
		t.Fatal(err)
	}
	if got := guideCave(t); got != string(src) {
		t.Fatalf("the guide's cave.qms differs from %s:\n%s", caveSource, got)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "cave.qmm")
	var out, errOut bytes.Buffer
	if code := runQms(context.Background(), []string{"compile", caveSource, "-o", file}, &out, &errOut); code != 0 || errOut.Len() != 0 {
		t.Fatalf("compile: exit %d\n%s%s", code, out.String(), errOut.String())
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	mq, err := qmm.DecodeBytes(data)
	if err != nil {
		t.Fatal(err)
	}
	q, err := quest.Compile(mq)
	if err != nil {
		t.Fatal(err)
	}
	player := quest.DefaultPlayer(quest.English, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	const seeds, maxStates = 200, 10_000
	wins := 0
	for i := range seeds {
		seed := fmt.Sprint("cave-", i)
		s, err := q.Start(seed)
		if err != nil {
			t.Fatal(err)
		}
		// Every state reachable from the start, each once: a state holds the random
		// generator, so the same choices from the same state draw the same.
		seen := map[string]bool{}
		queue := []quest.State{s}
		for len(queue) > 0 {
			s := queue[0]
			queue = queue[1:]
			key, err := json.Marshal(s)
			if err != nil {
				t.Fatal(err)
			}
			if seen[string(key)] {
				continue
			}
			if seen[string(key)] = true; len(seen) > maxStates {
				t.Fatalf("seed %s: more than %d states", seed, maxStates)
			}
			v, err := q.View(s, player)
			if err != nil {
				t.Fatalf("seed %s: %v", seed, err)
			}
			ways := 0
			for _, c := range v.Choices {
				if !c.Active {
					continue
				}
				ways++
				next, err := q.Perform(s, c.JumpID)
				if err != nil {
					t.Fatalf("seed %s: choice %q: %v", seed, c.Text, err)
				}
				queue = append(queue, next)
			}
			switch {
			case v.Status == quest.Running && ways == 0:
				t.Fatalf("seed %s: no way on from %q", seed, v.Text)
			case v.Status == quest.Win:
				wins++
			case v.Status.Over():
				t.Errorf("seed %s: the quest ends %s", seed, v.Status)
			}
		}

		// The terminal player, always taking the first choice, comes home.
		var stdout, stderr bytes.Buffer
		in := strings.NewReader(strings.Repeat("1\n", 50))
		if code := play(context.Background(), []string{file, "-seed", seed, "-lang", "en"}, in, &stdout, &stderr, time.Now()); code != 0 {
			t.Fatalf("play -seed %s: exit %d: %s", seed, code, stderr.String())
		}
		if got := stdout.String(); !strings.HasSuffix(got, "*** win ***\n") {
			t.Fatalf("play -seed %s does not end in a win:\n%s", seed, got)
		}
	}
	if wins < seeds {
		t.Errorf("%d winning screens over %d seeds", wins, seeds)
	}
}
