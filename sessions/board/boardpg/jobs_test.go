package boardpg

import (
	"context"
	"errors"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/questbot/questbot/sessions/board"
)

// holding runs fn in a transaction left open until the test has run check, then commits it:
// check sees what a second process sees while the first holds its claims.
func (f *fixture) holding(t *testing.T, fn func(s *Store) error, check func()) {
	t.Helper()
	ctx := context.Background()
	tx, err := f.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if err := fn(New(tx)); err != nil {
		t.Fatal(err)
	}
	check()
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
}

func ids(bs []*board.Board) []int64 {
	var out []int64
	for _, b := range bs {
		out = append(out, b.ID)
	}
	return out
}

func TestClaimExpired(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	late := f.game(t, "russian", "corr1d") // alice's deadline t0+24h
	later := f.game(t, "chess", "corr3d")  // alice's deadline t0+72h
	f.game(t, "chess", "none")             // no deadline
	bot := f.spec("chess", "corr1d")       // the bot to move: no deadline
	bot.Bot, bot.Side = board.BotEasy, board.SideSecond
	f.create(t, bot, t0)
	now := at(100 * time.Hour)

	claim := func(s *Store) ([]*board.Board, error) { return s.ClaimExpired(ctx, now, 10) }
	var first []*board.Board
	f.holding(t, func(s *Store) error {
		var err error
		if first, err = claim(s); err != nil {
			return err
		}
		for _, b := range first {
			if _, err := b.Expire(now); err != nil {
				return err
			}
			if err := s.Save(ctx, b); err != nil {
				return err
			}
		}
		return nil
	}, func() {
		// A second process meanwhile finds nothing to do.
		f.must(t, func(s *Store) error {
			second, err := claim(s)
			if len(second) != 0 {
				t.Errorf("second process claimed %v", ids(second))
			}
			return err
		})
	})
	if got := ids(first); len(got) != 2 || got[0] != late.ID || got[1] != later.ID {
		t.Fatalf("claimed %v, want [%d %d]", got, late.ID, later.ID)
	}
	for _, id := range []int64{late.ID, later.ID} {
		if b := f.get(t, id); b.Status != board.Finished || b.Outcome.End != board.EndTimeout || b.Outcome.Winner != 1 {
			t.Errorf("board %d: %v %+v", id, b.Status, b.Outcome)
		}
	}
	f.must(t, func(s *Store) error {
		again, err := claim(s)
		if len(again) != 0 {
			t.Errorf("settled twice: %v", ids(again))
		}
		return err
	})
	// A timeout in a game between users is rated like any result.
	var stats []board.Stats
	f.must(t, func(s *Store) error {
		var err error
		stats, err = s.UserStats(ctx, f.service, bob)
		return err
	})
	if len(stats) != 2 || stats[0].Won != 1 || stats[0].Rated != 1 || math.Round(stats[0].Rating.Rating) != 1662 {
		t.Errorf("bob's stats %+v", stats)
	}
}

