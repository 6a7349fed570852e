package pgcluster

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// realCluster makes and starts a cluster from the server programs of PG_BIN (or DefaultBin) in
// a folder the server's user can reach; the test's cleanup stops it.
func realCluster(t *testing.T) *Cluster {
	t.Helper()
	dir, err := os.MkdirTemp("", "pgstatus")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	c, err := New(Options{Bin: os.Getenv("PG_BIN"), Root: filepath.Join(dir, "pg")})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := c.Init(ctx); err != nil {
		t.Fatal(err)
	}
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if c.Alive() {
			c.Stop(context.Background(), true)
		}
	})
	return c
}

// Ensure Status follows the process the last Start left running, not the lock file: a server
// started on the same files by someone else is not that process (Stopped) until Adopt finds it
// through the lock file; and a killed server is Stopped.
func TestStatusFollowsTheProcess(t *testing.T) {
	t.Parallel()
	c := realCluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if st, err := c.Status(); st != StatusRunning || err != nil {
		t.Fatalf("after Start: %v, %v; want running", st, err)
	}
	first, err := c.PID()
	if err != nil {
		t.Fatal(err)
	}

	// Another Cluster of the same files stops the server and starts its own.
	other, err := New(Options{Bin: os.Getenv("PG_BIN"), Root: c.Root()})
	if err != nil {
		t.Fatal(err)
	}
	if st, err := other.Status(); st != StatusRunning || err != nil {
		t.Fatalf("a Cluster that started nothing, by the lock file: %v, %v; want running", st, err)
	}
	if err := other.Stop(ctx, false); err != nil {
		t.Fatal(err)
	}
	if st, err := c.Status(); st != StatusStopped || err != nil {
		t.Fatalf("after the stop: %v, %v; want stopped", st, err)
	}
	if err := other.Start(ctx); err != nil {
		t.Fatal(err)
	}
	second, err := other.PID()
	if err != nil {
		t.Fatal(err)
	}
	if second == first {
		t.Fatalf("the new server has the old one's id %d", first)
	}
	if st, _ := c.Status(); st != StatusStopped {
		t.Errorf("the process c started is gone, yet Status says %v", st)
	}
	if ok, err := c.Adopt(); !ok || err != nil {
		t.Fatalf("Adopt: %v, %v; want the running server found", ok, err)
	}
	if st, err := c.Status(); st != StatusRunning || err != nil {
		t.Errorf("after Adopt: %v, %v; want running", st, err)
	}

	if err := syscall.Kill(second, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Minute) // bounds a hang only
	for {
		st, err := c.Status()
		if st == StatusStopped && err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a killed server is still %v (%v)", st, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if ok, err := c.Adopt(); ok || err != nil {
		t.Errorf("Adopt with no server: %v, %v; want none found", ok, err)
	}
}
