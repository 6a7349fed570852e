package boardpg

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/questbot/questbot/sessions/board"
)

// # The record of events
//
// board_event (migration 037_board_event_record.sql) keeps what happened on each board as
// numbered events, written by the board service (bot/boards) in the transaction of the change
// and announced on EventChannel at its commit. This store only keeps the rows: what a kind means
// and what its data holds are the service's. A board's events stay as long as the board (they
// are its game record) and go with it.

// EventChannel is the PostgreSQL notification channel of the record: each transaction that
// appends events to a board sends "<board>:<number of its last event>" on it, delivered at the
// commit.
const EventChannel = "board_event"

// EventRow is one event of a board's record as stored.
type EventRow struct {
	// ID is the event's number, set by AppendEvents.
	ID    int64
	Board int64
	Kind  string
	// Seat is the seat the event is of, and Actor the seat that made the change; -1 for none.
	Seat, Actor int
	// Source is where the change came from: telegram, web, bot or clock.
	Source string
	// Ply is the board's ply after the event.
	Ply int
	// Heard is how each seat hears of the change (the service's names).
	Heard [2]string
	// Data is what a view needs to render the event, as JSON (an object).
	Data json.RawMessage
	At   time.Time
}

const appendEventSQL = `
	INSERT INTO board_event (board_id, kind, seat, actor, source, ply, heard, data, at)
	VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
	RETURNING id`

// appendAnnouncedSQL is appendEventSQL for the last event of a board in its transaction: it
// announces the event on EventChannel ($10) too.
const appendAnnouncedSQL = `
	WITH e AS (
		INSERT INTO board_event (board_id, kind, seat, actor, source, ply, heard, data, at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
		RETURNING id, board_id)
	SELECT id, pg_notify($10, board_id::text || ':' || id::text) FROM e`

// AppendEvents appends events to the record in the store's transaction, numbering them in order
// (their IDs are set), and announces each board's last one on EventChannel at the commit. The
// caller holds the boards' row locks, so the events of a board commit in the order of their
// numbers. It carries out the notification policy's writes of the change the events are of
// (notices) too: all of it in one round trip to the database.
func (s *Store) AppendEvents(ctx context.Context, evs []EventRow, notices []board.NoticeWrite) error {
	last := map[int64]int{}
	for i, e := range evs {
		last[e.Board] = i
	}
	b := &pgx.Batch{}
	queueNotices(b, notices)
	for i := range evs {
		e := &evs[i]
		data := e.Data
		if len(data) == 0 {
			data = json.RawMessage("{}")
		}
		args := []any{e.Board, e.Kind, seatArg(e.Seat), seatArg(e.Actor), e.Source, e.Ply, e.Heard[:], data, e.At}
		sql, scan := appendEventSQL, []any{&e.ID}
		if last[e.Board] == i {
			sql, args, scan = appendAnnouncedSQL, append(args, EventChannel), []any{&e.ID, nil}
		}
		b.Queue(sql, args...).QueryRow(func(row pgx.Row) error {
			if err := row.Scan(scan...); err != nil {
				return fmt.Errorf("board %d: record the event %s: %w", e.Board, e.Kind, err)
			}
			return nil
		})
	}
	return s.tx.SendBatch(ctx, b).Close()
}

// seatArg is a seat as stored: NULL for none.
func seatArg(seat int) any {
	if seat < 0 {
		return nil
	}
	return int16(seat)
}

// ParseEventPayload reads a notification of EventChannel: the board and the number of the last
// event its transaction appended.
func ParseEventPayload(p string) (board, last int64, err error) {
	i := 0
	for i < len(p) && p[i] != ':' {
		i++
	}
	if i == len(p) {
		return 0, 0, fmt.Errorf("board event %q: want board:event", p)
	}
	if board, err = strconv.ParseInt(p[:i], 10, 64); err != nil || board <= 0 {
		return 0, 0, fmt.Errorf("board event %q: bad board", p)
	}
	if last, err = strconv.ParseInt(p[i+1:], 10, 64); err != nil || last <= 0 {
		return 0, 0, fmt.Errorf("board event %q: bad event number", p)
	}
	return board, last, nil
}

