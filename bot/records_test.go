package bot_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/questbot/questbot/bot"
	"github.com/questbot/questbot/bot/emulator/tgemu"
)

// Ensure the transport's cleanup removes the failed outbox rows (with their texts) and the
// quarantined updates once they are older than the retention, and keeps the newer ones.
func TestCleanupPrunesFailures(t *testing.T) {
	t.Parallel()
	e := newFakeEnv(t)
	tr, service, _ := e.start(t, bot.Config{})
	ctx := context.Background()
	for _, q := range []string{
		`INSERT INTO outbox (service_id, chat_id, method, params, status, failed_at)
		 VALUES ($1, 1, 'sendMessage', '{"text":"a week and a day"}', 'failed', now() - interval '8 days'),
		        ($1, 1, 'sendMessage', '{"text":"six days"}', 'failed', now() - interval '6 days')`,
		`INSERT INTO inbox_quarantine (service_id, digest, payload, reason, received_at)
		 VALUES ($1, 'a', 'x', 'old', now() - interval '8 days'), ($1, 'b', 'y', 'new', now())`,
	} {
		if _, err := e.pool.Exec(ctx, q, service); err != nil {
			t.Fatal(err)
		}
	}
	if err := tr.Cleanup(ctx); err != nil {
		t.Fatal(err)
	}
	if n := e.queryInt(t, `SELECT count(*) FROM outbox WHERE params->>'text' = 'six days'`) +
		e.queryInt(t, `SELECT count(*) FROM inbox_quarantine WHERE reason = 'new'`); n != 2 {
		t.Errorf("%d of the newer records kept, want 2", n)
	}
	if n := e.queryInt(t, `SELECT (SELECT count(*) FROM outbox) + (SELECT count(*) FROM inbox_quarantine)`); n != 2 {
		t.Errorf("%d records left, want the 2 newer ones", n)
	}
}

// Ensure what the package doc promises of a crash: each row that was being sent when the
// process died is sent at most once more, and no other row is sent twice.
func TestCrashDuplicates(t *testing.T) {
	t.Parallel()
	e := newEnv(t, tgemu.Options{})
	const chats = 6
	for c := range int64(chats) {
		e.User(10+c, "u", "en")
	}
	twice := func(ctx context.Context, tx bot.Tx, u *bot.Update) error {
		for _, s := range []string{"one", "two"} {
			reqs, _ := bot.SendHTML(u.Chat, s, nil)
			if err := tx.Send(ctx, reqs...); err != nil {
				return err
			}
		}
		return nil
	}
	// The first process "crashes" when Telegram has taken its first message: every send of the
	// process from then on ends without a record. A row is in flight from just before it is sent.
	var mu sync.Mutex
	inFlight := map[int64]bool{}
	var crashed atomic.Bool
	var stop func()
	stop = e.start(t, bot.Config{Handler: twice, Limits: &bot.NoLimits, Senders: 1, Hooks: bot.Hooks{
		BeforeSend: func(r *bot.OutboxRow) bool {
			mu.Lock()
			defer mu.Unlock()
			inFlight[r.Chat.Chat] = true
			return false
		},
		AfterSend: func(r *bot.OutboxRow) bool {
			if !crashed.Swap(true) {
				go stop()
			}
			return true
		}}})
	for c := range int64(chats) {
		e.Send(t, 10+c, "go")
	}
	e.WaitFor(t, "the crash", crashed.Load)
	stop()
	mu.Lock()
	defer mu.Unlock()
	e.start(t, bot.Config{Handler: twice, Limits: &bot.NoLimits})
	e.WaitFor(t, "every message", func() bool {
		for c := range int64(chats) {
			if e.CountText(10+c, "two") == 0 {
				return false
			}
		}
		return true
	})
	e.WaitIdle(t)
	dups := 0
	for c := range int64(chats) {
		one, two := e.CountText(10+c, "one"), e.CountText(10+c, "two")
		if two != 1 || one < 1 || one > 2 || (one == 2 && !inFlight[10+c]) {
			t.Errorf("chat %d got %d copies of the first message (in flight: %v) and %d of the second", 10+c, one, inFlight[10+c], two)
		}
		dups += one - 1
	}
	t.Logf("%d rows in flight at the crash, %d sent again", len(inFlight), dups)
	if dups == 0 {
		t.Errorf("no row was sent again: the test crashed nothing")
	}
}
