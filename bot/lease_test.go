package bot_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/questbot/questbot/bot"
	"github.com/questbot/questbot/bot/botpg"
	"github.com/questbot/questbot/bot/emulator/tgemu"
	"github.com/questbot/questbot/bot/testkit/wait"
)

// leaseStore is a process's store that notes when the process holds the poll lease, and that
// can play a process killed while it held it: it then never releases it.
type leaseStore struct {
	bot.Store
	held      atomic.Bool
	noRelease bool
}

func (s *leaseStore) TakePollLease(ctx context.Context, service int, holder string, now, until time.Time) (bool, int64, error) {
	held, offset, err := s.Store.TakePollLease(ctx, service, holder, now, until)
	s.held.Store(held)
	return held, offset, err
}

func (s *leaseStore) ReleasePollLease(ctx context.Context, service int, holder string) error {
	if s.noRelease {
		return nil
	}
	return s.Store.ReleasePollLease(ctx, service, holder)
}

// Ensure one of two processes polls the bot; when it dies without releasing its lease, the
// other takes it over once the lease has expired on the clock, resumes at the stored offset,
// and every message of every chat is answered once, in order.
func TestPollLeaseTakeover(t *testing.T) {
	t.Parallel()
	e := newEnv(t, tgemu.Options{})
	clock := bot.NewFakeClock(time.Now())
	const lease = 2 * time.Second
	first := &leaseStore{Store: botpg.New(e.Pool), noRelease: true}
	second := &leaseStore{Store: botpg.New(e.Pool)}
	cfg := func(s bot.Store) bot.Config {
		return bot.Config{Store: s, Handler: numbered, Limits: &bot.NoLimits, Clock: clock, PollLease: lease}
	}
	p1 := e.Start(t, cfg(first))
	wait.For(t, wait.Hang, "the first process to take the lease", first.held.Load)
	e.Start(t, cfg(second))
	const chats, each = 5, 10
	for c := range int64(chats) {
		e.User(3000+c, "u", "en")
	}
	sendRange := func(from, to int) {
		var wg sync.WaitGroup
		for c := range int64(chats) {
			wg.Go(func() {
				for i := from; i < to; i++ {
					e.Send(t, 3000+c, fmt.Sprint(i))
				}
			})
		}
		wg.Wait()
	}
	replies := func(n int) func() bool {
		return func() bool {
			for c := range int64(chats) {
				if len(e.botTexts(3000+c)) < n {
					return false
				}
			}
			return true
		}
	}
	sendRange(0, each/2)
	wait.For(t, wait.Hang, "the replies to the first half", replies(each/2))
	if second.held.Load() {
		t.Fatal("the second process took the lease while the first held it")
	}
	// The first process dies holding the lease: nobody polls until it expires.
	p1.Stop()
	sendRange(each/2, each)
	clock.Advance(lease + time.Millisecond)
	wait.For(t, wait.Hang, "the second process to take the lease over", second.held.Load)
	wait.For(t, wait.Hang, "every reply", replies(each))
	e.WaitIdle(t)
	for c := range int64(chats) {
		got := e.botTexts(3000 + c)
		if len(got) != each {
			t.Fatalf("chat %d: %d replies, want %d: %q", c, len(got), each, got)
		}
		for i, m := range got {
			if want := fmt.Sprint("got ", i); m != want {
				t.Fatalf("chat %d reply %d: got %q, want %q", c, i, m, want)
			}
		}
	}
	if n := e.QueryInt(t, `SELECT count(*) FROM inbox`); n != 0 {
		t.Errorf("%d updates left in the inbox", n)
	}
}

// Ensure the lease rows: a holder renews its lease, another cannot take it before it expires
// and can after; the former holder's renewal then fails, its release changes nothing, and the
// holder's release frees it at once. The offset returned is the one stored with the last batch.
func TestPollLeaseRows(t *testing.T) {
	t.Parallel()
	e := newEnv(t, tgemu.Options{})
	s := botpg.New(e.Pool)
	ctx := context.Background()
	p := e.Start(t, bot.Config{Role: bot.RoleWorker})
	p.Stop()
	e.Exec(t, `UPDATE service SET update_offset = 42 WHERE id = $1`, p.Service)
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	take := func(holder string, now time.Time) (bool, int64) {
		t.Helper()
		held, offset, err := s.TakePollLease(ctx, p.Service, holder, now, now.Add(5*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		return held, offset
	}
	if held, offset := take("a", t0); !held || offset != 42 {
		t.Fatalf("a takes a free lease: held %v, offset %d; want true, 42", held, offset)
	}
	if held, _ := take("b", t0.Add(time.Second)); held {
		t.Fatal("b took a's lease before it expired")
	}
	if held, _ := take("a", t0.Add(4*time.Second)); !held {
		t.Fatal("a could not renew its lease")
	}
	if held, _ := take("b", t0.Add(8*time.Second)); held {
		t.Fatal("b took a's renewed lease before it expired")
	}
	if held, _ := take("b", t0.Add(9*time.Second+time.Millisecond)); !held {
		t.Fatal("b could not take an expired lease")
	}
	if held, _ := take("a", t0.Add(10*time.Second)); held {
		t.Fatal("a renewed a lease b had taken")
	}
	if err := s.ReleasePollLease(ctx, p.Service, "a"); err != nil {
		t.Fatal(err)
	}
	if held, _ := take("c", t0.Add(10*time.Second)); held {
		t.Fatal("a released b's lease")
	}
	if err := s.ReleasePollLease(ctx, p.Service, "b"); err != nil {
		t.Fatal(err)
	}
	if held, _ := take("c", t0.Add(10*time.Second)); !held {
		t.Fatal("c could not take a released lease")
	}
}

// Ensure the roles split the work: a poller stores updates and handles none; a worker polls
// nothing and handles what the poller stored.
func TestRoles(t *testing.T) {
	t.Parallel()
	e := newEnv(t, tgemu.Options{})
	e.Start(t, bot.Config{Handler: numbered, Role: bot.RolePoller})
	e.User(4000, "u", "en")
	e.Send(t, 4000, "0")
	wait.For(t, wait.Hang, "the poller to store the update", func() bool {
		return e.QueryInt(t, `SELECT count(*) FROM inbox WHERE chat_id = 4000`) == 1
	})
	holder := func() string {
		var h string
		if err := e.Pool.QueryRow(context.Background(), `SELECT COALESCE(max(holder), '') FROM poll_lease`).Scan(&h); err != nil {
			t.Fatal(err)
		}
		return h
	}
	poller := holder()
	if poller == "" {
		t.Fatal("the poller holds no poll lease")
	}
	w := e.Start(t, bot.Config{Handler: numbered, Role: bot.RoleWorker})
	e.WaitText(t, 4000, 0, "got 0")
	e.Send(t, 4000, "1")
	e.WaitText(t, 4000, 1, "got 1")
	w.Stop()
	// The worker never took the lease: the poller polled the second message too.
	if h := holder(); h != poller {
		t.Errorf("the lease is %q's, want the poller's %q", h, poller)
	}
}
