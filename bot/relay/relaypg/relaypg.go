package relaypg

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"
)

// Store keeps the relay's records. It holds nothing: every method works in the transaction db
// it is given.
type Store struct{}

// New returns the relay's store.
func New() *Store { return &Store{} }

// bannedSQL tells whether chat $2 of bot $1 is on the black list.
const bannedSQL = `SELECT EXISTS (SELECT 1 FROM black_list WHERE service_id = $1 AND chat_id = $2)`

// Banned reports whether a chat of a bot is on its black list.
func (s *Store) Banned(ctx context.Context, db pgx.Tx, service int, chat int64) (bool, error) {
	var banned bool
	err := db.QueryRow(ctx, bannedSQL, service, chat).Scan(&banned)
	return banned, err
}

// recentSQL counts the messages user $2 had relayed in bot $1 in the last minute.
const recentSQL = `
	SELECT count(*) FROM relay_message
	WHERE service_id = $1 AND author_id = $2 AND created_at > now() - interval '1 minute'`

// Recent counts the messages a user had relayed in a bot in the last minute.
func (s *Store) Recent(ctx context.Context, db pgx.Tx, service int, author int64) (int, error) {
	var n int
	err := db.QueryRow(ctx, recentSQL, service, author).Scan(&n)
	return n, err
}

// Message is a relayed message to record.
type Message struct {
	Service int
	// Kind is "to_admins", "broadcast" or "reply".
	Kind string
	// Author is the user who wrote it, Chat the chat they wrote it in and MessageID its id there.
	Author    int64
	Chat      int64
	MessageID int
	// ReplyTo is the relayed message it answers; 0 when none.
	ReplyTo int64
}

const recordSQL = `
	INSERT INTO relay_message (service_id, kind, author_id, chat_id, message_id, reply_to)
	VALUES ($1, $2, $3, $4, $5, NULLIF($6, 0)) RETURNING id`

// Record stores a relayed message and returns its id.
func (s *Store) Record(ctx context.Context, db pgx.Tx, m Message) (int64, error) {
	var id int64
	err := db.QueryRow(ctx, recordSQL, m.Service, m.Kind, m.Author, m.Chat, m.MessageID, m.ReplyTo).Scan(&id)
	return id, err
}

// Copy is the relayed message a copy stands for.
type Copy struct {
	// Relay is the relayed message's id.
	Relay int64
	// Chat and MessageID name the original in its author's chat.
	Chat      int64
	MessageID int64
	// Author is the user who wrote the original.
	Author int64
}

const findCopySQL = `
	SELECT m.id, m.chat_id, m.message_id, m.author_id
	FROM relay_copy c JOIN relay_message m ON m.id = c.relay_id
	WHERE c.service_id = $1 AND c.chat_id = $2 AND c.message_id = $3`

// FindCopy returns the relayed message whose copy is message msgID of a chat of a bot; nil when
// that message is no copy (or its link was cleaned up). Copies are keyed by chat and message id
// together: message ids repeat across chats.
func (s *Store) FindCopy(ctx context.Context, db pgx.Tx, service int, chat int64, msgID int) (*Copy, error) {
	var c Copy
	err := db.QueryRow(ctx, findCopySQL, service, chat, msgID).Scan(&c.Relay, &c.Chat, &c.MessageID, &c.Author)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &c, nil
}
