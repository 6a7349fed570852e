package boards

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/questbot/questbot/engine"
	"github.com/questbot/questbot/sessions"
	"github.com/questbot/questbot/sessions/board"
)

// # The bot's moves
//
// The bot's moves are computed by the AI job (Think), never in an update's transaction: a
// player's move against the bot commits at once, with a board saying the bot is thinking, and
// the chat goes on. The job claims the bots' turns (board.Jobs.ClaimBotTurns: a lease
// on the turn at the board's revision, committed at once), searches each outside any
// transaction, at most one search per slot (Config.Workers, one per core by default), then
// plays the move in a new transaction through play, the path of every move, only if the board's
// revision is still the one claimed (a move taken back, a resignation meanwhile: the result is
// dropped). A search is bounded by its level's node limit (board.BotLevel.Limits) and capped
// in time (Config.Think; 2 s for the strongest level). A process that dies mid-search leaves a
// lease that runs out; the next run, here or in another process, claims the turn again, so a bot
// move pending at a restart is made after it.
//
// Fairness: the claim serves the players in turn (a player's first waiting turn before anybody's
// second, a player with a search under way after those with none; boardpg's claimBotTurnsSQL),
// no player has more searches at once than all the slots but one (perPlayer), and a player has
// at most Config.BotGames games against the bot going (Open refuses one more with
// board.ErrTooManyBotGames). So one player's many games never hold every slot: another player's
// turn finds a slot free, or (with one slot) waits for one search at most. The claims hold across
// processes (the leases are in the database), though each process counts its own slots.

// # Waking the AI
//
// A commit that makes it the bot's turn wakes the AI at once: in this process after the commit
// (Tx.AfterCommit), and in every process by a notification on AIChannel sent by the same
// transaction (PostgreSQL delivers it at the commit; the process's Feed listens, FollowAI). A run under way claims the
// new turn at once; otherwise a run starts (SetAIWake: the scheduler's wake of the AI job). The
// job's schedule, every second, stays the fallback for turns no wake announced: those left by a
// process that stopped mid-search, or committed while no process listened.

// AISpec is how often the AI job runs; a run goes on while there are turns to play.
const AISpec = "@every 1s"

// AIChannel is the PostgreSQL notification channel of the bots' turns.
const AIChannel = "board_bot_turn"

// notifyAISQL announces a bot's turn to every process, at the commit.
const notifyAISQL = `SELECT pg_notify('` + AIChannel + `', '')`

// SetAIWake gives the function that runs the AI job now (bot.Scheduler.AddWakeable), which
// wakeAI calls when no run is under way to claim the turn.
func (b *Boards) SetAIWake(wake func()) { b.aiWake.Store(&wake) }

// wakeAI tells the AI that a bot's turn may have come: a run under way claims it at once, and
// otherwise one is started. It never blocks.
func (b *Boards) wakeAI() {
	select {
	case b.aiTurn <- struct{}{}:
	default:
	}
	if wake := b.aiWake.Load(); wake != nil {
		(*wake)()
	}
}

// AIListenerName is the application_name of the connection on which WatchAI listens.
const AIListenerName = "questbot board AI"

// FollowAI has the feed of this process wake the AI whenever any process commits a bot's turn,
// and once each time the feed starts listening (for what was announced while nobody listened).
// Call it before the feed runs.
func (b *Boards) FollowAI(f *Feed) {
	f.Handle(AIChannel, func(string) { b.wakeAI() })
	f.OnListen(func(context.Context, *pgx.Conn) error {
		b.wakeAI()
		return nil
	})
}

// WatchAI is FollowAI on a feed of its own (named AIListenerName), for a process that runs no
// other feed, until ctx is done; pool gives the settings of the connection that listens.
func (b *Boards) WatchAI(ctx context.Context, pool *pgxpool.Pool) {
	f := NewFeed(pool, AIListenerName, b.log)
	b.FollowAI(f)
	f.Run(ctx)
}

// botTurn announces, in tx, that it is the bot's turn on bd when it is: the AI is woken when tx
// commits, here and in the other processes.
func (b *Boards) botTurn(ctx context.Context, tx Tx, bd *board.Board) error {
	if bd.Status != board.Active || bd.Seats[bd.ToMove].Bot == board.NoBot {
		return nil
	}
	if _, err := tx.DB().Exec(ctx, notifyAISQL); err != nil {
		return fmt.Errorf("board %d: announce the bot's turn: %w", bd.ID, err)
	}
	tx.AfterCommit(b.wakeAI)
	return nil
}

