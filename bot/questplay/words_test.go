package questplay_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/questbot/questbot/quest"
	"github.com/questbot/questbot/quest/questtrace"
)

// Ensure the catalogue's words: a quest is shown under its title in the player's language with
// its description and the languages it plays in, a search finds it by its title in another
// language (/quest тюрьма finds Prison), and "finished by" counts the players who won it, not
// those who failed or died.
func TestCatalogueWords(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.product = true
	e.start(t)
	file := filepath.Join(sharedDir(t), "quests", "dagazbot", "test.qmm")
	prison := e.addScript(t, "Prison", "prison", file, "ru", 0, 0)
	e.addScript(t, "Depth", "depth", file, "ru", 0, 0)
	e.addScript(t, "Depth", "depth", file, "en", 0, 0)
	e.addScript(t, "Robots", "robots", file, "en", 0, 0)
	e.Exec(t, `UPDATE script SET listed = true`)
	e.Exec(t, `INSERT INTO quest_title (common_name, lang, title, description) VALUES
		('prison', 'ru', 'Тюрьма', 'Выбраться из тюрьмы гаальцев.'), ('prison', 'en', 'Prison', 'Get out of a Gaal prison.')`)
	for _, u := range []int64{60, 61, 62} {
		e.User(u, "P", "ru")
		e.Send(t, u, "/help")
	}
	e.WaitIdle(t)
	e.Exec(t, `INSERT INTO user_script_stats (service_id, user_id, script_id, launches, wins, failures, deaths)
		VALUES ($1, 60, $2, 1, 0, 1, 0), ($1, 61, $2, 1, 0, 0, 1), ($1, 62, $2, 2, 1, 1, 0)`, e.service, prison)

	e.Send(t, 60, "/quest")
	page := e.WaitTextAfter(t, 60, 0, "Выберите квест:")
	for _, want := range []string{"<b>Тюрьма</b> · RU · прошли: 1\n<i>Выбраться из тюрьмы гаальцев.</i>",
		"<b>Depth</b> 🆕 · EN/RU", "<b>Robots</b> 🆕 · EN"} {
		if !strings.Contains(page.Text, want) {
			t.Errorf("the catalogue lacks %q:\n%s", want, page.Text)
		}
	}
	if strings.Contains(page.Text, "<b>Prison</b>") {
		t.Errorf("the Russian catalogue names Prison in English:\n%s", page.Text)
	}

	// A search by the title in either language finds the one quest and starts it.
	for _, q := range []string{"/quest тюрьма", "/quest PRISON"} {
		e.Exec(t, `DELETE FROM game`)
		e.Send(t, 61, q)
		e.WaitFor(t, "the game of "+q, func() bool { g, ok := e.game(t, 61); return ok && g.script == prison })
	}
}

