// Package wait lets a test wait for the event it expects rather than for time to pass: For
// looks at a condition until it holds, and fails the test, naming what it waited for, when the
// time allowed runs out first.
//
// It imports nothing of the project, so that the tests of every package can use it, those of
// package bot and of the Bot API emulator included (bot/testkit/bottest imports both).
package wait

import (
	"testing"
	"time"
)

// Hang is the limit a test gives a wait for something that is bound to happen: it only bounds
// a hang, so that a stuck test fails naming what it waited for. It is minutes, not seconds, since
// on a loaded machine (a load of many times the cores) a step that takes milliseconds when idle
// can take tens of seconds; a test that must see something happen within a time checks that on
// a clock it controls, never with this limit.
const Hang = 5 * time.Minute

// Poll is how often For looks at its condition again.
const Poll = 10 * time.Millisecond

// grace is how long before the test binary's own deadline (go test -timeout) a wait gives up,
// so that the test fails naming what it waited for, and its cleanups run, instead of the binary
// panicking at the deadline.
const grace = 5 * time.Second

// For waits until cond holds: it looks at once, then every Poll. When limit passes first (or
// the test binary's deadline comes near), it fails t with "timed out waiting for" what. cond
// runs on the caller's goroutine, so it may fail t itself.
func For(t testing.TB, limit time.Duration, what string, cond func() bool) {
	t.Helper()
	ForShowing(t, limit, what, cond, nil)
}

// ForShowing is For whose failure also shows what show returns at that moment, such as the
// logs, or the state the test saw instead of the one it waited for. show may be nil.
func ForShowing(t testing.TB, limit time.Duration, what string, cond func() bool, show func() string) {
	t.Helper()
	end := time.Now().Add(limit)
	if d, ok := t.(interface{ Deadline() (time.Time, bool) }); ok {
		if at, ok := d.Deadline(); ok && at.Add(-grace).Before(end) {
			end = at.Add(-grace)
		}
	}
	for !cond() {
		if time.Now().After(end) {
			if show == nil {
				t.Fatalf("timed out waiting for %s", what)
			}
			t.Fatalf("timed out waiting for %s\n%s", what, show())
		}
		time.Sleep(Poll)
	}
}
