package relay

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/questbot/questbot/bot"
	"github.com/questbot/questbot/bot/botpg"
)

// progressRef is the ref of a broadcast's message in its author's chat: the confirmation, then
// the progress, edited in place.
func progressRef(id int64) string { return "broadcast:" + strconv.FormatInt(id, 10) }

// recipientsSQL selects the users a broadcast is for, after its parameters: $1 the bot, $2 the
// time it started (who had joined by then; NULL: now), $3 its author (left out), $4 its language.
const recipientsSQL = `
	FROM user_service us JOIN users u ON u.id = us.user_id
	WHERE us.service_id = $1 AND us.joined_at <= COALESCE($2::timestamptz, now()) AND us.user_id <> $3
		AND relay_lang(u.language) = $4`

// countRecipients counts the users a broadcast started now is for. Those who blocked the bot are
// counted too, and reported as not reached, so that the admin sees them.
func countRecipients(ctx context.Context, db pgx.Tx, service int, author int64, lang string) (int, error) {
	var n int
	err := db.QueryRow(ctx, `SELECT count(*) `+recipientsSQL,
		service, nil, author, lang).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("relay: count recipients: %w", err)
	}
	return n, nil
}

// draft records an admin's text as a broadcast to confirm, and asks them.
func (r *Relay) draft(ctx context.Context, tx bot.Tx, u *bot.Update, t texts) error {
	db := tx.DB()
	lang := bot.Language(u.User.Language)
	n, err := countRecipients(ctx, db, u.Service, u.User.ID, lang)
	if err != nil {
		return err
	}
	if n == 0 {
		return say(ctx, tx, u.Chat, fmt.Sprintf(t.noOneElse, t.language[lang]))
	}
	rid, err := record(ctx, db, u, "broadcast", 0)
	if err != nil {
		return err
	}
	var id int64
	err = db.QueryRow(ctx, `
		INSERT INTO broadcast (service_id, relay_id, author_id, chat_id, lang, text)
		VALUES ($1, $2, $3, $4, $5, $6) RETURNING id`,
		u.Service, rid, u.User.ID, u.Chat, lang, u.Message.Text).Scan(&id)
	if err != nil {
		return fmt.Errorf("relay: record broadcast: %w", err)
	}
	kb := bot.Keyboard{{{Text: t.send, Data: button("send", id)}, {Text: t.cancel, Data: button("cancel", id)}}}
	reqs, err := bot.SendHTML(u.Chat, fmt.Sprintf(t.confirm, count(n), t.language[lang]), kb)
	if err != nil {
		return err
	}
	return tx.Send(ctx, bot.WithRef(progressRef(id), reqs...)...)
}

// broadcast is a broadcast row.
type broadcast struct {
	id, relay, author, chat int64
	service                 int
	lang, text, status      string
	total, queued, skipped  int
	started                 *time.Time
	cursor                  *int64
	exhausted               bool
	reported                *string
	reportedAt              *time.Time
}

const broadcastColumns = `id, service_id, relay_id, author_id, chat_id, lang, text, status, total, queued, skipped,
	started_at, cursor_id, exhausted, reported, reported_at`

