package web_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/questbot/questbot/bot/boards/web"
	"github.com/questbot/questbot/bot/texts"
	"github.com/questbot/questbot/sessions/board"
)

// Ensure the bot's level is named on the web in the words of the Telegram view, in the viewer's
// language, by the server: in a game's seat (once: the name says it, Level names it for a page
// that wants it apart) and in the levels the lobby offers for each game, with the level's
// measured rating in that game where there is one (chess; Russian draughts, on its ladder's
// scale).
func TestBotLevelWords(t *testing.T) {
	t.Parallel()
	e := newEnv(t, web.Config{})
	for _, tc := range []struct {
		user int64
		lang string
	}{{1, "en"}, {2, "ru"}} {
		c := e.login(t, tc.user, fmt.Sprint("Player", tc.user))
		e.Exec(t, `UPDATE users SET language = $2 WHERE id = $1`, tc.user, tc.lang)
		cat := texts.For(tc.lang)
		words := cat.Board
		var g struct{ ID int64 }
		c.must(t, "POST", "/api/v1/games", map[string]string{"variant": "russian", "bot": "easy"}, http.StatusCreated, &g)
		st := c.state(t, g.ID)
		bot := st.Seats[1-st.Seat]
		level := cat.Level("russian", board.BotEasy)
		if bot.Bot != "easy" || bot.Level != level || bot.Name != cat.BotName("russian", board.BotEasy) ||
			strings.Count(strings.ToLower(bot.Name), words.Levels["easy"]) != 1 {
			t.Errorf("%s: the bot's seat %+v, want level %q named once", tc.lang, bot, level)
		}
		var variants []struct {
			Name   string                         `json:"name"`
			Levels []struct{ Name, Title string } `json:"levels"`
		}
		c.must(t, "GET", "/api/v1/variants", nil, http.StatusOK, &variants)
		rated := map[string]bool{}
		for _, v := range variants {
			var got []string
			for _, l := range v.Levels {
				got = append(got, l.Name+"="+l.Title)
			}
			want := "easy=" + cat.Level(v.Name, board.BotEasy) + " normal=" + cat.Level(v.Name, board.BotNormal) +
				" strong=" + cat.Level(v.Name, board.BotStrong)
			if strings.Join(got, " ") != want {
				t.Errorf("%s %s: levels %v, want %s", tc.lang, v.Name, got, want)
			}
			if v.Name == "chess" || v.Name == "russian" {
				rated[v.Name] = true
				if !strings.Contains(strings.Join(got, " "), "strong="+words.Levels["strong"]+" (≈") {
					t.Errorf("%s: the %s levels %v, without the strong level's rating", tc.lang, v.Name, got)
				}
			}
		}
		if !rated["chess"] || !rated["russian"] {
			t.Errorf("%s: chess or Russian draughts missing among the games offered: %v", tc.lang, rated)
		}
	}
	if ru := texts.For("ru").Board.Levels; ru["easy"] != "лёгкий" || ru["normal"] != "средний" || ru["strong"] != "сильный" {
		t.Errorf("the Russian levels: %v", ru)
	}
}
