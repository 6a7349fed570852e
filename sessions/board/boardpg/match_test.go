package boardpg

import (
	"context"
	"errors"
	"reflect"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/questbot/questbot/sessions/board"
)

func TestClaimWaiting(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	older := f.create(t, f.spec("chess", "corr1d"), t0)
	newer := f.create(t, f.spec("chess", "corr1d"), at(time.Minute))
	other := f.spec("chess", "corr3d")
	f.create(t, other, t0)
	private := f.spec("russian", "corr1d")
	private.Private = true
	f.create(t, private, t0)

	claim := func(user int64, spec board.Spec) (*board.Board, error) {
		spec.Creator = user
		var b *board.Board
		err := f.try(func(s *Store) error {
			var err error
			b, err = s.ClaimWaiting(ctx, spec)
			return err
		})
		return b, err
	}
	tests := []struct {
		name string
		user int64
		spec board.Spec
		want int64 // 0: none
	}{
		{"the oldest of the same game", bob, f.spec("chess", "corr1d"), older.ID},
		{"variant names are canonical", bob, f.spec(" Chess ", "corr1d"), older.ID},
		{"not one's own", alice, f.spec("chess", "corr1d"), 0},
		{"not another clock", bob, f.spec("chess", "blitz10+5"), 0},
		{"not other options", bob, func() board.Spec { s := f.spec("chess", "corr1d"); s.Options.PlyLimit = 100; return s }(), 0},
		{"not a private board", bob, f.spec("russian", "corr1d"), 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := claim(tt.user, tt.spec)
			if tt.want == 0 {
				if !errors.Is(err, board.ErrNotFound) {
					t.Errorf("claimed %v (%v), want ErrNotFound", b, err)
				}
				return
			}
			if err != nil || b.ID != tt.want {
				t.Errorf("claimed %v (%v), want board %d", b, err, tt.want)
			}
		})
	}
	if _, err := claim(bob, f.spec("go", "none")); !errors.Is(err, board.ErrInvalid) {
		t.Errorf("claim of an unknown game: %v, want ErrInvalid", err)
	}

	// While one joiner holds the oldest board, the next gets the newer one, then none.
	tx1, err := f.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx1.Rollback(ctx)
	got1, err := New(tx1).ClaimWaiting(ctx, board.Spec{Service: f.service, Creator: bob, Variant: "chess", Control: older.Control})
	if err != nil || got1.ID != older.ID {
		t.Fatalf("first joiner: %v %v", got1, err)
	}
	if got2, err := claim(carol, f.spec("chess", "corr1d")); err != nil || got2.ID != newer.ID {
		t.Errorf("second joiner: %v %v, want board %d", got2, err, newer.ID)
	}
	if _, err := got1.Join(bob, at(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if err := New(tx1).Save(ctx, got1); err != nil {
		t.Fatal(err)
	}
	if err := tx1.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if b := f.get(t, older.ID); b.Status != board.Active || b.Seats[1].User != bob {
		t.Errorf("joined board %+v", b)
	}
}

func TestConcurrentJoiners(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	waiting := f.create(t, f.spec("international", "corr3d"), t0)
	joiners := []int64{bob, carol, bob, carol}
	errs := make([]error, len(joiners))
	var wg sync.WaitGroup
	for i, user := range joiners {
		wg.Go(func() {
			errs[i] = f.try(func(s *Store) error {
				ctx := context.Background()
				spec := f.spec("international", "corr3d")
				spec.Creator = user
				b, err := s.ClaimWaiting(ctx, spec)
				if err != nil {
					return err
				}
				if _, err := b.Join(user, at(time.Minute)); err != nil {
					return err
				}
				return s.Save(ctx, b)
			})
		})
	}
	wg.Wait()
	joined := 0
	for i, err := range errs {
		switch {
		case err == nil:
			joined++
		case !errors.Is(err, board.ErrNotFound):
			t.Errorf("joiner %d: %v, want ErrNotFound", i, err)
		}
	}
	if b := f.get(t, waiting.ID); joined != 1 || b.Status != board.Active {
		t.Errorf("%d joined, status %v; want exactly one", joined, b.Status)
	}
}

func TestInvites(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	spec := f.spec("brazilian", "corr1d")
	spec.Private = true
	b := f.create(t, spec, t0)
	invite := func(id int64, now time.Time, ttl time.Duration) (string, error) {
		var code string
		err := f.try(func(s *Store) error {
			var err error
			code, err = s.CreateInvite(ctx, id, now, ttl)
			return err
		})
		return code, err
	}
	redeem := func(code string, user int64, now time.Time, join bool) error {
		return f.try(func(s *Store) error {
			got, err := s.RedeemInvite(ctx, code, user, now)
			if err != nil {
				return err
			}
			if got.ID != b.ID {
				t.Errorf("redeemed board %d, want %d", got.ID, b.ID)
			}
			if !join {
				return nil
			}
			if _, err := got.Join(user, now); err != nil {
				return err
			}
			return s.Save(ctx, got)
		})
	}
	code, err := invite(b.ID, t0, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^[A-Za-z0-9_-]{43}$`).MatchString(code) {
		t.Errorf("code %q does not fit a deep link", code)
	}
	var stored int
	if err := f.pool.QueryRow(ctx, `SELECT count(*) FROM board_invite WHERE code_hash = $1::text::bytea`, code).Scan(&stored); err != nil || stored != 0 {
		t.Errorf("the code itself is stored (%v)", err)
	}
	expired, err := invite(b.ID, t0, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		name string
		code string
		user int64
		now  time.Time
		join bool
		want error
	}{
		{"unknown code", "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", bob, at(time.Minute), false, board.ErrNotFound},
		{"malformed code", "not a code", bob, at(time.Minute), false, board.ErrNotFound},
		{"expired", expired, bob, at(2 * time.Minute), false, board.ErrInviteExpired},
		{"the creator", code, alice, at(time.Minute), false, board.ErrAlreadySeated},
		{"used", code, bob, at(time.Minute), true, nil},
		{"used twice", code, carol, at(2 * time.Minute), true, board.ErrInviteUsed},
	}
	for _, s := range steps {
		err := redeem(s.code, s.user, s.now, s.join)
		if (s.want == nil && err != nil) || !errors.Is(err, s.want) {
			t.Errorf("%s: %v, want %v", s.name, err, s.want)
		}
	}
	if got := f.get(t, b.ID); got.Status != board.Active || got.Seats[1].User != bob {
		t.Errorf("board after the invite: %v, seats %+v", got.Status, got.Seats)
	}
	if _, err := invite(b.ID, at(time.Hour), time.Hour); !errors.Is(err, board.ErrFull) {
		t.Errorf("invite to a started game: %v, want ErrFull", err)
	}
	if _, err := invite(b.ID+100, t0, time.Hour); !errors.Is(err, board.ErrNotFound) {
		t.Errorf("invite to no game: %v, want ErrNotFound", err)
	}
	if _, err := invite(b.ID, t0, 0); !errors.Is(err, board.ErrInvalid) {
		t.Errorf("invite without a lifetime: %v, want ErrInvalid", err)
	}
}

func TestInviteRedeemedAtOnce(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	b := f.create(t, f.spec("turkish", "none"), t0)
	var code string
	f.must(t, func(s *Store) error {
		var err error
		code, err = s.CreateInvite(ctx, b.ID, t0, time.Hour)
		return err
	})
	// Bob redeems and holds the invite; Carol's redeem waits for his transaction, then finds
	// the invite used.
	tx, err := f.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	got, err := New(tx).RedeemInvite(ctx, code, bob, at(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error)
	go func() {
		done <- f.try(func(s *Store) error {
			_, err := s.RedeemInvite(ctx, code, carol, at(time.Minute))
			return err
		})
	}()
	if _, err := got.Join(bob, at(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if err := New(tx).Save(ctx, got); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-done; !errors.Is(err, board.ErrInviteUsed) {
		t.Errorf("second redeemer: %v, want ErrInviteUsed", err)
	}
}

func TestUserBoards(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	waiting := f.create(t, f.spec("chess", "none"), t0)
	theirs := f.game(t, "russian", "corr1d")
	theirs = f.move(t, theirs.ID, at(time.Hour), "c3-d4") // bob to move
	mineLate := f.game(t, "russian", "corr3d")            // alice to move, deadline t0+72h
	mineSoon := f.game(t, "chess", "corr1d")              // alice to move, deadline t0+24h
	botSpec := f.spec("chase", "none")
	botSpec.Bot = board.BotStrong
	vsBot := f.create(t, botSpec, t0) // alice (Red) to move, no deadline
	done := f.game(t, "chess", "none")
	f.act(t, done.ID, func(b *board.Board) error { _, err := b.Resign(bob, t0); return err })

	var list []board.Info
	f.must(t, func(s *Store) error {
		var err error
		list, err = s.UserBoards(ctx, f.service, alice, 10)
		return err
	})
	var ids []int64
	for _, bi := range list {
		ids = append(ids, bi.ID)
	}
	want := []int64{mineSoon.ID, mineLate.ID, vsBot.ID, theirs.ID, waiting.ID}
	if !reflect.DeepEqual(ids, want) {
		t.Fatalf("alice's boards %v, want %v", ids, want)
	}
	first := list[0]
	if !first.MyTurn || first.Seat != 0 || first.Opponent.User != bob || first.Control != "corr1d" ||
		!first.Deadline.Equal(at(24*time.Hour)) || first.Status != board.Active || first.User != alice {
		t.Errorf("first entry %+v", first)
	}
	if list[2].Opponent.Bot != board.BotStrong || !list[2].MyTurn || !list[2].Deadline.IsZero() {
		t.Errorf("bot entry %+v", list[2])
	}
	if list[3].MyTurn || list[3].Ply != 1 || list[4].Status != board.Waiting || !list[4].Opponent.Empty() {
		t.Errorf("entries %+v %+v", list[3], list[4])
	}
	f.must(t, func(s *Store) error {
		var err error
		list, err = s.UserBoards(ctx, f.service, bob, 2)
		return err
	})
	if len(list) != 2 || list[0].ID != theirs.ID || !list[0].MyTurn || list[0].Seat != 1 {
		t.Errorf("bob's boards %+v", list)
	}
	f.must(t, func(s *Store) error {
		var err error
		list, err = s.UserBoards(ctx, f.service, bob, 0)
		return err
	})
	if len(list) != 3 {
		t.Errorf("bob has %d boards without a limit, want 3", len(list))
	}
}

func TestTimeControls(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	var got []board.TimeControl
	f.must(t, func(s *Store) error {
		var err error
		got, err = s.TimeControls(context.Background())
		return err
	})
	if want := board.Controls(); !reflect.DeepEqual(got, want) {
		t.Errorf("catalogue %+v, want %+v", got, want)
	}
	// A row that breaks its mode's rules is reported, not used.
	err := pgx.BeginFunc(context.Background(), f.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(context.Background(), `INSERT INTO board_time_control (name, mode) VALUES ('odd', 'fischer')`); err != nil {
			return err
		}
		_, err := New(tx).TimeControls(context.Background())
		return err
	})
	if !errors.Is(err, board.ErrInvalid) {
		t.Errorf("bad row: %v, want ErrInvalid", err)
	}
}
