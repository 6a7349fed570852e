// Live updates of the boards: the Hub and the Server-Sent Events stream.
//
// Every change of a board that a page must show fires a trigger on board_session
// (migrations/018_board_events.sql) that NOTIFYs the channel board_changed with
// "<board>:<revision>:<epoch microseconds>". PostgreSQL delivers a notification when its
// transaction commits, to every session listening, so an event never announces a move that is
// not there to read, a rolled back move announces nothing, and every process of the server hears
// every change, whichever process made it.
//
// Each process runs one Hub, which LISTENs on one connection of its own (on board_changed, and
// on web_revoked for the streams whose credentials end, see revoke.go) (outside the pool, so
// busy handlers never starve it and it never holds a pool slot) and fans the notifications out
// to the subscribers of each board, kept in a map guarded by a mutex. A subscriber's channel
// holds one value: a new change replaces an unread one, so a slow page never blocks the hub or
// the other pages, and memory stays one value per subscriber whatever the rate of moves; only
// the latest revision matters, since a page refetches the whole state on each event.
// Notifications of boards nobody watches are dropped at once.
//
// When the connection is lost the hub reconnects with a growing pause. Notifications sent while
// it was away are lost for good, so after each new LISTEN it reads the current revision of every
// watched board and hands it to the subscribers: every page refetches once.
//
// ServeEvents turns a subscription into an SSE stream. Its first event carries revision 0,
// meaning "fetch the state now": it covers whatever changed before the stream began.

package web

import (
	"context"
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
	"github.com/jackc/pgx/v5/pgconn"
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
	// Delivered counts the events written to streams (the initial one of each stream not
	// included).
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
			Name: "questbot_web_events_delivered_total", Help: "Board change events written to SSE streams.",
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
	pool    *pgxpool.Pool
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

// NewHub returns a hub that listens on a connection made with pool's settings. log may be nil.
func NewHub(pool *pgxpool.Pool, log *slog.Logger) *Hub {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Hub{pool: pool, log: log, metrics: NewMetrics(), now: time.Now, boards: map[int64]*watched{}}
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

// Run LISTENs until ctx ends, with the board service's one LISTEN loop (boards.Listener: its
// own connection named ListenerName, TCP keep-alive, a reconnection after a loss with a pause
// that doubles from 50 ms to 5 s, the loss logged once). It returns nil when ctx ends.
func (h *Hub) Run(ctx context.Context) error {
	l := &boards.Listener{Pool: h.pool, Name: ListenerName, Channels: []string{Channel, RevokedChannel}, Log: h.log,
		Listening: h.listening0,
		Notified: func(n *pgconn.Notification) {
			switch n.Channel {
			case Channel:
				h.notified(n.Payload)
			case RevokedChannel:
				h.revoked(n.Payload)
			}
		},
		Lost: func(listened bool) {
			h.listening.Store(false)
			h.metrics.Listening.Set(0)
			if listened && ctx.Err() == nil {
				h.metrics.Reconnects.Inc()
			}
		},
	}
	l.Run(ctx)
	return nil
}

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
}

func (h *Hub) streamOpened() { h.metrics.Streams.Inc() }
func (h *Hub) streamClosed() { h.metrics.Streams.Dec() }

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
//	data: {"id":7,"revision":0}
//
//	event: board
//	data: {"id":7,"revision":13}
//
//	: ping
//
// The first event, sent at once, has revision 0: "fetch the state now", since the page may have
// missed changes before the stream began (the subscription is made before it is sent, so none is
// missed after). Then one event per change, coalesced: a client that reads slowly gets the latest
// revision, not every one. A comment line every 25 s keeps an idle stream alive. The caller
// checks the client's right to watch the board first.
func ServeEvents(w http.ResponseWriter, r *http.Request, ev Events, board int64) {
	serveEvents(w, r, ev, board, PingInterval, nil)
}

// serveEvents is ServeEvents with the interval of its pings, ending too when revoked is closed.
func serveEvents(w http.ResponseWriter, r *http.Request, ev Events, board int64, ping time.Duration, revoked <-chan struct{}) {
	ch, unsubscribe := ev.Subscribe(board)
	defer unsubscribe()
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
	if !write(fmt.Sprintf("retry: %d\n%s", RetryMillis, eventText(BoardChanged{Board: board}))) {
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
		case bc := <-ch:
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