// Ensure moving between quests as a player expects: /quest during a game browses the catalogue,
// /quest <name> and /start <id> ask before they leave the game played (No keeps it, Yes starts
// the other), and a game played with others says that they go on against the bot.
func TestMovingBetweenQuests(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.product = true
	e.start(t)
	file := filepath.Join(sharedDir(t), "quests", "dagazbot", "test.qmm")
	first := e.addScript(t, "Alpha", "alpha", file, "en", 0, 0)
	second := e.addScript(t, "Beta", "beta", file, "en", 0, 0)
	e.Exec(t, `UPDATE script SET listed = true`)
	e.User(70, "Ann", "en")
	e.Send(t, 70, fmt.Sprintf("/start %d", first))
	e.WaitFor(t, "the game of Alpha", func() bool { g, ok := e.game(t, 70); return ok && g.script == first })

	before := e.LastID(70)
	e.Send(t, 70, "/quest")
	e.WaitTextAfter(t, 70, before, "Choose a quest:")

	before = e.LastID(70)
	e.Send(t, 70, "/quest beta")
	ask := e.WaitTextAfter(t, 70, before, "You are playing «Alpha». Leave it and start «Beta»?")
	e.Press(t, 70, ask, "No")
	e.WaitFor(t, "carry on", func() bool { return strings.HasPrefix(e.message(t, 70, ask.ID).Text, "Carry on!") })
	if g, _ := e.game(t, 70); g.script != first {
		t.Fatalf("/quest beta replaced the game with quest %d", g.script)
	}

	before = e.LastID(70)
	e.Send(t, 70, fmt.Sprintf("/start %d", second))
	ask = e.WaitTextAfter(t, 70, before, "Leave it and start «Beta»?")
	e.Press(t, 70, ask, "Yes")
	e.WaitFor(t, "the game of Beta", func() bool { g, ok := e.game(t, 70); return ok && g.script == second })

	// Beta played with others.
	e.Exec(t, `UPDATE script SET session_type_id = (SELECT min(id) FROM session_type) WHERE id = $1`, second)
	before = e.LastID(70)
	e.Send(t, 70, fmt.Sprintf("/start %d", first))
	e.WaitTextAfter(t, 70, before, "You are playing «Beta» with other players: if you leave, they go on against the bot.")
	if g, _ := e.game(t, 70); g.script != second {
		t.Fatalf("/start replaced a game played with others with quest %d", g.script)
	}
}

// Ensure a typed choice number chooses: under a screen that numbers its long choices, "1" takes
// the first numbered choice, as its button would, and is not relayed; a number the screen does
// not number is answered so and changes nothing.
func TestTypedChoiceNumber(t *testing.T) {
	t.Parallel()
	file := filepath.Join(sharedDir(t), "quests", "dagazbot", "driver_eng.qmm")
	q := loadQuest(t, file)
	e := newEnv(t)
	e.product = true
	e.start(t)
	e.User(71, "Ann", "en")
	id := e.addScript(t, "Driver", "driver", file, "en", 0, 0)
	e.Send(t, 71, fmt.Sprintf("/start %d", id))
	e.WaitFor(t, "the game", func() bool { _, ok := e.game(t, 71); return ok })
	for i := 0; ; i++ {
		if i == 100 {
			t.Fatal("no screen with numbered choices in 100 steps")
		}
		g, ok := e.game(t, 71)
		if !ok {
			t.Fatal("the game ended before a screen numbered its choices")
		}
		path, found := questtrace.Shortest(q, g.state, 50000, quest.Status.Over)
		if !found {
			t.Fatal("no way on")
		}
		data := dataOf(g, path[0])
		var screen int
		e.WaitFor(t, "the screen", func() bool { screen = e.button(71, data); return screen != 0 })
		m := e.message(t, 71, screen)
		first := ""
		for _, row := range m.Keyboard {
			for _, b := range row {
				if strings.HasPrefix(b.Text, "1. ") {
					first = b.Data
				}
			}
		}
		if first == "" {
			e.press(t, 71, g, path[0])
			continue
		}
		// A number past the list: answered, nothing changes.
		before := e.LastID(71)
		e.Send(t, 71, "99")
		e.WaitTextAfter(t, 71, before, "There is no choice of that number here")
		if n, _ := e.game(t, 71); n.step != g.step {
			t.Fatal("a number past the list moved the game")
		}
		var action int
		fmt.Sscanf(first[strings.LastIndexByte(first, ':')+1:], "%d", &action)
		want, err := q.Perform(g.state, action)
		if err != nil {
			t.Fatal(err)
		}
		e.Send(t, 71, "1")
		e.WaitFor(t, "the typed step", func() bool { n, _ := e.game(t, 71); return n.step == g.step+1 })
		if n, _ := e.game(t, 71); !statesEqual(n.state, want) {
			t.Error("the typed number did not take the first numbered choice")
		}
		break
	}
	e.WaitIdle(t)
	if n := e.QueryInt(t, `SELECT count(*) FROM relay_message`); n != 0 {
		t.Errorf("%d typed numbers relayed to the admins", n)
	}
}
