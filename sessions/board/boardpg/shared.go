package boardpg

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/questbot/questbot/sessions/board"
)

// Shared is the message a board is played in when a whole chat sees it (migration 027): an
// inline message (InlineMessageID), or the bot's message in a group (Chat, and MessageID once
// known; 0 before). Invite is the digest of the code of the invitation the message's Join button
// redeems (InviteDigest, migration 035; never the code, which is a link's). Picture says that the
// message is a photo, the board's picture captioned, rather than the board as text (migration
// 030): chosen when the message is posted, and kept.
type Shared struct {
	Board           int64
	InlineMessageID string
	Chat            int64
	MessageID       int
	Invite          string
	Picture         bool
}

// PlaceShared records the message a board is played in. A second record of the same board, inline
// message or group message is board.ErrFull: the message has its game.
func (s *Store) PlaceShared(ctx context.Context, sh Shared) error {
	var inline, chat, msg any
	if sh.InlineMessageID != "" {
		inline = sh.InlineMessageID
	} else {
		chat = sh.Chat
		if sh.MessageID != 0 {
			msg = sh.MessageID
		}
	}
	tag, err := s.tx.Exec(ctx, `
		INSERT INTO board_shared (board_id, inline_message_id, chat_id, message_id, invite, picture)
		VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING`, sh.Board, inline, chat, msg, sh.Invite, sh.Picture)
	if err != nil {
		return fmt.Errorf("board %d: place its shared message: %w", sh.Board, mapErr(err))
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("board %d: place its shared message: %w", sh.Board, board.ErrFull)
	}
	return nil
}

const sharedSQL = `SELECT board_id, coalesce(inline_message_id, ''), coalesce(chat_id, 0), coalesce(message_id, 0), invite, picture
	FROM board_shared WHERE `

// SharedOf returns the shared message of a board; false when the board has none (it is played
// in its players' chats).
func (s *Store) SharedOf(ctx context.Context, id int64) (Shared, bool, error) {
	return s.shared(ctx, sharedSQL+`board_id = $1`, id)
}

// SharedByInline returns the board played in an inline message; false when there is none.
func (s *Store) SharedByInline(ctx context.Context, inlineMessageID string) (Shared, bool, error) {
	return s.shared(ctx, sharedSQL+`inline_message_id = $1`, inlineMessageID)
}

func (s *Store) shared(ctx context.Context, sql string, args ...any) (Shared, bool, error) {
	var sh Shared
	err := s.tx.QueryRow(ctx, sql, args...).Scan(&sh.Board, &sh.InlineMessageID, &sh.Chat, &sh.MessageID, &sh.Invite, &sh.Picture)
	if errors.Is(err, pgx.ErrNoRows) {
		return Shared{}, false, nil
	}
	if err != nil {
		return Shared{}, false, fmt.Errorf("shared board message: %w", err)
	}
	return sh, true, nil
}

// SharedByMessage returns the board played in a group's message; false when there is none.
func (s *Store) SharedByMessage(ctx context.Context, chat int64, messageID int) (Shared, bool, error) {
	return s.shared(ctx, sharedSQL+`chat_id = $1 AND message_id = $2`, chat, messageID)
}

// SetSharedMessage records the message_id of a board's group message, once a press on it told it.
func (s *Store) SetSharedMessage(ctx context.Context, id int64, messageID int) error {
	return s.exec(ctx, "record its group message", id,
		`UPDATE board_shared SET message_id = $2 WHERE board_id = $1 AND chat_id IS NOT NULL`, id, messageID)
}

// StaleChallenges returns at most limit boards played in a shared message that still wait for
// an opponent and were opened at or before before, the oldest first.
func (s *Store) StaleChallenges(ctx context.Context, before time.Time, limit int) ([]board.Ref, error) {
	rows, err := s.tx.Query(ctx, `
		SELECT b.id, b.service_id FROM board_shared sh JOIN board_session b ON b.id = sh.board_id
		WHERE b.status = 'waiting' AND b.created_at <= $1
		ORDER BY b.created_at LIMIT $2`, before, limit)
	if err != nil {
		return nil, fmt.Errorf("stale challenges: %w", err)
	}
	refs, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (board.Ref, error) {
		var ref board.Ref
		err := r.Scan(&ref.ID, &ref.Service)
		return ref, err
	})
	if err != nil {
		return nil, fmt.Errorf("stale challenges: %w", err)
	}
	return refs, nil
}
