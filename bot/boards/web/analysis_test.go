package web_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/questbot/questbot/bot/boards/web"
)

// Ensure the analysis of a position: a chess mate in one is found, scored as a mate and
// written as the move list writes it; a draughts position gets its best capture; a bad position
// and an unknown variant are refused naming what is wrong.
func TestAnalysisPositions(t *testing.T) {
	t.Parallel()
	e := newEnv(t, web.Config{})
	ann := e.login(t, 1, "Ann")

	var a web.Analysis
	ann.must(t, "POST", "/api/v1/analysis", map[string]string{"variant": "chess", "fen": "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1"}, http.StatusOK, &a)
	if a.Best == nil || a.Best.Move != "d1d8" || a.Best.Text != "Rd8#" || a.Mate != 1 || a.ToMove != 0 || a.Algorithm != "alpha-beta" {
		t.Errorf("the mate in one: %+v best %+v", a, a.Best)
	}

	a = web.Analysis{}
	ann.must(t, "POST", "/api/v1/analysis", map[string]string{"variant": "russian", "fen": "W:WKa1,g1:Bc3,e5,h8"}, http.StatusOK, &a)
	if a.Best == nil || a.Best.Move != "a1:d4:f6" || a.Variant != "russian" || len(a.Line) == 0 {
		t.Errorf("the draughts position: %+v best %+v", a, a.Best)
	}

	// Black has one move, and is mated after it: the move, unscored.
	a = web.Analysis{}
	ann.must(t, "POST", "/api/v1/analysis", map[string]string{"variant": "chess", "fen": "k7/8/1K6/8/8/8/8/7R b - - 0 1"}, http.StatusOK, &a)
	if a.Best == nil || a.Best.Text != "Kb8" || a.Score != nil || a.Mate != 0 || a.ToMove != 1 {
		t.Errorf("the only move: %+v best %+v", a, a.Best)
	}

	ae := ann.refused(t, "POST", "/api/v1/analysis", map[string]string{"variant": "chess", "fen": "8/8/8 w"}, http.StatusBadRequest, "bad_request")
	if !strings.Contains(ae.Error.Message, "position") {
		t.Errorf("a bad FEN: %q", ae.Error.Message)
	}
	ae = ann.refused(t, "POST", "/api/v1/analysis", map[string]string{"variant": "tictactoe", "fen": "x"}, http.StatusBadRequest, "bad_request")
	if !strings.Contains(ae.Error.Message, `"tictactoe"`) {
		t.Errorf("an unknown variant: %q", ae.Error.Message)
	}
	ann.refused(t, "POST", "/api/v1/analysis", map[string]string{"fen": "x"}, http.StatusBadRequest, "bad_request")
}

// Ensure each caller's analyses are limited: past the burst one is refused 429 with
// Retry-After (but a bad request is answered as such), whoever else may go on, and a token is
// back once its time has passed.
func TestAnalysisRateLimit(t *testing.T) {
	t.Parallel()
	e := newEnv(t, web.Config{AnalysisRate: 0.5, AnalysisBurst: 2})
	e.clock.frozen.Store(time.Now().UnixNano())
	ann := e.login(t, 1, "Ann")
	boris := e.login(t, 2, "Boris")
	body := map[string]string{"variant": "chess", "fen": "k7/8/1K6/8/8/8/8/7R w - - 0 1"}
	for range 2 {
		ann.must(t, "POST", "/api/v1/analysis", body, http.StatusOK, nil)
	}
	code, hdr, data := ann.call(t, "POST", "/api/v1/analysis", body)
	if code != http.StatusTooManyRequests || hdr.Get("Retry-After") != "2" || !strings.Contains(string(data), "rate_limited") {
		t.Fatalf("over the limit: %d %q %s", code, hdr.Get("Retry-After"), data)
	}
	// A request refused for what it asks searches nothing, and is not counted.
	ann.refused(t, "POST", "/api/v1/analysis", map[string]string{"variant": "chess", "fen": "x"}, http.StatusBadRequest, "bad_request")
	boris.must(t, "POST", "/api/v1/analysis", body, http.StatusOK, nil)
	e.clock.frozen.Add(int64(2 * time.Second))
	ann.must(t, "POST", "/api/v1/analysis", body, http.StatusOK, nil)
	ann.refused(t, "POST", "/api/v1/analysis", body, http.StatusTooManyRequests, "rate_limited")
}

