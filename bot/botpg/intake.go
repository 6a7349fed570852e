package botpg

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/questbot/questbot/bot"
)

// chatOf is the ordering key of an update: its chat, else its sender, else 0. (tgbotapi's
// FromChat reads the message of every callback query, which the press of a button under an
// inline message lacks, and knows nothing of chat member updates.)
func chatOf(u *tgbotapi.Update) int64 {
	switch {
	case u.MyChatMember != nil:
		return u.MyChatMember.Chat.ID
	case u.ChatMember != nil:
		return u.ChatMember.Chat.ID
	case u.ChatJoinRequest != nil:
		return u.ChatJoinRequest.Chat.ID
	}
	if c := messageChat(u); c != nil {
		return c.ID
	}
	if f := u.SentFrom(); f != nil {
		return f.ID
	}
	return 0
}

// messageChat is the chat of the message an update carries or is about (a message, an edit, a
// channel's post or its edit, a press under a message), nil for the others.
func messageChat(u *tgbotapi.Update) *tgbotapi.Chat {
	switch {
	case u.Message != nil:
		return u.Message.Chat
	case u.EditedMessage != nil:
		return u.EditedMessage.Chat
	case u.ChannelPost != nil:
		return u.ChannelPost.Chat
	case u.EditedChannelPost != nil:
		return u.EditedChannelPost.Chat
	case u.CallbackQuery != nil && u.CallbackQuery.Message != nil:
		return u.CallbackQuery.Message.Chat
	}
	return nil
}

// intake is a batch of updates sorted for storing: the inbox's rows and the quarantine's.
type intake struct {
	raws     [][]byte // as received
	ids      []int64
	chats    []int64
	payloads []string
	senders  []*string
	// updates are the rows' updates as decoded, and private whether each comes from its
	// sender's private chat with the bot (for handling them at intake, fresh.go).
	updates []tgbotapi.Update
	private []bool
	quar    []quarantined
}

// quarantined is an update to store apart: as received, under its digest.
type quarantined struct {
	id      *int64
	payload []byte
	digest  []byte
	reason  string
}

// quarantine sets an update apart, as received, with the reason it cannot be handled.
func (in *intake) quarantine(raw []byte, reason string) {
	sum := sha256.Sum256(raw)
	q := quarantined{payload: raw, digest: sum[:], reason: reason}
	if id, ok := readUpdateID(raw); ok {
		q.id = &id
	}
	in.quar = append(in.quar, q)
}

// readUpdateID reads the update_id of a raw update on its own, so that an update that cannot be
// decoded whole is still known by its id when it has one.
func readUpdateID(raw []byte) (int64, bool) {
	var u struct {
		ID json.RawMessage `json:"update_id"`
	}
	if json.Unmarshal(raw, &u) != nil {
		return 0, false
	}
	id, err := strconv.ParseInt(string(u.ID), 10, 64)
	return id, err == nil
}

// add sorts one update: cleaned of what PostgreSQL cannot hold, decoded, and given its chat and
// sender; or quarantined with the reason it cannot be.
func (in *intake) add(raw []byte) {
	clean, _ := cleanJSON(raw)
	var u tgbotapi.Update
	var chat int64
	err := func() (err error) {
		// A panic in the library's helpers on an update of an unforeseen shape quarantines that
		// update; it must not take the long poll down.
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("panic: %v", r)
			}
		}()
		if err := json.Unmarshal(clean, &u); err != nil {
			return err
		}
		chat = chatOf(&u)
		return nil
	}()
	// A decoded update has its id already; only a 0 leaves open whether the field was there.
	id, idOK := int64(u.UpdateID), err == nil && u.UpdateID != 0
	if err == nil && !idOK {
		id, idOK = readUpdateID(clean)
	}
	switch {
	case err != nil:
		in.quarantine(raw, "undecodable: "+err.Error())
		return
	case !idOK:
		in.quarantine(raw, "update_id missing or not an integer")
		return
	case id < 0 || id > bot.MaxUpdateID:
		in.quarantine(raw, fmt.Sprintf("update_id %d cannot be acknowledged by an offset", id))
		return
	}
	if reason := beyondTelegram(&u); reason != "" {
		in.quarantine(raw, reason)
		return
	}
	var sender *string
	if from := u.SentFrom(); from != nil {
		b, _ := json.Marshal(from) // a User always marshals; its strings are clean
		s := string(b)
		sender = &s
	}
	in.raws = append(in.raws, raw)
	in.ids = append(in.ids, id)
	in.chats = append(in.chats, chat)
	in.payloads = append(in.payloads, string(clean))
	in.senders = append(in.senders, sender)
	in.updates = append(in.updates, u)
	in.private = append(in.private, privateChat(&u))
}

