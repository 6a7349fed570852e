package boards

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/questbot/questbot/sessions/board"
)

// # Scheduled jobs
//
// The clocks are the server's: Deadlines ends the games whose player to move ran out of time,
// Reminders warns a correspondence player two hours before their deadline and a player with a
// clock of minutes when little of it is left (notify.go), Notify sends the notifications of
// pending moves whose delay has passed (notify.go), Cleanup closes the
// games nobody joined within a week (telling their creators), drops expired invites and removes
// old pictures; Think (ai.go) plays the bots' moves. Deadlines and reminders are data, so the
// first runs after a restart settle whatever fell due meanwhile.
//
// Each job finds its boards with the store's claims (FOR UPDATE SKIP LOCKED) in a transaction it
// then rolls back (a peek: the claims' own changes are undone), and settles each board in a
// transaction of its own, of the board's bot, which locks the board, checks again with the rules
// of package board (Expire, Remind, the waiting board's age) and commits the change with its
// messages. So two processes never settle a board twice, and a crash loses nothing: a board not
// settled is found again by the next run.

// Specs of the board games' scheduled jobs.
const (
	DeadlinesSpec = "@every 1s"
	RemindersSpec = "@every 10s"
	CleanupSpec   = "@every 1h"
)

// maxSettle bounds the boards one run of a job settles; the rest wait for the next run.
const maxSettle = 200

// errPeek rolls back a transaction that only looked.
var errPeek = errors.New("boards: peek")

// due is a board a job is to settle.
type due struct {
	id      int64
	service int
}

// peek runs a store's claim in a transaction it rolls back, and returns the boards it found.
func (b *Boards) peek(ctx context.Context, do Doer, claim func(ctx context.Context, st Store) ([]due, error)) ([]due, error) {
	var found []due
	err := do.Do(ctx, 0, func(ctx context.Context, tx Tx) error {
		var err error
		if found, err = claim(ctx, b.store(tx.DB())); err != nil {
			return err
		}
		return errPeek
	})
	if !errors.Is(err, errPeek) {
		return nil, err
	}
	return found, nil
}

// settle runs fn on each board in a transaction of its bot with the board locked, and returns
// the failures joined (each logged).
func (b *Boards) settle(ctx context.Context, do Doer, job string, boards []due, fn func(ctx context.Context, tx Tx, st Store, bd *board.Board) error) error {
	var failed error
	for _, d := range boards {
		err := do.Do(ctx, d.service, func(ctx context.Context, tx Tx) error {
			st := b.store(tx.DB())
			bd, err := st.Lock(ctx, d.id)
			if err != nil {
				return err
			}
			return fn(ctx, tx, st, bd)
		})
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err != nil {
			b.log.Error("A board could not be settled", slog.String("job", job), slog.Int64("board", d.id), slog.Any("error", err))
			failed = errors.Join(failed, fmt.Errorf("board %d: %w", d.id, err))
		}
	}
	return failed
}

// Deadlines is the job of the clocks (DeadlinesSpec): it ends every game whose player to move
// has run out of time (a loss, or a draw when the opponent could not have won) and tells both
// players.
func (b *Boards) Deadlines(ctx context.Context, do Doer) error {
	boards, err := b.peek(ctx, do, func(ctx context.Context, st Store) ([]due, error) {
		list, err := st.ClaimExpired(ctx, b.now(), maxSettle)
		out := make([]due, len(list))
		for i, bd := range list {
			out[i] = due{bd.ID, bd.Service}
		}
		return out, err
	})
	if err != nil {
		return fmt.Errorf("boards: deadlines: %w", err)
	}
	return b.settle(ctx, do, "deadlines", boards, func(ctx context.Context, tx Tx, st Store, bd *board.Board) error {
		ev, err := bd.Expire(b.now())
		if err != nil {
			return err
		}
		return b.commit(ctx, tx, st, bd, ev, NoSeat, ByClock)
	})
}

