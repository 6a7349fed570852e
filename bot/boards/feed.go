package boards

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/questbot/questbot/sessions/board/boardpg"
)

// FeedName is the application_name of the feed's connection, by which an operator finds it in
// pg_stat_activity.
const FeedName = "questbot board feed"

// Bounds of the feed's memory.
const (
	// feedPending is the most events a subscription holds unread: past it the subscription is
	// lost (Subscription.Next reads what it missed from the record instead).
	feedPending = 256
	// feedRead is the most events the feed reads at once from the record; a catch-up that finds
	// more leaves the subscriptions concerned to read the rest themselves.
	feedRead = 512
)

// Feed follows the commits of every process on one LISTEN connection per process (a Listener
// named FeedName) and hands what they announce to this process's subscribers: the events of
// the boards' record (events.go) to the subscribers of each board, and the notifications of the
// other channels the service and its views listen on (the bots' turns, the tournaments' changes,
// the web's boards and revoked grants) to the handlers of those channels.
//
// A board's events are read from the record once per announcement, on the feed's connection,
// and only for boards somebody follows; after every (re)connection the feed reads, board by
// board, the events numbered above the last it handed out, so nothing committed while it did not
// listen is lost. A subscription holds at most feedPending unread events: a slow subscriber
// never blocks the feed or the others, and one that falls behind is told it lost some, and reads
// them from the record itself (Next). Run it once per process; it is safe for concurrent use.
type Feed struct {
	pool *pgxpool.Pool
	name string
	log  *slog.Logger

	hmu       sync.Mutex
	handlers  map[string][]func(payload string)
	listening []func(ctx context.Context, conn *pgx.Conn) error
	lost      []func(listened bool)

	mu     sync.Mutex
	boards map[int64]*followed

	up atomic.Bool
}

// followed is a board with subscribers.
type followed struct {
	// last is the number of the newest event the feed handed out (-1: none yet, the
	// subscriptions read the record themselves first).
	last int64
	subs map[*Subscription]struct{}
}

// NewFeed returns a feed that listens on a connection made with pool's settings, named name
// (FeedName when empty). log may be nil.
func NewFeed(pool *pgxpool.Pool, name string, log *slog.Logger) *Feed {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if name == "" {
		name = FeedName
	}
	return &Feed{pool: pool, name: name, log: log, handlers: map[string][]func(string){}, boards: map[int64]*followed{}}
}

// Handle calls fn, on the feed's goroutine, with the payload of each notification of channel:
// fn must not block. Call it before Run; a channel handled after Run starts is listened on from
// the next connection on.
func (f *Feed) Handle(channel string, fn func(payload string)) {
	f.hmu.Lock()
	defer f.hmu.Unlock()
	f.handlers[channel] = append(f.handlers[channel], fn)
}

// OnListen calls fn after each LISTEN, before any notification is handed out, with the
// connection: where a follower reads what changed while nobody listened. An error drops the
// connection.
func (f *Feed) OnListen(fn func(ctx context.Context, conn *pgx.Conn) error) {
	f.hmu.Lock()
	defer f.hmu.Unlock()
	f.listening = append(f.listening, fn)
}

// OnLost calls fn each time the feed is without a connection (Listener.Lost): listened is true
// for the loss of a connection that had listened, not for its close when Run ends.
func (f *Feed) OnLost(fn func(listened bool)) {
	f.hmu.Lock()
	defer f.hmu.Unlock()
	f.lost = append(f.lost, fn)
}

// Listening reports whether the feed is connected and LISTENing.
func (f *Feed) Listening() bool { return f.up.Load() }

// Run listens until ctx ends.
func (f *Feed) Run(ctx context.Context) {
	f.hmu.Lock()
	channels := []string{boardpg.EventChannel}
	for ch := range f.handlers {
		if ch != boardpg.EventChannel {
			channels = append(channels, ch)
		}
	}
	f.hmu.Unlock()
	l := &Listener{Pool: f.pool, Name: f.name, Channels: channels, Log: f.log,
		Listening: func(ctx context.Context, conn *pgx.Conn) error {
			f.up.Store(true)
			if err := f.catchUp(ctx, conn); err != nil {
				return err
			}
			f.hmu.Lock()
			fns := append([]func(context.Context, *pgx.Conn) error{}, f.listening...)
			f.hmu.Unlock()
			for _, fn := range fns {
				if err := fn(ctx, conn); err != nil {
					return err
				}
			}
			return nil
		},
		Read: f.read,
		Lost: func(listened bool) {
			f.up.Store(false)
			f.hmu.Lock()
			fns := append([]func(listened bool){}, f.lost...)
			f.hmu.Unlock()
			for _, fn := range fns {
				fn(listened && ctx.Err() == nil)
			}
		},
	}
	l.Run(ctx)
}

// read handles one notification: the record's, or another channel's handlers'.
func (f *Feed) read(ctx context.Context, conn *pgx.Conn, n *pgconn.Notification) error {
	if n.Channel != boardpg.EventChannel {
		f.hmu.Lock()
		fns := f.handlers[n.Channel]
		f.hmu.Unlock()
		for _, fn := range fns {
			fn(n.Payload)
		}
		return nil
	}
	board, last, err := boardpg.ParseEventPayload(n.Payload)
	if err != nil {
		f.log.Warn("Board feed: an unreadable notification", slog.String("payload", n.Payload), slog.Any("error", err))
		return nil
	}
	f.mu.Lock()
	w := f.boards[board]
	var from int64
	switch {
	case w == nil:
		// Nobody follows the board: nothing is read.
		f.mu.Unlock()
		return nil
	case w.last < 0:
		// The subscriptions have not been handed anything yet; each reads the record after
		// its own number.
		w.last = last
		w.lose()
		f.mu.Unlock()
		return nil
	case last <= w.last:
		f.mu.Unlock()
		return nil
	}
	from = w.last
	f.mu.Unlock()
	return f.fetch(ctx, conn, map[int64]int64{board: from})
}

