package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/questbot/questbot/engine"
)

// perftPosition is a chess position of the perft comparison with its published perft counts,
// depth 1 first.
type perftPosition struct {
	name, fen string
	counts    []uint64
}

// perftPositions are the two positions compared: the start, and Kiwipete (Peter McKenzie's
// position, rich in castling, en passant, promotions and pins).
var perftPositions = []perftPosition{
	{"start", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
		[]uint64{20, 400, 8902, 197281, 4865609, 119060324, 3195901860}},
	{"kiwipete", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
		[]uint64{48, 2039, 97862, 4085603, 193690690, 8031647685}},
}

// perftRun is one measured perft: the leaves counted and the user CPU time they took.
type perftRun struct {
	nodes uint64
	cpu   time.Duration
}

// runPerftcmp is the `perftcmp` command: it counts perft of the chess start position and of
// Kiwipete with the engine and with Stockfish (Debian's stockfish package, `go perft N`), checks
// both counts against the published ones, and prints each side's leaves per CPU-second and their
// ratio (ours over Stockfish's).
//
// Each side is timed by the user CPU time it uses, so a machine busy with other work slows the
// wall clock but not the figures: ours by the thread the perft runs on (its goroutine locked to
// it), Stockfish's by its process less its start (loading, a `go perft 1`), measured apart and
// subtracted. Every measurement is repeated and the fastest run counts, as the others were
// slowed by work the CPU time does not see (caches, frequency, a neighbour on the core).
func runPerftcmp(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("perftcmp", flag.ContinueOnError)
	start := fs.Int("start", 6, "the depth from the start position (0: leave it out)")
	kiwipete := fs.Int("kiwipete", 5, "the depth from Kiwipete (0: leave it out)")
	runs := fs.Int("runs", 3, "runs of each measurement; the fastest counts")
	stockfish := fs.String("stockfish", "", "the Stockfish program (default: stockfish on the PATH or /usr/games/stockfish)")
	help := func(w io.Writer) {
		fmt.Fprintln(w, "usage: questbot perftcmp [-start D] [-kiwipete D] [-runs N] [-stockfish PATH]")
		fmt.Fprintln(w, "Counts chess perft from the start position and Kiwipete with the engine and with Stockfish's")
		fmt.Fprintln(w, "`go perft`, checks the counts against the published ones, and prints the leaves per CPU-second")
		fmt.Fprintln(w, "of each (the fastest of -runs runs) and the engine's ratio to Stockfish.")
	}
	operands, code, ok := parseOperands(fs, args, help, stdout, stderr)
	if !ok {
		return code
	}
	if len(operands) > 0 {
		return usageError(stderr, "perftcmp", "unexpected argument %q", operands[0])
	}
	depths := []int{*start, *kiwipete}
	for i, p := range perftPositions {
		if depths[i] < 0 || depths[i] > len(p.counts) {
			return usageError(stderr, "perftcmp", "-%s must be a depth from 0 to %d, not %d", p.name, len(p.counts), depths[i])
		}
	}
	if *runs < 1 {
		return usageError(stderr, "perftcmp", "-runs must be 1 or more, not %d", *runs)
	}
	bin, err := findStockfish(*stockfish)
	if err != nil {
		fmt.Fprintf(stderr, "questbot perftcmp: %v (install Debian's stockfish)\n", err)
		return 1
	}
	fail := func(err error) int {
		fmt.Fprintf(stderr, "questbot perftcmp: %v\n", err)
		return 1
	}
	startup, err := bestRun(*runs, func() (perftRun, error) {
		return stockfishPerft(ctx, bin, perftPositions[0].fen, 1)
	})
	if err != nil {
		return fail(err)
	}
	fmt.Fprintf(stdout, "perft, the fastest of %d runs in user CPU time: questbot's thread; stockfish's process less its start (go perft 1: %.3f s)\n",
		*runs, startup.cpu.Seconds())
	fmt.Fprintf(stdout, "%-9s %5s %11s %9s %10s %9s %10s %6s\n", "position", "depth", "nodes",
		"questbot", "M nodes/s", "stockfish", "M nodes/s", "ratio")
	for i, p := range perftPositions {
		d := depths[i]
		if d == 0 {
			continue
		}
		want := p.counts[d-1]
		g, err := engine.NewGame("chess", engine.WithPosition(p.fen))
		if err != nil {
			return fail(err)
		}
		ours, err := bestRun(*runs, func() (perftRun, error) { return ourPerft(g, d) })
		if err != nil {
			return fail(err)
		}
		theirs, err := bestRun(*runs, func() (perftRun, error) {
			r, err := stockfishPerft(ctx, bin, p.fen, d)
			r.cpu = max(r.cpu-startup.cpu, 0)
			return r, err
		})
		if err != nil {
			return fail(err)
		}
		for _, r := range []struct {
			who   string
			nodes uint64
		}{{"questbot", ours.nodes}, {"stockfish", theirs.nodes}} {
			if r.nodes != want {
				return fail(fmt.Errorf("%s perft(%d) from %s counts %d, the published count is %d", r.who, d, p.name, r.nodes, want))
			}
		}
		fmt.Fprintf(stdout, "%-9s %5d %11d %8.3fs %10s %8.3fs %10s %6s\n", p.name, d, want,
			ours.cpu.Seconds(), perftRate(ours), theirs.cpu.Seconds(), perftRate(theirs), perftRatio(ours, theirs))
	}
	return 0
}

