package boardpg

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/questbot/questbot/sessions/board"
)

// archiveGames stores alice's games of the archive's tests and returns their ids: a chess game
// bob resigned on day 1, a Russian draughts game with a clock she resigned to carol on day 3
// (open to spectators), a chess draw with bob on day 5, a game she resigned to the bot on day
// 7, and a game still being played.
func archiveGames(t *testing.T, f *fixture) (won, lost, drawn, botGame, active int64) {
	t.Helper()
	day := func(n int) time.Time { return t0.Add(time.Duration(n-1) * 24 * time.Hour) }
	g := f.game(t, "chess", "none")
	f.act(t, g.ID, func(b *board.Board) error { _, err := b.Resign(bob, day(1)); return err })
	won = g.ID

	b := f.create(t, f.spec("russian", "corr1d"), t0)
	f.act(t, b.ID, func(b *board.Board) error { _, err := b.Join(carol, t0); return err })
	f.act(t, b.ID, func(b *board.Board) error { _, err := b.Resign(alice, day(3)); return err })
	f.must(t, func(s *Store) error { return s.SetSpectators(context.Background(), b.ID, true, carol, day(3)) })
	lost = b.ID

	g = f.game(t, "chess", "none")
	f.act(t, g.ID, func(b *board.Board) error {
		if _, err := b.OfferDraw(alice, day(5)); err != nil {
			return err
		}
		_, err := b.AcceptDraw(bob, day(5))
		return err
	})
	drawn = g.ID

	spec := f.spec("russian", "none")
	spec.Bot = board.BotEasy
	b = f.create(t, spec, day(7))
	f.act(t, b.ID, func(b *board.Board) error { _, err := b.Resign(alice, day(7)); return err })
	botGame = b.ID

	active = f.game(t, "chess", "none").ID
	return
}

// archiveIDs returns the ids of a page of the archive.
func archiveIDs(t *testing.T, f *fixture, flt ArchiveFilter) []int64 {
	t.Helper()
	flt.Service = f.service
	if flt.Limit == 0 {
		flt.Limit = 10
	}
	var ids []int64
	f.must(t, func(s *Store) error {
		list, err := s.Archive(context.Background(), flt)
		for _, g := range list {
			ids = append(ids, g.ID)
		}
		return err
	})
	return ids
}

// Ensure the archive lists a player's finished games newest first, each filter selecting its
// games (game, clock, result as the player's, opponent or the bot, the days of the end), the
// cursor giving the games after a page, and a viewer seeing someone else's games only when they
// play in them or may watch them.
func TestArchiveFilters(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	won, lost, drawn, botGame, _ := archiveGames(t, f)
	for _, c := range []struct {
		name string
		flt  ArchiveFilter
		want []int64
	}{
		{"all", ArchiveFilter{}, []int64{botGame, drawn, lost, won}},
		{"chess", ArchiveFilter{Variant: "chess"}, []int64{drawn, won}},
		{"corr1d", ArchiveFilter{Control: "corr1d"}, []int64{lost}},
		{"won", ArchiveFilter{Result: ResultWin}, []int64{won}},
		{"lost", ArchiveFilter{Result: ResultLoss}, []int64{botGame, lost}},
		{"drawn", ArchiveFilter{Result: ResultDraw}, []int64{drawn}},
		{"bob", ArchiveFilter{Opponent: bob}, []int64{drawn, won}},
		{"the bot", ArchiveFilter{OpponentBot: true}, []int64{botGame}},
		{"days 2 to 5", ArchiveFilter{From: t0.Add(24 * time.Hour), To: t0.Add(5 * 24 * time.Hour)}, []int64{drawn, lost}},
		{"days 2 to 4", ArchiveFilter{From: t0.Add(24 * time.Hour), To: t0.Add(4 * 24 * time.Hour)}, []int64{lost}},
		{"a page", ArchiveFilter{Limit: 2}, []int64{botGame, drawn}},
		{"after it", ArchiveFilter{Limit: 2, Before: drawn}, []int64{lost, won}},
		{"bob's chess losses", ArchiveFilter{Variant: "chess", Result: ResultLoss, Opponent: bob}, nil},
	} {
		c.flt.User, c.flt.Viewer = alice, alice
		if got := archiveIDs(t, f, c.flt); fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
	// Others see alice's games they played, and the one open to spectators.
	for viewer, want := range map[int64][]int64{bob: {drawn, lost, won}, carol: {lost}, 0: {lost}} {
		if got := archiveIDs(t, f, ArchiveFilter{User: alice, Viewer: viewer}); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("alice's games as %d sees them: %v, want %v", viewer, got, want)
		}
	}
	// Bob's archive as he sees it: his games, the result his.
	if got := archiveIDs(t, f, ArchiveFilter{User: bob, Viewer: bob, Result: ResultLoss}); fmt.Sprint(got) != fmt.Sprint([]int64{won}) {
		t.Errorf("bob's losses: %v", got)
	}
	f.must(t, func(s *Store) error {
		if _, err := s.Archive(context.Background(), ArchiveFilter{Service: f.service, User: alice, Result: "lose"}); err == nil {
			t.Errorf("an unknown result is taken")
		}
		ops, err := s.Opponents(context.Background(), f.service, alice, 10)
		if fmt.Sprint(ops) != fmt.Sprint([]int64{bob, carol}) {
			t.Errorf("alice's opponents: %v", ops)
		}
		return err
	})
}

