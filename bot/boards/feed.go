package boards

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/questbot/questbot/sessions/board/boardpg"
	"github.com/questbot/questbot/sessions/tournament/tournamentpg"
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
// the numbered records, the boards' (events.go) to the subscribers of each board and the
// tournaments' (tournament_events.go) to the subscribers of each tournament, and the
// notifications of the other channels the service and its views listen on (the bots' turns,
// the web's revoked grants) to the handlers of those channels.
//
// The events of a board or a tournament are read from its record once per announcement, on the
// feed's connection, and only for those somebody follows; after every (re)connection the feed
// reads, one by one, the events numbered above the last it handed out, so nothing committed
// while it did not listen is lost. A subscription holds at most feedPending unread events: a
// slow subscriber never blocks the feed or the others, and one that falls behind is told it
// lost some, and reads them from the record itself (Next). Run it once per process; it is safe
// for concurrent use.
type Feed struct {
	pool *pgxpool.Pool
	name string
	log  *slog.Logger

	hmu       sync.Mutex
	handlers  map[string][]func(payload string)
	listening []func(ctx context.Context, conn *pgx.Conn) error
	lost      []func(listened bool)

	// boards and tournaments are the records the feed follows.
	boards      *record[Event]
	tournaments *record[TournamentEvent]

	up atomic.Bool
}

// record is one numbered record the feed follows: the events of its owners (boards, or
// tournaments), announced on channel as "<owner>:<number of the last event>" at each commit.
type record[E any] struct {
	channel string
	// parse reads an announcement; read reads, in order, at most limit events of the owners
	// of after numbered above each owner's number there.
	parse func(payload string) (owner, last int64, err error)
	read  func(ctx context.Context, db DB, after map[int64]int64, limit int) ([]E, error)
	// number and owner are an event's number and owner.
	number func(E) int64
	owner  func(E) int64

	mu       sync.Mutex
	followed map[int64]*followed[E]
}

