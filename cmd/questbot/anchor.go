package main

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"time"
)

// anchorDB is the database of the throwaway cluster that pgbench's tables go in, apart from the
// bot's.
const anchorDB = "pgbench_anchor"

// anchorClients is how many clients pgbench runs: as many as the bot's workers and senders
// keep busy on a small machine.
const anchorClients = 8

// tpsLine is pgbench's summary of the rate, in the forms of PostgreSQL 14 to 16.
var tpsLine = regexp.MustCompile(`tps = ([0-9.]+) \((?:without initial connection time|excluding connections establishing)\)`)

// pgbenchAnchor measures what the database server of a load test can do alone, to read the
// bot's rate against: pgbench's simple-update test (-N: a transaction of three writes and a
// read, committed with fsync, the shape of an update's transaction) with anchorClients clients
// for d, in its own database of the same cluster. conn is a keyword=value connection string of
// the cluster (its dbname is overridden); bin is the folder of the PostgreSQL programs ("" for
// the PATH). It returns the transactions per second.
func pgbenchAnchor(ctx context.Context, bin, conn string, d time.Duration) (float64, error) {
	if err := ensureDatabase(ctx, conn+" dbname=postgres", anchorDB); err != nil {
		return 0, fmt.Errorf("pgbench database: %w", err)
	}
	pgbench := "pgbench"
	if bin != "" {
		pgbench = filepath.Join(bin, "pgbench")
	}
	target := conn + " dbname=" + anchorDB
	if out, err := exec.CommandContext(ctx, pgbench, "-i", "-q", "-s", "1", target).CombinedOutput(); err != nil {
		return 0, fmt.Errorf("pgbench -i: %w: %s", err, out)
	}
	secs := max(1, int(d.Round(time.Second)/time.Second))
	out, err := exec.CommandContext(ctx, pgbench, "-N", "-c", strconv.Itoa(anchorClients), "-j", "2",
		"-T", strconv.Itoa(secs), target).CombinedOutput()
	if err != nil {
		return 0, fmt.Errorf("pgbench: %w: %s", err, out)
	}
	return parseTPS(out)
}

// parseTPS reads the rate from pgbench's output.
func parseTPS(out []byte) (float64, error) {
	m := tpsLine.FindSubmatch(out)
	if m == nil {
		return 0, errors.New("pgbench printed no rate")
	}
	return strconv.ParseFloat(string(m[1]), 64)
}
