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
	"github.com/questbot/questbot/bot/relay/relaypg"
	"github.com/questbot/questbot/bot/texts"
)

// progressRef is the ref of a broadcast's message in its author's chat: the confirmation, then
// the progress, edited in place.
func progressRef(id int64) string { return "broadcast:" + strconv.FormatInt(id, 10) }

// audience is the users a broadcast is for: those of its language who had joined its bot when it
// started (started nil: now), but its author.
func audience(service int, author int64, lang string, started *time.Time) botpg.Audience {
	return botpg.Audience{Service: service, Lang: lang, Except: author, Before: started}
}

// draft records an admin's text as a broadcast to confirm, and asks them.
func (r *Relay) draft(ctx context.Context, tx bot.Tx, u *bot.Update, t texts.Relay) error {
	db := tx.DB()
	lang := bot.Language(u.User.Language)
	// Those who blocked the bot are counted too, and reported as not reached, so that the admin
	// sees them.
	n, err := r.cfg.Users.CountAudience(ctx, db, audience(u.Service, u.User.ID, lang, nil))
	if err != nil {
		return fmt.Errorf("relay: %w", err)
	}
	if n == 0 {
		return say(ctx, tx, u.Chat, fmt.Sprintf(t.NoOneElse, t.Language[lang]))
	}
	rid, err := r.record(ctx, db, u, "broadcast", 0)
	if err != nil {
		return err
	}
	id, err := r.cfg.Store.AddBroadcast(ctx, db, relaypg.NewBroadcast{Service: u.Service, Relay: rid, Author: u.User.ID,
		Chat: u.Chat, Lang: lang, Text: u.Message.Text})
	if err != nil {
		return fmt.Errorf("relay: record broadcast: %w", err)
	}
	kb := bot.Keyboard{{{Text: t.Send, Data: button("send", id)}, {Text: t.Cancel, Data: button("cancel", id)}}}
	reqs, err := bot.SendHTML(u.Chat, fmt.Sprintf(t.Confirm, count(n), t.Language[lang]), kb)
	if err != nil {
		return err
	}
	return tx.Send(ctx, bot.WithRef(progressRef(id), reqs...)...)
}

// lockPressed locks the broadcast a button of the update's chat names, or returns nil when the
// bot has no such broadcast in this chat (an old or forged button).
func (r *Relay) lockPressed(ctx context.Context, tx bot.Tx, u *bot.Update, id int64) (*relaypg.Broadcast, error) {
	b, err := r.cfg.Store.LockInChat(ctx, tx.DB(), id, u.Service, u.Chat)
	if err != nil {
		return nil, fmt.Errorf("relay: broadcast %d: %w", id, err)
	}
	return b, nil
}

// confirm starts a draft broadcast: it goes to the users of its language who are there now.
func (r *Relay) confirm(ctx context.Context, tx bot.Tx, u *bot.Update, t texts.Relay, id int64) (string, error) {
	b, err := r.lockPressed(ctx, tx, u, id)
	if err != nil || b == nil || b.Status != "draft" {
		return t.Stale, err
	}
	// The users it is for are counted now, and those who join from now on are left out.
	db := tx.DB()
	n, err := r.cfg.Users.CountAudience(ctx, db, audience(b.Service, b.Author, b.Lang, nil))
	if err != nil {
		return "", fmt.Errorf("relay: %w", err)
	}
	if err := r.cfg.Store.Start(ctx, db, id, n); err != nil {
		return "", fmt.Errorf("relay: start broadcast %d: %w", id, err)
	}
	bt := texts.For(b.Lang).Relay
	text := fmt.Sprintf(bt.Progress, bt.Language[b.Lang], count(0), count(n))
	if err := r.cfg.Store.Reported(ctx, db, id, text); err != nil {
		return "", fmt.Errorf("relay: start broadcast %d: %w", id, err)
	}
	edit, err := bot.EditHTMLRef(b.Chat, progressRef(id), text, stopKeyboard(bt, id))
	if err != nil {
		return "", err
	}
	return t.Starting, tx.Send(ctx, edit)
}

func stopKeyboard(t texts.Relay, id int64) bot.Keyboard {
	return bot.Keyboard{{{Text: t.Stop, Data: button("stop", id)}}}
}

