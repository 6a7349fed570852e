// Package loadtest drives simulated users through the Telegram transport and measures it: the
// real transport (bot) on a real database, talking over loopback HTTP to the Bot API emulator
// (bot/emulator/tgemu) with Telegram's rate limits switched off on both sides, in this process or in
// several bot processes on one database (fleet.go).
//
// Each simulated user writes a message, waits for the bot's reply (its echo), and writes
// again, for the length of the run. The report gives the updates handled a second, the latency
// from the moment an update is available to the bot to the moment its reply reaches the
// emulator, and what the chats show at the end: replies sent twice, and replies out of order.
package loadtest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os/exec"
	"slices"
	"strconv"
	"sync"
	"syscall"
	"time"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/questbot/questbot/bot/emulator/tgemu"
)

// Options configure a run.
type Options struct {
	// Pool is the database; it must be migrated.
	Pool *pgxpool.Pool
	// Users is how many simulated users write at once.
	Users int
	// Duration is how long users keep writing (after a short warm-up).
	Duration time.Duration
	// Warmup runs before measuring; one second unless set.
	Warmup time.Duration
	// Workers and Senders size the transport (bot.Config); the defaults unless set.
	Workers, Senders int
	// Log receives the transport's log lines; nil discards them.
	Log *slog.Logger
	// DBCPU, when set, returns the CPU time the database server has used so far, so that the
	// report can give the database's CPU cost per update.
	DBCPU func() time.Duration
	// Processes, when above 0, runs the bot in that many processes (see fleet.go) rather than
	// in this one; Command makes the command of the i-th, which reaches the emulator at apiURL
	// with token, and Logs receives their standard error (nil: discarded).
	Processes int
	Command   func(i int, apiURL, token string) *exec.Cmd
	Logs      io.Writer
	// Statements, when set, is the tracer of Pool's connections (with Processes 0, the
	// transport's): the report then gives the statements and round trips per update.
	Statements *Statements
}

// Report is the result of a run.
type Report struct {
	Users int
	// Processes is how many bot processes ran (0: the transport ran in this process).
	Processes int
	Updates   int           // updates answered in the measured window
	Duration  time.Duration // the measured window
	PerSec    float64
	P50, P99  time.Duration
	Max       time.Duration
	Timeouts  int // updates whose reply did not come within 10 s
	// Duplicates counts the replies sent more than once, OrderViolations the replies that came
	// after the reply to a later message of their chat: both are 0 unless something is wrong.
	Duplicates, OrderViolations int
	// CPU time per update in the measured window: this process (with Processes 0 the
	// transport, emulator and simulated users together, else the emulator and the users), the
	// bot processes together, and the database server (0 when unknown). On a machine shared
	// with other work they tell what the run would do alone: 1 s of CPU per core per second.
	ProcessCPU, BotCPU, DBCPU time.Duration
	// What the database was asked per update in the measured window: the bytes of write-ahead
	// log it wrote (by every process, with whatever else the server did), and, when
	// Options.Statements is set, the statements and round trips of this process's pool (0 when
	// unknown).
	WALBytes, Statements, RoundTrips float64
}

// String formats the report for people.
func (r Report) String() string {
	s := fmt.Sprintf("%d users, %d updates in %v: %.0f updates/s; update to delivered reply: p50 %v, p99 %v, max %v; %d timeouts",
		r.Users, r.Updates, r.Duration.Round(time.Millisecond), r.PerSec,
		r.P50.Round(10*time.Microsecond), r.P99.Round(10*time.Microsecond), r.Max.Round(10*time.Microsecond), r.Timeouts)
	s += fmt.Sprintf("\n%d duplicates, %d order violations", r.Duplicates, r.OrderViolations)
	switch {
	case r.Processes == 1:
		s += " (1 bot process)"
	case r.Processes > 1:
		s += fmt.Sprintf(" (%d bot processes)", r.Processes)
	}
	s += fmt.Sprintf("\nCPU per update: this process %v", r.ProcessCPU.Round(time.Microsecond))
	if r.Processes > 0 {
		s += fmt.Sprintf(", bot processes %v", r.BotCPU.Round(time.Microsecond))
	}
	if r.DBCPU > 0 {
		s += fmt.Sprintf(", PostgreSQL %v", r.DBCPU.Round(time.Microsecond))
	}
	s += fmt.Sprintf("\nper update: %.0f bytes of WAL", r.WALBytes)
	if r.Statements > 0 {
		s += fmt.Sprintf(", %.2f statements in %.2f round trips", r.Statements, r.RoundTrips)
	}
	return s
}

