package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/questbot/questbot/migrations"
	"github.com/questbot/questbot/migrations/pgcluster"
)

// embeddedDB is the name of the database created in the embedded cluster.
const embeddedDB = "questbot"

// ErrDataDirBusy means another questbot process already uses the data folder.
var ErrDataDirBusy = errors.New("data folder is in use")

// ErrEmbeddedLost means the embedded PostgreSQL stopped and could not be started again: serve
// gives up and exits non-zero, for a supervisor to restart it.
var ErrEmbeddedLost = errors.New("the embedded PostgreSQL stopped and could not be restarted")

// watchOptions say how serve watches the embedded PostgreSQL: it checks the server's process
// every Poll; when it is gone, it starts the server again, waiting Backoff after the first failed
// attempt, twice as long after each further one up to MaxBackoff, and gives up after Attempts
// failures in a row.
type watchOptions struct {
	Poll       time.Duration
	Backoff    time.Duration
	MaxBackoff time.Duration
	Attempts   int
}

// defaultWatch gives a dead server about a minute and a half (1+2+4+8+16+30+30 s) of attempts.
var defaultWatch = watchOptions{Poll: time.Second, Backoff: time.Second, MaxBackoff: 30 * time.Second, Attempts: 8}

// embedded is the private PostgreSQL cluster that serve runs when no DATABASE_URL is given. The
// data folder is locked for as long as it runs, so a second process cannot start a second server
// on the same files.
type embedded struct {
	cluster *pgcluster.Cluster
	lock    *os.File
	log     *slog.Logger
}

// lockDataDir creates the data folder if needed and locks it for this process. The lock is held
// until the returned file is closed, or the process ends however it ends.
func lockDataDir(dataDir string) (*os.File, error) {
	dir, err := filepath.Abs(dataDir)
	if err != nil {
		return nil, err
	}
	if err := makeDataDir(dir); err != nil {
		return nil, err
	}
	lock, err := os.OpenFile(filepath.Join(dir, "questbot.lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("data folder: %w", err)
	}
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		lock.Close()
		return nil, fmt.Errorf("%w: another questbot is running with DATA_DIR=%s; stop it first or set another DATA_DIR", ErrDataDirBusy, dir)
	}
	return lock, nil
}

// makeDataDir creates the data folder dir if it is missing, enterable by everybody (0755,
// whatever the umask): the postgres user, when the embedded server runs as that user, must be
// able to reach its files there, also on a later run after one that used DATA_DIR only for the
// emulator. A folder that exists is left as it is.
func makeDataDir(dir string) error {
	if _, err := os.Stat(dir); err == nil {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("data folder: %w", err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		return fmt.Errorf("data folder: %w", err)
	}
	return nil
}

// startEmbedded takes over the lock of the data folder, creates the cluster on the first run,
// starts it and makes sure the application database exists. It returns the connection string.
func startEmbedded(ctx context.Context, cfg Config, lock *os.File, log *slog.Logger) (*embedded, string, error) {
	e := &embedded{lock: lock, log: log}
	fail := func(err error) (*embedded, string, error) {
		e.close()
		return nil, "", err
	}
	dir, err := filepath.Abs(cfg.DataDir)
	if err != nil {
		return fail(err)
	}
	e.cluster, err = pgcluster.New(pgcluster.Options{Bin: cfg.PGBin, Root: filepath.Join(dir, "postgres"), Durable: true})
	if err != nil {
		return fail(err)
	}
	if !e.cluster.Initialized() {
		log.Info("Creating the embedded PostgreSQL cluster", slog.String("dir", e.cluster.DataDir()))
		if err := e.cluster.Init(ctx); err != nil {
			return fail(dataDirAdvice(err))
		}
	}
	// We hold the lock, so a server still running on these files was left by a process that was
	// killed: stop it and start afresh with the current settings.
	if e.cluster.Running(ctx) {
		log.Warn("Stopping a PostgreSQL server left running by an earlier run")
		if err := e.cluster.Stop(ctx, false); err != nil {
			return fail(err)
		}
	}
	if err := e.cluster.Start(ctx); err != nil {
		return fail(dataDirAdvice(err))
	}
	log.Info("Embedded PostgreSQL started", slog.String("socket_dir", e.cluster.SocketDir()))
	if err := ensureDatabase(ctx, e.cluster.ConnString("postgres"), embeddedDB); err != nil {
		return fail(err)
	}
	return e, e.cluster.ConnString(embeddedDB), nil
}

// watch checks the server every w.Poll until ctx is done and starts it again when it died (a
// crash, the OOM killer, an operator's kill). The pool reconnects by itself once the server is
// back. It returns nil when ctx is done, or an error wrapping ErrEmbeddedLost after w.Attempts
// failed starts in a row.
func (e *embedded) watch(ctx context.Context, w watchOptions) error {
	tick := time.NewTicker(w.Poll)
	defer tick.Stop()
	unsure := false // the last check could not tell
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
		switch st, err := e.cluster.Status(); st {
		case pgcluster.StatusRunning:
			unsure = false
			continue
		case pgcluster.StatusUnknown:
			// Out of file descriptors, say: the server may well run, and starting a second one
			// would only fail. Asked again at the next tick.
			if !unsure {
				e.log.Warn("Unable to tell whether the embedded PostgreSQL runs; it is left as it is", slog.Any("error", err))
			}
			unsure = true
			continue
		}
		unsure = false
		e.log.Error("The embedded PostgreSQL stopped; starting it again")
		if err := e.restart(ctx, w); err != nil || ctx.Err() != nil {
			return err
		}
	}
}

