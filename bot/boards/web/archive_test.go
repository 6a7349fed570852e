package web_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/questbot/questbot/bot/boards/web"
)

// foolsMate plays chess's shortest game on a new board between two clients: White is mated at
// its second move. It returns the board and the clients of White and Black.
func foolsMate(t *testing.T, a, b *client, control string) (id int64, white, black *client) {
	t.Helper()
	var x, y struct{ ID int64 }
	a.must(t, "POST", "/api/v1/games", map[string]string{"variant": "chess", "control": control}, http.StatusCreated, &x)
	b.must(t, "POST", "/api/v1/games", map[string]string{"variant": "chess", "control": control}, http.StatusCreated, &y)
	if x.ID != y.ID {
		t.Fatalf("not paired: %d and %d", x.ID, y.ID)
	}
	white, black = a, b
	if a.state(t, x.ID).Seat == 1 {
		white, black = b, a
	}
	mate(t, x.ID, white, black)
	return x.ID, white, black
}

// mate plays the fool's mate on a started chess board.
func mate(t *testing.T, id int64, white, black *client) {
	t.Helper()
	players := [2]*client{white, black}
	for ply, mv := range []string{"f2f3", "e7e5", "g2g4", "d8h4"} {
		players[ply%2].must(t, "POST", fmt.Sprintf("/api/v1/games/%d/moves", id), map[string]any{"move": mv, "ply": ply}, http.StatusOK, nil)
	}
}

// resignToBot resigns a game against the bot at the player's turn (the bot may move first), and
// returns the state it was resigned in.
func resignToBot(t *testing.T, c *client, id int64) web.GameState {
	t.Helper()
	var st web.GameState
	c.e.WaitFor(t, "the player's turn", func() bool {
		st = c.state(t, id)
		return st.ToMove == st.Seat
	})
	c.must(t, "POST", fmt.Sprintf("/api/v1/games/%d/resign", id), map[string]int{"ply": st.Ply}, http.StatusOK, nil)
	return st
}

// archive reads a page of an archive.
func (c *client) archive(t *testing.T, path string) web.ArchivePage {
	t.Helper()
	var p web.ArchivePage
	c.must(t, "GET", path, nil, http.StatusOK, &p)
	return p
}

func ids(p web.ArchivePage) string {
	var out []string
	for _, g := range p.Games {
		out = append(out, fmt.Sprint(g.ID))
	}
	return strings.Join(out, " ")
}

