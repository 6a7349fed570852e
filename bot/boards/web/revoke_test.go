package web_test

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/questbot/questbot/bot"
	"github.com/questbot/questbot/bot/boards"
	"github.com/questbot/questbot/bot/boards/web"
	"github.com/questbot/questbot/bot/testkit/bottest"
	"github.com/questbot/questbot/bot/testkit/wait"
	"github.com/questbot/questbot/sessions/tournament"
)

// watched is an open event stream: ended is closed when the server ends it; events receives
// the data lines of its events.
type watched struct {
	ended  chan struct{}
	events chan string
}

// watch opens the event stream of a game with the client's credentials on the server at base
// and reads its head. The stream is hung up when the test ends.
func (c *client) watch(t *testing.T, base string, id int64) *watched {
	t.Helper()
	return c.watchPath(t, base+fmt.Sprintf("/api/v1/games/%d/events", id))
}

// watchPath opens the event stream at address with the client's credentials and reads its
// head (the retry delay, and a tournament's reset). The stream is hung up when the test ends.
func (c *client) watchPath(t *testing.T, address string) *watched {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, address, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.cookie != "" {
		req.AddCookie(&http.Cookie{Name: web.CookieName, Value: c.cookie})
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	for k, v := range c.header {
		req.Header[k] = v
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		t.Fatalf("events at %s: %s", address, resp.Status)
	}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() && sc.Text() != "" {
	}
	w := &watched{ended: make(chan struct{}), events: make(chan string, 100)}
	go func() {
		defer close(w.ended)
		defer resp.Body.Close()
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), "data: ") {
				select {
				case w.events <- sc.Text():
				default:
				}
			}
		}
	}()
	return w
}

// ends waits for a stream to end; it fails the test when it has not after wait.Hang, a bound on
// a hang only (the time it took since since is logged).
func ends(t *testing.T, what string, w *watched, since time.Time) {
	t.Helper()
	select {
	case <-w.ended:
		t.Logf("%s: the stream ended %v after the change", what, time.Since(since).Round(time.Millisecond))
	case <-time.After(wait.Hang):
		t.Fatalf("%s: the stream is still open", what)
	}
}

// lives checks that a stream still delivers: an event of its board's record, committed now,
// reaches it.
func (e *env) lives(t *testing.T, what string, w *watched, board int64) {
	t.Helper()
	for {
		select {
		case <-w.events:
			continue // what came before
		default:
		}
		break
	}
	e.recordEvent(t, board)
	select {
	case <-w.events:
	case <-w.ended:
		t.Fatalf("%s: the stream ended", what)
	case <-time.After(bottest.Timeout):
		t.Fatalf("%s: the stream delivers nothing", what)
	}
}

