// Package botpg keeps the Telegram transport's state in PostgreSQL: the bots (service), the users,
// the inbox of updates and the outbox of requests. It implements [bot.Store]. It also keeps the
// users' credentials for the web game server, the login tickets, sessions and API tokens
// (Credentials, credentials.go), which both views of the board games use.
//
// Claims are made so that several processes can share one database: a worker takes the first
// row of a chat with FOR UPDATE SKIP LOCKED on exactly that row, so when another process holds
// it the chat is skipped as busy instead of its second row being taken out of order. A row
// another process handled and removed meanwhile is skipped too (FOR UPDATE rechecks it), so the
// claim never takes the row after it while the first one is not committed as done: an update is
// handled, and an outbox row sent, by one process at a time and, once done, never again.
//
// A request that carries a secret names it in outbox.secrets; when it fails for good its
// parameters are withheld and the credential recorded in outbox_secret_failure, in the same
// transaction (secret.go).
//
// Each process long-polls only the bots whose poll lease (table poll_lease, lease.go) it
// holds; stored batches are announced to every process with NOTIFY (WatchInbox).
//
// Nothing here needs a session of its own except WatchInbox: no prepared statement is named, no
// advisory lock outlives its transaction, and SET is not used, so the pool may go through
// PgBouncer in transaction mode (with pgx's statement cache off, which cmd/questbot configures).
package botpg

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync/atomic"
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
	// listen is the connection settings of WatchInbox; nil: the pool's.
	listen *pgx.ConnConfig
	// superseded counts the outbox rows dropped for newer states (SupersededTotal).
	superseded atomic.Int64
	// id names this store in the notifications of stored updates, so that its own WatchInbox,
	// whose process was told of those updates already, ignores them.
	id string
	// seal seals the secrets of the requests it queues and opens those it claims (seal.go).
	seal *sealer
}

var _ bot.InboxWatcher = (*Store)(nil)

// New returns a store on pool.
func New(pool *pgxpool.Pool) *Store { return &Store{pool: pool, id: rand.Text(), seal: newSealer()} }

// WithSealKey makes the store seal the secrets of the requests it queues with key (TOKEN_KEY)
// rather than with a random key of its own, so that any process with the key opens the rows
// another queued (seal.go). It returns s.
func (s *Store) WithSealKey(key *TokenKey) *Store {
	if key != nil {
		s.seal = &sealer{aead: key.aead}
	}
	return s
}

// SupersededTotal returns how many pending outbox rows this store has dropped because a newer
// state of their object was queued (counted when the statement ran; a transaction rolled back
// afterwards is counted too).
func (s *Store) SupersededTotal() int64 { return s.superseded.Load() }

// WithListener makes WatchInbox connect with the settings of pool rather than the store's: a
// connection with session semantics when the store's pool goes through PgBouncer in
// transaction mode. It returns s.
func (s *Store) WithListener(pool *pgxpool.Pool) *Store {
	s.listen = pool.Config().ConnConfig
	return s
}

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
	post []func() // AfterCommit
	// secrets are the secrets the handler keeps (bot.KeepSecret, secret.go).
	secrets []bot.Secret
	// final are the writes the handler queued for the COMMIT (AtCommit).
	final []finalWrite
}

// finalWrite is a statement queued for a transaction's COMMIT (bot.Tx.AtCommit).
type finalWrite struct {
	sql  string
	args []any
}

