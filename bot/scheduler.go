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
// Scheduler, on robfig/cron: the deadlines of multiplayer sessions, the steps of broadcasts, the
// sweeps and clean-ups, and (as they come) the clocks of board games and the notifications of
// pending moves. Each job is wrapped with cron.Recover and cron.SkipIfStillRunning: a job that
// panics is logged and runs again at its next time, never taking the process down, and a job
// still running when its next time comes is skipped rather than run twice at once.
//
// Jobs find their work in the database and claim it there (FOR UPDATE SKIP LOCKED on the rows
// they settle), so that several processes on one database, each running every job, never settle
// the same row twice. A job that sends messages does so through Transport.Do, which writes them
// to the outbox in the job's transaction and wakes the sender.
//
// The jobs bot/app schedules, and what makes each fire once however many processes run it:
//
//   - quest-sessions (bot/questplay): each due session is settled in a transaction that locks it
//     with SKIP LOCKED and checks its deadline again; the purge of ended sessions is a DELETE.
//   - broadcasts (bot/relay): each step locks its broadcast with SKIP LOCKED and moves the
//     cursor past the users it queued in the same transaction; relay-cleanup only deletes.
//   - board-deadlines, board-reminders, board-notify, board-cleanup (bot/boards): found by a
//     claim that is rolled back, then settled one board at a time with the board locked and the
//     rule checked again (sessions.Board.Expire, Remind, the notification row deleted in the
//     transaction that queues its message), so a second run finds nothing left to do.
//   - board-ai (bot/boards): a turn is claimed with a lease at the board's revision, and the
//     move is played only if the revision is still the one claimed. It is also woken at once
//     (AddWakeable) by the commit that makes it the bot's turn: in the process after the commit,
//     in the others by a notification (boards.AIChannel); its schedule is the fallback.
//   - web-undelivered (bot/boards/web): the credentials whose message failed for good are taken
//     from the transport's record with SKIP LOCKED and deleted in the transaction that revokes
//     them and queues the notice to their issuer.
//   - upload-sweep (bot/devtools): removes files no row names, older than an hour; two sweeps
//     removing one file is harmless. inbox-cleanup (Cleanup) only deletes old records;
//     outbox-metrics only reads.
//
// The downloads of uploaded files (devtools.Tools.RunFetches) claim each file with a lease, so
// one process downloads it. Files live in UPLOADS_DIR, which several processes must share (one
// machine, or a shared file system): a quest uploaded through one process is played through
// another.

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
