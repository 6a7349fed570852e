package main

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

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
		waitHealthy(t, startServer(t, cfg), 60*time.Second)
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
