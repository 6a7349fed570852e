package web_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/questbot/questbot/bot/boards"
	"github.com/questbot/questbot/bot/boards/web"
	"github.com/questbot/questbot/bot/testkit/bottest"
)

// recordStream is an open event stream of a game, read in a goroutine: the events of the
// board's record it carries, each with the number of its SSE id.
type recordStream struct {
	events chan boards.Event
	hangUp func()
}

// openRecord opens the event stream of a game with the client's credentials; with last > 0 it
// resumes after the event numbered last (the Last-Event-ID header of EventSource's
// reconnection), or with the query parameter when byQuery is set.
func (c *client) openRecord(t *testing.T, id, last int64, byQuery bool) *recordStream {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	u := fmt.Sprintf("%s/api/v1/games/%d/events", c.e.srv.URL, id)
	if last > 0 && byQuery {
		u += "?" + web.LastEventParam + "=" + strconv.FormatInt(last, 10)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.AddCookie(&http.Cookie{Name: web.CookieName, Value: c.cookie})
	if last > 0 && !byQuery {
		req.Header.Set("Last-Event-ID", strconv.FormatInt(last, 10))
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		t.Fatalf("events of game %d: %s", id, resp.Status)
	}
	rs := &recordStream{events: make(chan boards.Event, 1000), hangUp: func() { cancel(); resp.Body.Close() }}
	go func() {
		sc := bufio.NewScanner(resp.Body)
		var sseID, name string
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, "id: "):
				sseID = strings.TrimPrefix(line, "id: ")
			case strings.HasPrefix(line, "event: "):
				name = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "data: ") && name == web.RecordEvent:
				var ev boards.Event
				if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &ev); err != nil {
					t.Errorf("an event of the record %q: %v", line, err)
					return
				}
				if strconv.FormatInt(ev.ID, 10) != sseID {
					t.Errorf("event %d sent with the id %q", ev.ID, sseID)
				}
				rs.events <- ev
			case line == "":
				sseID, name = "", ""
			}
		}
	}()
	return rs
}

// until reads the stream's events until one satisfies done, and returns them all.
func (rs *recordStream) until(t *testing.T, what string, done func(boards.Event) bool) []boards.Event {
	t.Helper()
	var got []boards.Event
	deadline := time.After(bottest.Timeout)
	for {
		select {
		case ev := <-rs.events:
			got = append(got, ev)
			if done(ev) {
				return got
			}
		case <-deadline:
			t.Fatalf("timed out waiting for %s; got %v", what, describe(got))
			return nil
		}
	}
}

// describe writes events as number, kind, actor and ply.
func describe(evs []boards.Event) string {
	parts := make([]string, len(evs))
	for i, e := range evs {
		parts[i] = fmt.Sprintf("%d:%s/%d@%d", e.ID, e.Kind, e.Actor, e.Ply)
	}
	return strings.Join(parts, " ")
}

// recorded reads a board's events numbered above after from the record.
func (e *env) recorded(t *testing.T, id, after int64) []boards.Event {
	t.Helper()
	evs, err := boards.EventsAfter(context.Background(), e.Pool, id, after, 10000)
	if err != nil {
		t.Fatal(err)
	}
	return evs
}

// gameOf opens a game of Russian draughts between two web players: the first waits, the second
// joins. It returns the game and the clients by seat.
func (e *env) gameOf(t *testing.T, a, b *client) (int64, [2]*client) {
	t.Helper()
	var created struct{ ID int64 }
	a.must(t, "POST", "/api/v1/games", map[string]string{"variant": "russian", "control": "corr1d"}, http.StatusCreated, &created)
	var joined struct{ ID int64 }
	b.must(t, "POST", "/api/v1/games", map[string]string{"variant": "russian", "control": "corr1d"}, http.StatusCreated, &joined)
	if joined.ID != created.ID {
		t.Fatalf("the second player opened game %d, the first waits in %d", joined.ID, created.ID)
	}
	var by [2]*client
	st := a.state(t, created.ID)
	by[st.Seat], by[1-st.Seat] = a, b
	return created.ID, by
}

// playFirst has the player to move post their first legal move and returns the ply after it.
func playFirst(t *testing.T, id int64, by [2]*client) int {
	t.Helper()
	st := by[0].state(t, id)
	p := by[st.ToMove]
	st = p.state(t, id)
	p.must(t, "POST", fmt.Sprintf("/api/v1/games/%d/moves", id), map[string]any{"move": st.Legal[0].Text, "ply": st.Ply}, http.StatusOK, nil)
	return st.Ply + 1
}

