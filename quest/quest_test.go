package quest_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"os"
	"reflect"
	"testing"
	"time"

	"github.com/questbot/questbot/qmm"
	"github.com/questbot/questbot/quest"
	"github.com/questbot/questbot/quest/questtrace"
	"github.com/questbot/questbot/quest/questtrace/corpus"
)

// loadQuest compiles a quest of the shared test corpus.
func loadQuest(t *testing.T, set, name string) *quest.Quest {
	t.Helper()
	data, err := os.ReadFile(corpus.Path(t, "quests", set, name))
	if err != nil {
		t.Fatal(err)
	}
	mq, err := qmm.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	q, err := quest.Compile(mq)
	if err != nil {
		t.Fatal(err)
	}
	return q
}

var testNow = time.Date(2024, 1, 1, 12, 0, 0, 0, time.UTC)

// Ensure the seeded game of the reference's 12-saveAndValidation.ts plays as there: seed
// "someseed" offers 2 jumps, jumps 2, 3, 6 give parameters [8, 5, 1], and returning to the ship
// wins; seed "someseed3" offers 1 jump.
func TestSaveAndValidation(t *testing.T) {
	q := loadQuest(t, "srq-tests", "saveAndValidation.qm")
	s, err := q.Replay("someseed", []int{quest.JumpIAgree})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Jumps) != 2 {
		t.Fatalf("someseed: %d jumps, want 2", len(s.Jumps))
	}
	for _, id := range []int{2, 3, 6} {
		if s, err = q.Perform(s, id); err != nil {
			t.Fatal(err)
		}
	}
	if got := s.Params[:3]; !reflect.DeepEqual(got, []int{8, 5, 1}) {
		t.Fatalf("params %v, want [8 5 1]", got)
	}
	if s, err = q.Perform(s, quest.JumpBackToShip); err != nil {
		t.Fatal(err)
	}
	if s.Phase != quest.PhaseReturnedEnding {
		t.Fatalf("phase %v", s.Phase)
	}
	v, err := q.View(s, quest.DefaultPlayer(quest.Russian, testNow))
	if err != nil || v.Status != quest.Win {
		t.Fatalf("status %v, %v; want win", v.Status, err)
	}

	s, err = q.Replay("someseed3", []int{quest.JumpIAgree})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Jumps) != 1 {
		t.Fatalf("someseed3: %d jumps, want 1", len(s.Jumps))
	}
}

// Ensure an action that is not an active choice of the view is refused with ErrNotAChoice and
// leaves the state as it was: an unknown jump, a pseudo choice that is not offered, and a jump
// that is offered but not active.
func TestNotAChoice(t *testing.T) {
	for _, set := range traceSets {
		for _, file := range traceFiles(t, set) {
			tr, err := questtrace.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			for k, st := range tr.Steps {
				for _, o := range st.PossibleJumps {
					if o.Active || st.State != "location" {
						continue
					}
					q := loadQuest(t, set, tr.Header.Quest)
					s, err := q.Replay(tr.Header.Seed, tr.Actions()[:k])
					if err != nil {
						t.Fatal(err)
					}
					before, _ := json.Marshal(s)
					for _, id := range []int{o.ID, 1 << 30, quest.JumpNext} {
						got, err := q.Perform(s, id)
						if !errors.Is(err, quest.ErrNotAChoice) {
							t.Fatalf("%s step %d: Perform(%d) error %v, want ErrNotAChoice",
								file, k, id, err)
						}
						after, _ := json.Marshal(got)
						if !bytes.Equal(before, after) {
							t.Fatalf("Perform(%d) changed the state", id)
						}
					}
					return
				}
			}
		}
	}
	t.Fatal("no trace offers an inactive jump")
}

