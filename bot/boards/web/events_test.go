package web

import (
	"bufio"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/questbot/questbot/bot/testkit/bottest"
	"github.com/questbot/questbot/bot/testkit/wait"
	"github.com/questbot/questbot/migrations/pgtest"
)

// eventsDB is a fresh database with a bot and a user to create boards for.
type eventsDB struct {
	pool    *pgxpool.Pool
	service int
	user    int64
}

func newEventsDB(t *testing.T) *eventsDB {
	t.Helper()
	d := &eventsDB{pool: pgtest.New(t), user: 101}
	ctx := context.Background()
	if err := d.pool.QueryRow(ctx, `INSERT INTO service (username) VALUES ('boards_bot') RETURNING id`).Scan(&d.service); err != nil {
		t.Fatal(err)
	}
	if _, err := d.pool.Exec(ctx, `INSERT INTO users (id, chat_id, first_name) VALUES ($1, $1, 'Ann')`, d.user); err != nil {
		t.Fatal(err)
	}
	return d
}

// board creates an active board (revision 1) and returns its id.
func (d *eventsDB) board(t *testing.T) int64 {
	t.Helper()
	var id int64
	err := d.pool.QueryRow(context.Background(), `
		INSERT INTO board_session (service_id, variant, seed, clock_mode, status, created_by, created_at,
			start_position, position, to_move)
		VALUES ($1, 'russian', 1, 'none', 'active', $2, now(), 'start', 'start', 0)
		RETURNING id`, d.service, d.user).Scan(&id)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// moveSQL saves a board as boardpg does: the ply and the revision move on.
const moveSQL = `UPDATE board_session SET ply = ply + 1, to_move = 1 - to_move, revision = revision + 1
	WHERE id = $1 RETURNING revision`

// move saves a move of board in a transaction of its own and returns the new revision.
func (d *eventsDB) move(t *testing.T, board int64) int64 {
	t.Helper()
	var rev int64
	if err := d.pool.QueryRow(context.Background(), moveSQL, board).Scan(&rev); err != nil {
		t.Fatal(err)
	}
	return rev
}

// startHub runs a hub on pool until the test ends and waits until it listens.
func startHub(t *testing.T, pool *pgxpool.Pool) *Hub {
	t.Helper()
	h := NewHub(pool, slog.New(slog.NewTextHandler(testLog{t}, nil)))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- h.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	})
	wait.For(t, bottest.Timeout, "the hub to listen", h.Listening)
	return h
}

type testLog struct{ t *testing.T }

