package bot

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"os"
	"time"
)

// # Several processes on one database
//
// Any number of processes may run the transport on one database. Each process runs the stages
// its Role asks for:
//
//   - Receiving (RoleAll, RolePoller): one process at a time long-polls each bot, the holder of
//     the bot's poll lease (a row of poll_lease). The holder renews the lease every third of
//     Config.PollLease; the others try to take it every Config.PollLease/5, and do once it has
//     expired, so a holder that dies is replaced within about 1.2 × PollLease. A holder that
//     cannot renew before its lease runs out stops polling (the getUpdates in flight is cut
//     short) and competes again like the others. The new holder resumes at the offset the inbox
//     stored with the last batch, and the inbox ignores updates below the stored offset or still
//     in it, so a takeover, even one that overlaps a stalled holder's last poll, loses no update
//     and stores none twice. A holder stopping cleanly releases its leases, so another process
//     takes over at once. In webhook mode there is no lease: each receiving process sets the
//     webhook on start and accepts what Telegram posts to it (see webhook.go).
//   - Working (RoleAll, RoleWorker): every working process dispatches and sends. A process
//     that stored updates hands their chats to its own dispatcher at once; the others learn of
//     them from the store when it can say so across processes (InboxWatcher: PostgreSQL's
//     NOTIFY), else from their scan every Config.Rescan. The claims keep each chat's order and
//     make sure that no update is handled twice and no outbox row sent twice (see package doc
//     and bot/botpg).
//
// The lease's times, written and compared, are the transport's Clock's; its renewals and
// attempts run on real-time tickers, like the scans, so that a test's clock that stands still
// has no timer of the lease pending.

// Role is the part of the transport a process runs.
type Role int

// The roles.
const (
	// RoleAll receives updates (the long poll, under the lease, or the webhook), handles them and
	// sends the replies.
	RoleAll Role = iota
	// RolePoller only receives updates and stores them in the inbox.
	RolePoller
	// RoleWorker only handles updates and sends the replies; it receives nothing.
	RoleWorker
)

// String returns the role's name, as the --role flag spells it.
func (r Role) String() string {
	switch r {
	case RolePoller:
		return "poller"
	case RoleWorker:
		return "worker"
	}
	return "all"
}

// ParseRole reads a role's name: all, poller or worker.
func ParseRole(s string) (Role, error) {
	switch s {
	case "all", "":
		return RoleAll, nil
	case "poller":
		return RolePoller, nil
	case "worker":
		return RoleWorker, nil
	}
	return 0, fmt.Errorf("role must be all, poller or worker, not %q", s)
}

// Receives reports whether the role receives updates.
func (r Role) Receives() bool { return r != RoleWorker }

// Works reports whether the role handles updates and sends.
func (r Role) Works() bool { return r != RolePoller }

// DefaultPollLease is how long a poll lease lasts unless renewed (Config.PollLease).
const DefaultPollLease = 5 * time.Second

// InboxWatcher is implemented by a Store that can tell a process when any process stored
// updates, so that every working process takes its share at once rather than at its next scan.
type InboxWatcher interface {
	// WatchInbox calls wake whenever updates were stored, until ctx ends (it then returns
	// ctx's error) or the watch fails.
	WatchInbox(ctx context.Context, wake func()) error
}

// processName names this process in the lease rows: host, pid and a random part, so that two
// transports of one process (tests) are told apart too.
func processName() string {
	host, _ := os.Hostname()
	b := make([]byte, 4)
	rand.Read(b)
	return fmt.Sprintf("%s/%d/%s", host, os.Getpid(), hex.EncodeToString(b))
}

// lead long-polls bot b whenever this process holds its lease, until ctx ends.
func (t *Transport) lead(ctx context.Context, b *botEntry) {
	log := t.log.With(slog.Int("service_id", b.service))
	ttl := t.cfg.PollLease
	try := time.NewTicker(ttl / 5)
	defer try.Stop()
	for ctx.Err() == nil {
		until, offset, held, _ := t.takeLease(ctx, log, b)
		if held {
			log.Info("Polling: this process took the bot's poll lease", slog.Int64("offset", offset),
				slog.String("holder", t.holder))
			b.offset = offset
			t.pollHeld(ctx, log, b, until)
			if ctx.Err() != nil {
				// Stopping cleanly: another process takes over at once.
				rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), ttl)
				if err := t.cfg.Store.ReleasePollLease(rctx, b.service, t.holder); err != nil {
					log.Warn("The poll lease could not be released; another process takes it when it expires", slog.Any("error", err))
				}
				cancel()
				return
			}
			log.Warn("Polling stopped: the poll lease was lost (another process polls the bot now, or the database could not be reached)")
		}
		select {
		case <-ctx.Done():
		case <-try.C:
		}
	}
}

// takeLease takes or renews b's lease; it returns the lease's end and the offset to poll from
// when this process holds it. An error (logged) means the database could not say.
func (t *Transport) takeLease(ctx context.Context, log *slog.Logger, b *botEntry) (time.Time, int64, bool, error) {
	now := t.clock.Now()
	until := now.Add(t.cfg.PollLease)
	// The statement may take no longer than the lease: a renewal later than that is no use.
	qctx, cancel := context.WithTimeout(ctx, t.cfg.PollLease)
	defer cancel()
	held, offset, err := t.cfg.Store.TakePollLease(qctx, b.service, t.holder, now, until)
	if err != nil {
		if ctx.Err() == nil {
			log.Warn("Poll lease: the database could not be asked", slog.Any("error", err))
		}
		return time.Time{}, 0, false, err
	}
	return until, offset, held, nil
}

// pollHeld polls b while the lease (held until until) is renewed, and returns when it is lost
// or ctx ends.
func (t *Transport) pollHeld(ctx context.Context, log *slog.Logger, b *botEntry, until time.Time) {
	pctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan struct{})
	go func() {
		defer close(done)
		t.poll(pctx, b)
	}()
	renew := time.NewTicker(t.cfg.PollLease / 3)
	defer renew.Stop()
	for {
		select {
		case <-ctx.Done():
			<-done
			return
		case <-done:
			return
		case <-renew.C:
		}
		next, _, held, err := t.takeLease(pctx, log, b)
		switch {
		case held:
			until = next
		case err != nil && pctx.Err() == nil && t.clock.Now().Add(t.cfg.PollLease/3).Before(until):
			// The database did not answer, and the lease still runs past the next tick: try
			// again then.
		default:
			cancel()
			<-done
			return
		}
	}
}
