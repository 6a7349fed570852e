package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// cliCase is a command line and what it must answer: the exit status, and the exact standard
// output and error when given (stdoutHas: a part of the standard output, for the long helps).
type cliCase struct {
	args      []string
	code      int
	stdout    string
	stdoutHas string
	stderr    string
}

// check runs a case through the dispatcher.
func (c cliCase) check(t *testing.T) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := dispatch(context.Background(), c.args, &stdout, &stderr)
	if code != c.code {
		t.Errorf("exit status %d, want %d\nstdout:\n%s\nstderr:\n%s", code, c.code, &stdout, &stderr)
	}
	if c.stdout != "" && stdout.String() != c.stdout {
		t.Errorf("stdout %q, want %q", stdout.String(), c.stdout)
	}
	if c.stdoutHas != "" && !strings.Contains(stdout.String(), c.stdoutHas) {
		t.Errorf("stdout lacks %q:\n%s", c.stdoutHas, &stdout)
	}
	if stderr.String() != c.stderr {
		t.Errorf("stderr %q, want %q", stderr.String(), c.stderr)
	}
}

// Ensure every wrong command line is answered in one exact line with exit status 2 (1 when the
// command ran and failed), every request for help with the help on stdout and exit status 0, and
// that a formula starting with "-" is a formula, not a flag.
func TestCommandLineAnswers(t *testing.T) {
	t.Parallel()
	missing := filepath.Join(t.TempDir(), "nosuch.qms")
	cases := []cliCase{
		// calc: a leading minus is the formula's; values of -p are numbers.
		{args: []string{"calc", "-5+2"}, stdout: "-3\n"},
		{args: []string{"calc", "-p", "4", "-[p1]*2"}, stdout: "-8\n"},
		{args: []string{"calc", "-seed", "x", "-5", "+", "2"}, stdout: "-3\n"},
		{args: []string{"calc", "-p", "-5,3", "[p1]+[p2]"}, stdout: "-2\n"},
		{args: []string{"calc", "-p", "x", "1"}, code: 2,
			stderr: "questbot calc: -p: value 1 is \"x\", not a whole number\n"},
		{args: []string{"calc", "-nope", "1"}, code: 2,
			stderr: "questbot calc: flag provided but not defined: -nope (see questbot help calc)\n"},
		{args: []string{"calc"}, code: 2, stderr: "questbot calc: no formula given (see questbot help calc)\n"},
		{args: []string{"calc", "--help"}, stdoutHas: "usage: questbot calc"},
		// A syntax error is one line too.
		{args: []string{"calc", "1+"}, code: 1,
			stderr: "questbot calc: formula: Expected value at 2 (after \"1+\", at the end)\n"},
		// serve: a wrong flag or argument is one line, as for every command.
		{args: []string{"serve", "-x"}, code: 2,
			stderr: "questbot serve: flag provided but not defined: -x (see questbot help serve)\n"},
		{args: []string{"serve", "extra"}, code: 2,
			stderr: "questbot serve: unexpected argument \"extra\" (see questbot help serve)\n"},
		{args: []string{"serve", "--role", "boss"}, code: 2,
			stderr: "questbot serve: --role must be all, poller or worker, not \"boss\" (see questbot help serve)\n"},
		// strength: -elo is checked before anything is looked for or played, with -ladder too.
		{args: []string{"strength", "-elo", "abc"}, code: 2,
			stderr: "questbot strength: -elo must be Elo ratings (whole numbers such as 1350) separated by commas, not \"abc\" (see questbot help strength)\n"},
		{args: []string{"strength", "-ladder", "-elo", "1350,x"}, code: 2,
			stderr: "questbot strength: -elo must be Elo ratings (whole numbers such as 1350) separated by commas, not \"1350,x\" (see questbot help strength)\n"},
		// loadtest: its numbers are checked before anything starts.
		{args: []string{"loadtest", "-users", "0"}, code: 2, stderr: "questbot loadtest: -users must be 1 or more, not 0\n"},
		{args: []string{"loadtest", "-duration", "0s"}, code: 2,
			stderr: "questbot loadtest: -duration must be longer than 0, not 0s\n"},
		{args: []string{"loadtest", "-users", "x"}, code: 2,
			stderr: "questbot loadtest: invalid value \"x\" for flag -users: parse error (see questbot help loadtest)\n"},
		{args: []string{"loadtest", "extra"}, code: 2,
			stderr: "questbot loadtest: unexpected argument \"extra\" (see questbot help loadtest)\n"},
		{args: []string{"loadtest", "--help"}, stdoutHas: "usage: questbot loadtest"},
		{args: []string{"loadtest", "-h"}, stdoutHas: "-users"},
		// help and version.
		{args: []string{"help", "help"}, stdoutHas: "usage: questbot help [command]"},
		{args: []string{"help", "nosuch"}, code: 2,
			stderr: "questbot help: unknown command \"nosuch\" (see questbot help)\n"},
		{args: []string{"help", "calc", "qms"}, code: 2,
			stderr: "questbot help: one command at a time, not \"calc qms\" (see questbot help help)\n"},
		{args: []string{"--version"}, stdout: "questbot " + version + "\n"},
		{args: []string{"-version"}, stdout: "questbot " + version + "\n"},
		{args: []string{"version"}, stdout: "questbot " + version + "\n"},
		{args: []string{"version", "now"}, code: 2,
			stderr: "questbot version: unexpected argument \"now\" (see questbot help version)\n"},
		{args: []string{"nosuch"}, code: 2, stderr: "questbot: unknown command \"nosuch\" (see questbot help)\n"},
		// qms: one line for a missing file, an unknown subcommand, a missing one.
		{args: []string{"qms", "compile", missing}, code: 1,
			stderr: "questbot qms compile: open " + missing + ": no such file or directory\n"},
		{args: []string{"qms", "decompile", missing}, code: 1,
			stderr: "questbot qms decompile: open " + missing + ": no such file or directory\n"},
		{args: []string{"qms", "bogus"}, code: 2,
			stderr: "questbot qms: unknown subcommand \"bogus\": compile or decompile (see questbot help qms)\n"},
		{args: []string{"qms"}, code: 2,
			stderr: "questbot qms: a subcommand is needed: compile or decompile (see questbot help qms)\n"},
		{args: []string{"qms", "compile"}, code: 2,
			stderr: "questbot qms compile: one FILE.qms is needed (see questbot help qms)\n"},
		{args: []string{"qms", "compile", "-h"}, stdoutHas: "usage: questbot qms compile"},
		{args: []string{"help", "qms"}, stdoutHas: "usage: questbot qms compile"},
		// quests: the same for its one subcommand.
		{args: []string{"quests", "bogus"}, code: 2,
			stderr: "questbot quests: unknown subcommand \"bogus\": add (see questbot help quests)\n"},
		{args: []string{"quests"}, code: 2, stderr: "questbot quests: a subcommand is needed: add (see questbot help quests)\n"},
		{args: []string{"quests", "add"}, code: 2,
			stderr: "questbot quests add: no quest file or folder given (see questbot help quests)\n"},
		{args: []string{"quests", "add", "--help"}, stdoutHas: "usage: questbot quests add"},
		{args: []string{"help", "quests"}, stdoutHas: "\nAdds quest files (.qm, .qmm; a folder's quest files) to the catalogue of every bot:"},
		{args: []string{"quests", "add", "--dialect", "bad", "x.qm"}, code: 2,
			stderr: "questbot quests add: --dialect must be reference or dagazbot, not \"bad\" (see questbot help quests)\n"},
		// The other commands answer help on stdout, and usage errors in one line.
		{args: []string{"inspect"}, code: 2, stderr: "questbot inspect: no quest file given (see questbot help inspect)\n"},
		{args: []string{"inspect", "-h"}, stdoutHas: "usage: questbot inspect"},
		{args: []string{"play"}, code: 2, stderr: "questbot play: one quest file is needed (see questbot help play)\n"},
		{args: []string{"play", "--help"}, stdoutHas: "usage: questbot play"},
		{args: []string{"replay", "x.jsonl.gz"}, code: 2,
			stderr: "questbot replay: --quests is needed (see questbot help replay)\n"},
		{args: []string{"replay", "--help"}, stdoutHas: "usage: questbot replay"},
		{args: []string{"webload", "--help"}, stdoutHas: "usage: questbot webload"},
		{args: []string{"webload", "extra"}, code: 2,
			stderr: "questbot webload: unexpected argument \"extra\" (see questbot help webload)\n"},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			t.Parallel()
			c.check(t)
		})
	}
}

