package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/pprof"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/questbot/questbot/bot/testkit/loadtest"
	"github.com/questbot/questbot/migrations/pgcluster"
)

// runLoadtest is the `loadtest` command: it drives simulated users through the real transport
// and the Bot API emulator and prints throughput and latency, duplicates and order violations.
// The database is DATABASE_URL, or a throwaway PostgreSQL cluster with fsync on, as in
// production. With -processes N the bot runs in N processes of this binary (loadtest -bot) on
// that database, all serving the emulator this process runs.
func runLoadtest(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("loadtest", flag.ContinueOnError)
	users := fs.Int("users", 40, "simulated users writing at once")
	duration := fs.Duration("duration", 10*time.Second, "how long to measure")
	workers := fs.Int("workers", 0, "chats handled at once, per process (0: the transport's default)")
	senders := fs.Int("senders", 0, "chats sent to at once, per process (0: the transport's default)")
	processes := fs.Int("processes", 0, "bot processes on the one database (0: the transport runs in this process)")
	child := fs.Bool("bot", false, "run one bot process of -processes (started by loadtest itself): "+
		"the emulator at -api, the token in "+loadtestTokenEnv)
	api := fs.String("api", "", "the emulator's address, with -bot")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of this process over the run to this file (go tool pprof reads it)")
	anchor := fs.Bool("anchor", true, "then run pgbench -N on the same throwaway cluster for as long, and print the "+
		"bot's rate as a share of it (not with DATABASE_URL)")
	help := func(w io.Writer) {
		fmt.Fprintln(w, "usage: questbot loadtest [-users N] [-duration D] [-processes N] [-workers N] [-senders N] [-anchor=false] [-cpuprofile FILE]")
		fmt.Fprintln(w, "Drives simulated users through the real transport and the Bot API emulator, and prints the")
		fmt.Fprintln(w, "updates per second, the latency from an update to its reply, and the CPU time per update. The")
		fmt.Fprintln(w, "database is DATABASE_URL, or a throwaway PostgreSQL cluster with fsync on; on the latter, pgbench -N")
		fmt.Fprintln(w, "then runs as long on the same cluster, so that the bot's rate is read against the database's own.")
	}
	operands, code, ok := parseOperands(fs, args, help, stdout, stderr)
	if !ok {
		return code
	}
	switch {
	case len(operands) > 0:
		return usageError(stderr, "loadtest", "unexpected argument %q", operands[0])
	case *child:
	case *users < 1:
		fmt.Fprintf(stderr, "questbot loadtest: -users must be 1 or more, not %d\n", *users)
		return 2
	case *duration <= 0:
		fmt.Fprintf(stderr, "questbot loadtest: -duration must be longer than 0, not %v\n", *duration)
		return 2
	case *processes < 0:
		fmt.Fprintf(stderr, "questbot loadtest: -processes must be 0 or more, not %d\n", *processes)
		return 2
	}
	if *workers < 0 || *senders < 0 {
		fmt.Fprintln(stderr, "questbot loadtest: -workers and -senders must be 0 (the default) or more")
		return 2
	}
	cfg, err := ConfigFromEnv(os.Getenv)
	if err != nil {
		fmt.Fprintf(stderr, "questbot: %v\n", err)
		return 2
	}
	if *child {
		return runLoadtestBot(ctx, cfg, *api, *workers, *senders, stdout, stderr)
	}
	url := cfg.DatabaseURL
	var dbCPU func() time.Duration
	var clusterConn string // the throwaway cluster's connection string, for the anchor
	if url == "" {
		c, dataDir, cleanup, err := throwawayCluster(ctx, cfg.PGBin)
		if err != nil {
			fmt.Fprintf(stderr, "questbot loadtest: %v\n", err)
			return 1
		}
		defer cleanup()
		url, clusterConn = c, c
		dbCPU = func() time.Duration { return serverCPU(dataDir) }
	}
	// The pool's statements are counted: with the transport in this process, they are its own.
	stmts := &loadtest.Statements{}
	pool, err := openPools(ctx, url, cfg.DatabaseSessionURL, cfg.DBPoolMax, func(c *pgxpool.Config) { c.ConnConfig.Tracer = stmts })
	if err != nil {
		fmt.Fprintf(stderr, "questbot loadtest: %v\n", err)
		return 1
	}
	defer pool.Close()
	opts := loadtest.Options{Pool: pool, Users: *users, Duration: *duration, Workers: *workers, Senders: *senders, DBCPU: dbCPU,
		Processes: *processes, Logs: stderr}
	if *processes == 0 {
		opts.Statements = stmts
	}
	if *processes > 0 {
		self, err := os.Executable()
		if err != nil {
			fmt.Fprintf(stderr, "questbot loadtest: %v\n", err)
			return 1
		}
		opts.Command = func(i int, apiURL, token string) *exec.Cmd {
			return loadtestBotCommand(self, nil, url, apiURL, token, *workers, *senders)
		}
	}
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintf(stderr, "questbot loadtest: cpu profile: %v\n", err)
			return 1
		}
		defer f.Close()
		defer pprof.StopCPUProfile()
	}
	fmt.Fprintf(stdout, "load test: %d users for %v...\n", *users, *duration)
	rep, err := loadtest.Run(ctx, opts)
	if *cpuProfile != "" {
		// The profile covers the load alone, not the anchor after it.
		pprof.StopCPUProfile()
	}
	if err != nil {
		fmt.Fprintf(stderr, "questbot loadtest: %v\n", err)
		return 1
	}
	fmt.Fprintln(stdout, rep)
	if *anchor && clusterConn != "" {
		fmt.Fprintf(stdout, "anchor: pgbench -N, %d clients, for %v on the same cluster...\n", anchorClients, *duration)
		tps, err := pgbenchAnchor(ctx, cfg.PGBin, clusterConn, *duration)
		if err != nil {
			fmt.Fprintf(stderr, "questbot loadtest: anchor: %v\n", err)
			return 1
		}
		fmt.Fprintf(stdout, "pgbench -N: %.0f TPS; the bot's %.0f updates/s are %.0f%% of it\n", tps, rep.PerSec, 100*rep.PerSec/tps)
	}
	return 0
}

