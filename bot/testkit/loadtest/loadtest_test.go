package loadtest_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/questbot/questbot/bot/testkit/loadtest"
	"github.com/questbot/questbot/migrations/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// Ensure a short run answers every update and reports sensible figures (the real runs are the
// loadtest command's, not the tests'): among them what each update asked of the database, the
// statements of the transport's pool in fewer round trips, and some write-ahead log.
func TestRun(t *testing.T) {
	cfg, err := pgxpool.ParseConfig(pgtest.ConnString(t))
	if err != nil {
		t.Fatal(err)
	}
	cfg.MaxConns = 24
	stmts := &loadtest.Statements{}
	cfg.ConnConfig.Tracer = stmts
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	rep, err := loadtest.Run(context.Background(), loadtest.Options{
		Pool: pool, Users: 5, Duration: 3 * time.Second, Warmup: time.Second, Statements: stmts,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Log(rep)
	if rep.Updates == 0 || rep.Timeouts != 0 || rep.P50 <= 0 || rep.P99 < rep.P50 || rep.ProcessCPU <= 0 ||
		rep.Duplicates != 0 || rep.OrderViolations != 0 {
		t.Errorf("implausible report: %+v", rep)
	}
	if rep.Statements <= 0 || rep.RoundTrips <= 0 || rep.RoundTrips > rep.Statements || rep.WALBytes <= 0 {
		t.Errorf("implausible statements %.2f, round trips %.2f, WAL %.0f bytes per update",
			rep.Statements, rep.RoundTrips, rep.WALBytes)
	}
}
