package botpg

import (
	"context"
	"encoding/json"
	"maps"
	"testing"
	"time"

	"github.com/questbot/questbot/bot"
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
