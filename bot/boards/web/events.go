// Live updates of the boards: the Hub and the Server-Sent Events stream.
//
// What happened on a board is made and stored once, by the board service (bot/boards,
// events.go): every change an operation commits is written, in its transaction, into the board's
// numbered record and announced at the commit. Each process follows the commits of every process
// on one LISTEN connection, the service's Feed (bot/boards, feed.go), which the Hub follows too:
// the stream of a board renders the record's events from it, each as an SSE event with its number
// as its id, so that a reconnection with Last-Event-ID (EventSource sends it by itself; or the
// query parameter LastEventParam) reads exactly what it missed from the record, in order, across
// a restart of the server too. The stream carries the record's events only (and a reset for a
// stream that cannot resume): PostgreSQL delivers a notification when its transaction commits,
// so an event never announces a move that is not there to read, and a rolled back move
// announces nothing.
//
// After each new LISTEN of the feed, the feed reads the record's events numbered above the last
// it handed out, so a stream receives exactly what it missed while nobody listened, and nothing
// again; the hub rechecks the grants of the open streams (revoke.go), whose revocations were
// not heard meanwhile.

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
	// Delivered counts the events of the record written to streams (a resumed stream's replay
	// included).
	Delivered prometheus.Counter
	// Delay is the time from an event's making (its time in the record, Event.At, taken in the
	// transaction of the change; the announcement leaves at the commit that follows) to its
	// write to a stream that was open when it was made; a replay of events made before the
	// stream opened is not measured. It assumes the service's clock and this process's agree,
	// as on one machine.
	Delay prometheus.Histogram
	// Listening is 1 while the hub's connection is LISTENing, else 0.
	Listening prometheus.Gauge
	// Reconnects counts the losses of the hub's connection.
	Reconnects prometheus.Counter
	// Malformed counts the notifications of revoked grants whose payload could not be read.
	Malformed prometheus.Counter
}

// NewMetrics creates the metrics (not registered).
func NewMetrics() *Metrics {
	return &Metrics{
		Streams: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "questbot_web_event_streams", Help: "Server-Sent Events streams of boards open.",
		}),
		Delivered: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "questbot_web_events_delivered_total", Help: "Events of the boards' records written to SSE streams.",
		}),
		Delay: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "questbot_web_event_delay_seconds",
			Help:    "Time from the making of a board's event to its write to an SSE stream.",
			Buckets: []float64{.001, .002, .005, .01, .02, .05, .1, .2, .5, 1, 2, 5},
		}),
		Listening: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "questbot_web_events_listening", Help: "1 while the board events connection is listening.",
		}),
		Reconnects: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "questbot_web_events_reconnects_total", Help: "Losses of the board events connection.",
		}),
		Malformed: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "questbot_web_events_malformed_total", Help: "Notifications of revoked grants with an unreadable payload.",
		}),
	}
}

// Register registers every metric with r.
func (m *Metrics) Register(r prometheus.Registerer) error {
	for _, c := range []prometheus.Collector{m.Streams, m.Delivered, m.Delay, m.Listening, m.Reconnects, m.Malformed} {
		if err := r.Register(c); err != nil {
			return err
		}
	}
	return nil
}

