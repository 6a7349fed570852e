package bot

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/robfig/cron/v3"
)

// # Scheduled work
//
// Everything the bot does on a clock rather than in answer to an update runs as a job of one
// Scheduler, on robfig/cron. Each job is wrapped with cron.Recover and cron.SkipIfStillRunning: a
// job that panics is logged and runs again at its next time, never taking the process down, and
// a job still running when its next time comes is skipped rather than run twice at once.
//
// Jobs find their work in the database and claim it there (FOR UPDATE SKIP LOCKED on the rows
// they settle), so that several processes on one database, each running every job, never settle
// the same row twice. A job that sends messages does so through Transport.Do, which writes them
// to the outbox in the job's transaction and wakes the sender.
//
// bot/app schedules the jobs: the doc of its Bot.Schedule lists them, with what makes each fire
// once however many processes run it. Each job's schedule is the spec its package sets beside
// the job's code (such as CleanupSpec here).

// Job is the work of a scheduled job. ctx is cancelled when the scheduler stops; an error is
// logged, and the job runs again at its next time.
type Job func(ctx context.Context) error

// Scheduler runs jobs at their times until it is stopped.
type Scheduler struct {
	c   *cron.Cron
	log *slog.Logger

	mu      sync.Mutex
	ctx     context.Context
	cancel  context.CancelFunc
	running bool
	wg      sync.WaitGroup // woken runs (AddWakeable)

	runs *prometheus.CounterVec
}

// NewScheduler returns a scheduler with no jobs. Times are in UTC.
func NewScheduler(log *slog.Logger) *Scheduler {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	cl := cronLogger{log: log}
	ctx, cancel := context.WithCancel(context.Background())
	// The wrappers' order matters: SkipIfStillRunning (v3.0.1) takes a token before the job and
	// puts it back after it, not in a defer, so a panic escaping to it would keep the job from
	// ever running again. Recover is therefore the inner wrapper: it stops the panic first.
	return &Scheduler{
		c: cron.New(cron.WithLocation(time.UTC), cron.WithLogger(cl),
			cron.WithChain(cron.SkipIfStillRunning(cl), cron.Recover(cl))),
		log: log, ctx: ctx, cancel: cancel,
		runs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "questbot_job_runs_total", Help: "Runs of scheduled jobs, by job and outcome (ok, error, panic).",
		}, []string{"job", "outcome"}),
	}
}

// Register registers the scheduler's metrics with r.
func (s *Scheduler) Register(r prometheus.Registerer) error { return r.Register(s.runs) }

// Add schedules a job under a name (for the log and the metrics) at spec, a cron spec such as
// "@every 1s" or "0 * * * *".
func (s *Scheduler) Add(name, spec string, job Job) error {
	_, err := s.c.AddFunc(spec, func() { s.run(name, job) })
	if err != nil {
		return fmt.Errorf("schedule %s at %q: %w", name, spec, err)
	}
	return nil
}

// run runs a job once, counting its outcome and logging its error.
func (s *Scheduler) run(name string, job Job) {
	outcome := "panic" // until the job returns
	defer func() { s.runs.WithLabelValues(name, outcome).Inc() }()
	err := job(s.ctx)
	switch {
	case err == nil:
		outcome = "ok"
	case s.ctx.Err() != nil && errors.Is(err, s.ctx.Err()):
		outcome = "ok" // stopped
	default:
		outcome = "error"
		s.log.Warn("Scheduled job failed", slog.String("job", name), slog.Any("error", err))
	}
}

// AddWakeable schedules a job like Add, and returns wake, which runs it now as well: at once
// when it is not running, else once more as soon as the run under way ends (the wakes that come
// during a run make one run after it). Scheduled and woken runs never overlap; the schedule stays
// the fallback for what no wake announces (work left by a process that stopped, or announced
// while no process listened). wake never blocks, and does nothing before Run or after the
// scheduler stopped. A panic of a woken run is logged, like a scheduled one's.
func (s *Scheduler) AddWakeable(name, spec string, job Job) (wake func(), err error) {
	w := &waker{s: s, name: name, job: job}
	if _, err := s.c.AddFunc(spec, w.wake); err != nil {
		return nil, fmt.Errorf("schedule %s at %q: %w", name, spec, err)
	}
	return w.wake, nil
}

// waker runs a wakeable job: one run at a time, and one more after it when woken meanwhile.
type waker struct {
	s    *Scheduler
	name string
	job  Job

	mu             sync.Mutex
	running, again bool
}

func (w *waker) wake() {
	w.s.mu.Lock()
	live := w.s.running && w.s.ctx.Err() == nil
	if live {
		w.s.wg.Add(1)
	}
	w.s.mu.Unlock()
	if !live {
		return
	}
	w.mu.Lock()
	if w.running {
		w.again = true
		w.mu.Unlock()
		w.s.wg.Done()
		return
	}
	w.running = true
	w.mu.Unlock()
	go func() {
		defer w.s.wg.Done()
		for {
			w.once()
			w.mu.Lock()
			if !w.again || w.s.ctx.Err() != nil {
				w.running, w.again = false, false
				w.mu.Unlock()
				return
			}
			w.again = false
			w.mu.Unlock()
		}
	}()
}

// once runs the job, stopping a panic as cron.Recover does for scheduled jobs.
func (w *waker) once() {
	defer func() {
		if r := recover(); r != nil {
			w.s.log.Error("Scheduler: panic", slog.String("job", w.name), slog.Any("panic", r),
				slog.String("stack", string(debug.Stack())))
		}
	}()
	w.s.run(w.name, w.job)
}

// Run runs the jobs until ctx is done, then stops them and waits for the ones running.
func (s *Scheduler) Run(ctx context.Context) {
	s.mu.Lock()
	if s.running {
		s.mu.Unlock()
		panic("bot: scheduler run twice")
	}
	s.running = true
	s.mu.Unlock()
	s.c.Start()
	<-ctx.Done()
	s.mu.Lock()
	s.cancel()
	s.mu.Unlock()
	<-s.c.Stop().Done()
	s.wg.Wait()
}

// cronLogger writes cron's log lines to slog: errors (a job's panic, with its stack) at error
// level, the scheduler's chatter at debug level.
type cronLogger struct{ log *slog.Logger }

func (l cronLogger) Info(msg string, kv ...any) {
	l.log.Debug("Scheduler: "+msg, kv...)
}

func (l cronLogger) Error(err error, msg string, kv ...any) {
	l.log.Error("Scheduler: "+msg, append(kv, slog.Any("error", err))...)
}

// Do runs fn in a transaction of its own, outside any update, as jobs do: fn's database work and
// the requests it gives tx.Send (for bot service) commit together, and the sender is woken for
// them. A service of 0 sends nothing: a Send then fails.
func (t *Transport) Do(ctx context.Context, service int, fn func(ctx context.Context, tx Tx) error) error {
	chats, err := t.cfg.Store.Run(ctx, service, fn)
	if err != nil {
		return err
	}
	for _, c := range chats {
		t.send.notify(c)
	}
	return nil
}

// ErrNoService is returned by the Send of a transaction that has no bot to send through.
var ErrNoService = errors.New("bot: requests without a bot to send them")