func (l testLog) Write(p []byte) (int, error) {
	l.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

// receive waits for a value on ch.
func receive(t *testing.T, ch <-chan BoardChanged, what string) BoardChanged {
	t.Helper()
	select {
	case bc := <-ch:
		return bc
	case <-time.After(bottest.Timeout):
		t.Fatalf("timed out waiting for %s", what)
		return BoardChanged{}
	}
}

// expectNothing checks that ch holds no value.
func expectNothing(t *testing.T, ch <-chan BoardChanged, why string) {
	t.Helper()
	select {
	case bc := <-ch:
		t.Fatalf("%s, yet the subscriber got %+v", why, bc)
	default:
	}
}

// marker commits a move of a board of its own and waits until its subscriber gets it. The hub
// reads notifications in commit order and hands each out before reading the next, so anything
// committed before the marker (the creation of boards too) has been handed out by then.
func marker(t *testing.T, h *Hub, d *eventsDB) {
	t.Helper()
	id := d.board(t)
	ch, stop := h.Subscribe(id)
	defer stop()
	rev := d.move(t, id)
	for {
		// The board's creation may be announced first, if the hub read it after Subscribe.
		got := receive(t, ch, "the marker")
		if got == (BoardChanged{Board: id, Revision: rev}) {
			return
		}
		if got != (BoardChanged{Board: id, Revision: 1}) {
			t.Fatalf("marker: got %+v, want revision %d of board %d", got, rev, id)
		}
	}
}

// boards creates n boards and waits until the hubs have read their creation, so that a later
// subscriber hears only later changes.
func (d *eventsDB) boards(t *testing.T, n int, hubs ...*Hub) []int64 {
	t.Helper()
	ids := make([]int64, n)
	for i := range ids {
		ids[i] = d.board(t)
	}
	for _, h := range hubs {
		marker(t, h, d)
	}
	return ids
}

// A committed move reaches the board's subscriber with its revision, and only that board's;
// a change of status does too; an update that changes neither announces nothing.
func TestEventsCommittedChange(t *testing.T) {
	t.Parallel()
	d := newEventsDB(t)
	h := startHub(t, d.pool)
	ids := d.boards(t, 2, h)
	a, b := ids[0], ids[1]
	chA, stopA := h.Subscribe(a)
	defer stopA()
	chB, stopB := h.Subscribe(b)
	defer stopB()

	rev := d.move(t, a)
	if got := receive(t, chA, "the move"); got != (BoardChanged{Board: a, Revision: rev}) || rev != 2 {
		t.Fatalf("got %+v, want board %d at revision 2 (saved %d)", got, a, rev)
	}
	if _, err := d.pool.Exec(context.Background(), `UPDATE board_session SET status = 'aborted' WHERE id = $1`, a); err != nil {
		t.Fatal(err)
	}
	if got := receive(t, chA, "the change of status"); got != (BoardChanged{Board: a, Revision: 2}) {
		t.Fatalf("status change: got %+v", got)
	}
	if _, err := d.pool.Exec(context.Background(),
		`UPDATE board_session SET bot_claim_rev = revision, bot_claim_until = now() WHERE id = $1`, a); err != nil {
		t.Fatal(err)
	}
	marker(t, h, d)
	expectNothing(t, chA, "a lease changes neither revision nor status")
	expectNothing(t, chB, "board b never changed")
	if n := testutil.ToFloat64(h.Metrics().Malformed); n != 0 {
		t.Errorf("%v malformed notifications", n)
	}

	// A new board is announced when its transaction commits.
	ctx := context.Background()
	tx, err := d.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	var c int64
	if err := tx.QueryRow(ctx, `
		INSERT INTO board_session (service_id, variant, seed, clock_mode, status, created_by, created_at,
			start_position, position, to_move)
		VALUES ($1, 'russian', 1, 'none', 'waiting', $2, now(), 'start', 'start', 0)
		RETURNING id`, d.service, d.user).Scan(&c); err != nil {
		t.Fatal(err)
	}
	chC, stopC := h.Subscribe(c)
	defer stopC()
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if got := receive(t, chC, "the new board"); got != (BoardChanged{Board: c, Revision: 1}) {
		t.Fatalf("new board: got %+v, want board %d at revision 1", got, c)
	}
}

// A move in a transaction still open is not announced; its commit announces it.
func TestEventsUncommittedChange(t *testing.T) {
	t.Parallel()
	d := newEventsDB(t)
	h := startHub(t, d.pool)
	id := d.boards(t, 1, h)[0]
	ch, stop := h.Subscribe(id)
	defer stop()

	ctx := context.Background()
	tx, err := d.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	var rev int64
	if err := tx.QueryRow(ctx, moveSQL, id).Scan(&rev); err != nil {
		t.Fatal(err)
	}
	marker(t, h, d)
	expectNothing(t, ch, "the move is not committed")
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if got := receive(t, ch, "the committed move"); got != (BoardChanged{Board: id, Revision: rev}) {
		t.Fatalf("got %+v, want revision %d", got, rev)
	}
}

// A move rolled back is never announced.
func TestEventsRolledBackChange(t *testing.T) {
	t.Parallel()
	d := newEventsDB(t)
	h := startHub(t, d.pool)
	id := d.boards(t, 1, h)[0]
	ch, stop := h.Subscribe(id)
	defer stop()

	ctx := context.Background()
	tx, err := d.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, moveSQL, id); err != nil {
		t.Fatal(err)
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	marker(t, h, d)
	expectNothing(t, ch, "the move was rolled back")
	// The next committed move is announced with the revision the rollback left untouched.
	rev := d.move(t, id)
	if got := receive(t, ch, "a later move"); got != (BoardChanged{Board: id, Revision: 2}) || rev != 2 {
		t.Fatalf("got %+v (saved %d), want revision 2", got, rev)
	}
}

// Two hubs, as in two processes, each hear a move committed once.
func TestEventsTwoHubs(t *testing.T) {
	t.Parallel()
	d := newEventsDB(t)
	h1, h2 := startHub(t, d.pool), startHub(t, d.pool)
	id := d.boards(t, 1, h1, h2)[0]
	ch1, stop1 := h1.Subscribe(id)
	defer stop1()
	ch2, stop2 := h2.Subscribe(id)
	defer stop2()
	rev := d.move(t, id)
	for i, ch := range []<-chan BoardChanged{ch1, ch2} {
		if got := receive(t, ch, fmt.Sprintf("hub %d", i+1)); got != (BoardChanged{Board: id, Revision: rev}) {
			t.Errorf("hub %d: got %+v, want revision %d", i+1, got, rev)
		}
	}
}

// A subscriber that does not read blocks neither the hub nor the others, and holds the latest
// revision when it reads at last.
func TestEventsSlowSubscriber(t *testing.T) {
	t.Parallel()
	d := newEventsDB(t)
	h := startHub(t, d.pool)
	ids := d.boards(t, 2, h)
	id, flush := ids[0], ids[1]
	slow, stopSlow := h.Subscribe(id)
	defer stopSlow()
	fast, stopFast := h.Subscribe(id)
	defer stopFast()

	// The markers' own events may have been coalesced already.
	before := testutil.ToFloat64(h.Metrics().Coalesced)
	var rev int64
	for i := 0; i < 5; i++ {
		rev = d.move(t, id)
		if got := receive(t, fast, "the fast subscriber's event"); got.Revision != rev {
			t.Fatalf("move %d: the fast subscriber got %+v, want revision %d", i+1, got, rev)
		}
	}
	// The move's hand-out to every subscriber is over once a later change has reached its own.
	ch, stop := h.Subscribe(flush)
	defer stop()
	if rev := d.move(t, flush); receive(t, ch, "the later change").Revision != rev {
		t.Fatal("the later change came with another revision")
	}
	if n := len(slow); n != 1 {
		t.Fatalf("the slow subscriber holds %d values, want 1", n)
	}
	if got := receive(t, slow, "the slow subscriber's event"); got != (BoardChanged{Board: id, Revision: rev}) {
		t.Fatalf("the slow subscriber got %+v, want the latest revision %d", got, rev)
	}
	if n := testutil.ToFloat64(h.Metrics().Coalesced) - before; n != 4 {
		t.Errorf("coalesced %v changes, want 4", n)
	}
}

// After its connection is killed the hub reconnects, tells every subscriber to refetch (with
// the board's current revision), and goes on announcing moves.
func TestEventsReconnect(t *testing.T) {
	t.Parallel()
	d := newEventsDB(t)
	h := startHub(t, d.pool)
	id := d.boards(t, 1, h)[0]
	ch, stop := h.Subscribe(id)
	defer stop()
	rev := d.move(t, id)
	receive(t, ch, "the first move")

	var killed int
	if err := d.pool.QueryRow(context.Background(), `
		SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
		WHERE application_name = $1 AND datname = current_database()`, ListenerName).Scan(&killed); err != nil {
		t.Fatal(err)
	}
	if killed != 1 {
		t.Fatalf("terminated %d listening connections, want 1", killed)
	}
	wait.For(t, bottest.Timeout, "the hub to listen again", func() bool { return h.connects.Load() == 2 && h.Listening() })
	if got := receive(t, ch, "the refetch after the reconnect"); got != (BoardChanged{Board: id, Revision: rev}) {
		t.Fatalf("refetch: got %+v, want the current revision %d", got, rev)
	}
	rev = d.move(t, id)
	if got := receive(t, ch, "a move after the reconnect"); got != (BoardChanged{Board: id, Revision: rev}) {
		t.Fatalf("got %+v, want revision %d", got, rev)
	}
	if n := testutil.ToFloat64(h.Metrics().Reconnects); n != 1 {
		t.Errorf("%v reconnects counted, want 1", n)
	}
}

// Unsubscribing removes the board from the hub once its last subscriber is gone; calling the
// function twice is harmless.
func TestEventsUnsubscribe(t *testing.T) {
	t.Parallel()
	d := newEventsDB(t)
	h := startHub(t, d.pool)
	id := d.boards(t, 1, h)[0]
	_, stop1 := h.Subscribe(id)
	ch2, stop2 := h.Subscribe(id)
	stop1()
	stop1()
	rev := d.move(t, id)
	if got := receive(t, ch2, "the move"); got.Revision != rev {
		t.Fatalf("got %+v, want revision %d", got, rev)
	}
	stop2()
	h.mu.Lock()
	n := len(h.boards)
	h.mu.Unlock()
	if n != 0 {
		t.Fatalf("%d boards still watched after every subscriber left", n)
	}
}

// Unreadable payloads are counted and logged, never handed out, and do not stop the hub.
func TestEventsMalformedPayload(t *testing.T) {
	t.Parallel()
	d := newEventsDB(t)
	h := startHub(t, d.pool)
	id := d.boards(t, 1, h)[0]
	ch, stop := h.Subscribe(id)
	defer stop()
	for _, p := range []string{"", "x", fmt.Sprintf("%d", id), fmt.Sprintf("%d:x", id), fmt.Sprintf("%d:2:x", id), "1:2:3:4",
		fmt.Sprintf("%d:-9", id), fmt.Sprintf("-%d:2", id)} {
		if _, err := d.pool.Exec(context.Background(), `SELECT pg_notify($1, $2)`, Channel, p); err != nil {
			t.Fatal(err)
		}
	}
	marker(t, h, d)
	expectNothing(t, ch, "every payload was malformed")
	if n := testutil.ToFloat64(h.Metrics().Malformed); n != 8 {
		t.Errorf("%v malformed notifications counted, want 8", n)
	}
}

// sseClient opens a board's stream on srv and returns its lines and a function that hangs up.
func sseClient(t *testing.T, srv *httptest.Server, board int64) (*http.Response, *bufio.Scanner, context.CancelFunc) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, fmt.Sprintf("%s/events/%d", srv.URL, board), nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp, bufio.NewScanner(resp.Body), cancel
}