// queueFinal adds the writes queued for the COMMIT to its batch.
func queueFinal(b *pgx.Batch, ws []finalWrite) {
	for _, w := range ws {
		b.Queue(w.sql, w.args...)
	}
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

func (t *handleTx) AfterCommit(fn func()) { t.post = append(t.post, fn) }

func (t *handleTx) AtCommit(sql string, args ...any) {
	t.final = append(t.final, finalWrite{sql, args})
}

// claimSQL claims the first unhandled update of each of a set of chats (arrays $1 of service ids
// and $2 of chat ids) and records their senders, in one statement: a new user gets Telegram's
// language, and the admin role when the configuration names them (configured_admin, ADMINS), so
// that their first update is already an admin's; a known one has their names refreshed and, when
// the update comes from their private chat with the bot (a message, or a press under one of its
// messages there), is no longer blocked: they reached the bot there. Writing in a group, or an
// inline query, says nothing of the private chat, which stays as it was.
// A known user's row is only rewritten when something changed or last_seen_at is a minute old,
// which spares a write per update to someone chatting. A chat whose first update another process
// holds comes back without an update (busy).
//
// The claim deletes the update it takes, which locks it as FOR UPDATE would until the
// transaction ends, and spares a lock and a deletion of its own: an update whose handler
// succeeds is gone when the transaction commits, and one whose handler fails is put back as it
// was (restoreInboxSQL) in the same transaction, so that no other process ever sees it missing.
const claimSQL = `
	WITH k AS (
		SELECT * FROM unnest($1::int[], $2::bigint[]) AS k (service_id, chat_id)),
	h AS (
		SELECT i.service_id, i.chat_id, min(i.update_id) AS id, count(*) AS n
		FROM inbox i JOIN k USING (service_id, chat_id)
		WHERE i.handled_at IS NULL GROUP BY 1, 2),
	c AS (
		DELETE FROM inbox d WHERE (d.service_id, d.update_id) IN (
			SELECT i.service_id, i.update_id
			FROM inbox i JOIN h ON i.service_id = h.service_id AND i.update_id = h.id
			WHERE i.handled_at IS NULL
			FOR UPDATE OF i SKIP LOCKED)
		RETURNING d.service_id, d.update_id, d.chat_id, d.payload, d.sender, d.received_at, d.attempts, d.error,
			(d.sender->>'id')::bigint AS uid,
			COALESCE(d.payload #>> '{message,chat,type}', d.payload #>> '{edited_message,chat,type}',
				d.payload #>> '{callback_query,message,chat,type}') = 'private' AS private),
` + recordSendersSQL + `
	SELECT h.service_id, h.chat_id, h.n, c.update_id, c.payload, c.sender, c.received_at, c.attempts, c.error,
		uk.chat_id, uk.language, uk.is_admin
	FROM h LEFT JOIN c ON c.service_id = h.service_id AND c.update_id = h.id
	LEFT JOIN uk ON uk.id = c.uid`

// recordSendersSQL records the senders of a set of updates, the CTE c (columns service_id, uid,
// sender and private, whether the update comes from the sender's private chat with the bot), as
// claimSQL describes, and reads them as uk (id, chat_id, language, is_admin): the CTEs that
// follow c in claimSQL and freshSQL.
const recordSendersSQL = `
	u AS (
		INSERT INTO users AS old (id, chat_id, username, first_name, last_name, language, is_admin)
		SELECT DISTINCT ON (uid) uid, uid, sender->>'username', COALESCE(sender->>'first_name', ''),
			sender->>'last_name', COALESCE(NULLIF(sender->>'language_code', ''), 'en'),
			EXISTS (SELECT FROM configured_admin a WHERE a.user_id = uid)
		FROM c WHERE uid IS NOT NULL ORDER BY uid
		ON CONFLICT (id) DO UPDATE SET username = EXCLUDED.username,
			first_name = EXCLUDED.first_name, last_name = EXCLUDED.last_name,
			last_seen_at = now(),
			blocked_at = CASE WHEN EXISTS (SELECT FROM c WHERE c.uid = old.id AND c.private) THEN NULL
				ELSE old.blocked_at END
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
	uk AS (SELECT * FROM u UNION ALL SELECT * FROM kn)`

// restoreInboxSQL puts back the updates a claim took whose handlers failed, as they were (arrays:
// $1 service ids, $2 update ids, $3 chats, $4 payloads, $5 senders, $6 received_at, $7 attempts,
// $8 errors), for RecordFailure to count the attempt and the scan to try them again.
const restoreInboxSQL = `
	INSERT INTO inbox (service_id, update_id, chat_id, payload, sender, received_at, attempts, error)
	SELECT * FROM unnest($1::int[], $2::bigint[], $3::bigint[], $4::jsonb[], $5::jsonb[], $6::timestamptz[],
		$7::int[], $8::text[])`

// claimedUpdate is a row of claimSQL: a chat, and its first update when it was claimed.
type claimedUpdate struct {
	chat            bot.ChatKey
	n               int64
	update          *int64
	payload, sender []byte
	received        *time.Time
	attempts        *int32
	errText         *string
	// user is the update's sender as recorded (none for an update without one).
	user senderRow
}

// senderRow is an update's sender as a claim (or freshSQL) records and reads it: nil when the
// update has no sender, or when the row was inserted by a concurrent transaction that committed
// after the statement's snapshot was taken.
type senderRow struct {
	chat  *int64
	lang  *string
	admin *bool
}

// user returns the sender of u as bot.User, reading the row again when the statement that
// recorded it could not see it (a new statement does); nil for an update without a sender.
func (r senderRow) user(ctx context.Context, tx pgx.Tx, u *bot.Update) (*bot.User, error) {
	from := u.SentFrom()
	if from == nil {
		return nil, nil
	}
	if r.chat == nil {
		err := tx.QueryRow(ctx, `SELECT chat_id, language, is_admin FROM users WHERE id = $1`, from.ID).
			Scan(&r.chat, &r.lang, &r.admin)
		if err != nil {
			return nil, fmt.Errorf("read user %d: %w", from.ID, err)
		}
	}
	return &bot.User{ID: from.ID, ChatID: *r.chat, Username: from.UserName, FirstName: from.FirstName,
		Language: *r.lang, IsAdmin: *r.admin}, nil
}

// inboxRows are claimed updates as the columns of restoreInboxSQL.
type inboxRows struct {
	services, attempts []int32
	ids, chats         []int64
	payloads, senders  [][]byte
	received           []time.Time
	errs               []*string
}

func (r *inboxRows) add(c claimedUpdate) {
	r.services = append(r.services, int32(c.chat.Service))
	r.ids = append(r.ids, *c.update)
	r.chats = append(r.chats, c.chat.Chat)
	r.payloads = append(r.payloads, c.payload)
	r.senders = append(r.senders, c.sender)
	r.received = append(r.received, *c.received)
	r.attempts = append(r.attempts, *c.attempts)
	r.errs = append(r.errs, c.errText)
}

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
	var rows []claimedUpdate
	claim := &pgx.Batch{}
	claim.Queue("BEGIN")
	claim.Queue(claimSQL, services, ids).Query(func(r pgx.Rows) error {
		for r.Next() {
			var c claimedUpdate
			var svc int32
			if err := r.Scan(&svc, &c.chat.Chat, &c.n, &c.update, &c.payload, &c.sender, &c.received, &c.attempts,
				&c.errText, &c.user.chat, &c.user.lang, &c.user.admin); err != nil {
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
	bh := s.newBatchHandling(ctx, tx)
	// The updates claimed but not handled, to put back.
	var failed inboxRows
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
			failed.add(c)
			continue
		}
		user, err := c.user.user(ctx, tx, u)
		if err != nil {
			return nil, fmt.Errorf("handle: %w", err)
		}
		u.User = user
		h.Update = u
		touched, err := bh.run(u, fn)
		var fatal *batchError
		switch {
		case errors.As(err, &fatal):
			return nil, fatal.err
		case err != nil:
			h.Err = err
			failed.add(c)
			continue
		}
		h.Err = nil
		h.Touched = touched
	}
	final := bh.finish()
	// Handled updates stay deleted by their claim: the stored offset keeps Telegram from
	// delivering them again. The others are put back.
	if len(failed.ids) > 0 {
		final.Queue(restoreInboxSQL, failed.services, failed.ids, failed.chats, failed.payloads, failed.senders,
			failed.received, failed.attempts, failed.errs)
	}
	final.Queue("COMMIT")
	if err := tx.SendBatch(ctx, final).Close(); err != nil {
		return nil, fmt.Errorf("handle: commit: %w", err)
	}
	tx.closed = true
	bh.committed()
	return out, nil
}

// batchHandling gathers what the handlers of the updates of one transaction leave for its end:
// the writes they queued for the COMMIT (bot.Tx.AtCommit), their requests (written in as few
// statements as their order allows, see outboxWriter), the marks of their secrets after them
// (queueSecrets), and the functions to call once it commits.
type batchHandling struct {
	ctx     context.Context
	tx      *pipeTx
	final   *pgx.Batch
	writes  []finalWrite
	outbox  *outboxWriter
	secrets []func()
	post    []func()
	// seal is the store's sealer.
	seal *sealer
}

func (s *Store) newBatchHandling(ctx context.Context, tx *pipeTx) *batchHandling {
	final := &pgx.Batch{}
	return &batchHandling{ctx: ctx, tx: tx, final: final, outbox: s.outboxWriter(final), seal: s.seal}
}

// batchError is an error that ends the whole transaction, not only one update's handling.
type batchError struct{ err error }

func (e *batchError) Error() string { return e.err.Error() }

// run handles u with fn, behind a savepoint of its own once fn touches the database, and returns
// the lanes of the chats its requests are queued in. A failing handler's statements are rolled
// back and its error returned, the other updates of the transaction untouched; an error the
// transaction cannot go on after (the rollback failing, or bot.ErrAbandon) comes as a
// *batchError.
func (b *batchHandling) run(u *bot.Update, fn bot.Handler) ([]bot.ChatKey, error) {
	ht := &handleTx{ctx: b.ctx, tx: b.tx}
	err := recordMembership(b.ctx, ht, u)
	if err == nil {
		err = fn(b.ctx, ht, u)
	}
	if err != nil {
		if ht.sp != nil {
			if rerr := ht.sp.Rollback(b.ctx); rerr != nil {
				return nil, &batchError{fmt.Errorf("handle: roll back update %d: %w", u.UpdateID, rerr)}
			}
		}
		if errors.Is(err, bot.ErrAbandon) {
			return nil, &batchError{err}
		}
		return nil, err
	}
	b.post = append(b.post, ht.post...)
	b.writes = append(b.writes, ht.final...)
	reqs := ht.reqs
	if hasSecrets(reqs, ht.secrets) {
		reqs = b.seal.seal(reqs, ht.secrets)
		service, sealed := u.Service, reqs
		b.secrets = append(b.secrets, func() { queueSecrets(b.final, service, sealed, nil) })
	}
	return b.outbox.add(u.Service, reqs, u.Chat), nil
}

// finish queues the handled updates' writes and returns the batch the transaction's last
// statements and its COMMIT are to be added to.
func (b *batchHandling) finish() *pgx.Batch {
	queueFinal(b.final, b.writes)
	b.outbox.flush()
	for _, q := range b.secrets {
		q()
	}
	return b.final
}

// committed calls the handlers' AfterCommit functions, in order.
func (b *batchHandling) committed() {
	for _, fn := range b.post {
		fn()
	}
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
	return Users{}.setBlocked(ctx, tx.DB(), m.Chat.ID, blocked)
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
		s.queueOutbox(b, chat.Service, reply, 0)
		return tx.SendBatch(ctx, b).Close()
	})
	if err != nil {
		return false, fmt.Errorf("record failure of update %d: %w", updateID, err)
	}
	return gaveUp, nil
}