// Ensure a board has one rematch, read back as stored.
func TestRematchRecord(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	won, lost, _, _, _ := archiveGames(t, f)
	f.must(t, func(s *Store) error {
		ctx := context.Background()
		if _, ok, err := s.RematchOf(ctx, won); ok || err != nil {
			t.Fatalf("a rematch before any: %v %v", ok, err)
		}
		if added, err := s.AddRematch(ctx, won, Rematch{Board: lost, OfferedBy: 1}); !added || err != nil {
			t.Fatalf("add a rematch: %v %v", added, err)
		}
		if added, err := s.AddRematch(ctx, won, Rematch{Board: lost, OfferedBy: 0}); added || err != nil {
			t.Fatalf("a second rematch: %v %v", added, err)
		}
		r, ok, err := s.RematchOf(ctx, won)
		if !ok || err != nil || r != (Rematch{Board: lost, OfferedBy: 1}) {
			t.Fatalf("the rematch: %+v %v %v", r, ok, err)
		}
		return nil
	})
}

// Ensure a page of a long history is a walk of board_seat_user_board_idx that stops with the
// page: no sort of the player's games, whatever the filters, the cursor among them.
func TestArchivePlan(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	won, _, _, _, _ := archiveGames(t, f)
	ctx := context.Background()
	// A long history among many more games: 25,000 finished games, copies of the first (the
	// seed numbers them), of which every twentieth is alice's against bob and the others bob's
	// against carol.
	_, err := f.pool.Exec(ctx, `
		WITH b AS (
			INSERT INTO board_session (service_id, variant, options, seed, control, clock_mode, status, created_by,
				created_at, started_at, ended_at, start_position, position, ply, to_move, rated, result, winner, end_reason)
			SELECT service_id, CASE WHEN i % 3 = 0 THEN 'russian' ELSE variant END, options, i, control, clock_mode,
				status, created_by, created_at, started_at, ended_at + i * interval '1 minute', start_position, position,
				ply, to_move, rated, result, winner, end_reason
			FROM board_session, generate_series(1, 25000) AS n (i) WHERE id = $1
			RETURNING id, seed)
		INSERT INTO board_seat (board_id, seat, user_id)
		SELECT id, s, CASE WHEN s = 1 THEN $3::bigint WHEN seed % 20 = 0 THEN $2::bigint ELSE $4::bigint END
		FROM b, (VALUES (0), (1)) AS seats (s)`, won, alice, bob, carol)
	if err != nil {
		t.Fatal(err)
	}
	for _, table := range []string{"board_session", "board_seat", "board_spectators"} {
		if _, err := f.pool.Exec(ctx, "VACUUM ANALYZE "+table); err != nil {
			t.Fatal(err)
		}
	}
	for name, flt := range map[string]ArchiveFilter{
		"first page":        {Limit: 31},
		"a page further on": {Limit: 31, Before: won + 12500},
		"filtered":          {Limit: 31, Variant: "russian", Result: ResultWin, Opponent: bob},
		"someone else's":    {Limit: 31, Viewer: carol},
	} {
		flt.Service, flt.User = f.service, alice
		if flt.Viewer == 0 {
			flt.Viewer = alice
		}
		f.must(t, func(s *Store) error {
			q, args := archiveQuery(flt)
			rows, _ := s.tx.Query(ctx, "EXPLAIN "+q, args...)
			lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
			if err != nil {
				return err
			}
			plan := strings.Join(lines, "\n")
			// The player's seats come from an index, in the order of the page: none is sorted.
			// From the top, it is this one's walk; further on, the planner may walk the board ids
			// of the seats' unique key down from the cursor instead, as cheap.
			walk := "Backward using board_seat_user_board_idx on board_seat s"
			if flt.Before != 0 {
				walk = "Backward using board_seat_"
			}
			if !strings.HasPrefix(plan, "Limit") || !strings.Contains(plan, walk) || strings.Contains(plan, "Sort Key: s.board_id") {
				t.Errorf("%s: the plan is not a walk of the index:\n%s", name, plan)
			}
			start := time.Now()
			list, err := s.Archive(ctx, flt)
			t.Logf("%s: %d games in %v", name, len(list), time.Since(start))
			return err
		})
	}
}
