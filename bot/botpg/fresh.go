package botpg

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/questbot/questbot/bot"
)

// freshSQL opens the handling of a long poll's updates at intake (HandleAtIntake): for service
// $1 and the batch's updates (arrays $2 of ids, $3 of chats, $4 of senders, $5 of whether each
// comes from a private chat), it returns the updates not stored or handled before, each with
// whether its chat has updates waiting in the inbox (busy: the update must wait behind them),
// and records the senders of the others as a claim does (recordSendersSQL).
//
// An update below the stored offset was stored or handled by another process polling the same
// bot (or by this one, before a commit whose answer was lost), and one in inbox_seen came by a
// webhook before; both are left out, as insertInboxSQL leaves them out. The bot's row is locked
// (FOR NO KEY UPDATE, as the offset's update takes it anyway) until the transaction ends, so
// that two intakes of one bot take turns and the second sees the offset the first moved.
//
// A chat is busy while an inbox row of it is unhandled, including one a worker has claimed and
// not yet committed (the claim's deletion is not seen before its commit): handling the new
// update at once would overtake it.
const freshSQL = `
	WITH off AS (
		SELECT update_offset FROM service WHERE id = $1 FOR NO KEY UPDATE),
	b AS (
		SELECT * FROM unnest($2::bigint[], $3::bigint[], $4::text[], $5::bool[]) AS b (id, chat, sender, private)),
	f AS (
		SELECT b.id, b.chat, b.sender::jsonb AS sender, b.private FROM b
		WHERE b.id >= (SELECT update_offset FROM off)
			AND NOT EXISTS (SELECT FROM inbox_seen s WHERE s.service_id = $1 AND s.update_id = b.id)),
	busy AS (
		SELECT DISTINCT i.chat_id FROM inbox i
		WHERE i.service_id = $1 AND i.handled_at IS NULL AND i.chat_id IN (SELECT chat FROM f)),
	c AS (
		SELECT $1::int AS service_id, (f.sender->>'id')::bigint AS uid, f.sender, f.private FROM f
		WHERE f.sender IS NOT NULL AND f.chat NOT IN (SELECT chat_id FROM busy)),
` + recordSendersSQL + `
	SELECT f.id, f.chat IN (SELECT chat_id FROM busy), uk.chat_id, uk.language, uk.is_admin
	FROM f LEFT JOIN uk ON uk.id = (f.sender->>'id')::bigint`

// freshRow is a row of freshSQL.
type freshRow struct {
	busy bool
	user senderRow
}

