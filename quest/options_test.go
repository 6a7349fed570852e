package quest_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/questbot/questbot/quest"
	"github.com/questbot/questbot/quest/questtrace/corpus"
)

// stateJSON is a state's whole content, for comparisons.
func stateJSON(t *testing.T, s quest.State) string {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Ensure the Passed observer and DescribedText only observe: random walks through every quest
// of the original bot's corpus give the same states, step for step, with and without them, and
// the views differ from the reference's only in their text.
func TestOptionsObserveOnly(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(corpus.Path(t, "quests", "dagazbot", "*.qm*"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no quests (err %v): the shared test data is missing", err)
	}
	passages := 0
	for _, file := range files {
		q := loadQuest(t, "dagazbot", filepath.Base(file))
		for walk := range 2 {
			rng := rand.New(rand.NewPCG(uint64(walk), 7))
			s, err := q.Start(fmt.Sprintf("observe%d", walk))
			if err != nil {
				t.Fatal(err)
			}
			for step := 0; step < 60; step++ {
				v, err := q.View(s, quest.DefaultPlayer(quest.Russian, testNow))
				if err != nil || v.Status.Over() {
					break
				}
				var active []int
				for _, c := range v.Choices {
					if c.Active {
						active = append(active, c.JumpID)
					}
				}
				if len(active) == 0 {
					break
				}
				a := active[rng.IntN(len(active))]
				var seen []quest.Passage
				observed, err1 := q.PerformWith(s, a, quest.Options{DescribedText: true,
					Passed: func(p quest.Passage) { seen = append(seen, p) }})
				plain, err2 := q.Perform(s, a)
				if (err1 == nil) != (err2 == nil) {
					t.Fatalf("%s: action %d: errors %v and %v", file, a, err1, err2)
				}
				if err2 != nil {
					break
				}
				if got, want := stateJSON(t, observed), stateJSON(t, plain); got != want {
					t.Fatalf("%s: action %d: observed state %s, plain %s", file, a, got, want)
				}
				for _, p := range seen {
					if _, _, err := q.PassageText(p, quest.DefaultPlayer(quest.Russian, testNow)); err != nil {
						t.Errorf("%s: passage of location %d: %v", file, p.LocationID, err)
					}
				}
				passages += len(seen)
				dv, err1 := q.ViewWith(plain, quest.DefaultPlayer(quest.Russian, testNow), quest.Options{DescribedText: true})
				pv, err2 := q.View(plain, quest.DefaultPlayer(quest.Russian, testNow))
				if (err1 == nil) != (err2 == nil) {
					t.Fatalf("%s: views fail differently: %v and %v", file, err1, err2)
				}
				dv.Text, pv.Text = "", ""
				if fmt.Sprint(dv) != fmt.Sprint(pv) {
					t.Fatalf("%s: views differ beyond their text:\n%v\n%v", file, dv, pv)
				}
				s = plain
			}
		}
	}
	if passages == 0 {
		t.Error("no walk passed through a location")
	}
}

// walkTo plays q from a seeded start, choosing at random among the active choices but always
// jump want when it is offered, until want has been taken; it returns the state before that
// action. It fails the test when no walk of many gets there.
func walkTo(t *testing.T, q *quest.Quest, want int, opts quest.Options) quest.State {
	t.Helper()
	for seed := range 200 {
		rng := rand.New(rand.NewPCG(uint64(seed), 11))
		s, err := q.Start(fmt.Sprintf("walk%d", seed))
		if err != nil {
			t.Fatal(err)
		}
		for step := 0; step < 300; step++ {
			v, err := q.ViewWith(s, quest.DefaultPlayer(quest.Russian, testNow), opts)
			if err != nil || v.Status.Over() {
				break
			}
			var active []int
			for _, c := range v.Choices {
				if c.JumpID == want && c.Active {
					return s
				}
				if c.Active {
					active = append(active, c.JumpID)
				}
			}
			if len(active) == 0 {
				break
			}
			if s, err = q.PerformWith(s, active[rng.IntN(len(active))], opts); err != nil {
				t.Fatal(err)
			}
		}
	}
	t.Fatalf("no walk reached jump %d", want)
	return quest.State{}
}

// Ensure the showdown of perudo is shown under DescribedText: "Вскрыться" (jump 160) has a
// description and leads to an empty location whose own text is the players' dice, which the
// reference never shows; and the locations the game then walks through are reported with the
// descriptions of the jumps that enter them.
func TestDescribedTextShowsTheShowdown(t *testing.T) {
	q := loadQuest(t, "dagazbot", "perudo.qmm")
	opts := quest.Options{DescribedText: true}
	s := walkTo(t, q, 160, opts)
	s, err := q.Perform(s, 160)
	if err != nil {
		t.Fatal(err)
	}
	p := quest.DefaultPlayer(quest.Russian, testNow)
	ref, err := q.View(s, p)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(ref.Text, "Не верю! Вскрываемся") || strings.Contains(ref.Text, "Ты:") {
		t.Fatalf("the reference shows %q, want the description alone", ref.Text)
	}
	v, err := q.ViewWith(s, p, opts)
	if err != nil {
		t.Fatal(err)
	}
	desc, dice, ok := strings.Cut(v.Text, "\n\n")
	if !ok || !strings.Contains(desc, "Не верю! Вскрываемся") || !strings.Contains(dice, "Ты:") {
		t.Fatalf("the showdown shows %q, want the description, then the dice", v.Text)
	}

	// "Далее" walks through empty locations (66, 67, …), entering the first by itself, to the
	// screen that tells who lost a die or took the bank.
	var passed []quest.Passage
	s, err = q.PerformWith(s, 172, quest.Options{Passed: func(ps quest.Passage) { passed = append(passed, ps) }})
	if err != nil {
		t.Fatal(err)
	}
	if len(passed) < 2 || passed[0].LocationID != 66 || passed[0].JumpID != 172 || passed[1].LocationID != 67 {
		t.Fatalf("passages %+v, want locations 66 (entered by jump 172), 67, …", passed)
	}
	for _, ps := range passed {
		if ps.LocationID == s.LocationID {
			t.Errorf("the screen's own location %d is reported passed", ps.LocationID)
		}
		if _, _, err := q.PassageText(ps, p); err != nil {
			t.Fatal(err)
		}
	}
	if v, err = q.ViewWith(s, p, opts); err != nil || v.Text == "" {
		t.Fatalf("the screen after the showdown: %q, %v", v.Text, err)
	}
}

// spockRound plays one round of spock between two players (the !wait jump with p3 and p4 their
// moves, 1 to 5) from a game started with seed, and returns the location the round ends at.
func spockRound(t *testing.T, q *quest.Quest, seed string, a, b int, opts quest.Options) int {
	t.Helper()
	s, err := q.ReplayWith(seed, []int{quest.JumpIAgree, 1}, opts)
	if err != nil {
		t.Fatal(err)
	}
	// What a session writes: the player's number before the session's jump (2), the moves of
	// both players before the round's (10).
	s.Params = append([]int(nil), s.Params...)
	s.Params[0] = 1
	for _, a := range []int{2, 4} {
		if s, err = q.PerformWith(s, a, opts); err != nil {
			t.Fatal(err)
		}
	}
	if s.LocationID != 5 {
		t.Fatalf("after a move the game is at location %d, want 5", s.LocationID)
	}
	s.Params = append([]int(nil), s.Params...)
	s.Params[2], s.Params[3] = a, b
	if s, err = q.PerformWith(s, 10, opts); err != nil {
		t.Fatal(err)
	}
	return s.LocationID
}

// Ensure TopPriority settles every decisive round of spock (two different moves) with a win,
// where the reference's rule ends some of them in a draw (location 13), at priority 10 against
// 100; and that a round of equal moves is a draw under both.
func TestTopPriorityNoFalseDraws(t *testing.T) {
	q := loadQuest(t, "dagazbot", "spock.qmm")
	const draw = 13
	refDraws := 0
	for i := range 200 {
		a, b := i%5+1, (i/5)%4+1
		if b >= a {
			b++ // a different move
		}
		seed := fmt.Sprintf("round%d", i)
		if loc := spockRound(t, q, seed, a, b, quest.Options{TopPriority: true}); loc == draw {
			t.Errorf("round %d (%d against %d): a draw under TopPriority", i, a, b)
		}
		if spockRound(t, q, seed, a, b, quest.Options{}) == draw {
			refDraws++
		}
	}
	if refDraws == 0 {
		t.Error("the reference's rule drew no decisive round of 200: the test proves nothing")
	}
	t.Logf("the reference's rule drew %d decisive rounds of 200", refDraws)
	for m := 1; m <= 5; m++ {
		if loc := spockRound(t, q, "even", m, m, quest.Options{TopPriority: true}); loc != draw {
			t.Errorf("equal moves %d: location %d, want the draw", m, loc)
		}
	}
}