// jobTx is the bot.Tx of Run.
type jobTx struct {
	tx      pgx.Tx
	service int
	reqs    []bot.Request
	post    []func() // AfterCommit
	secrets []bot.Secret
	final   []finalWrite // AtCommit
}

func (t *jobTx) DB() pgx.Tx { return t.tx }

func (t *jobTx) AfterCommit(fn func()) { t.post = append(t.post, fn) }

func (t *jobTx) AtCommit(sql string, args ...any) {
	t.final = append(t.final, finalWrite{sql, args})
}

func (t *jobTx) Send(ctx context.Context, reqs ...bot.Request) error {
	if t.service == 0 && len(reqs) > 0 {
		return bot.ErrNoService
	}
	t.reqs = append(t.reqs, reqs...)
	return nil
}

// Run implements bot.Store. The requests fn sends and the writes it queues for the COMMIT
// (bot.Tx.AtCommit) are written with the transaction's COMMIT, in one pipeline (see pipeTx): a
// job's or a web request's messages cost no round trip to the database of their own.
func (s *Store) Run(ctx context.Context, service int, fn func(context.Context, bot.Tx) error) ([]bot.ChatKey, error) {
	pc, err := s.pool.Acquire(ctx)
	if err != nil {
		return nil, err
	}
	// A connection released inside a transaction is closed by the pool, which rolls it back.
	defer pc.Release()
	tx := &pipeTx{conn: pc.Conn()}
	defer func() {
		if !tx.closed {
			tx.Rollback(context.WithoutCancel(ctx))
		}
	}()
	if _, err := tx.conn.Exec(ctx, "BEGIN"); err != nil {
		return nil, err
	}
	jt := &jobTx{tx: tx, service: service}
	if err := fn(ctx, jt); err != nil {
		return nil, err
	}
	var touched []bot.ChatKey
	final := &pgx.Batch{}
	queueFinal(final, jt.final)
	if len(jt.reqs) > 0 {
		reqs := s.seal.seal(jt.reqs, jt.secrets)
		touched = s.queueOutbox(final, service, reqs, 0)
		queueSecrets(final, service, reqs, nil)
	}
	final.Queue("COMMIT").Exec(func(ct pgconn.CommandTag) error {
		if ct.String() == "ROLLBACK" {
			return pgx.ErrTxCommitRollback // a statement failed in a savepoint not rolled back to
		}
		return nil
	})
	if err := tx.SendBatch(ctx, final).Close(); err != nil {
		if len(jt.reqs) > 0 {
			return nil, fmt.Errorf("enqueue: %w", err)
		}
		return nil, err
	}
	tx.closed = true
	for _, fn := range jt.post {
		fn()
	}
	return touched, nil
}

