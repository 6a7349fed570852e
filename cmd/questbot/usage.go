package main

import (
	"fmt"
	"io"
	"sort"
)

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
}
