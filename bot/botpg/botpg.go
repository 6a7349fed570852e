// Package botpg keeps the Telegram transport's state in PostgreSQL: the bots (service), the users,
// the inbox of updates and the outbox of requests. It implements [bot.Store].
//
// Claims are made so that several processes can share one database: a worker takes the first
// row of a chat with FOR UPDATE SKIP LOCKED on exactly that row, so when another process holds
// it the chat is skipped as busy instead of its second row being taken out of order.
package botpg

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/questbot/questbot/bot"
)

var _ bot.Store = (*Store)(nil)

// Store is the PostgreSQL implementation of bot.Store.
type Store struct {
	pool *pgxpool.Pool
}

// New returns a store on pool.
func New(pool *pgxpool.Pool) *Store { return &Store{pool: pool} }

// RegisterService implements bot.Store. A bot configured in the database (a service row with its
// token) is matched by token; a bot from the environment by its Telegram id, without storing the
// token.
func (s *Store) RegisterService(ctx context.Context, token string, me tgbotapi.User) (int, int64, error) {
	var id int
	var offset int64
	err := s.pool.QueryRow(ctx, `
		UPDATE service SET bot_user_id = $1, username = $2 WHERE token = $3
		RETURNING id, update_offset`, me.ID, me.UserName, token).Scan(&id, &offset)
	if errors.Is(err, pgx.ErrNoRows) {
		err = s.pool.QueryRow(ctx, `
			INSERT INTO service (bot_user_id, username) VALUES ($1, $2)
			ON CONFLICT (bot_user_id) DO UPDATE SET username = EXCLUDED.username
			RETURNING id, update_offset`, me.ID, me.UserName).Scan(&id, &offset)
	}
	if err != nil {
		return 0, 0, fmt.Errorf("register bot %d: %w", me.ID, err)
	}
	return id, offset, nil
}

// chatOf is the ordering key of an update: its chat, else its sender, else 0.
func chatOf(u *tgbotapi.Update) int64 {
	if c := u.FromChat(); c != nil {
		return c.ID
	}
	if f := u.SentFrom(); f != nil {
		return f.ID
	}
	return 0
}

// SaveUpdates implements bot.Store. The batch runs as one implicit transaction: the updates and
// the new offset are stored together or not at all.
func (s *Store) SaveUpdates(ctx context.Context, service int, raw []json.RawMessage, next int64) ([]bot.ChatKey, error) {
	ids := make([]int64, len(raw))
	chats := make([]int64, len(raw))
	payloads := make([]string, len(raw))
	senders := make([]*string, len(raw))
	seen := map[bot.ChatKey]bool{}
	var keys []bot.ChatKey
	for i, r := range raw {
		var u tgbotapi.Update
		if err := json.Unmarshal(r, &u); err != nil {
			return nil, fmt.Errorf("save updates: decode: %w", err)
		}
		ids[i], chats[i], payloads[i] = int64(u.UpdateID), chatOf(&u), string(r)
		if from := u.SentFrom(); from != nil {
			b, _ := json.Marshal(from)
			s := string(b)
			senders[i] = &s
		}
		k := bot.ChatKey{Service: service, Chat: chats[i]}
		if !seen[k] {
			seen[k] = true
			keys = append(keys, k)
		}
	}
	b := &pgx.Batch{}
	if next > 0 {
		// Long poll: an update below the stored offset was stored before, and may be handled and
		// gone already (a second process polling the same bot got the same batch). Locking the
		// bot's row makes concurrent saves of one bot take turns.
		b.Queue(`
			INSERT INTO inbox (service_id, update_id, chat_id, payload, sender)
			SELECT $1, u.id, u.chat, u.payload::jsonb, u.sender::jsonb
			FROM unnest($2::bigint[], $3::bigint[], $4::text[], $5::text[]) AS u (id, chat, payload, sender)
			WHERE u.id >= (SELECT update_offset FROM service WHERE id = $1 FOR UPDATE)
			ON CONFLICT DO NOTHING`, service, ids, chats, payloads, senders)
		b.Queue(`UPDATE service SET update_offset = GREATEST(update_offset, $2) WHERE id = $1`, service, next)
	} else {
		// Webhook: updates may arrive out of order; only the ones still in the inbox are known.
		b.Queue(`
			INSERT INTO inbox (service_id, update_id, chat_id, payload, sender)
			SELECT $1, u.id, u.chat, u.payload::jsonb, u.sender::jsonb
			FROM unnest($2::bigint[], $3::bigint[], $4::text[], $5::text[]) AS u (id, chat, payload, sender)
			ON CONFLICT DO NOTHING`, service, ids, chats, payloads, senders)
	}
	if err := s.pool.SendBatch(ctx, b).Close(); err != nil {
		return nil, fmt.Errorf("save updates: %w", err)
	}
	return keys, nil
}

