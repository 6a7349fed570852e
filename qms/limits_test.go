package qms_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/questbot/questbot/internal/hostile"
	"github.com/questbot/questbot/qms"
)

// limitOf returns the limit that stopped a compilation, failing the test when none did.
func limitOf(t *testing.T, err error) *qms.LimitError {
	t.Helper()
	var le *qms.LimitError
	var list qms.ErrorList
	if !errors.As(err, &list) || !errors.As(err, &le) {
		t.Fatalf("error %v: want an error list that names a limit", err)
	}
	last := list[len(list)-1]
	if !errors.Is(last, le) || last.Line < 1 || last.Col < 1 {
		t.Fatalf("the limit is not the last error of the list, with its place: %#v", last)
	}
	return le
}

// Ensure the bomb (two nested #for loops asking for 300×1000 sites in 154 bytes) is refused
// with the error naming the limit of sites, once the limit is passed: the work done is a few
// steps per site allowed, not per site asked for.
func TestBombRefused(t *testing.T) {
	t.Parallel()
	src := []byte(hostile.QMSBomb)
	steps, err := qms.Steps(src, qms.DefaultLimits)
	le := limitOf(t, err)
	if le.Limit != "sites" || le.Max != int64(qms.DefaultLimits.Sites) {
		t.Fatalf("limit %+v, want the sites at %d", le, qms.DefaultLimits.Sites)
	}
	want := fmt.Sprintf("the source passes the limit of %d sites", qms.DefaultLimits.Sites)
	if !strings.Contains(err.Error(), "steps.qms:3:1: "+want) {
		t.Errorf("the error %q does not say %q where the site is", err, want)
	}
	// Each site of the bomb is four lines (and a turn of the inner loop); the limit stops it
	// after its 10,001st.
	if max := 6 * (qms.DefaultLimits.Sites + 1); steps > max {
		t.Errorf("%d steps before the refusal, want at most %d", steps, max)
	}
	// The public entry points refuse it the same way.
	_, err = qms.CompileSource("bomb.qms", src)
	if le := limitOf(t, err); le.Limit != "sites" {
		t.Errorf("CompileSource: limit %q, want sites", le.Limit)
	}
}

// Ensure each limit is enforced and named: jumps, variables, steps (a loop with an empty body),
// and memory (a macro whose expansion doubles its line at every level; sites of ten thousand
// empty pages each), each within its own bound of work.
func TestEveryLimit(t *testing.T) {
	t.Parallel()
	lim := qms.Limits{Sites: 100, Jumps: 200, Params: 50, Steps: 50_000, Memory: 1 << 20}
	cases := []struct {
		name, limit, src string
		max              int64
	}{
		{"jumps", "jumps", "#site:a #default\nHere.\n#for:i:1..1000\n#case:a 'Stay [$i]'\n#end\n", 200},
		{"steps", "steps", "#for:i:1..99999\n#for:j:1..99999\n#end\n#end\n#site:a #default\nHere.\n", 50_000},
		{"memory", "memory", memoryBomb(), 1 << 20},
		{"sites", "sites", "#for:i:1..1000\n#site:s[$i] #default\nHere.\n#end\n", 100},
		{"params", "params", "#for:i:1..1000\n#var:v[$i]\n#end\n#site:a #default\nHere.\n", 50},
		{"pages", "memory", "#for:i:1..90\n#site:s[$i] #default #pages:10000\nHere.\n#end\n", 1 << 20},
	}
	for _, tc := range cases {
		steps, err := qms.Steps([]byte(tc.src), lim)
		le := limitOf(t, err)
		if le.Limit != tc.limit || le.Max != tc.max {
			t.Errorf("%s: stopped by %+v, want %s at %d", tc.name, le, tc.limit, tc.max)
		}
		if !strings.Contains(err.Error(), "limit of") {
			t.Errorf("%s: the error %q does not name the limit", tc.name, err)
		}
		if steps > lim.Steps+1 { // the step that passed the limit counted
			t.Errorf("%s: %d steps, past the limit of %d", tc.name, steps, lim.Steps)
		}
	}
	// Within the same limits, a source below each compiles.
	ok := "#site:a #default\nHere.\n#for:i:1..50\n#site:s[$i]\nRoom [$i].\n#case:a 'Back'\n#end\n#site:a\n#for:i:1..50\n#case:s[$i] 'Room [$i]'\n#end\n"
	if _, err := qms.Steps([]byte(ok), lim); err != nil {
		t.Errorf("a source within the limits: %v", err)
	}
}

// memoryBomb is a macro chain that doubles a line at each of 30 levels: 2^30 copies of a word.
func memoryBomb() string {
	var b strings.Builder
	b.WriteString("#macro:m0:x\n#site:a #default\n[$x]\n#end\n")
	for i := 1; i <= 30; i++ {
		fmt.Fprintf(&b, "#macro:m%d:x\n#m%d:[$x][$x]\n#end\n", i, i-1)
	}
	b.WriteString("#m30:boom\n")
	return b.String()
}

// startFS is a folder whose first Open closes started: the compilation has begun.
type startFS struct {
	files   fstest.MapFS
	started chan struct{}
}

func (s startFS) Open(name string) (fs.File, error) {
	select {
	case <-s.started:
	default:
		close(s.started)
	}
	return s.files.Open(name)
}

// Ensure a compilation stops when its context is cancelled: the bomb, with limits too high to
// stop it (it would run for minutes), returns context.Canceled once cancelled. The bound of the
// wait only catches a compilation that does not stop.
func TestCancelStopsCompilation(t *testing.T) {
	t.Parallel()
	src := []byte(hostile.QMSBomb)
	fsys := startFS{files: fstest.MapFS{"bomb.qms": {Data: src}}, started: make(chan struct{})}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, _, err := qms.CompileContext(ctx, fsys, "bomb.qms", qms.Limits{Sites: 1 << 30, Jumps: 1 << 30, Steps: 1 << 40, Memory: 1 << 40})
		done <- err
	}()
	<-fsys.started
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("the cancelled compilation returned %v, want context.Canceled", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("the compilation did not stop when its context was cancelled")
	}
}