// eventsServer serves streams of h at /events/{id}, pinging every ping.
func eventsServer(t *testing.T, h *Hub, ping time.Duration) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /events/{id}", func(w http.ResponseWriter, r *http.Request) {
		var id int64
		if _, err := fmt.Sscan(r.PathValue("id"), &id); err != nil {
			http.Error(w, "bad id", http.StatusBadRequest)
			return
		}
		serveEvents(w, r, h, id, ping, nil)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// readLines reads n lines of a stream.
func readLines(t *testing.T, sc *bufio.Scanner, n int) []string {
	t.Helper()
	var lines []string
	for len(lines) < n {
		if !sc.Scan() {
			t.Fatalf("the stream ended after %q: %v", lines, sc.Err())
		}
		lines = append(lines, sc.Text())
	}
	return lines
}

// The stream: its headers, the retry delay and the first event at once, then an event per
// move; it ends, and its subscription with it, when the client goes away.
func TestServeEventsStream(t *testing.T) {
	t.Parallel()
	d := newEventsDB(t)
	h := startHub(t, d.pool)
	id := d.boards(t, 1, h)[0]
	srv := eventsServer(t, h, time.Hour)
	resp, sc, hangUp := sseClient(t, srv, id)
	for k, want := range map[string]string{"Content-Type": "text/event-stream", "Cache-Control": "no-cache", "X-Accel-Buffering": "no"} {
		if got := resp.Header.Get(k); got != want {
			t.Errorf("%s: %q, want %q", k, got, want)
		}
	}
	// The first event names the board's revision as the stream opens.
	var rev0 int64
	if err := d.pool.QueryRow(context.Background(), `SELECT revision FROM board_session WHERE id = $1`, id).Scan(&rev0); err != nil {
		t.Fatal(err)
	}
	want := []string{"retry: 2000", "event: board", fmt.Sprintf(`data: {"id":%d,"revision":%d}`, id, rev0), ""}
	if got := readLines(t, sc, 4); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("the stream began with %q, want %q", got, want)
	}
	if n := testutil.ToFloat64(h.Metrics().Streams); n != 1 {
		t.Errorf("%v streams open, want 1", n)
	}
	for i := 0; i < 3; i++ {
		rev := d.move(t, id)
		want := []string{"event: board", fmt.Sprintf(`data: {"id":%d,"revision":%d}`, id, rev), ""}
		if got := readLines(t, sc, 3); strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("move %d: got %q, want %q", i+1, got, want)
		}
	}
	// The events are counted right after their write, which the client may see first.
	wait.For(t, bottest.Timeout, "3 events counted, with their delays", func() bool {
		return testutil.ToFloat64(h.Metrics().Delivered) == 3 && delaySamples(t, h) == 3
	})

	hangUp()
	wait.For(t, bottest.Timeout, "the stream to end", func() bool {
		h.mu.Lock()
		defer h.mu.Unlock()
		return len(h.boards) == 0 && testutil.ToFloat64(h.Metrics().Streams) == 0
	})
}

// delaySamples is the number of delays the hub's histogram holds.
func delaySamples(t *testing.T, h *Hub) uint64 {
	t.Helper()
	reg := prometheus.NewPedanticRegistry()
	if err := h.Register(reg); err != nil {
		t.Fatal(err)
	}
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() == "questbot_web_event_delay_seconds" {
			return mf.GetMetric()[0].GetHistogram().GetSampleCount()
		}
	}
	t.Fatal("no delay histogram")
	return 0
}

// An idle stream sends a comment line at each ping interval.
func TestServeEventsPing(t *testing.T) {
	t.Parallel()
	d := newEventsDB(t)
	h := startHub(t, d.pool)
	id := d.boards(t, 1, h)[0]
	srv := eventsServer(t, h, 5*time.Millisecond)
	_, sc, _ := sseClient(t, srv, id)
	readLines(t, sc, 4)
	if got := readLines(t, sc, 6); strings.Join(got, "\n") != ": ping\n\n: ping\n\n: ping\n" {
		t.Fatalf("got %q, want three pings", got)
	}
}
