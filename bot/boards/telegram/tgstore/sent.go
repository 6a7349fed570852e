package tgstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// SentAt returns when a seat's board message of a board was last sent in its player's chat;
// zero when it never was.
func (s *Store) SentAt(ctx context.Context, id int64, seat int) (time.Time, error) {
	var at time.Time
	err := s.tx.QueryRow(ctx, `SELECT sent_at FROM board_telegram_message WHERE board_id = $1 AND seat = $2`, id, seat).Scan(&at)
	if errors.Is(err, pgx.ErrNoRows) {
		return time.Time{}, nil
	}
	if err != nil {
		return time.Time{}, fmt.Errorf("board %d: when its message was sent: %w", id, err)
	}
	return at, nil
}

// Messages returns, in one round trip, what the view keeps of a board's messages: its shared
// message (false when it has none: it is played in its players' chats) and when each seat's
// board message was last sent (zero: never).
func (s *Store) Messages(ctx context.Context, id int64) (Shared, bool, [2]time.Time, error) {
	var b pgx.Batch
	var sh Shared
	shared := false
	b.Queue(sharedSQL+`board_id = $1`, id).QueryRow(func(row pgx.Row) error {
		err := row.Scan(&sh.Board, &sh.InlineMessageID, &sh.Chat, &sh.MessageID, &sh.Invite, &sh.Picture, &sh.Opened)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		shared = err == nil
		return err
	})
	var at [2]time.Time
	b.Queue(`SELECT seat, sent_at FROM board_telegram_message WHERE board_id = $1`, id).Query(func(rows pgx.Rows) error {
		for rows.Next() {
			var seat int
			var t time.Time
			if err := rows.Scan(&seat, &t); err != nil {
				return err
			}
			if seat == 0 || seat == 1 {
				at[seat] = t
			}
		}
		return rows.Err()
	})
	if err := s.tx.SendBatch(ctx, &b).Close(); err != nil {
		return Shared{}, false, at, fmt.Errorf("board %d: its messages: %w", id, err)
	}
	return sh, shared, at, nil
}

const markSentSQL = `
	INSERT INTO board_telegram_message (board_id, seat, sent_at) VALUES ($1, $2, $3)
	ON CONFLICT (board_id, seat) DO UPDATE SET sent_at = EXCLUDED.sent_at`

// MarkSent records that a seat's board message of a board was sent at.
func (s *Store) MarkSent(ctx context.Context, id int64, seat int, at time.Time) error {
	if _, err := s.tx.Exec(ctx, markSentSQL, id, seat, at); err != nil {
		return fmt.Errorf("board %d: record its message: %w", id, err)
	}
	return nil
}

// Committer queues writes for its transaction's COMMIT (the bot's transactions do: bot.Tx).
type Committer interface {
	AtCommit(sql string, args ...any)
}

// MarkSentAtCommit is MarkSent written with the COMMIT of c's transaction, in its round trip:
// the transaction's later statements (SentAt, Messages) do not see it.
func MarkSentAtCommit(c Committer, id int64, seat int, at time.Time) {
	c.AtCommit(markSentSQL, id, seat, at)
}