// Cleanup implements bot.Store.
func (s *Store) Cleanup(ctx context.Context, age time.Duration) error {
	_, err := s.pool.Exec(ctx, `DELETE FROM inbox WHERE handled_at < now() - $1::interval`, interval(age))
	if err == nil {
		_, err = s.pool.Exec(ctx, `DELETE FROM sent_ref WHERE sent_at < now() - $1::interval`, interval(age))
	}
	if err == nil {
		// Telegram gives up an undelivered update after 24 hours: no copy of an older one comes.
		_, err = s.pool.Exec(ctx, `DELETE FROM inbox_seen WHERE received_at < now() - interval '24 hours'`)
	}
	if err == nil {
		err = s.cleanupSecrets(ctx, interval(age))
	}
	if err == nil {
		err = purgeWebAppData(ctx, s.pool, time.Now())
	}
	if err != nil {
		return fmt.Errorf("cleanup: %w", err)
	}
	return nil
}

// WebhookSecret implements bot.Store.
func (s *Store) WebhookSecret(ctx context.Context, service int, fresh string) (string, error) {
	var secret string
	err := s.pool.QueryRow(ctx, `
		UPDATE service SET webhook_secret = COALESCE(webhook_secret, NULLIF($2, ''))
		WHERE id = $1 RETURNING COALESCE(webhook_secret, '')`, service, fresh).Scan(&secret)
	if err != nil {
		return "", fmt.Errorf("webhook secret: %w", err)
	}
	return secret, nil
}

// interval is a duration as a PostgreSQL interval literal, to whole seconds.
func interval(d time.Duration) string {
	return strconv.FormatInt(int64(d/time.Second), 10) + " seconds"
}
