package questplay

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/questbot/questbot/quest"
	"github.com/questbot/questbot/quest/questpg"
	"github.com/questbot/questbot/quest/questtrace/corpus"
)

// corpusQuest opens a quest of the original bot's corpus as the player opens the catalogue's.
func corpusQuest(t *testing.T, file string) *compiled {
	t.Helper()
	path, err := filepath.Abs(corpus.Path(t, "quests", "dagazbot", file))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("the shared quest corpus is missing: %v", err)
	}
	c, err := New(Config{}).open(path)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func gameIn(d questpg.Dialect) *game {
	return &game{Game: questpg.Game{MoneyParam: -1, Script: questpg.Script{Dialect: d, Lang: "ru"}}}
}

// Ensure a game of spock in the dagazbot dialect plays by the original bot's rule: of 200 seeded
// decisive rounds between two players (different moves, written into the game as a session
// does), none ends in a draw; in the reference dialect the same rounds end in some false draws
// (the draw's jump has priority 10 against 100).
func TestDagazSpockNoFalseDraws(t *testing.T) {
	c := corpusQuest(t, "spock.qmm")
	round := func(gm *game, seed string, a, b int) int {
		opts := options(gm, nil)
		s, err := c.ReplayWith(seed, []int{quest.JumpIAgree, 1}, opts)
		if err != nil {
			t.Fatal(err)
		}
		s.Params = slices.Clone(s.Params)
		s.Params[0] = 1 // the player's number, before the session's jump
		for _, jump := range []int{2, 4} {
			if s, err = c.PerformWith(s, jump, opts); err != nil {
				t.Fatal(err)
			}
		}
		s.Params = slices.Clone(s.Params)
		s.Params[2], s.Params[3] = a, b // the round's moves, before its jump
		if s, err = c.PerformWith(s, 10, opts); err != nil {
			t.Fatal(err)
		}
		return s.LocationID
	}
	const draw = 13
	dagazDraws, refDraws := 0, 0
	for i := range 200 {
		a, b := i%5+1, (i/5)%4+1
		if b >= a {
			b++
		}
		seed := fmt.Sprintf("round%d", i)
		if round(gameIn(questpg.DialectDagazBot), seed, a, b) == draw {
			dagazDraws++
		}
		if round(gameIn(questpg.DialectReference), seed, a, b) == draw {
			refDraws++
		}
	}
	if dagazDraws != 0 {
		t.Errorf("%d of 200 decisive rounds drawn in the dagazbot dialect", dagazDraws)
	}
	if refDraws == 0 {
		t.Error("no decisive round drawn in the reference dialect: the test proves nothing")
	}
}

// Ensure the dagazbot layout of a screen: the buttons in showing order then file order, the
// width from the location's image field (the first text's when the one shown has none), the
// picture only where named; and that <Money> is the win bonus without a money parameter.
func TestDagazArrange(t *testing.T) {
	c := corpusQuest(t, "spock.qmm")
	gm := gameIn(questpg.DialectDagazBot)
	gm.Script.WinBonus = 250
	g := New(Config{Now: func() time.Time { return time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC) }})
	if p := g.player(gm); p.Money != "250" {
		t.Errorf("<Money> is %q, want the win bonus", p.Money)
	}
	if p := g.player(gameIn(questpg.DialectReference)); p.Money != "0" {
		t.Errorf("<Money> in the reference dialect is %q, want 0", p.Money)
	}
	// The moves of spock (location 4, width "2") in showing order: rock 0, scissors 1, paper 2…
	s, err := c.ReplayWith("arrange", []int{quest.JumpIAgree, 1}, options(gm, nil))
	if err != nil {
		t.Fatal(err)
	}
	s.Params = slices.Clone(s.Params)
	s.Params[0] = 1
	if s, err = c.PerformWith(s, 2, options(gm, nil)); err != nil {
		t.Fatal(err)
	}
	v, err := c.ViewWith(s, g.player(gm), options(gm, nil))
	if err != nil {
		t.Fatal(err)
	}
	slices.Reverse(v.Choices)
	v.Image = "spock.png" // an image carried over from the rules screen
	if w := c.arrange(&s, &v); w != 2 {
		t.Errorf("width %d, want 2", w)
	}
	var ids []int
	for _, ch := range v.Choices {
		ids = append(ids, ch.JumpID)
	}
	if want := []int{4, 5, 6, 7, 8}; !slices.Equal(ids, want) {
		t.Errorf("order %v, want %v", ids, want)
	}
	if v.Image != "" {
		t.Errorf("picture %q on a screen that names none", v.Image)
	}
	// The rules (location 25) name the picture.
	if s, err = c.ReplayWith("arrange", []int{quest.JumpIAgree, 63}, options(gm, nil)); err != nil {
		t.Fatal(err)
	}
	if v, err = c.ViewWith(s, g.player(gm), options(gm, nil)); err != nil {
		t.Fatal(err)
	}
	if w := c.arrange(&s, &v); w != 1 || v.Image != "spock.png" {
		t.Errorf("rules: width %d, picture %q; want 1 and spock.png", w, v.Image)
	}
}
