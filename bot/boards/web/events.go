// Live updates of the boards: the Hub and the Server-Sent Events stream.
//
// What happened on a board is made and stored once, by the board service (bot/boards,
// events.go): every change an operation commits is written, in its transaction, into the board's
// numbered record and announced at the commit. Each process follows the commits of every process
// on one LISTEN connection, the service's Feed (bot/boards, feed.go), which the Hub follows too:
// the stream of a board renders the record's events from it, each as an SSE event with its number
// as its id, so that a reconnection with Last-Event-ID (EventSource sends it by itself; or the
// query parameter LastEventParam) reads exactly what it missed from the record, in order, across
// a restart of the server too.
//
// Beside the record, every save of a board fires a trigger on board_session
// (migrations/018_board_events.sql) that NOTIFYs the channel board_changed with
// "<board>:<revision>:<epoch microseconds>": the hub hands the latest revision to the
// subscribers of each board, coalesced (a subscriber's channel holds one value: a new change
// replaces an unread one, so a slow page never blocks the hub or the other pages, and memory
// stays one value per subscriber whatever the rate of moves). It covers what no event says (a
// board changed by hand, a reminder) and measures the delay of the live updates; a stream sends
// no "board" event for a revision that the record's events it sent name already (EventData's
// Revision), so that a change is signalled once. PostgreSQL delivers a
// notification when its transaction commits, so an event never announces a move that is not
// there to read, and a rolled back move announces nothing. Notifications of boards nobody
// watches are dropped at once.
//
// After each new LISTEN of the feed, the hub reads the current revision of every watched board
// and hands it to the subscribers (every page refetches once), and the feed reads the record's
// events numbered above the last it handed out.
//
// ServeEvents turns a subscription into an SSE stream. Its first "board" event names the board's
// revision as the stream opens: a client showing an older one reads the state, and one showing
// it has missed nothing.

package web

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/questbot/questbot/bot/boards"
)

// Channel is the PostgreSQL notification channel of board changes.
const Channel = "board_changed"

// ListenerName is the application_name of the hub's connection, by which an operator finds it
// in pg_stat_activity.
const ListenerName = "questbot board events"

// Stream settings (see ServeEvents).
const (
	// PingInterval is how often an idle stream sends a comment line, so proxies and browsers
	// see it alive and a vanished client is noticed.
	PingInterval = 25 * time.Second
	// RetryMillis is how long a browser waits before reconnecting a broken stream.
	RetryMillis = 2000
)

// Metrics are the live updates' Prometheus metrics.
type Metrics struct {
	// Streams is the number of SSE streams open.
	Streams prometheus.Gauge
	// Delivered counts the events written to streams, the record's and the "board" ones (the
	// initial one of each stream not included).
	Delivered prometheus.Counter
	// Coalesced counts the changes that replaced an unread one in a subscriber's channel.
	Coalesced prometheus.Counter
	// Delay is the time from a board's change (the trigger's clock_timestamp(), taken at the
	// UPDATE; the notification leaves at the commit that follows) to the event's write to a
	// stream. It assumes the database's clock and this process's agree, as on one machine.
	Delay prometheus.Histogram
	// Listening is 1 while the hub's connection is LISTENing, else 0.
	Listening prometheus.Gauge
	// Reconnects counts the losses of the hub's connection.
	Reconnects prometheus.Counter
	// Malformed counts notifications whose payload could not be read.
	Malformed prometheus.Counter
}

// NewMetrics creates the metrics (not registered).
func NewMetrics() *Metrics {
	return &Metrics{
		Streams: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "questbot_web_event_streams", Help: "Server-Sent Events streams of boards open.",
		}),
		Delivered: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "questbot_web_events_delivered_total", Help: "Board events (of the record, and revisions) written to SSE streams.",
		}),
		Coalesced: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "questbot_web_events_coalesced_total",
			Help: "Board changes that replaced an unread one of a subscriber (only the latest is sent).",
		}),
		Delay: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "questbot_web_event_delay_seconds",
			Help:    "Time from a board's change in the database to the write of its event to an SSE stream.",
			Buckets: []float64{.001, .002, .005, .01, .02, .05, .1, .2, .5, 1, 2, 5},
		}),
		Listening: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "questbot_web_events_listening", Help: "1 while the board events connection is listening.",
		}),
		Reconnects: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "questbot_web_events_reconnects_total", Help: "Losses of the board events connection.",
		}),
		Malformed: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "questbot_web_events_malformed_total", Help: "Board change notifications with an unreadable payload.",
		}),
	}
}