// cancel drops a draft broadcast.
func (r *Relay) cancel(ctx context.Context, tx bot.Tx, u *bot.Update, t texts.Relay, id int64) (string, error) {
	b, err := r.lockPressed(ctx, tx, u, id)
	if err != nil || b == nil || b.Status != "draft" {
		return t.Stale, err
	}
	if err := r.cfg.Store.Cancel(ctx, tx.DB(), id); err != nil {
		return "", fmt.Errorf("relay: cancel broadcast %d: %w", id, err)
	}
	bt := texts.For(b.Lang).Relay
	edit, err := bot.EditHTMLRef(b.Chat, progressRef(id), bt.Cancelled, nil)
	if err != nil {
		return "", err
	}
	return bt.Cancelled, tx.Send(ctx, edit)
}

// stop ends a running broadcast: nobody else gets it, and its copies waiting in the outbox are
// taken out. A copy the sender is sending at this moment is waited for: it is then either sent (and
// counted) or taken out.
func (r *Relay) stop(ctx context.Context, tx bot.Tx, u *bot.Update, t texts.Relay, id int64) (string, error) {
	b, err := r.lockPressed(ctx, tx, u, id)
	if err != nil || b == nil || b.Status != "running" {
		return t.Stale, err
	}
	db := tx.DB()
	if err := r.cfg.Outbox.CancelPending(ctx, db, b.Service, copyRef(b.Relay)); err != nil {
		return "", fmt.Errorf("relay: stop broadcast %d: %w", id, err)
	}
	st, err := r.progressOf(ctx, db, b)
	if err != nil {
		return "", err
	}
	text := st.text(texts.For(b.Lang).Relay, b, "stopped")
	if err := r.cfg.Store.Stop(ctx, db, id, text); err != nil {
		return "", fmt.Errorf("relay: stop broadcast %d: %w", id, err)
	}
	edit, err := bot.EditHTMLRef(b.Chat, progressRef(id), text, nil)
	if err != nil {
		return "", err
	}
	return texts.For(b.Lang).Relay.StoppedAck, tx.Send(ctx, edit)
}

// progress is how far a broadcast got.
type progress struct {
	sent      int // copies Telegram accepted
	failed    int // copies that failed for good (the user blocked the bot meanwhile)
	pending   int // outbox rows still waiting
	unreached int // skipped and failed
}

// progressOf reads how far a broadcast has gone: copies sent, failed and still pending.
func (r *Relay) progressOf(ctx context.Context, db pgx.Tx, b *relaypg.Broadcast) (p progress, err error) {
	// The outbox is read first: the sender moves a copy out of it and records it in relay_copy
	// in one transaction, which may commit between the two statements. Read in this order, a
	// copy no longer pending is counted as sent, so "no copy pending" means every copy is
	// counted; read the other way, a broadcast could finish reporting fewer copies than it sent.
	p.failed, p.pending, err = r.cfg.Outbox.RefCounts(ctx, db, b.Service, copyRef(b.Relay))
	if err == nil {
		p.sent, err = r.cfg.Store.Copies(ctx, db, b.Relay)
	}
	if err != nil {
		return p, fmt.Errorf("relay: progress of broadcast %d: %w", b.ID, err)
	}
	p.unreached = b.Skipped + p.failed
	return p, nil
}