// PendingChats implements bot.Store.
func (s *Store) PendingChats(ctx context.Context, limit int) ([]bot.ChatKey, error) {
	rows, err := s.pool.Query(ctx, `
		SELECT DISTINCT service_id, chat_id FROM inbox WHERE handled_at IS NULL LIMIT $1`, limit)
	if err != nil {
		return nil, fmt.Errorf("pending chats: %w", err)
	}
	keys, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (bot.ChatKey, error) {
		var k bot.ChatKey
		err := r.Scan(&k.Service, &k.Chat)
		return k, err
	})
	if err != nil {
		return nil, fmt.Errorf("pending chats: %w", err)
	}
	return keys, nil
}

// handleTx is the bot.Tx of one update of a batch. The first call of DB makes a savepoint, so
// that a failing handler's statements are rolled back without touching the other updates of the
// batch; a handler that never touches the database costs no savepoint.
type handleTx struct {
	ctx  context.Context
	tx   *pipeTx
	sp   pgx.Tx // the savepoint, once made
	err  error  // making it failed
	reqs []bot.Request
}

func (t *handleTx) DB() pgx.Tx {
	if t.sp == nil && t.err == nil {
		t.sp, t.err = t.tx.Begin(t.ctx)
	}
	if t.err != nil {
		// Every statement fails on an aborted transaction, so the handler sees an error.
		return t.tx
	}
	return t.sp
}

func (t *handleTx) Send(ctx context.Context, reqs ...bot.Request) error {
	t.reqs = append(t.reqs, reqs...)
	return nil
}

// claimSQL claims the first unhandled update of each of a set of chats (arrays $1 of service ids
// and $2 of chat ids) and records their senders, in one statement: a new user gets Telegram's
// language; a known one has their names refreshed and is no longer blocked (they wrote to us).
// A known user's row is only rewritten when something changed or last_seen_at is a minute old,
// which spares a write per update to someone chatting. A chat whose first update another process
// holds comes back without an update (busy).
const claimSQL = `
	WITH k AS (
		SELECT * FROM unnest($1::int[], $2::bigint[]) AS k (service_id, chat_id)),
	h AS (
		SELECT i.service_id, i.chat_id, min(i.update_id) AS id, count(*) AS n
		FROM inbox i JOIN k USING (service_id, chat_id)
		WHERE i.handled_at IS NULL GROUP BY 1, 2),
	c AS (
		SELECT i.service_id, i.update_id, i.payload, i.sender, (i.sender->>'id')::bigint AS uid
		FROM inbox i JOIN h ON i.service_id = h.service_id AND i.update_id = h.id
		WHERE i.handled_at IS NULL
		FOR UPDATE OF i SKIP LOCKED),
	u AS (
		INSERT INTO users AS old (id, chat_id, username, first_name, last_name, language)
		SELECT DISTINCT ON (uid) uid, uid, sender->>'username', COALESCE(sender->>'first_name', ''),
			sender->>'last_name', COALESCE(NULLIF(sender->>'language_code', ''), 'en')
		FROM c WHERE uid IS NOT NULL ORDER BY uid
		ON CONFLICT (id) DO UPDATE SET username = EXCLUDED.username,
			first_name = EXCLUDED.first_name, last_name = EXCLUDED.last_name,
			last_seen_at = now(), blocked_at = NULL
		WHERE old.blocked_at IS NOT NULL OR old.last_seen_at < now() - interval '1 minute'
			OR (old.username, old.first_name, old.last_name)
				IS DISTINCT FROM (EXCLUDED.username, EXCLUDED.first_name, EXCLUDED.last_name)
		RETURNING id, chat_id, language, is_admin),
	s AS (
		INSERT INTO user_service AS old (user_id, service_id)
		SELECT DISTINCT uid, service_id FROM c WHERE uid IS NOT NULL ORDER BY uid
		ON CONFLICT (user_id, service_id) DO UPDATE SET last_seen_at = now()
		WHERE old.last_seen_at < now() - interval '1 minute'),
	-- Known users whose rows did not need writing: read as they are.
	kn AS (
		SELECT id, chat_id, language, is_admin FROM users
		WHERE id IN (SELECT uid FROM c) AND id NOT IN (SELECT id FROM u)),
	uk AS (SELECT * FROM u UNION ALL SELECT * FROM kn)
	SELECT h.service_id, h.chat_id, h.n, c.update_id, c.payload, uk.chat_id, uk.language, uk.is_admin
	FROM h LEFT JOIN c ON c.service_id = h.service_id AND c.update_id = h.id
	LEFT JOIN uk ON uk.id = c.uid`

