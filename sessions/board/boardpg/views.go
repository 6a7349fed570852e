package boardpg

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/questbot/questbot/sessions/board"
)

var _ board.Views = (*Store)(nil)

// attentionSQL reads, for each seat of a board and the user given for it, the seat's row of
// board_web_presence (migration 041) and the user's of board_notify_setting.
const attentionSQL = `
	SELECT v.seat, w.acted_at, n.user_id IS NOT NULL, coalesce(n.delay, ''), n.quiet_from, n.quiet_to,
		coalesce(n.utc_offset, 0)
	FROM (VALUES (0, $2::bigint), (1, $3::bigint)) AS v (seat, user_id)
	LEFT JOIN board_web_presence w ON w.board_id = $1 AND w.seat = v.seat
	LEFT JOIN board_notify_setting n ON n.user_id = v.user_id`

// Attention implements board.Views: the rows of board_web_presence and board_notify_setting,
// in one query.
func (s *Store) Attention(ctx context.Context, id int64, users [2]int64) ([2]board.Attention, error) {
	var out [2]board.Attention
	rows, err := s.tx.Query(ctx, attentionSQL, id, users[0], users[1])
	if err != nil {
		return out, fmt.Errorf("board %d: its players' attention: %w", id, err)
	}
	defer rows.Close()
	for rows.Next() {
		var seat int
		var at *time.Time
		var chose bool
		var set board.NotifySetting
		var from, to *int16
		var off int16
		if err := rows.Scan(&seat, &at, &chose, &set.Delay, &from, &to, &off); err != nil {
			return out, fmt.Errorf("board %d: its players' attention: %w", id, err)
		}
		if seat != 0 && seat != 1 {
			continue
		}
		if at != nil {
			out[seat].Web = *at
		}
		if chose {
			out[seat].Notify = notifySetting(set.Delay, from, to, off)
		}
	}
	if err := rows.Err(); err != nil {
		return out, fmt.Errorf("board %d: its players' attention: %w", id, err)
	}
	return out, nil
}

// MarkWeb implements board.Views.
func (s *Store) MarkWeb(ctx context.Context, id int64, seat int, at time.Time) error {
	return s.exec(ctx, "record its player on the web", id, `
		INSERT INTO board_web_presence (board_id, seat, acted_at) VALUES ($1, $2, $3)
		ON CONFLICT (board_id, seat) DO UPDATE SET acted_at = EXCLUDED.acted_at`, id, seat, at)
}

// LeaveWeb implements board.Views.
func (s *Store) LeaveWeb(ctx context.Context, id int64, seat int) error {
	return s.exec(ctx, "record its player in Telegram", id, `
		DELETE FROM board_web_presence WHERE board_id = $1 AND seat = $2`, id, seat)
}

// exec runs a statement about a board, saying what failed.
func (s *Store) exec(ctx context.Context, what string, id int64, sql string, args ...any) error {
	if _, err := s.tx.Exec(ctx, sql, args...); err != nil {
		return fmt.Errorf("board %d: %s: %w", id, what, err)
	}
	return nil
}

// NotifySetting implements board.Views.
func (s *Store) NotifySetting(ctx context.Context, user int64) (board.NotifySetting, error) {
	var set board.NotifySetting
	var from, to *int16
	var off int16
	err := s.tx.QueryRow(ctx, `
		SELECT coalesce(delay, ''), quiet_from, quiet_to, utc_offset FROM board_notify_setting WHERE user_id = $1`,
		user).Scan(&set.Delay, &from, &to, &off)
	if errors.Is(err, pgx.ErrNoRows) {
		return board.NotifySetting{}, nil
	}
	if err != nil {
		return set, fmt.Errorf("user %d: notification setting: %w", user, err)
	}
	return notifySetting(set.Delay, from, to, off), nil
}

// notifySetting is a setting as board_notify_setting keeps it: quiet hours when both ends are
// set.
func notifySetting(delay string, from, to *int16, off int16) board.NotifySetting {
	set := board.NotifySetting{Delay: delay, Offset: int(off)}
	if from != nil && to != nil {
		set.Quiet, set.From, set.To = true, int(*from), int(*to)
	}
	return set
}

