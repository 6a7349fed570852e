package sessionpg

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/questbot/questbot/sessions"
)

var _ sessions.BoardViews = (*BoardStore)(nil)

// SeatMarks implements sessions.BoardViews.
func (s *BoardStore) SeatMarks(ctx context.Context, board int64) ([2]sessions.SeatMarks, error) {
	var out [2]sessions.SeatMarks
	rows, err := s.tx.Query(ctx, `SELECT seat, sent_at, web_at FROM board_message WHERE board_id = $1`, board)
	if err != nil {
		return out, fmt.Errorf("board %d: its messages: %w", board, err)
	}
	defer rows.Close()
	for rows.Next() {
		var seat int
		var sent, web *time.Time
		if err := rows.Scan(&seat, &sent, &web); err != nil {
			return out, fmt.Errorf("board %d: its messages: %w", board, err)
		}
		if seat != 0 && seat != 1 {
			continue
		}
		if sent != nil {
			out[seat].Sent = *sent
		}
		if web != nil {
			out[seat].Web = *web
		}
	}
	if err := rows.Err(); err != nil {
		return out, fmt.Errorf("board %d: its messages: %w", board, err)
	}
	return out, nil
}

// MarkSent implements sessions.BoardViews.
func (s *BoardStore) MarkSent(ctx context.Context, board int64, seat int, at time.Time) error {
	return s.exec(ctx, "record its message", board, `
		INSERT INTO board_message (board_id, seat, sent_at) VALUES ($1, $2, $3)
		ON CONFLICT (board_id, seat) DO UPDATE SET sent_at = EXCLUDED.sent_at`, board, seat, at)
}

// MarkWeb implements sessions.BoardViews.
func (s *BoardStore) MarkWeb(ctx context.Context, board int64, seat int, at time.Time) error {
	return s.exec(ctx, "record its player on the web", board, `
		INSERT INTO board_message (board_id, seat, web_at) VALUES ($1, $2, $3)
		ON CONFLICT (board_id, seat) DO UPDATE SET web_at = EXCLUDED.web_at`, board, seat, at)
}

// LeaveWeb implements sessions.BoardViews.
func (s *BoardStore) LeaveWeb(ctx context.Context, board int64, seat int) error {
	return s.exec(ctx, "record its player in Telegram", board, `
		UPDATE board_message SET web_at = NULL WHERE board_id = $1 AND seat = $2 AND web_at IS NOT NULL`, board, seat)
}

// exec runs a statement about a board, saying what failed.
func (s *BoardStore) exec(ctx context.Context, what string, board int64, sql string, args ...any) error {
	if _, err := s.tx.Exec(ctx, sql, args...); err != nil {
		return fmt.Errorf("board %d: %s: %w", board, what, err)
	}
	return nil
}

// NotifySetting implements sessions.BoardViews.
func (s *BoardStore) NotifySetting(ctx context.Context, user int64) (sessions.NotifySetting, error) {
	var set sessions.NotifySetting
	var from, to *int16
	var off int16
	err := s.tx.QueryRow(ctx, `
		SELECT coalesce(delay, ''), quiet_from, quiet_to, utc_offset FROM board_notify_setting WHERE user_id = $1`,
		user).Scan(&set.Delay, &from, &to, &off)
	if errors.Is(err, pgx.ErrNoRows) {
		return sessions.NotifySetting{}, nil
	}
	if err != nil {
		return set, fmt.Errorf("user %d: notification setting: %w", user, err)
	}
	set.Offset = int(off)
	if from != nil && to != nil {
		set.Quiet, set.From, set.To = true, int(*from), int(*to)
	}
	return set, nil
}

// SaveNotifySetting implements sessions.BoardViews.
func (s *BoardStore) SaveNotifySetting(ctx context.Context, user int64, set sessions.NotifySetting) error {
	var from, to any
	if set.Quiet {
		from, to = set.From, set.To
	}
	_, err := s.tx.Exec(ctx, `
		INSERT INTO board_notify_setting (user_id, delay, quiet_from, quiet_to, utc_offset)
		VALUES ($1, nullif($2, ''), $3, $4, $5)
		ON CONFLICT (user_id) DO UPDATE SET delay = EXCLUDED.delay, quiet_from = EXCLUDED.quiet_from,
			quiet_to = EXCLUDED.quiet_to, utc_offset = EXCLUDED.utc_offset`, user, set.Delay, from, to, set.Offset)
	if err != nil {
		return fmt.Errorf("user %d: save notification setting: %w", user, err)
	}
	return nil
}

// PendNotice implements sessions.BoardViews.
func (s *BoardStore) PendNotice(ctx context.Context, board int64, n sessions.BoardNotice, now time.Time) error {
	var actor any
	if n.Actor >= 0 {
		actor = n.Actor
	}
	return s.exec(ctx, "pend its notification", board, `
		INSERT INTO board_notification (board_id, seat, ply, kind, actor, due_at, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7)
		ON CONFLICT (board_id, seat) DO UPDATE SET ply = EXCLUDED.ply, kind = EXCLUDED.kind,
			actor = EXCLUDED.actor, due_at = EXCLUDED.due_at, created_at = EXCLUDED.created_at`,
		board, n.Seat, n.Ply, n.Kind, actor, n.Due, now)
}

// DropNotice implements sessions.BoardViews.
func (s *BoardStore) DropNotice(ctx context.Context, board int64, seat int) (bool, error) {
	tag, err := s.tx.Exec(ctx, `DELETE FROM board_notification WHERE board_id = $1 AND seat = $2`, board, seat)
	if err != nil {
		return false, fmt.Errorf("board %d: drop its notification: %w", board, err)
	}
	return tag.RowsAffected() > 0, nil
}

