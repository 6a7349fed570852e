package bot

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/questbot/questbot/bot/testkit/wait"
)

// syncBuffer is a log sink the test reads while the scheduler writes to it.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Ensure a job that panics is recovered, logged and run again at its next time, and never stops
// the other jobs; a failing job is logged and run again too; Run returns once the jobs have
// stopped.
func TestSchedulerRecovers(t *testing.T) {
	t.Parallel()
	logs := &syncBuffer{}
	s := NewScheduler(slog.New(slog.NewTextHandler(logs, nil)))
	var panics, fails, good atomic.Int32
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(s.Add("panics", "@every 1s", func(context.Context) error {
		panics.Add(1)
		panic("a bug in the job")
	}))
	must(s.Add("fails", "@every 1s", func(context.Context) error {
		fails.Add(1)
		return errors.New("the database is away")
	}))
	must(s.Add("good", "@every 1s", func(context.Context) error { good.Add(1); return nil }))
	if err := s.Add("bad spec", "every second", func(context.Context) error { return nil }); err == nil {
		t.Error("a bad spec was accepted")
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { s.Run(ctx); close(done) }()
	wait.ForShowing(t, wait.Hang, "two runs of each job", func() bool {
		return panics.Load() >= 2 && fails.Load() >= 2 && good.Load() >= 2
	}, func() string {
		return fmt.Sprintf("%d panics, %d failures, %d good runs", panics.Load(), fails.Load(), good.Load())
	})
	cancel()
	<-done
	if got := testutil.ToFloat64(s.runs.WithLabelValues("panics", "panic")); got < 2 {
		t.Errorf("%v panics counted", got)
	}
	if got := testutil.ToFloat64(s.runs.WithLabelValues("fails", "error")); got < 2 {
		t.Errorf("%v failures counted", got)
	}
	out := logs.String()
	if !strings.Contains(out, "Scheduler: panic") || !strings.Contains(out, "a bug in the job") {
		t.Errorf("the panic is not logged:\n%s", out)
	}
	if !strings.Contains(out, `job=fails`) || !strings.Contains(out, "the database is away") {
		t.Errorf("the failure is not logged:\n%s", out)
	}
}

// Ensure a wakeable job runs when woken, once more after the run under way when woken during
// it (however often), never twice at once, and not at all before Run or after the stop.
func TestSchedulerWake(t *testing.T) {
	t.Parallel()
	s := NewScheduler(nil)
	var runs, running, overlaps atomic.Int32
	gate := make(chan struct{})
	started := make(chan struct{}, 10)
	wake, err := s.AddWakeable("woken", "@every 1h", func(context.Context) error {
		if running.Add(1) > 1 {
			overlaps.Add(1)
		}
		defer running.Add(-1)
		runs.Add(1)
		started <- struct{}{}
		<-gate
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	wake() // before Run: nothing
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.Run(ctx)
	}()
	// Run has started once a wake is taken; until then wakes do nothing.
	wait.For(t, wait.Hang, "a wake to run the job", func() bool {
		wake()
		select {
		case <-started:
			return true
		case <-time.After(wait.Poll):
			return false
		}
	})
	// Woken three times during the run: one run after it.
	wake()
	wake()
	wake()
	gate <- struct{}{}
	<-started
	gate <- struct{}{}
	// Idle now: a new wake runs it again.
	wake()
	<-started
	gate <- struct{}{}
	cancel()
	<-done
	wake() // after the stop: nothing
	if got := runs.Load(); got != 3 {
		t.Errorf("%d runs, want 3", got)
	}
	if overlaps.Load() != 0 {
		t.Error("two runs overlapped")
	}
}