// Register registers every metric with r.
func (m *Metrics) Register(r prometheus.Registerer) error {
	for _, c := range []prometheus.Collector{m.Streams, m.Delivered, m.Coalesced, m.Delay, m.Listening,
		m.Reconnects, m.Malformed} {
		if err := r.Register(c); err != nil {
			return err
		}
	}
	return nil
}

// Hub LISTENs for board changes and fans them out to the subscribers of each board. It
// implements Events. Run it once per process.
type Hub struct {
	pool *pgxpool.Pool
	// feed is the process's one LISTEN connection the hub follows; own says the hub made it
	// (NewHub) and runs it.
	feed *boards.Feed
	own  bool

	log     *slog.Logger
	metrics *Metrics
	now     func() time.Time

	mu     sync.Mutex
	boards map[int64]*watched

	listening atomic.Bool
	// connects counts the successful LISTENs (the first one included).
	connects atomic.Int64

	// gmu guards guards, the grants of the open streams (revoke.go).
	gmu    sync.Mutex
	guards map[*guard]struct{}
}

// watched is a board with subscribers.
type watched struct {
	subs map[*subscriber]struct{}
	// last is the newest revision handed out.
	last int64
	// recent holds when the latest revisions changed in the database, in slot revision %
	// len(recent), for the delay of their events, written a moment after they were handed out
	// (a zero time when not known, as for the refetch after a reconnect).
	recent [8]changed
}

type changed struct {
	revision int64
	at       time.Time
}

type subscriber struct {
	ch chan BoardChanged
}

var _ Events = (*Hub)(nil)

// NewHub returns a hub that listens on a feed of its own (named ListenerName), made with pool's
// settings, which Run runs. log may be nil.
func NewHub(pool *pgxpool.Pool, log *slog.Logger) *Hub {
	h := NewHubOn(boards.NewFeed(pool, ListenerName, log), pool, log)
	h.own = true
	return h
}

// NewHubOn returns a hub that follows feed, the process's one LISTEN connection, run by its
// owner; pool is where the streams read the boards' records. log may be nil.
func NewHubOn(feed *boards.Feed, pool *pgxpool.Pool, log *slog.Logger) *Hub {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	h := &Hub{pool: pool, feed: feed, log: log, metrics: NewMetrics(), now: time.Now, boards: map[int64]*watched{}}
	feed.Handle(Channel, h.notified)
	feed.Handle(RevokedChannel, h.revoked)
	feed.OnListen(h.listening0)
	feed.OnLost(func(listened bool) {
		h.listening.Store(false)
		h.metrics.Listening.Set(0)
		if listened {
			h.metrics.Reconnects.Inc()
		}
	})
	return h
}

// Metrics returns the hub's metrics, which also count the streams ServeEvents serves from it.
func (h *Hub) Metrics() *Metrics { return h.metrics }

// Register registers the hub's metrics with r.
func (h *Hub) Register(r prometheus.Registerer) error { return h.metrics.Register(r) }

// Listening reports whether the hub is connected and LISTENing.
func (h *Hub) Listening() bool { return h.listening.Load() }