// loadtestTokenEnv carries the emulated bot's token to a bot process of the load test (not on
// its command line, which other users of the machine can read).
const loadtestTokenEnv = "QUESTBOT_LOADTEST_TOKEN"

// loadtestBotCommand is the command of a bot process of the load test: bin (with args before
// loadtest's own, when bin is a test binary run as questbot) with the database at dbURL, the
// emulator at apiURL and its token. Its log lines, warnings and errors only, go to its
// standard error.
func loadtestBotCommand(bin string, env []string, dbURL, apiURL, token string, workers, senders int) *exec.Cmd {
	args := []string{"loadtest", "-bot", "-api", apiURL, "-workers", strconv.Itoa(workers), "-senders", strconv.Itoa(senders)}
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "DATABASE_URL="+dbURL, loadtestTokenEnv+"="+token, "LOG_LEVEL=warn")
	cmd.Env = append(cmd.Env, env...)
	return cmd
}

// runLoadtestBot is `loadtest -bot`: one bot process of a load test, until a shutdown signal.
func runLoadtestBot(ctx context.Context, cfg Config, api string, workers, senders int, stdout, stderr io.Writer) int {
	token := os.Getenv(loadtestTokenEnv)
	if cfg.DatabaseURL == "" || api == "" || token == "" {
		fmt.Fprintf(stderr, "questbot loadtest -bot: DATABASE_URL, -api and %s are needed\n", loadtestTokenEnv)
		return 2
	}
	log := NewLogger(cfg, stderr)
	pool, err := openPools(ctx, cfg.DatabaseURL, cfg.DatabaseSessionURL, cfg.DBPoolMax)
	if err != nil {
		log.Error("Load test bot: no database", slog.Any("error", err))
		return 1
	}
	defer pool.Close()
	err = loadtest.BotProcess(ctx, loadtest.BotOptions{Pool: pool, APIURL: api, Token: token, Workers: workers, Senders: senders,
		PollLease: cfg.PollLease, Log: log, Ready: func() { fmt.Fprintln(stdout, loadtest.ReadyLine) }})
	if err != nil && ctx.Err() == nil {
		log.Error("Load test bot stopped", slog.Any("error", err))
		return 1
	}
	return 0
}

// serverCPU is the CPU time used so far by the PostgreSQL server of a data folder: its
// postmaster and the postmaster's children, from /proc.
func serverCPU(dataDir string) time.Duration {
	pidFile, err := os.ReadFile(filepath.Join(dataDir, "postmaster.pid"))
	if err != nil {
		return 0
	}
	master, _ := strconv.Atoi(strings.TrimSpace(strings.SplitN(string(pidFile), "\n", 2)[0]))
	procs, _ := filepath.Glob("/proc/[0-9]*/stat")
	var ticks int64
	for _, p := range procs {
		raw, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		// Fields after the command name (which is in parentheses): state, ppid, ..., utime
		// (field 14), stime (15).
		i := strings.LastIndexByte(string(raw), ')')
		f := strings.Fields(string(raw[i+1:]))
		if len(f) < 13 {
			continue
		}
		pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(p)))
		ppid, _ := strconv.Atoi(f[1])
		if pid != master && ppid != master {
			continue
		}
		u, _ := strconv.ParseInt(f[11], 10, 64)
		s, _ := strconv.ParseInt(f[12], 10, 64)
		ticks += u + s
	}
	return time.Duration(ticks) * time.Second / 100 // USER_HZ
}

// throwawayCluster starts a durable PostgreSQL cluster (fsync on) in a temporary folder and
// returns its connection string, its data folder and a function that stops and removes it.
func throwawayCluster(ctx context.Context, bin string) (string, string, func(), error) {
	root, err := os.MkdirTemp("", "qbload")
	if err != nil {
		return "", "", nil, err
	}
	// The server may run as the postgres user, which must reach the folder.
	if err := os.Chmod(root, 0o755); err != nil {
		os.RemoveAll(root)
		return "", "", nil, err
	}
	c, err := pgcluster.New(pgcluster.Options{Bin: bin, Root: root, Durable: true})
	if err == nil {
		err = c.Init(ctx)
	}
	if err == nil {
		err = c.Start(ctx)
	}
	cleanup := func() {
		stopCtx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if c != nil {
			c.Stop(stopCtx, true)
		}
		os.RemoveAll(root)
	}
	if err != nil {
		cleanup()
		return "", "", nil, err
	}
	if err := ensureDatabase(ctx, c.ConnString("postgres"), embeddedDB); err != nil {
		cleanup()
		return "", "", nil, err
	}
	return c.ConnString(embeddedDB), c.DataDir(), cleanup, nil
}
