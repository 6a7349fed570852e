package boardpg

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/questbot/questbot/sessions/board"
)

// The claims below lock the rows they take with FOR UPDATE SKIP LOCKED: rows another
// transaction holds (a player's move, another process's claim) are left for the next run, so
// two processes never handle one board twice, and a job never waits for a player.

const claimExpiredSQL = `
	SELECT id FROM board_session
	WHERE status = 'active' AND deadline < $1
	ORDER BY deadline
	LIMIT $2
	FOR UPDATE SKIP LOCKED`

// ClaimExpired returns, locked, at most limit active boards whose deadline is before now, the
// most overdue first, for Expire and Save.
func (s *Store) ClaimExpired(ctx context.Context, now time.Time, limit int) ([]*board.Board, error) {
	ids, err := s.ids(ctx, claimExpiredSQL, now, limitArg(limit))
	if err != nil {
		return nil, fmt.Errorf("claim expired boards: %w", err)
	}
	return s.loadAll(ctx, ids, "claim expired boards")
}

// claimBotTurnsSQL leases the bot's turns no worker holds: the lease names the board's revision,
// so a turn that came back after an undo (same ply, another position) is a new one.
//
// The players are served in turn: each waiting turn is ranked by how many turns of its player
// come before it, those being searched (a lease that holds) and those waiting longer, and the
// lowest rank is claimed first, the longest waiting among equals. A player's first turn waiting
// thus goes before anybody's second, and a player with turns being searched goes after those
// with none. No player has more than $4 turns searched at once (a turn ranked past it waits),
// so that a search slot stays free for the others: a player with many games against the bot
// delays another's reply by one search at most, and with more slots than one, not at all.
const claimBotTurnsSQL = `
	WITH turns AS (
		SELECT s.id, s.turn_started_at, h.user_id,
			coalesce(s.bot_claim_rev = s.revision AND s.bot_claim_until >= $1, false) AS searched
		FROM board_session s
		LEFT JOIN board_seat h ON h.board_id = s.id AND h.seat <> s.bot_seat
		WHERE s.status = 'active' AND s.bot_seat = s.to_move
	), ranked AS (
		SELECT id, turn_started_at, searched,
			count(*) FILTER (WHERE searched) OVER (PARTITION BY user_id) +
				row_number() OVER (PARTITION BY user_id, searched ORDER BY turn_started_at, id) AS nth
		FROM turns
	)
	UPDATE board_session SET bot_claim_rev = revision, bot_claim_until = $2
	WHERE id IN (
		SELECT s.id FROM board_session s JOIN ranked r ON r.id = s.id
		WHERE NOT r.searched AND r.nth <= $4
		ORDER BY r.nth, r.turn_started_at, s.id
		LIMIT $3
		FOR UPDATE OF s SKIP LOCKED)
	RETURNING id`

// ClaimBotTurns returns at most limit active boards where the bot is to move and no worker
// holds a lease on this turn (the players served in turn, then the longest waiting first, at most
// perPlayer turns of one player searched at once: see claimBotTurnsSQL), and leases each turn to the caller
// until now+lease. The worker commits the claim, computes the move from Game with the bot
// level's Limits, then in a new transaction locks the board and plays the move only if the
// board's Revision is still the claimed one; otherwise the result is stale and dropped. A
// worker that dies loses its lease when it runs out, and a restart finds every bot turn again.
func (s *Store) ClaimBotTurns(ctx context.Context, now time.Time, lease time.Duration, limit, perPlayer int) ([]*board.Board, error) {
	ids, err := s.ids(ctx, claimBotTurnsSQL, now, now.Add(lease), limitArg(limit), max(perPlayer, 1))
	if err != nil {
		return nil, fmt.Errorf("claim bot turns: %w", err)
	}
	return s.loadAll(ctx, ids, "claim bot turns")
}