// Ensure an event stream ends with its credentials, in every process of the server, and gives
// its slot back: a session's stream at its logout (not the user's other session's), every
// session's at /logout/all, an API token's at /token revoke, a spectator's when the players
// switch spectators off (not the players'); the stream was opened on another server than the
// one that made the change, on the same database.
func TestStreamsEndWithCredentials(t *testing.T) {
	t.Parallel()
	e := newEnv(t, web.Config{Streams: 2})
	// A second process of the web server: its own hub and server on the same database.
	hub := web.NewHub(e.Pool, e.Log())
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); hub.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	other := httptest.NewServer(web.New(web.Config{Pool: e.Pool, Doer: e.proc.Transport, Boards: e.app.Boards,
		PublicURL: e.srv.URL, Events: hub, Now: e.clock.now, Log: e.Log(), Streams: 2}).Handler())
	t.Cleanup(other.Close)
	wait.For(t, bottest.Timeout, "both hubs to listen", func() bool { return hub.Listening() && e.hub.Listening() })

	ann := e.login(t, 1, "Ann")
	ann2 := e.login(t, 1, "Ann")
	var g struct{ ID int64 }
	ann.must(t, "POST", "/api/v1/games", map[string]string{"variant": "russian", "bot": "easy"}, http.StatusCreated, &g)

	// A logout ends that session's stream only.
	s1, s2 := ann.watch(t, other.URL, g.ID), ann2.watch(t, other.URL, g.ID)
	at := time.Now()
	ann.must(t, "POST", "/logout", nil, http.StatusNoContent, nil)
	ends(t, "logout", s1, at)
	e.lives(t, "the other session at logout", s2, g.ID)
	// Logging out everywhere ends every session's.
	ann3 := e.login(t, 1, "Ann")
	at = time.Now()
	ann3.must(t, "POST", "/logout/all", nil, http.StatusNoContent, nil)
	ends(t, "logout everywhere", s2, at)

	// /token revoke ends the token's streams; the slot it held is free again.
	ann = e.login(t, 1, "Ann")
	e.login(t, 2, "Boris")
	e.Exec(t, `UPDATE users SET is_admin = true WHERE id = 2`)
	after := e.LastID(2)
	e.Send(t, 2, "/token 1 watcher")
	m := e.text(t, 2, after, "API token #")
	prog := &client{e: e, token: regexp.MustCompile(`qbt_[A-Za-z0-9_-]{43}`).FindString(m.Text)}
	id := regexp.MustCompile(`#(\d+)`).FindStringSubmatch(m.Text)[1]
	s3, s4 := prog.watch(t, other.URL, g.ID), ann.watch(t, other.URL, g.ID)
	after = e.LastID(2)
	at = time.Now()
	e.Send(t, 2, "/token revoke "+id)
	ends(t, "token revoked", s3, at)
	e.text(t, 2, after, "is revoked")

	// Switching spectators off ends the spectators' streams, not the player's; the spectators'
	// slots are given back (two streams an address: two open again once spectators are back).
	ann.must(t, "POST", fmt.Sprintf("/api/v1/games/%d/spectators", g.ID), map[string]any{"allow": true}, http.StatusOK, nil)
	anon := &client{e: e}
	carol := e.login(t, 3, "Carol")
	s5, s6, s7 := anon.watch(t, other.URL, g.ID), anon.watch(t, other.URL, g.ID), carol.watch(t, other.URL, g.ID)
	at = time.Now()
	ann.must(t, "POST", fmt.Sprintf("/api/v1/games/%d/spectators", g.ID), map[string]any{"allow": false}, http.StatusOK, nil)
	ends(t, "spectators off (someone not logged in)", s5, at)
	ends(t, "spectators off (the same again)", s6, at)
	ends(t, "spectators off (a user who plays no seat)", s7, at)
	e.lives(t, "the player at spectators off", s4, g.ID)
	if status, code, _ := anon.stream(t, g.ID); status != http.StatusNotFound {
		t.Fatalf("a spectator's stream once spectators are off: %d %s", status, code)
	}
	ann.must(t, "POST", fmt.Sprintf("/api/v1/games/%d/spectators", g.ID), map[string]any{"allow": true}, http.StatusOK, nil)
	anon.watch(t, other.URL, g.ID)
	anon.watch(t, other.URL, g.ID)
}

