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
	// The postgres user, when the server runs as that user, must be able to reach the folder.
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("data folder: %w", err)
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

// defaultPoolSize is the pool size unless the connection string sets pool_max_conns: the
// transport's handlers and senders each hold a connection while they work.
const defaultPoolSize = 48

// openDatabase connects a pool and brings the schema up to date.
func openDatabase(ctx context.Context, url string) (*pgxpool.Pool, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("database: %w", err)
	}
	if !strings.Contains(url, "pool_max_conns") {
		cfg.MaxConns = defaultPoolSize
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("database: %w", err)
	}
	conn, err := pool.Acquire(ctx)
	if err != nil {
		pool.Close()
		return nil, fmt.Errorf("database: %w", err)
	}
	err = migrations.Apply(ctx, conn.Conn())
	conn.Release()
	if err != nil {
		pool.Close()
		return nil, err
	}
	return pool, nil
}
