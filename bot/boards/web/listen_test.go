package web_test

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/questbot/questbot/bot/boards"
	"github.com/questbot/questbot/bot/boards/web"
	"github.com/questbot/questbot/bot/testkit/wait"
	"github.com/questbot/questbot/migrations/pgtest"
	"github.com/questbot/questbot/sessions/tournament/tournamentpg"
)

// Ensure the tournament hub listens as the boards' hub does: on a connection named
// TournamentListenerName, which is back after a loss, and a follower of a tournament's record
// gets every event, in order, those committed while the connection was lost included.
func TestTournamentHubReconnects(t *testing.T) {
	t.Parallel()
	const limit = 2 * time.Minute // bounds a hang only
	pool := pgtest.New(t)
	ctx := context.Background()
	id := recordTournament(t, pool)
	hub := web.NewTournamentHub(pool, slog.New(slog.NewTextHandler(t.Output(), nil)))
	sub := hub.Follow(id, 0)
	defer sub.Close()
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		hub.Run(runCtx)
	}()
	t.Cleanup(func() { cancel(); <-done })
	var last int64
	receive := func(what string, want int64) {
		t.Helper()
		deadline := time.After(limit)
		for last < want {
			select {
			case <-sub.C:
			case <-deadline:
				t.Fatalf("no %s: the last event received is %d, want %d", what, last, want)
			}
			evs, err := sub.Next(ctx, hub.Records())
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range evs {
				if e.ID <= last || e.Tournament != id {
					t.Fatalf("%s: event %d of tournament %d after %d", what, e.ID, e.Tournament, last)
				}
				last = e.ID
			}
		}
		if last != want {
			t.Fatalf("%s: the last event received is %d, want %d", what, last, want)
		}
	}
	wait.For(t, limit, "the hub to listen", hub.Listening)
	receive("the first event", appendTournamentEvent(t, pool, id))
	var killed int
	if err := pool.QueryRow(ctx, `
		SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
		WHERE application_name = $1 AND datname = current_database()`, web.TournamentListenerName).Scan(&killed); err != nil {
		t.Fatal(err)
	}
	if killed != 1 {
		t.Fatalf("terminated %d listening connections, want 1", killed)
	}
	// Committed while the connection is lost (or just back): read after the new LISTEN.
	appendTournamentEvent(t, pool, id)
	receive("the event of the loss", appendTournamentEvent(t, pool, id))
	wait.For(t, limit, "the hub to listen again", hub.Listening)
	receive("an event after the reconnect", appendTournamentEvent(t, pool, id))
}

// recordTournament creates a tournament to record events of, and returns its id.
func recordTournament(t *testing.T, pool *pgxpool.Pool) int64 {
	t.Helper()
	ctx := context.Background()
	var service int
	if err := pool.QueryRow(ctx, `INSERT INTO service (username) VALUES ('tournament_feed_bot') RETURNING id`).Scan(&service); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `INSERT INTO users (id, chat_id, first_name) VALUES (101, 101, 'Ann')`); err != nil {
		t.Fatal(err)
	}
	var id int64
	err := pool.QueryRow(ctx, `
		INSERT INTO tournament (service_id, variant, control, system, max_players, starts_at, state, created_by, created_at)
		VALUES ($1, 'russian', '5+3', 'roundrobin', 8, now() + interval '1 hour', 'created', 101, now())
		RETURNING id`, service).Scan(&id)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// appendTournamentEvent commits an event of a tournament's record and returns its number.
func appendTournamentEvent(t *testing.T, pool *pgxpool.Pool, id int64) int64 {
	t.Helper()
	evs := []tournamentpg.EventRow{{Tournament: id, Kind: boards.TournamentJoined, Data: []byte(`{"state":"created"}`), At: time.Now()}}
	if err := pgx.BeginFunc(context.Background(), pool, func(tx pgx.Tx) error {
		return tournamentpg.New(tx).AppendEvents(context.Background(), evs)
	}); err != nil {
		t.Fatal(err)
	}
	return evs[0].ID
}