// transient reports whether err is a shortage of the process's or the system's resources (file
// descriptors, processes, memory) rather than anything about the database: an attempt that
// failed so is tried again without being counted.
func transient(err error) bool {
	for _, e := range []syscall.Errno{syscall.EMFILE, syscall.ENFILE, syscall.EAGAIN, syscall.ENOMEM} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// watchEmbedded watches emb in the background until ctx is done, and sends on lost the error of
// a server that could not be restarted. The returned function stops the watch and waits for it:
// it must run before the server is stopped on purpose.
func (s *Server) watchEmbedded(ctx context.Context, emb *embedded, lost chan<- error) func() {
	w := defaultWatch
	if s.watch != nil {
		w = *s.watch
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := emb.watch(ctx, w); err != nil {
			lost <- err
		}
	}()
	return func() {
		cancel()
		<-done
	}
}

// restart starts the dead server again, with backoff between failed attempts.
func (e *embedded) restart(ctx context.Context, w watchOptions) error {
	wait := w.Backoff
	var err error
	for attempt := 1; attempt <= w.Attempts; {
		// A server that runs on the files (one the check lost sight of) is watched, never
		// started a second time.
		var running bool
		if running, err = e.cluster.Adopt(); running {
			e.log.Warn("A PostgreSQL server runs on the embedded database's files; watching it")
			return nil
		}
		if err == nil {
			if err = e.cluster.Start(ctx); err == nil {
				e.log.Info("Embedded PostgreSQL restarted", slog.Int("attempt", attempt))
				return nil
			}
		}
		if ctx.Err() != nil {
			return nil
		}
		if transient(err) {
			e.log.Warn("Unable to restart the embedded PostgreSQL for want of resources; retrying (not counted)",
				slog.Any("error", err), slog.Duration("retry_in", wait))
		} else {
			if attempt == w.Attempts {
				break
			}
			e.log.Warn("Unable to restart the embedded PostgreSQL; retrying", slog.Any("error", err),
				slog.Int("attempt", attempt), slog.Duration("retry_in", wait))
			attempt++
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(wait):
		}
		wait = min(2*wait, w.MaxBackoff)
	}
	return fmt.Errorf("%w (%d attempts; see %s): %w", ErrEmbeddedLost, w.Attempts,
		filepath.Join(e.cluster.Root(), "server.log"), err)
}

// dataDirAdvice adds to an error of the embedded cluster what the operator can do about it in
// questbot's terms.
func dataDirAdvice(err error) error {
	if errors.Is(err, pgcluster.ErrUnreachable) {
		return fmt.Errorf("embedded database: %w; or choose another folder with DATA_DIR, for example DATA_DIR=/var/lib/questbot", err)
	}
	return err
}

// close stops the server, if it was started, and releases the lock.
func (e *embedded) close() {
	if e.cluster != nil && e.cluster.Running(context.Background()) {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		if err := e.cluster.Stop(ctx, false); err != nil {
			e.log.Error("Unable to stop the embedded PostgreSQL", slog.Any("error", err))
		} else {
			e.log.Info("Embedded PostgreSQL stopped")
		}
		cancel()
	}
	e.lock.Close()
}

// ensureDatabase creates database name unless it exists.
func ensureDatabase(ctx context.Context, adminURL, name string) error {
	conn, err := pgx.Connect(ctx, adminURL)
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize())
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "42P04" { // duplicate_database
		return nil
	}
	if err != nil {
		return fmt.Errorf("create database: %w", err)
	}
	return nil
}

