package tournamentpg

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// # The record of events
//
// tournament_event (migration 042_tournament_events.sql) keeps what happened in each tournament
// as numbered events, written by the tournament service (bot/boards) in the transaction of the
// change and announced on EventChannel at its commit. This store only keeps the rows: what a
// kind means and what its data holds are the service's. A tournament's events stay as long as
// the tournament.

// EventChannel is the PostgreSQL notification channel of the record: each transaction that
// appends events to a tournament sends "<tournament>:<number of its last event>" on it,
// delivered at the commit.
const EventChannel = "tournament_event"

// DB is what the record's reads need of a database: a transaction, a pool or a connection.
type DB interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// EventRow is one event of a tournament's record as stored.
type EventRow struct {
	// ID is the event's number, set by AppendEvents.
	ID         int64
	Tournament int64
	Kind       string
	// Data is what a view needs to render the event, as JSON (an object).
	Data json.RawMessage
	At   time.Time
}

const appendEventSQL = `
	INSERT INTO tournament_event (tournament_id, kind, data, at) VALUES ($1, $2, $3, $4)
	RETURNING id`

// AppendEvents appends events to the record in the store's transaction, numbering them in order
// (their IDs are set), and announces each tournament's last one on EventChannel at the commit.
// The caller holds the tournaments' row locks (or created them in this transaction), so the
// events of a tournament commit in the order of their numbers.
func (s *Store) AppendEvents(ctx context.Context, evs []EventRow) error {
	last := map[int64]int64{}
	var order []int64
	for i := range evs {
		e := &evs[i]
		data := e.Data
		if len(data) == 0 {
			data = json.RawMessage("{}")
		}
		if err := s.tx.QueryRow(ctx, appendEventSQL, e.Tournament, e.Kind, data, e.At).Scan(&e.ID); err != nil {
			return fmt.Errorf("tournament %d: record the event %s: %w", e.Tournament, e.Kind, err)
		}
		if _, ok := last[e.Tournament]; !ok {
			order = append(order, e.Tournament)
		}
		last[e.Tournament] = e.ID
	}
	for _, t := range order {
		payload := strconv.FormatInt(t, 10) + ":" + strconv.FormatInt(last[t], 10)
		if _, err := s.tx.Exec(ctx, `SELECT pg_notify($1, $2)`, EventChannel, payload); err != nil {
			return fmt.Errorf("tournament %d: announce its events: %w", t, err)
		}
	}
	return nil
}

// ParseEventPayload reads a notification of EventChannel: the tournament and the number of the
// last event its transaction appended.
func ParseEventPayload(p string) (tournament, last int64, err error) {
	a, b, ok := strings.Cut(p, ":")
	if !ok {
		return 0, 0, fmt.Errorf("tournament event %q: want tournament:event", p)
	}
	if tournament, err = strconv.ParseInt(a, 10, 64); err != nil || tournament <= 0 {
		return 0, 0, fmt.Errorf("tournament event %q: bad tournament", p)
	}
	if last, err = strconv.ParseInt(b, 10, 64); err != nil || last <= 0 {
		return 0, 0, fmt.Errorf("tournament event %q: bad event number", p)
	}
	return tournament, last, nil
}

const eventsAfterSQL = `
	SELECT e.id, e.tournament_id, e.kind, e.data, e.at
	FROM unnest($1::bigint[], $2::bigint[]) AS w (tournament_id, after)
	JOIN tournament_event e ON e.tournament_id = w.tournament_id AND e.id > w.after
	ORDER BY e.id
	LIMIT $3`

// EventsAfter returns, in order, at most limit events of the tournaments of after (tournament
// -> number) numbered above each one's number there: what a reader that saw a tournament's
// events up to that number missed. It reads in db.
func EventsAfter(ctx context.Context, db DB, after map[int64]int64, limit int) ([]EventRow, error) {
	if len(after) == 0 || limit <= 0 {
		return nil, nil
	}
	ids := make([]int64, 0, len(after))
	froms := make([]int64, 0, len(after))
	for t, n := range after {
		ids = append(ids, t)
		froms = append(froms, n)
	}
	rows, err := db.Query(ctx, eventsAfterSQL, ids, froms, limit)
	if err != nil {
		return nil, fmt.Errorf("tournament events: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (EventRow, error) {
		var e EventRow
		err := row.Scan(&e.ID, &e.Tournament, &e.Kind, &e.Data, &e.At)
		return e, err
	})
	if err != nil {
		return nil, fmt.Errorf("tournament events: %w", err)
	}
	return out, nil
}

// LastEvent returns the number of a tournament's last event, 0 when it has none.
func LastEvent(ctx context.Context, db DB, tournament int64) (int64, error) {
	var n int64
	err := db.QueryRow(ctx, `SELECT coalesce(max(id), 0) FROM tournament_event WHERE tournament_id = $1`, tournament).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("tournament %d: last event: %w", tournament, err)
	}
	return n, nil
}
