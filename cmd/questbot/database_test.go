package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"

	"github.com/questbot/questbot/bot/testkit/bottest"
	"github.com/questbot/questbot/bot/testkit/wait"
	"github.com/questbot/questbot/migrations/pgcluster"
)

// Ensure serve run by root from a folder the postgres user cannot enter (as mktemp -d makes it)
// stops at once with an error that names that folder and says what to do. Run by another user,
// the server runs as that user and starts.
func TestServeUnreachableDataDir(t *testing.T) {
	t.Parallel()
	dir, err := os.MkdirTemp("", "qbdata")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	cfg := testConfig(t)
	cfg.DataDir = filepath.Join(dir, ".data")
	cfg.PGBin = os.Getenv("PG_BIN")
	if os.Geteuid() != 0 {
		waitHealthy(t, startServer(t, cfg), wait.Hang)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s := &Server{Config: cfg, Log: slog.New(slog.DiscardHandler)}
	err = s.Run(ctx)
	if !errors.Is(err, pgcluster.ErrUnreachable) {
		t.Fatalf("Run: got %v, want ErrUnreachable", err)
	}
	for _, want := range []string{"postgres may not enter " + dir + " ", "chmod o+x " + dir, "DATA_DIR"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error lacks %q:\n%v", want, err)
		}
	}
	if strings.Contains(err.Error(), "fork/exec") {
		t.Errorf("the error is the bare exec failure: %v", err)
	}
}

// embeddedDataDir makes a data folder for the embedded database that the postgres user can reach.
func embeddedDataDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "qbdata")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, "data")
}

// embeddedCluster is the cluster serve runs for cfg, to look at and to kill; the test's cleanup
// stops a server left running.
func embeddedCluster(t *testing.T, cfg Config) *pgcluster.Cluster {
	t.Helper()
	c, err := pgcluster.New(pgcluster.Options{Bin: cfg.PGBin, Root: filepath.Join(cfg.DataDir, "postgres")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if c.Alive() {
			c.Stop(context.Background(), true)
		}
	})
	return c
}

// kill ends the cluster's server process as a crash or the OOM killer would.
func kill(t *testing.T, c *pgcluster.Cluster) {
	t.Helper()
	pid, err := c.PID()
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
}

// greet has user id say /start and waits for the n-th greeting of the bot.
func greet(t *testing.T, r *running, id int64, n int) {
	t.Helper()
	b := r.srv.emuBot
	if _, err := b.SendText(id, "/start"); err != nil {
		t.Fatal(err)
	}
	wait.For(t, wait.Hang, fmt.Sprintf("greeting %d", n), func() bool {
		got := 0
		for _, m := range b.Messages(id) {
			if m.FromBot && strings.Contains(m.Text, "Hello") {
				got++
			}
		}
		return got >= n
	})
}

// Ensure serve starts the embedded PostgreSQL again when it dies, and the bot answers again;
// and that when the server cannot be started again, serve stops with ErrEmbeddedLost (so the
// process exits non-zero, for a supervisor to act).
func TestEmbeddedRestart(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t)
	cfg.DataDir = embeddedDataDir(t)
	cfg.PGBin = os.Getenv("PG_BIN")
	c := embeddedCluster(t, cfg)
	r := startServerWith(t, &Server{Config: cfg,
		watch: &watchOptions{Poll: 20 * time.Millisecond, Backoff: 50 * time.Millisecond, MaxBackoff: time.Second, Attempts: 8}})
	waitHealthy(t, r, wait.Hang)
	<-r.srv.started
	r.srv.emuBot.AddUser(tgbotapi.User{ID: 5, FirstName: "Ann", LanguageCode: "en"})
	greet(t, r, 5, 1)

	kill(t, c)
	wait.For(t, wait.Hang, "the restart", func() bool {
		return strings.Contains(r.logs.String(), "Embedded PostgreSQL restarted")
	})
	waitHealthy(t, r, wait.Hang)
	greet(t, r, 5, 2)
	if n := strings.Count(r.logs.String(), "The embedded PostgreSQL stopped"); n != 1 {
		t.Errorf("the death was logged %d times, want once:\n%s", n, r.logs)
	}

	// A server that cannot start (its data directory broken) is given up.
	before := len(r.logs.String())
	version := filepath.Join(c.DataDir(), "PG_VERSION")
	if err := os.Rename(version, version+".moved"); err != nil {
		t.Fatal(err)
	}
	kill(t, c)
	select {
	case err := <-r.done:
		r.done <- err // for the cleanup
		if !errors.Is(err, ErrEmbeddedLost) {
			t.Fatalf("Run: got %v, want ErrEmbeddedLost", err)
		}
		if !strings.Contains(err.Error(), "8 attempts") || !strings.Contains(err.Error(), "server.log") {
			t.Errorf("the error does not say what was tried and where to look: %v", err)
		}
	case <-time.After(2 * time.Minute):
		t.Fatalf("serve did not give up:\n%s", r.logs)
	}
	if n := strings.Count(r.logs.String()[before:], "Unable to restart the embedded PostgreSQL"); n != 7 {
		t.Errorf("%d failed attempts logged before giving up, want 7:\n%s", n, r.logs.String()[before:])
	}
}

