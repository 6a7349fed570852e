package questplay_test

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/questbot/questbot/bot/emulator/tgemu"
)

// lastWithButton returns the newest bot message of a chat with a button labelled label.
func (e *env) lastWithButton(t *testing.T, user int64, label string) tgemu.Message {
	t.Helper()
	var found tgemu.Message
	e.WaitFor(t, "a button "+label, func() bool {
		msgs := e.BotMessages(user)
		for i := len(msgs) - 1; i >= 0; i-- {
			if slices.ContainsFunc(labels(msgs[i]), func(row []string) bool { return slices.Contains(row, label) }) {
				found = msgs[i]
				return true
			}
		}
		return false
	})
	return found
}

// message returns the bot's message id in a chat as it is now.
func (e *env) message(t *testing.T, user int64, id int) tgemu.Message {
	t.Helper()
	for _, m := range e.BotMessages(user) {
		if m.ID == id {
			return m
		}
	}
	t.Fatalf("no message %d in chat %d", id, user)
	return tgemu.Message{}
}

// Ensure the catalogue of many quests as a player meets it: /quest shows a page of ten, with what
// is new to the player, and pages in place; /quest with a name searches; a quest chosen starts
// and its ending offers it again and the catalogue, where it is then no longer new and counts
// one player who finished it; and a player who plays a quest is asked before another replaces it
// (No keeps the game, Yes leaves it).
func TestCatalogueAndEnding(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.product = true
	e.start(t)
	e.User(51, "Ann", "en")
	file := filepath.Join(sharedDir(t), "quests", "dagazbot", "test.qmm")
	ids := map[string]int64{}
	for i := 1; i <= 23; i++ {
		name := fmt.Sprintf("Q%02d", i)
		ids[name] = e.addScript(t, name, strings.ToLower(name), file, "en", 100, 0)
	}
	// With the shipped cargo run and duel, 25 quests: three pages.
	e.Send(t, 51, "/quest")
	first := e.WaitTextAfter(t, 51, 0, "Choose a quest:")
	want := [][]string{{"Cargo run", "Orbital duel"}, {"Q01", "Q02"}, {"Q03", "Q04"}, {"Q05", "Q06"}, {"Q07", "Q08"}, {"More ›"}}
	if got := labels(first); !slices.EqualFunc(got, want, slices.Equal) {
		t.Fatalf("the first page %v, want %v", got, want)
	}
	for _, s := range []string{"Page 1 of 3.", "<b>Q01</b> 🆕", "🆕 new to you"} {
		if !strings.Contains(first.Text, s) {
			t.Errorf("the first page lacks %q:\n%s", s, first.Text)
		}
	}
	e.Press(t, 51, first, "More ›")
	e.WaitFor(t, "the second page in place", func() bool { return strings.Contains(e.message(t, 51, first.ID).Text, "Page 2 of 3.") })
	second := e.message(t, 51, first.ID)
	if got := labels(second); got[0][0] != "Q09" || !slices.Equal(got[len(got)-1], []string{"‹ Back", "More ›"}) {
		t.Errorf("the second page %v", got)
	}

	// A search: the 23 Qs, three pages.
	before := e.LastID(51)
	e.Send(t, 51, "/quest Q")
	found := e.WaitTextAfter(t, 51, before, "Quests whose name holds «q»:")
	if got := labels(found); got[0][0] != "Q01" || got[4][1] != "Q10" || !strings.Contains(found.Text, "Page 1 of 3.") {
		t.Errorf("the search %v:\n%s", got, found.Text)
	}
	e.Press(t, 51, found, "More ›")
	e.WaitFor(t, "the search's second page", func() bool {
		m := e.message(t, 51, found.ID)
		return strings.Contains(m.Text, "Page 2 of 3.") && labels(m)[0][0] == "Q11"
	})

	// Q05 chosen in the first message (now at page 2: back to page 1 first).
	e.Press(t, 51, e.message(t, 51, first.ID), "‹ Back")
	e.WaitFor(t, "the first page again", func() bool { return strings.Contains(e.message(t, 51, first.ID).Text, "Page 1 of 3.") })
	e.Press(t, 51, e.message(t, 51, first.ID), "Q05")
	e.WaitFor(t, "the game of Q05", func() bool { g, ok := e.game(t, 51); return ok && g.script == ids["Q05"] })
	e.WaitIdle(t)
	if m := e.message(t, 51, first.ID); m.Text != "▶ Q05" || len(m.Keyboard) != 0 {
		t.Errorf("the catalogue after the choice: %q %v", m.Text, m.Keyboard)
	}

	// Another quest of an older catalogue while playing: asked first; No keeps the game.
	page := e.message(t, 51, found.ID)
	e.Press(t, 51, page, "Q19")
	e.WaitFor(t, "the question", func() bool {
		return e.message(t, 51, page.ID).Text == "You are playing «Q05». Leave it and start «Q19»?"
	})
	e.Press(t, 51, e.message(t, 51, page.ID), "No")
	e.WaitFor(t, "carry on", func() bool { return strings.HasPrefix(e.message(t, 51, page.ID).Text, "Carry on!") })
	if g, _ := e.game(t, 51); g.script != ids["Q05"] {
		t.Fatalf("No replaced the game with quest %d", g.script)
	}

	// Q05 to its end; the ending offers it again and the catalogue.
	e.playToEnd(t, 51, loadQuest(t, file), -1, nil)
	ending := e.lastWithButton(t, 51, "📚 Another quest")
	if got := labels(ending); !slices.EqualFunc(got, [][]string{{"🔁 Play again"}, {"📚 Another quest"}}, slices.Equal) {
		t.Errorf("the ending's buttons %v", got)
	}
	before = e.LastID(51)
	e.Press(t, 51, ending, "📚 Another quest")
	again := e.WaitTextAfter(t, 51, before, "Choose a quest:")
	if !strings.Contains(again.Text, "<b>Q05</b> · EN · finished by 1") || strings.Contains(again.Text, "<b>Q05</b> 🆕") {
		t.Errorf("Q05 in the catalogue after its end:\n%s", again.Text)
	}
	if m := e.message(t, 51, ending.ID); len(m.Keyboard) == 0 || !strings.Contains(m.Text, "🏆 You have completed the quest!") {
		t.Errorf("the ending changed when the catalogue was asked for: %q %v", m.Text, m.Keyboard)
	}
	e.Press(t, 51, e.message(t, 51, ending.ID), "🔁 Play again")
	e.WaitFor(t, "Q05 again", func() bool { g, ok := e.game(t, 51); return ok && g.script == ids["Q05"] })
	e.WaitIdle(t)
	if m := e.message(t, 51, ending.ID); len(m.Keyboard) != 0 || !strings.Contains(m.Text, "🏆 You have completed the quest!") {
		t.Errorf("the ending after Play again: %q %v", m.Text, m.Keyboard)
	}
	// Yes leaves the game for the other quest.
	e.Press(t, 51, e.message(t, 51, again.ID), "Q08")
	e.WaitFor(t, "the question", func() bool { return strings.HasPrefix(e.message(t, 51, again.ID).Text, "You are playing «Q05»") })
	e.Press(t, 51, e.message(t, 51, again.ID), "Yes")
	e.WaitFor(t, "the game of Q08", func() bool { g, ok := e.game(t, 51); return ok && g.script == ids["Q08"] })
	e.WaitIdle(t)
	if n := e.QueryInt(t, `SELECT launches FROM user_stats WHERE user_id = 51`); n != 3 {
		t.Errorf("%d launches, want 3", n)
	}
}
