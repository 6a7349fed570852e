package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/questbot/questbot/bot/loadtest"
	"github.com/questbot/questbot/migrations/pgcluster"
)

// runLoadtest is the `loadtest` command: it drives simulated users through the real transport
// and the Bot API emulator and prints throughput and latency. The database is DATABASE_URL, or a
// throwaway PostgreSQL cluster with fsync on, as in production.
func runLoadtest(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("loadtest", flag.ContinueOnError)
	fs.SetOutput(stderr)
	users := fs.Int("users", 40, "simulated users writing at once")
	duration := fs.Duration("duration", 10*time.Second, "how long to measure")
	workers := fs.Int("workers", 0, "chats handled at once (0: the transport's default)")
	senders := fs.Int("senders", 0, "chats sent to at once (0: the transport's default)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	cfg, err := ConfigFromEnv(os.Getenv)
	if err != nil {
		fmt.Fprintf(stderr, "questbot: %v\n", err)
		return 2
	}
	url := cfg.DatabaseURL
	var dbCPU func() time.Duration
	if url == "" {
		c, dataDir, cleanup, err := throwawayCluster(ctx, cfg.PGBin)
		if err != nil {
			fmt.Fprintf(stderr, "questbot loadtest: %v\n", err)
			return 1
		}
		defer cleanup()
		url = c
		dbCPU = func() time.Duration { return serverCPU(dataDir) }
	}
	pool, err := openDatabase(ctx, url)
	if err != nil {
		fmt.Fprintf(stderr, "questbot loadtest: %v\n", err)
		return 1
	}
	defer pool.Close()
	fmt.Fprintf(stdout, "load test: %d users for %v...\n", *users, *duration)
	rep, err := loadtest.Run(ctx, loadtest.Options{Pool: pool, Users: *users, Duration: *duration, Workers: *workers, Senders: *senders, DBCPU: dbCPU})
	if err != nil {
		fmt.Fprintf(stderr, "questbot loadtest: %v\n", err)
		return 1
	}
	fmt.Fprintln(stdout, rep)
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