// Ensure SIGHUP (the terminal closing) stops questbot cleanly, with its embedded PostgreSQL,
// as SIGINT and SIGTERM do.
func TestSIGHUPStopsEmbedded(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t)
	cfg.DataDir = embeddedDataDir(t)
	cfg.PGBin = os.Getenv("PG_BIN")
	c := embeddedCluster(t, cfg)

	cmd := exec.Command(os.Args[0])
	cmd.Env = []string{asQuestbotEnv + "=serve", "DATA_DIR=" + cfg.DataDir, "HTTP_ADDR=127.0.0.1:0",
		"LOG_FORMAT=json", "PG_BIN=" + cfg.PGBin, "PATH=" + os.Getenv("PATH"), "TMPDIR=" + os.TempDir()}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	// The log, line by line: the HTTP address first, then everything for the failure message.
	addrc := make(chan string, 1)
	logs := &bottest.LogBuffer{}
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			fmt.Fprintln(logs, sc.Text())
			var line struct{ Msg, Addr string }
			if json.Unmarshal(sc.Bytes(), &line) == nil && line.Msg == "HTTP listening" {
				addrc <- line.Addr
			}
		}
	}()
	var addr string
	select {
	case addr = <-addrc:
	case <-time.After(wait.Hang):
		t.Fatalf("questbot did not listen:\n%s", logs)
	}
	waitHealthy(t, &running{addr: addr, logs: logs, done: make(chan error)}, wait.Hang)
	if !c.Alive() {
		t.Fatal("the embedded PostgreSQL is not running")
	}

	if err := cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	select {
	case err := <-waited:
		if err != nil {
			t.Fatalf("questbot after SIGHUP: %v, want exit status 0\n%s", err, logs)
		}
	case <-time.After(time.Minute):
		t.Fatalf("questbot did not stop on SIGHUP:\n%s", logs)
	}
	if c.Alive() {
		t.Fatalf("PostgreSQL still running after SIGHUP:\n%s", logs)
	}
	if !strings.Contains(logs.String(), "Embedded PostgreSQL stopped") {
		t.Errorf("the log does not say the database was stopped:\n%s", logs)
	}
}

// Ensure the watchdog of the embedded PostgreSQL takes a check it cannot make for want of file
// descriptors (EMFILE) for what it is: a warning, with neither a restart nor a death; and that
// the bot answers again once descriptors are free. Not parallel: it takes every descriptor of
// the test process for a moment.
func TestEmbeddedWatchdogOutOfFiles(t *testing.T) {
	cfg := testConfig(t)
	cfg.DataDir = embeddedDataDir(t)
	cfg.PGBin = os.Getenv("PG_BIN")
	c := embeddedCluster(t, cfg)
	r := startServerWith(t, &Server{Config: cfg,
		watch: &watchOptions{Poll: 20 * time.Millisecond, Backoff: 50 * time.Millisecond, MaxBackoff: time.Second, Attempts: 2}})
	waitHealthy(t, r, wait.Hang)
	<-r.srv.started
	r.srv.emuBot.AddUser(tgbotapi.User{ID: 5, FirstName: "Ann", LanguageCode: "en"})
	greet(t, r, 5, 1)
	pid, err := c.PID()
	if err != nil {
		t.Fatal(err)
	}

	// Every descriptor taken, until the watchdog has looked at least once.
	var files []*os.File
	release := func() {
		for _, f := range files {
			f.Close()
		}
		files = nil
	}
	defer release()
	for {
		f, err := os.Open(os.DevNull)
		if errors.Is(err, syscall.EMFILE) {
			break
		}
		if err != nil {
			release()
			t.Fatal(err)
		}
		files = append(files, f)
	}
	const warned, restarting = "Unable to tell whether the embedded PostgreSQL runs", "The embedded PostgreSQL stopped"
	deadline := time.Now().Add(time.Minute) // bounds a hang only
	for !strings.Contains(r.logs.String(), warned) && !strings.Contains(r.logs.String(), restarting) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	n := len(files)
	release()
	t.Logf("%d descriptors taken", n)
	if !strings.Contains(r.logs.String(), warned) {
		t.Errorf("the watchdog gave no warning of the check it could not make:\n%s", r.logs)
	}
	if strings.Contains(r.logs.String(), restarting) {
		t.Errorf("the watchdog took the running server for a dead one:\n%s", r.logs)
	}
	if now, err := c.PID(); err != nil || now != pid {
		t.Errorf("the server's process is now %d (%v), was %d", now, err, pid)
	}
	select {
	case err := <-r.done:
		r.done <- err
		t.Fatalf("serve stopped: %v", err)
	default:
	}
	waitHealthy(t, r, wait.Hang)
	greet(t, r, 5, 2)
}
