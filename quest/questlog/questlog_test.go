package questlog

import (
	"bytes"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/questbot/questbot/formula/alea"
	"github.com/questbot/questbot/qmm"
	"github.com/questbot/questbot/quest"
	"github.com/questbot/questbot/quest/questtrace/corpus"
)

func load(t *testing.T, name string) *quest.Quest {
	t.Helper()
	data, err := os.ReadFile(corpus.Path(t, "quests", "dagazbot", name))
	if err != nil {
		t.Fatalf("the shared quest corpus is missing: %v", err)
	}
	d, err := qmm.DecodeBytes(data)
	if err != nil {
		t.Fatal(err)
	}
	q, err := quest.Compile(d)
	if err != nil {
		t.Fatal(err)
	}
	return q
}

func stateJSON(t *testing.T, s quest.State) string {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Ensure a game played with every kind of move (actions, values written, a reseeding, a restored
// state) is written, read back and replayed to the very state it reached, under its dialect's rule.
func TestReplayEveryMove(t *testing.T) {
	q := load(t, "spock.qmm")
	opts := Rules("dagazbot")
	l := &Log{Header: Header{Quest: "spock.qmm", Seed: "log", Dialect: "dagazbot", Lang: "ru"}}
	s, err := q.Start("log")
	if err != nil {
		t.Fatal(err)
	}
	act := func(a int) {
		t.Helper()
		if s, err = q.PerformWith(s, a, opts); err != nil {
			t.Fatal(err)
		}
		l.Moves = append(l.Moves, Act(a))
	}
	set := func(vals map[int]int) {
		s.Params = append([]int(nil), s.Params...)
		for k, v := range vals {
			s.Params[k] = v
		}
		l.Moves = append(l.Moves, Move{Set: vals})
	}
	act(quest.JumpIAgree)
	act(1)
	set(map[int]int{0: 1})
	act(2)
	act(4)
	set(map[int]int{2: 1, 3: 3})
	s.Alea = alea.New("round").State()
	l.Moves = append(l.Moves, Move{Seed: "round"})
	act(10)
	saved := s.Clone()
	l.Moves = append(l.Moves, Move{State: &saved})
	v, err := q.View(s, quest.DefaultPlayer(quest.Russian, time.Now()))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range v.Choices {
		if c.Active {
			act(c.JumpID)
			break
		}
	}

	var buf bytes.Buffer
	if err := Write(&buf, l); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(buf.String(), `{"type":"header","quest":"spock.qmm"`) {
		t.Errorf("the file begins %q", buf.String()[:60])
	}
	back, err := Read(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if back.Header != l.Header || len(back.Moves) != len(l.Moves) {
		t.Fatalf("read back %+v with %d moves, want %+v with %d", back.Header, len(back.Moves), l.Header, len(l.Moves))
	}
	got, err := Replay(q, back, quest.Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if stateJSON(t, got) != stateJSON(t, s) {
		t.Errorf("the replay ends in\n%s\nthe game in\n%s", stateJSON(t, got), stateJSON(t, s))
	}

	// A forged action fails the replay at its move.
	back.Moves = append(back.Moves, Act(99999))
	if _, err := Replay(q, back, quest.Options{}, nil); !errors.Is(err, quest.ErrNotAChoice) ||
		!strings.Contains(err.Error(), "move 11") {
		t.Errorf("a forged action: %v", err)
	}
}

// Ensure files that are not logs are refused.
func TestReadRefuses(t *testing.T) {
	for _, bad := range []string{"", "not json", `{"type":"move","action":1}`,
		`{"type":"header","quest":"a","seed":"s"}` + "\n" + `{"type":"move"}`,
		`{"type":"header","quest":"a","seed":"s"}` + "\n" + `{"type":"move","action":1,"seed":"x"}`} {
		if _, err := Read(strings.NewReader(bad)); !errors.Is(err, ErrFormat) {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

// Ensure Positions counts every location a game entered, those passed without a screen too: a
// random walk of perudo counts its screens' locations and the empty ones it walks through.
func TestPositions(t *testing.T) {
	q := load(t, "perudo.qmm")
	for walk := range 50 {
		l := &Log{Header: Header{Quest: "perudo.qmm", Seed: "pos"}}
		s, err := q.Start("pos")
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(uint64(walk), 2))
		screens, passed := 0, 0
		for range 60 {
			v, err := q.View(s, quest.DefaultPlayer(quest.Russian, time.Now()))
			if err != nil || v.Status.Over() {
				break
			}
			var active []int
			for _, c := range v.Choices {
				if c.Active {
					active = append(active, c.JumpID)
				}
			}
			a := active[rng.IntN(len(active))]
			s, err = q.PerformWith(s, a, quest.Options{Passed: func(quest.Passage) { passed++ }})
			if err != nil {
				t.Fatal(err)
			}
			if s.Phase == quest.PhaseLocation || s.Phase == quest.PhaseCritOnLocation {
				screens++
			}
			l.Moves = append(l.Moves, Act(a))
		}
		if passed == 0 {
			continue // a walk that passed through nothing proves little: take another
		}
		visits, err := Positions(q, l)
		if err != nil {
			t.Fatal(err)
		}
		total := 0
		for i, v := range visits {
			total += v.Count
			if i > 0 && v.Count > visits[i-1].Count {
				t.Errorf("visits not by count: %v", visits)
			}
		}
		if total != screens+passed {
			t.Errorf("%d visits counted, want %d screens and %d passed", total, screens, passed)
		}
		return
	}
	t.Fatal("no walk passed through a location")
}

// Ensure a developer's moves (a location entered by hand, the choices offered again after a
// value set by hand) are written, read back and replayed to the state the game reached.
func TestReplayDeveloperMoves(t *testing.T) {
	q := load(t, "pizza_eng.qmm")
	s, err := q.Start("dev")
	if err != nil {
		t.Fatal(err)
	}
	if s, err = q.Perform(s, quest.JumpIAgree); err != nil {
		t.Fatal(err)
	}
	l := &Log{Header: Header{Quest: "pizza_eng.qmm", Seed: "dev"}, Moves: []Move{Act(quest.JumpIAgree)}}
	to := 0
	for id := 2; id < 100 && to == 0; id++ {
		if g, err := q.Goto(s, id, quest.Options{}); err == nil && g.Phase == quest.PhaseLocation && len(g.Jumps) > 0 {
			s, to = g, id
		}
	}
	if to == 0 {
		t.Fatal("no location to go to")
	}
	l.Moves = append(l.Moves, Move{Goto: &to})
	s.Params = append([]int(nil), s.Params...)
	s.Params[0]++
	if s, err = q.Reoffer(s, quest.Options{}); err != nil {
		t.Fatal(err)
	}
	l.Moves = append(l.Moves, Move{Set: map[int]int{0: s.Params[0]}}, Move{Offer: true})
	var buf bytes.Buffer
	if err := Write(&buf, l); err != nil {
		t.Fatal(err)
	}
	back, err := Read(&buf)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Replay(q, back, quest.Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if stateJSON(t, got) != stateJSON(t, s) {
		t.Errorf("the replay ends in\n%s\nthe game in\n%s", stateJSON(t, got), stateJSON(t, s))
	}
	visits, err := Positions(q, back)
	if err != nil || !slices.ContainsFunc(visits, func(v Visit) bool { return v.Location == to }) {
		t.Errorf("Positions %v (%v) lacks location %d", visits, err, to)
	}
}
