package boards_test

import (
	"context"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/questbot/questbot/bot/boards"
	"github.com/questbot/questbot/bot/boards/botusers"
	"github.com/questbot/questbot/bot/testkit/wait"
	"github.com/questbot/questbot/migrations/pgtest"
)

// listenLimit bounds the waits of these tests: only a hang reaches it.
const listenLimit = 2 * time.Minute

// listeners are the process ids of the connections of this test's database named name.
func listeners(t *testing.T, pool *pgxpool.Pool, name string) []int32 {
	t.Helper()
	var pids []int32
	err := pool.QueryRow(context.Background(), `SELECT coalesce(array_agg(pid ORDER BY pid), '{}') FROM pg_stat_activity
		WHERE datname = current_database() AND application_name = $1`, name).Scan(&pids)
	if err != nil {
		t.Fatal(err)
	}
	return pids
}

// cut ends the connections of this test's database named name, and says how many.
func cut(t *testing.T, pool *pgxpool.Pool, name string) int {
	t.Helper()
	var n int
	err := pool.QueryRow(context.Background(), `SELECT count(*) FROM (SELECT pg_terminate_backend(pid) FROM pg_stat_activity
		WHERE datname = current_database() AND application_name = $1) AS cut`, name).Scan(&n)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// Ensure a Listener listens on a connection of its own, named, hands the notifications out,
// and after its connection is killed connects again, calls Listening again (for what was sent
// meanwhile) and goes on handing them out; and that Run ends with its context.
func TestListenerReconnects(t *testing.T) {
	t.Parallel()
	pool := pgtest.New(t)
	const name = "questbot test listener"
	var (
		listening, lostListened atomic.Int64
		mu                      sync.Mutex
		got                     []string
	)
	l := &boards.Listener{Pool: pool, Name: name, Channels: []string{"test_listen"},
		Log: slog.New(slog.NewTextHandler(t.Output(), nil)),
		Listening: func(ctx context.Context, conn *pgx.Conn) error {
			listening.Add(1)
			return nil
		},
		Notified: func(n *pgconn.Notification) {
			mu.Lock()
			defer mu.Unlock()
			got = append(got, n.Payload)
		},
		Lost: func(listened bool) {
			if listened {
				lostListened.Add(1)
			}
		},
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		l.Run(ctx)
	}()
	t.Cleanup(func() { cancel(); <-done })
	received := func(want ...string) func() bool {
		return func() bool {
			mu.Lock()
			defer mu.Unlock()
			return slices.Equal(got, want)
		}
	}
	notify := func(payload string) {
		t.Helper()
		if _, err := pool.Exec(context.Background(), `SELECT pg_notify('test_listen', $1)`, payload); err != nil {
			t.Fatal(err)
		}
	}

	wait.For(t, listenLimit, "the first LISTEN", func() bool { return listening.Load() == 1 })
	if pids := listeners(t, pool, name); len(pids) != 1 {
		t.Fatalf("connections %v named %q, want 1", pids, name)
	}
	notify("one")
	wait.For(t, listenLimit, "the first notification", received("one"))

	if n := cut(t, pool, name); n != 1 {
		t.Fatalf("%d connections cut, want 1", n)
	}
	wait.For(t, listenLimit, "the LISTEN after the loss", func() bool { return listening.Load() == 2 })
	if n := lostListened.Load(); n != 1 {
		t.Errorf("%d losses told, want 1", n)
	}
	notify("two")
	wait.For(t, listenLimit, "the notification after the loss", received("one", "two"))

	cancel()
	select {
	case <-done:
	case <-time.After(listenLimit):
		t.Fatal("Run did not end with its context")
	}
}

// Ensure the AI's wake-ups listen with the same Listener: a connection named AIListenerName,
// back after a loss.
func TestWatchAIListener(t *testing.T) {
	t.Parallel()
	pool := pgtest.New(t)
	b := boards.New(boards.Config{Users: botusers.Users{}, Log: slog.New(slog.NewTextHandler(t.Output(), nil))})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		b.WatchAI(ctx, pool)
	}()
	t.Cleanup(func() { cancel(); <-done })
	var first []int32
	wait.For(t, listenLimit, "the AI's listener", func() bool {
		first = listeners(t, pool, boards.AIListenerName)
		return len(first) == 1
	})
	if n := cut(t, pool, boards.AIListenerName); n != 1 {
		t.Fatalf("%d connections cut, want 1", n)
	}
	wait.For(t, listenLimit, "the AI's listener after the loss", func() bool {
		pids := listeners(t, pool, boards.AIListenerName)
		return len(pids) == 1 && pids[0] != first[0]
	})
}