// TakeNotice implements sessions.BoardViews.
func (s *BoardStore) TakeNotice(ctx context.Context, board int64, seat int) (sessions.BoardNotice, bool, error) {
	n := sessions.BoardNotice{Seat: seat}
	err := s.tx.QueryRow(ctx, `
		DELETE FROM board_notification WHERE board_id = $1 AND seat = $2
		RETURNING ply, kind, coalesce(actor, -1), due_at`, board, seat).Scan(&n.Ply, &n.Kind, &n.Actor, &n.Due)
	if errors.Is(err, pgx.ErrNoRows) {
		return n, false, nil
	}
	if err != nil {
		return n, false, fmt.Errorf("board %d: take its notification: %w", board, err)
	}
	return n, true, nil
}

// ClaimNotices implements sessions.BoardViews.
func (s *BoardStore) ClaimNotices(ctx context.Context, board int64, now time.Time) ([]sessions.BoardNotice, error) {
	rows, err := s.tx.Query(ctx, `
		SELECT seat, ply, kind, coalesce(actor, -1), due_at FROM board_notification
		WHERE board_id = $1 AND due_at <= $2 ORDER BY seat FOR UPDATE SKIP LOCKED`, board, now)
	if err != nil {
		return nil, fmt.Errorf("board %d: claim its notifications: %w", board, err)
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (sessions.BoardNotice, error) {
		var n sessions.BoardNotice
		return n, r.Scan(&n.Seat, &n.Ply, &n.Kind, &n.Actor, &n.Due)
	})
	if err != nil {
		return nil, fmt.Errorf("board %d: claim its notifications: %w", board, err)
	}
	return list, nil
}

// DueNoticeBoards implements sessions.BoardViews.
func (s *BoardStore) DueNoticeBoards(ctx context.Context, now time.Time, limit int) ([]sessions.BoardRef, error) {
	return s.refs(ctx, "due notifications", `
		SELECT n.board_id, s.service_id FROM board_notification n JOIN board_session s ON s.id = n.board_id
		WHERE n.due_at <= $1 GROUP BY n.board_id, s.service_id ORDER BY min(n.due_at) LIMIT $2`, now, limit)
}

// ClockLeadBoards implements sessions.BoardViews.
func (s *BoardStore) ClockLeadBoards(ctx context.Context, now time.Time, limit int) ([]sessions.BoardRef, error) {
	return s.refs(ctx, "clock reminders", `
		SELECT s.id, s.service_id FROM board_session s
		WHERE s.status = 'active' AND s.clock_mode IN ('fischer', 'byoyomi', 'sandglass') AND s.deadline > $1
			AND s.deadline <= $1 + greatest(s.main_us / 5, 60000000) * interval '1 microsecond'
			AND NOT EXISTS (SELECT 1 FROM board_clock_reminder r WHERE r.board_id = s.id AND r.ply = s.ply)
		ORDER BY s.deadline LIMIT $2`, now, limit)
}

// refs runs a query of boards and their bots.
func (s *BoardStore) refs(ctx context.Context, what, sql string, args ...any) ([]sessions.BoardRef, error) {
	rows, err := s.tx.Query(ctx, sql, args...)
	if err != nil {
		return nil, fmt.Errorf("boards: %s: %w", what, err)
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (sessions.BoardRef, error) {
		var b sessions.BoardRef
		return b, r.Scan(&b.ID, &b.Service)
	})
	if err != nil {
		return nil, fmt.Errorf("boards: %s: %w", what, err)
	}
	return list, nil
}

// MarkClockReminder implements sessions.BoardViews.
func (s *BoardStore) MarkClockReminder(ctx context.Context, board int64, ply int) (bool, error) {
	tag, err := s.tx.Exec(ctx, `
		INSERT INTO board_clock_reminder (board_id, ply) VALUES ($1, $2)
		ON CONFLICT (board_id) DO UPDATE SET ply = EXCLUDED.ply WHERE board_clock_reminder.ply <> EXCLUDED.ply`,
		board, ply)
	if err != nil {
		return false, fmt.Errorf("board %d: record its clock reminder: %w", board, err)
	}
	return tag.RowsAffected() > 0, nil
}

// Spectators implements sessions.BoardViews.
func (s *BoardStore) Spectators(ctx context.Context, board int64) (bool, error) {
	var on bool
	err := s.tx.QueryRow(ctx, `SELECT allowed FROM board_spectators WHERE board_id = $1`, board).Scan(&on)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("board %d: spectators: %w", board, err)
	}
	return on, nil
}

// SetSpectators implements sessions.BoardViews.
func (s *BoardStore) SetSpectators(ctx context.Context, board int64, allow bool, by int64, at time.Time) error {
	return s.exec(ctx, "spectators", board, `
		INSERT INTO board_spectators (board_id, allowed, set_by, set_at) VALUES ($1, $2, $3, $4)
		ON CONFLICT (board_id) DO UPDATE SET allowed = EXCLUDED.allowed, set_by = EXCLUDED.set_by, set_at = EXCLUDED.set_at`,
		board, allow, by, at)
}

// WaitingBoards returns the public boards of a bot that wait for an opponent, opened by others
// than except, oldest first (the order of matchmaking), at most limit.
func (s *BoardStore) WaitingBoards(ctx context.Context, service int, except int64, limit int) ([]int64, error) {
	rows, err := s.tx.Query(ctx, `
		SELECT id FROM board_session
		WHERE service_id = $1 AND status = 'waiting' AND NOT private AND created_by <> $2
		ORDER BY created_at, id LIMIT $3`, service, except, limit)
	if err != nil {
		return nil, fmt.Errorf("waiting boards: %w", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return nil, fmt.Errorf("waiting boards: %w", err)
	}
	return ids, nil
}