// processCPU is the CPU time this process has used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// Run runs the load test.
func Run(ctx context.Context, opts Options) (Report, error) {
	if opts.Users <= 0 || opts.Duration <= 0 || opts.Pool == nil {
		return Report{}, errors.New("loadtest: users, duration and a database are needed")
	}
	if opts.Warmup <= 0 {
		opts.Warmup = time.Second
	}
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	if opts.Processes > 0 && opts.Command == nil {
		return Report{}, errors.New("loadtest: processes need a command to start them")
	}
	fleet, err := NewFleet("load_bot")
	if err != nil {
		return Report{}, err
	}
	defer fleet.Close()
	emuBot := fleet.Bot

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var botCPU func() time.Duration
	if opts.Processes > 0 {
		for i := range opts.Processes {
			if _, err := fleet.Start(ctx, opts.Command(i, fleet.URL, emuBot.Token()), opts.Logs); err != nil {
				return Report{}, err
			}
		}
		botCPU = func() time.Duration {
			var sum time.Duration
			for _, p := range fleet.Procs() {
				sum += p.cpu()
			}
			return sum
		}
	} else {
		ready := make(chan struct{})
		trDone := make(chan error, 1)
		go func() {
			trDone <- BotProcess(ctx, BotOptions{Pool: opts.Pool, APIURL: fleet.URL, Token: emuBot.Token(),
				Workers: opts.Workers, Senders: opts.Senders, Log: opts.Log, Ready: func() { close(ready) }})
		}()
		select {
		case <-ready:
		case err := <-trDone:
			return Report{}, err
		}
		defer func() { cancel(); <-trDone }()
	}

	start := time.Now()
	measureFrom := start.Add(opts.Warmup)
	stopAt := measureFrom.Add(opts.Duration)
	var mu sync.Mutex
	var lat []time.Duration
	timeouts := 0
	// The counters are read when the measured window opens and closes.
	var cpuMu sync.Mutex
	var at0, at1 counters
	read := func(at *counters) func() {
		return func() {
			cpuMu.Lock()
			defer cpuMu.Unlock()
			at.cpu = processCPU()
			if opts.DBCPU != nil {
				at.db = opts.DBCPU()
			}
			if botCPU != nil {
				at.bots = botCPU()
			}
			at.statements, at.trips = opts.Statements.read()
			at.wal = walPosition(ctx, opts.Pool)
		}
	}
	markStart := time.AfterFunc(time.Until(measureFrom), read(&at0))
	defer markStart.Stop()
	markEnd := time.AfterFunc(time.Until(stopAt), read(&at1))
	defer markEnd.Stop()
	var wg sync.WaitGroup
	sent := map[int64]int{}
	for i := range opts.Users {
		id := int64(900_000_000 + i)
		emuBot.AddUser(tgbotapi.User{ID: id, FirstName: "Load" + strconv.Itoa(i), LanguageCode: "en"})
		wg.Go(func() {
			events, unsubscribe := emuBot.Subscribe(id)
			defer unsubscribe()
			var mine []time.Duration
			lost := 0
			n := 0
			for ; time.Now().Before(stopAt) && ctx.Err() == nil; n++ {
				at := time.Now()
				text := "message " + strconv.Itoa(n)
				if _, err := emuBot.SendText(id, text); err != nil {
					break
				}
				if !awaitReply(ctx, events, echoPrefix+text) {
					lost++
					continue
				}
				if at.After(measureFrom) && at.Before(stopAt) {
					mine = append(mine, time.Since(at))
				}
			}
			mu.Lock()
			lat = append(lat, mine...)
			timeouts += lost
			sent[id] = n
			mu.Unlock()
		})
	}
	wg.Wait()
	if len(lat) == 0 {
		return Report{}, errors.New("loadtest: no update was answered")
	}
	slices.Sort(lat)
	pct := func(p float64) time.Duration { return lat[min(len(lat)-1, int(float64(len(lat))*p))] }
	cpuMu.Lock()
	defer cpuMu.Unlock()
	per := func(d time.Duration) time.Duration { return max(d, 0) / time.Duration(len(lat)) }
	perCount := func(n int64) float64 { return float64(max(n, 0)) / float64(len(lat)) }
	tally := fleet.Tally(sent)
	return Report{
		ProcessCPU: per(at1.cpu - at0.cpu), DBCPU: per(at1.db - at0.db), BotCPU: per(at1.bots - at0.bots),
		WALBytes: perCount(at1.wal - at0.wal), Statements: perCount(at1.statements - at0.statements),
		RoundTrips: perCount(at1.trips - at0.trips),
		Processes:  opts.Processes, Duplicates: tally.Duplicates, OrderViolations: tally.OrderViolations,
		Users: opts.Users, Updates: len(lat), Duration: opts.Duration,
		PerSec: float64(len(lat)) / opts.Duration.Seconds(),
		P50:    pct(0.50), P99: pct(0.99), Max: lat[len(lat)-1], Timeouts: timeouts,
	}, nil
}

// counters are what the report reads when the measured window opens and closes.
type counters struct {
	cpu, db, bots          time.Duration
	statements, trips, wal int64
}

// walPosition returns the server's current write-ahead log position, in bytes (0 when it cannot
// tell).
func walPosition(ctx context.Context, pool *pgxpool.Pool) int64 {
	var n int64
	if pool.QueryRow(ctx, `SELECT (pg_current_wal_lsn() - '0/0')::bigint`).Scan(&n) != nil {
		return 0
	}
	return n
}

// awaitReply waits for the bot's message text in the chat.
func awaitReply(ctx context.Context, events <-chan tgemu.Event, text string) bool {
	timeout := time.NewTimer(10 * time.Second)
	defer timeout.Stop()
	for {
		select {
		case ev := <-events:
			if ev.Type == "message" && ev.Message != nil && ev.Message.FromBot && ev.Message.Text == text {
				return true
			}
		case <-timeout.C:
			return false
		case <-ctx.Done():
			return false
		}
	}
}