// HandleBatch implements bot.Store. The transaction's BEGIN is pipelined with the claim and its
// COMMIT with the final writes (see pipeTx): a batch costs two round trips to the database and
// one commit, whatever its size, plus a savepoint for each handler that uses the database.
func (s *Store) HandleBatch(ctx context.Context, chats []bot.ChatKey, fn bot.Handler) ([]bot.Handled, error) {
	pc, err := s.pool.Acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("handle: %w", err)
	}
	// A connection released inside a transaction is closed by the pool, which rolls it back.
	defer pc.Release()
	tx := &pipeTx{conn: pc.Conn()}
	defer func() {
		if !tx.closed {
			tx.Rollback(context.WithoutCancel(ctx))
		}
	}()
	services := make([]int32, len(chats))
	ids := make([]int64, len(chats))
	for i, c := range chats {
		services[i], ids[i] = int32(c.Service), c.Chat
	}
	type claimed struct {
		chat             bot.ChatKey
		n                int64
		update, userChat *int64
		payload          []byte
		lang             *string
		admin            *bool
	}
	var rows []claimed
	claim := &pgx.Batch{}
	claim.Queue("BEGIN")
	claim.Queue(claimSQL, services, ids).Query(func(r pgx.Rows) error {
		for r.Next() {
			var c claimed
			var svc int32
			if err := r.Scan(&svc, &c.chat.Chat, &c.n, &c.update, &c.payload, &c.userChat, &c.lang, &c.admin); err != nil {
				return err
			}
			c.chat.Service = int(svc)
			rows = append(rows, c)
		}
		return r.Err()
	})
	if err := tx.SendBatch(ctx, claim).Close(); err != nil {
		return nil, fmt.Errorf("handle: claim: %w", err)
	}
	out := make([]bot.Handled, len(chats))
	index := map[bot.ChatKey]int{}
	for i, c := range chats {
		out[i] = bot.Handled{Chat: c, Err: bot.ErrNoWork}
		index[c] = i
	}
	final := &pgx.Batch{}
	var doneServices []int32
	var doneIDs []int64
	for _, c := range rows {
		h := &out[index[c.chat]]
		if c.update == nil {
			h.Err = bot.ErrBusy
			continue
		}
		h.More = c.n > 1
		u := &bot.Update{Service: c.chat.Service, Chat: c.chat.Chat}
		if err := json.Unmarshal(c.payload, &u.Update); err != nil {
			h.Err = fmt.Errorf("handle: decode update %d: %w", *c.update, err)
			continue
		}
		if from := u.SentFrom(); from != nil {
			if c.userChat == nil {
				// The user was inserted by a concurrent transaction that committed after the
				// claim's snapshot was taken: a new statement sees the row.
				err := tx.QueryRow(ctx, `SELECT chat_id, language, is_admin FROM users WHERE id = $1`, from.ID).
					Scan(&c.userChat, &c.lang, &c.admin)
				if err != nil {
					return nil, fmt.Errorf("handle: read user %d: %w", from.ID, err)
				}
			}
			u.User = &bot.User{ID: from.ID, ChatID: *c.userChat, Username: from.UserName, FirstName: from.FirstName,
				Language: *c.lang, IsAdmin: *c.admin}
		}
		h.Update = u
		ht := &handleTx{ctx: ctx, tx: tx}
		err := recordMembership(ctx, ht, u)
		if err == nil {
			err = fn(ctx, ht, u)
		}
		if err != nil {
			if ht.sp != nil {
				if rerr := ht.sp.Rollback(ctx); rerr != nil {
					return nil, fmt.Errorf("handle: roll back update %d: %w", *c.update, rerr)
				}
			}
			if errors.Is(err, bot.ErrAbandon) {
				return nil, err
			}
			h.Err = err
			continue
		}
		h.Err = nil
		h.Touched = queueOutbox(final, c.chat.Service, ht.reqs)
		doneServices = append(doneServices, int32(c.chat.Service))
		doneIDs = append(doneIDs, *c.update)
	}
	// Handled updates are deleted: the stored offset keeps Telegram from delivering them again.
	final.Queue(`DELETE FROM inbox WHERE (service_id, update_id) IN
		(SELECT * FROM unnest($1::int[], $2::bigint[]))`, doneServices, doneIDs)
	final.Queue("COMMIT")
	if err := tx.SendBatch(ctx, final).Close(); err != nil {
		return nil, fmt.Errorf("handle: commit: %w", err)
	}
	tx.closed = true
	return out, nil
}

