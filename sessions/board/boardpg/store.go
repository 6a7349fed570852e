package boardpg

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/questbot/questbot/sessions/board"
)

var (
	_ board.Store = (*Store)(nil)
	_ board.Jobs  = (*Store)(nil)
)

// Store keeps boards in PostgreSQL within one transaction, the caller's: a move made in
// Telegram is stored in the transaction of its update, together with the messages it sends.
// It holds nothing else, so making one per transaction costs nothing.
type Store struct {
	tx pgx.Tx
}

// New returns the board store of a transaction.
func New(tx pgx.Tx) *Store { return &Store{tx: tx} }

// seatUserKey is the unique constraint that keeps a user from holding both seats of a board.
const seatUserKey = "board_seat_board_id_user_id_key"

// mapErr turns the database's errors into the package's: no row is board.ErrNotFound, a
// second seat for one user board.ErrAlreadySeated.
func mapErr(err error) error {
	var pgErr *pgconn.PgError
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return board.ErrNotFound
	case errors.As(err, &pgErr) && pgErr.Code == "23505" && pgErr.ConstraintName == seatUserKey:
		return fmt.Errorf("%w: %w", board.ErrAlreadySeated, err)
	}
	return err
}

// createSQL inserts a board; its seats and moves follow.
const createSQL = `
	INSERT INTO board_session (service_id, variant, options, seed, control, clock_mode, main_us,
		extra_us, per_move_us, status, private, created_by, created_at, started_at, ended_at,
		start_position, position, ply, to_move, turn_started_at, deadline, offer_seat, offer_ply,
		reminded, rated, bot_seat, result, winner, end_reason, end_detail)
	VALUES (@service_id, @variant, @options, @seed, @control, @clock_mode, @main_us,
		@extra_us, @per_move_us, @status, @private, @created_by, @created_at, @started_at, @ended_at,
		@start_position, @position, @ply, @to_move, @turn_started_at, @deadline, @offer_seat, @offer_ply,
		@reminded, @rated, @bot_seat, @result, @winner, @end_reason, @end_detail)
	RETURNING id, revision`

const createSeatSQL = `
	INSERT INTO board_seat (board_id, seat, user_id, bot, clock_us, seen_ply, offered, rating_before, rating_after)
	VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`

// Create stores a new board (from board.Open) with its seats and moves, and sets its
// ID.
func (s *Store) Create(ctx context.Context, b *board.Board) error {
	if b.ID != 0 {
		return fmt.Errorf("create board: already stored as %d", b.ID)
	}
	var id, rev int64
	if err := s.tx.QueryRow(ctx, createSQL, boardArgs(b)).Scan(&id, &rev); err != nil {
		return fmt.Errorf("create board: %w", mapErr(err))
	}
	batch := &pgx.Batch{}
	for i, seat := range b.Seats {
		batch.Queue(createSeatSQL, append([]any{id, i}, seatValues(seat)...)...)
	}
	queueMoves(batch, id, b.Moves)
	if err := s.tx.SendBatch(ctx, batch).Close(); err != nil {
		return fmt.Errorf("create board: %w", mapErr(err))
	}
	b.ID = id
	b.MarkStored(rev)
	return nil
}

// Lock reads a board and locks it (SELECT … FOR UPDATE) until the transaction ends. Returns
// board.ErrNotFound.
func (s *Store) Lock(ctx context.Context, id int64) (*board.Board, error) {
	b, err := s.load(ctx, id, true)
	if err != nil {
		return nil, fmt.Errorf("lock board %d: %w", id, err)
	}
	return b, nil
}

// Get reads a board without locking it. Returns board.ErrNotFound.
func (s *Store) Get(ctx context.Context, id int64) (*board.Board, error) {
	b, err := s.load(ctx, id, false)
	if err != nil {
		return nil, fmt.Errorf("get board %d: %w", id, err)
	}
	return b, nil
}

// saveSQL writes what operations change on a board, if the stored board is the one that was
// read (same revision and ply).
const saveSQL = `
	UPDATE board_session SET status = @status, private = @private, started_at = @started_at,
		ended_at = @ended_at, position = @position, ply = @ply, to_move = @to_move,
		turn_started_at = @turn_started_at, deadline = @deadline, offer_seat = @offer_seat,
		offer_ply = @offer_ply, reminded = @reminded, rated = @rated, result = @result,
		winner = @winner, end_reason = @end_reason, end_detail = @end_detail,
		revision = revision + 1
	WHERE id = @id AND revision = @old_revision AND ply = @old_ply
	RETURNING revision`

const saveSeatSQL = `
	UPDATE board_seat SET user_id = $3, bot = $4, clock_us = $5, seen_ply = $6, offered = $7,
		rating_before = $8, rating_after = $9
	WHERE board_id = $1 AND seat = $2`

const dropMovesSQL = `DELETE FROM board_move WHERE board_id = $1 AND ply > $2`

