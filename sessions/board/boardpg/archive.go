package boardpg

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/questbot/questbot/sessions/board"
)

// # The archive
//
// A player's finished games, newest first (by board id, the order the boards were opened in),
// a page at a time: the cursor is the id of the last game of a page, and the next page has the
// games below it, so a page stays the same while new games finish (an offset would shift). The
// query walks the player's seats backwards on board_seat_user_board_idx (migration
// 039_board_archive_rematch.sql) and stops once the page is full: its cost is that of the games it
// reads, not of the player's whole history.
//
// The viewer sees a game of someone else's only when they may watch it: it is theirs too, or
// its players let spectators in (board_spectators), the rule of the web view for a finished
// game. The web view checks each game with that rule again.

// Results of ArchiveFilter.Result, as the archive's player sees them.
const (
	ResultWin  = "win"
	ResultLoss = "loss"
	ResultDraw = "draw"
)

// ArchiveFilter selects the games of an archive page.
type ArchiveFilter struct {
	// Service is the bot, User the player whose games these are, Viewer who looks at them (0:
	// someone not logged in).
	Service int
	User    int64
	Viewer  int64
	// Variant and Control, when set, are the game and the time control's name.
	Variant, Control string
	// Result, when set, is ResultWin, ResultLoss or ResultDraw, for User.
	Result string
	// Opponent, when set, is the opponent's user id; OpponentBot asks for the games against
	// the bot instead.
	Opponent    int64
	OpponentBot bool
	// From and To, when set, bound when the games ended: From ≤ end < To.
	From, To time.Time
	// Before, when set, is the cursor: the games whose id is below it.
	Before int64
	// Limit is the most games returned (at least 1).
	Limit int
}

// ArchiveGame is a game of an archive page: its board, the archive player's seat in it, and
// whether its players let spectators in.
type ArchiveGame struct {
	ID         int64
	Seat       int
	Spectators bool
}

// archiveQuery builds the query of a page: only the filters set become conditions, so that the
// planner sees the plain walk of the index it serves.
func archiveQuery(f ArchiveFilter) (string, []any) {
	args := []any{f.User, f.Service}
	arg := func(v any) string {
		args = append(args, v)
		return fmt.Sprintf("$%d", len(args))
	}
	var where []string
	if f.Variant != "" {
		where = append(where, "b.variant = "+arg(f.Variant))
	}
	if f.Control != "" {
		where = append(where, "b.control = "+arg(f.Control))
	}
	switch f.Result {
	case ResultWin:
		where = append(where, "b.winner = s.seat")
	case ResultLoss:
		where = append(where, "b.winner <> s.seat")
	case ResultDraw:
		where = append(where, "b.result = 'draw'")
	}
	switch {
	case f.OpponentBot:
		where = append(where, "o.bot IS NOT NULL")
	case f.Opponent != 0:
		where = append(where, "o.user_id = "+arg(f.Opponent))
	}
	if !f.From.IsZero() {
		where = append(where, "b.ended_at >= "+arg(f.From))
	}
	if !f.To.IsZero() {
		where = append(where, "b.ended_at < "+arg(f.To))
	}
	if f.Before != 0 {
		where = append(where, "s.board_id < "+arg(f.Before))
	}
	if f.Viewer != f.User {
		v := arg(f.Viewer)
		where = append(where, "(coalesce(sp.allowed, false) OR EXISTS (SELECT 1 FROM board_seat w WHERE w.board_id = s.board_id AND w.user_id = "+v+"))")
	}
	q := `
	SELECT s.board_id, s.seat, coalesce(sp.allowed, false)
	FROM board_seat s
	JOIN board_session b ON b.id = s.board_id
	JOIN board_seat o ON o.board_id = s.board_id AND o.seat <> s.seat
	LEFT JOIN board_spectators sp ON sp.board_id = s.board_id
	WHERE s.user_id = $1 AND b.service_id = $2 AND b.status = 'finished'`
	for _, w := range where {
		q += "\n\t\tAND " + w
	}
	q += "\n\tORDER BY s.board_id DESC LIMIT " + arg(max(f.Limit, 1))
	return q, args
}

// Archive returns a page of a player's finished games as the filter selects them, newest
// first; board.ErrInvalid for a result that is none of the three.
func (s *Store) Archive(ctx context.Context, f ArchiveFilter) ([]ArchiveGame, error) {
	switch f.Result {
	case "", ResultWin, ResultLoss, ResultDraw:
	default:
		return nil, fmt.Errorf("archive: %w: result %q", board.ErrInvalid, f.Result)
	}
	q, args := archiveQuery(f)
	rows, _ := s.tx.Query(ctx, q, args...)
	list, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (ArchiveGame, error) {
		var g ArchiveGame
		err := row.Scan(&g.ID, &g.Seat, &g.Spectators)
		return g, err
	})
	if err != nil {
		return nil, fmt.Errorf("archive of user %d: %w", f.User, err)
	}
	return list, nil
}

// Opponents returns the users a player has finished games against in a bot, at most limit,
// the most recent opponent first: the archive's choice of an opponent.
func (s *Store) Opponents(ctx context.Context, service int, user int64, limit int) ([]int64, error) {
	rows, _ := s.tx.Query(ctx, `
		SELECT o.user_id FROM board_seat s
		JOIN board_session b ON b.id = s.board_id
		JOIN board_seat o ON o.board_id = s.board_id AND o.seat <> s.seat
		WHERE s.user_id = $1 AND b.service_id = $2 AND b.status = 'finished' AND o.user_id IS NOT NULL
		GROUP BY o.user_id ORDER BY max(s.board_id) DESC LIMIT $3`, user, service, limit)
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return nil, fmt.Errorf("opponents of user %d: %w", user, err)
	}
	return ids, nil
}

// # Rematches

// Rematch is the rematch of a finished board: the new board, and the seat (in the old board)
// of the player who offered it.
type Rematch struct {
	Board     int64
	OfferedBy int
}

// RematchOf returns the rematch of a board; ok is false when none was offered.
func (s *Store) RematchOf(ctx context.Context, id int64) (r Rematch, ok bool, err error) {
	err = s.tx.QueryRow(ctx, `SELECT rematch_id, offered_by FROM board_rematch WHERE board_id = $1`, id).
		Scan(&r.Board, &r.OfferedBy)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return Rematch{}, false, nil
	case err != nil:
		return Rematch{}, false, fmt.Errorf("board %d: rematch: %w", id, err)
	}
	return r, true, nil
}

// RematchFrom returns the finished board whose rematch is board id; ok is false when id is no
// rematch.
func (s *Store) RematchFrom(ctx context.Context, id int64) (old int64, ok bool, err error) {
	err = s.tx.QueryRow(ctx, `SELECT board_id FROM board_rematch WHERE rematch_id = $1`, id).Scan(&old)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return 0, false, nil
	case err != nil:
		return 0, false, fmt.Errorf("board %d: the game it is the rematch of: %w", id, err)
	}
	return old, true, nil
}

// AddRematch records the rematch of board id, and reports whether it did: false when the board
// has one already.
func (s *Store) AddRematch(ctx context.Context, id int64, r Rematch) (bool, error) {
	tag, err := s.tx.Exec(ctx, `
		INSERT INTO board_rematch (board_id, rematch_id, offered_by) VALUES ($1, $2, $3)
		ON CONFLICT (board_id) DO NOTHING`, id, r.Board, r.OfferedBy)
	if err != nil {
		return false, fmt.Errorf("board %d: add its rematch: %w", id, err)
	}
	return tag.RowsAffected() > 0, nil
}
