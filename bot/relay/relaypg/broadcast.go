package relaypg

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
)

// NewBroadcast is an admin's text to record as a draft broadcast.
type NewBroadcast struct {
	Service int
	// Relay is the relayed message the broadcast's copies are sent under (Record).
	Relay int64
	// Author is the admin, Chat their chat (where the progress is shown).
	Author int64
	Chat   int64
	// Lang is the language of the users it is for; Text the text as the admin wrote it.
	Lang string
	Text string
}

const addBroadcastSQL = `
	INSERT INTO broadcast (service_id, relay_id, author_id, chat_id, lang, text)
	VALUES ($1, $2, $3, $4, $5, $6) RETURNING id`

// AddBroadcast records a draft broadcast and returns its id.
func (s *Store) AddBroadcast(ctx context.Context, db pgx.Tx, b NewBroadcast) (int64, error) {
	var id int64
	err := db.QueryRow(ctx, addBroadcastSQL, b.Service, b.Relay, b.Author, b.Chat, b.Lang, b.Text).Scan(&id)
	return id, err
}

// Broadcast is a broadcast as stored.
type Broadcast struct {
	ID      int64
	Service int
	// Relay is the relayed message its copies are sent under.
	Relay int64
	// Author is the admin who wrote it, Chat their chat.
	Author int64
	Chat   int64
	Lang   string
	Text   string
	// Status is "draft", "running", "done", "stopped" or "cancelled".
	Status string
	// Total is the number of users it is for, counted when it started (Started; nil while a
	// draft).
	Total   int
	Started *time.Time
	// Cursor is the id of the last user queued; nil before the first. Queued counts the copies
	// queued, Skipped the users passed over because they had blocked the bot, and Exhausted is
	// set once every user has been queued or skipped.
	Cursor    *int64
	Queued    int
	Skipped   int
	Exhausted bool
	// Reported is the progress text last shown to the author, and ReportedAt when; nil before.
	Reported   *string
	ReportedAt *time.Time
}

const broadcastColumns = `id, service_id, relay_id, author_id, chat_id, lang, text, status, total, queued, skipped,
	started_at, cursor_id, exhausted, reported, reported_at`

// scanBroadcast reads a broadcast; nil when there is none.
func scanBroadcast(row pgx.Row) (*Broadcast, error) {
	var b Broadcast
	err := row.Scan(&b.ID, &b.Service, &b.Relay, &b.Author, &b.Chat, &b.Lang, &b.Text, &b.Status, &b.Total,
		&b.Queued, &b.Skipped, &b.Started, &b.Cursor, &b.Exhausted, &b.Reported, &b.ReportedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	return &b, err
}

const lockInChatSQL = `SELECT ` + broadcastColumns + ` FROM broadcast
	WHERE id = $1 AND service_id = $2 AND chat_id = $3 FOR UPDATE`

// LockInChat reads broadcast id of a chat of a bot and locks it (FOR UPDATE) until db ends, so
// that two presses of its buttons are taken one after the other; nil when the chat has no such
// broadcast in that bot.
func (s *Store) LockInChat(ctx context.Context, db pgx.Tx, id int64, service int, chat int64) (*Broadcast, error) {
	return scanBroadcast(db.QueryRow(ctx, lockInChatSQL, id, service, chat))
}

const startSQL = `UPDATE broadcast SET status = 'running', started_at = now(), total = $2 WHERE id = $1`

// Start makes a draft broadcast running, for total users.
func (s *Store) Start(ctx context.Context, db pgx.Tx, id int64, total int) error {
	_, err := db.Exec(ctx, startSQL, id, total)
	return err
}

const reportedSQL = `UPDATE broadcast SET reported = $2, reported_at = now() WHERE id = $1`

// Reported records the progress text shown to a broadcast's author, now.
func (s *Store) Reported(ctx context.Context, db pgx.Tx, id int64, text string) error {
	_, err := db.Exec(ctx, reportedSQL, id, text)
	return err
}

const cancelSQL = `UPDATE broadcast SET status = 'cancelled', finished_at = now() WHERE id = $1`

// Cancel ends a draft broadcast unsent.
func (s *Store) Cancel(ctx context.Context, db pgx.Tx, id int64) error {
	_, err := db.Exec(ctx, cancelSQL, id)
	return err
}

const stopSQL = `UPDATE broadcast SET status = 'stopped', finished_at = now(), reported = $2,
		reported_at = now() WHERE id = $1`

// Stop ends a running broadcast, with the progress text shown to its author.
func (s *Store) Stop(ctx context.Context, db pgx.Tx, id int64, text string) error {
	_, err := db.Exec(ctx, stopSQL, id, text)
	return err
}

const copiesSQL = `SELECT count(DISTINCT chat_id) FROM relay_copy WHERE relay_id = $1`

// Copies counts the chats that a relayed message's copies reached (Telegram accepted them).
func (s *Store) Copies(ctx context.Context, db pgx.Tx, relay int64) (int, error) {
	var n int
	err := db.QueryRow(ctx, copiesSQL, relay).Scan(&n)
	return n, err
}

// Running is a running broadcast, as Running lists it.
type Running struct {
	ID      int64
	Service int
}

const runningSQL = `SELECT id, service_id FROM broadcast WHERE status = 'running' ORDER BY id`

// Running lists the running broadcasts, oldest first.
func (s *Store) Running(ctx context.Context, db pgx.Tx) ([]Running, error) {
	rows, err := db.Query(ctx, runningSQL)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (Running, error) {
		var b Running
		err := r.Scan(&b.ID, &b.Service)
		return b, err
	})
}

