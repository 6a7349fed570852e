package botpg

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/questbot/questbot/bot"
)

// sendOnce runs SendBatch at now on chats, answering every row claimed with out, and returns the
// rows claimed and the results.
func sendOnce(t *testing.T, s *Store, now time.Time, chats []bot.ChatKey, out func(*bot.OutboxRow) bot.Outcome) ([]*bot.OutboxRow, []bot.SendResult) {
	t.Helper()
	var claimed []*bot.OutboxRow
	res, err := s.SendBatch(context.Background(), now, chats, func(_ context.Context, rows []*bot.OutboxRow) []bot.Outcome {
		claimed = rows
		outs := make([]bot.Outcome, len(rows))
		for i, r := range rows {
			outs[i] = out(r)
		}
		return outs
	})
	if err != nil {
		t.Fatal(err)
	}
	return claimed, res
}

func msg(chat int64, s string) bot.Request {
	r, _ := bot.SendHTML(chat, s, nil)
	return r[0]
}

// Ensure each lane of a chat is claimed on its own, in order: a failing menu holds neither the
// conversation nor the answers, and a row that gives way moves to the retry lane.
func TestLanes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, pool, service := newStore(t)
	menu, _ := bot.SetChatCommands(5, []bot.Command{{Command: "start", Description: "Start"}})
	touched, err := s.Enqueue(ctx, service, []bot.Request{msg(5, "a"), bot.AnswerCallback(5, "q1", ""), menu, msg(5, "b"),
		bot.AnswerCallback(5, "q2", "")})
	if err != nil {
		t.Fatal(err)
	}
	key := func(l bot.Lane) bot.ChatKey { return bot.ChatKey{Service: service, Chat: 5, Lane: l} }
	if want := []bot.ChatKey{key(bot.LaneConversation), key(bot.LaneAnswers), key(bot.LaneMenu)}; !slices.Equal(touched, want) {
		t.Fatalf("touched %v, want %v", touched, want)
	}
	now := time.Now()
	methods := func(rows []*bot.OutboxRow) []string {
		var out []string
		for _, r := range rows {
			out = append(out, r.Request.Method+" "+r.Request.Params["text"]+r.Request.Params["callback_query_id"])
		}
		return out
	}
	// The menu fails, the first text keeps failing and gives way, the first answer goes.
	rows, _ := sendOnce(t, s, now, touched, func(r *bot.OutboxRow) bot.Outcome {
		switch r.Request.Method {
		case "setMyCommands":
			return bot.Outcome{Kind: bot.OutcomeRetry, RetryAt: now.Add(time.Minute), Err: "502"}
		case "sendMessage":
			return bot.Outcome{Kind: bot.OutcomeGiveWay, RetryAt: now.Add(time.Minute), Err: "502"}
		}
		return bot.Outcome{Kind: bot.OutcomeSent}
	})
	if got, want := methods(rows), []string{"sendMessage a", "answerCallbackQuery q1", "setMyCommands "}; !slices.Equal(got, want) {
		t.Fatalf("first rows %q, want %q", got, want)
	}
	// Next: the second text and the second answer; the menu is not due, the first text waits aside.
	all := append(touched, key(bot.LaneRetry))
	rows, res := sendOnce(t, s, now, all, func(*bot.OutboxRow) bot.Outcome { return bot.Outcome{Kind: bot.OutcomeSent} })
	if got, want := methods(rows), []string{"sendMessage b", "answerCallbackQuery q2"}; !slices.Equal(got, want) {
		t.Fatalf("next rows %q, want %q", got, want)
	}
	for _, r := range res[2:] {
		if !errors.Is(r.Err, bot.ErrNoWork) || !r.Due.Equal(now.Add(time.Minute).Truncate(time.Microsecond)) {
			t.Errorf("lane %d: %v due %v, want no work until a minute from now", r.Chat.Lane, r.Err, r.Due.Sub(now))
		}
	}
	var lane, attempts int
	var since time.Time
	pool.QueryRow(ctx, `SELECT lane, attempts, failing_since FROM outbox WHERE params->>'text' = 'a'`).Scan(&lane, &attempts, &since)
	if lane != int(bot.LaneRetry) || attempts != 1 || !since.Equal(now.Truncate(time.Microsecond)) {
		t.Errorf("the text that gave way: lane %d, %d attempts, failing since %v; want the retry lane, 1, now", lane, attempts, since)
	}
}