// claimRemindersSQL marks the correspondence turns that reach the reminder window and returns
// whom to remind (the rule of board.Board.Remind); the revision moves on, as with any change
// to a board.
const claimRemindersSQL = `
	UPDATE board_session s SET reminded = true, revision = s.revision + 1
	FROM board_seat t
	WHERE s.id IN (
		SELECT id FROM board_session
		WHERE status = 'active' AND clock_mode = 'correspondence' AND NOT reminded
			AND deadline >= $1 AND deadline <= $2
		ORDER BY deadline
		LIMIT $3
		FOR UPDATE SKIP LOCKED)
		AND t.board_id = s.id AND t.seat = s.to_move AND t.user_id IS NOT NULL
	RETURNING s.id, s.service_id, t.user_id, t.seat, s.ply, s.deadline`

// ClaimReminders marks as reminded, and returns, at most limit correspondence boards whose
// player to move is within board.ReminderLead of the deadline (not yet passed), once per
// ply, the nearest deadline first.
func (s *Store) ClaimReminders(ctx context.Context, now time.Time, limit int) ([]board.Reminder, error) {
	rows, _ := s.tx.Query(ctx, claimRemindersSQL, now, now.Add(board.ReminderLead), limitArg(limit))
	list, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (board.Reminder, error) {
		var r board.Reminder
		err := row.Scan(&r.Board, &r.Service, &r.User, &r.Seat, &r.Ply, &r.Deadline)
		r.Deadline = r.Deadline.UTC()
		return r, err
	})
	if err != nil {
		return nil, fmt.Errorf("claim reminders: %w", err)
	}
	return list, nil
}

// abortStaleSQL aborts the boards that have waited too long for an opponent.
const abortStaleSQL = `
	UPDATE board_session s SET status = 'aborted', ended_at = $1, revision = s.revision + 1
	FROM board_seat t
	WHERE s.id IN (
		SELECT id FROM board_session
		WHERE status = 'waiting' AND created_at < $2
		ORDER BY created_at
		LIMIT $3
		FOR UPDATE SKIP LOCKED)
		AND t.board_id = s.id AND t.user_id = s.created_by
	RETURNING s.id, s.service_id, s.variant, s.control, s.created_by, t.seat, s.created_at`

// dropInvitesSQL deletes the expired invites, skipping those a redeemer holds (it will find
// them expired; the next run deletes them).
const dropInvitesSQL = `
	DELETE FROM board_invite WHERE code_hash IN (
		SELECT code_hash FROM board_invite WHERE expires_at < $1 FOR UPDATE SKIP LOCKED)`

// Cleanup aborts at most limit boards that have waited for an opponent longer than
// board.WaitingLifetime, returning them (User: the creator, to be told), and deletes the
// invites that expired before now, returning how many.
func (s *Store) Cleanup(ctx context.Context, now time.Time, limit int) ([]board.Info, int, error) {
	rows, _ := s.tx.Query(ctx, abortStaleSQL, now, now.Add(-board.WaitingLifetime), limitArg(limit))
	aborted, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (board.Info, error) {
		bi := board.Info{Status: board.Aborted}
		err := row.Scan(&bi.ID, &bi.Service, &bi.Variant, &bi.Control, &bi.User, &bi.Seat, &bi.Created)
		bi.Created = bi.Created.UTC()
		return bi, err
	})
	if err != nil {
		return nil, 0, fmt.Errorf("clean up boards: %w", err)
	}
	tag, err := s.tx.Exec(ctx, dropInvitesSQL, now)
	if err != nil {
		return nil, 0, fmt.Errorf("clean up invites: %w", err)
	}
	return aborted, int(tag.RowsAffected()), nil
}

// limitArg is a LIMIT's argument: NULL (no limit) for a limit of 0 or less.
func limitArg(limit int) any {
	if limit <= 0 {
		return nil
	}
	return limit
}

// ids runs a query that returns board ids.
func (s *Store) ids(ctx context.Context, sql string, args ...any) ([]int64, error) {
	rows, _ := s.tx.Query(ctx, sql, args...)
	return pgx.CollectRows(rows, pgx.RowTo[int64])
}

// loadAll reads boards whose rows the transaction has locked already.
func (s *Store) loadAll(ctx context.Context, ids []int64, op string) ([]*board.Board, error) {
	boards := make([]*board.Board, 0, len(ids))
	for _, id := range ids {
		b, err := s.load(ctx, id, false)
		if err != nil {
			return nil, fmt.Errorf("%s: board %d: %w", op, id, err)
		}
		boards = append(boards, b)
	}
	return boards, nil
}
