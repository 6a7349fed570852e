package multiplayer

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/questbot/questbot/bot"
	"github.com/questbot/questbot/bot/botpg"
)

// Resumer moves waiting players' games on (bot/questplay implements it): for each Resume, write
// its values into the game's parameters, take the multiplayer jump the game waits at, remove the
// waiting message, tell the notice and show the new screen, all through tx. A game that is no
// longer at that jump is left alone.
type Resumer interface {
	Resume(ctx context.Context, tx bot.Tx, rs []Resume) error
}

// DefaultInterval is how often Run looks for work.
const DefaultInterval = time.Second

// keepEnded is how long an ended session is kept for its players still in their games.
const keepEnded = 7 * 24 * time.Hour

// maxPerTick bounds the sessions one pass settles; the rest wait for the next pass.
const maxPerTick = 500

// Run settles the sessions that need it (Tick) every interval until ctx is done.
func (m *Manager) Run(ctx context.Context, pool *pgxpool.Pool, r Resumer, every time.Duration) {
	if every <= 0 {
		every = DefaultInterval
	}
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		if _, err := m.Tick(ctx, pool, r); err != nil && ctx.Err() == nil {
			m.log.Error("Multiplayer sessions could not be settled", slog.Any("error", err))
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// dueSQL finds the sessions to settle: those whose deadline has passed, and those with a player
// whose game is over (ended, cancelled or replaced by another).
const dueSQL = `
	SELECT id FROM quest_session WHERE state <> 'ended' AND deadline <= $1
	UNION
	SELECT p.session_id FROM quest_session_player p
	WHERE NOT EXISTS (SELECT 1 FROM game g
		WHERE g.service_id = p.service_id AND g.user_id = p.user_id AND g.game_id = p.game_id)
	LIMIT $2`

// Tick settles, once, every session whose deadline has passed or one of whose players' games is
// over, each in a transaction of its own that also resumes its waiting players through r and
// writes their messages to the outbox. Sessions another transaction holds are left for the next
// pass. It returns how many sessions it settled.
func (m *Manager) Tick(ctx context.Context, pool *pgxpool.Pool, r Resumer) (int, error) {
	now := m.now()
	if _, err := pool.Exec(ctx, `DELETE FROM quest_session WHERE state = 'ended' AND ended_at < $1`, now.Add(-keepEnded)); err != nil {
		return 0, fmt.Errorf("multiplayer: clean up: %w", err)
	}
	rows, err := pool.Query(ctx, dueSQL, now, maxPerTick)
	if err != nil {
		return 0, fmt.Errorf("multiplayer: due sessions: %w", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return 0, fmt.Errorf("multiplayer: due sessions: %w", err)
	}
	n := 0
	for _, id := range ids {
		err := pgx.BeginFunc(ctx, pool, func(db pgx.Tx) error {
			rs, err := m.settle(ctx, db, id, now)
			if err != nil || len(rs) == 0 {
				return err
			}
			// A session's players are all of one bot.
			tx := &jobTx{db: db, service: rs[0].Service}
			if err := r.Resume(ctx, tx, rs); err != nil {
				return err
			}
			return tx.flush(ctx)
		})
		if err != nil {
			if ctx.Err() != nil {
				return n, ctx.Err()
			}
			m.log.Error("A multiplayer session could not be settled", slog.Int64("session", id), slog.Any("error", err))
			continue
		}
		n++
	}
	return n, nil
}

// settle settles one session under its lock: players whose games are over leave it, then a
// passed deadline starts an open session that has its minimum or ends it, and ends a session
// whose round was missed. It returns the players to resume.
func (m *Manager) settle(ctx context.Context, db pgx.Tx, id int64, now time.Time) ([]Resume, error) {
	s, err := lockSession(ctx, db, id, true)
	if err != nil || s == nil {
		return nil, err
	}
	var rs []Resume
	for {
		// One at a time: a player leaving an open session renumbers the others.
		var game int64
		err := db.QueryRow(ctx, `
			SELECT p.game_id FROM quest_session_player p
			WHERE p.session_id = $1 AND NOT EXISTS (SELECT 1 FROM game g
				WHERE g.service_id = p.service_id AND g.user_id = p.user_id AND g.game_id = p.game_id)
			ORDER BY p.num LIMIT 1`, s.id).Scan(&game)
		if errors.Is(err, pgx.ErrNoRows) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("multiplayer: settle: %w", err)
		}
		ps, err := players(ctx, db, s.id)
		if err != nil {
			return nil, err
		}
		for i := range ps {
			if ps[i].Game == game {
				r, err := m.leave(ctx, db, s, &ps[i])
				if err != nil {
					return nil, err
				}
				rs = append(rs, r...)
			}
		}
	}
	if s.state == stateEnded || s.deadline == nil || s.deadline.After(now) {
		return rs, nil
	}
	var r []Resume
	switch {
	case s.state == stateOpen && s.players >= s.t.min:
		r, err = start(ctx, db, s, 0)
	case s.state == stateOpen:
		r, err = m.end(ctx, db, s, reasonAlone, "")
	default:
		var missing []string
		if missing, err = late(ctx, db, s); err == nil {
			r, err = m.end(ctx, db, s, reasonTimeout, strings.Join(missing, ", "))
		}
	}
	return append(rs, r...), err
}

// late returns the names of the players who have not posted in the session's round.
func late(ctx context.Context, db pgx.Tx, s *session) ([]string, error) {
	ps, blocks, err := roundBlocks(ctx, db, s)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, p := range ps {
		if _, ok := blocks[p.num]; !ok {
			names = append(names, p.Name)
		}
	}
	return names, nil
}

// jobTx is the bot.Tx of a transaction of the timer job: the requests it is given are written
// to the transport's outbox in the same transaction (flush), where the sender finds them on its
// next scan of the outbox.
type jobTx struct {
	db      pgx.Tx
	service int
	reqs    []bot.Request
}

func (t *jobTx) DB() pgx.Tx { return t.db }

func (t *jobTx) Send(ctx context.Context, reqs ...bot.Request) error {
	t.reqs = append(t.reqs, reqs...)
	return nil
}

// flush writes the requests to the outbox.
func (t *jobTx) flush(ctx context.Context) error {
	if _, err := botpg.EnqueueTx(ctx, t.db, t.service, t.reqs); err != nil {
		return fmt.Errorf("multiplayer: outbox: %w", err)
	}
	return nil
}
