package web_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/questbot/questbot/bot/boards/web"
)

// Ensure the games added as descriptions, and Othello, are listed by the API, played between
// two people on the web (each posting the moves the state offers, the picture's map naming every
// square of a legal move) and against the bot, and exported: PDN with the game's GameType for
// the draughts, a numbered list for the others.
func TestNewGamesOnTheWeb(t *testing.T) {
	t.Parallel()
	// Seven games are many requests for the test's clock, which does not refill the rate limit.
	e := newEnv(t, web.Config{Rate: 1000, Burst: 1000})
	ann := e.login(t, 1, "Ann")
	boris := e.login(t, 2, "Boris")
	var variants []struct {
		Name  string `json:"name"`
		Title string `json:"title"`
	}
	ann.must(t, "GET", "/api/v1/variants", nil, http.StatusOK, &variants)
	listed := map[string]string{}
	for _, v := range variants {
		listed[v.Name] = v.Title
	}
	for _, tc := range []struct {
		variant, title, export string
	}{
		{"othello", "Othello", "1. "},
		{"breakthrough", "Breakthrough", "1. "},
		{"canadian", "Canadian draughts", `[GameType "27"]`},
		{"pool", "Pool checkers", `[GameType "23"]`},
		{"czech", "Czech draughts", `[GameType "29"]`},
		{"spanish", "Spanish draughts", `[GameType "24"]`},
		{"italian", "Italian draughts", `[GameType "22"]`},
		{"thai", "Thai draughts", `[GameType "31"]`},
		{"armenian", "Armenian draughts (tama)", "1. "},
		{"atarigo", "Atari Go", "1. "},
		{"gardner", "Gardner's minichess (5×5)", "1. "},
		{"chess960", "Chess960", `[Variant "Chess960"]`},
		{"frisian", "Frisian draughts", `[GameType "40"]`},
	} {
		if listed[tc.variant] != tc.title {
			t.Errorf("%s listed as %q", tc.variant, listed[tc.variant])
		}
		var a, b struct{ ID int64 }
		ann.must(t, "POST", "/api/v1/games", map[string]string{"variant": tc.variant, "control": "corr1d"}, http.StatusCreated, &a)
		boris.must(t, "POST", "/api/v1/games", map[string]string{"variant": tc.variant, "control": "corr1d"}, http.StatusCreated, &b)
		if a.ID != b.ID {
			t.Fatalf("%s: not paired: %d and %d", tc.variant, a.ID, b.ID)
		}
		st := ann.state(t, a.ID)
		players := map[int]*client{st.Seat: ann, 1 - st.Seat: boris}
		for ply := 0; ply < 6; ply++ {
			c := players[st.ToMove]
			st = c.state(t, a.ID)
			if len(st.Legal) == 0 {
				t.Fatalf("%s: no legal moves at ply %d", tc.variant, ply)
			}
			spots := map[string]bool{}
			for _, q := range st.Picture.Squares {
				spots[q.Name] = true
			}
			mv := st.Legal[ply%len(st.Legal)]
			for _, sq := range mv.Path {
				if !spots[sq] {
					t.Fatalf("%s: square %s of %s is not on the picture", tc.variant, sq, mv.Text)
				}
			}
			c.must(t, "POST", fmt.Sprintf("/api/v1/games/%d/moves", a.ID), map[string]any{"move": mv.Text, "ply": ply}, http.StatusOK, &st)
			if st.Moves[ply].Move != mv.Text {
				t.Fatalf("%s: %s played, %s meant", tc.variant, st.Moves[ply].Move, mv.Text)
			}
		}
		_, _, body := ann.call(t, "GET", fmt.Sprintf("/api/v1/games/%d/export", a.ID), nil)
		if !strings.Contains(string(body), tc.export) || !strings.Contains(string(body), st.Moves[5].Text) {
			t.Errorf("%s: the export:\n%s", tc.variant, body)
		}

		var g struct{ ID int64 }
		ann.must(t, "POST", "/api/v1/games", map[string]string{"variant": tc.variant, "bot": "easy"}, http.StatusCreated, &g)
		// The bot may have moved already when it has the first move: wait for Ann's turn.
		e.WaitFor(t, "Ann's turn in "+tc.variant, func() bool {
			st = ann.state(t, g.ID)
			return st.ToMove == st.Seat
		})
		if st.Ply == 0 {
			ann.must(t, "POST", fmt.Sprintf("/api/v1/games/%d/moves", g.ID), map[string]any{"move": st.Legal[0].Text, "ply": st.Ply}, http.StatusOK, nil)
		}
		e.WaitFor(t, "the bot's move in "+tc.variant, func() bool {
			st = ann.state(t, g.ID)
			return st.ToMove == st.Seat && st.Ply > 0
		})
		// Ann resigns it: a player has only so many games against the bot going at once.
		ann.must(t, "POST", fmt.Sprintf("/api/v1/games/%d/resign", g.ID), map[string]any{"ply": st.Ply}, http.StatusOK, nil)
	}
}
