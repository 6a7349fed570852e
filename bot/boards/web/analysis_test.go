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
// Retry-After, whoever else may go on, and a token is back once its time has passed.
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
	boris.must(t, "POST", "/api/v1/analysis", body, http.StatusOK, nil)
	e.clock.frozen.Add(int64(2 * time.Second))
	ann.must(t, "POST", "/api/v1/analysis", body, http.StatusOK, nil)
	ann.refused(t, "POST", "/api/v1/analysis", body, http.StatusTooManyRequests, "rate_limited")
}

// Ensure a game's position is analysed for who may watch it: a player of the game going on is
// refused (409), once it is over they get it, at any ply; someone who may not watch it finds no
// game, and a ply the game has not reached is refused.
func TestAnalysisOfAGame(t *testing.T) {
	t.Parallel()
	e := newEnv(t, web.Config{})
	ann := e.login(t, 1, "Ann")
	carol := e.login(t, 3, "Carol")
	var created struct {
		ID int64 `json:"id"`
	}
	ann.must(t, "POST", "/api/v1/games", map[string]string{"variant": "chess", "bot": "easy"}, http.StatusCreated, &created)
	id := created.ID
	st := ann.state(t, id)
	if st.Seat != 0 {
		// Ann plays White against the bot; a game where the bot opens waits for its move.
		st = waitState(t, ann, id, func(s web.GameState) bool { return len(s.Legal) > 0 })
	}
	ann.must(t, "POST", fmt.Sprintf("/api/v1/games/%d/moves", id), map[string]any{"move": st.Legal[0].Text, "ply": st.Ply}, http.StatusOK, &st)
	ann.refused(t, "POST", "/api/v1/analysis", map[string]any{"game": id, "ply": 0}, http.StatusConflict, "conflict")
	carol.refused(t, "POST", "/api/v1/analysis", map[string]any{"game": id, "ply": 0}, http.StatusNotFound, "not_found")

	st = ann.state(t, id)
	ann.must(t, "POST", fmt.Sprintf("/api/v1/games/%d/resign", id), map[string]any{"ply": st.Ply}, http.StatusOK, &st)
	var a web.Analysis
	ann.must(t, "POST", "/api/v1/analysis", map[string]any{"game": id, "ply": 0}, http.StatusOK, &a)
	if a.Variant != "chess" || a.FEN != "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1" || a.Best == nil || a.ToMove != 0 {
		t.Errorf("the start of the game: %+v", a)
	}
	a = web.Analysis{}
	ann.must(t, "POST", "/api/v1/analysis", map[string]any{"game": id, "ply": 1}, http.StatusOK, &a)
	if a.ToMove != 1 || a.Best == nil {
		t.Errorf("after the first move: %+v", a)
	}
	ann.refused(t, "POST", "/api/v1/analysis", map[string]any{"game": id, "ply": st.Ply + 1}, http.StatusBadRequest, "bad_request")
	carol.refused(t, "POST", "/api/v1/analysis", map[string]any{"game": id, "ply": 0}, http.StatusNotFound, "not_found")
}

// waitState reads a game until ok holds of it (the bot's move lands meanwhile).
func waitState(t *testing.T, c *client, id int64, ok func(web.GameState) bool) web.GameState {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		st := c.state(t, id)
		if ok(st) {
			return st
		}
		if time.Now().After(deadline) {
			t.Fatalf("game %d never came to the state awaited: %+v", id, st)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
