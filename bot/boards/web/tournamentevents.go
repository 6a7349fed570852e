package web

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/questbot/questbot/bot/boards"
)

// # The live updates of tournaments
//
// A tournament's stream renders its numbered record of events (bot/boards,
// tournament_events.go), as a game's stream renders the board's: every change the tournament
// service commits is one event of the record, announced at the commit and handed by each
// process's Feed to its TournamentHub, and the stream writes each event once, in order, with
// its number as the SSE id. A reconnection with Last-Event-ID (EventSource sends it by itself;
// or the query parameter LastEventParam) replays exactly what it missed from the record, in
// order, across a restart of the server too: the record is in the database, and a new hub
// reads it.

// TournamentEvents are the live updates of tournaments: their numbered records, followed (a
// TournamentHub).
type TournamentEvents interface {
	// Follow follows a tournament's events numbered above after; Records is where a
	// subscription reads what it missed.
	Follow(id, after int64) *boards.TournamentSubscription
	Records() boards.DB
}

// TournamentHub follows the tournaments' records on the process's feed for the tournaments'
// streams. Run it once per process.
type TournamentHub struct {
	pool *pgxpool.Pool
	feed *boards.Feed
	own  bool
}

var _ TournamentEvents = (*TournamentHub)(nil)

// TournamentListenerName is the application_name of the tournament hub's own feed.
const TournamentListenerName = "questbot tournament events"

// NewTournamentHub returns a hub that listens on a feed of its own (named
// TournamentListenerName), made with pool's settings, which Run runs; pool is where the streams
// read the records. log may be nil.
func NewTournamentHub(pool *pgxpool.Pool, log *slog.Logger) *TournamentHub {
	h := NewTournamentHubOn(boards.NewFeed(pool, TournamentListenerName, log), pool)
	h.own = true
	return h
}

// NewTournamentHubOn returns a hub that follows feed, the process's one LISTEN connection, run
// by its owner; pool is where the streams read the records.
func NewTournamentHubOn(feed *boards.Feed, pool *pgxpool.Pool) *TournamentHub {
	return &TournamentHub{pool: pool, feed: feed}
}

// Follow follows a tournament's numbered events above after, for a stream.
func (h *TournamentHub) Follow(id, after int64) *boards.TournamentSubscription {
	return h.feed.SubscribeTournament(id, after)
}

// Records is the database of the tournaments' records.
func (h *TournamentHub) Records() boards.DB { return h.pool }

// Listening reports whether the hub's feed is connected and LISTENing.
func (h *TournamentHub) Listening() bool { return h.feed.Listening() }

// Run runs the hub's own feed (NewTournamentHub) until ctx ends; a hub on a shared feed
// (NewTournamentHubOn) just waits for ctx. It returns nil when ctx ends.
func (h *TournamentHub) Run(ctx context.Context) error {
	if h.own {
		h.feed.Run(ctx)
		return nil
	}
	<-ctx.Done()
	return nil
}

// tournamentResumable reports whether a stream can go on after the event numbered after of a
// tournament: after is 0 (the whole record) or an event of the tournament, followed by at most
// MaxReplay events.
func tournamentResumable(ctx context.Context, db boards.DB, id, after int64) (bool, error) {
	return resumableBy(after, func(from int64, limit int) ([]int64, error) {
		evs, err := boards.TournamentEventsAfter(ctx, db, id, from, limit)
		ids := make([]int64, len(evs))
		for i, e := range evs {
			ids[i] = e.ID
		}
		return ids, err
	})
}

// serveTournamentEvents serves the Server-Sent Events stream of a tournament's record until the
// client goes away, a write fails, or revoked is closed (the grant the stream was opened with
// ended, revoke.go):
//
//	retry: 2000
//	id: 41
//	event: reset
//	data: {"id":3,"last":41}
//
//	id: 42
//	event: record
//	data: {"id":42,"tournament":3,"kind":"joined","data":{"state":"created","round":0,"players":2,"player":2,"name":"Ann"},"at":...}
//
//	: ping
//
// A stream resumed with the request's Last-Event-ID (or LastEventParam) first replays the
// record's events numbered above it, in order; then each new event, once, in order. A stream
// that does not resume, because it names no number or one that is no event of the tournament
// or that more than MaxReplay events followed, opens with a ResetEvent numbered with the
// tournament's last event (its data the tournament and that number): the client reads the state
// once, and the stream goes on from there. A comment line every ping keeps an idle stream alive.
// The caller checks that the tournament may be read.
func serveTournamentEvents(w http.ResponseWriter, r *http.Request, ev TournamentEvents, id int64, ping time.Duration, revoked <-chan struct{}) {
	ctx := r.Context()
	records := ev.Records()
	after, resumed, err := lastEventID(r)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if resumed {
		if resumed, err = tournamentResumable(ctx, records, id, after); err != nil {
			http.Error(w, "the tournament's events cannot be read now", http.StatusServiceUnavailable)
			return
		}
	}
	reset := int64(-1)
	if !resumed {
		if after, err = boards.TournamentLastEvent(ctx, records, id); err != nil {
			http.Error(w, "the tournament's events cannot be read now", http.StatusServiceUnavailable)
			return
		}
		reset = after
	}
	sub := ev.Follow(id, after)
	defer sub.Close()
	write, ok := openStream(w)
	if !ok {
		return
	}
	head := fmt.Sprintf("retry: %d\n", RetryMillis)
	if reset >= 0 {
		head += fmt.Sprintf("id: %d\nevent: %s\ndata: {\"id\":%d,\"last\":%d}\n\n", reset, ResetEvent, id, reset)
	}
	if !write(head) {
		return
	}
	t := time.NewTicker(ping)
	defer t.Stop()
	// The subscription starts with something to read (what was missed, from the record), so the
	// replay comes first.
	for {
		select {
		case <-ctx.Done():
			return
		case <-revoked:
			return
		case <-sub.C:
			evs, err := sub.Next(ctx, records)
			if err != nil {
				// The subscription stays lost and reads again at the next signal; the client
				// reconnects with the last number it got if the stream ends.
				continue
			}
			if len(evs) > 0 && !write(tournamentRecordText(evs)) {
				return
			}
		case <-t.C:
			if !write(": ping\n\n") {
				return
			}
		}
	}
}

// tournamentRecordText is the SSE events of a batch of a tournament's events, each with its
// number as the event's id and the event as JSON.
func tournamentRecordText(evs []boards.TournamentEvent) string {
	var b strings.Builder
	for _, e := range evs {
		data, _ := json.Marshal(e) // plain data: it always marshals
		fmt.Fprintf(&b, "id: %d\nevent: %s\ndata: %s\n\n", e.ID, RecordEvent, data)
	}
	return b.String()
}
