package botpg

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/questbot/questbot/bot/testkit/wait"
)

// Ensure storing a long poll's batch does not wait for the transactions that merely refer to the
// bot's row: every transaction that queues an outbox row, or makes any row of the bot, holds a
// key-share lock on it (the foreign key's check) until it commits. Under load there is always
// one, so a save that waited for them all would stall the receiving of updates. Saves of one bot
// still take turns with each other.
func TestSaveUpdatesBesideReferences(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, pool, service := newStore(t)
	// A transaction under way that refers to the bot's row, as the foreign key of an outbox row
	// does.
	ref, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer ref.Rollback(ctx)
	if _, err := ref.Exec(ctx, `SELECT 1 FROM service WHERE id = $1 FOR KEY SHARE`, service); err != nil {
		t.Fatal(err)
	}
	var pid int
	if err := ref.QueryRow(ctx, `SELECT pg_backend_pid()`).Scan(&pid); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := s.SaveUpdates(ctx, service, []json.RawMessage{text("1", "hello", "")}, 2)
		done <- err
	}()
	// The save either ends, or waits for a lock held by the transaction above: the one fails the
	// test, the other passes it.
	var saveErr error
	ended, blocked := false, false
	wait.For(t, wait.Hang, "the save to end or to wait for the reference's lock", func() bool {
		select {
		case saveErr = <-done:
			ended = true
			return true
		default:
		}
		err := pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_stat_activity
			WHERE wait_event_type = 'Lock' AND $1 = ANY(pg_blocking_pids(pid)))`, pid).Scan(&blocked)
		if err != nil {
			t.Fatal(err)
		}
		return blocked
	})
	if blocked {
		ref.Rollback(ctx)
		<-done
		t.Fatal("storing the updates waited for a transaction that only refers to the bot's row")
	}
	if saveErr != nil {
		t.Fatal(saveErr)
	}
	if !ended {
		t.Fatal("the save did not end")
	}
	// Two saves of the bot still take turns: one waits while the other's transaction holds the
	// bot's row for its offset.
	other, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Rollback(ctx)
	if _, err := other.Exec(ctx, moveOffsetSQL, service, 3); err != nil {
		t.Fatal(err)
	}
	if err := other.QueryRow(ctx, `SELECT pg_backend_pid()`).Scan(&pid); err != nil {
		t.Fatal(err)
	}
	go func() {
		_, err := s.SaveUpdates(ctx, service, []json.RawMessage{text("2", "again", "")}, 3)
		done <- err
	}()
	wait.For(t, wait.Hang, "the second save to wait for the first", func() bool {
		err := pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_stat_activity
			WHERE wait_event_type = 'Lock' AND $1 = ANY(pg_blocking_pids(pid)))`, pid).Scan(&blocked)
		if err != nil {
			t.Fatal(err)
		}
		return blocked
	})
	if err := other.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
