package web

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/questbot/questbot/bot/boards"
	"github.com/questbot/questbot/bot/botpg"
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

// move records a move of board in a transaction of its own as the service does: the board is
// saved (its revision moves on) and an event of its record says so, announced at the commit.
// It returns the event.
func (d *eventsDB) move(t *testing.T, board int64) boards.Event {
	t.Helper()
	ctx := context.Background()
	tx, err := d.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	e := d.moveIn(t, tx, board)
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	return e
}

// moveIn records a move of board in tx (see move).
func (d *eventsDB) moveIn(t *testing.T, tx pgx.Tx, board int64) boards.Event {
	t.Helper()
	ctx := context.Background()
	var rev int64
	var ply, toMove int
	if err := tx.QueryRow(ctx, `UPDATE board_session SET ply = ply + 1, to_move = 1 - to_move, revision = revision + 1
		WHERE id = $1 RETURNING revision, ply, to_move`, board).Scan(&rev, &ply, &toMove); err != nil {
		t.Fatal(err)
	}
	return AppendEvent(t, tx, board, boards.EventKindMoved, 1-toMove, 1-toMove, ply,
		boards.EventData{Status: "active", ToMove: toMove, Revision: rev})
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

// stream is an open SSE stream of a board, read event by event.
type stream struct {
	t      *testing.T
	srv    *httptest.Server
	sc     *bufio.Scanner
	hangUp context.CancelFunc
}

// sseEvent is one event of a stream (a comment line is one with the name ":").
type sseEvent struct {
	id, name, data string
}

// next reads the stream's next event or comment.
func (s *stream) next() sseEvent {
	s.t.Helper()
	var ev sseEvent
	for s.sc.Scan() {
		line := s.sc.Text()
		switch {
		case strings.HasPrefix(line, ": "):
			ev.name = ":"
		case strings.HasPrefix(line, "id: "):
			ev.id = strings.TrimPrefix(line, "id: ")
		case strings.HasPrefix(line, "event: "):
			ev.name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			ev.data = strings.TrimPrefix(line, "data: ")
		case line == "" && ev.name != "":
			return ev
		}
	}
	s.t.Fatalf("the stream ended: %v", s.sc.Err())
	return ev
}

// record reads the stream's next event, which must be one of the record, and returns it.
func (s *stream) record(what string) boards.Event {
	s.t.Helper()
	ev := s.next()
	var e boards.Event
	if ev.name != RecordEvent || json.Unmarshal([]byte(ev.data), &e) != nil || ev.id != fmt.Sprint(e.ID) {
		s.t.Fatalf("%s: got %+v, want an event of the record", what, ev)
	}
	return e
}

// expect reads the stream's next event and checks that it is the record's event want (its
// time aside).
func (s *stream) expect(what string, want boards.Event) {
	s.t.Helper()
	got := s.record(what)
	got.At = time.Time{}
	if fmt.Sprintf("%+v", got) != fmt.Sprintf("%+v", want) {
		s.t.Fatalf("%s: got %+v, want %+v", what, got, want)
	}
}

// A committed move reaches the streams of its board, as its event of the record with its
// number, and no other board's.
func TestEventsCommittedChange(t *testing.T) {
	t.Parallel()
	d := newEventsDB(t)
	h := startHub(t, d.pool)
	a, b := d.board(t), d.board(t)
	srv := eventsServer(t, h, time.Hour)
	sa, sb := open(t, srv, a, ""), open(t, srv, b, "")
	for i := range 3 {
		sa.expect(fmt.Sprintf("move %d", i+1), d.move(t, a))
	}
	// b's first event is the first its stream receives: nothing of a came before it.
	sb.expect("b's move", d.move(t, b))
}

// A move in a transaction still open is not announced; its commit announces it. A move rolled
// back is never announced.
func TestEventsUncommittedChange(t *testing.T) {
	t.Parallel()
	d := newEventsDB(t)
	h := startHub(t, d.pool)
	id := d.board(t)
	s := open(t, eventsServer(t, h, time.Hour), id, "")
	ctx := context.Background()

	rolled, err := d.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	d.moveIn(t, rolled, id)
	if err := rolled.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	uncommitted, err := d.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer uncommitted.Rollback(ctx)
	pending := d.moveIn(t, uncommitted, id)
	// Another board's move, committed after both, reaches its stream: the feed read the
	// announcements in commit order, so the rolled back and the open move would have come first.
	other := d.board(t)
	so := openOn(t, s, other)
	so.expect("the other board's move", d.move(t, other))
	if err := uncommitted.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	// The first event the stream receives is the committed move: the rolled back one's number
	// was never committed.
	s.expect("the committed move", pending)
}

// Two hubs, as in two processes, each hand a committed move once to their streams.
func TestEventsTwoHubs(t *testing.T) {
	t.Parallel()
	d := newEventsDB(t)
	h1, h2 := startHub(t, d.pool), startHub(t, d.pool)
	id := d.board(t)
	s1, s2 := open(t, eventsServer(t, h1, time.Hour), id, ""), open(t, eventsServer(t, h2, time.Hour), id, "")
	e1, e2 := d.move(t, id), d.move(t, id)
	for _, s := range []*stream{s1, s2} {
		s.expect("the first move", e1)
		s.expect("the second move", e2)
	}
}

// After its connection is killed the hub listens again, and a stream receives exactly the
// events committed meanwhile, once and in order, then the live ones: no refetch, nothing again.
// The revocations not heard meanwhile are checked again (a revoked grant's stream ends).
func TestEventsReconnect(t *testing.T) {
	t.Parallel()
	d := newEventsDB(t)
	h := startHub(t, d.pool)
	id := d.board(t)
	srv := eventsServer(t, h, time.Hour)
	s := open(t, srv, id, "")
	s.expect("the first move", d.move(t, id))

	// A stream whose grant is revoked while the hub is not listening.
	ctx := context.Background()
	var token int64
	if err := d.pool.QueryRow(ctx, `INSERT INTO web_api_token (hash, service_id, user_id, created_by, created_at)
		VALUES ($1, $2, $3, $3, now()) RETURNING id`, botpg.SecretHash(botpg.TokenPrefix+"reconnect"), d.service, d.user).Scan(&token); err != nil {
		t.Fatal(err)
	}
	revoked, release := h.Guard(Grant{Token: token, Board: id})
	defer release()

	// The listening connection is killed in a transaction that then records two moves and
	// revokes the token: the killed connection never hears their announcements. Whether the next
	// connection hears them or reads them after its LISTEN, the stream gets each event once.
	tx, err := d.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	var killed int
	if err := tx.QueryRow(ctx, `
		SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
		WHERE application_name = $1 AND datname = current_database()`, ListenerName).Scan(&killed); err != nil {
		t.Fatal(err)
	}
	if killed != 1 {
		t.Fatalf("terminated %d listening connections, want 1", killed)
	}
	missed := []boards.Event{d.moveIn(t, tx, id), d.moveIn(t, tx, id)}
	if _, err := tx.Exec(ctx, `UPDATE web_api_token SET revoked_at = now() WHERE id = $1`, token); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	wait.For(t, bottest.Timeout, "the hub to listen again", func() bool { return h.connects.Load() == 2 && h.Listening() })
	for i, e := range missed {
		s.expect(fmt.Sprintf("missed move %d", i+1), e)
	}
	s.expect("a move after the reconnect", d.move(t, id))
	select {
	case <-revoked:
	case <-time.After(bottest.Timeout):
		t.Fatal("the grant revoked while the hub did not listen still holds")
	}
	if n := testutil.ToFloat64(h.Metrics().Reconnects); n != 1 {
		t.Errorf("%v reconnects counted, want 1", n)
	}
}

// Unreadable revocations are counted and logged, and do not stop the hub.
func TestEventsMalformedPayload(t *testing.T) {
	t.Parallel()
	d := newEventsDB(t)
	h := startHub(t, d.pool)
	id := d.board(t)
	s := open(t, eventsServer(t, h, time.Hour), id, "")
	for _, p := range []string{"", "x", "s:zz", "t:x", "b:", "q:1"} {
		if _, err := d.pool.Exec(context.Background(), `SELECT pg_notify($1, $2)`, RevokedChannel, p); err != nil {
			t.Fatal(err)
		}
	}
	// The feed reads the notifications in commit order: the move comes after them.
	s.expect("a move after the unreadable revocations", d.move(t, id))
	if n := testutil.ToFloat64(h.Metrics().Malformed); n != 6 {
		t.Errorf("%v malformed notifications counted, want 6", n)
	}
}

// open opens a board's stream on srv, with lastID as its Last-Event-ID when not empty, and
// reads its head (the retry delay); the stream follows the board's record once it answers.
func open(t *testing.T, srv *httptest.Server, board int64, lastID string) *stream {
	t.Helper()
	s, resp := dial(t, srv, board, lastID)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("the stream of board %d: %s", board, resp.Status)
	}
	if lastID == "" {
		if got := readLines(t, s.sc, 2); strings.Join(got, "\n") != "retry: 2000\n" {
			t.Fatalf("the stream began with %q", got)
		}
	}
	return s
}

