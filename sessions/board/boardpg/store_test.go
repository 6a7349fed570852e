package boardpg

import (
	"context"
	"errors"
	"os"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/questbot/questbot/migrations/pgtest"
	"github.com/questbot/questbot/sessions/board"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// t0 is the tests' clock origin; every time is t0 plus an offset, never the wall clock.
var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func at(d time.Duration) time.Time { return t0.Add(d) }

const (
	alice int64 = 101
	bob   int64 = 202
	carol int64 = 303
)

// fixture is a fresh database with a bot and three users.
type fixture struct {
	pool    *pgxpool.Pool
	service int
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{pool: pgtest.New(t)}
	ctx := context.Background()
	if err := f.pool.QueryRow(ctx, `INSERT INTO service (username) VALUES ('board_bot') RETURNING id`).Scan(&f.service); err != nil {
		t.Fatal(err)
	}
	if _, err := f.pool.Exec(ctx, `INSERT INTO users (id, chat_id, first_name) VALUES ($1, $1, 'Alice'), ($2, $2, 'Bob'), ($3, $3, 'Carol')`,
		alice, bob, carol); err != nil {
		t.Fatal(err)
	}
	return f
}

// try runs fn in a transaction of its own and returns its error (committed when nil).
func (f *fixture) try(fn func(s *Store) error) error {
	return pgx.BeginFunc(context.Background(), f.pool, func(tx pgx.Tx) error { return fn(New(tx)) })
}

// must runs fn in a transaction of its own, which must succeed.
func (f *fixture) must(t *testing.T, fn func(s *Store) error) {
	t.Helper()
	if err := f.try(fn); err != nil {
		t.Fatal(err)
	}
}

// spec is a board spec of alice's in the fixture's bot.
func (f *fixture) spec(variant, control string) board.Spec {
	tc, err := board.ControlByName(control)
	if err != nil {
		panic(err)
	}
	return board.Spec{Service: f.service, Creator: alice, Variant: variant, Seed: 99, Control: tc}
}

// create opens and stores a board.
func (f *fixture) create(t *testing.T, spec board.Spec, now time.Time) *board.Board {
	t.Helper()
	b, _, err := board.Open(spec, now)
	if err != nil {
		t.Fatal(err)
	}
	f.must(t, func(s *Store) error { return s.Create(context.Background(), b) })
	return b
}

// game stores a board of alice (seat 0) that bob joined at t0.
func (f *fixture) game(t *testing.T, variant, control string) *board.Board {
	t.Helper()
	b := f.create(t, f.spec(variant, control), t0)
	return f.act(t, b.ID, func(b *board.Board) error { _, err := b.Join(bob, t0); return err })
}

// act locks a board, applies op and saves it, in one transaction, and returns the board.
func (f *fixture) act(t *testing.T, id int64, op func(b *board.Board) error) *board.Board {
	t.Helper()
	var b *board.Board
	f.must(t, func(s *Store) error {
		var err error
		ctx := context.Background()
		if b, err = s.Lock(ctx, id); err != nil {
			return err
		}
		if err := op(b); err != nil {
			return err
		}
		return s.Save(ctx, b)
	})
	return b
}

// move plays moves from the side to move, each in a transaction of its own.
func (f *fixture) move(t *testing.T, id int64, now time.Time, moves ...string) *board.Board {
	t.Helper()
	var b *board.Board
	for _, m := range moves {
		b = f.act(t, id, func(b *board.Board) error {
			_, err := b.Move(b.Seats[b.ToMove].User, m, b.Ply(), now)
			return err
		})
	}
	return b
}

// get reads a board.
func (f *fixture) get(t *testing.T, id int64) *board.Board {
	t.Helper()
	var b *board.Board
	f.must(t, func(s *Store) error {
		var err error
		b, err = s.Get(context.Background(), id)
		return err
	})
	return b
}

// sameBoard compares the exported fields of two boards.
func sameBoard(t *testing.T, got, want *board.Board) {
	t.Helper()
	g, w := reflect.ValueOf(got).Elem(), reflect.ValueOf(want).Elem()
	for i := range g.NumField() {
		field := g.Type().Field(i)
		if !field.IsExported() {
			continue
		}
		if !reflect.DeepEqual(g.Field(i).Interface(), w.Field(i).Interface()) {
			t.Errorf("%s: got %+v, want %+v", field.Name, g.Field(i).Interface(), w.Field(i).Interface())
		}
	}
}

func TestCreateAndLock(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	spec := f.spec("foxgeese15", "blitz10+5")
	spec.Options = board.Options{Diagonals: true, FoxWinThreshold: 5}
	spec.Private = true
	b := f.create(t, spec, t0)
	if b.ID == 0 || b.Revision() == 0 {
		t.Fatalf("id %d, revision %d", b.ID, b.Revision())
	}
	sameBoard(t, f.get(t, b.ID), b)
	if err := f.try(func(s *Store) error { return s.Create(context.Background(), b) }); err == nil {
		t.Error("a board created twice")
	}
	err := f.try(func(s *Store) error { _, err := s.Lock(context.Background(), b.ID+100); return err })
	if !errors.Is(err, board.ErrNotFound) {
		t.Errorf("lock of a missing board: %v, want ErrNotFound", err)
	}
}

func TestSaveRoundTrip(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	b := f.game(t, "chess", "blitz10+5")
	b = f.move(t, b.ID, at(20*time.Second), "e4")
	b = f.move(t, b.ID, at(50*time.Second), "e5")
	b = f.act(t, b.ID, func(b *board.Board) error {
		if _, err := b.Seen(alice, 2); err != nil {
			return err
		}
		_, err := b.OfferDraw(alice, at(time.Minute))
		return err
	})
	got := f.get(t, b.ID)
	sameBoard(t, got, b)
	if got.Offer == nil || got.Seats[0].Seen != 2 || got.Seats[0].Clock != 10*time.Minute-15*time.Second {
		t.Errorf("offer %+v, seats %+v", got.Offer, got.Seats)
	}
	if _, err := got.Rebuild(); err != nil {
		t.Errorf("rebuild of the stored board: %v", err)
	}
	// The offer stands over its maker's move; an undo withdraws it and takes a stored move
	// back.
	b = f.move(t, b.ID, at(70*time.Second), "Nf3")
	b = f.act(t, b.ID, func(b *board.Board) error { _, err := b.Undo(alice, at(80*time.Second)); return err })
	b = f.move(t, b.ID, at(90*time.Second), "d4")
	got = f.get(t, b.ID)
	sameBoard(t, got, b)
	var n int
	if err := f.pool.QueryRow(context.Background(), `SELECT count(*) FROM board_move WHERE board_id = $1`, b.ID).Scan(&n); err != nil || n != 3 {
		t.Errorf("%d stored moves (%v), want 3", n, err)
	}
	if got.Moves[2].Text != "d2d4" || got.Offer != nil {
		t.Errorf("moves %+v, offer %+v", got.Moves, got.Offer)
	}
}

func TestSaveStale(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	b := f.game(t, "russian", "none")
	first, second := f.get(t, b.ID), f.get(t, b.ID)
	for _, c := range []*board.Board{first, second} {
		if _, err := c.Move(alice, "c3-d4", 0, at(time.Second)); err != nil {
			t.Fatal(err)
		}
	}
	f.must(t, func(s *Store) error { return s.Save(context.Background(), first) })
	err := f.try(func(s *Store) error { return s.Save(context.Background(), second) })
	if !errors.Is(err, board.ErrStale) {
		t.Fatalf("second save from one ply: %v, want ErrStale", err)
	}
	// Back at the same ply through an undo, the revision still tells the boards apart.
	stale := f.get(t, b.ID)
	f.act(t, b.ID, func(b *board.Board) error { _, err := b.Undo(alice, at(2*time.Second)); return err })
	f.move(t, b.ID, at(3*time.Second), "a3-b4")
	if _, err := stale.Move(bob, "f6-g5", 1, at(4*time.Second)); err != nil {
		t.Fatal(err)
	}
	err = f.try(func(s *Store) error { return s.Save(context.Background(), stale) })
	if !errors.Is(err, board.ErrStale) {
		t.Errorf("save over a board changed and back to its ply: %v, want ErrStale", err)
	}
	if got := f.get(t, b.ID); got.Ply() != 1 || got.Moves[0].Text != "a3-b4" {
		t.Errorf("stored moves %+v", got.Moves)
	}
	gone := *first
	gone.ID = 0
	if err := f.try(func(s *Store) error { return s.Save(context.Background(), &gone) }); !errors.Is(err, board.ErrNotFound) {
		t.Errorf("save of a board never stored: %v, want ErrNotFound", err)
	}
}

func TestConcurrentMoves(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	b := f.game(t, "russian", "corr1d")
	moves := []string{"c3-d4", "c3-b4", "a3-b4", "e3-f4"}
	var wg sync.WaitGroup
	errs := make([]error, len(moves))
	for i, m := range moves {
		wg.Go(func() {
			errs[i] = f.try(func(s *Store) error {
				ctx := context.Background()
				// Half lock the board, half read it without a lock: both ways, one move wins.
				var c *board.Board
				var err error
				if i%2 == 0 {
					c, err = s.Lock(ctx, b.ID)
				} else {
					c, err = s.Get(ctx, b.ID)
				}
				if err != nil {
					return err
				}
				if _, err := c.Move(alice, m, 0, at(time.Minute)); err != nil {
					return err
				}
				return s.Save(ctx, c)
			})
		})
	}
	wg.Wait()
	ok := 0
	for i, err := range errs {
		switch {
		case err == nil:
			ok++
		case !errors.Is(err, board.ErrStale) && !errors.Is(err, board.ErrNotYourTurn):
			// A locked reader that waited sees bob to move; an unlocked one fails to save.
			t.Errorf("move %s: %v, want ErrStale or ErrNotYourTurn", moves[i], err)
		}
	}
	got := f.get(t, b.ID)
	if ok != 1 || got.Ply() != 1 {
		t.Errorf("%d moves committed, ply %d; want exactly one", ok, got.Ply())
	}
}

func TestCorruptRows(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	b := f.game(t, "russian", "none")
	f.move(t, b.ID, t0, "c3-d4", "f6-g5")
	ctx := context.Background()
	if _, err := f.pool.Exec(ctx, `UPDATE board_move SET position = 'W:Wa1:Bh8' WHERE board_id = $1 AND ply = 1`, b.ID); err != nil {
		t.Fatal(err)
	}
	err := f.try(func(s *Store) error {
		c, err := s.Lock(ctx, b.ID)
		if err != nil {
			return err
		}
		_, err = c.Move(alice, "g3-f4", 2, t0)
		return err
	})
	if !errors.Is(err, board.ErrCorrupt) {
		t.Errorf("move on a board whose replay differs: %v, want ErrCorrupt", err)
	}
	if _, err := f.pool.Exec(ctx, `DELETE FROM board_move WHERE board_id = $1 AND ply = 2`, b.ID); err != nil {
		t.Fatal(err)
	}
	err = f.try(func(s *Store) error { _, err := s.Get(ctx, b.ID); return err })
	if !errors.Is(err, board.ErrCorrupt) {
		t.Errorf("a board missing a move: %v, want ErrCorrupt", err)
	}
}
