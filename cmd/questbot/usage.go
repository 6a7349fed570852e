package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
)

// helpArgs are the arguments that ask for help rather than name a command or an option.
var helpArgs = map[string]bool{"-h": true, "-help": true, "--help": true}

// parseOperands parses fs's flags from args, which may come before, between and after the
// operands, and returns the operands. When the flags do not parse it returns ok false and the
// exit status: 0 for a request for help (the usage was printed), 2 for bad usage.
func parseOperands(fs *flag.FlagSet, args []string) (operands []string, code int, ok bool) {
	for rest := args; ; {
		if err := fs.Parse(rest); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, 0, false
			}
			return nil, 2, false
		}
		if fs.NArg() == 0 {
			return operands, 0, true
		}
		operands = append(operands, fs.Arg(0))
		rest = fs.Args()[1:]
	}
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
	for _, name := range names {
		fmt.Fprintf(w, "  %-8s %s\n", name, commands[name].summary)
	}
	fmt.Fprintln(w, "`questbot help <command>` (or `questbot <command> -h`) describes a command;")
	fmt.Fprintln(w, "`questbot help serve` lists the environment variables that configure the bot.")
}

// serveUsage describes `questbot serve`: its one flag, --role, and the variables of
// envDefaults, listed with their defaults.
func serveUsage(w io.Writer) {
	fmt.Fprintln(w, "usage: questbot [serve] [--role all|poller|worker]")
	fmt.Fprintln(w, "Runs the bot until SIGINT, SIGTERM or SIGHUP. --role splits the bot among processes on one")
	fmt.Fprintln(w, "database: all (the default) receives, handles and sends; poller only receives updates (the long")
	fmt.Fprintln(w, "poll under a lease per bot, or the webhook); worker handles, sends and runs the scheduled jobs.")
	fmt.Fprintln(w, "It is configured by these environment variables (the README's configuration table says more):")
	for _, e := range envDefaults {
		def := ""
		if e.def != "" {
			def = " (default: " + e.def + ")"
		}
		fmt.Fprintf(w, "  %-25s %s%s\n", e.name, e.help, def)
	}
}