// Reminders is the job of the reminders (RemindersSpec): once a ply, when the player to move of
// a correspondence game has board.ReminderLead left, or the player to move of a game with a
// clock of minutes has a fifth of their main time or a minute left and has not touched the
// board at this ply (clockReminders), their board comes back to the bottom of their chat with
// the time left; changed in place for a player who wants no notifications.
func (b *Boards) Reminders(ctx context.Context, do Doer) error {
	return errors.Join(b.corrReminders(ctx, do), b.clockReminders(ctx, do))
}

// corrReminders reminds the correspondence players near their deadline.
func (b *Boards) corrReminders(ctx context.Context, do Doer) error {
	boards, err := b.peek(ctx, do, func(ctx context.Context, st Store) ([]due, error) {
		list, err := st.ClaimReminders(ctx, b.now(), maxSettle)
		out := make([]due, len(list))
		for i, r := range list {
			out[i] = due{r.Board, r.Service}
		}
		return out, err
	})
	if err != nil {
		return fmt.Errorf("boards: reminders: %w", err)
	}
	return b.settle(ctx, do, "reminders", boards, func(ctx context.Context, tx Tx, st Store, bd *board.Board) error {
		now := b.now()
		if !bd.Remind(now) {
			return nil // reminded already, or the player moved
		}
		if err := st.Save(ctx, bd); err != nil {
			return err
		}
		return b.remind(ctx, tx, bd, now)
	})
}

// Cleanup is the hourly clean-up (CleanupSpec): it closes the games that waited for an
// opponent longer than board.WaitingLifetime, telling their creators, deletes the expired
// invites and removes the pictures not used for Config.KeepPictures.
func (b *Boards) Cleanup(ctx context.Context, do Doer) error {
	// One instant for the whole run: the store's clean-up both closes the games that waited
	// too long and deletes the expired invites, so the invites are deleted only by a call that
	// finds no game left to close at that instant, lest a game close without a word to its
	// creator.
	now := b.now()
	var failed error
	// The games nobody joined, a batch at a time, each closed with a word to its creator.
	done := false
	for range maxCleanupRounds {
		stale, err := b.peek(ctx, do, func(ctx context.Context, st Store) ([]due, error) {
			list, _, err := st.Cleanup(ctx, now, maxSettle)
			out := make([]due, len(list))
			for i, bi := range list {
				out[i] = due{bi.ID, bi.Service}
			}
			return out, err
		})
		if err != nil {
			return fmt.Errorf("boards: cleanup: %w", err)
		}
		if len(stale) == 0 {
			done = true
			break
		}
		expire := func(ctx context.Context, tx Tx, st Store, bd *board.Board) error {
			return b.expireWaiting(ctx, tx, st, bd, now)
		}
		if err := b.settle(ctx, do, "cleanup", stale, expire); err != nil {
			failed = errors.Join(failed, err)
			break
		}
	}
	if done {
		// The invites that expired; no game is left to close at this instant.
		err := do.Do(ctx, 0, func(ctx context.Context, tx Tx) error {
			_, _, err := b.store(tx.DB()).Cleanup(ctx, now, maxSettle)
			return err
		})
		if err != nil {
			failed = errors.Join(failed, fmt.Errorf("boards: cleanup: %w", err))
		}
	}
	if n, err := b.pics.sweep(); err != nil {
		failed = errors.Join(failed, err)
	} else if n > 0 {
		b.log.Info("Old board pictures removed", slog.Int("files", n))
	}
	return failed
}

// maxCleanupRounds bounds the batches of waiting games one clean-up closes.
const maxCleanupRounds = 10

// expireWaiting closes a game that has waited for an opponent too long at now; the views tell
// its creator.
func (b *Boards) expireWaiting(ctx context.Context, tx Tx, st Store, bd *board.Board, now time.Time) error {
	if bd.Status != board.Waiting || now.Sub(bd.Created) <= board.WaitingLifetime {
		return nil
	}
	ev, err := bd.Cancel(bd.Creator, now)
	if err != nil {
		return err
	}
	return b.commit(ctx, tx, st, bd, ev, NoSeat, ByClock)
}