// Hub follows the boards' records on the process's feed for the streams of the boards, and
// closes the streams whose grants end (revoke.go). It implements Events. Run it once per
// process.
type Hub struct {
	pool *pgxpool.Pool
	// feed is the process's one LISTEN connection the hub follows; own says the hub made it
	// (NewHub) and runs it.
	feed *boards.Feed
	own  bool

	log     *slog.Logger
	metrics *Metrics
	now     func() time.Time

	listening atomic.Bool
	// connects counts the successful LISTENs (the first one included).
	connects atomic.Int64

	// gmu guards guards, the grants of the open streams (revoke.go).
	gmu    sync.Mutex
	guards map[*guard]struct{}
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
	h := &Hub{pool: pool, feed: feed, log: log, metrics: NewMetrics(), now: time.Now}
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

// listening0 is what the hub does on each new LISTEN: it tells it is listening and rechecks the
// revocations, which were not heard while it did not listen. What the boards' records gained
// meanwhile the feed reads itself, and hands to the streams as any new events.
func (h *Hub) listening0(ctx context.Context, conn *pgx.Conn) error {
	h.listening.Store(true)
	h.metrics.Listening.Set(1)
	h.connects.Add(1)
	return h.recheck(ctx, conn)
}

// streamOpened, streamClosed and delivered are how ServeEvents counts its streams and events
// in the metrics of the Events it serves from, when those have metrics.
type streamObserver interface {
	streamOpened()
	streamClosed()
	// delivered counts events of the record written to a stream; live says they were made
	// while it was open (their delay is measured).
	delivered(evs []boards.Event, live bool)
}

func (h *Hub) streamOpened() { h.metrics.Streams.Inc() }
func (h *Hub) streamClosed() { h.metrics.Streams.Dec() }

// delivered counts events of the record written to a stream and, for live ones, the delay from
// their making.
func (h *Hub) delivered(evs []boards.Event, live bool) {
	h.metrics.Delivered.Add(float64(len(evs)))
	if !live {
		return
	}
	now := h.now()
	for _, e := range evs {
		if !e.At.IsZero() {
			h.metrics.Delay.Observe(max(now.Sub(e.At), 0).Seconds())
		}
	}
}

// ServeEvents serves the Server-Sent Events stream of a board's record until the client goes
// away (the request's context ends) or a write fails (the API's streams also end when their
// grant does, see revoke.go):
//
//	retry: 2000
//
//	id: 130
//	event: record
//	data: {"id":130,"board":7,"kind":"moved","seat":0,"actor":0,"by":"web","ply":13,...}
//
//	: ping
//
// A stream resumed with the request's Last-Event-ID (or LastEventParam) first replays the
// record's events numbered above it, in order; a number that is no event of the board, or that
// more than MaxReplay events followed, is answered first with a ResetEvent ("id: <last>",
// "event: reset", data {"id":7,"last":<last>}): the client reads the state once and the stream
// goes on from the board's last event, as a new stream does (a new stream's client reads the
// state itself). Then each new event of the record, once, in order. A comment line every 25 s
// keeps an idle stream alive. The caller checks the client's right to watch the board first.
func ServeEvents(w http.ResponseWriter, r *http.Request, ev Events, board int64) {
	serveEvents(w, r, ev, board, PingInterval, nil)
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
	return resumableBy(after, func(from int64, limit int) ([]int64, error) {
		evs, err := boards.EventsAfter(ctx, db, board, from, limit)
		ids := make([]int64, len(evs))
		for i, e := range evs {
			ids[i] = e.ID
		}
		return ids, err
	})
}

// resumableBy is the rule of resumable for any numbered record, read by read (the numbers of
// at most limit events above from, in order): after is 0, or the number of an event followed
// by at most MaxReplay events.
func resumableBy(after int64, read func(from int64, limit int) ([]int64, error)) (bool, error) {
	if after == 0 {
		return true, nil
	}
	ids, err := read(after-1, MaxReplay+2)
	if err != nil {
		return false, err
	}
	return len(ids) > 0 && ids[0] == after && len(ids) <= MaxReplay+1, nil
}

// openStream answers a Server-Sent Events stream: it lifts the write deadline (a stream lives
// longer than any the server has for ordinary answers), writes the headers (no caching, no
// buffering by a proxy) and returns the function that writes and flushes a part of it, false
// once the client is gone. ok is false when the deadline cannot be lifted.
func openStream(w http.ResponseWriter) (write func(string) bool, ok bool) {
	rc := http.NewResponseController(w)
	if err := rc.SetWriteDeadline(time.Time{}); err != nil && !errors.Is(err, http.ErrNotSupported) {
		return nil, false
	}
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	return func(s string) bool {
		if _, err := io.WriteString(w, s); err != nil {
			return false
		}
		return rc.Flush() == nil
	}, true
}

// serveEvents is ServeEvents with the interval of its pings, ending too when revoked is closed.
func serveEvents(w http.ResponseWriter, r *http.Request, ev Events, board int64, ping time.Duration, revoked <-chan struct{}) {
	// reset is the number a stream that cannot resume goes on from (ResetEvent), -1 for none.
	reset := int64(-1)
	after, resumed, err := lastEventID(r)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	records := ev.Records()
	if resumed {
		ok, err := resumable(r.Context(), records, board, after)
		if err != nil {
			http.Error(w, "the board's events cannot be read now", http.StatusServiceUnavailable)
			return
		}
		resumed = ok
	}
	if !resumed {
		// A new stream, or one that cannot resume, renders from now on: the page reads the
		// state itself.
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
	sub := ev.Follow(board, after)
	defer sub.Close()
	obs, _ := ev.(streamObserver)
	if obs != nil {
		obs.streamOpened()
		defer obs.streamClosed()
	}
	write, ok := openStream(w)
	if !ok {
		return
	}
	// writeRecords writes a batch of the record's events (Next returns each once); live says
	// they were made while the stream was open.
	writeRecords := func(evs []boards.Event, live bool) bool {
		if len(evs) == 0 {
			return true
		}
		if !write(recordText(evs)) {
			return false
		}
		if obs != nil {
			obs.delivered(evs, live)
		}
		return true
	}
	head := fmt.Sprintf("retry: %d\n", RetryMillis)
	if reset >= 0 {
		head += fmt.Sprintf("id: %d\nevent: %s\ndata: {\"id\":%d,\"last\":%d}\n\n", reset, ResetEvent, board, reset)
	} else {
		head += "\n"
	}
	if !write(head) {
		return
	}
	// What a resumed stream missed comes first; a read that fails is read again at the
	// subscription's next signal (it stays lost).
	if evs, err := sub.Next(r.Context(), records); err == nil && !writeRecords(evs, !resumed) {
		return
	}
	t := time.NewTicker(ping)
	defer t.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case <-revoked:
			return
		case <-sub.C:
			evs, err := sub.Next(r.Context(), records)
			if err != nil {
				// The subscription stays lost and reads again at the next signal; the client
				// reconnects with the last number it got if the stream ends.
				continue
			}
			if !writeRecords(evs, true) {
				return
			}
		case <-t.C:
			if !write(": ping\n\n") {
				return
			}
		}
	}
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
