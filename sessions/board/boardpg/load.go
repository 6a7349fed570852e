package boardpg

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/questbot/questbot/sessions/board"
)

// sessionRow is a board_session row as a board is read from it.
type sessionRow struct {
	ID            int64      `db:"id"`
	ServiceID     int        `db:"service_id"`
	Variant       string     `db:"variant"`
	Options       string     `db:"options"`
	Seed          int64      `db:"seed"`
	Control       string     `db:"control"`
	ClockMode     string     `db:"clock_mode"`
	MainUS        int64      `db:"main_us"`
	ExtraUS       int64      `db:"extra_us"`
	PerMoveUS     int64      `db:"per_move_us"`
	Status        string     `db:"status"`
	Private       bool       `db:"private"`
	CreatedBy     int64      `db:"created_by"`
	CreatedAt     time.Time  `db:"created_at"`
	StartedAt     *time.Time `db:"started_at"`
	EndedAt       *time.Time `db:"ended_at"`
	StartPosition string     `db:"start_position"`
	Position      string     `db:"position"`
	Ply           int        `db:"ply"`
	ToMove        int        `db:"to_move"`
	TurnStartedAt *time.Time `db:"turn_started_at"`
	Deadline      *time.Time `db:"deadline"`
	OfferSeat     *int       `db:"offer_seat"`
	OfferPly      *int       `db:"offer_ply"`
	Reminded      bool       `db:"reminded"`
	Rated         bool       `db:"rated"`
	Result        *string    `db:"result"`
	Winner        *int       `db:"winner"`
	EndReason     *string    `db:"end_reason"`
	EndDetail     string     `db:"end_detail"`
	Revision      int64      `db:"revision"`
}

const sessionColumns = `id, service_id, variant, options, seed, control, clock_mode, main_us,
	extra_us, per_move_us, status, private, created_by, created_at, started_at, ended_at,
	start_position, position, ply, to_move, turn_started_at, deadline, offer_seat, offer_ply,
	reminded, rated, result, winner, end_reason, end_detail, revision`

// seatRow is a board_seat row.
type seatRow struct {
	Seat         int     `db:"seat"`
	UserID       *int64  `db:"user_id"`
	Bot          *string `db:"bot"`
	ClockUS      int64   `db:"clock_us"`
	SeenPly      int     `db:"seen_ply"`
	Offered      bool    `db:"offered"`
	RatingBefore *int    `db:"rating_before"`
	RatingAfter  *int    `db:"rating_after"`
}

const seatsSQL = `
	SELECT seat, user_id, bot, clock_us, seen_ply, offered, rating_before, rating_after
	FROM board_seat WHERE board_id = $1 ORDER BY seat`

// moveRow is a board_move row.
type moveRow struct {
	Ply      int       `db:"ply"`
	Seat     int       `db:"seat"`
	Move     string    `db:"move"`
	Position string    `db:"position"`
	PlayedAt time.Time `db:"played_at"`
	SpentUS  int64     `db:"spent_us"`
	Clock0US int64     `db:"clock0_us"`
	Clock1US int64     `db:"clock1_us"`
}

const movesSQL = `
	SELECT ply, seat, move, position, played_at, spent_us, clock0_us, clock1_us
	FROM board_move WHERE board_id = $1 ORDER BY ply`

// revisionSQL reads a board's revision, to check that an unlocked read saw one state.
const revisionSQL = `SELECT revision FROM board_session WHERE id = $1`

// maxReadTries bounds the reads of an unlocked board that keeps changing under the reader.
const maxReadTries = 5

// load reads a board with its seats and moves, locking its row when lock is set. A row that
// does not make a consistent board is board.ErrCorrupt.
//
// Without the lock, in a transaction that reads committed data, a save may commit between the
// reads of the row, the seats and the moves, so that they mix two states of the board: the
// read is taken again while the revision read after the moves is not the row's.
func (s *Store) load(ctx context.Context, id int64, lock bool) (*board.Board, error) {
	for try := 1; ; try++ {
		b, rev, err := s.loadOnce(ctx, id, lock)
		if lock || try == maxReadTries {
			return b, err
		}
		if err != nil && !errors.Is(err, board.ErrCorrupt) {
			return nil, err
		}
		var now int64
		if err := s.tx.QueryRow(ctx, revisionSQL, id).Scan(&now); err != nil {
			return nil, mapErr(err)
		}
		if now == rev {
			return b, err
		}
	}
}