// text is the progress message of a broadcast in a state: "running", "done" or "stopped".
func (p progress) text(t texts.Relay, b *relaypg.Broadcast, state string) string {
	var s string
	switch state {
	case "running":
		return fmt.Sprintf(t.Progress, t.Language[b.Lang], count(p.sent), count(b.Total))
	case "done":
		s = fmt.Sprintf(t.Done, count(p.sent), count(b.Total))
	default:
		s = fmt.Sprintf(t.Stopped, count(p.sent), count(b.Total))
	}
	if p.unreached > 0 {
		s += fmt.Sprintf(t.Unreached, count(p.unreached))
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

// Broadcast is the job that sends the running broadcasts (run on BroadcastSpec): each moves
// on by one step (advance), in a transaction of its own. Broadcasts are found in the database, so
// a restart continues them; two processes share them through row locks.
func (r *Relay) Broadcast(ctx context.Context, do Doer) error {
	var list []relaypg.Running
	err := do.Do(ctx, 0, func(ctx context.Context, tx bot.Tx) error {
		var err error
		list, err = r.cfg.Store.Running(ctx, tx.DB())
		return err
	})
	if err != nil {
		return fmt.Errorf("relay: broadcasts: %w", err)
	}
	var failed error
	for _, b := range list {
		err := do.Do(ctx, b.Service, func(ctx context.Context, tx bot.Tx) error { return r.advance(ctx, tx, b.ID) })
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err != nil {
			r.log.Warn("Broadcast step failed", slog.Int64("broadcast_id", b.ID), slog.Any("error", err))
			failed = errors.Join(failed, err)
		}
	}
	return failed
}

// advance moves a running broadcast on, in one transaction: it queues the next users (as many as
// the window has room for) and moves the cursor past them, then reports the progress to the
// author when it is due, and finishes the broadcast once every copy has left the outbox. A
// broadcast another process is moving on is skipped.
func (r *Relay) advance(ctx context.Context, tx bot.Tx, id int64) error {
	db := tx.DB()
	b, err := r.cfg.Store.LockRunning(ctx, db, id)
	if err != nil || b == nil {
		return err
	}
	p, err := r.progressOf(ctx, db, b)
	if err != nil {
		return err
	}
	var reqs []bot.Request
	if room := r.cfg.Window - p.pending; !b.Exhausted && room > 0 {
		batch, err := r.queue(ctx, db, b, room)
		if err != nil {
			return err
		}
		reqs = append(reqs, batch...)
		p.pending += len(batch)
	}
	state, status := "running", b.Status
	if b.Exhausted && p.pending == 0 {
		state, status = "done", "done"
	}
	t := texts.For(b.Lang).Relay
	text := p.text(t, b, state)
	due := b.ReportedAt == nil || time.Since(*b.ReportedAt) >= r.cfg.ReportEvery
	if (due || state == "done") && (b.Reported == nil || *b.Reported != text) {
		var kb bot.Keyboard
		if state == "running" {
			kb = stopKeyboard(t, b.ID)
		}
		edit, err := bot.EditHTMLRef(b.Chat, progressRef(b.ID), text, kb)
		if err != nil {
			return err
		}
		reqs = append(reqs, edit)
		b.Reported = &text
		now := time.Now()
		b.ReportedAt = &now
	}
	if err := tx.Send(ctx, reqs...); err != nil {
		return err
	}
	if err := r.cfg.Store.SaveProgress(ctx, db, b, status); err != nil {
		return fmt.Errorf("relay: broadcast %d: %w", b.ID, err)
	}
	return nil
}

// queue returns the copies for the next n users of a broadcast after its cursor, and moves the
// cursor (in b) past them. Users who blocked the bot are passed over and counted.
func (r *Relay) queue(ctx context.Context, tx pgx.Tx, b *relaypg.Broadcast, n int) ([]bot.Request, error) {
	list, err := r.cfg.Users.ListAudience(ctx, tx, audience(b.Service, b.Author, b.Lang, b.Started), b.Cursor, n)
	if err != nil {
		return nil, fmt.Errorf("relay: recipients of broadcast %d: %w", b.ID, err)
	}
	if len(list) < n {
		b.Exhausted = true
	}
	var a *author
	var reqs []bot.Request
	for _, x := range list {
		b.Cursor = &x.ID
		if x.Blocked {
			b.Skipped++
			continue
		}
		if x.Admin && a == nil {
			p, err := r.cfg.Users.Profile(ctx, tx, b.Author)
			if err != nil {
				return nil, fmt.Errorf("relay: author of broadcast %d: %w", b.ID, err)
			}
			a = &author{id: p.ID, chat: p.Chat, firstName: p.FirstName, username: p.Username}
		}
		var au author
		if a != nil {
			au = *a
		}
		text := copyText(x.Admin, texts.For(x.Lang).Relay, au, nil, b.Lang, b.Text)
		parts, err := bot.SendHTML(x.Chat, text, nil)
		if err != nil {
			return nil, err
		}
		reqs = append(reqs, bot.WithRef(copyRef(b.Relay), parts...)...)
		b.Queued++
	}
	return reqs, nil
}

// Cleanup is the job (run on CleanupSpec) that removes the relay records older than Keep
// (replies to those copies then find nothing), and cancels drafts nobody confirmed within a day.
func (r *Relay) Cleanup(ctx context.Context, do Doer) error {
	err := do.Do(ctx, 0, func(ctx context.Context, tx bot.Tx) error {
		err := r.cfg.Store.DeleteOld(ctx, tx.DB(), r.cfg.Keep)
		if err == nil {
			err = r.cfg.Store.CancelStale(ctx, tx.DB())
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("relay: cleanup: %w", err)
	}
	return nil
}