const eventsAfterSQL = `
	SELECT e.id, e.board_id, e.kind, coalesce(e.seat, -1), coalesce(e.actor, -1), e.source, e.ply,
		e.heard, e.data, e.at
	FROM unnest($1::bigint[], $2::bigint[]) AS w (board_id, after)
	JOIN board_event e ON e.board_id = w.board_id AND e.id > w.after
	ORDER BY e.id
	LIMIT $3`

// EventsAfter returns, in order, at most limit events of the boards of after (board -> number)
// numbered above each board's number there: what a reader that saw a board's events up to that
// number missed. It reads in db: a transaction, a pool or a connection of its own (the feed's).
func EventsAfter(ctx context.Context, db DB, after map[int64]int64, limit int) ([]EventRow, error) {
	if len(after) == 0 || limit <= 0 {
		return nil, nil
	}
	ids := make([]int64, 0, len(after))
	froms := make([]int64, 0, len(after))
	for b, n := range after {
		ids = append(ids, b)
		froms = append(froms, n)
	}
	rows, err := db.Query(ctx, eventsAfterSQL, ids, froms, limit)
	if err != nil {
		return nil, fmt.Errorf("board events: %w", err)
	}
	defer rows.Close()
	var out []EventRow
	for rows.Next() {
		var e EventRow
		var seat, actor int16
		var heard []string
		if err := rows.Scan(&e.ID, &e.Board, &e.Kind, &seat, &actor, &e.Source, &e.Ply, &heard, &e.Data, &e.At); err != nil {
			return nil, fmt.Errorf("board events: %w", err)
		}
		e.Seat, e.Actor = int(seat), int(actor)
		copy(e.Heard[:], heard)
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("board events: %w", err)
	}
	return out, nil
}

// LastEvent returns the number of a board's last event, 0 when it has none.
func LastEvent(ctx context.Context, db DB, board int64) (int64, error) {
	var n int64
	err := db.QueryRow(ctx, `SELECT coalesce(max(id), 0) FROM board_event WHERE board_id = $1`, board).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("board %d: last event: %w", board, err)
	}
	return n, nil
}

const lastEventsSQL = `
	SELECT DISTINCT ON (e.kind, e.seat) e.id, e.board_id, e.kind, coalesce(e.seat, -1), coalesce(e.actor, -1),
		e.source, e.ply, e.heard, e.data, e.at
	FROM board_event e
	WHERE e.board_id = $1 AND e.kind = ANY ($2::text[])
	ORDER BY e.kind, e.seat, e.id DESC`

// LastEvents returns the last event of a board of each of kinds for each seat (and for none),
// in no order: what a reader that only needs the newest of some kinds reads in one query.
func LastEvents(ctx context.Context, db DB, board int64, kinds []string) ([]EventRow, error) {
	if len(kinds) == 0 {
		return nil, nil
	}
	rows, err := db.Query(ctx, lastEventsSQL, board, kinds)
	if err != nil {
		return nil, fmt.Errorf("board %d: last events: %w", board, err)
	}
	defer rows.Close()
	var out []EventRow
	for rows.Next() {
		var e EventRow
		var seat, actor int16
		var heard []string
		if err := rows.Scan(&e.ID, &e.Board, &e.Kind, &seat, &actor, &e.Source, &e.Ply, &heard, &e.Data, &e.At); err != nil {
			return nil, fmt.Errorf("board %d: last events: %w", board, err)
		}
		e.Seat, e.Actor = int(seat), int(actor)
		copy(e.Heard[:], heard)
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("board %d: last events: %w", board, err)
	}
	return out, nil
}