// Ensure `questbot help <command>` describes every command on stdout, with exit status 0 and
// nothing on stderr, and so does `questbot <command> --help`.
func TestHelpOfEveryCommand(t *testing.T) {
	t.Parallel()
	for name := range commands {
		for _, args := range [][]string{{"help", name}, {name, "--help"}} {
			t.Run(strings.Join(args, " "), func(t *testing.T) {
				t.Parallel()
				cliCase{args: args, stdoutHas: "usage: questbot"}.check(t)
			})
		}
	}
}

// Ensure the command list of `questbot help` is one column of names and one of summaries: every
// summary starts where the others do, the longest name's included.
func TestHelpColumns(t *testing.T) {
	t.Parallel()
	var stdout bytes.Buffer
	if code := dispatch(context.Background(), []string{"help"}, &stdout, &bytes.Buffer{}); code != 0 {
		t.Fatalf("exit status %d", code)
	}
	column := -1
	rows := 0
	for _, line := range strings.Split(stdout.String(), "\n") {
		name, _, ok := strings.Cut(strings.TrimPrefix(line, "  "), " ")
		if !strings.HasPrefix(line, "  ") || !ok || commands[name].run == nil {
			continue
		}
		rows++
		at := len(line) - len(strings.TrimLeft(line[2+len(name):], " "))
		if column == -1 {
			column = at
		}
		if at != column || at <= 2+len(name) {
			t.Errorf("the summary of %s starts at column %d, the first at %d:\n%s", name, at, column, &stdout)
		}
	}
	if rows != len(commands) {
		t.Errorf("%d command rows, want %d:\n%s", rows, len(commands), &stdout)
	}
}