// Ensure the event stream carries the board's record with its numbers, and a stream cut in the
// middle of a game and opened again after the last number it got (Last-Event-ID, or the query
// parameter) receives exactly the events it missed, in order; across a restart of the web
// server too (a new hub and server over the same database).
func TestStreamResumesFromRecord(t *testing.T) {
	t.Parallel()
	e := newEnv(t, web.Config{})
	ann, boris := e.login(t, 1, "Ann"), e.login(t, 2, "Boris")
	id, by := e.gameOf(t, ann, boris)
	s := ann.openRecord(t, id, 0, false)
	ply := 0
	for range 2 {
		ply = playFirst(t, id, by)
	}
	got := s.until(t, "the second move", func(ev boards.Event) bool { return ev.Kind == boards.EventKindMoved && ev.Ply == 2 })
	if got[0].Kind != boards.EventKindMoved || got[0].Ply != 1 || got[0].By != "web" || got[0].Data.Written == "" {
		t.Fatalf("the first event of the stream %+v", got[0])
	}
	s.hangUp()
	last := got[len(got)-1].ID

	check := func(stage string, s *recordStream, after int64, wantPly int) int64 {
		t.Helper()
		want := e.recorded(t, id, after)
		got := s.until(t, stage, func(ev boards.Event) bool { return ev.ID == want[len(want)-1].ID })
		if describe(got) != describe(want) {
			t.Fatalf("%s: the stream gave %s, want what was missed: %s", stage, describe(got), describe(want))
		}
		if w := want[len(want)-1]; w.Ply != wantPly {
			t.Fatalf("%s: the last event missed at ply %d, want %d", stage, w.Ply, wantPly)
		}
		return got[len(got)-1].ID
	}
	// Three plies while the stream is cut.
	for range 3 {
		ply = playFirst(t, id, by)
	}
	s = ann.openRecord(t, id, last, false)
	last = check("a reconnection", s, last, ply)
	s.hangUp()

	// The server restarts: another hub and server over the same database.
	for range 2 {
		ply = playFirst(t, id, by)
	}
	hub := web.NewHub(e.Pool, slog.New(slog.DiscardHandler))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		hub.Run(ctx)
	}()
	t.Cleanup(func() { cancel(); <-done })
	e.cfg.Events = hub
	e.serve()
	s = ann.openRecord(t, id, last, true)
	last = check("a reconnection after a restart", s, last, ply)

	// The stream goes on live after what it missed.
	ply = playFirst(t, id, by)
	live := s.until(t, "a live move", func(ev boards.Event) bool { return ev.Kind == boards.EventKindMoved && ev.Ply == ply })
	if want := e.recorded(t, id, last); describe(live) != describe(want) {
		t.Fatalf("live: %s, want %s", describe(live), describe(want))
	}
}

// Ensure a POST on a game is answered from the operation's own result: the state after it and
// the events it recorded, numbered as the record has them, none for a refused one.
func TestPostAnswersWithEvents(t *testing.T) {
	t.Parallel()
	e := newEnv(t, web.Config{})
	ann, boris := e.login(t, 1, "Ann"), e.login(t, 2, "Boris")
	id, by := e.gameOf(t, ann, boris)
	st := by[0].state(t, id)
	var got web.GameState
	by[0].must(t, "POST", fmt.Sprintf("/api/v1/games/%d/moves", id), map[string]any{"move": st.Legal[0].Text, "ply": 0}, http.StatusOK, &got)
	want := e.recorded(t, id, 0)
	want = want[len(want)-1:]
	if got.Ply != 1 || describe(got.Events) != describe(want) || got.Events[0].Kind != boards.EventKindMoved ||
		got.Events[0].Data.Move != st.Legal[0].Text {
		t.Fatalf("the move's answer: ply %d, events %s, want %s", got.Ply, describe(got.Events), describe(want))
	}
	// The offer, an action, also marks the move seen, which is recorded after it.
	by[1].must(t, "POST", fmt.Sprintf("/api/v1/games/%d/draw", id), map[string]any{"action": "offer", "ply": 1}, http.StatusOK, &got)
	want = e.recorded(t, id, want[0].ID)
	if len(got.Events) != 2 || describe(got.Events) != describe(want) || got.Events[0].Kind != boards.EventKindDrawOffered ||
		got.Events[1].Kind != boards.EventKindSeen || got.Offer == nil {
		t.Fatalf("the offer's answer: events %s, want %s, offer %+v", describe(got.Events), describe(want), got.Offer)
	}
	got.Events = got.Events[1:]
	by[0].refused(t, "POST", fmt.Sprintf("/api/v1/games/%d/undo", id), map[string]any{"ply": 0}, http.StatusConflict, "stale")
	if after := e.recorded(t, id, got.Events[0].ID); len(after) != 0 {
		t.Fatalf("the refused undo recorded %s", describe(after))
	}
	if got := by[0].state(t, id); len(got.Events) != 0 {
		t.Fatalf("a GET carries events: %s", describe(got.Events))
	}
}
