package boardpg

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/questbot/questbot/migrations/pgtest"
	"github.com/questbot/questbot/sessions/board"
)

// BenchmarkMove measures one move stored end to end, as a player's update does it: begin,
// lock the board (reading its seats and moves), replay it (Game), play the move, save,
// commit. Games
// run to their end (then a new one starts), so the moves are spread over games of every
// length.
func BenchmarkMove(b *testing.B) {
	pool := pgtest.New(b)
	ctx := context.Background()
	var service int
	if err := pool.QueryRow(ctx, `INSERT INTO service (username) VALUES ('bench') RETURNING id`).Scan(&service); err != nil {
		b.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `INSERT INTO users (id, chat_id) VALUES ($1, $1), ($2, $2)`, alice, bob); err != nil {
		b.Fatal(err)
	}
	newGame := func() int64 {
		bd, _, err := board.Open(board.Spec{Service: service, Creator: alice, Variant: "chess", Seed: 5}, t0)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := bd.Join(bob, t0); err != nil {
			b.Fatal(err)
		}
		if err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error { return New(tx).Create(ctx, bd) }); err != nil {
			b.Fatal(err)
		}
		return bd.ID
	}
	id := newGame()
	plies := 0
	for b.Loop() {
		finished := false
		err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
			s := New(tx)
			bd, err := s.Lock(ctx, id)
			if err != nil {
				return err
			}
			g, err := bd.Game()
			if err != nil {
				return err
			}
			legal := g.LegalMoves()
			mv := legal[bd.Ply()*7919%len(legal)].String()
			if _, err := bd.Move(bd.Seats[bd.ToMove].User, mv, bd.Ply(), t0.Add(time.Duration(bd.Ply())*time.Second)); err != nil {
				return err
			}
			finished = bd.Status != board.Active
			plies++
			return s.Save(ctx, bd)
		})
		if err != nil {
			b.Fatal(err)
		}
		if finished {
			id = newGame()
		}
	}
	b.ReportMetric(float64(plies), "moves")
}