func TestClaimBotTurns(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	spec := f.spec("russian", "blitz10+5")
	spec.Bot, spec.Side = board.BotEasy, board.SideSecond
	b := f.create(t, spec, t0) // the bot (white) moves first
	human := f.spec("russian", "none")
	human.Bot = board.BotEasy
	f.create(t, human, t0) // alice moves first: not the bot's turn
	lease := time.Minute
	claim := func(now time.Time) []*board.Board {
		var got []*board.Board
		f.must(t, func(s *Store) error {
			var err error
			got, err = s.ClaimBotTurns(ctx, now, lease, 10, 10)
			return err
		})
		return got
	}
	var claimed []*board.Board
	f.holding(t, func(s *Store) error {
		var err error
		claimed, err = s.ClaimBotTurns(ctx, t0, lease, 10, 10)
		return err
	}, func() {
		if got := claim(t0); len(got) != 0 {
			t.Errorf("two workers claimed %v", ids(got))
		}
	})
	if got := ids(claimed); len(got) != 1 || got[0] != b.ID {
		t.Fatalf("claimed %v, want [%d]", got, b.ID)
	}
	if got := claim(at(30 * time.Second)); len(got) != 0 {
		t.Errorf("claimed %v within the lease", ids(got))
	}
	// The worker died: the turn is claimed again once its lease runs out.
	again := claim(at(2 * time.Minute))
	if len(again) != 1 || again[0].Revision() != claimed[0].Revision() {
		t.Fatalf("after the lease: %v", ids(again))
	}
	// The worker plays the computed move if the board is still at the claimed revision.
	g, err := again[0].Rebuild()
	if err != nil {
		t.Fatal(err)
	}
	mv, _, err := g.BestMove(ctx, board.BotEasy.Limits(g.Variant()))
	if err != nil {
		t.Fatal(err)
	}
	played := f.act(t, b.ID, func(locked *board.Board) error {
		if locked.Revision() != again[0].Revision() {
			t.Fatal("revision moved")
		}
		_, err := locked.Move(board.BotUser, mv.String(), locked.Ply(), at(2*time.Minute))
		return err
	})
	if played.Ply() != 1 || played.ToMove != 1 || played.Seats[0].Clock != 10*time.Minute || played.Deadline.IsZero() {
		t.Errorf("after the bot's move: ply %d, to move %d, bot clock %v, deadline %v",
			played.Ply(), played.ToMove, played.Seats[0].Clock, played.Deadline)
	}
	if got := claim(at(time.Hour)); len(got) != 0 {
		t.Errorf("claimed %v on the player's turn", ids(got))
	}
	// A turn that comes back after an undo is a new turn, claimable at once, and a result
	// computed for the old one is stale.
	g, err = f.get(t, b.ID).Rebuild()
	if err != nil {
		t.Fatal(err)
	}
	reply := g.LegalMoves()[0].String()
	f.move(t, b.ID, at(3*time.Minute), reply)
	old := claim(at(3 * time.Minute))
	f.act(t, b.ID, func(b *board.Board) error { _, err := b.Undo(alice, at(3*time.Minute+10*time.Second)); return err })
	f.move(t, b.ID, at(3*time.Minute+20*time.Second), reply)
	fresh := claim(at(3*time.Minute + 30*time.Second)) // within the old lease
	if len(old) != 1 || len(fresh) != 1 || fresh[0].Ply() != old[0].Ply() || fresh[0].Revision() == old[0].Revision() {
		t.Fatalf("claims around an undo: %v %v", ids(old), ids(fresh))
	}
	f.must(t, func(s *Store) error {
		locked, err := s.Lock(ctx, b.ID)
		if err == nil && locked.Revision() == old[0].Revision() {
			t.Error("a stale claim passes the revision check")
		}
		return err
	})
}

func TestClaimReminders(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	b := f.game(t, "russian", "corr1d")
	b = f.move(t, b.ID, at(time.Hour), "c3-d4") // bob's deadline: t0+25h
	f.game(t, "chess", "blitz10+5")             // not correspondence
	claim := func(now time.Time) []board.Reminder {
		var got []board.Reminder
		f.must(t, func(s *Store) error {
			var err error
			got, err = s.ClaimReminders(ctx, now, 10)
			return err
		})
		return got
	}
	if got := claim(at(22*time.Hour + 59*time.Minute)); len(got) != 0 {
		t.Errorf("reminded early: %+v", got)
	}
	stale := f.get(t, b.ID)
	var first []board.Reminder
	f.holding(t, func(s *Store) error {
		var err error
		first, err = s.ClaimReminders(ctx, at(23*time.Hour), 10)
		return err
	}, func() {
		if got := claim(at(23 * time.Hour)); len(got) != 0 {
			t.Errorf("two processes remind: %+v", got)
		}
	})
	want := board.Reminder{Board: b.ID, Service: f.service, User: bob, Seat: 1, Ply: 1, Deadline: at(25 * time.Hour)}
	if len(first) != 1 || first[0] != want {
		t.Fatalf("reminders %+v, want %+v", first, want)
	}
	if got := claim(at(24 * time.Hour)); len(got) != 0 {
		t.Errorf("reminded twice in a ply: %+v", got)
	}
	// The mark is part of the board: saving a board read before the reminder fails.
	if _, err := stale.Seen(bob, 1); err != nil {
		t.Fatal(err)
	}
	if err := f.try(func(s *Store) error { return s.Save(ctx, stale) }); !errors.Is(err, board.ErrStale) {
		t.Errorf("save of a board read before the reminder: %v, want ErrStale", err)
	}
	b = f.get(t, b.ID)
	if !b.Reminded || b.Remind(at(24*time.Hour)) {
		t.Errorf("stored mark %v", b.Reminded)
	}
	f.move(t, b.ID, at(24*time.Hour), "f6-g5") // alice's deadline: t0+48h
	if got := claim(at(48*time.Hour + time.Second)); len(got) != 0 {
		t.Errorf("reminded after the deadline: %+v", got)
	}
	if got := claim(at(47 * time.Hour)); len(got) != 1 || got[0].User != alice || got[0].Ply != 2 {
		t.Errorf("next ply: %+v", got)
	}
}