// aiPoll is how often a run with searches under way looks for more turns to claim.
const aiPoll = 100 * time.Millisecond

// Think is the AI's scheduled job (AISpec): it claims the bots' turns as slots free up, searches
// each in a goroutine of its own and plays the moves found, until no turn is left to claim and
// every search has ended. The searches stop when ctx is done.
func (b *Boards) Think(ctx context.Context, do Doer) error {
	var wg sync.WaitGroup
	defer wg.Wait()
	done := make(chan struct{}, cap(b.slots))
	running := 0
	for {
		free := 0
	take:
		for {
			select {
			case b.slots <- struct{}{}:
				free++
			default:
				break take
			}
		}
		var claimed []*board.Board
		var err error
		if free > 0 {
			claimed, err = b.claimTurns(ctx, do, free)
		}
		for range free - len(claimed) {
			<-b.slots
		}
		if err != nil {
			return err
		}
		for _, bd := range claimed {
			running++
			wg.Go(func() {
				defer func() {
					<-b.slots
					done <- struct{}{}
				}()
				b.search(ctx, do, bd)
			})
		}
		if running == 0 {
			return nil
		}
		select {
		case <-done:
			running--
		case <-b.aiTurn:
		case <-time.After(aiPoll):
		case <-ctx.Done():
			return ctx.Err()
		}
	drain:
		for {
			select {
			case <-done:
				running--
			default:
				break drain
			}
		}
	}
}

// perPlayer is how many of the bot's searches one player may have at once: all the slots but
// one, so that a slot stays free for the other players (one when there is a single slot).
func (b *Boards) perPlayer() int { return max(1, cap(b.slots)-1) }

// claimTurns leases at most n bots' turns.
func (b *Boards) claimTurns(ctx context.Context, do Doer, n int) ([]*board.Board, error) {
	var boards []*board.Board
	err := do.Do(ctx, 0, func(ctx context.Context, tx Tx) error {
		var err error
		boards, err = b.store(tx.DB()).ClaimBotTurns(ctx, b.now(), b.lease, n, b.perPlayer())
		return err
	})
	return boards, err
}

// search computes the bot's move on a claimed board and plays it, if the board has not changed
// since the claim.
func (b *Boards) search(ctx context.Context, do Doer, bd *board.Board) {
	log := b.log.With(slog.Int64("board", bd.ID), slog.String("game", bd.Variant))
	seat, ok := bd.BotSeat()
	if !ok {
		return
	}
	level := bd.Seats[seat].Bot
	g, err := bd.Game()
	if err != nil {
		log.Error("The bot cannot think: the board does not replay", slog.Any("error", err))
		return
	}
	lim := b.limits(level, bd.Variant)
	start := time.Now()
	mv, info, err := g.BestMove(ctx, lim)
	spent := time.Since(start)
	if err != nil {
		if ctx.Err() == nil {
			log.Error("The bot found no move", slog.Any("error", err))
		}
		return
	}
	if ctx.Err() != nil {
		return // stopping: the lease runs out and the turn is claimed again
	}
	b.metrics.Think.WithLabelValues(bd.Variant, level.String()).Observe(spent.Seconds())
	err = do.Do(ctx, bd.Service, func(ctx context.Context, tx Tx) error {
		st := b.store(tx.DB())
		cur, err := st.Lock(ctx, bd.ID)
		if err != nil {
			return err
		}
		if cur.Revision() != bd.Revision() {
			log.Debug("The bot's move is stale: the board changed while it thought")
			return nil
		}
		ev, err := cur.Move(board.BotUser, mv.String(), cur.Ply(), b.now())
		if err != nil {
			return err
		}
		return b.commit(ctx, tx, st, cur, ev, NoSeat, ByBot)
	})
	switch {
	case err == nil:
		log.Debug("The bot moved", slog.String("move", mv.String()), slog.Duration("spent", spent),
			slog.Int64("nodes", info.Nodes), slog.Int("depth", info.Depth))
	case sessions.KindOf(err) != sessions.KindNone:
		log.Debug("The bot's move was refused: the board changed", slog.Any("error", err))
	case !errors.Is(err, context.Canceled):
		log.Error("The bot's move could not be played", slog.Any("error", err))
	}
}

// limits are the search limits of a level in a game variant: its node limit
// (board.BotLevel.Limits), which keeps a level's play alike from machine to machine, capped in
// time (Config.Think).
func (b *Boards) limits(level board.BotLevel, variant string) engine.Limits {
	lim := level.Limits(variant)
	lim.Time = b.think[level]
	return lim
}
