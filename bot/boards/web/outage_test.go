package web_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/questbot/questbot/bot/boards/web"
	"github.com/questbot/questbot/bot/testkit/bottest"
	"github.com/questbot/questbot/bot/testkit/wait"
)

// relay is a TCP relay to the test cluster's socket that the test switches off (refusing new
// connections and breaking the open ones, as a database server that dies) and on again, at the
// same address.
type relay struct {
	t      *testing.T
	target string // the cluster's unix socket
	addr   string

	mu    sync.Mutex
	ln    net.Listener
	conns map[net.Conn]struct{}
}

// newRelay starts a relay to pool's database and returns it with a pool that goes through it.
func newRelay(t *testing.T, pool *pgxpool.Pool) (*relay, *pgxpool.Pool) {
	t.Helper()
	cc := pool.Config().ConnConfig
	r := &relay{t: t, target: filepath.Join(cc.Host, fmt.Sprintf(".s.PGSQL.%d", cc.Port)), conns: map[net.Conn]struct{}{}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r.addr = ln.Addr().String()
	r.serve(ln)
	t.Cleanup(r.down)
	cfg := pool.Config().Copy()
	host, port, _ := net.SplitHostPort(r.addr)
	cfg.ConnConfig.Host, cfg.ConnConfig.TLSConfig, cfg.ConnConfig.Fallbacks = host, nil, nil
	fmt.Sscan(port, &cfg.ConnConfig.Port)
	cfg.MaxConns = 4
	through, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(through.Close)
	return r, through
}

func (r *relay) serve(ln net.Listener) {
	r.mu.Lock()
	r.ln = ln
	r.mu.Unlock()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			up, err := net.Dial("unix", r.target)
			if err != nil {
				c.Close()
				continue
			}
			r.mu.Lock()
			r.conns[c], r.conns[up] = struct{}{}, struct{}{}
			r.mu.Unlock()
			go func() { io.Copy(up, c); up.Close() }()
			go func() { io.Copy(c, up); c.Close() }()
		}
	}()
}

// down refuses connections and breaks those open.
func (r *relay) down() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ln != nil {
		r.ln.Close()
		r.ln = nil
	}
	for c := range r.conns {
		c.Close()
		delete(r.conns, c)
	}
}

// up accepts connections again, at the same address.
func (r *relay) up() {
	ln, err := net.Listen("tcp", r.addr)
	if err != nil {
		r.t.Fatal(err)
	}
	r.serve(ln)
}

// Ensure an outage of the database is answered 503 unavailable with Retry-After (not 500
// internal), for a logged-in user and for a visitor, with one log line when it starts and one
// when it ends (the first call that reaches the database again), never one per request; and
// that the server answers as before once the database is back.
func TestDatabaseOutage(t *testing.T) {
	t.Parallel()
	e := newEnv(t, web.Config{})
	ann := e.login(t, 1, "Ann")
	var g struct{ ID int64 }
	ann.must(t, "POST", "/api/v1/games", map[string]string{"variant": "russian", "bot": "easy"}, http.StatusCreated, &g)
	ann.must(t, "POST", fmt.Sprintf("/api/v1/games/%d/spectators", g.ID), map[string]any{"allow": true}, http.StatusOK, nil)

	db, pool := newRelay(t, e.Pool)
	logs := &bottest.LogBuffer{}
	var h http.Handler = web.New(web.Config{Pool: pool, Doer: e.proc.Transport, Boards: e.app.Boards, PublicURL: e.srv.URL,
		Events: e.hub, Now: e.clock.now, Log: slog.New(slog.NewTextHandler(logs, nil))}).Handler()
	e.handler.Store(&h)
	ann.must(t, "GET", "/api/v1/me", nil, http.StatusOK, nil)

	db.down()
	anon := &client{e: e}
	for range 5 {
		for _, c := range []struct {
			who  *client
			path string
		}{{ann, "/api/v1/me"}, {ann, "/api/v1/games"}, {anon, fmt.Sprintf("/api/v1/games/%d", g.ID)}} {
			code, hdr, body := c.who.call(t, "GET", c.path, nil)
			if code != http.StatusServiceUnavailable || !strings.Contains(string(body), `"unavailable"`) || hdr.Get("Retry-After") == "" {
				t.Fatalf("GET %s while the database is down: %d %s, Retry-After %q", c.path, code, body, hdr.Get("Retry-After"))
			}
		}
	}
	code, _, body := ann.call(t, "POST", fmt.Sprintf("/api/v1/games/%d/resign", g.ID), map[string]any{"ply": 0})
	if code != http.StatusServiceUnavailable {
		t.Fatalf("a resignation while the database is down: %d %s", code, body)
	}
	if code, _ := open(t, e.srv.URL+"/login/"+strings.Repeat("A", 22), nil); code != http.StatusServiceUnavailable {
		t.Fatalf("a login link while the database is down: %d", code)
	}

	db.up()
	wait.For(t, bottest.Timeout, "the server to answer again", func() bool {
		code, _, _ := ann.call(t, "GET", "/api/v1/me", nil)
		return code == http.StatusOK
	})
	anon.must(t, "GET", fmt.Sprintf("/api/v1/games/%d", g.ID), nil, http.StatusOK, nil)
	out := logs.String()
	if n := strings.Count(out, "The database cannot be reached"); n != 1 {
		t.Errorf("the start of the outage logged %d times, want once:\n%s", n, out)
	}
	if n := strings.Count(out, "The database answers again"); n != 1 {
		t.Errorf("the end of the outage logged %d times, want once:\n%s", n, out)
	}
	if strings.Contains(out, "A web request failed") || strings.Count(out, "\n") != 2 {
		t.Errorf("the log holds more than the outage's start and end:\n%s", out)
	}
}
