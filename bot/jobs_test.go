package bot

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
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
	deadline := time.Now().Add(30 * time.Second)
	for panics.Load() < 2 || fails.Load() < 2 || good.Load() < 2 {
		if time.Now().After(deadline) {
			t.Fatalf("after 30 s: %d panics, %d failures, %d good runs", panics.Load(), fails.Load(), good.Load())
		}
		time.Sleep(20 * time.Millisecond)
	}
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
