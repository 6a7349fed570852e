package bot_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/questbot/questbot/bot"
	"github.com/questbot/questbot/bot/botpg"
	"github.com/questbot/questbot/bot/testkit/bottest"
	"github.com/questbot/questbot/bot/testkit/wait"
	"github.com/questbot/questbot/migrations/pgtest"
)

// fakeToken is the token of the fake server's bot; it must never reach the logs.
const fakeToken = "777000:FAKE-SECRET-never-logged"

// fakeAPI is a Bot API server written for the tests, for the faults the emulator cannot make:
// raw updates of any shape, getUpdates answered at once, answers that are not Telegram's and
// requests that hang. Updates are kept until an offset acknowledges them, as Telegram does; every
// other request is recorded and answered with a plausible result, unless fault answers it.
type fakeAPI struct {
	srv *httptest.Server

	mu      sync.Mutex
	updates []fakeUpdate // not yet acknowledged, in order
	offsets []int64      // the offset of every getUpdates, in order
	calls   []fakeCall   // every other request but getMe, in order
	wake    chan struct{}
	msgID   int
	// instant makes getUpdates answer at once when there is nothing to deliver, as a server
	// that ignores the timeout does.
	instant bool
	// fault, when set, may answer a request itself (it returns true when it did). It runs
	// without the lock held, so it may block.
	fault func(w http.ResponseWriter, r *http.Request, method string, p url.Values) bool
}

// fakeUpdate is an update the fake delivers: id decides when an offset acknowledges it (the raw
// text may carry another update_id, or none that can be read).
type fakeUpdate struct {
	id  int64
	raw string
}

// fakeCall is a request the fake received.
type fakeCall struct {
	Method string
	Params url.Values
}

func newFakeAPI(t *testing.T) *fakeAPI {
	t.Helper()
	f := &fakeAPI{wake: make(chan struct{})}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

// push queues raw updates, each acknowledged by an offset above its id.
func (f *fakeAPI) push(ups ...fakeUpdate) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.updates = append(f.updates, ups...)
	close(f.wake)
	f.wake = make(chan struct{})
}

// message returns the raw update of a private text message from user.
func message(id int64, user int64, text string) fakeUpdate {
	return fakeUpdate{id: id, raw: fmt.Sprintf(`{"update_id":%d,"message":{"message_id":%d,"date":1,`+
		`"from":{"id":%d,"is_bot":false,"first_name":"U%d","language_code":"en"},`+
		`"chat":{"id":%d,"type":"private","first_name":"U%d"},"text":%s}}`,
		id, id, user, user, user, user, strconv.Quote(text))}
}

func (f *fakeAPI) serve(w http.ResponseWriter, r *http.Request) {
	_, method, ok := strings.Cut(strings.TrimPrefix(r.URL.Path, "/bot"+fakeToken), "/")
	if !ok || !strings.HasPrefix(r.URL.Path, "/bot"+fakeToken+"/") {
		http.Error(w, `{"ok":false,"error_code":401,"description":"Unauthorized"}`, http.StatusUnauthorized)
		return
	}
	if err := r.ParseForm(); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	switch method {
	case "getMe":
		writeOK(w, `{"id":777000,"is_bot":true,"first_name":"Fake","username":"fake_bot"}`)
		return
	case "getUpdates":
		f.getUpdates(w, r)
		return
	}
	f.mu.Lock()
	f.calls = append(f.calls, fakeCall{Method: method, Params: r.Form})
	fault := f.fault
	f.mu.Unlock()
	if fault != nil && fault(w, r, method, r.Form) {
		return
	}
	switch method {
	case "sendMessage":
		f.mu.Lock()
		f.msgID++
		id := f.msgID
		f.mu.Unlock()
		writeOK(w, fmt.Sprintf(`{"message_id":%d,"date":1,"chat":{"id":%s,"type":"private"},"text":%s}`,
			id, r.Form.Get("chat_id"), strconv.Quote(r.Form.Get("text"))))
	default:
		writeOK(w, `true`)
	}
}