// loadOnce is one read of load, and the revision of the row it read.
func (s *Store) loadOnce(ctx context.Context, id int64, lock bool) (*board.Board, int64, error) {
	q := `SELECT ` + sessionColumns + ` FROM board_session WHERE id = $1`
	if lock {
		q += ` FOR UPDATE`
	}
	rows, _ := s.tx.Query(ctx, q, id)
	r, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[sessionRow])
	if err != nil {
		return nil, 0, mapErr(err)
	}
	rows, _ = s.tx.Query(ctx, seatsSQL, id)
	seats, err := pgx.CollectRows(rows, pgx.RowToStructByName[seatRow])
	if err != nil {
		return nil, 0, fmt.Errorf("seats: %w", err)
	}
	rows, _ = s.tx.Query(ctx, movesSQL, id)
	moves, err := pgx.CollectRows(rows, pgx.RowToStructByName[moveRow])
	if err != nil {
		return nil, 0, fmt.Errorf("moves: %w", err)
	}
	b, err := r.board(seats, moves)
	if err != nil {
		return nil, r.Revision, fmt.Errorf("%w: %w", board.ErrCorrupt, err)
	}
	b.MarkStored(r.Revision)
	return b, r.Revision, nil
}

// board builds the board of a row, its seats and its moves.
func (r *sessionRow) board(seats []seatRow, moves []moveRow) (*board.Board, error) {
	mode, err := board.ParseClockMode(r.ClockMode)
	if err != nil {
		return nil, err
	}
	status, err := board.ParseStatus(r.Status)
	if err != nil {
		return nil, err
	}
	opts, err := board.ParseOptions(r.Options)
	if err != nil {
		return nil, err
	}
	b := &board.Board{
		ID: r.ID, Service: r.ServiceID, Variant: r.Variant, Options: opts, Seed: uint64(r.Seed),
		Control: board.TimeControl{Name: r.Control, Mode: mode, Main: micros(r.MainUS),
			Extra: micros(r.ExtraUS), PerMove: micros(r.PerMoveUS)},
		Status: status, Private: r.Private, Creator: r.CreatedBy,
		Created: r.CreatedAt.UTC(), Started: utc(r.StartedAt), Ended: utc(r.EndedAt),
		Start: r.StartPosition, Position: r.Position, ToMove: r.ToMove,
		TurnStarted: utc(r.TurnStartedAt), Deadline: utc(r.Deadline),
		Reminded: r.Reminded, Rated: r.Rated,
	}
	if r.OfferSeat != nil && r.OfferPly != nil {
		b.Offer = &board.DrawOffer{Seat: *r.OfferSeat, Ply: *r.OfferPly}
	}
	if r.Result != nil {
		end, err := board.ParseEnd(deref(r.EndReason))
		if err != nil {
			return nil, err
		}
		o := board.Outcome{Draw: *r.Result == "draw", End: end, Detail: r.EndDetail}
		if r.Winner != nil {
			o.Winner = *r.Winner
		}
		b.Outcome = &o
	}
	if len(seats) != 2 || seats[0].Seat != 0 || seats[1].Seat != 1 {
		return nil, fmt.Errorf("%d seats", len(seats))
	}
	for i, sr := range seats {
		bot, err := board.ParseBotLevel(deref(sr.Bot))
		if err != nil {
			return nil, err
		}
		b.Seats[i] = board.Seat{
			User: deref(sr.UserID), Bot: bot, Clock: micros(sr.ClockUS), Seen: sr.SeenPly,
			Offered: sr.Offered, RatingBefore: deref(sr.RatingBefore), RatingAfter: deref(sr.RatingAfter),
		}
	}
	if len(moves) != r.Ply {
		return nil, fmt.Errorf("ply %d with %d moves", r.Ply, len(moves))
	}
	for _, m := range moves {
		b.Moves = append(b.Moves, board.PlayedMove{
			Ply: m.Ply, Seat: m.Seat, Text: m.Move, Position: m.Position, At: m.PlayedAt.UTC(),
			Spent: micros(m.SpentUS), Clocks: [2]time.Duration{micros(m.Clock0US), micros(m.Clock1US)},
		})
	}
	return b, nil
}

// micros is a duration of n microseconds.
func micros(n int64) time.Duration { return time.Duration(n) * time.Microsecond }

// utc is the time t points to in UTC, or the zero time for NULL.
func utc(t *time.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return t.UTC()
}

// deref is the value p points to, or the zero value for NULL.
func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}
