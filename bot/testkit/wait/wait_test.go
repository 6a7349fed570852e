package wait

import (
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

// failing is a testing.TB that records its failure and ends the goroutine, as t.Fatal does.
type failing struct {
	testing.TB
	msg string
	// deadline is the test binary's, none when zero.
	deadline time.Time
}

func (f *failing) Helper() {}

func (f *failing) Deadline() (time.Time, bool) { return f.deadline, !f.deadline.IsZero() }

func (f *failing) Fatalf(format string, args ...any) {
	f.msg = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// run calls wait on a failing TB with the deadline in a goroutine of its own and returns the failure, "" if none.
func run(deadline time.Time, wait func(tb testing.TB)) string {
	f := &failing{deadline: deadline}
	done := make(chan struct{})
	go func() {
		defer close(done)
		wait(f)
	}()
	<-done
	return f.msg
}

// Ensure For returns once the condition holds, looking at it again until then.
func TestForHolds(t *testing.T) {
	t.Parallel()
	var looks atomic.Int32
	For(t, time.Minute, "the third look", func() bool { return looks.Add(1) == 3 })
	if n := looks.Load(); n != 3 {
		t.Errorf("%d looks, want 3", n)
	}
}

// Ensure For fails the test, naming what it waited for, when the condition never holds, and
// ForShowing adds what its show returns then.
func TestForTimesOut(t *testing.T) {
	t.Parallel()
	never := func() bool { return false }
	if got, want := run(time.Time{}, func(tb testing.TB) { For(tb, 30*time.Millisecond, "nothing", never) }), "timed out waiting for nothing"; got != want {
		t.Errorf("For failed with %q, want %q", got, want)
	}
	msg := run(time.Time{}, func(tb testing.TB) {
		ForShowing(tb, 30*time.Millisecond, "nothing", never, func() string { return "the logs" })
	})
	if want := "timed out waiting for nothing\nthe logs"; msg != want {
		t.Errorf("ForShowing failed with %q, want %q", msg, want)
	}
}

// Ensure a wait gives up before the test binary's deadline, however long its own limit.
func TestForBeforeDeadline(t *testing.T) {
	t.Parallel()
	start := time.Now()
	msg := run(start.Add(grace), func(tb testing.TB) { For(tb, time.Hour, "nothing", func() bool { return false }) })
	if msg != "timed out waiting for nothing" {
		t.Errorf("For failed with %q", msg)
	}
	if d := time.Since(start); d > time.Minute {
		t.Errorf("For gave up after %v, past the deadline", d)
	}
}
