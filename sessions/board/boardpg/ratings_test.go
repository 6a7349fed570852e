package boardpg

import (
	"context"
	"errors"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/questbot/questbot/sessions/board"
)

// Ensure a rated game writes a row of each player's rating history, with the rating the
// statistics hold, in the transaction of the result (a result rolled back leaves none); a later
// game rates players whose deviations grew meanwhile; a game against the bot writes none.
func TestRatingHistory(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	history := func(user int64) []board.RatingPoint {
		var h []board.RatingPoint
		f.must(t, func(s *Store) error {
			var err error
			h, err = s.RatingHistory(ctx, f.service, user)
			return err
		})
		return h
	}
	g1 := f.game(t, "chess", "none")
	f.act(t, g1.ID, func(b *board.Board) error { _, err := b.Resign(bob, at(time.Minute)); return err })
	// A finished game whose transaction is rolled back leaves no trace.
	g2 := f.game(t, "chess", "none")
	errRollback := errors.New("rolled back")
	err := f.try(func(s *Store) error {
		b, err := s.Lock(ctx, g2.ID)
		if err != nil {
			return err
		}
		if _, err := b.Resign(alice, at(time.Hour)); err != nil {
			return err
		}
		if err := s.Save(ctx, b); err != nil {
			return err
		}
		if h, err := s.RatingHistory(ctx, f.service, alice); err != nil || len(h) != 2 {
			t.Errorf("within the transaction: %d rows, %v", len(h), err)
		}
		return errRollback
	})
	if !errors.Is(err, errRollback) {
		t.Fatal(err)
	}
	if h := history(alice); len(h) != 1 {
		t.Fatalf("after a rollback: %d rows, want 1", len(h))
	}
	// Ten days later bob wins the game that was rolled back.
	later := at(10 * 24 * time.Hour)
	f.act(t, g2.ID, func(b *board.Board) error { _, err := b.Resign(alice, later); return err })
	// A game against the bot: no row.
	spec := f.spec("chess", "none")
	spec.Bot = board.BotEasy
	g3 := f.create(t, spec, t0)
	f.act(t, g3.ID, func(b *board.Board) error { _, err := b.Resign(alice, later); return err })

	a1, b1 := board.RateGame(board.NewGlicko(), board.NewGlicko(), 1)
	idle := later.Sub(at(time.Minute))
	a2, b2 := board.RateGame(a1.Age(idle), b1.Age(idle), 0)
	for user, want := range map[int64][]board.RatingPoint{
		alice: {{Variant: "chess", Board: g1.ID, At: at(time.Minute), Rating: a1}, {Variant: "chess", Board: g2.ID, At: later, Rating: a2}},
		bob:   {{Variant: "chess", Board: g1.ID, At: at(time.Minute), Rating: b1}, {Variant: "chess", Board: g2.ID, At: later, Rating: b2}},
	} {
		got := history(user)
		if len(got) != len(want) {
			t.Fatalf("history of %d: %+v", user, got)
		}
		for i := range got {
			g := got[i]
			if g.ID == 0 || g.Variant != want[i].Variant || g.Board != want[i].Board || !g.At.Equal(want[i].At) || g.Rating != want[i].Rating {
				t.Errorf("history of %d, row %d: %+v, want %+v", user, i, g, want[i])
			}
		}
		if got[1].ID <= got[0].ID {
			t.Errorf("history of %d: ids do not grow: %d, %d", user, got[0].ID, got[1].ID)
		}
	}
	if a2.Rating >= a1.Rating || b2.Rating <= b1.Rating {
		t.Errorf("the second game: alice %v → %v, bob %v → %v", a1.Rating, a2.Rating, b1.Rating, b2.Rating)
	}
	var st []board.Stats
	f.must(t, func(s *Store) error { st, err = s.UserStats(ctx, f.service, alice); return err })
	if len(st) != 1 || st[0].Rating != a2 || st[0].Rated != 2 || st[0].Played != 3 || !st[0].RatedAt.Equal(later) {
		t.Errorf("alice's stats %+v", st)
	}
}

