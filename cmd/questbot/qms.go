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
//	questbot qms compile FILE.qms [-o OUT.qmm] [-f]
//	questbot qms decompile FILE.qm[m] [-o OUT.qms] [-f]
//
// compile writes OUT (by default FILE with .qmm) and prints the compiler's warnings (constructs
// it ignores) on stderr; a source with errors writes nothing, prints every error and exits 1.
// decompile writes OUT (by default FILE with .qms). Neither overwrites a file that exists (an
// original quest beside its source, a source edited since it was decompiled) unless -f is given:
// it says so and exits 1. The output is written whole or not at all. Exit status 2 is bad usage.
func runQms(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	help := func(w io.Writer) {
		fmt.Fprintln(w, "usage: questbot qms compile FILE.qms [-o OUT.qmm] [-f]")
		fmt.Fprintln(w, "       questbot qms decompile FILE.qm[m] [-o OUT.qms] [-f]")
		fmt.Fprintln(w, "compile turns a quest source into a .qmm file, decompile a .qm or .qmm file into a source.")
		fmt.Fprintln(w, "OUT is by default FILE with the other extension; an existing file is not overwritten without -f.")
	}
	if len(args) == 0 {
		return usageError(stderr, "qms", "a subcommand is needed: compile or decompile")
	}
	sub := args[0]
	fs := flag.NewFlagSet("qms "+sub, flag.ContinueOnError)
	out := fs.String("o", "", "output `file`")
	force := fs.Bool("f", false, "overwrite the output file if it exists")
	switch {
	case helpArgs[sub]:
		printHelp(fs, help, stdout)
		return 0
	case sub != "compile" && sub != "decompile":
		return usageError(stderr, "qms", "unknown subcommand %q: compile or decompile", sub)
	}
	// The file may come before or after the flags.
	files, code, ok := parseOperands(fs, args[1:], help, stdout, stderr)
	if !ok {
		return code
	}
	if len(files) != 1 {
		what := map[string]string{"compile": "FILE.qms", "decompile": "FILE.qm or FILE.qmm"}[sub]
		return usageError(stderr, fs.Name(), "one %s is needed", what)
	}
	var err error
	switch sub {
	case "compile":
		err = qmsCompile(ctx, files[0], *out, *force, stdout, stderr)
	case "decompile":
		err = qmsDecompile(files[0], *out, *force, stdout)
	}
	if err != nil {
		fmt.Fprintf(stderr, "questbot %s: %v\n", fs.Name(), err)
		return 1
	}
	return 0
}

// qmsCompile compiles in into out, within the compiler's default limits and until ctx is done
// (Ctrl-C stops it at once).
func qmsCompile(ctx context.Context, in, out string, force bool, stdout, stderr io.Writer) error {
	if out == "" {
		out = strings.TrimSuffix(in, filepath.Ext(in)) + ".qmm"
	}
	// The source itself must be there: the compiler would read a missing one as an empty source
	// and report what that lacks too.
	f, err := os.Open(in)
	if err != nil {
		return err
	}
	f.Close()
	if err := checkOutput(out, force); err != nil {
		return err
	}
	dir, name := filepath.Split(in)
	if dir == "" {
		dir = "."
	}
	fsys := os.DirFS(dir)
	q, warnings, err := qms.CompileContext(ctx, fsys, name, qms.DefaultLimits)
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
	if err := writeOutput(out, buf.Bytes(), force); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s: %d parameters, %d locations, %d jumps\n", out, len(q.Params), len(q.Locations), len(q.Jumps))
	return nil
}

func qmsDecompile(in, out string, force bool, stdout io.Writer) error {
	if out == "" {
		out = strings.TrimSuffix(in, filepath.Ext(in)) + ".qms"
	}
	data, err := os.ReadFile(in)
	if err != nil {
		return err
	}
	if err := checkOutput(out, force); err != nil {
		return err
	}
	q, err := qmm.DecodeBytes(data)
	if err != nil {
		return fmt.Errorf("%s: %w", in, err)
	}
	if err := writeOutput(out, qms.Decompile(q), force); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s: %d parameters, %d locations, %d jumps\n", out, len(q.Params), len(q.Locations), len(q.Jumps))
	return nil
}

// errOutputExists is the refusal to overwrite an output file.
var errOutputExists = errors.New("exists; -f overwrites it, -o names another output")

// checkOutput refuses an output file that exists, unless force, before any work is done.
func checkOutput(out string, force bool) error {
	if force {
		return nil
	}
	if _, err := os.Lstat(out); err == nil {
		return fmt.Errorf("%s %w", out, errOutputExists)
	}
	return nil
}

// writeOutput writes data to out: when force, into a temporary file beside it renamed over it,
// so that an existing file is replaced whole or not at all; otherwise into a new file, which
// fails when a file took the name since checkOutput looked, and is removed if writing fails.
func writeOutput(out string, data []byte, force bool) error {
	if !force {
		f, err := os.OpenFile(out, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, os.ErrExist) {
			return fmt.Errorf("%s %w", out, errOutputExists)
		}
		if err != nil {
			return err
		}
		_, err = f.Write(data)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(out)
		}
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(out), "."+filepath.Base(out)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.Write(data)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o644)
	}
	if err != nil {
		return err
	}
	return os.Rename(tmp.Name(), out)
}
