package questplay_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"

	"github.com/questbot/questbot/quest"
	"github.com/questbot/questbot/quest/questtrace"
)

// placeholders are the reference's English player values, which are the tags' own names: a
// screen that shows one shows a placeholder, not a name.
var placeholders = []string{"FromPlanet", "FromStar", "ToPlanet", "ToStar"}

// seenTexts plays a quest to its ending along a shortest way and returns every text the bot
// showed on the way (each screen's text and buttons, read while it was the current one), of the
// messages after message after.
func (e *env) seenTexts(t *testing.T, user int64, q *quest.Quest, after int) []string {
	t.Helper()
	var seen []string
	for i := 0; ; i++ {
		g, ok := e.game(t, user)
		if !ok {
			break
		}
		if i > 200 {
			t.Fatal("no ending after 200 presses")
		}
		path, found := questtrace.Shortest(q, g.state, 50000, quest.Status.Over)
		if !found || len(path) == 0 {
			t.Fatalf("no way to an ending from %+v", g.state)
		}
		data := dataOf(g, path[0])
		e.WaitFor(t, "button "+data, func() bool { return e.button(user, data) != 0 })
		for _, m := range e.Bot.Messages(user) {
			if !m.FromBot || m.ID <= after {
				continue
			}
			seen = append(seen, m.Text)
			for _, row := range m.Keyboard {
				for _, b := range row {
					seen = append(seen, b.Text)
				}
			}
		}
		e.press(t, user, g, path[0])
	}
	e.WaitIdle(t)
	for _, m := range e.Bot.Messages(user) {
		if m.FromBot && m.ID > after {
			seen = append(seen, m.Text)
		}
	}
	return seen
}

// Ensure Driver played in English shows real names: the player's Telegram first name and real
// planets and stars, never the reference's placeholder values.
func TestDriverEnglishHasNoPlaceholders(t *testing.T) {
	t.Parallel()
	file := filepath.Join(sharedDir(t), "quests", "dagazbot", "driver_eng.qmm")
	e := newEnv(t)
	e.start(t)
	e.Bot.AddUser(tgbotapi.User{ID: 9, FirstName: "Zed", LanguageCode: "en"})
	id := e.addScript(t, "Driver", "driver", file, "en", 0, 0)
	e.Send(t, 9, fmt.Sprintf("/play %d", id))
	e.WaitFor(t, "the game", func() bool { _, ok := e.game(t, 9); return ok })
	seen := e.seenTexts(t, 9, loadQuest(t, file), 0)
	all := strings.Join(seen, "\n")
	for _, p := range placeholders {
		if strings.Contains(all, p) {
			i := strings.Index(all, p)
			t.Errorf("a screen shows the placeholder %q: …%s…", p, all[max(0, i-80):min(len(all), i+80)])
		}
	}
	for _, tag := range []string{"&lt;Ranger&gt;", "&lt;ToPlanet&gt;", "&lt;FromPlanet&gt;", "&lt;ToStar&gt;", "&lt;FromStar&gt;"} {
		if strings.Contains(all, tag) {
			t.Errorf("a screen shows the tag %s", tag)
		}
	}
	for _, want := range []string{"Zed", "Bonnasis"} {
		if !strings.Contains(all, want) {
			t.Errorf("no screen names %q", want)
		}
	}
}

// Ensure /settings shows the player's names with their defaults, changes one, refuses a value
// that would be read as markup, and that the names set show in the next game's screens.
func TestSettingsNames(t *testing.T) {
	t.Parallel()
	file := filepath.Join(sharedDir(t), "quests", "dagazbot", "driver_eng.qmm")
	e := newEnv(t)
	e.start(t)
	e.Bot.AddUser(tgbotapi.User{ID: 10, FirstName: "Zed", LanguageCode: "en"})
	e.Send(t, 10, "/settings")
	e.WaitFor(t, "the settings", func() bool {
		m, ok := e.lastWith(10, "Your names in quests:")
		return ok && strings.Contains(m.Text, "Your name: Zed (default)") &&
			strings.Contains(m.Text, "Destination planet: Bonnasis (default)")
	})
	e.Send(t, 10, "/settings name Captain Alex")
	e.WaitFor(t, "the name set", func() bool { _, ok := e.lastWith(10, "Your name: «Captain Alex» from now on."); return ok })
	e.Send(t, 10, "/settings toplanet [p1]")
	e.WaitFor(t, "the refusal", func() bool { _, ok := e.lastWith(10, "one line of at most 32 characters"); return ok })
	e.Send(t, 10, "/settings toplanet Vega Prime")
	e.WaitFor(t, "the planet set", func() bool { _, ok := e.lastWith(10, "«Vega Prime» from now on."); return ok })
	e.Send(t, 10, "/settings colour red")
	e.WaitFor(t, "the unknown field", func() bool { _, ok := e.lastWith(10, "There is no field «colour»."); return ok })

	id := e.addScript(t, "Driver", "driver", file, "en", 0, 0)
	e.WaitIdle(t)
	msgs := e.Bot.Messages(10)
	e.Send(t, 10, fmt.Sprintf("/play %d", id))
	e.WaitFor(t, "the game", func() bool { _, ok := e.game(t, 10); return ok })
	all := strings.Join(e.seenTexts(t, 10, loadQuest(t, file), msgs[len(msgs)-1].ID), "\n")
	for _, want := range []string{"Captain Alex", "Vega Prime"} {
		if !strings.Contains(all, want) {
			t.Errorf("no screen names %q", want)
		}
	}
	if strings.Contains(all, "Bonnasis") {
		t.Error("a screen names the default destination after it was set")
	}

	e.Send(t, 10, "/settings reset")
	e.WaitFor(t, "the reset", func() bool {
		m, ok := e.lastWith(10, "Every name is back to its default.")
		return ok && strings.Contains(m.Text, "Your name: Zed (default)")
	})
	var n int
	if err := e.Pool.QueryRow(t.Context(), `SELECT count(*) FROM player_names WHERE user_id = 10`).Scan(&n); err != nil || n != 0 {
		t.Errorf("after a reset %d rows of names are kept (%v)", n, err)
	}
}