// recordMembership records a user blocking the bot in their private chat, or unblocking it, in
// the update's transaction, before the update is handled. Only the user of the private chat the
// update is about is marked, and only when the update is about this bot's membership: a group's
// my_chat_member, one sent by someone else than the chat's user, or one about another member
// changes nobody.
func recordMembership(ctx context.Context, tx bot.Tx, u *bot.Update) error {
	m := u.MyChatMember
	if m == nil || m.Chat.Type != "private" || m.From.ID != m.Chat.ID || m.NewChatMember.User == nil {
		return nil
	}
	var blocked bool
	switch m.NewChatMember.Status {
	case "kicked":
		blocked = true
	case "member":
	default:
		return nil
	}
	var self int64
	err := tx.DB().QueryRow(ctx, `SELECT COALESCE(bot_user_id, 0) FROM service WHERE id = $1`, u.Service).Scan(&self)
	if err != nil {
		return fmt.Errorf("membership of user %d: %w", m.Chat.ID, err)
	}
	if m.NewChatMember.User.ID != self {
		return nil
	}
	return Users{}.SetBlocked(ctx, tx.DB(), m.Chat.ID, blocked)
}

// queueOutbox adds the insertion of reqs, in order, to b and returns the chats they are for.
func queueOutbox(b *pgx.Batch, service int, reqs []bot.Request) []bot.ChatKey {
	if len(reqs) == 0 {
		return nil
	}
	chats := make([]int64, len(reqs))
	methods := make([]string, len(reqs))
	params := make([]string, len(reqs))
	files := make([]*string, len(reqs))
	refs := make([]*string, len(reqs))
	targets := make([]*string, len(reqs))
	fallbacks := make([]*string, len(reqs))
	var touched []bot.ChatKey
	seen := map[int64]bool{}
	for i, r := range reqs {
		raw, _ := json.Marshal(r.Params) // a map of strings always marshals
		chats[i], methods[i], params[i] = r.ChatID, r.Method, string(raw)
		if r.FilePath != "" {
			files[i] = &r.FilePath
		}
		if r.Ref != "" {
			refs[i] = &r.Ref
		}
		if r.TargetRef != "" {
			targets[i] = &r.TargetRef
		}
		if len(r.OnFailure) > 0 {
			fallbacks[i] = onFailure(r.OnFailure)
		}
		if !seen[r.ChatID] {
			seen[r.ChatID] = true
			touched = append(touched, bot.ChatKey{Service: service, Chat: r.ChatID})
		}
	}
	b.Queue(`
		INSERT INTO outbox (service_id, chat_id, method, params, file_path, ref, target_ref, on_failure)
		SELECT $1, r.chat, r.method, r.params::jsonb, r.file, r.ref, r.target, r.fallback::jsonb
		FROM unnest($2::bigint[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[])
			WITH ORDINALITY AS r (chat, method, params, file, ref, target, fallback, n)
		ORDER BY r.n`, service, chats, methods, params, files, refs, targets, fallbacks)
	return touched
}

// onFailure is the stored form of a request's OnFailure: a JSON array of {method, params}.
func onFailure(reqs []bot.Request) *string {
	type fallback struct {
		Method string            `json:"method"`
		Params map[string]string `json:"params"`
	}
	list := make([]fallback, len(reqs))
	for i, r := range reqs {
		list[i] = fallback{Method: r.Method, Params: r.Params}
	}
	raw, _ := json.Marshal(list) // strings and maps of strings always marshal
	s := string(raw)
	return &s
}

