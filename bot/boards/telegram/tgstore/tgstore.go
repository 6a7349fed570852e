// Package tgstore keeps the records of the Telegram view of the board service
// (bot/boards/telegram) that no other view reads: when each seat's board message was last sent
// in its player's chat (board_telegram_message, migration 041: sent.go), and the messages a board
// is played in when a whole chat sees it (board_shared, migrations 027, 030 and 035), an inline
// message or the bot's message in a group. The game itself is the domain store's
// (sessions/board/boardpg), which the view reaches through the service, and so is what the
// service's notification policy reads (when a player was last on the web). Every method takes
// the caller's transaction.
package tgstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/questbot/questbot/sessions/board"
)

// Store is the view's records in a transaction.
type Store struct{ tx pgx.Tx }

// New returns the store of the records in tx.
func New(tx pgx.Tx) *Store { return &Store{tx: tx} }

// Shared is the message a board is played in when a whole chat sees it: an inline message
// (InlineMessageID), or the bot's message in a group (Chat, and MessageID once known; 0 before).
// Invite is the digest of the code of the invitation the message's Join button redeems (the
// domain store's InviteDigest; never the code, which is a link's). Picture says that the message
// is a photo, the board's picture captioned, rather than the board as text: chosen when the
// message is posted, and kept. Opened is when the board was opened (its board.Board.Created), by
// the service's clock: the challenges to expire are found by it (Challenges).
type Shared struct {
	Board           int64
	InlineMessageID string
	Chat            int64
	MessageID       int
	Invite          string
	Picture         bool
	Opened          time.Time
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
	opened := any(nil)
	if !sh.Opened.IsZero() {
		opened = sh.Opened
	}
	tag, err := s.tx.Exec(ctx, `
		INSERT INTO board_shared (board_id, inline_message_id, chat_id, message_id, invite, picture, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, coalesce($7, now())) ON CONFLICT DO NOTHING`,
		sh.Board, inline, chat, msg, sh.Invite, sh.Picture, opened)
	if err != nil {
		return fmt.Errorf("board %d: place its shared message: %w", sh.Board, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("board %d: place its shared message: %w", sh.Board, board.ErrFull)
	}
	return nil
}

const sharedSQL = `SELECT board_id, coalesce(inline_message_id, ''), coalesce(chat_id, 0), coalesce(message_id, 0), invite, picture, created_at
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

// SharedByMessage returns the board played in a group's message; false when there is none.
func (s *Store) SharedByMessage(ctx context.Context, chat int64, messageID int) (Shared, bool, error) {
	return s.shared(ctx, sharedSQL+`chat_id = $1 AND message_id = $2`, chat, messageID)
}

func (s *Store) shared(ctx context.Context, sql string, args ...any) (Shared, bool, error) {
	var sh Shared
	err := s.tx.QueryRow(ctx, sql, args...).Scan(&sh.Board, &sh.InlineMessageID, &sh.Chat, &sh.MessageID, &sh.Invite, &sh.Picture, &sh.Opened)
	if errors.Is(err, pgx.ErrNoRows) {
		return Shared{}, false, nil
	}
	if err != nil {
		return Shared{}, false, fmt.Errorf("shared board message: %w", err)
	}
	sh.Opened = sh.Opened.UTC()
	return sh, true, nil
}

// SetSharedMessage records the message_id of a board's group message, once a press on it told it.
func (s *Store) SetSharedMessage(ctx context.Context, id int64, messageID int) error {
	if _, err := s.tx.Exec(ctx, `UPDATE board_shared SET message_id = $2 WHERE board_id = $1 AND chat_id IS NOT NULL`, id, messageID); err != nil {
		return fmt.Errorf("board %d: record its group message: %w", id, err)
	}
	return nil
}

// Challenges returns the boards played in a shared message opened from from to to (both
// included), the oldest first: those of them still waiting for an opponent are the challenges
// to expire, which the service tells (its store's WaitingAmong).
func (s *Store) Challenges(ctx context.Context, from, to time.Time) ([]int64, error) {
	rows, err := s.tx.Query(ctx, `
		SELECT board_id FROM board_shared WHERE created_at BETWEEN $1 AND $2 ORDER BY created_at, board_id`, from, to)
	if err != nil {
		return nil, fmt.Errorf("shared challenges: %w", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return nil, fmt.Errorf("shared challenges: %w", err)
	}
	return ids, nil
}
