package app_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/questbot/questbot/bot"
	"github.com/questbot/questbot/bot/app"
	"github.com/questbot/questbot/bot/botpg"
	"github.com/questbot/questbot/bot/testkit/bottest"
	"github.com/questbot/questbot/migrations/pgtest"
	"github.com/questbot/questbot/sessions"
	"github.com/questbot/questbot/sessions/sessionpg"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// clock is the clock of the quests' deadlines: the real time plus an offset the test moves.
type clock struct{ offset atomic.Int64 }

func (c *clock) now() time.Time          { return time.Now().Add(time.Duration(c.offset.Load())) }
func (c *clock) advance(d time.Duration) { c.offset.Add(int64(d)) }

// Ensure two bot processes on one database, each running every scheduled job, settle each
// multiplayer deadline once: in six duels one pilot fires and the other never does; when the
// rounds' deadlines pass, each pilot who fired is told once that the other did not move, however
// the two schedulers' runs interleave. The second process polls no bot: its job's messages wait
// in the outbox for the first process's sender, as with several processes in production.
func TestTwoSchedulersSettleOnce(t *testing.T) {
	t.Parallel()
	e := bottest.New(t, bottest.Options{Token: "777:app-test-token", Username: "app_test_bot"})
	c := &clock{}
	log := slog.New(slog.DiscardHandler)
	newBot := func() *app.Bot { return app.New(app.Config{UploadsDir: "../../uploads", Log: log, Now: c.now}) }
	var runs sync.WaitGroup
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(func() { cancel(); runs.Wait() })
	schedule := func(b *app.Bot, tr *bot.Transport) {
		s := bot.NewScheduler(log)
		if err := b.Schedule(s, tr); err != nil {
			t.Error(err)
			return
		}
		runs.Go(func() { s.Run(ctx) })
	}
	first := newBot()
	p := e.Start(t, bot.Config{Handler: first.Handle, Log: log, Limits: &bot.NoLimits, Rescan: 50 * time.Millisecond})
	schedule(first, p.Transport)
	second := newBot()
	other := bot.New(bot.Config{Store: botpg.New(e.Pool), Handler: second.Handle, Log: log, Rescan: 50 * time.Millisecond})
	runs.Go(func() { other.Run(ctx) })
	schedule(second, other)

	var duel int
	if err := e.Pool.QueryRow(ctx, `SELECT id FROM script WHERE common_name = 'duel' AND language = 'en'`).Scan(&duel); err != nil {
		t.Fatal(err)
	}
	const pairs = 6
	enter := func(user int64, wait string) {
		e.User(user, fmt.Sprint("P", user), "en")
		n := e.LastID(user)
		e.Send(t, user, fmt.Sprintf("/start %d", duel))
		e.Press(t, user, e.WaitTextAfter(t, user, n, "Gaal Orbital Arena"), "I agree")
		e.Press(t, user, e.WaitTextAfter(t, user, n, "cleared for the arena"), "Accept the duel")
		e.WaitTextAfter(t, user, n, wait)
	}
	for k := range int64(pairs) {
		a, b := 100+2*k, 101+2*k
		enter(a, "Waiting for an opponent")
		enter(b, "Round: choose your weapon")
		round := e.WaitTextAfter(t, a, 0, "Round: choose your weapon")
		e.Press(t, a, round, "Laser")
		e.WaitTextAfter(t, a, round.ID, "Waiting for P")
	}
	c.advance(2 * time.Minute) // past every round's deadline
	for k := range int64(pairs) {
		e.WaitTextAfter(t, 100+2*k, 0, "did not move in time")
	}
	// Every session has ended, and a further run of both jobs finds nothing to do.
	e.WaitFor(t, "the sessions to end", func() bool {
		list, err := sessionpg.QuestSessionsOf(ctx, e.Pool, p.Service)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range list {
			if s.Status != sessions.QuestEnded {
				return false
			}
		}
		return len(list) == pairs
	})
	// The outbox's identity only grows, whereas its rows go as the sender sends them.
	const queued = `SELECT coalesce(pg_sequence_last_value(pg_get_serial_sequence('outbox', 'id')), 0)`
	before := e.QueryInt(t, queued)
	if err := second.Games.SettleSessions(ctx, other); err != nil {
		t.Fatal(err)
	}
	if err := first.Games.SettleSessions(ctx, p.Transport); err != nil {
		t.Fatal(err)
	}
	if after := e.QueryInt(t, queued); after != before {
		t.Errorf("settling again queued %d messages", after-before)
	}
	e.WaitIdle(t)
	for k := range int64(pairs) {
		a, b := 100+2*k, 101+2*k
		if n := e.CountText(a, "did not move in time"); n != 1 {
			t.Errorf("pilot %d was told %d times that P%d did not move", a, n, b)
		}
		if n := e.CountText(b, "did not move in time"); n != 0 {
			t.Errorf("pilot %d, who never reached the barrier, was told already", b)
		}
	}
}
