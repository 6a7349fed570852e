package bot

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"
)

// maxSendAttempts is how often a transiently failing request is tried before it is given up.
const maxSendAttempts = 10

// maxAttemptsWithFallback is how often a transiently failing request that has a fallback
// (Request.OnFailure, such as a board's text in place of its picture) is tried before the
// fallback is sent in its place: a server that keeps failing one method (a 5xx to every
// editMessageMedia) is not waited out for minutes while a form the user can read is at hand.
const maxAttemptsWithFallback = 3

// sender drains the outbox: one worker per lane of a chat at a time, in row order, each chat
// paced on its own, so one chat's waits and failures never hold the others back.
type sender struct {
	t      *Transport
	clock  Clock
	q      *chatQueue
	pace   *pacing
	global *bucket

	mu      sync.Mutex
	timers  map[ChatKey]wake // pending wake-ups
	flights sync.WaitGroup   // detached sends still running
}

// wake is a pending wake-up of a lane: when, and how to call it off.
type wake struct {
	at   time.Time
	stop func() bool
}

func newSender(t *Transport) *sender {
	return &sender{
		t: t, clock: t.clock, q: newChatQueue(), pace: newPacing(*t.cfg.Limits),
		global: newBucket(t.cfg.Limits.Global, t.clock), timers: map[ChatKey]wake{},
	}
}

// notify schedules a lane that got rows. A poller's sender does not run: the rows wait for a
// working process's scan, and nothing piles up in its queue.
func (s *sender) notify(c ChatKey) {
	if s.t.cfg.Role.Works() {
		s.q.push(c)
	}
}

// later is now+d as the outbox keeps it, to the microsecond, so that a time the sender keeps in
// memory and the same time read back from the outbox are equal.
func later(now time.Time, d time.Duration) time.Time { return now.Add(d).Truncate(time.Microsecond) }

// wakeAt schedules c to be worked on again at t (once, at the earliest time asked for: a later
// wake-up already pending is called off).
func (s *sender) wakeAt(c ChatKey, t time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	old, ok := s.timers[c]
	if ok && !old.at.After(t) {
		return
	}
	if ok {
		old.stop()
	}
	stop := s.clock.AfterFunc(t.Sub(s.clock.Now()), func() {
		s.mu.Lock()
		if s.timers[c].at.Equal(t) {
			delete(s.timers, c)
		}
		s.mu.Unlock()
		s.q.push(c)
	})
	s.timers[c] = wake{at: t, stop: stop}
}

// stopGrace is how long, in real time, the sends under way when the transport stops may take to
// end and be recorded. A send cut short might have reached Telegram without its row being
// removed, and would be sent again by the next start, as after a crash.
const stopGrace = 5 * time.Second

func (s *sender) run(ctx context.Context) {
	// Batches started before the stop run on a context that outlives it by stopGrace.
	work, cancel := context.WithCancel(context.WithoutCancel(ctx))
	defer cancel()
	stop := context.AfterFunc(ctx, func() { time.AfterFunc(stopGrace, cancel) })
	defer stop()
	var wg sync.WaitGroup
	for range s.t.cfg.Senders {
		wg.Go(func() {
			for {
				chats, ok := s.q.popMany(ctx, s.t.cfg.Batch)
				if !ok || ctx.Err() != nil {
					// Stopping: the batches under way end, no new one starts.
					return
				}
				s.sendBatch(work, chats)
			}
		})
	}
	tick := time.NewTicker(s.t.rscan)
	defer tick.Stop()
	for {
		heads, err := s.t.cfg.Store.PendingOutbox(ctx, 10000)
		if err != nil && ctx.Err() == nil {
			s.t.log.Warn("Outbox scan failed", slog.Any("error", err))
		}
		now := s.clock.Now()
		for c, due := range heads {
			if due.After(now) {
				s.wakeAt(c, due)
			} else {
				s.q.push(c)
			}
		}
		s.pace.forget(now)
		select {
		case <-ctx.Done():
			wg.Wait()
			s.flights.Wait()
			return
		case <-tick.C:
		}
	}
}

// sendBatch sends the first due row of each lane. The rows of a batch go to Telegram at once and
// are recorded in one transaction; a send that takes long stops holding the batch (see sendAll).
// A chat that was slow lately is sent alone.
func (s *sender) sendBatch(ctx context.Context, chats []ChatKey) {
	var normal []ChatKey
	for _, c := range chats {
		if s.pace.troubled(paceKey(c)) {
			s.sendChats(ctx, []ChatKey{c})
		} else {
			normal = append(normal, c)
		}
	}
	if len(normal) > 0 {
		s.sendChats(ctx, normal)
	}
}

func (s *sender) sendChats(ctx context.Context, chats []ChatKey) {
	var detached []*flight
	results, err := s.t.cfg.Store.SendBatch(ctx, s.clock.Now(), chats, func(ctx context.Context, rows []*OutboxRow) []Outcome {
		var outs []Outcome
		outs, detached = s.sendAll(ctx, rows)
		return outs
	})
	for _, f := range detached {
		f.recorded <- err == nil
	}
	if err != nil {
		if ctx.Err() == nil {
			s.t.log.Error("Sending failed", slog.Int("chats", len(chats)), slog.Any("error", err))
		}
		for _, c := range chats {
			s.q.finish(c, false)
			if ctx.Err() == nil {
				s.wakeAt(c, s.clock.Now().Add(time.Second))
			}
		}
		return
	}
	for _, r := range results {
		more := false
		switch {
		case errors.Is(r.Err, ErrNoWork):
			if !r.Due.IsZero() {
				s.wakeAt(r.Chat, r.Due)
			}
		case errors.Is(r.Err, ErrBusy):
		default:
			more = s.follow(r.Chat, r.Outcome, r.More)
			s.release(r.Chat, r.State, r.Outcome)
		}
		s.q.finish(r.Chat, more)
	}
}

