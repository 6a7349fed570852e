package bot

import (
	"context"
	"time"
)

// Clock is the time the transport's policies run on: the rate limits, the waits a 429 asks for,
// the backoff of retries, how long a failing request may hold its chat, how old a button press
// may be to be answered, and the pauses of the long poll. Tests give the transport a clock they
// move by hand, so that these waits take no real time and never race it. Deadlines of I/O (a
// request that takes too long) are real time, whatever the clock.
type Clock interface {
	// Now returns the current time.
	Now() time.Time
	// AfterFunc calls f in its own goroutine once d has passed (at once for d <= 0), unless
	// stop is called first; stop reports whether it prevented the call.
	AfterFunc(d time.Duration, f func()) (stop func() bool)
}

// systemClock is the real time, the Clock a transport uses unless told otherwise.
type systemClock struct{}

func (systemClock) Now() time.Time { return time.Now() }

func (systemClock) AfterFunc(d time.Duration, f func()) func() bool {
	return time.AfterFunc(d, f).Stop
}

// sleep waits for d to pass on c, or for ctx to end; it returns ctx's error in that case.
func sleep(ctx context.Context, c Clock, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	done := make(chan struct{})
	stop := c.AfterFunc(d, func() { close(done) })
	select {
	case <-ctx.Done():
		stop()
		return ctx.Err()
	case <-done:
		return nil
	}
}