// Ensure a leaderboard lists the best established players (higher rating first, then smaller
// deviation, then smaller id), the provisional ones apart in the same order, at most limit of
// each, and the asker's place; a deviation is aged to the moment asked by Glicko.Age's formula,
// so a player idle for long is provisional again.
func TestLeaderboard(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	now := at(400 * 24 * time.Hour)
	type row struct {
		user   int64
		rating float64
		rd     float64
		ago    time.Duration
	}
	day := 24 * time.Hour
	rows := []row{
		{1, 1700, 60, day},
		{2, 1800, 80, day},
		{3, 1700, 50, day},       // before 1 (smaller deviation)
		{4, 1700, 50, day},       // after 3 (same deviation, larger id)
		{5, 2100, 200, day},      // provisional
		{6, 1650, 100, 2 * day},  // established, near the limit
		{7, 1900, 60, 700 * day}, // idle for long: provisional again
		{8, 1400, 40, day},
		{9, 1450, 40, day},
		{10, 1500, 40, day},
		{11, 1550, 40, day},
		{12, 1600, 40, day},
		{13, 1300, 40, day},  // eleventh established: beyond the limit
		{14, 1500, 300, day}, // provisional
	}
	for _, r := range rows {
		_, err := f.pool.Exec(ctx, `INSERT INTO users (id, chat_id, first_name) VALUES ($1, $1, 'P')`, r.user)
		if err != nil {
			t.Fatal(err)
		}
		_, err = f.pool.Exec(ctx, `
			INSERT INTO board_stats (service_id, user_id, variant, played, won, rated, rating, deviation, volatility, rated_at, updated_at)
			VALUES ($1, $2, 'chess', 3, 3, 3, $3, $4, 0.06, $5, $5)`, f.service, r.user, r.rating, r.rd, now.Add(-r.ago))
		if err != nil {
			t.Fatal(err)
		}
	}
	// Another game's and another bot's players are not on it; neither is a player without
	// rated games.
	if _, err := f.pool.Exec(ctx, `
		INSERT INTO board_stats (service_id, user_id, variant, played, won, rated, rating, updated_at)
		VALUES ($1, 1, 'russian', 1, 1, 1, 2500, $2), ($1, $3, 'chess', 1, 1, 0, 1500, $2)`, f.service, now, alice); err != nil {
		t.Fatal(err)
	}
	top := func(user int64) *board.Leaderboard {
		var lb *board.Leaderboard
		f.must(t, func(s *Store) error {
			var err error
			lb, err = s.Leaderboard(ctx, f.service, "chess", user, now, 10)
			return err
		})
		return lb
	}
	users := func(list []board.Standing) []int64 {
		var ids []int64
		for i, s := range list {
			if s.Place != i+1 {
				t.Errorf("user %d at place %d, listed %d", s.User, s.Place, i+1)
			}
			ids = append(ids, s.User)
		}
		return ids
	}
	lb := top(13)
	if got, want := users(lb.Established), []int64{2, 3, 4, 1, 6, 12, 11, 10, 9, 8}; !slices.Equal(got, want) {
		t.Errorf("established: %v, want %v", got, want)
	}
	if got, want := users(lb.Provisional), []int64{5, 7, 14}; !slices.Equal(got, want) {
		t.Errorf("provisional: %v, want %v", got, want)
	}
	if lb.Me == nil || lb.Me.User != 13 || lb.Me.Place != 11 || lb.Me.Provisional || lb.Me.Games != 3 {
		t.Errorf("the asker's place: %+v", lb.Me)
	}
	// The deviations are those Glicko.Age gives.
	for _, s := range append(lb.Established, lb.Provisional...) {
		for _, r := range rows {
			if r.user != s.User {
				continue
			}
			want := board.Glicko{Rating: r.rating, RD: r.rd, Vol: 0.06}.Age(r.ago)
			if math.Abs(s.Rating.RD-want.RD) > 1e-6 || s.Rating.Rating != r.rating {
				t.Errorf("user %d: %+v, want %+v", s.User, s.Rating, want)
			}
			if s.Provisional != want.Provisional() {
				t.Errorf("user %d: provisional %v, want %v", s.User, s.Provisional, want.Provisional())
			}
		}
	}
	if lb := top(7); lb.Me == nil || !lb.Me.Provisional || lb.Me.Place != 2 {
		t.Errorf("an idle player's place: %+v", lb.Me)
	}
	if lb := top(alice); lb.Me != nil {
		t.Errorf("a player without rated games has a place: %+v", lb.Me)
	}
	// The same order as board.LeaderboardLess.
	for i := 1; i < len(lb.Established); i++ {
		if !board.LeaderboardLess(lb.Established[i-1], lb.Established[i]) {
			t.Errorf("places %d and %d out of order", i, i+1)
		}
	}
}