// Subscribe returns a channel that receives the changes of board, coalesced (it holds one
// value, the latest), and a function that ends the subscription; calling it again does nothing.
// The channel is never closed.
func (h *Hub) Subscribe(board int64) (<-chan BoardChanged, func()) {
	s := &subscriber{ch: make(chan BoardChanged, 1)}
	h.mu.Lock()
	w := h.boards[board]
	if w == nil {
		w = &watched{subs: map[*subscriber]struct{}{}}
		h.boards[board] = w
	}
	w.subs[s] = struct{}{}
	h.mu.Unlock()
	var once sync.Once
	return s.ch, func() {
		once.Do(func() {
			h.mu.Lock()
			defer h.mu.Unlock()
			if w := h.boards[board]; w != nil {
				delete(w.subs, s)
				if len(w.subs) == 0 {
					delete(h.boards, board)
				}
			}
		})
	}
}

// Run runs the hub's own feed (NewHub) until ctx ends: boards.Listener's loop, a connection
// named ListenerName, TCP keep-alive, a reconnection after a loss with a pause that doubles from
// 50 ms to 5 s, the loss logged once. A hub on a shared feed (NewHubOn) just waits for ctx. It
// returns nil when ctx ends.
func (h *Hub) Run(ctx context.Context) error {
	if h.own {
		h.feed.Run(ctx)
		return nil
	}
	<-ctx.Done()
	return nil
}

// Follow follows a board's numbered events above after (the record, bot/boards events.go), for
// a stream; Records is where a subscription reads what it missed.
func (h *Hub) Follow(board, after int64) *boards.Subscription { return h.feed.Subscribe(board, after) }

// Records is the database of the boards' records.
func (h *Hub) Records() boards.DB { return h.pool }

// listening0 is what the hub does on each new LISTEN: it tells it is listening, then hands the
// current revisions of the watched boards out and rechecks the revocations, for what changed
// while it did not listen.
func (h *Hub) listening0(ctx context.Context, conn *pgx.Conn) error {
	h.listening.Store(true)
	h.metrics.Listening.Set(1)
	h.connects.Add(1)
	if err := h.refetch(ctx, conn); err != nil {
		return err
	}
	return h.recheck(ctx, conn)
}

// refetch hands every subscriber the current revision of its board, read after LISTEN: changes
// committed while the hub was not listening were never announced to it.
func (h *Hub) refetch(ctx context.Context, conn *pgx.Conn) error {
	h.mu.Lock()
	ids := make([]int64, 0, len(h.boards))
	for id := range h.boards {
		ids = append(ids, id)
	}
	h.mu.Unlock()
	if len(ids) == 0 {
		return nil
	}
	revs, err := boards.Revisions(ctx, conn, ids)
	// Even when the read fails, every subscriber is told to refetch: with the last revision it
	// was given (a board deleted since, or an error, leaves that one).
	for _, id := range ids {
		h.deliver(BoardChanged{Board: id, Revision: revs[id]}, time.Time{}, true)
	}
	if err != nil {
		return fmt.Errorf("board events: read revisions: %w", err)
	}
	return nil
}

// notified handles one notification's payload.
func (h *Hub) notified(payload string) {
	bc, at, err := parsePayload(payload)
	if err != nil {
		h.metrics.Malformed.Inc()
		h.log.Warn("Board events: an unreadable notification", slog.String("payload", payload), slog.Any("error", err))
		return
	}
	h.deliver(bc, at, false)
}

// parsePayload reads "<board>:<revision>[:<epoch microseconds>]"; the time is zero when absent.
func parsePayload(p string) (BoardChanged, time.Time, error) {
	parts := strings.Split(p, ":")
	if len(parts) != 2 && len(parts) != 3 {
		return BoardChanged{}, time.Time{}, fmt.Errorf("want board:revision[:micros], got %d fields", len(parts))
	}
	board, err := strconv.ParseInt(parts[0], 10, 64)
	if err != nil {
		return BoardChanged{}, time.Time{}, fmt.Errorf("board: %w", err)
	}
	rev, err := strconv.ParseInt(parts[1], 10, 64)
	if err != nil {
		return BoardChanged{}, time.Time{}, fmt.Errorf("revision: %w", err)
	}
	if board <= 0 || rev < 1 {
		return BoardChanged{}, time.Time{}, fmt.Errorf("board %d, revision %d: out of range", board, rev)
	}
	var at time.Time
	if len(parts) == 3 {
		us, err := strconv.ParseInt(parts[2], 10, 64)
		if err != nil {
			return BoardChanged{}, time.Time{}, fmt.Errorf("time: %w", err)
		}
		at = time.UnixMicro(us)
	}
	return BoardChanged{Board: board, Revision: rev}, at, nil
}