// queueFallbacks queues, in b, the requests stored as the OnFailure of outbox row id, in the
// row's chat, and sets *queued when there were any.
func queueFallbacks(b *pgx.Batch, id int64, queued *bool) {
	b.Queue(`
		INSERT INTO outbox (service_id, chat_id, method, params)
		SELECT o.service_id, o.chat_id, f.req->>'method', f.req->'params'
		FROM outbox o, jsonb_array_elements(o.on_failure) WITH ORDINALITY AS f (req, n)
		WHERE o.id = $1
		ORDER BY f.n`, id).Exec(func(ct pgconn.CommandTag) error {
		*queued = *queued || ct.RowsAffected() > 0
		return nil
	})
}

// RecordFailure implements bot.Store.
func (s *Store) RecordFailure(ctx context.Context, chat bot.ChatKey, updateID int64, errText string, maxAttempts int, reply []bot.Request) (bool, error) {
	var gaveUp bool
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		err := tx.QueryRow(ctx, `
			UPDATE inbox SET attempts = attempts + 1, error = $3,
				handled_at = CASE WHEN attempts + 1 >= $4 THEN now() END
			WHERE service_id = $1 AND update_id = $2 AND handled_at IS NULL
			RETURNING handled_at IS NOT NULL`, chat.Service, updateID, errText, maxAttempts).Scan(&gaveUp)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		if err != nil || !gaveUp || len(reply) == 0 {
			return err
		}
		b := &pgx.Batch{}
		queueOutbox(b, chat.Service, reply)
		return tx.SendBatch(ctx, b).Close()
	})
	if err != nil {
		return false, fmt.Errorf("record failure of update %d: %w", updateID, err)
	}
	return gaveUp, nil
}

// Enqueue implements bot.Store.
func (s *Store) Enqueue(ctx context.Context, service int, reqs []bot.Request) ([]bot.ChatKey, error) {
	b := &pgx.Batch{}
	touched := queueOutbox(b, service, reqs)
	if err := s.pool.SendBatch(ctx, b).Close(); err != nil {
		return nil, fmt.Errorf("enqueue: %w", err)
	}
	return touched, nil
}

// jobTx is the bot.Tx of Run.
type jobTx struct {
	tx      pgx.Tx
	service int
	reqs    []bot.Request
}

func (t *jobTx) DB() pgx.Tx { return t.tx }

func (t *jobTx) Send(ctx context.Context, reqs ...bot.Request) error {
	if t.service == 0 && len(reqs) > 0 {
		return bot.ErrNoService
	}
	t.reqs = append(t.reqs, reqs...)
	return nil
}

