package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"
	"unicode"
)

// # Command lines
//
// Every command reads its command line the same way (parseOperands): flags may come before,
// between and after the operands; "--" ends the flags; an argument that starts with "-" but not
// with a letter (a negative number, a formula such as -5+2) is an operand. A request for help
// (-h, -help, --help, or `questbot help <command>`) prints the command's help on stdout and
// exits 0. A usage error is one line on stderr, "questbot <command>: <what is wrong> (see
// questbot help <command>)", and exits 2; a command that ran and failed exits 1.

// helpArgs are the arguments that ask for help rather than name a command or an option.
var helpArgs = map[string]bool{"-h": true, "-help": true, "--help": true}

// versionArgs are the arguments that ask for the version, as `questbot version` does.
var versionArgs = map[string]bool{"-version": true, "--version": true}

// parseOperands parses fs's flags from args, which may come before, between and after the
// operands, and returns the operands. fs's name is the command's ("calc", "qms compile"). When
// the arguments ask for help, help and the flags are printed on stdout and it returns ok false
// with code 0; when a flag does not parse, one line on stderr and code 2.
func parseOperands(fs *flag.FlagSet, args []string, help func(io.Writer), stdout, stderr io.Writer) (operands []string, code int, ok bool) {
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(operands, args[i+1:]...), 0, true
		}
		if !isFlag(a) {
			operands = append(operands, a)
			continue
		}
		// A flag, with its value when it takes one and does not carry it after "=".
		n := 1
		name := strings.TrimLeft(a, "-")
		if !strings.Contains(name, "=") && i+1 < len(args) {
			if f := fs.Lookup(name); f != nil && !isBoolFlag(f) {
				n = 2
			}
		}
		if err := fs.Parse(args[i : i+n]); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				printHelp(fs, help, stdout)
				return nil, 0, false
			}
			return nil, usageError(stderr, fs.Name(), "%v", err), false
		}
		i += n - 1
	}
	return operands, 0, true
}

// isFlag reports whether a command-line argument is a flag: "-" or "--" and a letter.
func isFlag(a string) bool {
	name := strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-")
	if len(name) == len(a) || name == "" {
		return false
	}
	r := []rune(name)[0]
	return unicode.IsLetter(r)
}

// isBoolFlag reports whether a flag takes no value (-json rather than -json=true).
func isBoolFlag(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// printHelp prints a command's help and its flags on w.
func printHelp(fs *flag.FlagSet, help func(io.Writer), w io.Writer) {
	help(w)
	fs.SetOutput(w)
	fs.PrintDefaults()
	fs.SetOutput(io.Discard)
}

// usageError prints a usage error of a command (such as "calc" or "qms compile") on one line,
// with where to read the command's help, and returns exit status 2.
func usageError(stderr io.Writer, cmd, format string, a ...any) int {
	top, _, _ := strings.Cut(cmd, " ")
	fmt.Fprintf(stderr, "questbot %s: %s (see questbot help %s)\n", cmd, fmt.Sprintf(format, a...), top)
	return 2
}

// usage prints the command list: what `questbot help`, `questbot -h` and `questbot --help` show.
func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: questbot [command] [arguments]")
	fmt.Fprintln(w, "commands:")
	names := make([]string, 0, len(commands))
	for name := range commands {
		names = append(names, name)
	}
	sort.Strings(names)
	width := 0
	for _, name := range names {
		width = max(width, len(name))
	}
	for _, name := range names {
		fmt.Fprintf(w, "  %-*s %s\n", width, name, commands[name].summary)
	}
	fmt.Fprintln(w, "`questbot help <command>` (or `questbot <command> -h`) describes a command;")
	fmt.Fprintln(w, "`questbot help serve` lists the environment variables that configure the bot.")
}

// helpUsage describes `questbot help` itself.
func helpUsage(w io.Writer) {
	fmt.Fprintln(w, "usage: questbot help [command]")
	fmt.Fprintln(w, "Without a command, lists the commands; with one, describes it, as `questbot <command> -h` does.")
}

// serveUsage describes `questbot serve`: its one flag, --role, and the variables of
// envDefaults, listed with their defaults.
func serveUsage(w io.Writer) {
	fmt.Fprintln(w, "usage: questbot [serve] [--role all|poller|worker]")
	fmt.Fprintln(w, "Runs the bot until SIGINT, SIGTERM or SIGHUP. --role splits the bot among processes on one")
	fmt.Fprintln(w, "database: all (the default) receives, handles and sends; poller only receives updates (the long")
	fmt.Fprintln(w, "poll under a lease per bot, or the webhook); worker handles, sends and runs the scheduled jobs.")
	fmt.Fprintln(w, "It is configured by these environment variables (docs/operators.md says more of each):")
	for _, e := range envDefaults {
		def := ""
		if e.def != "" {
			def = " (default: " + e.def + ")"
		}
		fmt.Fprintf(w, "  %-25s %s%s\n", e.name, e.help, def)
	}
}
