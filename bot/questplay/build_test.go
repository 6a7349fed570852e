package questplay

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/questbot/questbot/qmm"
	"github.com/questbot/questbot/quest"
)

const uploadsDir = "../../uploads"

// fixedNow is the clock of the tests of this package.
var fixedNow = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// Ensure every shipped quest is built from its committed source byte for byte (run go generate
// in this package after editing a source), and that each can be won.
func TestShippedQuests(t *testing.T) {
	srcs, err := filepath.Glob(filepath.Join(uploadsDir, "src", "*.json"))
	if err != nil || len(srcs) < 2 {
		t.Fatalf("quest sources: %v, %v", srcs, err)
	}
	langs := map[string]bool{}
	for _, src := range srcs {
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		built, err := BuildQuest(data)
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		name := strings.TrimSuffix(filepath.Base(src), ".json")
		committed, err := os.ReadFile(filepath.Join(uploadsDir, name+".qmm"))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(built, committed) {
			t.Errorf("%s.qmm differs from its source; run go generate ./bot/questplay", name)
		}
		langs[name[strings.LastIndexByte(name, '_')+1:]] = true
		d, err := qmm.DecodeBytes(committed)
		if err != nil {
			t.Fatal(err)
		}
		q, err := quest.Compile(d)
		if err != nil {
			t.Fatal(err)
		}
		ends := map[quest.Status]bool{}
		for seed := range 40 {
			s, err := q.Start(string(rune('a' + seed)))
			if err != nil {
				t.Fatal(err)
			}
			for _, st := range []quest.Status{quest.Win, quest.Fail, quest.Dead} {
				if _, err := pathTo(q, s, 12, func(v quest.Status) bool { return v == st }); err == nil {
					ends[st] = true
				}
			}
		}
		if !ends[quest.Win] || !ends[quest.Fail] || !ends[quest.Dead] {
			t.Errorf("%s: endings reachable: %v, want a win, a fail and a death", name, ends)
		}
	}
	if !langs["ru"] || !langs["en"] {
		t.Errorf("languages %v, want ru and en", langs)
	}
}

// errNoPath means no sequence of choices within the depth reaches a wanted status.
var errNoPath = errors.New("no path")

// pathTo finds the actions that lead from s to a view whose status is wanted, depth first,
// trying at most depth actions.
func pathTo(q *quest.Quest, s quest.State, depth int, want func(quest.Status) bool) ([]int, error) {
	v, err := q.View(s, quest.DefaultPlayer(quest.English, fixedNow))
	if err != nil {
		return nil, err
	}
	if want(v.Status) {
		return []int{}, nil
	}
	if v.Status.Over() || depth == 0 {
		return nil, errNoPath
	}
	for _, c := range v.Choices {
		if !c.Active {
			continue
		}
		next, err := q.Perform(s, c.JumpID)
		if err != nil {
			continue
		}
		if rest, err := pathTo(q, next, depth-1, want); err == nil {
			return append([]int{c.JumpID}, rest...), nil
		}
	}
	return nil, errNoPath
}
