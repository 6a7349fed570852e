package boards_test

import (
	"context"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/questbot/questbot/bot"
	"github.com/questbot/questbot/bot/boards"
	"github.com/questbot/questbot/bot/boards/botusers"
	"github.com/questbot/questbot/bot/botpg"
	"github.com/questbot/questbot/migrations/pgtest"
	"github.com/questbot/questbot/sessions/board"
	"github.com/questbot/questbot/sessions/tournament"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// t0 is the tests' clock origin: every time is t0 plus what the test advanced, never the wall
// clock.
var t0 = time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)

// clock is the injected clock of the games and the tournaments.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func (c *clock) set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}

// doer runs the service's work in transactions of the bot's store, whose messages go to the
// real outbox (nothing sends them here).
type doer struct{ st *botpg.Store }

func (d doer) Do(ctx context.Context, service int, fn func(ctx context.Context, tx boards.Tx) error) error {
	_, err := d.st.Run(ctx, service, func(ctx context.Context, tx bot.Tx) error { return fn(ctx, tx) })
	return err
}

// tenv is a database with a bot, an admin and players, and the board service with its
// tournaments on the test's clock (procs: one per simulated process, each its own service on
// the same database).
type tenv struct {
	t       *testing.T
	pool    *pgxpool.Pool
	service int
	clk     *clock
	do      doer
	procs   []*boards.Tournaments
	admin   int64
	players []int64
}

// admin and the players' ids.
const adminID int64 = 1

func playerID(i int) int64 { return int64(1001 + i) }

func newTEnv(t *testing.T, players, procs int) *tenv {
	t.Helper()
	e := &tenv{t: t, pool: pgtest.New(t), clk: &clock{t: t0}, admin: adminID}
	ctx := context.Background()
	if err := e.pool.QueryRow(ctx, `INSERT INTO service (username) VALUES ('tourney_bot') RETURNING id`).Scan(&e.service); err != nil {
		t.Fatal(err)
	}
	if _, err := e.pool.Exec(ctx, `INSERT INTO users (id, chat_id, first_name, is_admin) VALUES ($1, $1, 'Admin', true)`, adminID); err != nil {
		t.Fatal(err)
	}
	for i := range players {
		id := playerID(i)
		if _, err := e.pool.Exec(ctx, `INSERT INTO users (id, chat_id, first_name) VALUES ($1, $1, $2)`, id, fmt.Sprintf("P%d", i)); err != nil {
			t.Fatal(err)
		}
		e.players = append(e.players, id)
	}
	e.do = doer{st: botpg.New(e.pool)}
	var seed atomic.Uint64
	dir := t.TempDir()
	for range procs {
		svc := boards.New(boards.Config{Users: botusers.Users{}, Dir: dir, Now: e.clk.now, Seed: func() uint64 { return seed.Add(1) }})
		e.procs = append(e.procs, boards.NewTournaments(svc))
	}
	return e
}

// tn is the first process's tournaments, svc its board service.
func (e *tenv) tn() *boards.Tournaments { return e.procs[0] }
func (e *tenv) svc() *boards.Boards     { return e.procs[0].Boards() }

func (e *tenv) player(user int64) boards.Player {
	return boards.Player{Service: e.service, User: user, By: boards.ByTelegram}
}

// run runs fn in a transaction of the bot, which must succeed.
func (e *tenv) run(fn func(ctx context.Context, tx boards.Tx) error) {
	e.t.Helper()
	if err := e.do.Do(context.Background(), e.service, fn); err != nil {
		e.t.Fatal(err)
	}
}

// create creates a tournament as the admin, and enters every player.
func (e *tenv) create(spec boards.TournamentSpec) *tournament.Tournament {
	e.t.Helper()
	var tt *tournament.Tournament
	e.run(func(ctx context.Context, tx boards.Tx) error {
		var err error
		tt, err = e.tn().Create(ctx, tx, e.player(e.admin), true, spec)
		return err
	})
	for _, p := range e.players {
		e.run(func(ctx context.Context, tx boards.Tx) error { return e.tn().Join(ctx, tx, e.player(p), tt.ID, false) })
	}
	return tt
}

// job runs the tournaments' job of process i, which must succeed.
func (e *tenv) job(i int) {
	e.t.Helper()
	if err := e.procs[i].Tournaments(context.Background(), e.do); err != nil {
		e.t.Fatal(err)
	}
}

// table reads a tournament's table.
func (e *tenv) table(id int64) *boards.TournamentTable {
	e.t.Helper()
	var tab *boards.TournamentTable
	err := pgx.BeginFunc(context.Background(), e.pool, func(tx pgx.Tx) error {
		var err error
		tab, err = e.tn().Table(context.Background(), tx, e.service, id)
		return err
	})
	if err != nil {
		e.t.Fatal(err)
	}
	return tab
}

// pending returns the games of a tournament being played.
func pending(tab *boards.TournamentTable) []tournament.Pairing {
	var out []tournament.Pairing
	for _, p := range tab.Pairings {
		if !p.Bye() && p.Result == tournament.Pending {
			out = append(out, p)
		}
	}
	return out
}

// act has a player act on a board through the service.
func (e *tenv) act(user, boardID int64, a boards.Action) {
	e.t.Helper()
	e.run(func(ctx context.Context, tx boards.Tx) error {
		h, err := e.svc().Take(ctx, tx, e.player(user), boardID)
		if err != nil {
			return err
		}
		if a.Op == boards.OpMove {
			a.Ply = h.Board.Ply()
		}
		return h.Act(ctx, a)
	})
}

// move has the player to move play their first legal move.
func (e *tenv) move(p tournament.Pairing) {
	e.t.Helper()
	var user int64
	var mv string
	err := pgx.BeginFunc(context.Background(), e.pool, func(tx pgx.Tx) error {
		bd, err := e.svc().Store(tx).Get(context.Background(), p.Board)
		if err != nil {
			return err
		}
		g, err := bd.Game()
		if err != nil {
			return err
		}
		user, mv = bd.Seats[bd.ToMove].User, g.LegalMoves()[0].String()
		return nil
	})
	if err != nil {
		e.t.Fatal(err)
	}
	e.act(user, p.Board, boards.Action{Op: boards.OpMove, Move: mv})
}

// finish ends a game with the result given, as its players do: a resignation of the loser, or a
// draw offered by white and accepted by black.
func (e *tenv) finish(p tournament.Pairing, r tournament.Result) {
	e.t.Helper()
	switch r {
	case tournament.WhiteWins:
		e.act(p.Black, p.Board, boards.Action{Op: boards.OpResign})
	case tournament.BlackWins:
		e.act(p.White, p.Board, boards.Action{Op: boards.OpResign})
	case tournament.Draw:
		e.act(p.White, p.Board, boards.Action{Op: boards.OpOfferDraw})
		e.act(p.Black, p.Board, boards.Action{Op: boards.OpAcceptDraw})
	}
}

// boardOf reads a board.
func (e *tenv) boardOf(id int64) *board.Board {
	e.t.Helper()
	var bd *board.Board
	err := pgx.BeginFunc(context.Background(), e.pool, func(tx pgx.Tx) error {
		var err error
		bd, err = e.svc().Store(tx).Get(context.Background(), id)
		return err
	})
	if err != nil {
		e.t.Fatal(err)
	}
	return bd
}