func TestCleanup(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	stale := f.create(t, f.spec("chess", "none"), t0)
	fresh := f.create(t, f.spec("chess", "none"), at(2*24*time.Hour))
	var expired, valid string
	f.must(t, func(s *Store) error {
		var err error
		if expired, err = s.CreateInvite(ctx, fresh.ID, t0, time.Hour); err != nil {
			return err
		}
		valid, err = s.CreateInvite(ctx, fresh.ID, at(8*24*time.Hour), time.Hour)
		return err
	})
	now := at(8 * 24 * time.Hour)
	var aborted []board.Info
	var dropped int
	f.holding(t, func(s *Store) error {
		var err error
		aborted, dropped, err = s.Cleanup(ctx, now, 10)
		return err
	}, func() {
		f.must(t, func(s *Store) error {
			again, _, err := s.Cleanup(ctx, now, 10)
			if len(again) != 0 {
				t.Errorf("second process aborted %+v", again)
			}
			return err
		})
	})
	if len(aborted) != 1 || aborted[0].ID != stale.ID || aborted[0].User != alice || aborted[0].Status != board.Aborted {
		t.Errorf("aborted %+v", aborted)
	}
	if dropped != 1 {
		t.Errorf("%d invites dropped, want 1", dropped)
	}
	if b := f.get(t, stale.ID); b.Status != board.Aborted || !b.Ended.Equal(now) {
		t.Errorf("stale board %v %v", b.Status, b.Ended)
	}
	err := f.try(func(s *Store) error { _, err := s.RedeemInvite(ctx, expired, bob, now); return err })
	if !errors.Is(err, board.ErrNotFound) {
		t.Errorf("dropped invite: %v, want ErrNotFound", err)
	}
	err = f.try(func(s *Store) error { _, err := s.RedeemInvite(ctx, valid, bob, now); return err })
	if err != nil {
		t.Errorf("valid invite: %v", err)
	}
}

