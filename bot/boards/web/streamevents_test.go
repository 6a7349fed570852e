package web_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/questbot/questbot/bot/boards"
	"github.com/questbot/questbot/bot/boards/web"
	"github.com/questbot/questbot/bot/testkit/bottest"
)

// sseEvent is one event of a stream: its id, name and data.
type sseEvent struct {
	id, name, data string
}

// rawStream opens the event stream of a game with the client's credentials, with lastID as
// its Last-Event-ID header when not empty, and returns its events as they come.
func (c *client) rawStream(t *testing.T, id int64, lastID string) <-chan sseEvent {
	t.Helper()
	return c.openStream(t, fmt.Sprintf("%s/api/v1/games/%d/events", c.e.srv.URL, id), lastID)
}

// rawStreamFrom opens the event stream of a game from the event numbered after, given as the
// query parameter LastEventParam (as the game page opens it).
func (c *client) rawStreamFrom(t *testing.T, id, after int64) <-chan sseEvent {
	t.Helper()
	return c.openStream(t, fmt.Sprintf("%s/api/v1/games/%d/events?%s=%d", c.e.srv.URL, id, web.LastEventParam, after), "")
}

// openStream opens an event stream at url (see rawStream).
func (c *client) openStream(t *testing.T, url, lastID string) <-chan sseEvent {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.AddCookie(&http.Cookie{Name: web.CookieName, Value: c.cookie})
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		t.Fatalf("%s: %s", url, resp.Status)
	}
	t.Cleanup(func() { resp.Body.Close() })
	out := make(chan sseEvent, 1000)
	go readSSE(resp.Body, func(ev sseEvent) bool { out <- ev; return true })
	return out
}

// readSSE reads the named events of a stream, each whole, and hands them to each until it
// returns false or the stream ends.
func readSSE(r io.Reader, each func(sseEvent) bool) {
	sc := bufio.NewScanner(r)
	var ev sseEvent
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "id: "):
			ev.id = strings.TrimPrefix(line, "id: ")
		case strings.HasPrefix(line, "event: "):
			ev.name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			ev.data = strings.TrimPrefix(line, "data: ")
		case line == "" && ev.name != "":
			if !each(ev) {
				return
			}
			ev = sseEvent{}
		case line == "":
			ev = sseEvent{}
		}
	}
}

// next reads a stream's next event.
func next(t *testing.T, ch <-chan sseEvent, what string) sseEvent {
	t.Helper()
	select {
	case ev := <-ch:
		return ev
	case <-time.After(bottest.Timeout):
		t.Fatalf("timed out waiting for %s", what)
		return sseEvent{}
	}
}

// Ensure the stream signals each change once: a move comes as its event of the record alone
// (which names the revision after it and the new picture's version), and nothing else; the
// move's event is a few hundred bytes where the state is kilobytes (both logged). A Last-Event-ID the board's record does not hold
// is answered with a "reset" event numbered with the board's last event, and the stream goes on.
func TestStreamSignalsEachChangeOnce(t *testing.T) {
	t.Parallel()
	e := newEnv(t, web.Config{})
	ann, boris := e.login(t, 1, "Ann"), e.login(t, 2, "Boris")
	id, by := e.gameOf(t, ann, boris)
	s := ann.rawStream(t, id, "")
	var eventBytes int
	for ply := 1; ply <= 4; ply++ {
		playFirst(t, id, by)
		ev := next(t, s, fmt.Sprintf("the event of ply %d", ply))
		if ev.name != web.RecordEvent {
			t.Fatalf("ply %d: got %+v, want the record's event of the move alone", ply, ev)
		}
		var rec boards.Event
		if err := json.Unmarshal([]byte(ev.data), &rec); err != nil {
			t.Fatal(err)
		}
		st := ann.state(t, id)
		if rec.Kind != boards.EventKindMoved || rec.Ply != ply || rec.Data.Revision != st.Revision || rec.Data.Picture == "" ||
			!strings.Contains(st.Picture.URL, "v="+rec.Data.Picture) {
			t.Fatalf("ply %d: the event %+v, the state at revision %d with the picture %s", ply, rec, st.Revision, st.Picture.URL)
		}
		eventBytes += len(ev.data) + len(ev.id) + len(ev.name) + 20
	}
	_, _, state := ann.call(t, "GET", fmt.Sprintf("/api/v1/games/%d", id), nil)
	t.Logf("a move's event: %d bytes; the state at ply 4: %d bytes", eventBytes/4, len(state))

	// A number the record does not hold: a reset, numbered with the board's last event.
	last, err := boards.LastEvent(context.Background(), e.Pool, id)
	if err != nil {
		t.Fatal(err)
	}
	r := ann.rawStream(t, id, fmt.Sprint(last+1000))
	if ev := next(t, r, "the reset"); ev.name != web.ResetEvent || ev.id != fmt.Sprint(last) {
		t.Fatalf("the stream of an unknown Last-Event-ID began with %+v, want a reset with the id %d", ev, last)
	}
	playFirst(t, id, by)
	if ev := next(t, r, "a move after the reset"); ev.name != web.RecordEvent {
		t.Fatalf("after the reset: %+v", ev)
	}
	// A known number resumes: what was missed comes first.
	k := ann.rawStream(t, id, fmt.Sprint(last))
	if ev := next(t, k, "the missed move"); ev.name != web.RecordEvent {
		t.Fatalf("a resumed stream began with %+v, want the missed move", ev)
	}
}

// Ensure a stream opened from the state's last event misses no change made after the state was
// read: the state names the board's last event; two moves are made before the stream opens; the
// stream opened with that number (the query parameter, as the game page opens it) sends both,
// in order, and then goes on live.
func TestStreamFromTheStateMissesNothing(t *testing.T) {
	t.Parallel()
	e := newEnv(t, web.Config{})
	ann, boris := e.login(t, 1, "Ann"), e.login(t, 2, "Boris")
	id, by := e.gameOf(t, ann, boris)
	playFirst(t, id, by)
	st := ann.state(t, id)
	last, err := boards.LastEvent(context.Background(), e.Pool, id)
	if err != nil {
		t.Fatal(err)
	}
	if st.LastEvent != last || last == 0 {
		t.Fatalf("the state names the last event %d, the record's is %d", st.LastEvent, last)
	}
	playFirst(t, id, by)
	playFirst(t, id, by)
	s := ann.rawStreamFrom(t, id, st.LastEvent)
	for ply := st.Ply + 1; ply <= st.Ply+3; ply++ {
		if ply == st.Ply+3 {
			playFirst(t, id, by)
		}
		ev := next(t, s, fmt.Sprintf("the move of ply %d", ply))
		var rec boards.Event
		if err := json.Unmarshal([]byte(ev.data), &rec); err != nil {
			t.Fatal(err)
		}
		if ev.name != web.RecordEvent || rec.Kind != boards.EventKindMoved || rec.Ply != ply {
			t.Fatalf("ply %d: got %s %+v, want its move's event", ply, ev.name, rec)
		}
	}
}