// SaveNotifySetting implements board.Views.
func (s *Store) SaveNotifySetting(ctx context.Context, user int64, set board.NotifySetting) error {
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

const pendNoticeSQL = `
	INSERT INTO board_notification (board_id, seat, ply, kind, actor, due_at, created_at)
	VALUES ($1, $2, $3, $4, $5, $6, $7)
	ON CONFLICT (board_id, seat) DO UPDATE SET ply = EXCLUDED.ply, kind = EXCLUDED.kind,
		actor = EXCLUDED.actor, due_at = EXCLUDED.due_at, created_at = EXCLUDED.created_at`

const dropNoticeSQL = `DELETE FROM board_notification WHERE board_id = $1 AND seat = $2`

// pendNoticeArgs are the arguments of pendNoticeSQL.
func pendNoticeArgs(id int64, n board.Notice, now time.Time) []any {
	var actor any
	if n.Actor >= 0 {
		actor = n.Actor
	}
	return []any{id, n.Seat, n.Ply, n.Kind, actor, n.Due, now}
}

// PendNotice implements board.Views.
func (s *Store) PendNotice(ctx context.Context, id int64, n board.Notice, now time.Time) error {
	return s.exec(ctx, "pend its notification", id, pendNoticeSQL, pendNoticeArgs(id, n, now)...)
}

// queueNotices adds the notification policy's writes to a batch.
func queueNotices(b *pgx.Batch, ws []board.NoticeWrite) {
	for _, w := range ws {
		what, sql, args := "pend its notification", pendNoticeSQL, pendNoticeArgs(w.Board, w.Notice, w.Now)
		if w.Drop {
			what, sql, args = "drop its notification", dropNoticeSQL, []any{w.Board, w.Notice.Seat}
		}
		queueExec(b, what, w.Board, sql, args...)
	}
}

// queueExec adds a statement about a board to a batch, its failure saying what failed.
func queueExec(b *pgx.Batch, what string, id int64, sql string, args ...any) {
	b.Queue(sql, args...).Fn = func(br pgx.BatchResults) error {
		if _, err := br.Exec(); err != nil {
			return fmt.Errorf("board %d: %s: %w", id, what, err)
		}
		return nil
	}
}

// DropNotice implements board.Views.
func (s *Store) DropNotice(ctx context.Context, id int64, seat int) (bool, error) {
	tag, err := s.tx.Exec(ctx, dropNoticeSQL, id, seat)
	if err != nil {
		return false, fmt.Errorf("board %d: drop its notification: %w", id, err)
	}
	return tag.RowsAffected() > 0, nil
}

// TakeNotice implements board.Views.
func (s *Store) TakeNotice(ctx context.Context, id int64, seat int) (board.Notice, bool, error) {
	n := board.Notice{Seat: seat}
	err := s.tx.QueryRow(ctx, `
		DELETE FROM board_notification WHERE board_id = $1 AND seat = $2
		RETURNING ply, kind, coalesce(actor, -1), due_at`, id, seat).Scan(&n.Ply, &n.Kind, &n.Actor, &n.Due)
	if errors.Is(err, pgx.ErrNoRows) {
		return n, false, nil
	}
	if err != nil {
		return n, false, fmt.Errorf("board %d: take its notification: %w", id, err)
	}
	return n, true, nil
}

// ClaimNotices implements board.Views.
func (s *Store) ClaimNotices(ctx context.Context, id int64, now time.Time) ([]board.Notice, error) {
	rows, err := s.tx.Query(ctx, `
		SELECT seat, ply, kind, coalesce(actor, -1), due_at FROM board_notification
		WHERE board_id = $1 AND due_at <= $2 ORDER BY seat FOR UPDATE SKIP LOCKED`, id, now)
	if err != nil {
		return nil, fmt.Errorf("board %d: claim its notifications: %w", id, err)
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (board.Notice, error) {
		var n board.Notice
		return n, r.Scan(&n.Seat, &n.Ply, &n.Kind, &n.Actor, &n.Due)
	})
	if err != nil {
		return nil, fmt.Errorf("board %d: claim its notifications: %w", id, err)
	}
	return list, nil
}

// DueNoticeBoards implements board.Views.
func (s *Store) DueNoticeBoards(ctx context.Context, now time.Time, limit int) ([]board.Ref, error) {
	return s.refs(ctx, "due notifications", `
		SELECT n.board_id, s.service_id FROM board_notification n JOIN board_session s ON s.id = n.board_id
		WHERE n.due_at <= $1 GROUP BY n.board_id, s.service_id ORDER BY min(n.due_at) LIMIT $2`, now, limit)
}

// ClockLeadBoards implements board.Views.
func (s *Store) ClockLeadBoards(ctx context.Context, now time.Time, limit int) ([]board.Ref, error) {
	return s.refs(ctx, "clock reminders", `
		SELECT s.id, s.service_id FROM board_session s
		WHERE s.status = 'active' AND s.clock_mode IN ('fischer', 'byoyomi', 'sandglass') AND s.deadline > $1
			-- board.ClockLead and board.NeedsClockReminder, in SQL: under the lead, and the turn
			-- began above it.
			AND s.deadline <= $1 + greatest(s.main_us / 5, least(60000000, s.main_us / 4)) * interval '1 microsecond'
			AND s.deadline - s.turn_started_at > greatest(s.main_us / 5, least(60000000, s.main_us / 4)) * interval '1 microsecond'
			AND NOT EXISTS (SELECT 1 FROM board_clock_reminder r WHERE r.board_id = s.id AND r.ply = s.ply)
		ORDER BY s.deadline LIMIT $2`, now, limit)
}

// refs runs a query of boards and their bots.
func (s *Store) refs(ctx context.Context, what, sql string, args ...any) ([]board.Ref, error) {
	rows, err := s.tx.Query(ctx, sql, args...)
	if err != nil {
		return nil, fmt.Errorf("boards: %s: %w", what, err)
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (board.Ref, error) {
		var b board.Ref
		return b, r.Scan(&b.ID, &b.Service)
	})
	if err != nil {
		return nil, fmt.Errorf("boards: %s: %w", what, err)
	}
	return list, nil
}

// MarkClockReminder implements board.Views.
func (s *Store) MarkClockReminder(ctx context.Context, id int64, ply int) (bool, error) {
	tag, err := s.tx.Exec(ctx, `
		INSERT INTO board_clock_reminder (board_id, ply) VALUES ($1, $2)
		ON CONFLICT (board_id) DO UPDATE SET ply = EXCLUDED.ply WHERE board_clock_reminder.ply <> EXCLUDED.ply`,
		id, ply)
	if err != nil {
		return false, fmt.Errorf("board %d: record its clock reminder: %w", id, err)
	}
	return tag.RowsAffected() > 0, nil
}

// Spectators implements board.Views.
func (s *Store) Spectators(ctx context.Context, id int64) (bool, error) {
	var on bool
	err := s.tx.QueryRow(ctx, `SELECT allowed FROM board_spectators WHERE board_id = $1`, id).Scan(&on)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("board %d: spectators: %w", id, err)
	}
	return on, nil
}

// SetSpectators implements board.Views.
func (s *Store) SetSpectators(ctx context.Context, id int64, allow bool, by int64, at time.Time) error {
	return s.exec(ctx, "spectators", id, `
		INSERT INTO board_spectators (board_id, allowed, set_by, set_at) VALUES ($1, $2, $3, $4)
		ON CONFLICT (board_id) DO UPDATE SET allowed = EXCLUDED.allowed, set_by = EXCLUDED.set_by, set_at = EXCLUDED.set_at`,
		id, allow, by, at)
}

// WaitingBoards returns the public boards of a bot that wait for an opponent, opened by others
// than except, oldest first (the order of matchmaking), at most limit.
func (s *Store) WaitingBoards(ctx context.Context, service int, except int64, limit int) ([]int64, error) {
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