// deliver hands a change to the board's subscribers, if any. A revision older than one already
// handed out is dropped (a notification read after the refetch that overtook it); refetch
// hands out at least the last revision again, whatever it reads.
func (h *Hub) deliver(bc BoardChanged, at time.Time, refetch bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	w := h.boards[bc.Board]
	if w == nil {
		return
	}
	switch {
	case refetch:
		bc.Revision = max(bc.Revision, w.last)
	case bc.Revision < w.last:
		return
	}
	w.last = bc.Revision
	w.recent[bc.Revision%int64(len(w.recent))] = changed{revision: bc.Revision, at: at}
	for s := range w.subs {
		// The hub is the only sender and holds the lock, so after taking out an unread value
		// the send finds room; the reader may take a value at any time, which only makes room.
		select {
		case s.ch <- bc:
			continue
		default:
		}
		select {
		case <-s.ch:
			h.metrics.Coalesced.Inc()
		default:
		}
		select {
		case s.ch <- bc:
		default:
		}
	}
}

// streamOpened, streamClosed and delivered are how ServeEvents counts its streams and events
// in the metrics of the Events it serves from, when those have metrics.
type streamObserver interface {
	streamOpened()
	streamClosed()
	delivered(BoardChanged)
	deliveredRecords(n int)
}

func (h *Hub) streamOpened() { h.metrics.Streams.Inc() }
func (h *Hub) streamClosed() { h.metrics.Streams.Dec() }

// deliveredRecords counts n events of the record written to a stream.
func (h *Hub) deliveredRecords(n int) { h.metrics.Delivered.Add(float64(n)) }

// delivered counts an event written to a stream and, when the time of its change is known, its
// delay.
func (h *Hub) delivered(bc BoardChanged) {
	h.metrics.Delivered.Inc()
	h.mu.Lock()
	var at time.Time
	if w := h.boards[bc.Board]; w != nil && bc.Revision >= 0 {
		if c := w.recent[bc.Revision%int64(len(w.recent))]; c.revision == bc.Revision {
			at = c.at
		}
	}
	h.mu.Unlock()
	if !at.IsZero() {
		h.metrics.Delay.Observe(max(h.now().Sub(at), 0).Seconds())
	}
}

// ServeEvents serves the Server-Sent Events stream of a board's changes until the client goes
// away (the request's context ends) or a write fails (the API's streams also end when their
// grant does, see revoke.go):
//
//	retry: 2000
//	event: board
//	data: {"id":7,"revision":41}
//
//	id: 130
//	event: record
//	data: {"id":130,"board":7,"kind":"moved","seat":0,"actor":0,"by":"web","ply":13,...}
//
//	event: board
//	data: {"id":7,"revision":44}
//
//	: ping
//
// When ev follows the boards' record (the Hub): a stream resumed with the request's
// Last-Event-ID (or LastEventParam) first replays the record's events numbered above it, in
// order; a number that is no event of the board, or that more than MaxReplay events followed, is
// answered first with a ResetEvent ("id: <last>", "event: reset", data {"id":7,"last":<last>}):
// the client reads the state once and the stream goes on from the board's last event, as a new
// stream does. Then the "board" event of the board's revision as the stream opens (read after the
// subscriptions began, so nothing is missed after it), left out when the replay named it already.
// Then each new event of the record, once, in order, and one "board" event per saved revision
// that no event sent names (EventData.Revision), or per notification of a revision already
// signalled (a change that made no new revision: a rematch offered or answered, on the old
// board; a client reads the state for it), coalesced: a client that reads slowly gets the
// latest revision, not every one. An Events that does not follow the record (no Hub) sends
// revision 0 first, "fetch the state now", and the "board" events alone. A comment line every
// 25 s keeps an idle stream alive. The caller checks the client's right to watch the board first.
func ServeEvents(w http.ResponseWriter, r *http.Request, ev Events, board int64) {
	serveEvents(w, r, ev, board, PingInterval, nil)
}