const lockRunningSQL = `SELECT ` + broadcastColumns + ` FROM broadcast
		WHERE id = $1 AND status = 'running' FOR UPDATE SKIP LOCKED`

// LockRunning reads running broadcast id and locks it until db ends; nil when it is no longer
// running, or when another transaction holds it (FOR UPDATE SKIP LOCKED: another process is
// moving it on, and this one passes it over rather than wait).
func (s *Store) LockRunning(ctx context.Context, db pgx.Tx, id int64) (*Broadcast, error) {
	return scanBroadcast(db.QueryRow(ctx, lockRunningSQL, id))
}

const saveProgressSQL = `UPDATE broadcast SET cursor_id = $2, queued = $3, skipped = $4, exhausted = $5,
		reported = $6, reported_at = $7, status = $8, finished_at = CASE WHEN $8 = 'done' THEN now() END
		WHERE id = $1`

// SaveProgress writes how far a broadcast went (its cursor, counts and report, as b holds
// them) and its status; status "done" finishes it now.
func (s *Store) SaveProgress(ctx context.Context, db pgx.Tx, b *Broadcast, status string) error {
	_, err := db.Exec(ctx, saveProgressSQL, b.ID, b.Cursor, b.Queued, b.Skipped, b.Exhausted, b.Reported, b.ReportedAt, status)
	return err
}

const deleteOldSQL = `DELETE FROM relay_message m WHERE m.created_at < now() - $1::interval
			AND NOT EXISTS (SELECT 1 FROM broadcast b WHERE b.relay_id = m.id AND b.status = 'running')`

// DeleteOld removes the relayed messages older than keep, and with them the links of their
// copies, but those of running broadcasts.
func (s *Store) DeleteOld(ctx context.Context, db pgx.Tx, keep time.Duration) error {
	_, err := db.Exec(ctx, deleteOldSQL, strconv.FormatInt(int64(keep/time.Second), 10)+" seconds")
	return err
}

const cancelStaleSQL = `UPDATE broadcast SET status = 'cancelled', finished_at = now()
				WHERE status = 'draft' AND created_at < now() - interval '1 day'`

// CancelStale cancels the drafts nobody confirmed within a day.
func (s *Store) CancelStale(ctx context.Context, db pgx.Tx) error {
	_, err := db.Exec(ctx, cancelStaleSQL)
	return err
}