// privateChat reports whether u comes from a private chat: a message, an edit, or a press under
// a message there (the updates that tell the bot its user can be written to again).
func privateChat(u *tgbotapi.Update) bool {
	c := messageChat(u)
	return c != nil && c.Type == "private"
}

// keys returns the chats of the inbox's rows, each once, in order.
func (in *intake) keys(service int) []bot.ChatKey {
	seen := map[int64]bool{}
	var keys []bot.ChatKey
	for _, c := range in.chats {
		if !seen[c] {
			seen[c] = true
			keys = append(keys, bot.ChatKey{Service: service, Chat: c})
		}
	}
	return keys
}

const (
	// insertInboxSQL stores updates (arrays $2 of ids, $3 of chats, $4 of payloads, $5 of
	// senders) for service $1. With $6 true (a long poll) an update below the stored offset was
	// stored before, and may be handled and gone already (a second process polling the same bot
	// got the same batch); locking the bot's row makes concurrent saves of one bot take turns.
	// The lock is FOR NO KEY UPDATE, which the offset's update takes anyway: it does not wait
	// for the transactions that merely refer to the row (each that queues an outbox row holds
	// a key-share lock on it until it commits), of which there is always one under load.
	// A webhook's updates ($6 false) may arrive out of order, so the offset says nothing about
	// them: each is recorded in inbox_seen, and one recorded before is a second delivery of an
	// update stored already. A long poll skips those too, for the poll that follows a switch
	// back from webhook mode may get again an update whose delivery was not acknowledged.
	insertInboxSQL = `
		WITH u AS (
			SELECT * FROM unnest($2::bigint[], $3::bigint[], $4::text[], $5::text[]) AS u (id, chat, payload, sender)
		), fresh AS (
			INSERT INTO inbox_seen (service_id, update_id)
			SELECT $1, u.id FROM u WHERE NOT $6
			ON CONFLICT DO NOTHING
			RETURNING update_id
		)
		INSERT INTO inbox (service_id, update_id, chat_id, payload, sender)
		SELECT $1, u.id, u.chat, u.payload::jsonb, u.sender::jsonb
		FROM u
		WHERE CASE WHEN $6 THEN
			u.id >= (SELECT update_offset FROM service WHERE id = $1 FOR NO KEY UPDATE)
			AND NOT EXISTS (SELECT 1 FROM inbox_seen s WHERE s.service_id = $1 AND s.update_id = u.id)
		ELSE u.id IN (SELECT update_id FROM fresh) END
		ON CONFLICT DO NOTHING`
	// insertQuarantineSQL stores updates apart; a copy delivered again is stored once. It
	// returns the digests of the updates newly stored.
	insertQuarantineSQL = `
		INSERT INTO inbox_quarantine (service_id, update_id, digest, payload, reason)
		SELECT $1, q.id, q.digest, q.payload, q.reason
		FROM unnest($2::bigint[], $3::bytea[], $4::bytea[], $5::text[]) AS q (id, digest, payload, reason)
		ON CONFLICT DO NOTHING
		RETURNING digest`
	moveOffsetSQL = `UPDATE service SET update_offset = GREATEST(update_offset, $2) WHERE id = $1`
	// notifyInboxSQL tells the processes watching the inbox (WatchInbox) that updates were
	// stored by the store named $1; PostgreSQL delivers it when the batch commits, and never if
	// it rolls back.
	notifyInboxSQL = `SELECT pg_notify('` + inboxChannel + `', $1)`
)

// inboxChannel is the notification channel of stored updates.
const inboxChannel = "questbot_inbox"

// SaveUpdates implements bot.Store. The batch runs as one implicit transaction: the updates, the
// quarantined ones and the new offset are stored together or not at all. When PostgreSQL refuses
// a value the cleaning did not foresee, the batch is stored again update by update, and those
// it refuses are quarantined.
func (s *Store) SaveUpdates(ctx context.Context, service int, raw []json.RawMessage, next int64) (bot.Saved, error) {
	return s.saveIntake(ctx, service, newIntake(raw), next)
}

// newIntake sorts a batch of raw updates.
func newIntake(raw []json.RawMessage) *intake {
	in := &intake{}
	for _, r := range raw {
		in.add(r)
	}
	return in
}

