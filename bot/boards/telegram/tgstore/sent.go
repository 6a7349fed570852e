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

// MarkSent records that a seat's board message of a board was sent at.
func (s *Store) MarkSent(ctx context.Context, id int64, seat int, at time.Time) error {
	_, err := s.tx.Exec(ctx, `
		INSERT INTO board_telegram_message (board_id, seat, sent_at) VALUES ($1, $2, $3)
		ON CONFLICT (board_id, seat) DO UPDATE SET sent_at = EXCLUDED.sent_at`, id, seat, at)
	if err != nil {
		return fmt.Errorf("board %d: record its message: %w", id, err)
	}
	return nil
}
