package questplay

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/questbot/questbot/bot"
	"github.com/questbot/questbot/sessions/sessionpg"
)

// Doer runs work in a transaction of its own outside any update, whose messages go to the
// outbox of a bot (bot.Transport.Do).
type Doer interface {
	Do(ctx context.Context, service int, fn func(ctx context.Context, tx bot.Tx) error) error
}

// SessionsSpec is how often the sessions job runs.
const SessionsSpec = "@every 1s"

// keepEnded is how long an ended session is kept for its players still in their games.
const keepEnded = 7 * 24 * time.Hour

// maxSettle bounds the sessions one run settles; the rest wait for the next run.
const maxSettle = 500

// SettleSessions is the timer job of multiplayer quests (run on SessionsSpec): it settles every
// session whose deadline has passed or one of whose players' games is over, each in a
// transaction of its own that claims the session (FOR UPDATE SKIP LOCKED: a session another
// process holds is left to it), moves its waiting players on and writes their messages to the
// outbox. Deadlines are stored, so after a restart the first run settles whatever fell due
// meanwhile. It also forgets sessions that ended a week ago.
func (g *Games) SettleSessions(ctx context.Context, do Doer) error {
	var due []sessionpg.Due
	err := do.Do(ctx, 0, func(ctx context.Context, tx bot.Tx) error {
		if err := sessionpg.PurgeQuestSessions(ctx, tx.DB(), g.now().Add(-keepEnded)); err != nil {
			return err
		}
		var err error
		due, err = sessionpg.DueQuestSessions(ctx, tx.DB(), g.now(), maxSettle)
		return err
	})
	if err != nil {
		return err
	}
	var failed error
	for _, d := range due {
		err := do.Do(ctx, d.Service, func(ctx context.Context, tx bot.Tx) error {
			st := sessionpg.NewQuests(tx.DB())
			s, err := st.LockQuestSession(ctx, d.ID)
			if err != nil || s == nil {
				return err
			}
			rs, err := g.mp.Settle(ctx, st, s)
			if err != nil || len(rs) == 0 {
				return err
			}
			r := g.newRun(tx)
			r.queue = rs
			return r.finish(ctx)
		})
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err != nil {
			g.log.Error("A multiplayer session could not be settled", slog.Int64("session", d.ID), slog.Any("error", err))
			failed = errors.Join(failed, err)
		}
	}
	return failed
}