// catchUp reads, after a (re)connection, the events of every followed board numbered above the
// last the feed handed out.
func (f *Feed) catchUp(ctx context.Context, conn *pgx.Conn) error {
	f.mu.Lock()
	after := map[int64]int64{}
	for id, w := range f.boards {
		if w.last < 0 {
			w.lose()
			continue
		}
		after[id] = w.last
	}
	f.mu.Unlock()
	return f.fetch(ctx, conn, after)
}

// fetch reads the events of boards above their numbers and hands them out. A read that fails or
// finds more than feedRead events leaves the subscriptions of those boards to read the record
// themselves.
func (f *Feed) fetch(ctx context.Context, conn *pgx.Conn, after map[int64]int64) error {
	if len(after) == 0 {
		return nil
	}
	rows, err := boardpg.EventsAfter(ctx, conn, after, feedRead)
	var evs []Event
	if err == nil {
		evs, err = eventsOf(rows)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if err != nil || len(rows) == feedRead {
		for id := range after {
			if w := f.boards[id]; w != nil {
				w.lose()
			}
		}
		return err
	}
	byBoard := map[int64][]Event{}
	for _, e := range evs {
		byBoard[e.Board] = append(byBoard[e.Board], e)
	}
	for id, batch := range byBoard {
		w := f.boards[id]
		if w == nil {
			continue
		}
		w.last = max(w.last, batch[len(batch)-1].ID)
		for s := range w.subs {
			s.give(batch)
		}
	}
	return nil
}

// lose tells every subscription of the board that it lost events.
func (w *followed) lose() {
	for s := range w.subs {
		s.lose()
	}
}

// Subscribe follows a board's events numbered above after (what the subscriber has already
// rendered). The subscription starts lost: its first Next reads the record after after, which
// covers whatever committed before the feed hands it anything.
func (f *Feed) Subscribe(board, after int64) *Subscription {
	c := make(chan struct{}, 1)
	s := &Subscription{feed: f, board: board, c: c, C: c, cursor: after}
	f.mu.Lock()
	w := f.boards[board]
	if w == nil {
		w = &followed{last: -1, subs: map[*Subscription]struct{}{}}
		f.boards[board] = w
	}
	w.subs[s] = struct{}{}
	s.lose()
	f.mu.Unlock()
	return s
}

// Subscription is a subscriber's follow of a board's events (Feed.Subscribe).
type Subscription struct {
	feed  *Feed
	board int64
	c     chan struct{}
	// C receives a value when Next has something: events, or events lost to read from the
	// record. It holds one value and is never closed.
	C <-chan struct{}

	mu      sync.Mutex
	pending []Event
	lost    bool
	cursor  int64
	closed  bool
}

// give hands the subscription a batch of events, or marks it lost when it holds too many.
func (s *Subscription) give(batch []Event) {
	s.mu.Lock()
	if !s.lost {
		if len(s.pending)+len(batch) > feedPending {
			s.pending, s.lost = nil, true
		} else {
			s.pending = append(s.pending, batch...)
		}
	}
	s.mu.Unlock()
	s.signal()
}

// lose marks the subscription lost: its next Next reads the record.
func (s *Subscription) lose() {
	s.mu.Lock()
	s.pending, s.lost = nil, true
	s.mu.Unlock()
	s.signal()
}

func (s *Subscription) signal() {
	select {
	case s.c <- struct{}{}:
	default:
	}
}

// Next returns, in order, the board's events numbered above the last one it returned (or the
// subscription's start): those the feed handed it, or, when it lost some, those it reads from
// the record in db (at most feedRead at once; it signals C again when there may be more).
// Nothing is returned twice.
func (s *Subscription) Next(ctx context.Context, db boardpg.DB) ([]Event, error) {
	s.mu.Lock()
	lost, pending, cursor := s.lost, s.pending, s.cursor
	s.pending, s.lost = nil, false
	s.mu.Unlock()
	var evs []Event
	if lost {
		read, err := EventsAfter(ctx, db, s.board, cursor, feedRead)
		if err != nil {
			s.lose()
			return nil, err
		}
		if len(read) == feedRead {
			s.lose()
		}
		evs = read
	} else {
		evs = pending
	}
	out := evs[:0:0]
	for _, e := range evs {
		if e.ID > cursor {
			out = append(out, e)
			cursor = e.ID
		}
	}
	s.mu.Lock()
	s.cursor = max(s.cursor, cursor)
	s.mu.Unlock()
	return out, nil
}

// Close ends the subscription; calling it again does nothing.
func (s *Subscription) Close() {
	f := s.feed
	f.mu.Lock()
	defer f.mu.Unlock()
	if s.closed {
		return
	}
	s.closed = true
	if w := f.boards[s.board]; w != nil {
		delete(w.subs, s)
		if len(w.subs) == 0 {
			delete(f.boards, s.board)
		}
	}
}
