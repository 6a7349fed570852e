package tgstore_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/questbot/questbot/bot/boards"
	"github.com/questbot/questbot/bot/boards/telegram/tgstore"
	"github.com/questbot/questbot/migrations/pgtest"
	"github.com/questbot/questbot/sessions/board"
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// fixture is a database with a bot and its user, who opens the boards, and the board service
// whose store keeps them.
type fixture struct {
	pool    *pgxpool.Pool
	service int
	svc     *boards.Boards
}

const alice int64 = 1

func newFixture(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{pool: pgtest.New(t), svc: boards.New(boards.Config{Dir: t.TempDir()})}
	ctx := context.Background()
	if err := f.pool.QueryRow(ctx, `INSERT INTO service (username) VALUES ('board_bot') RETURNING id`).Scan(&f.service); err != nil {
		t.Fatal(err)
	}
	if _, err := f.pool.Exec(ctx, `INSERT INTO users (id, chat_id, first_name) VALUES ($1, $1, 'Alice')`, alice); err != nil {
		t.Fatal(err)
	}
	return f
}

// try runs fn in a transaction of its own and returns its error (committed when nil).
func (f *fixture) try(fn func(tx pgx.Tx) error) error {
	return pgx.BeginFunc(context.Background(), f.pool, fn)
}

// must runs fn in a transaction of its own, which must succeed.
func (f *fixture) must(t *testing.T, fn func(s *tgstore.Store) error) {
	t.Helper()
	if err := f.try(func(tx pgx.Tx) error { return fn(tgstore.New(tx)) }); err != nil {
		t.Fatal(err)
	}
}

// open opens and stores a chess board of alice's at t0+d.
func (f *fixture) open(t *testing.T, d time.Duration) *board.Board {
	t.Helper()
	tc, err := board.ControlByName("none")
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := board.Open(board.Spec{Service: f.service, Creator: alice, Variant: "chess", Seed: 99, Control: tc}, t0.Add(d))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.try(func(tx pgx.Tx) error { return f.svc.Store(tx).Create(context.Background(), b) }); err != nil {
		t.Fatal(err)
	}
	return b
}

// Ensure the shared message of a board is recorded once (by board, by inline message and by
// group message), read back by each with how it shows the board (text or picture) and when its
// board was opened, takes its group message's id later, and that the boards of shared messages
// opened within a time are listed, oldest first, and no others.
func TestShared(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	inline := f.open(t, 0)
	group := f.open(t, time.Hour)
	plain := f.open(t, 0)
	third := f.open(t, 3*time.Hour)
	f.must(t, func(s *tgstore.Store) error {
		if err := s.PlaceShared(ctx, tgstore.Shared{Board: inline.ID, InlineMessageID: "im1", Invite: "code1", Opened: inline.Created}); err != nil {
			return err
		}
		if err := s.PlaceShared(ctx, tgstore.Shared{Board: group.ID, Chat: -100, Invite: "code2", Picture: true, Opened: group.Created}); err != nil {
			return err
		}
		return s.PlaceShared(ctx, tgstore.Shared{Board: third.ID, Chat: -100, MessageID: 5, Invite: "c3", Opened: third.Created})
	})
	for name, sh := range map[string]tgstore.Shared{
		"the same board":          {Board: inline.ID, InlineMessageID: "im2", Invite: "x"},
		"the same inline message": {Board: plain.ID, InlineMessageID: "im1", Invite: "x"},
		"the same group message":  {Board: plain.ID, Chat: -100, MessageID: 5, Invite: "x"},
	} {
		err := f.try(func(tx pgx.Tx) error { return tgstore.New(tx).PlaceShared(ctx, sh) })
		if !errors.Is(err, board.ErrFull) {
			t.Errorf("%s placed twice: %v", name, err)
		}
	}
	f.must(t, func(s *tgstore.Store) error {
		got, ok, err := s.SharedByInline(ctx, "im1")
		want := tgstore.Shared{Board: inline.ID, InlineMessageID: "im1", Invite: "code1", Opened: inline.Created}
		if err != nil || !ok || got != want {
			t.Errorf("SharedByInline = %+v, %v, %v; want %+v", got, ok, err, want)
		}
		if _, ok, err := s.SharedOf(ctx, plain.ID); ok || err != nil {
			t.Errorf("a board played in its players' chats has a shared message: %v", err)
		}
		if err := s.SetSharedMessage(ctx, group.ID, 77); err != nil {
			return err
		}
		got, ok, err = s.SharedOf(ctx, group.ID)
		want = tgstore.Shared{Board: group.ID, Chat: -100, MessageID: 77, Invite: "code2", Picture: true, Opened: group.Created}
		if err != nil || !ok || got != want {
			t.Errorf("SharedOf = %+v, %v, %v; want %+v", got, ok, err, want)
		}
		if by, ok, err := s.SharedByMessage(ctx, -100, 77); err != nil || !ok || by != got {
			t.Errorf("SharedByMessage = %+v, %v, %v", by, ok, err)
		}
		if _, ok, err := s.SharedByMessage(ctx, -100, 78); ok || err != nil {
			t.Errorf("SharedByMessage of another message: %v, %v", ok, err)
		}
		ids, err := s.Challenges(ctx, t0, t0.Add(2*time.Hour))
		if err != nil || len(ids) != 2 || ids[0] != inline.ID || ids[1] != group.ID {
			t.Errorf("Challenges = %v, %v; want the inline and the group board", ids, err)
		}
		ids, err = s.Challenges(ctx, t0.Add(30*time.Minute), t0.Add(5*time.Hour))
		if err != nil || len(ids) != 2 || ids[0] != group.ID || ids[1] != third.ID {
			t.Errorf("Challenges from the second = %v, %v; want the group and the third board", ids, err)
		}
		return nil
	})
}

// Ensure a seat's board message was never sent until it is marked, is read back by its seat
// alone when it is, and a later mark replaces the time.
func TestSentAt(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	b := f.open(t, 0)
	f.must(t, func(s *tgstore.Store) error {
		if at, err := s.SentAt(ctx, b.ID, 0); err != nil || !at.IsZero() {
			t.Errorf("SentAt before any message = %v, %v; want zero", at, err)
		}
		if err := s.MarkSent(ctx, b.ID, 0, t0); err != nil {
			return err
		}
		return s.MarkSent(ctx, b.ID, 0, t0.Add(time.Hour))
	})
	f.must(t, func(s *tgstore.Store) error {
		if at, err := s.SentAt(ctx, b.ID, 0); err != nil || !at.Equal(t0.Add(time.Hour)) {
			t.Errorf("SentAt of seat 0 = %v, %v; want %v", at, err, t0.Add(time.Hour))
		}
		if at, err := s.SentAt(ctx, b.ID, 1); err != nil || !at.IsZero() {
			t.Errorf("SentAt of seat 1 = %v, %v; want zero", at, err)
		}
		return nil
	})
}