func writeOK(w http.ResponseWriter, result string) {
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"ok":true,"result":%s}`, result)
}

// getUpdates forgets the updates below the offset and answers the others, waiting up to the
// timeout for some unless instant is set. A negative offset is answered with every pending
// update, which is what a server does that reads it as counted from the end of its queue.
func (f *fakeAPI) getUpdates(w http.ResponseWriter, r *http.Request) {
	offset, _ := strconv.ParseInt(r.Form.Get("offset"), 10, 64)
	timeout, _ := strconv.Atoi(r.Form.Get("timeout"))
	deadline := time.After(time.Duration(timeout) * time.Second)
	f.mu.Lock()
	f.offsets = append(f.offsets, offset)
	f.mu.Unlock()
	for {
		f.mu.Lock()
		if offset > 0 {
			i := 0
			for i < len(f.updates) && f.updates[i].id < offset {
				i++
			}
			f.updates = f.updates[i:]
		}
		var raw []string
		for _, u := range f.updates {
			raw = append(raw, u.raw)
		}
		wake, instant := f.wake, f.instant
		f.mu.Unlock()
		if len(raw) > 0 || instant {
			writeOK(w, "["+strings.Join(raw, ",")+"]")
			return
		}
		select {
		case <-wake:
		case <-deadline:
			writeOK(w, "[]")
			return
		case <-r.Context().Done():
			return
		}
	}
}

// polls returns how many getUpdates requests the fake answered or holds.
func (f *fakeAPI) polls() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.offsets)
}

// offsetsAsked returns the offsets of the getUpdates requests so far.
func (f *fakeAPI) offsetsAsked() []int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]int64(nil), f.offsets...)
}

// callsOf returns the requests of a method so far.
func (f *fakeAPI) callsOf(method string) []fakeCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []fakeCall
	for _, c := range f.calls {
		if c.Method == method {
			out = append(out, c)
		}
	}
	return out
}

// textsTo returns the texts the fake was asked to send to a chat (every attempt, answered or not).
func (f *fakeAPI) textsTo(chat int64) []string {
	var out []string
	for _, c := range f.callsOf("sendMessage") {
		if c.Params.Get("chat_id") == strconv.FormatInt(chat, 10) {
			out = append(out, c.Params.Get("text"))
		}
	}
	return out
}

// setFault sets the fault hook.
func (f *fakeAPI) setFault(fault func(w http.ResponseWriter, r *http.Request, method string, p url.Values) bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.fault = fault
}

// fakeEnv is a fake Bot API server, a fresh database and the logs of the transport on them.
type fakeEnv struct {
	api  *fakeAPI
	pool *pgxpool.Pool
	logs *bottest.LogBuffer
}

func newFakeEnv(t *testing.T) *fakeEnv {
	t.Helper()
	e := &fakeEnv{api: newFakeAPI(t), pool: pgtest.New(t), logs: &bottest.LogBuffer{}}
	t.Cleanup(func() {
		if strings.Contains(e.logs.String(), "FAKE-SECRET") {
			t.Errorf("the token appears in the logs:\n%s", e.logs)
		}
	})
	return e
}

// start runs a transport on the fake server until the test ends or the returned function is
// called; unset, cfg's Store is the database, Log writes to logs, PollTimeout is 1 s and Rescan
// 100 ms.
func (e *fakeEnv) start(t *testing.T, cfg bot.Config) (*bot.Transport, int, func()) {
	t.Helper()
	if cfg.Store == nil {
		cfg.Store = botpg.New(e.pool)
	}
	if cfg.Log == nil {
		cfg.Log = e.log()
	}
	if cfg.PollTimeout == 0 {
		cfg.PollTimeout = time.Second
	}
	if cfg.Rescan == 0 {
		cfg.Rescan = 100 * time.Millisecond
	}
	ctx, cancel := context.WithCancel(context.Background())
	api, err := bot.NewAPI(ctx, fakeToken, e.api.srv.URL+"/bot%s/%s", nil)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	tr := bot.New(cfg)
	service, err := tr.AddBot(ctx, api)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { tr.Run(ctx); close(done) }()
	var once sync.Once
	stop := func() {
		once.Do(func() {
			cancel()
			select {
			case <-done:
			case <-time.After(wait.Hang):
				t.Error("the transport did not stop")
			}
		})
	}
	t.Cleanup(stop)
	return tr, service, stop
}

// log returns a logger writing every level, as text, to logs.
func (e *fakeEnv) log() *slog.Logger {
	return slog.New(slog.NewTextHandler(e.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// waitFor waits until cond holds; the failure shows the logs.
func (e *fakeEnv) waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	wait.ForShowing(t, bottest.Timeout, what, cond, func() string { return "logs:\n" + e.logs.String() })
}

// queryInt runs a query for one integer.
func (e *fakeEnv) queryInt(t *testing.T, sql string, args ...any) int {
	t.Helper()
	var n int
	if err := e.pool.QueryRow(context.Background(), sql, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// recorder is a handler that records the updates it is given and answers texts with "got TEXT".
type recorder struct {
	mu  sync.Mutex
	got []*bot.Update
}

func (h *recorder) handle(ctx context.Context, tx bot.Tx, u *bot.Update) error {
	h.mu.Lock()
	h.got = append(h.got, u)
	h.mu.Unlock()
	if u.Message == nil || u.Message.Chat == nil {
		return nil
	}
	reqs, err := bot.SendHTML(u.Message.Chat.ID, "got "+u.Message.Text, nil)
	if err != nil {
		return err
	}
	return tx.Send(ctx, reqs...)
}

// updateIDs returns the ids of the updates handled so far, in order.
func (h *recorder) updateIDs() []int {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []int
	for _, u := range h.got {
		out = append(out, u.UpdateID)
	}
	return out
}

// updates returns the updates handled so far.
func (h *recorder) updates() []*bot.Update {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]*bot.Update(nil), h.got...)
}

// metricValue reads the value of an unlabelled counter or gauge of m by its name.
func metricValue(t *testing.T, m *bot.Metrics, name string) float64 {
	t.Helper()
	reg := prometheus.NewRegistry()
	if err := m.Register(reg); err != nil {
		t.Fatal(err)
	}
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != name || len(f.GetMetric()) != 1 {
			continue
		}
		if c := f.GetMetric()[0].GetCounter(); c != nil {
			return c.GetValue()
		}
		return f.GetMetric()[0].GetGauge().GetValue()
	}
	t.Fatalf("no metric %s", name)
	return 0
}
