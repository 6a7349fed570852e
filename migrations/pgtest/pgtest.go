// Package pgtest gives tests a real, private PostgreSQL database.
//
// The first call to New in a test binary starts a throwaway cluster from the PostgreSQL 15 server
// binaries (PG_BIN, default /usr/lib/postgresql/15/bin) in a fresh temporary folder, listening on a
// Unix socket only, with durability switched off for speed; it creates a template database and
// applies every migration to it once. Each call to New then clones the template into a new database,
// so every test starts from a freshly migrated schema and may run in parallel with the others.
//
// A package that uses pgtest runs its tests through Main, which stops the cluster and removes its
// folder when the tests end:
//
//	func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }
//
// Missing binaries fail the test with a message saying what is missing: database tests are never
// skipped. The -pgtest.keep flag keeps the cluster's folder and prints where it is, for inspection.
package pgtest

import (
	"context"
	"flag"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/questbot/questbot/migrations"
	"github.com/questbot/questbot/migrations/pgcluster"
)

var keep = flag.Bool("pgtest.keep", false, "keep the test PostgreSQL cluster and print its folder")

const templateDB = "tmpl"

var (
	once     sync.Once
	cluster  *pgcluster.Cluster
	startErr error

	mu      sync.Mutex // serialises CREATE DATABASE ... TEMPLATE, which needs the template idle
	counter int
)

// Main runs the tests and then stops the cluster, if one was started. It returns the exit code.
func Main(m *testing.M) int {
	code := m.Run()
	if err := stop(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		if code == 0 {
			code = 1
		}
	}
	return code
}

// stop stops the cluster and removes its folder (unless -pgtest.keep is set).
func stop() error {
	if cluster == nil {
		return nil
	}
	c := cluster
	cluster = nil
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if *keep {
		fmt.Fprintf(os.Stderr, "pgtest: cluster kept running in %s (socket in %s)\n", c.Root(), c.SocketDir())
		return nil
	}
	err := c.Stop(ctx, true)
	if rerr := os.RemoveAll(c.Root()); err == nil && rerr != nil {
		err = fmt.Errorf("pgtest: remove cluster: %w", rerr)
	}
	return err
}

func start() (*pgcluster.Cluster, error) {
	root, err := os.MkdirTemp("", "pgtest")
	if err != nil {
		return nil, fmt.Errorf("pgtest: %w", err)
	}
	c, err := pgcluster.New(pgcluster.Options{Bin: os.Getenv("PG_BIN"), Root: root})
	if err != nil {
		os.RemoveAll(root)
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := c.Init(ctx); err != nil {
		os.RemoveAll(root)
		return nil, err
	}
	if err := c.Start(ctx); err != nil {
		os.RemoveAll(root)
		return nil, err
	}
	cluster = c
	if err := createTemplate(ctx, c); err != nil {
		return nil, err
	}
	return c, nil
}

func createTemplate(ctx context.Context, c *pgcluster.Cluster) error {
	admin, err := pgx.Connect(ctx, c.ConnString("postgres"))
	if err != nil {
		return fmt.Errorf("pgtest: connect: %w", err)
	}
	defer admin.Close(ctx)
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+templateDB); err != nil {
		return fmt.Errorf("pgtest: create template: %w", err)
	}
	conn, err := pgx.Connect(ctx, c.ConnString(templateDB))
	if err != nil {
		return fmt.Errorf("pgtest: connect template: %w", err)
	}
	defer conn.Close(ctx)
	if err := migrations.Apply(ctx, conn); err != nil {
		return fmt.Errorf("pgtest: %w", err)
	}
	return nil
}

// ConnString creates a fresh database cloned from the migrated template and returns its
// connection string. The database lives until the cluster stops.
func ConnString(tb testing.TB) string {
	tb.Helper()
	once.Do(func() { _, startErr = start() })
	if startErr != nil {
		tb.Fatalf("pgtest: cannot start PostgreSQL: %v", startErr)
	}
	if cluster == nil {
		tb.Fatal("pgtest: the cluster was stopped")
	}
	mu.Lock()
	counter++
	name := fmt.Sprintf("t%d", counter)
	mu.Unlock()

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	admin, err := pgx.Connect(ctx, cluster.ConnString("postgres"))
	if err != nil {
		tb.Fatalf("pgtest: connect: %v", err)
	}
	defer admin.Close(ctx)
	mu.Lock()
	_, err = admin.Exec(ctx, "CREATE DATABASE "+name+" TEMPLATE "+templateDB)
	mu.Unlock()
	if err != nil {
		tb.Fatalf("pgtest: create database: %v", err)
	}
	return cluster.ConnString(name)
}

// poolSize is the size of the pools New returns: room for a transport's workers and senders (8
// each by default, every one holding a connection while it works) and the reads a handler makes
// beside its transaction, as the server's own pool has. pgxpool's default (the number of CPUs,
// at least 4) would leave a busy transport's handlers waiting for each other forever.
const poolSize = 24

// New returns a pool of poolSize connections to a fresh, migrated database of its own. The pool is
// closed when the test ends.
func New(tb testing.TB) *pgxpool.Pool {
	tb.Helper()
	cfg, err := pgxpool.ParseConfig(ConnString(tb))
	if err != nil {
		tb.Fatalf("pgtest: %v", err)
	}
	cfg.MaxConns = poolSize
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		tb.Fatalf("pgtest: %v", err)
	}
	tb.Cleanup(pool.Close)
	return pool
}

// Cluster returns the running test cluster, starting it if needed. Tests of the cluster code itself
// use it; others want New.
func Cluster(tb testing.TB) *pgcluster.Cluster {
	tb.Helper()
	once.Do(func() { _, startErr = start() })
	if startErr != nil {
		tb.Fatalf("pgtest: cannot start PostgreSQL: %v", startErr)
	}
	return cluster
}