// HandleAtIntake implements bot.IntakeHandler: one transaction stores a long poll's updates and
// handles those it can at once.
//
//   - The updates of chats with nothing waiting in the inbox are handled in the order they came,
//     each behind its savepoint as in HandleBatch, their requests queued with the rest.
//   - The others are stored in the inbox for the workers: those of busy chats; those after an
//     update of the same chat that was not handled; every update once the handlers have spent
//     budget (so that a batch of slow handlers is spread over the workers and the next poll
//     does not wait for them); and an update whose handler failed, with the attempt counted and
//     its error, as RecordFailure would have counted it.
//   - The quarantine and the offset that acknowledges the batch commit with them.
//
// A handled update is never stored: the offset, moved in the same transaction, keeps Telegram
// from delivering it again, and keeps another process that polled the same batch from storing
// it. Compared with storing and then claiming an update, this saves its insertion into the inbox
// and its deletion, their share of the write-ahead log, a commit and a round trip.
//
// An error leaves nothing done: the caller stores the updates with SaveUpdates instead (which
// also copes with values PostgreSQL refuses, update by update); a batch committed before its
// answer was lost is then recognised by its offset and not stored again.
func (s *Store) HandleAtIntake(ctx context.Context, service int, raw []json.RawMessage, next int64, budget time.Duration, fn bot.Handler) (bot.Saved, []bot.Handled, error) {
	in := newIntake(raw)
	if next <= 0 {
		return bot.Saved{}, nil, errors.New("intake: handling at intake needs a long poll's offset")
	}
	pc, err := s.pool.Acquire(ctx)
	if err != nil {
		return bot.Saved{}, nil, fmt.Errorf("intake: %w", err)
	}
	// A connection released inside a transaction is closed by the pool, which rolls it back.
	defer pc.Release()
	tx := &pipeTx{conn: pc.Conn()}
	defer func() {
		if !tx.closed {
			tx.Rollback(context.WithoutCancel(ctx))
		}
	}()
	fresh := make(map[int64]freshRow, len(in.ids))
	open := &pgx.Batch{}
	open.Queue("BEGIN")
	if len(in.ids) > 0 {
		open.Queue(freshSQL, service, in.ids, in.chats, in.senders, in.private).Query(func(r pgx.Rows) error {
			for r.Next() {
				var id int64
				var f freshRow
				if err := r.Scan(&id, &f.busy, &f.user.chat, &f.user.lang, &f.user.admin); err != nil {
					return err
				}
				fresh[id] = f
			}
			return r.Err()
		})
	}
	if err := tx.SendBatch(ctx, open).Close(); err != nil {
		return bot.Saved{}, nil, fmt.Errorf("intake: %w", err)
	}
	start := time.Now()
	bh := s.newBatchHandling(ctx, tx)
	var held inboxRows // the updates stored for the workers
	heldChats := map[int64]bool{}
	var keys []bot.ChatKey
	hold := func(i int, attempts int32, errText *string) {
		held.services = append(held.services, int32(service))
		held.ids = append(held.ids, in.ids[i])
		held.chats = append(held.chats, in.chats[i])
		held.payloads = append(held.payloads, []byte(in.payloads[i]))
		var sender []byte
		if in.senders[i] != nil {
			sender = []byte(*in.senders[i])
		}
		held.senders = append(held.senders, sender)
		held.received = append(held.received, start)
		held.attempts = append(held.attempts, attempts)
		held.errs = append(held.errs, errText)
		if !heldChats[in.chats[i]] {
			heldChats[in.chats[i]] = true
			keys = append(keys, bot.ChatKey{Service: service, Chat: in.chats[i]})
		}
	}
	var handled []bot.Handled
	for i, id := range in.ids {
		f, ok := fresh[id]
		if !ok {
			continue // stored or handled before, or a second copy in the batch
		}
		delete(fresh, id)
		chat := in.chats[i]
		if f.busy || heldChats[chat] || time.Since(start) > budget {
			hold(i, 0, nil)
			continue
		}
		u := &bot.Update{Update: in.updates[i], Service: service, Chat: chat}
		user, err := f.user.user(ctx, tx, u)
		if err != nil {
			return bot.Saved{}, nil, fmt.Errorf("intake: %w", err)
		}
		u.User = user
		key := bot.ChatKey{Service: service, Chat: chat}
		touched, err := bh.run(u, fn)
		var fatal *batchError
		switch {
		case errors.As(err, &fatal):
			return bot.Saved{}, nil, fatal.err
		case err != nil:
			text := err.Error()
			hold(i, 1, &text)
			handled = append(handled, bot.Handled{Chat: key, Update: u, Err: err})
			continue
		}
		handled = append(handled, bot.Handled{Chat: key, Update: u, Touched: touched})
	}
	final := bh.finish()
	if len(held.ids) > 0 {
		final.Queue(restoreInboxSQL, held.services, held.ids, held.chats, held.payloads, held.senders,
			held.received, held.attempts, held.errs)
	}
	var quarantined [][]byte
	in.queueQuarantine(final, service, &quarantined)
	final.Queue(moveOffsetSQL, service, next)
	if len(held.ids) > 0 {
		final.Queue(notifyInboxSQL, s.id)
	}
	final.Queue("COMMIT")
	if err := tx.SendBatch(ctx, final).Close(); err != nil {
		return bot.Saved{}, nil, fmt.Errorf("intake: commit: %w", err)
	}
	tx.closed = true
	bh.committed()
	return bot.Saved{Chats: keys, Quarantined: in.newly(quarantined)}, handled, nil
}