// Ensure a tournament's event streams end with their credentials, as the games' do: a
// session's at its logout (not the user's other session's), an API token's at /token revoke;
// a stream opened without logging in goes on.
func TestTournamentStreamsEndWithCredentials(t *testing.T) {
	t.Parallel()
	e := newEnv(t, web.Config{})
	tournaments := web.NewTournamentHub(e.Pool, e.Log())
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); tournaments.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	e.cfg.Tournaments, e.cfg.TournamentEvents = e.app.Tournaments, tournaments
	e.serve()
	wait.For(t, bottest.Timeout, "the hub to listen", e.hub.Listening)

	ann := e.login(t, 1, "Ann")
	ann2 := e.login(t, 1, "Ann")
	e.login(t, 2, "Boris")
	e.Exec(t, `UPDATE users SET is_admin = true WHERE id = 2`)
	after := e.LastID(2)
	e.Send(t, 2, "/token 1 watcher")
	m := e.text(t, 2, after, "API token #")
	prog := &client{e: e, token: regexp.MustCompile(`qbt_[A-Za-z0-9_-]{43}`).FindString(m.Text)}
	tokenID := regexp.MustCompile(`#(\d+)`).FindStringSubmatch(m.Text)[1]
	var tt *tournament.Tournament
	if err := e.proc.Transport.Do(context.Background(), e.service, func(ctx context.Context, tx bot.Tx) error {
		var err error
		tt, err = e.app.Tournaments.Create(ctx, tx, boards.Player{Service: e.service, User: 2}, true,
			boards.TournamentSpec{Variant: "russian", Control: "5+3", System: tournament.RoundRobinSystem,
				StartsAt: e.clock.now().Add(time.Hour)})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	address := fmt.Sprintf("%s/api/v1/tournaments/%d/events", e.srv.URL, tt.ID)
	// change changes the tournament: its creator joins it, or leaves it again.
	joined := false
	change := func() {
		t.Helper()
		if err := e.proc.Transport.Do(context.Background(), e.service, func(ctx context.Context, tx bot.Tx) error {
			p := boards.Player{Service: e.service, User: 2}
			if joined {
				return e.app.Tournaments.Leave(ctx, tx, p, tt.ID)
			}
			return e.app.Tournaments.Join(ctx, tx, p, tt.ID, false)
		}); err != nil {
			t.Fatal(err)
		}
		joined = !joined
	}
	// lives checks that a stream still delivers: a change of the tournament reaches it.
	lives := func(what string, w *watched) {
		t.Helper()
		for len(w.events) > 0 {
			<-w.events
		}
		change()
		select {
		case <-w.events:
		case <-w.ended:
			t.Fatalf("%s: the stream ended", what)
		case <-time.After(bottest.Timeout):
			t.Fatalf("%s: the stream delivers nothing", what)
		}
	}
	// ended waits for a stream to end, with a bound that only limits a hang.
	ended := func(what string, w *watched) {
		t.Helper()
		at := time.Now()
		select {
		case <-w.ended:
			t.Logf("%s: the stream ended %v after the change", what, time.Since(at).Round(time.Millisecond))
		case <-time.After(bottest.Timeout):
			t.Fatalf("%s: the stream is still open", what)
		}
	}

	s1, s2, s3, s4 := ann.watchPath(t, address), ann2.watchPath(t, address), prog.watchPath(t, address),
		(&client{e: e}).watchPath(t, address)
	ann.must(t, "POST", "/logout", nil, http.StatusNoContent, nil)
	ended("logout", s1)
	lives("the other session at logout", s2)
	after = e.LastID(2)
	e.Send(t, 2, "/token revoke "+tokenID)
	ended("token revoked", s3)
	e.text(t, 2, after, "is revoked")
	lives("the other session at the revocation", s2)
	lives("someone not logged in", s4)
	// A stream asked for with the logged-out session is refused.
	ann.refused(t, "GET", fmt.Sprintf("/api/v1/tournaments/%d/events", tt.ID), nil, http.StatusUnauthorized, "unauthorized")
}

// recordEvent appends an event (a seat's board seen) to a board's record, as the service does in
// a change (the board's row locked), and announces it at the commit.
func (e *env) recordEvent(t *testing.T, board int64) {
	t.Helper()
	ctx := context.Background()
	tx, err := e.Pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	var ply int
	if err := tx.QueryRow(ctx, `SELECT ply FROM board_session WHERE id = $1 FOR UPDATE`, board).Scan(&ply); err != nil {
		t.Fatal(err)
	}
	web.AppendEvent(t, tx, board, boards.EventKindSeen, 0, 1, ply, boards.EventData{Status: "active"})
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
}