// Ensure a detached send holds its row by a lease until it records its outcome, and that an
// outcome recorded without the lease changes nothing.
func TestFinishSend(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, pool, service := newStore(t)
	touched, err := s.Enqueue(ctx, service, []bot.Request{msg(5, "slow"), msg(5, "next")})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	lease := now.Add(time.Minute).Truncate(time.Microsecond)
	rows, _ := sendOnce(t, s, now, touched, func(*bot.OutboxRow) bot.Outcome {
		return bot.Outcome{Kind: bot.OutcomeDetached, RetryAt: lease}
	})
	// The lane waits for its leased row.
	if _, res := sendOnce(t, s, now, touched, nil); !errors.Is(res[0].Err, bot.ErrNoWork) || !res[0].Due.Equal(lease) {
		t.Fatalf("while leased: %v due %v, want no work until the lease ends", res[0].Err, res[0].Due)
	}
	if held, err := s.FinishSend(ctx, now, rows[0], lease.Add(time.Second), bot.Outcome{Kind: bot.OutcomeSent}); err != nil || held {
		t.Fatalf("finish with another lease: %v, %v; want not held", held, err)
	}
	if held, err := s.FinishSend(ctx, now, rows[0], lease, bot.Outcome{Kind: bot.OutcomeSent}); err != nil || !held {
		t.Fatalf("finish: %v, %v; want held", held, err)
	}
	next, _ := sendOnce(t, s, now, touched, func(*bot.OutboxRow) bot.Outcome {
		return bot.Outcome{Kind: bot.OutcomeDetached, RetryAt: lease}
	})
	if len(next) != 1 || next[0].Request.Params["text"] != "next" {
		t.Fatalf("after the slow row: %+v", next)
	}
	// A detached send that comes to nothing (the process stops) leaves its row due at once.
	if held, err := s.FinishSend(ctx, now, next[0], lease, bot.Outcome{Kind: bot.OutcomeAbandon}); err != nil || !held {
		t.Fatalf("finish abandoned: %v, %v", held, err)
	}
	var n int
	pool.QueryRow(ctx, `SELECT count(*) FROM outbox WHERE not_before IS NULL AND attempts = 0`).Scan(&n)
	if n != 1 {
		t.Errorf("the abandoned row is not due at once")
	}
}

// Ensure failed rows and quarantined updates are removed after the retention, and nothing else.
func TestPruneFailed(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, pool, service := newStore(t)
	for _, q := range []string{
		`INSERT INTO outbox (service_id, chat_id, method, params, status, failed_at, created_at)
		 VALUES ($1, 1, 'sendMessage', '{"text":"old failure"}', 'failed', now() - interval '8 days', now() - interval '8 days'),
		        ($1, 1, 'sendMessage', '{"text":"new failure"}', 'failed', now() - interval '6 days', now() - interval '6 days'),
		        ($1, 1, 'sendMessage', '{"text":"old, pending"}', 'pending', NULL, now() - interval '30 days')`,
		`INSERT INTO inbox_quarantine (service_id, digest, payload, reason, received_at)
		 VALUES ($1, 'a', 'x', 'old', now() - interval '8 days'), ($1, 'b', 'y', 'new', now() - interval '1 day')`,
	} {
		if _, err := pool.Exec(ctx, q, service); err != nil {
			t.Fatal(err)
		}
	}
	n, err := s.PruneFailed(ctx, 7*24*time.Hour)
	if err != nil || n != 2 {
		t.Fatalf("pruned %d, %v; want 2", n, err)
	}
	var left []string
	rows, _ := pool.Query(ctx, `SELECT params->>'text' FROM outbox UNION ALL SELECT reason FROM inbox_quarantine ORDER BY 1`)
	for rows.Next() {
		var s string
		rows.Scan(&s)
		left = append(left, s)
	}
	if want := []string{"new", "new failure", "old, pending"}; !slices.Equal(left, want) {
		t.Errorf("left %q, want %q", left, want)
	}
}

// Ensure a 403 marks the user blocked and fails their chat's pending requests, unless the user
// wrote to the bot in private after the request was queued: then that answer is older than the
// unblocking, and only its own request fails.
func TestBlockedAnswer(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, pool, service := newStore(t)
	for _, u := range []int64{5, 6} {
		if _, err := pool.Exec(ctx, `INSERT INTO users (id, chat_id, first_name, last_seen_at) VALUES ($1, $1, 'U', now() - interval '1 hour')`, u); err != nil {
			t.Fatal(err)
		}
	}
	touched, err := s.Enqueue(ctx, service, []bot.Request{msg(5, "a"), msg(5, "b"), msg(6, "c"), msg(6, "d")})
	if err != nil {
		t.Fatal(err)
	}
	// User 6 wrote after the requests were queued (the claim set last_seen_at and cleared
	// blocked_at).
	if _, err := pool.Exec(ctx, `UPDATE users SET last_seen_at = now() + interval '1 second' WHERE id = 6`); err != nil {
		t.Fatal(err)
	}
	sendOnce(t, s, time.Now(), touched, func(*bot.OutboxRow) bot.Outcome {
		return bot.Outcome{Kind: bot.OutcomeBlocked, Err: "Forbidden: bot was blocked by the user"}
	})
	query := func(q string, args ...any) int {
		t.Helper()
		var n int
		if err := pool.QueryRow(ctx, q, args...).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if query(`SELECT count(*) FROM users WHERE id = 5 AND blocked_at IS NOT NULL`) != 1 {
		t.Error("user 5 is not marked blocked")
	}
	if query(`SELECT count(*) FROM outbox WHERE chat_id = 5 AND status = 'failed'`) != 2 {
		t.Error("user 5's pending requests did not fail with the block")
	}
	if query(`SELECT count(*) FROM users WHERE id = 6 AND blocked_at IS NULL`) != 1 {
		t.Error("a stale 403 blocked user 6 again")
	}
	if f, p := query(`SELECT count(*) FROM outbox WHERE chat_id = 6 AND status = 'failed'`),
		query(`SELECT count(*) FROM outbox WHERE chat_id = 6 AND status = 'pending'`); f != 1 || p != 1 {
		t.Errorf("user 6: %d failed and %d pending, want the refused request alone failed", f, p)
	}
}