// saveIntake stores a sorted batch, as SaveUpdates describes.
func (s *Store) saveIntake(ctx context.Context, service int, in *intake, next int64) (bot.Saved, error) {
	var fresh [][]byte
	b := &pgx.Batch{}
	b.Queue(insertInboxSQL, service, in.ids, in.chats, in.payloads, in.senders, next > 0)
	in.queueQuarantine(b, service, &fresh)
	if next > 0 {
		b.Queue(moveOffsetSQL, service, next)
	}
	if len(in.ids) > 0 {
		b.Queue(notifyInboxSQL, s.id)
	}
	err := s.pool.SendBatch(ctx, b).Close()
	if isDataError(err) {
		fresh = nil
		err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error { return s.saveOneByOne(ctx, tx, service, in, next, &fresh) })
	}
	if err != nil {
		return bot.Saved{}, fmt.Errorf("save updates: %w", err)
	}
	return bot.Saved{Chats: in.keys(service), Quarantined: in.newly(fresh)}, nil
}

// saveOneByOne stores each update of in behind a savepoint of its own, quarantining those
// PostgreSQL refuses, then the quarantine and the offset.
func (s *Store) saveOneByOne(ctx context.Context, tx pgx.Tx, service int, in *intake, next int64, fresh *[][]byte) error {
	kept := &intake{quar: in.quar}
	for i := range in.ids {
		sp, err := tx.Begin(ctx)
		if err != nil {
			return err
		}
		_, err = sp.Exec(ctx, insertInboxSQL, service, in.ids[i:i+1], in.chats[i:i+1], in.payloads[i:i+1],
			in.senders[i:i+1], next > 0)
		if err == nil {
			err = sp.Commit(ctx)
		}
		if err != nil {
			if rerr := sp.Rollback(ctx); rerr != nil && !errors.Is(rerr, pgx.ErrTxClosed) {
				return rerr
			}
			if !isDataError(err) {
				return err
			}
			kept.quarantine(in.raws[i], "refused by the database: "+err.Error())
			continue
		}
		kept.raws = append(kept.raws, in.raws[i])
		kept.ids = append(kept.ids, in.ids[i])
		kept.chats = append(kept.chats, in.chats[i])
		kept.payloads = append(kept.payloads, in.payloads[i])
		kept.senders = append(kept.senders, in.senders[i])
		kept.updates = append(kept.updates, in.updates[i])
		kept.private = append(kept.private, in.private[i])
	}
	*in = *kept
	b := &pgx.Batch{}
	in.queueQuarantine(b, service, fresh)
	if next > 0 {
		b.Queue(moveOffsetSQL, service, next)
	}
	if len(in.ids) > 0 {
		b.Queue(notifyInboxSQL, s.id)
	}
	return tx.SendBatch(ctx, b).Close()
}

// queueQuarantine adds the storing of the quarantined updates to b; the digests of those newly
// stored are appended to fresh.
func (in *intake) queueQuarantine(b *pgx.Batch, service int, fresh *[][]byte) {
	if len(in.quar) == 0 {
		return
	}
	ids := make([]*int64, len(in.quar))
	digests := make([][]byte, len(in.quar))
	payloads := make([][]byte, len(in.quar))
	reasons := make([]string, len(in.quar))
	for i, q := range in.quar {
		ids[i], digests[i], payloads[i], reasons[i] = q.id, q.digest, q.payload, q.reason
	}
	b.Queue(insertQuarantineSQL, service, ids, digests, payloads, reasons).Query(func(rows pgx.Rows) error {
		for rows.Next() {
			var d []byte
			if err := rows.Scan(&d); err != nil {
				return err
			}
			*fresh = append(*fresh, d)
		}
		return rows.Err()
	})
}

// newly returns the quarantined updates whose digests are in fresh.
func (in *intake) newly(fresh [][]byte) []bot.Quarantined {
	var out []bot.Quarantined
	for _, q := range in.quar {
		for _, d := range fresh {
			if string(d) == string(q.digest) {
				bq := bot.Quarantined{Reason: q.reason}
				if q.id != nil {
					bq.UpdateID, bq.IDKnown = *q.id, true
				}
				out = append(out, bq)
				break
			}
		}
	}
	return out
}

// isDataError reports whether err is PostgreSQL refusing a value (a data exception, such as an
// escape jsonb cannot hold, or a program limit, such as nesting too deep).
func isDataError(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && (strings.HasPrefix(pgErr.Code, "22") || strings.HasPrefix(pgErr.Code, "54"))
}
