package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/questbot/questbot/quest"
	"github.com/questbot/questbot/quest/questlog"
	"github.com/questbot/questbot/quest/questtrace"
)

// runReplay is the `replay` command: it replays golden traces of the reference quest player and
// checks that our player reproduces every step, and replays the logs of games (.log files, see
// quest/questlog, as /log gives them).
//
//	questbot replay --quests DIR [-any-build] TRACE…|GAME.log…
//
// DIR holds the quest files the traces or logs play (one quest set's folder). A trace names its
// quest file and the file's SHA-256; with -any-build the file of that name in DIR is played even
// when it is another build of the quest (a quest decompiled and compiled again, say), and the
// output says so: "note: QUEST is another build (sha256 …, the traces recorded …)". For each
// trace it prints "ok TRACE STEPS" or "FAIL TRACE step K: FIELD: want … got …", then "N/M traces match";
// for each log "ok LOG: N moves, at location L (phase)" or "FAIL LOG: why", then "N/M logs
// replay". A log's quest is the file of its name in DIR, else the file of DIR with its SHA-256.
// Exit status: 0 when every trace matches and every log replays, 1 otherwise, 2 on bad usage.
func runReplay(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("replay", flag.ContinueOnError)
	dir := fs.String("quests", "", "`folder` of the quest files the traces play")
	anyBuild := fs.Bool("any-build", false, "play a trace on the quest file of its name even when the file's SHA-256 differs\n"+
		"from the trace's (another build of the quest, such as a quest decompiled and compiled again);\n"+
		"the output notes each such quest")
	help := func(w io.Writer) {
		fmt.Fprintln(w, "usage: questbot replay --quests DIR [-any-build] TRACE.jsonl.gz…|GAME.log…")
		fmt.Fprintln(w, "Replays golden traces (each names its quest file in DIR and the file's SHA-256) and game logs.")
		fmt.Fprintln(w, "With -any-build a trace plays on the file of its quest's name even when it is another build,")
		fmt.Fprintln(w, "e.g. to check that `questbot qms decompile` then `qms compile` keeps a quest's behaviour.")
	}
	files, code, ok := parseOperands(fs, args, help, stdout, stderr)
	if !ok {
		return code
	}
	switch {
	case *dir == "":
		return usageError(stderr, "replay", "--quests is needed")
	case len(files) == 0:
		return usageError(stderr, "replay", "no trace or game log given")
	}
	var traces, logs []string
	for _, f := range files {
		if strings.EqualFold(filepath.Ext(f), ".log") {
			logs = append(logs, f)
		} else {
			traces = append(traces, f)
		}
	}
	code = 0
	if len(traces) > 0 {
		run := questtrace.Run
		if *anyBuild {
			run = questtrace.RunAnyBuild
		}
		if matched, total := run(ctx, *dir, traces, stdout); matched != total {
			code = 1
		}
	}
	if len(logs) > 0 {
		if ok := replayLogs(*dir, logs, stdout); ok != len(logs) {
			code = 1
		}
	}
	return code
}

// replayLogs replays game logs on the quests of dir, printing a line for each and a summary; it
// returns how many replayed.
func replayLogs(dir string, files []string, w io.Writer) int {
	ok := 0
	for _, name := range files {
		s, n, err := replayLog(dir, name)
		if err != nil {
			fmt.Fprintf(w, "FAIL %s: %v\n", name, err)
			continue
		}
		ok++
		fmt.Fprintf(w, "ok %s: %d moves, at location %d (%v)\n", name, n, s.LocationID, s.Phase)
	}
	fmt.Fprintf(w, "%d/%d logs replay\n", ok, len(files))
	return ok
}

// replayLog replays one log file.
func replayLog(dir, name string) (quest.State, int, error) {
	f, err := os.Open(name)
	if err != nil {
		return quest.State{}, 0, err
	}
	defer f.Close()
	l, err := questlog.Read(f)
	if err != nil {
		return quest.State{}, 0, err
	}
	q, err := questtrace.LoadQuest(dir, l.Header.Quest, l.Header.SHA256)
	if err != nil && l.Header.SHA256 != "" {
		// The quest under another name: the file of the folder with the log's digest.
		if found := questBySum(dir, l.Header.SHA256); found != "" {
			q, err = questtrace.LoadQuest(dir, found, l.Header.SHA256)
		}
	}
	if err != nil {
		return quest.State{}, 0, fmt.Errorf("quest %s: %w", l.Header.Quest, err)
	}
	s, err := questlog.Replay(q, l, quest.Options{}, nil)
	return s, len(l.Moves), err
}

// questBySum returns the name of the quest file of dir whose SHA-256 is sum, "" when none is.
func questBySum(dir, sum string) string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return ""
	}
	for _, e := range entries {
		ext := strings.ToLower(filepath.Ext(e.Name()))
		if e.IsDir() || ext != ".qm" && ext != ".qmm" {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			continue
		}
		if h := sha256.Sum256(data); hex.EncodeToString(h[:]) == sum {
			return e.Name()
		}
	}
	return ""
}
