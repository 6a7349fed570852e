package web_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/questbot/questbot/bot/boards/web"
	"github.com/questbot/questbot/sessions/board"
)

// Ensure the operations that depend on the position take the ply they were made on and are
// refused as stale (409, the refusal a stale press gets in Telegram) once the game has moved on:
// an undo, a draw offer, its answer and a resignation; each without a ply is a bad request, and
// made at the game's ply goes through.
func TestStaleOperations(t *testing.T) {
	t.Parallel()
	e := newEnv(t, web.Config{})
	ann := e.login(t, 1, "Ann")
	bob := e.login(t, 2, "Bob")
	var created struct {
		ID int64 `json:"id"`
	}
	ann.must(t, "POST", "/api/v1/games", map[string]string{"variant": "russian", "control": "corr1d"}, http.StatusCreated, &created)
	id := created.ID
	bob.must(t, "POST", fmt.Sprintf("/api/v1/games/%d/join", id), map[string]any{}, http.StatusOK, nil)
	white, black := ann, bob
	if e.board(t, id).Seats[0].User == 2 {
		white, black = bob, ann
	}
	path := func(op string) string { return fmt.Sprintf("/api/v1/games/%d/%s", id, op) }
	move := func(c *client) web.GameState {
		t.Helper()
		st := c.state(t, id)
		var after web.GameState
		c.must(t, "POST", path("moves"), map[string]any{"move": st.Legal[0].Text, "ply": st.Ply}, http.StatusOK, &after)
		return after
	}

	// White moves; a take-back at the ply before is stale, at this ply it is done.
	st := move(white)
	white.refused(t, "POST", path("undo"), map[string]any{"ply": 0}, http.StatusConflict, "stale")
	white.refused(t, "POST", path("undo"), map[string]any{}, http.StatusBadRequest, "bad_request")
	if e.board(t, id).Ply() != 1 {
		t.Fatal("a refused undo took the move back")
	}
	white.must(t, "POST", path("undo"), map[string]any{"ply": st.Ply}, http.StatusOK, &st)
	if st.Ply != 0 {
		t.Fatalf("after the undo: ply %d", st.Ply)
	}
	// White moves again; Black's draw offer made at the ply before is stale.
	st = move(white)
	black.refused(t, "POST", path("draw"), map[string]any{"action": "offer", "ply": 0}, http.StatusConflict, "stale")
	black.refused(t, "POST", path("draw"), map[string]any{"action": "offer"}, http.StatusBadRequest, "bad_request")
	if e.board(t, id).Offer != nil {
		t.Fatal("a stale offer was made")
	}
	black.must(t, "POST", path("draw"), map[string]any{"action": "offer", "ply": st.Ply}, http.StatusOK, nil)
	// The answer made at another ply is stale; the offer stands until answered at its ply.
	white.refused(t, "POST", path("draw"), map[string]any{"action": "accept", "ply": st.Ply + 1}, http.StatusConflict, "stale")
	white.refused(t, "POST", path("draw"), map[string]any{"action": "decline", "ply": 0}, http.StatusConflict, "stale")
	if e.board(t, id).Offer == nil {
		t.Fatal("a stale answer ended the offer")
	}
	white.must(t, "POST", path("draw"), map[string]any{"action": "decline", "ply": st.Ply}, http.StatusOK, nil)
	// Black moves; White's resignation asked at the ply before is stale, and the game goes on.
	st = move(black)
	white.refused(t, "POST", path("resign"), map[string]any{"ply": st.Ply - 1}, http.StatusConflict, "stale")
	white.refused(t, "POST", path("resign"), nil, http.StatusBadRequest, "bad_request")
	if bd := e.board(t, id); bd.Status != board.Active {
		t.Fatalf("a stale resignation ended the game: status %v", bd.Status)
	}
	white.must(t, "POST", path("resign"), map[string]any{"ply": st.Ply}, http.StatusOK, &st)
	if st.Status != "finished" {
		t.Fatalf("after the resignation: %s", st.Status)
	}
}
