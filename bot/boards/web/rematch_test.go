package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/questbot/questbot/bot/boards"
	"github.com/questbot/questbot/bot/boards/web"
	"github.com/questbot/questbot/bot/testkit/bottest"
	"github.com/questbot/questbot/bot/testkit/wait"
	"github.com/questbot/questbot/sessions/board"
)

// Ensure the rematch between two logged-in players: offered after the game by one (not before
// it ends, nor by a spectator), seen by the other (on the game's page, by its events), who
// accepts it (which the offerer's page hears of): a new board of the same game
// and clock with the colours swapped starts; the rematch of that one declined ends it, and is
// not offered again. The new opponent is the same game and clock.
func TestRematchBetweenPlayers(t *testing.T) {
	t.Parallel()
	e := newEnv(t, web.Config{})
	ann := e.login(t, 1, "Ann")
	boris := e.login(t, 2, "Boris")
	carol := e.login(t, 3, "Carol")
	var open struct{ ID int64 }
	ann.must(t, "POST", "/api/v1/games", map[string]string{"variant": "chess", "control": "corr1d"}, http.StatusCreated, &open)
	boris.must(t, "POST", fmt.Sprintf("/api/v1/games/%d/join", open.ID), map[string]any{}, http.StatusOK, nil)
	ann.refused(t, "POST", fmt.Sprintf("/api/v1/games/%d/rematch", open.ID), map[string]any{}, http.StatusConflict, "conflict")
	white, black := ann, boris
	if ann.state(t, open.ID).Seat == 1 {
		white, black = boris, ann
	}
	mate(t, open.ID, white, black)
	id := open.ID
	if st := white.state(t, id); st.After == nil || !st.After.CanRematch || st.After.Rematch != nil ||
		*st.After.NewOpponent != (web.Seek{Variant: "chess", Control: "corr1d"}) {
		t.Fatalf("after the game: %+v", st.After)
	}
	carol.refused(t, "POST", fmt.Sprintf("/api/v1/games/%d/rematch", id), map[string]any{}, http.StatusNotFound, "not_found")
	black.refused(t, "POST", fmt.Sprintf("/api/v1/games/%d/rematch/accept", id), map[string]any{}, http.StatusConflict, "conflict")

	// White offers; Black sees the offer, told by the game's events, and accepts it, which
	// White's page hears of too.
	wait.For(t, bottest.Timeout, "the hub to listen", e.hub.Listening)
	blackSees := black.watch(t, e.srv.URL, id)
	var offered web.GameState
	white.must(t, "POST", fmt.Sprintf("/api/v1/games/%d/rematch", id), map[string]any{}, http.StatusOK, &offered)
	rm := offered.After.Rematch
	if rm == nil || rm.State != "offered" || rm.OfferedBy != 0 || offered.After.CanRematch {
		t.Fatalf("the offer: %+v", offered.After)
	}
	if nb := e.board(t, rm.ID); nb.Status != board.Waiting || !nb.Private || nb.Seats[1].User != e.board(t, id).Seats[0].User {
		t.Fatalf("the rematch's board: %+v", nb)
	}
	// Offering again gives the same offer; the opponent may not join it as a public game.
	white.must(t, "POST", fmt.Sprintf("/api/v1/games/%d/rematch", id), map[string]any{}, http.StatusOK, nil)
	black.refused(t, "POST", fmt.Sprintf("/api/v1/games/%d/join", rm.ID), map[string]any{}, http.StatusNotFound, "not_found")
	heardRematch(t, "the offer", blackSees, rm.ID, 0)
	whiteSees := white.watch(t, e.srv.URL, id)
	st := black.state(t, id)
	if st.After.Rematch == nil || st.After.Rematch.ID != rm.ID || st.After.Rematch.State != "offered" || !st.After.CanRematch {
		t.Fatalf("the offer as Black sees it: %+v", st.After)
	}
	var accepted web.GameState
	black.must(t, "POST", fmt.Sprintf("/api/v1/games/%d/rematch/accept", id), map[string]any{}, http.StatusOK, &accepted)
	if accepted.After.Rematch.State != "accepted" {
		t.Fatalf("accepted: %+v", accepted.After.Rematch)
	}
	heardRematch(t, "the acceptance", whiteSees, rm.ID, 1)
	next := black.state(t, rm.ID)
	if next.Status != "active" || next.Seat != 0 || next.Control != "corr1d" || next.Variant != "chess" ||
		white.state(t, rm.ID).Seat != 1 {
		t.Fatalf("the rematch: %+v", next)
	}
	white.refused(t, "POST", fmt.Sprintf("/api/v1/games/%d/rematch", id), map[string]any{}, http.StatusConflict, "conflict")

	// The rematch of the rematch, declined.
	mate(t, rm.ID, black, white)
	black.must(t, "POST", fmt.Sprintf("/api/v1/games/%d/rematch", rm.ID), map[string]any{}, http.StatusOK, nil)
	var declined web.GameState
	white.must(t, "POST", fmt.Sprintf("/api/v1/games/%d/rematch/decline", rm.ID), map[string]any{}, http.StatusOK, &declined)
	third := declined.After.Rematch
	if third == nil || third.State != "declined" || declined.After.CanRematch {
		t.Fatalf("declined: %+v", declined.After)
	}
	if nb := e.board(t, third.ID); nb.Status != board.Aborted {
		t.Errorf("the declined rematch's board is %s", nb.Status)
	}
	black.refused(t, "POST", fmt.Sprintf("/api/v1/games/%d/rematch", rm.ID), map[string]any{}, http.StatusConflict, "conflict")
	white.refused(t, "POST", fmt.Sprintf("/api/v1/games/%d/rematch/decline", rm.ID), map[string]any{}, http.StatusConflict, "conflict")
}

