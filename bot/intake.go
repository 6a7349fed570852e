package bot

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"strconv"
	"time"
)

// minPollInterval is the least time between the starts of two polls that brought nothing new. A
// server that honours the long poll's timeout never comes near it; one that ignores it (answers
// an empty getUpdates at once) is asked about once a second instead of a thousand times.
const minPollInterval = time.Second

// Accept stores updates that arrived by other means than the long poll (a webhook) and
// schedules them. It returns once they are stored: answering the webhook after that is safe.
// An update delivered again while its first copy waits in the inbox is stored once; one
// delivered again after it was handled is handled again, so a webhook receiver should answer
// promptly. Updates that cannot be handled are quarantined (see Store.SaveUpdates) and logged.
func (t *Transport) Accept(ctx context.Context, service int, raw []json.RawMessage) error {
	saved, err := t.cfg.Store.SaveUpdates(ctx, service, raw, 0)
	if err != nil {
		return err
	}
	t.received(t.log.With(slog.Int("service_id", service)), len(raw), saved)
	return nil
}

// received counts and schedules a stored batch, and logs its quarantined updates.
func (t *Transport) received(log *slog.Logger, n int, saved Saved) {
	t.m.UpdatesReceived.Add(float64(n))
	for _, q := range saved.Quarantined {
		attrs := []any{slog.String("reason", q.Reason)}
		if q.IDKnown {
			attrs = append(attrs, slog.Int64("update_id", q.UpdateID))
		}
		log.Warn("Update quarantined: it cannot be handled; it is kept in inbox_quarantine", attrs...)
		t.m.UpdatesQuarantined.Inc()
	}
	if !t.cfg.Role.Works() {
		// A poller's dispatcher does not run: the working processes find the updates.
		return
	}
	for _, c := range saved.Chats {
		t.disp.notify(c)
	}
}

// retryIn is how long to wait before calling again after err: the retry_after of a 429, else
// backoff, which doubles (up to 30 s) for the next failure.
func retryIn(err error, backoff *time.Duration) time.Duration {
	var apiErr *Error
	if errors.As(err, &apiErr) && apiErr.RetryAfter > 0 {
		return apiErr.RetryAfter
	}
	wait := *backoff
	*backoff = min(*backoff*2, 30*time.Second)
	return wait
}

// poll is the long-poll loop of one bot: get updates, store them, and only then acknowledge them
// by asking for the next offset. It first removes a webhook a previous run in webhook mode left,
// and again whenever Telegram refuses getUpdates because of one.
func (t *Transport) poll(ctx context.Context, b *botEntry) {
	log := t.log.With(slog.Int("service_id", b.service))
	t.deleteWebhook(ctx, log, b)
	backoff := time.Second
	warned := false // that the server ignores the long-poll timeout, until it holds a poll again
	for ctx.Err() == nil {
		// Whether the server held the poll as asked is a matter of real time, whatever the clock.
		started := time.Now()
		raw, err := t.getUpdates(ctx, b)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			wait := retryIn(err, &backoff)
			log.Warn("getUpdates failed", slog.Any("error", err), slog.Duration("retry_in", wait))
			if isWebhookConflict(err) && t.deleteWebhook(ctx, log, b) {
				continue
			}
			sleep(ctx, t.clock, wait)
			continue
		}
		backoff = time.Second
		next := b.offset
		if len(raw) > 0 {
			next = nextOffset(raw, b.offset)
			if !t.store(ctx, log, b, raw, next) {
				return
			}
		}
		if next == b.offset {
			// Nothing new: an empty answer, or only updates that cannot be acknowledged.
			took := time.Since(started)
			switch early := len(raw) == 0 && took < minPollInterval && t.cfg.PollTimeout >= minPollInterval; {
			case early && !warned:
				log.Warn("getUpdates answers at once without updates (the server ignores the long-poll timeout); polling once a second")
				warned = true
			case !early && len(raw) == 0:
				warned = false
			}
			sleep(ctx, t.clock, minPollInterval-took)
		}
		b.offset = next
	}
}

// getUpdates is one long poll. A panic below it (a library's surprise at an answer) is an error
// of the poll, not the end of the process.
func (t *Transport) getUpdates(ctx context.Context, b *botEntry) (raw []json.RawMessage, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("getUpdates panic: %v\n%s", r, debug.Stack())
		}
	}()
	return b.api.getUpdates(ctx, b.offset, t.cfg.PollTimeout)
}

// defaultIntakeBudget is Config.IntakeBudget unless set: long enough for a poll's worth of
// quick updates (a message answered, a button pressed), short enough that the next poll never
// waits long for slow ones.
const defaultIntakeBudget = 5 * time.Millisecond

// store saves a batch of updates with the offset that acknowledges them, trying until it is
// stored (nothing is acknowledged before) or ctx ends; it reports false in that case. When the
// store can, and this process handles updates, the updates of idle chats are handled in the
// same transaction (IntakeHandler), the others stored for the workers.
func (t *Transport) store(ctx context.Context, log *slog.Logger, b *botEntry, raw []json.RawMessage, next int64) bool {
	if h, ok := t.cfg.Store.(IntakeHandler); ok && t.handlesAtIntake() {
		start := time.Now()
		saved, handled, err := h.HandleAtIntake(ctx, b.service, raw, next, t.cfg.IntakeBudget, t.disp.handle)
		if err == nil {
			t.received(log, len(raw), saved)
			took := time.Since(start)
			for _, r := range handled {
				t.disp.record(ctx, r, took, true)
			}
			return true
		}
		if ctx.Err() != nil {
			return false
		}
		// Nothing was done: the workers handle the batch.
		log.Warn("Handling updates at intake failed; they are stored for the workers", slog.Any("error", err))
	}
	for {
		saved, err := t.cfg.Store.SaveUpdates(ctx, b.service, raw, next)
		if err == nil {
			t.received(log, len(raw), saved)
			return true
		}
		if ctx.Err() != nil {
			return false
		}
		// Not stored, so not acknowledged: keep trying with the same updates.
		log.Error("Storing updates failed", slog.Any("error", err))
		if sleep(ctx, t.clock, time.Second) != nil {
			return false
		}
	}
}

// handlesAtIntake reports whether the long poll handles updates itself (see store): in a
// process that works, with a budget, and without the test hook that abandons handling (its
// tests stop the workers' path).
func (t *Transport) handlesAtIntake() bool {
	return t.cfg.Role.Works() && t.cfg.IntakeBudget > 0 && t.cfg.Hooks.BeforeHandle == nil
}

// nextOffset is the offset that acknowledges raw after cur: one past the greatest update_id of
// raw that an offset can acknowledge (0..MaxUpdateID), and never less than cur. Ids it cannot
// read or acknowledge do not move it; the store quarantines their updates.
func nextOffset(raw []json.RawMessage, cur int64) int64 {
	next := cur
	for _, r := range raw {
		var u struct {
			ID json.RawMessage `json:"update_id"`
		}
		if json.Unmarshal(r, &u) != nil {
			continue
		}
		id, err := strconv.ParseInt(string(u.ID), 10, 64)
		if err != nil || id < 0 || id > MaxUpdateID {
			continue
		}
		next = max(next, id+1)
	}
	return next
}
