package main

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/questbot/questbot/bot/boards/web"
	"github.com/questbot/questbot/bot/bottest"
	"github.com/questbot/questbot/migrations/pgtest"
)

// runWebloadTest runs webload with DATABASE_URL set to url and returns its output, failing the
// test unless it exits with want.
func runWebloadTest(t *testing.T, url string, want int, args ...string) string {
	t.Helper()
	env := map[string]string{"DATABASE_URL": url}
	var out, errs bytes.Buffer
	if code := webload(context.Background(), args, func(k string) string { return env[k] }, &out, &errs); code != want {
		t.Fatalf("webload %v: exit %d, want %d\n%s%s", args, code, want, out.String(), errs.String())
	}
	return out.String() + errs.String()
}

// checkWebloadReport checks the figures of a small run: every stream open, moves made, every
// client at its board's last revision, a delay measured for events.
func checkWebloadReport(t *testing.T, out string, streams int) {
	t.Helper()
	for _, want := range []string{
		"streams: " + strconv.Itoa(streams) + " of " + strconv.Itoa(streams) + " open",
		"(lost events): 0\n",
		"target p99 under 100 ms:",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the report lacks %q:\n%s", want, out)
		}
	}
	m := regexp.MustCompile(`moves: (\d+) in`).FindStringSubmatch(out)
	s := regexp.MustCompile(`at the client, (\d+) samples: p50 [0-9.]+ ms`).FindStringSubmatch(out)
	if m == nil || s == nil {
		t.Fatalf("no move count or delay figures in:\n%s", out)
	}
	moves, _ := strconv.Atoi(m[1])
	samples, _ := strconv.Atoi(s[1])
	if moves < 10 || samples < 1 {
		t.Errorf("%d moves, %d delays measured:\n%s", moves, samples, out)
	}
}

// A small load check against an in-process server passes: every client ends at the last
// revision of its board.
func TestWebload(t *testing.T) {
	t.Parallel()
	out := runWebloadTest(t, pgtest.ConnString(t), 0,
		"-streams", "12", "-boards", "3", "-rate", "40", "-duration", "500ms", "-settle", "20s")
	checkWebloadReport(t, out, 12)
}

// With -url the streams are those of a running server: here one serving the API's path from a
// hub of its own on the same database.
func TestWebloadURL(t *testing.T) {
	t.Parallel()
	url := pgtest.ConnString(t)
	pool, err := pgxpool.New(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	hub := web.NewHub(pool, nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- hub.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	bottest.WaitFor(t, bottest.Timeout, "the hub to listen", hub.Listening)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/v1/games/{id}/events", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer qbt_test" {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
		web.ServeEvents(w, r, hub, id)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)

	out := runWebloadTest(t, url, 0, "-url", srv.URL+"/", "-token", "qbt_test", "-user", "77",
		"-streams", "6", "-boards", "2", "-rate", "40", "-duration", "500ms", "-settle", "20s")
	checkWebloadReport(t, out, 6)
	var seat int
	if err := pool.QueryRow(context.Background(), `SELECT count(*) FROM board_seat WHERE user_id = 77 AND seat = 0`).Scan(&seat); err != nil {
		t.Fatal(err)
	}
	if seat != 2 {
		t.Errorf("user 77 holds seat 0 of %d boards, want 2", seat)
	}

	// A stream the server refuses fails the check with the server's answer.
	out = runWebloadTest(t, url, 1, "-url", srv.URL, "-streams", "2", "-boards", "1", "-duration", "100ms")
	if !strings.Contains(out, "401 Unauthorized") {
		t.Errorf("the refusal is not reported:\n%s", out)
	}
}

// Help, and settings that make no sense.
func TestWebloadArguments(t *testing.T) {
	t.Parallel()
	var out, errs bytes.Buffer
	if code := dispatch(context.Background(), []string{"help", "webload"}, &out, &errs); code != 0 ||
		!strings.Contains(errs.String(), "usage: questbot webload") {
		t.Errorf("help webload: exit %d\n%s%s", code, &out, &errs)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-streams", "0"}, "must be positive"},
		{[]string{"-rate", "-1"}, "must be positive"},
		{[]string{"extra"}, "unexpected arguments"},
		{[]string{"-url", "http://127.0.0.1:1"}, "-url needs DATABASE_URL"},
	} {
		var out, errs bytes.Buffer
		env := map[string]string{}
		if code := webload(context.Background(), c.args, func(k string) string { return env[k] }, &out, &errs); code != 2 ||
			!strings.Contains(errs.String(), c.want) {
			t.Errorf("%v: exit %d, want 2 with %q\n%s", c.args, code, c.want, &errs)
		}
	}
}