// recordFollower is an Events that also follows the boards' numbered records (the Hub).
type recordFollower interface {
	Follow(board, after int64) *boards.Subscription
	Records() boards.DB
}

// LastEventParam is the query parameter that stands in for the Last-Event-ID header, for a
// client that opens the stream anew itself rather than by EventSource's reconnection.
const LastEventParam = "last_event_id"

// lastEventID reads the number of the last event a client rendered: the Last-Event-ID header,
// else LastEventParam; false when there is neither, an error for one that is no number.
func lastEventID(r *http.Request) (int64, bool, error) {
	v := r.Header.Get("Last-Event-ID")
	if v == "" {
		v = r.URL.Query().Get(LastEventParam)
	}
	if v == "" {
		return 0, false, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return 0, false, fmt.Errorf("last event id %q: want a number", v)
	}
	return n, true, nil
}

// ResetEvent is the SSE event name that tells a client its Last-Event-ID cannot be resumed: it
// names no event of the board's record, or more than MaxReplay events came after it. The client
// reads the state again once; the stream goes on from the board's last event, whose number the
// reset event carries as its id.
const ResetEvent = "reset"

// MaxReplay is the most events a reconnection replays; one that missed more is sent ResetEvent
// (reading the state once costs less than rendering a long replay).
const MaxReplay = 64

// resumable reports whether a stream can go on after the event numbered after of board: after
// is 0 (the whole record) or an event of the board, followed by at most MaxReplay events.
func resumable(ctx context.Context, db boards.DB, board, after int64) (bool, error) {
	if after == 0 {
		return true, nil
	}
	evs, err := boards.EventsAfter(ctx, db, board, after-1, MaxReplay+2)
	if err != nil {
		return false, err
	}
	return len(evs) > 0 && evs[0].ID == after && len(evs) <= MaxReplay+1, nil
}

