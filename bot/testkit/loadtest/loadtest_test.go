package loadtest_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/questbot/questbot/bot/testkit/loadtest"
	"github.com/questbot/questbot/migrations/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// Ensure a short run answers every update and reports sensible figures (the real runs are the
// loadtest command's, not the tests').
func TestRun(t *testing.T) {
	rep, err := loadtest.Run(context.Background(), loadtest.Options{
		Pool: pgtest.New(t), Users: 5, Duration: 3 * time.Second, Warmup: time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Log(rep)
	if rep.Updates == 0 || rep.Timeouts != 0 || rep.P50 <= 0 || rep.P99 < rep.P50 || rep.ProcessCPU <= 0 ||
		rep.Duplicates != 0 || rep.OrderViolations != 0 {
		t.Errorf("implausible report: %+v", rep)
	}
}
