package botpg

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/questbot/questbot/bot"
	"github.com/questbot/questbot/bot/testkit/wait"
)

// Ensure PendingRows counts the pending rows of each chat and lane, and only those: a row sent
// or failed for good is not pending.
func TestPendingRows(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _, service := newStore(t)
	touched, err := s.Enqueue(ctx, service, []bot.Request{msg(5, "a"), msg(5, "b"), bot.AnswerCallback(5, "q", ""),
		msg(6, "c"), msg(6, "d")})
	if err != nil {
		t.Fatal(err)
	}
	key := func(chat int64, l bot.Lane) bot.ChatKey { return bot.ChatKey{Service: service, Chat: chat, Lane: l} }
	got, err := s.PendingRows(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := map[bot.ChatKey]int64{key(5, bot.LaneConversation): 2, key(5, bot.LaneAnswers): 1, key(6, bot.LaneConversation): 2}
	if !maps.Equal(got, want) {
		t.Fatalf("pending %v, want %v", got, want)
	}
	// The first row of each lane goes: chat 5's "a" is sent, its answer fails for good, chat
	// 6's "c" is sent.
	sendOnce(t, s, time.Now(), touched, func(r *bot.OutboxRow) bot.Outcome {
		if r.Request.Method == "answerCallbackQuery" {
			return bot.Outcome{Kind: bot.OutcomeFailed, Err: "400 Bad Request"}
		}
		return bot.Outcome{Kind: bot.OutcomeSent}
	})
	if got, err = s.PendingRows(ctx); err != nil {
		t.Fatal(err)
	}
	want = map[bot.ChatKey]int64{key(5, bot.LaneConversation): 1, key(6, bot.LaneConversation): 1}
	if !maps.Equal(got, want) {
		t.Fatalf("pending after the sends %v, want %v", got, want)
	}
}

// Ensure InboxBacklog counts the updates not handled yet, and only those.
func TestInboxBacklog(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, pool, service := newStore(t)
	if n, age, err := s.InboxBacklog(ctx); err != nil || n != 0 || age != 0 {
		t.Fatalf("empty inbox: %d updates, the oldest %v, %v", n, age, err)
	}
	if _, err := s.SaveUpdates(ctx, service, []json.RawMessage{text("1", "a", ""), text("2", "b", "")}, 3); err != nil {
		t.Fatal(err)
	}
	// The updates were received a minute ago.
	if _, err := pool.Exec(ctx, `UPDATE inbox SET received_at = now() - interval '1 minute'`); err != nil {
		t.Fatal(err)
	}
	if n, age, err := s.InboxBacklog(ctx); err != nil || n != 2 || age < time.Minute || age > time.Hour {
		t.Fatalf("two updates waiting: %d updates, the oldest %v, %v", n, age, err)
	}
	chat := []bot.ChatKey{{Service: service, Chat: 7}}
	if _, err := s.HandleBatch(ctx, chat, func(context.Context, bot.Tx, *bot.Update) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if n, _, err := s.InboxBacklog(ctx); err != nil || n != 1 {
		t.Fatalf("after one is handled: %d updates, %v", n, err)
	}
}

// Ensure WatchInbox wakes its transport for the updates other stores (other processes) stored,
// and not for those its own store stored, whose transport scheduled them already. Notifications
// arrive in the order their batches committed: the own store's batches come first, then the
// other store's, which every wake-up after the first (at the start) must find stored.
func TestWatchInboxIgnoresOwnBatches(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	own, pool, service := newStore(t)
	other := New(pool)
	var mu sync.Mutex
	var wakes []bool // whether each wake-up found the other store's update stored
	done := make(chan error, 1)
	go func() {
		done <- own.WatchInbox(ctx, func() {
			var found bool
			err := pool.QueryRow(ctx, `SELECT EXISTS (SELECT FROM inbox WHERE update_id = 9)`).Scan(&found)
			mu.Lock()
			defer mu.Unlock()
			wakes = append(wakes, err == nil && found)
		})
	}()
	count := func() int {
		mu.Lock()
		defer mu.Unlock()
		return len(wakes)
	}
	wait.For(t, wait.Hang, "the watch to listen", func() bool { return count() == 1 })
	for i := 1; i <= 3; i++ {
		id := strconv.Itoa(i)
		if _, err := own.SaveUpdates(ctx, service, []json.RawMessage{text(id, "own", "")}, int64(i+1)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := other.SaveUpdates(ctx, service, []json.RawMessage{text("9", "other", "")}, 10); err != nil {
		t.Fatal(err)
	}
	wait.For(t, wait.Hang, "the other store's wake-up", func() bool { return count() >= 2 })
	mu.Lock()
	got := append([]bool(nil), wakes[1:]...)
	mu.Unlock()
	if !slices.Equal(got, []bool{true}) {
		t.Errorf("wake-ups after the first %v, want one, for the other store's update", got)
	}
	cancel()
	<-done
}
