package boardpg

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// DB is what the load check's functions need of a database: a transaction (pgx.Tx) or a pool.
type DB interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// LoadCheckBoards are the boards the web server's load check (questbot webload) watches: n
// active boards of a game without a clock, at the start position, between two users. No seat
// is the bot's, so the AI leaves them alone.
type LoadCheckBoards struct {
	Service      int
	Variant      string
	Seed         int64
	Position     string
	ToMove       int
	Seat0, Seat1 int64
	N            int
}

// CreateLoadCheckBoards creates the boards of a load check and returns their ids, in order.
func CreateLoadCheckBoards(ctx context.Context, db DB, spec LoadCheckBoards) ([]int64, error) {
	var ids []int64
	err := db.QueryRow(ctx, `
		WITH b AS (
			INSERT INTO board_session (service_id, variant, seed, clock_mode, status, created_by, created_at,
				started_at, turn_started_at, start_position, position, to_move)
			SELECT $1, $5, $6, 'none', 'active', $2, now(), now(), now(), $7, $7, $8
			FROM generate_series(1, $3) g
			RETURNING id
		), s AS (
			INSERT INTO board_seat (board_id, seat, user_id)
			SELECT id, 0, $2 FROM b UNION ALL SELECT id, 1, $4 FROM b
		)
		SELECT array_agg(id ORDER BY id) FROM b`, spec.Service, spec.Seat0, spec.N, spec.Seat1,
		spec.Variant, spec.Seed, spec.Position, spec.ToMove).Scan(&ids)
	if err != nil {
		return nil, fmt.Errorf("create the boards of the load check: %w", err)
	}
	return ids, nil
}

// Revisions returns the revisions of boards, by id.
func Revisions(ctx context.Context, db DB, ids []int64) (map[int64]int64, error) {
	rows, err := db.Query(ctx, `SELECT id, revision FROM board_session WHERE id = ANY($1)`, ids)
	if err != nil {
		return nil, fmt.Errorf("revisions: %w", err)
	}
	defer rows.Close()
	out := map[int64]int64{}
	for rows.Next() {
		var id, rev int64
		if err := rows.Scan(&id, &rev); err != nil {
			return nil, fmt.Errorf("revisions: %w", err)
		}
		out[id] = rev
	}
	return out, rows.Err()
}

// TouchBoard moves a board to revision rev, from rev-1, as a save does, without changing its
// game, and returns its ply and the seat to move: the load check then records the change's event
// (AppendEvents) in the same transaction, which the live updates follow. It reports false when
// the board was not at rev-1.
func TouchBoard(ctx context.Context, db DB, id, rev int64) (ply, toMove int, moved bool, err error) {
	err = db.QueryRow(ctx, `UPDATE board_session SET turn_started_at = now(), revision = $2
		WHERE id = $1 AND revision = $2 - 1 RETURNING ply, to_move`, id, rev).Scan(&ply, &toMove)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return 0, 0, false, nil
	case err != nil:
		return 0, 0, false, fmt.Errorf("board %d: %w", id, err)
	}
	return ply, toMove, true, nil
}

// DeleteBoards deletes boards, their seats, moves and records with them.
func DeleteBoards(ctx context.Context, db DB, ids []int64) error {
	if _, err := db.Exec(ctx, `DELETE FROM board_session WHERE id = ANY($1)`, ids); err != nil {
		return fmt.Errorf("delete boards: %w", err)
	}
	return nil
}
