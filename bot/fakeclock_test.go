package bot

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"
)

// FakeClock is a Clock for tests: its time stands still until the test moves it, and then the
// waits that fell due end at once. It is defined here, in a test file, for the tests of this
// package and of bot_test.
type FakeClock struct {
	mu     sync.Mutex
	now    time.Time
	timers []*fakeTimer
	added  chan struct{} // closed and replaced when a timer is added
}

type fakeTimer struct {
	at time.Time
	f  func()
}

// NewFakeClock returns a clock standing at start.
func NewFakeClock(start time.Time) *FakeClock {
	return &FakeClock{now: start, added: make(chan struct{})}
}

// Now returns the clock's time.
func (c *FakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// AfterFunc implements Clock.
func (c *FakeClock) AfterFunc(d time.Duration, f func()) func() bool {
	if d <= 0 {
		go f()
		return func() bool { return false }
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &fakeTimer{at: c.now.Add(d), f: f}
	c.timers = append(c.timers, t)
	close(c.added)
	c.added = make(chan struct{})
	return func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		i := slices.Index(c.timers, t)
		if i < 0 {
			return false
		}
		c.timers = slices.Delete(c.timers, i, i+1)
		return true
	}
}

// Advance moves the clock forward by d.
func (c *FakeClock) Advance(d time.Duration) { c.AdvanceTo(c.Now().Add(d)) }

// AdvanceTo moves the clock to t (never back) and starts every wait due by then, earliest first.
func (c *FakeClock) AdvanceTo(t time.Time) {
	c.mu.Lock()
	if t.After(c.now) {
		c.now = t
	}
	var due []*fakeTimer
	keep := c.timers[:0]
	for _, tm := range c.timers {
		if !tm.at.After(c.now) {
			due = append(due, tm)
		} else {
			keep = append(keep, tm)
		}
	}
	c.timers = keep
	c.mu.Unlock()
	slices.SortStableFunc(due, func(a, b *fakeTimer) int { return a.at.Compare(b.at) })
	for _, tm := range due {
		go tm.f()
	}
}

// Pending returns the times at which the pending waits end, earliest first.
func (c *FakeClock) Pending() []time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []time.Time
	for _, tm := range c.timers {
		out = append(out, tm.at)
	}
	slices.SortFunc(out, time.Time.Compare)
	return out
}

// WaitPending waits (in real time, up to a minute) until a pending wait ends at a time for which
// ok holds, and returns the earliest such time. ok may use the clock.
func (c *FakeClock) WaitPending(tb testing.TB, what string, ok func(time.Time) bool) time.Time {
	tb.Helper()
	limit := time.After(time.Minute)
	for {
		c.mu.Lock()
		added := c.added
		var pending []time.Time
		for _, tm := range c.timers {
			pending = append(pending, tm.at)
		}
		c.mu.Unlock()
		found := slices.DeleteFunc(pending, func(at time.Time) bool { return !ok(at) })
		if len(found) > 0 {
			return slices.MinFunc(found, time.Time.Compare)
		}
		select {
		case <-added:
		case <-limit:
			tb.Fatalf("no wait on the clock for %s; pending: %v", what, c.Pending())
		}
	}
}

// Drive moves the clock to the end of the earliest pending wait whenever there is one, until ctx
// ends: time passes only as fast as the waits need it to.
func (c *FakeClock) Drive(ctx context.Context) {
	for {
		c.mu.Lock()
		added := c.added
		var next time.Time
		for _, tm := range c.timers {
			if next.IsZero() || tm.at.Before(next) {
				next = tm.at
			}
		}
		c.mu.Unlock()
		if !next.IsZero() {
			c.AdvanceTo(next)
			continue
		}
		select {
		case <-ctx.Done():
			return
		case <-added:
		}
	}
}