// release wakes the other lanes of c's chat when a row carrying a state is done with (sent,
// dropped, failed or moved aside): a row of the same state may have waited for it in another
// lane (the rows of a state go in order, see Request.State).
func (s *sender) release(c ChatKey, state string, out Outcome) {
	if state == "" {
		return
	}
	switch out.Kind {
	case OutcomeRetry, OutcomeAbandon, OutcomeDetached:
		return
	}
	for _, l := range []Lane{LaneConversation, LaneUpdates, LaneRetry} {
		if l != c.Lane {
			s.notify(ChatKey{Service: c.Service, Chat: c.Chat, Lane: l})
		}
	}
}

// follow schedules what comes after an outcome of a lane's first row and reports whether the
// lane should be worked on again at once (more says whether it has more rows).
func (s *sender) follow(c ChatKey, out Outcome, more bool) bool {
	switch out.Kind {
	case OutcomeRetry, OutcomeAbandon:
		if !out.RetryAt.IsZero() {
			s.wakeAt(c, out.RetryAt)
		}
		return false
	case OutcomeGiveWay:
		s.wakeAt(ChatKey{Service: c.Service, Chat: c.Chat, Lane: LaneRetry}, out.RetryAt)
		return more
	case OutcomeDetached:
		// The lane waits for its detached send, which wakes it when it ends.
		return false
	}
	return more
}

// flight is a send that went on without its batch: its row is leased until lease, and it
// records its own outcome when it ends, once its batch has recorded the lease.
type flight struct {
	row      *OutboxRow
	lease    time.Time
	outcome  chan Outcome // the attempt's outcome, when it ends
	recorded chan bool    // whether the batch recorded the lease
}

// straggle bounds a batch's wait for its slowest sends, in real time: a send still running
// Config.SlowSend after the batch started, or after twice as long as the slowest of the others
// plus straggle, goes on without the batch.
const straggle = 250 * time.Millisecond

// sendAll sends rows at once and returns their outcomes when they have all ended, or when the
// ones still running have taken too long; those are detached (OutcomeDetached, leased for as
// long as they may still take) and returned as flights that record their outcomes themselves.
func (s *sender) sendAll(ctx context.Context, rows []*OutboxRow) ([]Outcome, []*flight) {
	start := time.Now()
	outs := make([]Outcome, len(rows))
	results := make([]chan Outcome, len(rows))
	ended := make(chan int, len(rows))
	for i, row := range rows {
		results[i] = make(chan Outcome, 1)
		go func() {
			results[i] <- s.attempt(ctx, row)
			ended <- i
		}()
	}
	bound := time.NewTimer(s.t.cfg.SlowSend)
	defer bound.Stop()
	var stragglers <-chan time.Time
	done := make([]bool, len(rows))
wait:
	for left := len(rows); left > 0; left-- {
		select {
		case i := <-ended:
			outs[i], done[i] = <-results[i], true
			if took := time.Since(start); left > 1 {
				stragglers = time.After(took + straggle)
			}
		case <-bound.C:
			break wait
		case <-stragglers:
			break wait
		}
	}
	var flights []*flight
	for i, row := range rows {
		if done[i] {
			continue
		}
		lease := later(s.clock.Now(), requestTimeout(row.Request)+leaseMargin)
		outs[i] = Outcome{Kind: OutcomeDetached, RetryAt: lease}
		f := &flight{row: row, lease: lease, outcome: results[i], recorded: make(chan bool, 1)}
		flights = append(flights, f)
		s.t.m.SendsDetached.Inc()
		s.t.log.Warn("A send is slow; its batch goes on without it", slog.Int64("chat_id", row.Chat.Chat),
			slog.String("method", row.Request.Method), slog.Int64("outbox_id", row.ID))
		s.flights.Add(1)
		go s.land(ctx, f)
	}
	return outs, flights
}

// leaseMargin is how long a detached send's lease outlasts the longest the send may take: time
// to record its outcome.
const leaseMargin = 30 * time.Second

// land waits for a detached send to end and records its outcome, then lets its lane go on.
func (s *sender) land(ctx context.Context, f *flight) {
	defer s.flights.Done()
	out := <-f.outcome
	if !<-f.recorded {
		// The batch's record failed, so the row is as it was before the batch: it is sent
		// again, as after a crash.
		return
	}
	c := f.row.Chat
	held, err := s.t.cfg.Store.FinishSend(context.WithoutCancel(ctx), s.clock.Now(), f.row, f.lease, out)
	log := s.t.log.With(slog.Int64("chat_id", c.Chat), slog.Int64("outbox_id", f.row.ID))
	switch {
	case err != nil:
		log.Error("Recording a slow send failed; it will be sent again when its lease ends", slog.Any("error", err))
		return
	case !held:
		log.Warn("A slow send ended after its lease; another process has its row")
		return
	}
	if ctx.Err() != nil {
		return
	}
	if s.follow(c, out, true) {
		s.notify(c)
	}
	s.release(c, f.row.Request.State, out)
}
