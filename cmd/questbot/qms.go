package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/questbot/questbot/qmm"
	"github.com/questbot/questbot/qms"
)

// runQms is the `qms` command: it compiles quest sources in the original bot's language into
// .qmm files and turns quest files back into sources.
//
//	questbot qms compile FILE.qms [-o OUT.qmm]
//	questbot qms decompile FILE.qm[m] [-o OUT.qms]
//
// compile writes OUT (by default FILE with .qmm) and prints the compiler's warnings (constructs
// it ignores) on stderr; a source with errors writes nothing, prints every error and exits 1.
// decompile writes OUT (by default FILE with .qms). Exit status 2 is bad usage.
func runQms(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	usage := func() {
		fmt.Fprintln(stderr, "usage: questbot qms compile FILE.qms [-o OUT.qmm]")
		fmt.Fprintln(stderr, "       questbot qms decompile FILE.qm[m] [-o OUT.qms]")
	}
	if len(args) == 0 {
		usage()
		return 2
	}
	if helpArgs[args[0]] {
		usage()
		return 0
	}
	sub := args[0]
	fs := flag.NewFlagSet("qms "+sub, flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("o", "", "output `file`")
	fs.Usage = usage
	// The file may come before or after -o.
	files, code, ok := parseOperands(fs, args[1:])
	if !ok {
		return code
	}
	if len(files) != 1 || (sub != "compile" && sub != "decompile") {
		usage()
		return 2
	}
	var err error
	switch sub {
	case "compile":
		err = qmsCompile(files[0], *out, stdout, stderr)
	case "decompile":
		err = qmsDecompile(files[0], *out, stdout)
	}
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	return 0
}

func qmsCompile(in, out string, stdout, stderr io.Writer) error {
	if out == "" {
		out = strings.TrimSuffix(in, filepath.Ext(in)) + ".qmm"
	}
	dir, name := filepath.Split(in)
	if dir == "" {
		dir = "."
	}
	fsys := os.DirFS(dir)
	q, warnings, err := qms.CompileWithWarnings(fsys, name)
	for _, w := range warnings {
		fmt.Fprintf(stderr, "warning: %v\n", w)
	}
	if err != nil {
		var list qms.ErrorList
		if errors.As(err, &list) {
			return fmt.Errorf("%s: %d errors:\n%w", in, len(list), err)
		}
		return err
	}
	var buf bytes.Buffer
	if err := qmm.Encode(&buf, q); err != nil {
		return fmt.Errorf("encode %s: %w", out, err)
	}
	if err := os.WriteFile(out, buf.Bytes(), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s: %d parameters, %d locations, %d jumps\n", out, len(q.Params), len(q.Locations), len(q.Jumps))
	return nil
}

func qmsDecompile(in, out string, stdout io.Writer) error {
	if out == "" {
		out = strings.TrimSuffix(in, filepath.Ext(in)) + ".qms"
	}
	data, err := os.ReadFile(in)
	if err != nil {
		return err
	}
	q, err := qmm.DecodeBytes(data)
	if err != nil {
		return fmt.Errorf("%s: %w", in, err)
	}
	if err := os.WriteFile(out, qms.Decompile(q), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s: %d parameters, %d locations, %d jumps\n", out, len(q.Params), len(q.Locations), len(q.Jumps))
	return nil
}
