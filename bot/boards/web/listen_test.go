package web_test

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/questbot/questbot/bot/boards/web"
	"github.com/questbot/questbot/migrations/pgtest"
)

// Ensure the tournament hub listens as the boards' hub does: on a connection named
// TournamentListenerName, which is back after a loss and tells every subscriber to fetch again.
func TestTournamentHubReconnects(t *testing.T) {
	t.Parallel()
	const limit = 2 * time.Minute // bounds a hang only
	pool := pgtest.New(t)
	hub := web.NewTournamentHub(pool, slog.New(slog.NewTextHandler(t.Output(), nil)))
	ch, stop := hub.Subscribe(5)
	defer stop()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		hub.Run(ctx)
	}()
	t.Cleanup(func() { cancel(); <-done })
	receive := func(what string) {
		t.Helper()
		select {
		case bc := <-ch:
			if bc.Board != 5 {
				t.Fatalf("%s: %+v, want tournament 5", what, bc)
			}
		case <-time.After(limit):
			t.Fatalf("no %s", what)
		}
	}
	receive("fetch at the first LISTEN")
	var killed int
	if err := pool.QueryRow(context.Background(), `
		SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
		WHERE application_name = $1 AND datname = current_database()`, web.TournamentListenerName).Scan(&killed); err != nil {
		t.Fatal(err)
	}
	if killed != 1 {
		t.Fatalf("terminated %d listening connections, want 1", killed)
	}
	receive("fetch after the reconnect")
	if _, err := pool.Exec(context.Background(), `SELECT pg_notify($1, '5')`, web.TournamentChannel); err != nil {
		t.Fatal(err)
	}
	receive("change after the reconnect")
}
