package devtools_test

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/questbot/questbot/bot/devtools"
	"github.com/questbot/questbot/bot/testkit/bottest"
	"github.com/questbot/questbot/bot/testkit/wait"
)

// fileServer stands between the bot and the emulator and holds the downloads of files (the
// /file/ requests) until it is let go, or serves them with a body of its own; the Bot API
// requests pass.
type fileServer struct {
	started atomic.Int32 // file requests begun
	mu      sync.Mutex
	hold    chan struct{} // closed: downloads go through
	body    []byte        // set: the body every download gets
}

func newFileServer() *fileServer { return &fileServer{hold: make(chan struct{})} }

func (f *fileServer) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.URL.Path, "/file/") {
			next.ServeHTTP(w, r)
			return
		}
		f.started.Add(1)
		f.mu.Lock()
		hold, body := f.hold, f.body
		f.mu.Unlock()
		select {
		case <-hold:
		case <-r.Context().Done():
			return
		}
		if body != nil {
			w.Write(body)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// release lets the held downloads, and all after them, go through.
func (f *fileServer) release() {
	f.mu.Lock()
	defer f.mu.Unlock()
	select {
	case <-f.hold:
	default:
		close(f.hold)
	}
}

// serve makes every download from now on get body at once.
func (f *fileServer) serve(body []byte) {
	f.mu.Lock()
	f.body = body
	f.mu.Unlock()
	f.release()
}

// waitStarted waits until n downloads have begun.
func (f *fileServer) waitStarted(t *testing.T, n int32) {
	t.Helper()
	wait.For(t, bottest.Timeout, fmt.Sprintf("%d downloads to begin", n), func() bool { return f.started.Load() >= n })
}

// Ensure a download is no part of any update's handling: while the file of an upload is held
// back for as long as the test likes, the uploader is told at once that it has come, their next
// message is answered, and so is every message of fifteen other chats; once the file comes it
// is checked and stored, and the uploader is told.
func TestDownloadOutsideTransaction(t *testing.T) {
	t.Parallel()
	files := newFileServer()
	e := newEnvWith(t, bottest.Options{Wrap: files.wrap}, nil)
	t.Cleanup(files.release)
	const dev = 60
	e.user(dev, "Dev", "dev", "en")
	e.hello(t, dev)
	e.makeDeveloper(t, dev)
	var others []int64
	for i := range int64(15) {
		others = append(others, 100+i)
		e.user(100+i, fmt.Sprint("U", i), "", "en")
		e.hello(t, 100+i)
	}

	n := e.LastID(dev)
	e.upload(t, dev, "Probe.qmm", probe(t, "held"))
	e.WaitTextAfter(t, dev, n, "«Probe.qmm» has come")
	files.waitStarted(t, 1)
	help := e.ask(t, dev, "/help", "choose a quest")
	marks := map[int64]int{}
	for _, u := range others {
		marks[u] = e.LastID(u)
		e.Send(t, u, "/help")
	}
	for _, u := range others {
		e.WaitTextAfter(t, u, marks[u], "choose a quest")
	}
	select {
	case <-files.hold:
		t.Fatal("the download was let go before the other chats were answered")
	default:
	}
	if e.CountText(dev, "is uploaded") != 0 || e.QueryInt(t, `SELECT count(*) FROM dev_upload`) != 0 {
		t.Fatal("the quest was stored before its file came")
	}

	files.release()
	done := e.WaitTextAfter(t, dev, n, "Quest «Probe» is uploaded")
	if done.ID < help.ID {
		t.Errorf("the upload was answered (message %d) before the /help sent after it (message %d)", done.ID, help.ID)
	}
	e.WaitIdle(t)
	if got := e.QueryInt(t, `SELECT count(*) FROM dev_fetch`); got != 0 {
		t.Errorf("%d files left to fetch", got)
	}
	if got := files.started.Load(); got != 1 {
		t.Errorf("%d downloads, want 1", got)
	}
}

// Ensure no upload is lost whatever stops the bot: a process that records the file and stops
// before fetching it, one that stops in the middle of the download, and one that dies holding
// the file (its claim then runs out) leave the file to the next process, which stores it once.
func TestUploadSurvivesStops(t *testing.T) {
	t.Parallel()
	files := newFileServer()
	e := newEnvWith(t, bottest.Options{Wrap: files.wrap}, nil)
	t.Cleanup(files.release)
	const dev = 61
	e.user(dev, "Dev", "dev", "en")
	e.hello(t, dev)
	e.makeDeveloper(t, dev)

	// A process without the downloads records the file and answers; then it stops.
	e.proc.Stop()
	e.start(t, false)
	n := e.LastID(dev)
	e.upload(t, dev, "Probe.qmm", probe(t, "stops"))
	e.WaitTextAfter(t, dev, n, "has come")
	e.WaitIdle(t)
	e.proc.Stop()
	if got := e.QueryInt(t, `SELECT count(*) FROM dev_fetch WHERE claim IS NULL AND attempts = 0`); got != 1 {
		t.Fatalf("%d files recorded and untouched, want 1", got)
	}

	// The next process begins the download; it stops in the middle, and lets the file go.
	e.start(t, true)
	files.waitStarted(t, 1)
	e.proc.Stop()
	if got := e.QueryInt(t, `SELECT count(*) FROM dev_fetch WHERE claim IS NULL AND attempts = 0`); got != 1 {
		t.Fatalf("after a stop during the download: %d files waiting as they were, want 1", got)
	}

	// A process that died holding the file, its claim run out.
	e.Exec(t, `UPDATE dev_fetch SET claim = 'died', claimed_until = now() - interval '1 second', attempts = 1`)
	files.release()
	e.start(t, true)
	e.WaitTextAfter(t, dev, n, "Quest «Probe» is uploaded")
	e.WaitIdle(t)
	if got := e.QueryInt(t, `SELECT count(*) FROM dev_upload`); got != 1 {
		t.Errorf("%d uploads stored, want 1", got)
	}
	if got := e.QueryInt(t, `SELECT count(*) FROM dev_fetch`); got != 0 {
		t.Errorf("%d files left to fetch", got)
	}
	if got := e.CountText(dev, "is uploaded"); got != 1 {
		t.Errorf("told %d times that the quest is uploaded", got)
	}
}

// Ensure a download is bounded in time: one that never ends is cut at the time limit, tried
// three times in all, and given up; the user is asked to send the file again and nothing is
// left behind. (Each attempt asks getFile once, whether the limit then cuts getFile or the
// download.)
func TestDownloadTimeLimit(t *testing.T) {
	t.Parallel()
	files := newFileServer() // never let go: every download is held until the test ends
	e := newEnvWith(t, bottest.Options{Wrap: files.wrap}, func(c *devtools.Config) {
		c.FetchTimeout = 500 * time.Millisecond
		c.FetchRetry = time.Millisecond
	})
	t.Cleanup(files.release)
	const dev = 62
	e.user(dev, "Dev", "dev", "en")
	e.hello(t, dev)
	e.makeDeveloper(t, dev)

	n := e.LastID(dev)
	e.upload(t, dev, "Probe.qmm", probe(t, "never"))
	e.WaitTextAfter(t, dev, n, "I could not download «Probe.qmm». Please send it again.")
	if got := e.Bot.Count("getFile"); got != 3 {
		t.Errorf("%d attempts (getFile), want 3", got)
	}
	e.WaitIdle(t)
	if got := e.QueryInt(t, `SELECT count(*) FROM dev_fetch`) + e.QueryInt(t, `SELECT count(*) FROM dev_upload`); got != 0 {
		t.Errorf("%d rows left by the failed download", got)
	}
}

// Ensure a download is bounded in size: a file that turns out larger than its kind's limit (it
// claims 2 KB and comes with 2 MB) is refused once the download passes the limit, and nothing is
// left behind.
func TestDownloadSizeLimit(t *testing.T) {
	t.Parallel()
	files := newFileServer()
	files.serve(make([]byte, 2<<20))
	e := newEnvWith(t, bottest.Options{Wrap: files.wrap}, func(c *devtools.Config) { c.MaxQuest = 1 << 20 })
	const dev = 63
	e.user(dev, "Dev", "dev", "en")
	e.hello(t, dev)
	e.makeDeveloper(t, dev)

	n := e.LastID(dev)
	e.upload(t, dev, "Big.qmm", make([]byte, 2<<10))
	e.WaitTextAfter(t, dev, n, "«Big.qmm» is too big: I take at most 1.0 MB of this kind.")
	e.WaitIdle(t)
	if got := e.QueryInt(t, `SELECT count(*) FROM dev_fetch`) + e.QueryInt(t, `SELECT count(*) FROM dev_upload`); got != 0 {
		t.Errorf("%d rows left by the refused download", got)
	}
	if got := files.started.Load(); got != 1 {
		t.Errorf("%d downloads, want 1", got)
	}
}