// followed is an owner (a board, a tournament) with subscribers.
type followed[E any] struct {
	// last is the number of the newest event the feed handed out (-1: none yet, the
	// subscriptions read the record themselves first).
	last int64
	subs map[*Following[E]]struct{}
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
	return &Feed{pool: pool, name: name, log: log, handlers: map[string][]func(string){},
		boards: &record[Event]{channel: boardpg.EventChannel, parse: boardpg.ParseEventPayload,
			read: func(ctx context.Context, db DB, after map[int64]int64, limit int) ([]Event, error) {
				rows, err := boardpg.EventsAfter(ctx, db, after, limit)
				if err != nil {
					return nil, err
				}
				return eventsOf(rows)
			},
			number: func(e Event) int64 { return e.ID }, owner: func(e Event) int64 { return e.Board },
			followed: map[int64]*followed[Event]{}},
		tournaments: &record[TournamentEvent]{channel: tournamentpg.EventChannel, parse: tournamentpg.ParseEventPayload,
			read:   tournamentEventsAfter,
			number: func(e TournamentEvent) int64 { return e.ID }, owner: func(e TournamentEvent) int64 { return e.Tournament },
			followed: map[int64]*followed[TournamentEvent]{}},
	}
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
	channels := []string{f.boards.channel, f.tournaments.channel}
	for ch := range f.handlers {
		if !slices.Contains(channels, ch) {
			channels = append(channels, ch)
		}
	}
	f.hmu.Unlock()
	l := &Listener{Pool: f.pool, Name: f.name, Channels: channels, Log: f.log,
		Listening: func(ctx context.Context, conn *pgx.Conn) error {
			f.up.Store(true)
			if err := errors.Join(f.boards.catchUp(ctx, conn), f.tournaments.catchUp(ctx, conn)); err != nil {
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

// read handles one notification: a record's, or another channel's handlers'.
func (f *Feed) read(ctx context.Context, conn *pgx.Conn, n *pgconn.Notification) error {
	switch n.Channel {
	case f.boards.channel:
		return f.boards.announced(ctx, conn, n.Payload, f.log)
	case f.tournaments.channel:
		return f.tournaments.announced(ctx, conn, n.Payload, f.log)
	}
	f.hmu.Lock()
	fns := f.handlers[n.Channel]
	f.hmu.Unlock()
	for _, fn := range fns {
		fn(n.Payload)
	}
	return nil
}

// announced handles an announcement of the record: the events of a followed owner numbered
// above the last handed out are read and handed out.
func (r *record[E]) announced(ctx context.Context, conn *pgx.Conn, payload string, log *slog.Logger) error {
	owner, last, err := r.parse(payload)
	if err != nil {
		log.Warn("Feed: an unreadable notification", slog.String("channel", r.channel), slog.String("payload", payload),
			slog.Any("error", err))
		return nil
	}
	r.mu.Lock()
	w := r.followed[owner]
	switch {
	case w == nil:
		// Nobody follows it: nothing is read.
		r.mu.Unlock()
		return nil
	case w.last < 0:
		// The subscriptions have not been handed anything yet; each reads the record after
		// its own number.
		w.last = last
		w.lose()
		r.mu.Unlock()
		return nil
	case last <= w.last:
		r.mu.Unlock()
		return nil
	}
	from := w.last
	r.mu.Unlock()
	return r.fetch(ctx, conn, map[int64]int64{owner: from})
}

// catchUp reads, after a (re)connection, the events of every followed owner numbered above the
// last the feed handed out.
func (r *record[E]) catchUp(ctx context.Context, conn *pgx.Conn) error {
	r.mu.Lock()
	after := map[int64]int64{}
	for id, w := range r.followed {
		if w.last < 0 {
			w.lose()
			continue
		}
		after[id] = w.last
	}
	r.mu.Unlock()
	return r.fetch(ctx, conn, after)
}

// fetch reads the events of owners above their numbers and hands them out. A read that fails or
// finds more than feedRead events leaves the subscriptions of those owners to read the record
// themselves.
func (r *record[E]) fetch(ctx context.Context, conn *pgx.Conn, after map[int64]int64) error {
	if len(after) == 0 {
		return nil
	}
	evs, err := r.read(ctx, conn, after, feedRead)
	r.mu.Lock()
	defer r.mu.Unlock()
	if err != nil || len(evs) == feedRead {
		for id := range after {
			if w := r.followed[id]; w != nil {
				w.lose()
			}
		}
		return err
	}
	byOwner := map[int64][]E{}
	for _, e := range evs {
		byOwner[r.owner(e)] = append(byOwner[r.owner(e)], e)
	}
	for id, batch := range byOwner {
		w := r.followed[id]
		if w == nil {
			continue
		}
		w.last = max(w.last, r.number(batch[len(batch)-1]))
		for s := range w.subs {
			s.give(batch)
		}
	}
	return nil
}

// lose tells every subscription of the owner that it lost events.
func (w *followed[E]) lose() {
	for s := range w.subs {
		s.lose()
	}
}

// subscribe follows an owner's events numbered above after.
func (r *record[E]) subscribe(owner, after int64) *Following[E] {
	c := make(chan struct{}, 1)
	s := &Following[E]{rec: r, owner: owner, c: c, C: c, cursor: after}
	r.mu.Lock()
	w := r.followed[owner]
	if w == nil {
		w = &followed[E]{last: -1, subs: map[*Following[E]]struct{}{}}
		r.followed[owner] = w
	}
	w.subs[s] = struct{}{}
	s.lose()
	r.mu.Unlock()
	return s
}

// Subscribe follows a board's events numbered above after (what the subscriber has already
// rendered). The subscription starts lost: its first Next reads the record after after, which
// covers whatever committed before the feed hands it anything.
func (f *Feed) Subscribe(board, after int64) *Subscription { return f.boards.subscribe(board, after) }

// SubscribeTournament follows a tournament's events numbered above after, as Subscribe does a
// board's.
func (f *Feed) SubscribeTournament(id, after int64) *TournamentSubscription {
	return f.tournaments.subscribe(id, after)
}

// Subscription is a subscriber's follow of a board's events (Feed.Subscribe).
type Subscription = Following[Event]

// TournamentSubscription is a subscriber's follow of a tournament's events
// (Feed.SubscribeTournament).
type TournamentSubscription = Following[TournamentEvent]

// Following is a subscriber's follow of the events of one owner of a record: a board's
// (Subscription) or a tournament's (TournamentSubscription).
type Following[E any] struct {
	rec   *record[E]
	owner int64
	c     chan struct{}
	// C receives a value when Next has something: events, or events lost to read from the
	// record. It holds one value and is never closed.
	C <-chan struct{}

	mu      sync.Mutex
	pending []E
	lost    bool
	cursor  int64
	closed  bool
}

// give hands the subscription a batch of events, or marks it lost when it holds too many.
func (s *Following[E]) give(batch []E) {
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
func (s *Following[E]) lose() {
	s.mu.Lock()
	s.pending, s.lost = nil, true
	s.mu.Unlock()
	s.signal()
}

func (s *Following[E]) signal() {
	select {
	case s.c <- struct{}{}:
	default:
	}
}

// Next returns, in order, the owner's events numbered above the last one it returned (or the
// subscription's start): those the feed handed it, or, when it lost some, those it reads from
// the record in db (at most feedRead at once; it signals C again when there may be more).
// Nothing is returned twice.
func (s *Following[E]) Next(ctx context.Context, db DB) ([]E, error) {
	s.mu.Lock()
	lost, pending, cursor := s.lost, s.pending, s.cursor
	s.pending, s.lost = nil, false
	s.mu.Unlock()
	var evs []E
	if lost {
		read, err := s.rec.read(ctx, db, map[int64]int64{s.owner: cursor}, feedRead)
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
		if n := s.rec.number(e); n > cursor {
			out = append(out, e)
			cursor = n
		}
	}
	s.mu.Lock()
	s.cursor = max(s.cursor, cursor)
	s.mu.Unlock()
	return out, nil
}

// Close ends the subscription; calling it again does nothing.
func (s *Following[E]) Close() {
	r := s.rec
	r.mu.Lock()
	defer r.mu.Unlock()
	if s.closed {
		return
	}
	s.closed = true
	if w := r.followed[s.owner]; w != nil {
		delete(w.subs, s)
		if len(w.subs) == 0 {
			delete(r.followed, s.owner)
		}
	}
}
