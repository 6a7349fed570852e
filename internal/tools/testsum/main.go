// Command testsum runs go test with -json and prints what a plain go test prints (a line per
// package, and the output of the tests that fail), then what go test does not: a line per reason
// that tests were skipped with their count (Chromium missing, a flag not given, ...), the tests
// that failed, and a closing line "N passed, N failed, N skipped".
//
// Usage, as make test runs it:
//
//	go run ./internal/tools/testsum go test -json -race ./...
//
// The command after testsum's name runs as given, its standard error passed through; testsum
// exits with its exit status, or 1 when a test failed although the command said nothing wrong.
// An interrupt (Ctrl-C) reaches go test, which stops the tests; testsum still prints what ran.
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"regexp"
	"sort"
	"strings"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: testsum go test -json [flags] [packages]")
		os.Exit(2)
	}
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	cmd.Stdin, cmd.Stderr = os.Stdin, os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		fmt.Fprintln(os.Stderr, "testsum:", err)
		os.Exit(2)
	}
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "testsum:", err)
		os.Exit(2)
	}
	// The interrupt stops go test, sent to the whole process group by the terminal; testsum
	// lives on to summarize.
	signal.Ignore(os.Interrupt)
	w := bufio.NewWriter(os.Stdout)
	s := newSummary(w)
	s.read(out)
	err = cmd.Wait()
	s.report()
	w.Flush()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		os.Exit(max(exit.ExitCode(), 1))
	case err != nil:
		fmt.Fprintln(os.Stderr, "testsum:", err)
		os.Exit(2)
	case s.failed > 0:
		os.Exit(1)
	}
}

// event is a line of go test -json (cmd/test2json).
type event struct {
	Action     string
	Package    string
	ImportPath string // of the build-output and build-fail events
	Test       string
	Output     string
}

// summary reads the events and writes what a plain go test writes to w, keeping the counts.
type summary struct {
	w                     io.Writer
	passed, failed, skips int
	// pending is the output of each test running, kept until it ends: printed if it fails.
	pending map[string][]string
	// reasons counts the skipped tests by the reason they gave.
	reasons map[string]int
	// failures names the failed tests, "package TestName", in the order they failed.
	failures []string
}

func newSummary(w io.Writer) *summary {
	return &summary{w: w, pending: map[string][]string{}, reasons: map[string]int{}}
}

// read handles every line of r; a line that is not an event is printed as it is.
func (s *summary) read(r io.Reader) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for sc.Scan() {
		var e event
		if line := sc.Bytes(); len(line) == 0 || line[0] != '{' || json.Unmarshal(line, &e) != nil {
			fmt.Fprintln(s.w, sc.Text())
			continue
		}
		s.handle(e)
	}
	if err := sc.Err(); err != nil {
		fmt.Fprintln(s.w, "testsum: reading go test's output:", err)
	}
}

func (s *summary) handle(e event) {
	key := e.Package + " " + e.Test
	switch {
	case e.Action == "build-output":
		fmt.Fprint(s.w, e.Output)
	case e.Test == "" && e.Action == "output":
		// The package's own lines: "ok", "FAIL", "?", a panic outside tests. The bare "PASS"
		// before "ok" is left out, as a plain go test leaves it out.
		if e.Output != "PASS\n" && !strings.HasPrefix(e.Output, "=== ") {
			fmt.Fprint(s.w, e.Output)
		}
	case e.Test == "":
	case e.Action == "output":
		s.pending[key] = append(s.pending[key], e.Output)
	case e.Action == "pass":
		s.passed++
		delete(s.pending, key)
	case e.Action == "skip":
		s.skips++
		s.reasons[skipReason(s.pending[key])]++
		delete(s.pending, key)
	case e.Action == "fail":
		s.failed++
		s.failures = append(s.failures, e.Package+" "+e.Test)
		for _, line := range s.pending[key] {
			if !strings.HasPrefix(line, "=== ") {
				fmt.Fprint(s.w, line)
			}
		}
		delete(s.pending, key)
	}
}

// logLine is a line a test logged: "    file_test.go:12: the message".
var logLine = regexp.MustCompile(`^\s+[\w.-]+\.go:\d+: (.*)$`)

// skipReason is the last message a skipped test logged, the one t.Skip gave.
func skipReason(output []string) string {
	for i := len(output) - 1; i >= 0; i-- {
		if m := logLine.FindStringSubmatch(strings.TrimRight(output[i], "\n")); m != nil {
			return m[1]
		}
	}
	return "no reason given"
}

// report writes the skip reasons, most frequent first, the failed tests and the counts.
func (s *summary) report() {
	reasons := make([]string, 0, len(s.reasons))
	for r := range s.reasons {
		reasons = append(reasons, r)
	}
	sort.Slice(reasons, func(i, j int) bool {
		a, b := reasons[i], reasons[j]
		return s.reasons[a] > s.reasons[b] || s.reasons[a] == s.reasons[b] && a < b
	})
	for _, r := range reasons {
		fmt.Fprintf(s.w, "skipped %d: %s\n", s.reasons[r], r)
	}
	for _, f := range s.failures {
		fmt.Fprintf(s.w, "failed: %s\n", f)
	}
	fmt.Fprintf(s.w, "%d passed, %d failed, %d skipped\n", s.passed, s.failed, s.skips)
}