// serveEvents is ServeEvents with the interval of its pings, ending too when revoked is closed.
func serveEvents(w http.ResponseWriter, r *http.Request, ev Events, board int64, ping time.Duration, revoked <-chan struct{}) {
	var sub *boards.Subscription
	var records boards.DB
	// reset is the number a stream that cannot resume goes on from (ResetEvent), -1 for none.
	reset := int64(-1)
	// sent is the number of the last event of the record written, and covered the newest
	// revision those events name: the first notification of a revision they name is the save's
	// own, which needs no "board" event. lastBoard is the newest revision a "board" event was
	// sent or left out for: a notification of a revision already signalled is another change
	// that made no new revision (a rematch offered or answered, on the old board), sent.
	var sent, covered, lastBoard int64
	ch, unsubscribe := ev.Subscribe(board)
	defer unsubscribe()
	first := BoardChanged{Board: board}
	if f, ok := ev.(recordFollower); ok {
		after, resumed, err := lastEventID(r)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		records = f.Records()
		if resumed {
			ok, err := resumable(r.Context(), records, board, after)
			if err != nil {
				http.Error(w, "the board's events cannot be read now", http.StatusServiceUnavailable)
				return
			}
			resumed = ok
		}
		if !resumed {
			// A new stream, or one that cannot resume, renders from now on: the page reads
			// the state itself.
			last, err := boards.LastEvent(r.Context(), records, board)
			if err != nil {
				http.Error(w, "the board's events cannot be read now", http.StatusServiceUnavailable)
				return
			}
			if after != 0 || r.Header.Get("Last-Event-ID") != "" || r.URL.Query().Get(LastEventParam) != "" {
				reset = last
			}
			after = last
		}
		sent = after
		sub = f.Follow(board, after)
		defer sub.Close()
		// The revision as the stream opens, read after the subscriptions began: a client that
		// shows an older one reads the state, and one that shows it has missed nothing.
		revs, err := boards.Revisions(r.Context(), records, []int64{board})
		if err != nil {
			http.Error(w, "the board's events cannot be read now", http.StatusServiceUnavailable)
			return
		}
		first.Revision = revs[board]
	}
	obs, _ := ev.(streamObserver)
	if obs != nil {
		obs.streamOpened()
		defer obs.streamClosed()
	}
	rc := http.NewResponseController(w)
	// A stream lives longer than any write timeout the server has for ordinary answers.
	if err := rc.SetWriteDeadline(time.Time{}); err != nil && !errors.Is(err, http.ErrNotSupported) {
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	write := func(s string) bool {
		if _, err := io.WriteString(w, s); err != nil {
			return false
		}
		return rc.Flush() == nil
	}
	// writeRecords writes the events of the record not written yet, and notes the revisions
	// they cover.
	writeRecords := func(evs []boards.Event) bool {
		out := evs[:0:0]
		for _, e := range evs {
			if e.ID > sent {
				out = append(out, e)
				sent = e.ID
				covered = max(covered, e.Data.Revision)
			}
		}
		if len(out) == 0 {
			return true
		}
		if !write(recordText(out)) {
			return false
		}
		if obs != nil {
			obs.deliveredRecords(len(out))
		}
		return true
	}
	// catchUp reads the record's events the stream has not written from the database, for a
	// revision announced before the feed handed out the events of its change (the save's
	// notification comes before the record's in the same commit).
	catchUp := func() bool {
		evs, err := boards.EventsAfter(r.Context(), records, board, sent, MaxReplay)
		if err != nil {
			return true // the feed's own delivery follows; the revision is sent meanwhile
		}
		return writeRecords(evs)
	}
	head := fmt.Sprintf("retry: %d\n", RetryMillis)
	if reset >= 0 {
		head += fmt.Sprintf("id: %d\nevent: %s\ndata: {\"id\":%d,\"last\":%d}\n\n", reset, ResetEvent, board, reset)
	}
	if !write(head) {
		return
	}
	if sub != nil {
		// What a resumed stream missed comes first, so that the revision after it is known.
		if evs, err := sub.Next(r.Context(), records); err == nil && !writeRecords(evs) {
			return
		}
	}
	if sub == nil || first.Revision > covered {
		if !write(eventText(first)) {
			return
		}
	}
	lastBoard = first.Revision
	var records0 <-chan struct{}
	if sub != nil {
		records0 = sub.C
	}
	t := time.NewTicker(ping)
	defer t.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case <-revoked:
			return
		case <-records0:
			evs, err := sub.Next(r.Context(), records)
			if err != nil {
				// The subscription stays lost and reads again at the next signal; the client
				// reconnects with the last number it got if the stream ends.
				continue
			}
			if !writeRecords(evs) {
				return
			}
		case bc := <-ch:
			if sub != nil {
				if bc.Revision > covered && !catchUp() {
					return
				}
				if bc.Revision <= covered && bc.Revision > lastBoard {
					// The save of a change whose events of the record said it already.
					lastBoard = bc.Revision
					continue
				}
				lastBoard = max(lastBoard, bc.Revision)
			}
			if !write(eventText(bc)) {
				return
			}
			if obs != nil {
				obs.delivered(bc)
			}
		case <-t.C:
			if !write(": ping\n\n") {
				return
			}
		}
	}
}

// eventText is the SSE event of a change.
func eventText(bc BoardChanged) string {
	return fmt.Sprintf("event: board\ndata: {\"id\":%d,\"revision\":%d}\n\n", bc.Board, bc.Revision)
}

// RecordEvent is the SSE event name of an event of a board's record.
const RecordEvent = "record"

// recordText is the SSE events of a batch of the record's events, each with its number as the
// event's id (what EventSource sends back as Last-Event-ID) and the event as JSON.
func recordText(evs []boards.Event) string {
	var b strings.Builder
	for _, e := range evs {
		data, _ := json.Marshal(e) // plain data: it always marshals
		fmt.Fprintf(&b, "id: %d\nevent: %s\ndata: %s\n\n", e.ID, RecordEvent, data)
	}
	return b.String()
}