// Ensure a state survives JSON exactly, the PRNG state to the bit, and that a game continued
// from restored states matches the golden trace.
func TestStateJSONRoundTrip(t *testing.T) {
	t.Parallel()
	files := traceFiles(t, "dagazbot")
	for _, file := range files[:min(len(files), 40)] {
		tr, err := questtrace.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		q := loadQuest(t, "dagazbot", tr.Header.Quest)
		s, err := q.Start(tr.Header.Seed)
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range tr.Actions() {
			if s, err = q.Perform(s, a); err != nil {
				t.Fatal(err)
			}
			data, err := json.Marshal(s)
			if err != nil {
				t.Fatal(err)
			}
			var back quest.State
			if err := json.Unmarshal(data, &back); err != nil {
				t.Fatalf("%s: %v in %s", file, err, data)
			}
			for i := range s.Alea {
				if math.Float64bits(back.Alea[i]) != math.Float64bits(s.Alea[i]) {
					t.Fatalf("alea %v came back as %v", s.Alea, back.Alea)
				}
			}
			again, _ := json.Marshal(back)
			if !bytes.Equal(data, again) {
				t.Fatalf("round trip changed the state:\n%s\n%s", data, again)
			}
			s = back
		}
		final := tr.Steps[len(tr.Steps)-1]
		if !reflect.DeepEqual(final.ParamValues, s.Params) || final.AleaState != s.Alea {
			t.Fatalf("%s: restored game diverged", file)
		}
	}
}

// Ensure Replay rebuilds the same state as playing the actions one by one, and reports the
// action that fails.
func TestReplayRebuild(t *testing.T) {
	file := traceFiles(t, "dagazbot")[0]
	tr, err := questtrace.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	q := loadQuest(t, "dagazbot", tr.Header.Quest)
	s, err := q.Start(tr.Header.Seed)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range tr.Actions() {
		if s, err = q.Perform(s, a); err != nil {
			t.Fatal(err)
		}
	}
	r, err := q.Replay(tr.Header.Seed, tr.Actions())
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(r, s) {
		t.Fatalf("rebuilt %+v, played %+v", r, s)
	}
	if _, err := q.Replay(tr.Header.Seed, []int{quest.JumpIAgree, quest.JumpIAgree}); !errors.Is(err, quest.ErrNotAChoice) {
		t.Fatalf("replay of a wrong action: %v", err)
	}
}

// Ensure Perform does not modify the state it is given, so that old states stay valid.
func TestPerformKeepsInput(t *testing.T) {
	file := traceFiles(t, "dagazbot")[1]
	tr, err := questtrace.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	q := loadQuest(t, "dagazbot", tr.Header.Quest)
	s, err := q.Start(tr.Header.Seed)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range tr.Actions() {
		before := s.Clone()
		next, err := q.Perform(s, a)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(before, s) {
			t.Fatalf("Perform(%d) modified its input", a)
		}
		s = next
	}
}

// Ensure a state that does not fit the quest is refused with ErrBadState rather than crashing.
func TestBadState(t *testing.T) {
	q := loadQuest(t, "srq-tests", "saveAndValidation.qm")
	s, err := q.Replay("someseed", []int{quest.JumpIAgree})
	if err != nil {
		t.Fatal(err)
	}
	bad := []func(*quest.State){
		func(s *quest.State) { s.Params = s.Params[:1] },
		func(s *quest.State) { s.LocationID = -12345 },
		func(s *quest.State) { s.CritParam = 1000 },
		func(s *quest.State) { s.Phase = 99 },
		func(s *quest.State) { s.Phase, s.HasLastJump = quest.PhaseJump, false },
		func(s *quest.State) { s.Jumps = []quest.JumpOption{{ID: 98765, Active: true}} },
	}
	p := quest.DefaultPlayer(quest.English, testNow)
	for i, spoil := range bad {
		b := s.Clone()
		spoil(&b)
		if _, err := q.View(b, p); !errors.Is(err, quest.ErrBadState) {
			t.Errorf("case %d: View error %v, want ErrBadState", i, err)
		}
		if _, err := q.Perform(b, quest.JumpNext); !errors.Is(err, quest.ErrBadState) {
			t.Errorf("case %d: Perform error %v, want ErrBadState", i, err)
		}
	}
}

// Ensure games on one compiled quest can run in parallel (run with -race).
func TestConcurrentGames(t *testing.T) {
	files := traceFiles(t, "dagazbot")
	tr, err := questtrace.ReadFile(files[len(files)/2])
	if err != nil {
		t.Fatal(err)
	}
	q := loadQuest(t, "dagazbot", tr.Header.Quest)
	done := make(chan error, 4)
	for range 4 {
		go func() { done <- questtrace.Check(q, tr) }()
	}
	for range 4 {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
}
