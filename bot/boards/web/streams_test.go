package web_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/questbot/questbot/bot/boards/web"
	"github.com/questbot/questbot/bot/testkit/bottest"
	"github.com/questbot/questbot/bot/testkit/wait"
)

// stream opens the event stream of a game with the client's credentials. When it opens (200),
// it reads the stream's head and returns a function that hangs up; otherwise it returns the
// status and the error's code.
func (c *client) stream(t *testing.T, id int64) (status int, code string, hangUp func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, fmt.Sprintf("%s/api/v1/games/%d/events", c.e.srv.URL, id), nil)
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
		defer resp.Body.Close()
		var ae apiError
		data, _ := io.ReadAll(resp.Body)
		if err := json.Unmarshal(data, &ae); err != nil {
			t.Fatalf("events of game %d: %s %q", id, resp.Status, data)
		}
		return resp.StatusCode, ae.Error.Code, nil
	}
	sc := bufio.NewScanner(resp.Body)
	// The stream's head is the retry delay; the record's events follow.
	if !sc.Scan() || sc.Text() != fmt.Sprintf("retry: %d", web.RetryMillis) || !sc.Scan() || sc.Text() != "" {
		t.Fatalf("events of game %d: the stream began with %q: %v", id, sc.Text(), sc.Err())
	}
	return http.StatusOK, "", func() { cancel(); resp.Body.Close() }
}

// mustStream opens a stream that must open.
func (c *client) mustStream(t *testing.T, id int64) func() {
	t.Helper()
	status, code, hangUp := c.stream(t, id)
	if status != http.StatusOK {
		t.Fatalf("events of game %d: %d %s, want a stream", id, status, code)
	}
	return hangUp
}

// Ensure the event streams are not rate limited as requests but capped in number per caller:
// with the caller's request bucket empty, streams still open up to Config.Streams; the next is
// 429 too_many_streams; another user, and an API token of the same user, have caps of their
// own; a stream closed makes room for one more. A stream of a game the caller may not watch is
// refused as before, whatever the cap.
func TestEventStreamsCap(t *testing.T) {
	t.Parallel()
	e := newEnv(t, web.Config{Streams: 2, Rate: 1, Burst: 2})
	// From here the rate limit's buckets refill only when the test says.
	e.clock.frozen.Store(e.clock.now().UnixNano())
	ann := e.login(t, 1, "Ann")
	boris := e.login(t, 2, "Boris")
	var game struct{ ID int64 }
	ann.must(t, "POST", "/api/v1/games", map[string]string{"variant": "russian", "bot": "easy"}, http.StatusCreated, &game)
	// The login's /api/v1/me and the game took Ann's two requests.
	ann.refused(t, "GET", "/api/v1/games", nil, http.StatusTooManyRequests, "rate_limited")

	first := ann.mustStream(t, game.ID)
	ann.mustStream(t, game.ID)
	if status, code, _ := ann.stream(t, game.ID); status != http.StatusTooManyRequests || code != "too_many_streams" {
		t.Fatalf("Ann's third stream: %d %s, want 429 too_many_streams", status, code)
	}
	if status, code, _ := boris.stream(t, game.ID); status != http.StatusNotFound || code != "not_found" {
		t.Fatalf("Boris on Ann's game: %d %s, want 404 not_found", status, code)
	}
	var his struct{ ID int64 }
	boris.must(t, "POST", "/api/v1/games", map[string]string{"variant": "russian", "bot": "easy"}, http.StatusCreated, &his)
	boris.mustStream(t, his.ID)

	// An API token of Ann's is a caller of its own.
	e.Exec(t, `UPDATE users SET is_admin = true WHERE id = 2`)
	after := e.LastID(2)
	e.Send(t, 2, "/token 1 watcher")
	tok := regexp.MustCompile(`qbt_[A-Za-z0-9_-]{43}`).FindString(e.text(t, 2, after, "API token #").Text)
	prog := &client{e: e, token: tok}
	prog.mustStream(t, game.ID)
	prog.mustStream(t, game.ID)
	if status, code, _ := prog.stream(t, game.ID); status != http.StatusTooManyRequests || code != "too_many_streams" {
		t.Fatalf("the token's third stream: %d %s, want 429 too_many_streams", status, code)
	}

	// Ann hangs up one stream: once the server has seen it go, one more opens, and no more.
	first()
	wait.For(t, bottest.Timeout, "room for a stream of Ann's", func() bool {
		status, code, _ := ann.stream(t, game.ID)
		if status == http.StatusTooManyRequests && code == "too_many_streams" {
			return false
		}
		if status != http.StatusOK {
			t.Fatalf("Ann's stream after a hang-up: %d %s", status, code)
		}
		return true
	})
	if status, code, _ := ann.stream(t, game.ID); status != http.StatusTooManyRequests || code != "too_many_streams" {
		t.Fatalf("Ann's stream over the cap again: %d %s, want 429 too_many_streams", status, code)
	}
}

// Ensure a request whose client has gone away is no failure of the server's: nothing is logged
// as an error and no answer is written (a load of streams that hang up at once used to fill the
// log with "context canceled" errors).
func TestClientGone(t *testing.T) {
	t.Parallel()
	e := newEnv(t, web.Config{})
	ann := e.login(t, 1, "Ann")
	var game struct{ ID int64 }
	ann.must(t, "POST", "/api/v1/games", map[string]string{"variant": "russian", "bot": "easy"}, http.StatusCreated, &game)
	for _, path := range []string{"/api/v1/games", fmt.Sprintf("/api/v1/games/%d/events", game.ID)} {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		req := httptest.NewRequestWithContext(ctx, http.MethodGet, path, nil)
		req.AddCookie(&http.Cookie{Name: web.CookieName, Value: ann.cookie})
		rec := httptest.NewRecorder()
		(*e.handler.Load()).ServeHTTP(rec, req)
		if rec.Body.Len() != 0 {
			t.Errorf("%s for a client gone: answered %d %q", path, rec.Code, rec.Body)
		}
	}
	if logs := e.Logs.String(); strings.Contains(logs, "A web request failed") {
		t.Fatalf("a client gone is logged as a failure:\n%s", logs)
	}
	// The same calls of a client still there are answered.
	ann.must(t, "GET", "/api/v1/games", nil, http.StatusOK, nil)
}