// openOn opens the stream of another board on the server of s.
func openOn(t *testing.T, s *stream, board int64) *stream {
	t.Helper()
	return open(t, s.srv, board, "")
}

// dial opens a board's stream on srv and returns it with its response.
func dial(t *testing.T, srv *httptest.Server, board int64, lastID string) (*stream, *http.Response) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, fmt.Sprintf("%s/events/%d", srv.URL, board), nil)
	if err != nil {
		t.Fatal(err)
	}
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return &stream{t: t, srv: srv, sc: bufio.NewScanner(resp.Body), hangUp: cancel}, resp
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

// The stream: its headers and the retry delay at once, then an event of the record per move,
// counted with its delay; a resumed stream replays what it missed (counted, its delay not); a
// stream ends when the client goes away.
func TestServeEventsStream(t *testing.T) {
	t.Parallel()
	d := newEventsDB(t)
	h := startHub(t, d.pool)
	id := d.board(t)
	srv := eventsServer(t, h, time.Hour)
	s, resp := dial(t, srv, id, "")
	for k, want := range map[string]string{"Content-Type": "text/event-stream", "Cache-Control": "no-cache", "X-Accel-Buffering": "no"} {
		if got := resp.Header.Get(k); got != want {
			t.Errorf("%s: %q, want %q", k, got, want)
		}
	}
	if got := readLines(t, s.sc, 2); strings.Join(got, "\n") != "retry: 2000\n" {
		t.Fatalf("the stream began with %q", got)
	}
	if n := testutil.ToFloat64(h.Metrics().Streams); n != 1 {
		t.Errorf("%v streams open, want 1", n)
	}
	var evs []boards.Event
	for i := range 3 {
		e := d.move(t, id)
		s.expect(fmt.Sprintf("move %d", i+1), e)
		evs = append(evs, e)
	}
	// The events are counted right after their write, which the client may see first.
	wait.For(t, bottest.Timeout, "3 events counted, with their delays", func() bool {
		return testutil.ToFloat64(h.Metrics().Delivered) == 3 && delaySamples(t, h) == 3
	})
	s.hangUp()
	wait.For(t, bottest.Timeout, "the stream to end", func() bool { return testutil.ToFloat64(h.Metrics().Streams) == 0 })

	r := open(t, srv, id, fmt.Sprint(evs[0].ID))
	r.expect("the second move again", evs[1])
	r.expect("the third move again", evs[2])
	wait.For(t, bottest.Timeout, "the replay counted, without delays", func() bool {
		return testutil.ToFloat64(h.Metrics().Delivered) == 5 && delaySamples(t, h) == 3
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
	id := d.board(t)
	srv := eventsServer(t, h, 5*time.Millisecond)
	s := open(t, srv, id, "")
	if got := readLines(t, s.sc, 6); strings.Join(got, "\n") != ": ping\n\n: ping\n\n: ping\n" {
		t.Fatalf("got %q, want three pings", got)
	}
}