// Ensure a game's position is analysed for who may watch it: a player of the game going on is
// refused (409), a spectator may (once the players let them watch; before, they find no game),
// and once it is over the players get it at any ply: the mate to come, and the game's end. A ply
// the game has not reached is refused.
func TestAnalysisOfAGame(t *testing.T) {
	t.Parallel()
	e := newEnv(t, web.Config{})
	ann := e.login(t, 1, "Ann")
	bob := e.login(t, 2, "Bob")
	carol := e.login(t, 3, "Carol")
	var x, y struct{ ID int64 }
	ann.must(t, "POST", "/api/v1/games", map[string]string{"variant": "chess", "control": "corr1d"}, http.StatusCreated, &x)
	bob.must(t, "POST", "/api/v1/games", map[string]string{"variant": "chess", "control": "corr1d"}, http.StatusCreated, &y)
	if x.ID != y.ID {
		t.Fatalf("not paired: %d and %d", x.ID, y.ID)
	}
	id := x.ID
	players := [2]*client{ann, bob}
	if ann.state(t, id).Seat == 1 {
		players = [2]*client{bob, ann}
	}
	moves := []string{"f2f3", "e7e5", "g2g4", "d8h4"}
	play := func(ply int) {
		players[ply%2].must(t, "POST", fmt.Sprintf("/api/v1/games/%d/moves", id), map[string]any{"move": moves[ply], "ply": ply}, http.StatusOK, nil)
	}
	play(0)
	for _, c := range players {
		c.refused(t, "POST", "/api/v1/analysis", map[string]any{"game": id, "ply": 0}, http.StatusConflict, "conflict")
	}
	carol.refused(t, "POST", "/api/v1/analysis", map[string]any{"game": id, "ply": 0}, http.StatusNotFound, "not_found")
	ann.must(t, "POST", fmt.Sprintf("/api/v1/games/%d/spectators", id), map[string]any{"allow": true}, http.StatusOK, nil)
	var a web.Analysis
	carol.must(t, "POST", "/api/v1/analysis", map[string]any{"game": id}, http.StatusOK, &a)
	if a.Variant != "chess" || a.ToMove != 1 || a.Best == nil || !strings.HasPrefix(a.FEN, "rnbqkbnr/pppppppp/8/8/8/5P2/PPPPP1PP/RNBQKBNR b") {
		t.Errorf("a spectator's analysis of the game now: %+v", a)
	}
	for ply := 1; ply < len(moves); ply++ {
		play(ply)
	}

	a = web.Analysis{}
	ann.must(t, "POST", "/api/v1/analysis", map[string]any{"game": id, "ply": 3}, http.StatusOK, &a)
	if a.Best == nil || a.Best.Text != "Qh4#" || a.Best.Move != "d8h4" || a.Mate != 1 || a.ToMove != 1 {
		t.Errorf("before the mate: %+v best %+v", a, a.Best)
	}
	a = web.Analysis{}
	bob.must(t, "POST", "/api/v1/analysis", map[string]any{"game": id, "ply": 4}, http.StatusOK, &a)
	if a.Over == "" || a.Best != nil || len(a.Line) != 0 {
		t.Errorf("the end of the game: %+v", a)
	}
	ann.refused(t, "POST", "/api/v1/analysis", map[string]any{"game": id, "ply": 5}, http.StatusBadRequest, "bad_request")
	ann.refused(t, "POST", "/api/v1/analysis", map[string]any{"game": id, "ply": 1, "variant": "chess"}, http.StatusBadRequest, "bad_request")
}
