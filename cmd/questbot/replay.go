package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/questbot/questbot/quest/questtrace"
)

// runReplay is the `replay` command: it replays golden traces of the reference quest player and
// checks that our player reproduces every step.
//
//	questbot replay --quests DIR TRACE…
//
// DIR holds the quest files the traces play (one quest set's folder). For each trace it prints
// "ok TRACE STEPS" or "FAIL TRACE step K: FIELD: want … got …", then "N/M traces match". Exit
// status: 0 when every trace matches, 1 otherwise, 2 on bad usage.
func runReplay(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("replay", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("quests", "", "`folder` of the quest files the traces play")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: questbot replay --quests DIR TRACE.jsonl.gz…")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if *dir == "" || fs.NArg() == 0 {
		fs.Usage()
		return 2
	}
	matched, total := questtrace.Run(ctx, *dir, fs.Args(), stdout)
	if matched != total {
		return 1
	}
	return 0
}