// Run implements bot.Store.
func (s *Store) Run(ctx context.Context, service int, fn func(context.Context, bot.Tx) error) ([]bot.ChatKey, error) {
	var touched []bot.ChatKey
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		jt := &jobTx{tx: tx, service: service}
		if err := fn(ctx, jt); err != nil {
			return err
		}
		if len(jt.reqs) == 0 {
			return nil
		}
		b := &pgx.Batch{}
		touched = queueOutbox(b, service, jt.reqs)
		if err := tx.SendBatch(ctx, b).Close(); err != nil {
			return fmt.Errorf("enqueue: %w", err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return touched, nil
}

// PendingOutbox implements bot.Store.
func (s *Store) PendingOutbox(ctx context.Context, limit int) (map[bot.ChatKey]time.Time, error) {
	rows, err := s.pool.Query(ctx, `
		SELECT DISTINCT ON (service_id, chat_id) service_id, chat_id, not_before
		FROM outbox WHERE status = 'pending'
		ORDER BY service_id, chat_id, id LIMIT $1`, limit)
	if err != nil {
		return nil, fmt.Errorf("pending outbox: %w", err)
	}
	defer rows.Close()
	out := map[bot.ChatKey]time.Time{}
	for rows.Next() {
		var k bot.ChatKey
		var due time.Time
		if err := rows.Scan(&k.Service, &k.Chat, &due); err != nil {
			return nil, fmt.Errorf("pending outbox: %w", err)
		}
		out[k] = due
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("pending outbox: %w", err)
	}
	return out, nil
}

// sendClaimSQL claims the first pending row of each of a set of chats (arrays $1 of service ids
// and $2 of chat ids), with what is known of its file and the messages recorded under the ref it
// targets. A chat whose first row another process holds comes back without a row (busy).
const sendClaimSQL = `
	WITH k AS (
		SELECT * FROM unnest($1::int[], $2::bigint[]) AS k (service_id, chat_id)),
	h AS (
		SELECT o.service_id, o.chat_id, min(o.id) AS id, count(*) AS n
		FROM outbox o JOIN k USING (service_id, chat_id)
		WHERE o.status = 'pending' GROUP BY 1, 2),
	c AS (
		SELECT o.* FROM outbox o JOIN h ON o.id = h.id
		WHERE o.status = 'pending'
		FOR UPDATE OF o SKIP LOCKED)
	SELECT h.service_id, h.chat_id, h.n, c.id, c.method, c.params, c.file_path, c.attempts,
		c.created_at, c.not_before, f.file_id, f.size, f.mod_time, c.ref, c.target_ref,
		(SELECT array_agg(r.message_id ORDER BY r.sent_at, r.message_id) FROM sent_ref r
		 WHERE r.service_id = c.service_id AND r.chat_id = c.chat_id AND r.ref = c.target_ref)
	FROM h LEFT JOIN c ON c.id = h.id
	LEFT JOIN tg_file f ON f.service_id = c.service_id AND f.path = c.file_path`

// SendBatch implements bot.Store. It works on a connection of its own with the transaction
// statements pipelined (BEGIN with the claim, the records with COMMIT), so a batch costs two
// round trips to the database and one commit around the requests to Telegram.
func (s *Store) SendBatch(ctx context.Context, chats []bot.ChatKey, send func(context.Context, []*bot.OutboxRow) []bot.Outcome) ([]bot.SendResult, error) {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("send: %w", err)
	}
	// A connection released inside a transaction is closed by the pool, which rolls it back.
	defer conn.Release()
	rollback := func() { conn.Exec(context.WithoutCancel(ctx), "ROLLBACK") }
	services := make([]int32, len(chats))
	ids := make([]int64, len(chats))
	out := make([]bot.SendResult, len(chats))
	index := map[bot.ChatKey]int{}
	for i, c := range chats {
		services[i], ids[i] = int32(c.Service), c.Chat
		out[i] = bot.SendResult{Chat: c, Err: bot.ErrNoWork}
		index[c] = i
	}
	var rows []*bot.OutboxRow
	var rowIdx []int
	now := time.Now()
	b := &pgx.Batch{}
	b.Queue("BEGIN")
	b.Queue(sendClaimSQL, services, ids).Query(func(r pgx.Rows) error {
		for r.Next() {
			var svc int32
			var chat, n int64
			var id *int64
			var method, filePath, fileID *string
			var params []byte
			var attempts *int
			var created, due, fileMod *time.Time
			var fileSize *int64
			var ref, target *string
			var refIDs []int64
			if err := r.Scan(&svc, &chat, &n, &id, &method, &params, &filePath, &attempts, &created, &due, &fileID, &fileSize, &fileMod,
				&ref, &target, &refIDs); err != nil {
				return err
			}
			key := bot.ChatKey{Service: int(svc), Chat: chat}
			i := index[key]
			switch {
			case id == nil:
				out[i].Err = bot.ErrBusy
				continue
			case due.After(now):
				out[i].Due = *due
				continue
			}
			row := &bot.OutboxRow{ID: *id, Chat: key, Attempts: *attempts, Created: *created,
				Request: bot.Request{Method: *method, ChatID: chat}}
			if err := json.Unmarshal(params, &row.Request.Params); err != nil {
				return fmt.Errorf("decode row %d: %w", *id, err)
			}
			if ref != nil {
				row.Request.Ref = *ref
			}
			if target != nil {
				row.Request.TargetRef = *target
				for _, m := range refIDs {
					row.RefMessageIDs = append(row.RefMessageIDs, int(m))
				}
			}
			if filePath != nil {
				row.Request.FilePath = *filePath
				if fileID != nil {
					row.CachedFile = &bot.CachedFile{FileID: *fileID, Size: *fileSize, ModTime: *fileMod}
				}
			}
			out[i].More = n > 1
			rows = append(rows, row)
			rowIdx = append(rowIdx, i)
		}
		return r.Err()
	})
	if err := conn.SendBatch(ctx, b).Close(); err != nil {
		rollback()
		return nil, fmt.Errorf("send: claim: %w", err)
	}
	if len(rows) == 0 {
		rollback()
		return out, nil
	}
	outcomes := send(ctx, rows)
	b = &pgx.Batch{}
	for j, row := range rows {
		o := outcomes[j]
		out[rowIdx[j]].Err, out[rowIdx[j]].Outcome = nil, o
		chat := row.Chat
		switch o.Kind {
		case bot.OutcomeSent:
			b.Queue(`DELETE FROM outbox WHERE id = $1`, row.ID)
			if req := row.Request; req.Ref != "" && len(o.MessageIDs) > 0 {
				b.Queue(`
					INSERT INTO sent_ref (service_id, chat_id, ref, message_id)
					SELECT $1, $2, $3, unnest($4::bigint[]) ON CONFLICT DO NOTHING`,
					chat.Service, chat.Chat, req.Ref, o.MessageIDs)
			}
			if req := row.Request; req.TargetRef != "" && req.Method == "deleteMessage" {
				// The messages are gone: so is their record.
				b.Queue(`DELETE FROM sent_ref WHERE service_id = $1 AND chat_id = $2 AND ref = $3 AND message_id = ANY($4)`,
					chat.Service, chat.Chat, req.TargetRef, row.RefMessageIDs)
			}
			if f := o.Uploaded; f != nil {
				b.Queue(`
					INSERT INTO tg_file (service_id, path, size, mod_time, file_id) VALUES ($1, $2, $3, $4, $5)
					ON CONFLICT (service_id, path) DO UPDATE SET size = EXCLUDED.size,
						mod_time = EXCLUDED.mod_time, file_id = EXCLUDED.file_id`,
					chat.Service, row.Request.FilePath, f.Size, f.ModTime, f.FileID)
			}
		case bot.OutcomeDropped:
			b.Queue(`DELETE FROM outbox WHERE id = $1`, row.ID)
		case bot.OutcomeRetry:
			b.Queue(`UPDATE outbox SET attempts = attempts + 1, not_before = $2, last_error = $3 WHERE id = $1`,
				row.ID, o.RetryAt, o.Err)
		case bot.OutcomeFailed:
			b.Queue(`UPDATE outbox SET status = 'failed', failed_at = now(), attempts = attempts + 1, last_error = $2
				WHERE id = $1`, row.ID, o.Err)
			queueFallbacks(b, row.ID, &out[rowIdx[j]].More)
		case bot.OutcomeBlocked:
			b.Queue(`UPDATE users SET blocked_at = now() WHERE id = $1`, chat.Chat)
			b.Queue(`UPDATE outbox SET status = 'failed', failed_at = now(), last_error = $3
				WHERE service_id = $1 AND chat_id = $2 AND status = 'pending'`, chat.Service, chat.Chat, o.Err)
		}
	}
	b.Queue("COMMIT")
	// The records are written even when ctx was cancelled during the sends: Telegram has the
	// messages.
	if err := conn.SendBatch(context.WithoutCancel(ctx), b).Close(); err != nil {
		rollback()
		return nil, fmt.Errorf("send: record: %w", err)
	}
	return out, nil
}

// OutboxStats implements bot.Store.
func (s *Store) OutboxStats(ctx context.Context) (int64, time.Duration, error) {
	var n int64
	var age float64
	err := s.pool.QueryRow(ctx, `
		SELECT count(*), COALESCE(EXTRACT(epoch FROM now() - min(created_at)), 0)::float8
		FROM outbox WHERE status = 'pending'`).Scan(&n, &age)
	if err != nil {
		return 0, 0, fmt.Errorf("outbox stats: %w", err)
	}
	return n, time.Duration(age * float64(time.Second)), nil
}

// Cleanup implements bot.Store.
func (s *Store) Cleanup(ctx context.Context, age time.Duration) error {
	interval := strconv.FormatInt(int64(age/time.Second), 10) + " seconds"
	_, err := s.pool.Exec(ctx, `DELETE FROM inbox WHERE handled_at < now() - $1::interval`, interval)
	if err == nil {
		_, err = s.pool.Exec(ctx, `DELETE FROM sent_ref WHERE sent_at < now() - $1::interval`, interval)
	}
	if err != nil {
		return fmt.Errorf("cleanup: %w", err)
	}
	return nil
}