// heardRematch waits for the event of a game's stream that says its rematch was offered or
// answered: an event of its record, of the rematch's board, by the player of seat actor.
func heardRematch(t *testing.T, what string, w *watched, rematch int64, actor int) {
	t.Helper()
	select {
	case line := <-w.events:
		var ev boards.Event
		if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &ev); err != nil || ev.Kind != boards.EventKindRematch ||
			ev.Data.Rematch != rematch || ev.Actor != actor {
			t.Fatalf("%s: the stream sent %s, want the rematch %d's event by seat %d", what, line, rematch, actor)
		}
	case <-w.ended:
		t.Fatalf("%s: the stream ended", what)
	case <-time.After(bottest.Timeout):
		t.Fatalf("%s: no event", what)
	}
}

// Ensure the rematch against the bot starts at once, the player on the other side, at the same
// level; a spectator is offered none.
func TestRematchAgainstTheBot(t *testing.T) {
	t.Parallel()
	e := newEnv(t, web.Config{})
	ann := e.login(t, 1, "Ann")
	var g struct{ ID int64 }
	ann.must(t, "POST", "/api/v1/games", map[string]string{"variant": "russian", "bot": "normal"}, http.StatusCreated, &g)
	st := resignToBot(t, ann, g.ID)
	var after web.GameState
	ann.must(t, "POST", fmt.Sprintf("/api/v1/games/%d/rematch", g.ID), map[string]any{}, http.StatusOK, &after)
	rm := after.After.Rematch
	if rm == nil || rm.State != "accepted" || rm.OfferedBy != st.Seat || after.After.Ratings != [2]*web.RatingChange{} {
		t.Fatalf("the rematch against the bot: %+v", after.After)
	}
	next := ann.state(t, rm.ID)
	if next.Status != "active" || next.Seat != 1-st.Seat || next.Seats[st.Seat].Bot != "normal" || next.Variant != "russian" {
		t.Fatalf("the new game: %+v", next)
	}
	if *after.After.NewOpponent != (web.Seek{Variant: "russian", Control: "none"}) {
		t.Errorf("the new opponent: %+v", after.After.NewOpponent)
	}
}

// Ensure an answer to a rematch offer takes the two boards' locks in the order a change of the
// rematch takes them, its own board first: while another transaction holds the rematch's board
// (a join, a call-off under way) and then takes the finished game's, as such a change records
// its event there, the answer waits for it instead of holding the finished game, and both go
// through; no deadlock aborts either.
func TestRematchAnswerLocksInOrder(t *testing.T) {
	t.Parallel()
	e := newEnv(t, web.Config{})
	ann, boris := e.login(t, 1, "Ann"), e.login(t, 2, "Boris")
	var open struct{ ID int64 }
	ann.must(t, "POST", "/api/v1/games", map[string]string{"variant": "chess", "control": "corr1d"}, http.StatusCreated, &open)
	boris.must(t, "POST", fmt.Sprintf("/api/v1/games/%d/join", open.ID), map[string]any{}, http.StatusOK, nil)
	white, black := ann, boris
	if ann.state(t, open.ID).Seat == 1 {
		white, black = boris, ann
	}
	mate(t, open.ID, white, black)
	var offered web.GameState
	white.must(t, "POST", fmt.Sprintf("/api/v1/games/%d/rematch", open.ID), map[string]any{}, http.StatusOK, &offered)
	rm := offered.After.Rematch.ID

	ctx := context.Background()
	other, err := e.Pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Rollback(ctx)
	if _, err := other.Exec(ctx, `SELECT 1 FROM board_session WHERE id = $1 FOR UPDATE`, rm); err != nil {
		t.Fatal(err)
	}
	answered := make(chan int, 1)
	go func() {
		code := -1 // a failed call ends the goroutine: the deferred send still says so
		defer func() { answered <- code }()
		code, _, _ = black.call(t, "POST", fmt.Sprintf("/api/v1/games/%d/rematch/accept", open.ID), map[string]any{})
	}()
	wait.For(t, wait.Hang, "the answer to wait for a lock", func() bool {
		var n int
		err := e.Pool.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity
			WHERE datname = current_database() AND wait_event_type = 'Lock'`).Scan(&n)
		return err == nil && n > 0
	})
	if _, err := other.Exec(ctx, `SELECT 1 FROM board_session WHERE id = $1 FOR UPDATE`, open.ID); err != nil {
		t.Fatalf("the finished game's lock, taken after the rematch's: %v", err)
	}
	if err := other.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if code := <-answered; code != http.StatusOK {
		t.Fatalf("the answer: %d", code)
	}
}
