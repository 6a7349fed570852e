// Command questbot is the Questbot binary: the bot itself (serve, the default) and the tools
// around it for quest authors and operators.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
)

// version is set at build time (make build) to the source revision.
var version = "dev"

// command is one subcommand: it gets its arguments (without its name) and the process's
// standard streams, and returns the exit code.
type command struct {
	summary string
	run     func(ctx context.Context, args []string, stdout, stderr io.Writer) int
}

// commands lists every subcommand; "serve" runs when none is named.
var commands = map[string]command{
	"boardload": {"measure board games played through the web API against the players' Telegram chats", runBoardload},
	"calc":      {"evaluate a quest formula", runCalc},
	"loadtest":  {"measure the Telegram transport with simulated users", runLoadtest},
	"inspect":   {"summarise .qm/.qmm files (--json for the whole model)", runInspect},
	"perftcmp":  {"compare the chess perft's speed with Stockfish's, per CPU-second", runPerftcmp},
	"play":      {"play a quest file in the terminal", runPlay},
	"qms":       {"compile quest sources (qms compile FILE.qms [-o OUT.qmm] [-f]) and decompile quests (qms decompile FILE.qm[m] [-o OUT.qms] [-f])", runQms},
	"quests":    {"add quest files to the catalogue (quests add [--listed] [--dialect D] FILE|DIR…)", runQuests},
	"replay":    {"replay golden traces of the reference quest player", runReplay},
	"serve":     {"run the bot (the default)", runServe},
	"strength":  {"measure the bot's levels against Stockfish (chess) or a ladder of fixed-depth searches", runStrength},
	"version":   {"print the version", runVersion},
	"webload":   {"measure the web game server's live updates: SSE streams and moves", runWebload},
}

// shutdownSignals stop the process cleanly, the embedded PostgreSQL with it: Ctrl-C, a service
// manager's stop, and the terminal closing (SIGHUP). The server that pg_ctl starts runs in a
// session of its own, so nothing else stops it when the terminal goes.
var shutdownSignals = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP}

func main() { os.Exit(runMain(os.Args[1:], os.Stdout, os.Stderr)) }

// runMain runs the command that args name until it ends or a shutdown signal arrives, and
// returns the exit code.
func runMain(args []string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), shutdownSignals...)
	defer stop()
	return dispatch(ctx, args, stdout, stderr)
}

// dispatch runs the command that args name. The commands write from several goroutines (a
// server's logs, a load check's players), so stdout and stderr are each written under a lock of
// their own: a writer that is not safe for concurrent use (a test's buffer) is safe here.
func dispatch(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	stdout, stderr = lockWriter(stdout), lockWriter(stderr)
	name := "serve"
	if len(args) > 0 && (helpArgs[args[0]] || versionArgs[args[0]] || !isFlag(args[0])) {
		name, args = args[0], args[1:]
	}
	switch {
	case helpArgs[name]:
		usage(stdout)
		return 0
	case versionArgs[name]:
		name = "version"
	case name == "help":
		// `questbot help <command>` is `questbot <command> -h`.
		switch {
		case len(args) == 0:
			usage(stdout)
			return 0
		case len(args) > 1:
			return usageError(stderr, "help", "one command at a time, not %q", strings.Join(args, " "))
		case args[0] == "help" || helpArgs[args[0]]:
			helpUsage(stdout)
			return 0
		case commands[args[0]].run == nil:
			fmt.Fprintf(stderr, "questbot help: unknown command %q (see questbot help)\n", args[0])
			return 2
		}
		name, args = args[0], []string{"-h"}
	}
	cmd, ok := commands[name]
	if !ok {
		fmt.Fprintf(stderr, "questbot: unknown command %q (see questbot help)\n", name)
		return 2
	}
	return cmd.run(ctx, args, stdout, stderr)
}

func runVersion(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("version", flag.ContinueOnError)
	help := func(w io.Writer) { fmt.Fprintln(w, "usage: questbot version\nPrints the version of the binary.") }
	operands, code, ok := parseOperands(fs, args, help, stdout, stderr)
	if !ok {
		return code
	}
	if len(operands) > 0 {
		return usageError(stderr, "version", "unexpected argument %q", operands[0])
	}
	fmt.Fprintln(stdout, "questbot", version)
	return 0
}

// lockedWriter serializes the writes to w, each one whole.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

// lockWriter returns w written under a lock (w itself when it is one already).
func lockWriter(w io.Writer) io.Writer {
	if l, ok := w.(*lockedWriter); ok {
		return l
	}
	return &lockedWriter{w: w}
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