func scanBroadcast(row pgx.Row) (*broadcast, error) {
	var b broadcast
	err := row.Scan(&b.id, &b.service, &b.relay, &b.author, &b.chat, &b.lang, &b.text, &b.status, &b.total,
		&b.queued, &b.skipped, &b.started, &b.cursor, &b.exhausted, &b.reported, &b.reportedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	return &b, err
}

// lockPressed locks the broadcast a button of the update's chat names, or returns nil when the
// bot has no such broadcast in this chat (an old or forged button).
func lockPressed(ctx context.Context, tx bot.Tx, u *bot.Update, id int64) (*broadcast, error) {
	b, err := scanBroadcast(tx.DB().QueryRow(ctx, `SELECT `+broadcastColumns+` FROM broadcast
		WHERE id = $1 AND service_id = $2 AND chat_id = $3 FOR UPDATE`, id, u.Service, u.Chat))
	if err != nil {
		return nil, fmt.Errorf("relay: broadcast %d: %w", id, err)
	}
	return b, nil
}

// confirm starts a draft broadcast: it goes to the users of its language who are there now.
func (r *Relay) confirm(ctx context.Context, tx bot.Tx, u *bot.Update, t texts, id int64) (string, error) {
	b, err := lockPressed(ctx, tx, u, id)
	if err != nil || b == nil || b.status != "draft" {
		return t.stale, err
	}
	// The users it is for are counted now, and those who join from now on are left out.
	db := tx.DB()
	var n int
	err = db.QueryRow(ctx, `UPDATE broadcast SET status = 'running', started_at = now(),
			total = (SELECT count(*) `+recipientsSQL+`)
		WHERE id = $5 RETURNING total`, b.service, nil, b.author, b.lang, id).Scan(&n)
	if err != nil {
		return "", fmt.Errorf("relay: start broadcast %d: %w", id, err)
	}
	bt := textsFor(b.lang)
	text := fmt.Sprintf(bt.progress, bt.language[b.lang], count(0), count(n))
	_, err = db.Exec(ctx, `UPDATE broadcast SET reported = $2, reported_at = now() WHERE id = $1`, id, text)
	if err != nil {
		return "", fmt.Errorf("relay: start broadcast %d: %w", id, err)
	}
	edit, err := bot.EditHTMLRef(b.chat, progressRef(id), text, stopKeyboard(bt, id))
	if err != nil {
		return "", err
	}
	return t.starting, tx.Send(ctx, edit)
}

func stopKeyboard(t texts, id int64) bot.Keyboard {
	return bot.Keyboard{{{Text: t.stop, Data: button("stop", id)}}}
}

// cancel drops a draft broadcast.
func (r *Relay) cancel(ctx context.Context, tx bot.Tx, u *bot.Update, t texts, id int64) (string, error) {
	b, err := lockPressed(ctx, tx, u, id)
	if err != nil || b == nil || b.status != "draft" {
		return t.stale, err
	}
	if _, err := tx.DB().Exec(ctx, `UPDATE broadcast SET status = 'cancelled', finished_at = now() WHERE id = $1`, id); err != nil {
		return "", fmt.Errorf("relay: cancel broadcast %d: %w", id, err)
	}
	bt := textsFor(b.lang)
	edit, err := bot.EditHTMLRef(b.chat, progressRef(id), bt.cancelled, nil)
	if err != nil {
		return "", err
	}
	return bt.cancelled, tx.Send(ctx, edit)
}

// stop ends a running broadcast: nobody else gets it, and its copies waiting in the outbox are
// taken out. A copy the sender is sending at this moment is waited for: it is then either sent (and
// counted) or taken out.
func (r *Relay) stop(ctx context.Context, tx bot.Tx, u *bot.Update, t texts, id int64) (string, error) {
	b, err := lockPressed(ctx, tx, u, id)
	if err != nil || b == nil || b.status != "running" {
		return t.stale, err
	}
	db := tx.DB()
	_, err = db.Exec(ctx, `DELETE FROM outbox WHERE ref = $1 AND status = 'pending'`, copyRef(b.relay))
	if err != nil {
		return "", fmt.Errorf("relay: stop broadcast %d: %w", id, err)
	}
	st, err := progressOf(ctx, db, b)
	if err != nil {
		return "", err
	}
	text := st.text(textsFor(b.lang), b, "stopped")
	_, err = db.Exec(ctx, `UPDATE broadcast SET status = 'stopped', finished_at = now(), reported = $2,
		reported_at = now() WHERE id = $1`, id, text)
	if err != nil {
		return "", fmt.Errorf("relay: stop broadcast %d: %w", id, err)
	}
	edit, err := bot.EditHTMLRef(b.chat, progressRef(id), text, nil)
	if err != nil {
		return "", err
	}
	return textsFor(b.lang).stoppedAck, tx.Send(ctx, edit)
}

// progress is how far a broadcast got.
type progress struct {
	sent      int // copies Telegram accepted
	failed    int // copies that failed for good (the user blocked the bot meanwhile)
	pending   int // outbox rows still waiting
	unreached int // skipped and failed
}

func progressOf(ctx context.Context, db pgx.Tx, b *broadcast) (progress, error) {
	var p progress
	ref := copyRef(b.relay)
	err := db.QueryRow(ctx, `SELECT
		(SELECT count(DISTINCT chat_id) FROM relay_copy WHERE relay_id = $1),
		(SELECT count(DISTINCT chat_id) FROM outbox WHERE ref = $2 AND status = 'failed'),
		(SELECT count(*) FROM outbox WHERE ref = $2 AND status = 'pending')`, b.relay, ref).
		Scan(&p.sent, &p.failed, &p.pending)
	if err != nil {
		return p, fmt.Errorf("relay: progress of broadcast %d: %w", b.id, err)
	}
	p.unreached = b.skipped + p.failed
	return p, nil
}

// text is the progress message of a broadcast in a state: "running", "done" or "stopped".
func (p progress) text(t texts, b *broadcast, state string) string {
	var s string
	switch state {
	case "running":
		return fmt.Sprintf(t.progress, t.language[b.lang], count(p.sent), count(b.total))
	case "done":
		s = fmt.Sprintf(t.done, count(p.sent), count(b.total))
	default:
		s = fmt.Sprintf(t.stopped, count(p.sent), count(b.total))
	}
	if p.unreached > 0 {
		s += fmt.Sprintf(t.unreached, count(p.unreached))
	}
	return s
}

// count writes a number with its thousands apart, as in "sent 1 200 of 5 000" (no-break spaces).
func count(n int) string {
	s := strconv.Itoa(n)
	if n < 0 {
		return s
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "\u00a0" + s[i:]
	}
	return s
}

// Run sends the running broadcasts until ctx is cancelled: every Tick, each moves on by one step
// (advance), and every hour old relay records are removed. Broadcasts are found in the database,
// so a restart continues them; two processes share them through row locks.
func (r *Relay) Run(ctx context.Context) {
	if r.cfg.Pool == nil {
		return
	}
	tick := time.NewTicker(r.cfg.Tick)
	defer tick.Stop()
	var cleaned time.Time
	for {
		r.step(ctx)
		if time.Since(cleaned) > time.Hour {
			if err := r.cleanup(ctx); err != nil && ctx.Err() == nil {
				r.log.Warn("Relay cleanup failed", slog.Any("error", err))
			}
			cleaned = time.Now()
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// step advances every running broadcast once.
func (r *Relay) step(ctx context.Context) {
	rows, err := r.cfg.Pool.Query(ctx, `SELECT id FROM broadcast WHERE status = 'running' ORDER BY id`)
	if err != nil {
		if ctx.Err() == nil {
			r.log.Warn("Broadcasts unreadable", slog.Any("error", err))
		}
		return
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		if ctx.Err() == nil {
			r.log.Warn("Broadcasts unreadable", slog.Any("error", err))
		}
		return
	}
	for _, id := range ids {
		if err := pgx.BeginFunc(ctx, r.cfg.Pool, func(tx pgx.Tx) error { return r.advance(ctx, tx, id) }); err != nil {
			if ctx.Err() != nil {
				return
			}
			r.log.Warn("Broadcast step failed", slog.Int64("broadcast_id", id), slog.Any("error", err))
		}
	}
}

// advance moves a running broadcast on, in one transaction: it queues the next users (as many as
// the window has room for) and moves the cursor past them, then reports the progress to the
// author when it is due, and finishes the broadcast once every copy has left the outbox. A
// broadcast another process is moving on is skipped.
func (r *Relay) advance(ctx context.Context, tx pgx.Tx, id int64) error {
	b, err := scanBroadcast(tx.QueryRow(ctx, `SELECT `+broadcastColumns+` FROM broadcast
		WHERE id = $1 AND status = 'running' FOR UPDATE SKIP LOCKED`, id))
	if err != nil || b == nil {
		return err
	}
	p, err := progressOf(ctx, tx, b)
	if err != nil {
		return err
	}
	var reqs []bot.Request
	if room := r.cfg.Window - p.pending; !b.exhausted && room > 0 {
		batch, err := r.queue(ctx, tx, b, room)
		if err != nil {
			return err
		}
		reqs = append(reqs, batch...)
		p.pending += len(batch)
	}
	state, status := "running", b.status
	if b.exhausted && p.pending == 0 {
		state, status = "done", "done"
	}
	t := textsFor(b.lang)
	text := p.text(t, b, state)
	due := b.reportedAt == nil || time.Since(*b.reportedAt) >= r.cfg.ReportEvery
	if (due || state == "done") && (b.reported == nil || *b.reported != text) {
		var kb bot.Keyboard
		if state == "running" {
			kb = stopKeyboard(t, b.id)
		}
		edit, err := bot.EditHTMLRef(b.chat, progressRef(b.id), text, kb)
		if err != nil {
			return err
		}
		reqs = append(reqs, edit)
		b.reported = &text
		now := time.Now()
		b.reportedAt = &now
	}
	if _, err := botpg.EnqueueTx(ctx, tx, b.service, reqs); err != nil {
		return err
	}
	_, err = tx.Exec(ctx, `UPDATE broadcast SET cursor_id = $2, queued = $3, skipped = $4, exhausted = $5,
		reported = $6, reported_at = $7, status = $8, finished_at = CASE WHEN $8 = 'done' THEN now() END
		WHERE id = $1`, b.id, b.cursor, b.queued, b.skipped, b.exhausted, b.reported, b.reportedAt, status)
	if err != nil {
		return fmt.Errorf("relay: broadcast %d: %w", b.id, err)
	}
	return nil
}

// queue returns the copies for the next n users of a broadcast after its cursor, and moves the
// cursor (in b) past them. Users who blocked the bot are passed over and counted.
func (r *Relay) queue(ctx context.Context, tx pgx.Tx, b *broadcast, n int) ([]bot.Request, error) {
	rows, err := tx.Query(ctx, `
		SELECT u.id, u.chat_id, u.is_admin, u.language, u.blocked_at IS NOT NULL `+recipientsSQL+`
			AND ($5::bigint IS NULL OR us.user_id > $5)
		ORDER BY us.user_id LIMIT $6`, b.service, b.started, b.author, b.lang, b.cursor, n)
	if err != nil {
		return nil, fmt.Errorf("relay: recipients of broadcast %d: %w", b.id, err)
	}
	type recipient struct {
		id, chat       int64
		admin, blocked bool
		lang           string
	}
	list, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (recipient, error) {
		var x recipient
		err := row.Scan(&x.id, &x.chat, &x.admin, &x.lang, &x.blocked)
		return x, err
	})
	if err != nil {
		return nil, fmt.Errorf("relay: recipients of broadcast %d: %w", b.id, err)
	}
	if len(list) < n {
		b.exhausted = true
	}
	var a *author
	var reqs []bot.Request
	for _, x := range list {
		b.cursor = &x.id
		if x.blocked {
			b.skipped++
			continue
		}
		if x.admin && a == nil {
			if a, err = authorByID(ctx, tx, b.author); err != nil {
				return nil, err
			}
		}
		var au author
		if a != nil {
			au = *a
		}
		text := copyText(x.admin, textsFor(bot.Language(x.lang)), au, nil, b.lang, b.text)
		parts, err := bot.SendHTML(x.chat, text, nil)
		if err != nil {
			return nil, err
		}
		reqs = append(reqs, bot.WithRef(copyRef(b.relay), parts...)...)
		b.queued++
	}
	return reqs, nil
}

func authorByID(ctx context.Context, tx pgx.Tx, id int64) (*author, error) {
	a := &author{id: id}
	var username *string
	err := tx.QueryRow(ctx, `SELECT chat_id, first_name, username FROM users WHERE id = $1`, id).
		Scan(&a.chat, &a.firstName, &username)
	if err != nil {
		return nil, fmt.Errorf("relay: author %d: %w", id, err)
	}
	if username != nil {
		a.username = *username
	}
	return a, nil
}

// cleanup removes the relay records older than Keep (replies to those copies then find nothing),
// and drafts nobody confirmed within a day.
func (r *Relay) cleanup(ctx context.Context) error {
	keep := strconv.FormatInt(int64(r.cfg.Keep/time.Second), 10) + " seconds"
	_, err := r.cfg.Pool.Exec(ctx, `DELETE FROM relay_message m WHERE m.created_at < now() - $1::interval
		AND NOT EXISTS (SELECT 1 FROM broadcast b WHERE b.relay_id = m.id AND b.status = 'running')`, keep)
	if err == nil {
		_, err = r.cfg.Pool.Exec(ctx, `UPDATE broadcast SET status = 'cancelled', finished_at = now()
			WHERE status = 'draft' AND created_at < now() - interval '1 day'`)
	}
	if err != nil {
		return fmt.Errorf("relay: cleanup: %w", err)
	}
	return nil
}