func TestResults(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	stats := func(user int64) []board.Stats {
		var st []board.Stats
		f.must(t, func(s *Store) error {
			var err error
			st, err = s.UserStats(ctx, f.service, user)
			return err
		})
		return st
	}
	// alice beats bob, then they draw; both rated.
	g1 := f.game(t, "chess", "none")
	g1 = f.act(t, g1.ID, func(b *board.Board) error { _, err := b.Resign(bob, at(time.Minute)); return err })
	// Two newcomers (1500 ± 350): the winner gains about 162 points, the loser loses as many.
	if s := g1.Seats; s[0].RatingBefore != 1500 || s[0].RatingAfter != 1662 || s[1].RatingAfter != 1338 {
		t.Errorf("seats after the first game %+v", s)
	}
	if got := f.get(t, g1.ID); got.Seats != g1.Seats {
		t.Errorf("stored seats %+v", got.Seats)
	}
	g2 := f.game(t, "chess", "none")
	f.act(t, g2.ID, func(b *board.Board) error {
		if _, err := b.OfferDraw(bob, at(time.Minute)); err != nil {
			return err
		}
		_, err := b.AcceptDraw(alice, at(time.Minute))
		return err
	})
	// alice loses to the bot: counted, not rated.
	spec := f.spec("chess", "none")
	spec.Bot = board.BotNormal
	g3 := f.create(t, spec, t0)
	f.act(t, g3.ID, func(b *board.Board) error { _, err := b.Resign(alice, at(time.Minute)); return err })
	// A game in another variant has its own row.
	g4 := f.game(t, "russian", "none")
	f.act(t, g4.ID, func(b *board.Board) error { _, err := b.Resign(alice, at(time.Minute)); return err })

	// The ratings as Glicko-2 makes them, game by game (all at t0 plus a minute: no deviation
	// grows between them).
	a1, b1 := board.RateGame(board.NewGlicko(), board.NewGlicko(), 1)
	a2, b2 := board.RateGame(a1, b1, 0.5)
	ra, rb := board.RateGame(board.NewGlicko(), board.NewGlicko(), 0)
	end := at(time.Minute)
	wantAlice := []board.Stats{
		{Variant: "chess", Played: 3, Won: 1, Lost: 1, Drawn: 1, Rated: 2, Rating: a2, RatedAt: end},
		{Variant: "russian", Played: 1, Lost: 1, Rated: 1, Rating: ra, RatedAt: end},
	}
	wantBob := []board.Stats{
		{Variant: "chess", Played: 2, Lost: 1, Drawn: 1, Rated: 2, Rating: b2, RatedAt: end},
		{Variant: "russian", Played: 1, Won: 1, Rated: 1, Rating: rb, RatedAt: end},
	}
	for user, want := range map[int64][]board.Stats{alice: wantAlice, bob: wantBob} {
		got := stats(user)
		for i := range got {
			got[i].RatedAt = got[i].RatedAt.UTC()
		}
		if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
			t.Errorf("stats of %d: %+v, want %+v", user, got, want)
		}
	}
	if got := stats(carol); len(got) != 0 {
		t.Errorf("carol has stats %+v", got)
	}
	// Saving a finished board again records nothing twice.
	err := pgx.BeginFunc(ctx, f.pool, func(tx pgx.Tx) error {
		s := New(tx)
		b, err := s.Lock(ctx, g1.ID)
		if err != nil {
			return err
		}
		if _, err := b.Seen(bob, 0); err != nil {
			return err
		}
		return s.Save(ctx, b)
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := stats(alice); got[0].Played != 3 || got[0].Rating != a2 {
		t.Errorf("stats after a second save %+v", got[0])
	}
}

// Ensure the store's choice of boards to remind is board.NeedsClockReminder's, over clocks of one
// to ten minutes, turns begun with all or little of the time, and every moment of the turn.
func TestClockLeadBoardsAgreeWithTheRule(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	var boards []*board.Board
	for _, mins := range []time.Duration{1, 2, 3, 5, 10} {
		for _, used := range []time.Duration{0, 20 * time.Second, 70 * time.Second} {
			spec := f.spec("russian", "none")
			spec.Control = board.TimeControl{Name: "test", Mode: board.ClockFischer, Main: mins * time.Minute}
			b := f.create(t, spec, t0)
			b = f.act(t, b.ID, func(b *board.Board) error { _, err := b.Join(bob, t0); return err })
			// The turn began at t0 with `used` already gone from the clock.
			if _, err := f.pool.Exec(ctx, `UPDATE board_session SET turn_started_at = $2, deadline = $3 WHERE id = $1`,
				b.ID, t0, t0.Add(mins*time.Minute-used)); err != nil {
				t.Fatal(err)
			}
			boards = append(boards, f.get(t, b.ID))
		}
	}
	reminders := 0
	for at := time.Duration(0); at <= 10*time.Minute; at += 5 * time.Second {
		now := t0.Add(at)
		var got []board.Ref
		f.must(t, func(s *Store) error {
			var err error
			got, err = s.ClockLeadBoards(ctx, now, 1000)
			return err
		})
		due := map[int64]bool{}
		for _, r := range got {
			due[r.ID] = true
		}
		reminders += len(got)
		for _, b := range boards {
			if want := b.NeedsClockReminder(now); due[b.ID] != want {
				t.Fatalf("at %v, board of %v with %v at the start: store says %v, the rule %v",
					at, b.Control.Main, b.Deadline.Sub(b.TurnStarted), due[b.ID], want)
			}
		}
	}
	if reminders == 0 {
		t.Fatal("no board was ever due a reminder")
	}
}

// Ensure the bot's turns are claimed in turn by player: a player's first waiting turn before
// anybody's second, and a player with a turn being searched after those with none, whatever
// the order in which the turns began.
func TestClaimBotTurnsServesPlayersInTurn(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	botFirst := func(user int64, at time.Time) *board.Board {
		spec := f.spec("russian", "none")
		spec.Creator, spec.Bot, spec.Side = user, board.BotEasy, board.SideSecond
		return f.create(t, spec, at)
	}
	var alices []int64
	for i := range 4 {
		alices = append(alices, botFirst(alice, at(time.Duration(i)*time.Second)).ID)
	}
	bobs := botFirst(bob, at(10*time.Second)).ID
	carols := botFirst(carol, at(20*time.Second)).ID
	per := 10
	claim := func(now time.Time, n int) []int64 {
		var got []*board.Board
		f.must(t, func(s *Store) error {
			var err error
			got, err = s.ClaimBotTurns(ctx, now, time.Minute, n, per)
			return err
		})
		return slices.Sorted(slices.Values(ids(got)))
	}
	now := at(time.Minute)
	// Alice's oldest turn, then Bob's, though Alice's others waited longer.
	if got := claim(now, 2); !slices.Equal(got, []int64{alices[0], bobs}) {
		t.Fatalf("first claim %v, want %v", got, []int64{alices[0], bobs})
	}
	// Alice has a turn being searched, Carol none: Carol's goes first.
	if got := claim(now, 1); !slices.Equal(got, []int64{carols}) {
		t.Fatalf("second claim %v, want Carol's %d", got, carols)
	}
	// With two turns searched at most per player, Alice, who has one, gets one more; with
	// more allowed, the rest, in the order they began.
	per = 2
	if got := claim(now, 5); !slices.Equal(got, alices[1:2]) {
		t.Fatalf("third claim, two searches a player: %v, want %v", got, alices[1:2])
	}
	per = 10
	if got := claim(now, 5); !slices.Equal(got, alices[2:]) {
		t.Fatalf("fourth claim %v, want %v", got, alices[2:])
	}
}