// Pool sizes, unless DB_POOL_MAX or the connection string's pool_max_conns says otherwise. A
// process that works (--role all or worker) holds a connection for each batch being handled
// (8 workers) and each being sent (8 senders, and the slow sends that went on alone), and the
// scheduled jobs, the downloads, the web game server and the scans take theirs: 48 leaves them
// room. A poller holds one per bot while it stores a batch, and one for its lease and the
// health check.
const (
	defaultPoolSize = 48
	pollerPoolSize  = 8
	// sessionPoolSize bounds the pool of DATABASE_SESSION_URL: its connections LISTEN (the
	// board events hub, the inbox watch and the uploads' wake-ups each hold one) or migrate.
	sessionPoolSize = 4
)

// openDatabase connects a pool of at most maxConns connections (0: pool_max_conns of url, else
// defaultPoolSize) and brings the schema up to date.
func openDatabase(ctx context.Context, url string) (*pgxpool.Pool, error) {
	return openPools(ctx, url, "", 0)
}

// openPools connects the pool of url, of at most maxConns connections (0: pool_max_conns of
// url, else defaultPoolSize), and brings the schema up to date through sessionURL (empty: url),
// whose connection must have session semantics: the migrations hold an advisory lock for the
// session. It returns the pool of url.
func openPools(ctx context.Context, url, sessionURL string, maxConns int, tune ...func(*pgxpool.Config)) (*pgxpool.Pool, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("database: %w", err)
	}
	for _, t := range tune {
		t(cfg)
	}
	switch {
	case maxConns > 0:
		cfg.MaxConns = int32(maxConns)
	case !strings.Contains(url, "pool_max_conns"):
		cfg.MaxConns = defaultPoolSize
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("database: %w", err)
	}
	if err := migrate(ctx, pool, sessionURL); err != nil {
		pool.Close()
		return nil, err
	}
	return pool, nil
}

// openSessionPool returns the pool of DATABASE_SESSION_URL, small and connecting on demand.
func openSessionPool(ctx context.Context, url string) (*pgxpool.Pool, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("DATABASE_SESSION_URL: %w", err)
	}
	if !strings.Contains(url, "pool_max_conns") {
		cfg.MaxConns = sessionPoolSize
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("DATABASE_SESSION_URL: %w", err)
	}
	return pool, nil
}

// migrate applies the migrations on a connection of pool, or of sessionURL when set.
func migrate(ctx context.Context, pool *pgxpool.Pool, sessionURL string) error {
	if sessionURL != "" {
		conn, err := pgx.Connect(ctx, sessionURL)
		if err != nil {
			return fmt.Errorf("DATABASE_SESSION_URL: %w", err)
		}
		defer conn.Close(context.WithoutCancel(ctx))
		return migrations.Apply(ctx, conn)
	}
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("database: %w", err)
	}
	defer conn.Release()
	return migrations.Apply(ctx, conn.Conn())
}