// bestRun runs measure n times and returns its fastest run. Every run must count the same
// leaves: a run that differs is an error.
func bestRun(n int, measure func() (perftRun, error)) (perftRun, error) {
	var best perftRun
	for i := 0; i < n; i++ {
		r, err := measure()
		if err != nil {
			return perftRun{}, err
		}
		switch {
		case i == 0:
			best = r
		case r.nodes != best.nodes:
			return perftRun{}, fmt.Errorf("one run counted %d leaves, another %d", best.nodes, r.nodes)
		case r.cpu < best.cpu:
			best = r
		}
	}
	return best, nil
}

// perftRate formats a run's leaves per CPU-second, in millions ("-" when it took no measurable
// time).
func perftRate(r perftRun) string {
	if r.cpu <= 0 {
		return "-"
	}
	return strconv.FormatFloat(float64(r.nodes)/r.cpu.Seconds()/1e6, 'f', 1, 64)
}

// perftRatio formats ours' leaves per CPU-second over theirs': above 1, ours is the faster.
func perftRatio(ours, theirs perftRun) string {
	if ours.cpu <= 0 || theirs.cpu <= 0 {
		return "-"
	}
	return strconv.FormatFloat(theirs.cpu.Seconds()/ours.cpu.Seconds(), 'f', 2, 64)
}

// ourPerft counts the engine's perft of g to depth, timed by the CPU time of the thread it runs
// on.
func ourPerft(g *engine.Game, depth int) (perftRun, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	before, err := threadCPU()
	if err != nil {
		return perftRun{}, err
	}
	n := g.Perft(depth)
	after, err := threadCPU()
	if err != nil {
		return perftRun{}, err
	}
	return perftRun{nodes: n, cpu: after - before}, nil
}

// stockfishPerft starts a UCI engine, has it count perft of fen to depth (`go perft`, which
// Stockfish ends with "Nodes searched: N"), and returns the count and the user CPU time of the
// whole process, its start included.
func stockfishPerft(ctx context.Context, bin, fen string, depth int) (perftRun, error) {
	cmd := exec.CommandContext(ctx, bin)
	in, err := cmd.StdinPipe()
	if err != nil {
		return perftRun{}, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return perftRun{}, err
	}
	if err := cmd.Start(); err != nil {
		return perftRun{}, fmt.Errorf("start %s: %w", bin, err)
	}
	_, err = fmt.Fprintf(in, "position fen %s\ngo perft %d\n", fen, depth)
	var nodes uint64
	if err == nil {
		nodes, err = readPerftNodes(out)
	}
	io.WriteString(in, "quit\n")
	in.Close()
	io.Copy(io.Discard, out)
	if werr := cmd.Wait(); err == nil && werr != nil {
		err = fmt.Errorf("%s: %w", bin, werr)
	}
	if err != nil {
		return perftRun{}, err
	}
	return perftRun{nodes: nodes, cpu: cmd.ProcessState.UserTime()}, nil
}

// readPerftNodes reads a UCI engine's perft output up to its "Nodes searched: N" line, and
// returns N.
func readPerftNodes(r io.Reader) (uint64, error) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), "Nodes searched:")
		if !ok {
			continue
		}
		n, err := strconv.ParseUint(strings.TrimSpace(rest), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("the UCI engine's perft count %q: %w", sc.Text(), err)
		}
		return n, nil
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	return 0, errors.New(`the UCI engine stopped before "Nodes searched"`)
}