// Save stores what operations changed on a board: the moves played and taken back, the seats,
// clocks, status and outcome; on the game's end, the players' statistics and ratings too
// (filling the seats' RatingBefore and RatingAfter). Returns board.ErrStale when the stored
// board has changed since it was read (a board is saved at most once from one reading), and
// board.ErrNotFound when it is gone.
func (s *Store) Save(ctx context.Context, b *board.Board) error {
	ch := b.Changes()
	if b.ID == 0 || ch.Revision == 0 {
		return fmt.Errorf("save board: %w: the board was never stored", board.ErrNotFound)
	}
	args := boardArgs(b)
	args["id"], args["old_revision"], args["old_ply"] = b.ID, ch.Revision, ch.Ply
	var rev int64
	err := s.tx.QueryRow(ctx, saveSQL, args).Scan(&rev)
	if errors.Is(err, pgx.ErrNoRows) {
		var exists bool
		err = s.tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM board_session WHERE id = $1)`, b.ID).Scan(&exists)
		if err == nil && exists {
			err = fmt.Errorf("%w: saved since revision %d", board.ErrStale, ch.Revision)
		} else if err == nil {
			err = board.ErrNotFound
		}
	}
	if err != nil {
		return fmt.Errorf("save board %d: %w", b.ID, mapErr(err))
	}
	if ch.Finished {
		if err := s.recordResult(ctx, b); err != nil {
			return fmt.Errorf("save board %d: %w", b.ID, err)
		}
	}
	batch := &pgx.Batch{}
	if ch.Kept < ch.Ply {
		batch.Queue(dropMovesSQL, b.ID, ch.Kept)
	}
	queueMoves(batch, b.ID, ch.Added)
	for i, seat := range b.Seats {
		batch.Queue(saveSeatSQL, append([]any{b.ID, i}, seatValues(seat)...)...)
	}
	if err := s.tx.SendBatch(ctx, batch).Close(); err != nil {
		return fmt.Errorf("save board %d: %w", b.ID, mapErr(err))
	}
	b.MarkStored(rev)
	return nil
}

const insertMovesSQL = `
	INSERT INTO board_move (board_id, ply, seat, move, position, played_at, spent_us, clock0_us, clock1_us)
	SELECT $1, * FROM unnest($2::integer[], $3::smallint[], $4::text[], $5::text[],
		$6::timestamptz[], $7::bigint[], $8::bigint[], $9::bigint[])`

// queueMoves adds the insertion of moves, in one statement, to a batch.
func queueMoves(batch *pgx.Batch, id int64, moves []board.PlayedMove) {
	if len(moves) == 0 {
		return
	}
	n := len(moves)
	plies, seats := make([]int32, n), make([]int16, n)
	texts, positions := make([]string, n), make([]string, n)
	ats := make([]time.Time, n)
	spent, c0, c1 := make([]int64, n), make([]int64, n), make([]int64, n)
	for i, m := range moves {
		plies[i], seats[i] = int32(m.Ply), int16(m.Seat)
		texts[i], positions[i] = m.Text, m.Position
		ats[i] = m.At
		spent[i], c0[i], c1[i] = m.Spent.Microseconds(), m.Clocks[0].Microseconds(), m.Clocks[1].Microseconds()
	}
	batch.Queue(insertMovesSQL, id, plies, seats, texts, positions, ats, spent, c0, c1)
}

// boardArgs are the named arguments of a board's columns.
func boardArgs(b *board.Board) pgx.NamedArgs {
	a := pgx.NamedArgs{
		"service_id": b.Service, "variant": b.Variant, "options": b.Options.String(),
		"seed": int64(b.Seed), "control": b.Control.Name, "clock_mode": b.Control.Mode.String(),
		"main_us": b.Control.Main.Microseconds(), "extra_us": b.Control.Extra.Microseconds(),
		"per_move_us": b.Control.PerMove.Microseconds(), "status": b.Status.String(),
		"private": b.Private, "created_by": b.Creator, "created_at": b.Created,
		"started_at": nullTime(b.Started), "ended_at": nullTime(b.Ended),
		"start_position": b.Start, "position": b.Position, "ply": b.Ply(), "to_move": b.ToMove,
		"turn_started_at": nullTime(b.TurnStarted), "deadline": nullTime(b.Deadline),
		"offer_seat": nil, "offer_ply": nil, "reminded": b.Reminded, "rated": b.Rated,
		"bot_seat": nil, "result": nil, "winner": nil, "end_reason": nil, "end_detail": "",
	}
	if b.Offer != nil {
		a["offer_seat"], a["offer_ply"] = b.Offer.Seat, b.Offer.Ply
	}
	if seat, ok := b.BotSeat(); ok {
		a["bot_seat"] = seat
	}
	if o := b.Outcome; o != nil {
		a["result"], a["end_reason"], a["end_detail"] = "win", o.End.String(), o.Detail
		if o.Draw {
			a["result"] = "draw"
		} else {
			a["winner"] = o.Winner
		}
	}
	return a
}

// seatValues are a seat's columns from user_id on.
func seatValues(s board.Seat) []any {
	var user, bot, before, after any
	if s.User != 0 {
		user = s.User
	}
	if s.Bot != board.NoBot {
		bot = s.Bot.String()
	}
	if s.RatingBefore != 0 || s.RatingAfter != 0 {
		before, after = s.RatingBefore, s.RatingAfter
	}
	return []any{user, bot, s.Clock.Microseconds(), s.Seen, s.Offered, before, after}
}

// nullTime is NULL for the zero time.
func nullTime(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t
}