// Ensure a player's archive lists their finished games newest first with the rating change,
// filters them (result, opponent, game, clock, days), pages by the cursor, exports one file of
// them (a PGN a chess reader takes: the tags, the moves, the result), and shows another user
// only the games they may watch; a finished game's state has both players' rating changes.
func TestArchive(t *testing.T) {
	t.Parallel()
	e := newEnv(t, web.Config{})
	ann := e.login(t, 1, "Ann")
	boris := e.login(t, 2, "Boris")
	carol := e.login(t, 3, "Carol")
	chess, white, _ := foolsMate(t, ann, boris, "corr3d")
	loser := map[*client]string{ann: "Ann", boris: "Boris"}[white]

	st := ann.state(t, chess)
	if st.After == nil || st.After.Ratings[0] == nil || st.After.Ratings[1] == nil {
		t.Fatalf("the finished game's after: %+v", st.After)
	}
	w, b := st.After.Ratings[0], st.After.Ratings[1]
	if w.Before != 1500 || b.Before != 1500 || w.Change >= 0 || b.Change <= 0 || w.After != w.Before+w.Change || b.Change != -w.Change {
		t.Errorf("the rating changes: white %+v, black %+v", w, b)
	}

	// A game against the bot, resigned.
	var g struct{ ID int64 }
	ann.must(t, "POST", "/api/v1/games", map[string]string{"variant": "russian", "bot": "easy"}, http.StatusCreated, &g)
	resignToBot(t, ann, g.ID)
	// A game still being played is no part of the archive.
	var live struct{ ID int64 }
	ann.must(t, "POST", "/api/v1/games", map[string]string{"variant": "chess", "bot": "easy"}, http.StatusCreated, &live)

	all := ann.archive(t, "/api/v1/players/me/games")
	if ids(all) != fmt.Sprintf("%d %d", g.ID, chess) || all.Next != "" || all.Player.Name != "Ann" {
		t.Fatalf("Ann's archive: %+v", all)
	}
	bot, game := all.Games[0], all.Games[1]
	if bot.Result != "loss" || bot.Opponent.Bot != "easy" || bot.Opponent.ID != 0 || bot.Rating != nil || bot.Variant != "russian" {
		t.Errorf("the bot's game: %+v", bot)
	}
	wantResult := map[bool]string{true: "loss", false: "win"}[loser == "Ann"]
	if game.Result != wantResult || game.Opponent.ID != 2 || game.Opponent.Name != "Boris" || game.Rating == nil ||
		game.Control != "corr3d" || game.Ply != 4 || game.ResultText == "" || game.Export != fmt.Sprintf("/api/v1/games/%d/export", chess) {
		t.Errorf("the chess game: %+v", game)
	}
	if len(all.Opponents) != 1 || all.Opponents[0].ID != 2 {
		t.Errorf("the opponents: %+v", all.Opponents)
	}
	today := e.clock.now().UTC().Format("2006-01-02")
	for q, want := range map[string]string{
		"?opponent=bot":                         fmt.Sprint(g.ID),
		"?opponent=2":                           fmt.Sprint(chess),
		"?variant=chess&control=corr3d":         fmt.Sprint(chess),
		"?variant=chess&result=" + wantResult:   fmt.Sprint(chess),
		"?result=draw":                          "",
		"?from=" + today + "&to=" + today:       fmt.Sprintf("%d %d", g.ID, chess),
		"?to=2020-01-01":                        "",
		"?limit=1&cursor=" + fmt.Sprint(g.ID):   fmt.Sprint(chess),
		"?limit=1&opponent=2&variant=chess":     fmt.Sprint(chess),
		"?variant=russian&opponent=bot&limit=5": fmt.Sprint(g.ID),
	} {
		if got := ids(ann.archive(t, "/api/v1/players/1/games"+q)); got != want {
			t.Errorf("%s: %q, want %q", q, got, want)
		}
	}
	first := ann.archive(t, "/api/v1/players/me/games?limit=1")
	if ids(first) != fmt.Sprint(g.ID) || first.Next != fmt.Sprint(g.ID) {
		t.Fatalf("the first page: %+v", first)
	}
	if second := ann.archive(t, "/api/v1/players/me/games?limit=1&cursor="+first.Next); ids(second) != fmt.Sprint(chess) || second.Next != "" {
		t.Fatalf("the second page: %+v", second)
	}
	for _, q := range []string{"?result=lose", "?opponent=x", "?from=yesterday", "?limit=1000", "?cursor=-1", "?variant=go"} {
		ann.refused(t, "GET", "/api/v1/players/me/games"+q, nil, http.StatusBadRequest, "bad_request")
	}

	// Carol may watch none of Ann's games; Boris sees the one they played.
	if got := ids(carol.archive(t, "/api/v1/players/1/games")); got != "" {
		t.Errorf("Carol sees %q of Ann's games", got)
	}
	if got := ids(boris.archive(t, "/api/v1/players/1/games")); got != fmt.Sprint(chess) {
		t.Errorf("Boris sees %q of Ann's games", got)
	}
	(&client{e: e}).refused(t, "GET", "/api/v1/players/1/games", nil, http.StatusUnauthorized, "unauthorized")

	// The export of the chess games: one PGN.
	status, h, body := ann.call(t, "GET", "/api/v1/players/me/games/export?variant=chess", nil)
	pgn := string(body)
	res := "0-1" // White is mated
	if status != http.StatusOK || !strings.Contains(h.Get("Content-Disposition"), `filename="games-1.pgn"`) ||
		!contains(pgn, `[Event "Questbot game `+fmt.Sprint(chess)+`"]`, `[White "`+loser+`"]`, `[Result "`+res+`"]`,
			"\n\n1. f3 e5 2. g4 Qh4# "+res+"\n") || strings.Count(pgn, "[Event ") != 1 {
		t.Errorf("the export: %d %v\n%s", status, h, pgn)
	}
	status, h, body = ann.call(t, "GET", "/api/v1/players/me/games/export", nil)
	if status != http.StatusOK || !strings.HasSuffix(h.Get("Content-Disposition"), `.txt"`) || strings.Count(string(body), "[Event ") != 2 {
		t.Errorf("the export of both: %d %v\n%s", status, h, body)
	}

	// The page.
	status, h, body = ann.call(t, "GET", "/players/1/games", nil)
	if status != http.StatusOK || !strings.Contains(string(body), `<script src="/static/archive.js?v=`) ||
		!strings.Contains(h.Get("Content-Security-Policy"), "script-src 'self'") {
		t.Errorf("the archive's page: %d %v", status, h)
	}
	if status, _, _ := ann.call(t, "GET", "/players/x/games", nil); status != http.StatusNotFound {
		t.Errorf("the page of no user: %d", status)
	}
}
