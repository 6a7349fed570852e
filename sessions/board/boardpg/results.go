package boardpg

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/questbot/questbot/sessions/board"
)

// newStatsSQL makes sure a player has a statistics row (a first game starts at the defaults of
// the table: board.NewGlicko's).
const newStatsSQL = `
	INSERT INTO board_stats (service_id, user_id, variant, updated_at)
	VALUES ($1, $2, $3, $4)
	ON CONFLICT (service_id, user_id, variant) DO NOTHING`

// lockStatsSQL reads the players' ratings and locks their rows, in user order, so that two
// games of the same players finishing at once wait for each other instead of deadlocking.
const lockStatsSQL = `
	SELECT user_id, rating, deviation, volatility, rated_at FROM board_stats
	WHERE service_id = $1 AND variant = $2 AND user_id = ANY($3)
	ORDER BY user_id FOR UPDATE`

const updateStatsSQL = `
	UPDATE board_stats SET played = played + 1, won = won + $4, lost = lost + $5,
		drawn = drawn + $6, rated = rated + $7, rating = $8, deviation = $9, volatility = $10,
		rated_at = CASE WHEN $7 = 1 THEN $11 ELSE rated_at END, updated_at = $11
	WHERE service_id = $1 AND user_id = $2 AND variant = $3`

const historySQL = `
	INSERT INTO board_rating_history (service_id, user_id, variant, board_id, rated_at, rating, deviation, volatility)
	VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`

// recordResult adds a finished game to its players' statistics and, when rated, rates it
// (board.RateGame, each player's deviation first aged to the game's end), fills the seats'
// RatingBefore and RatingAfter, and writes both players' rows of the rating history.
func (s *Store) recordResult(ctx context.Context, b *board.Board) error {
	o := b.Outcome
	if o == nil {
		return fmt.Errorf("record result: finished without an outcome")
	}
	var users []int64
	for _, seat := range b.Seats {
		if seat.Human() {
			users = append(users, seat.User)
		}
	}
	slices.Sort(users)
	for _, u := range users {
		if _, err := s.tx.Exec(ctx, newStatsSQL, b.Service, u, b.Variant, b.Ended); err != nil {
			return fmt.Errorf("record result: %w", err)
		}
	}
	rows, _ := s.tx.Query(ctx, lockStatsSQL, b.Service, b.Variant, users)
	ratings := map[int64]board.Glicko{}
	var u int64
	var g board.Glicko
	var ratedAt *time.Time
	_, err := pgx.ForEachRow(rows, []any{&u, &g.Rating, &g.RD, &g.Vol, &ratedAt}, func() error {
		if ratedAt != nil {
			g = g.Age(b.Ended.Sub(*ratedAt))
		}
		ratings[u] = g
		return nil
	})
	if err != nil {
		return fmt.Errorf("record result: %w", err)
	}
	after := [2]board.Glicko{ratings[b.Seats[0].User], ratings[b.Seats[1].User]}
	if b.Rated {
		after[0], after[1] = board.RateGame(after[0], after[1], o.Score(0))
	}
	batch := &pgx.Batch{}
	for i, seat := range b.Seats {
		if !seat.Human() {
			continue
		}
		score := o.Score(i)
		won, lost, drawn, rated := 0, 0, 0, 0
		switch {
		case o.Draw:
			drawn = 1
		case score == 1:
			won = 1
		default:
			lost = 1
		}
		a := after[i]
		if b.Rated {
			rated = 1
			b.Seats[i].RatingBefore = int(math.Round(ratings[seat.User].Rating))
			b.Seats[i].RatingAfter = int(math.Round(a.Rating))
			batch.Queue(historySQL, b.Service, seat.User, b.Variant, b.ID, b.Ended, a.Rating, a.RD, a.Vol)
		}
		batch.Queue(updateStatsSQL, b.Service, seat.User, b.Variant, won, lost, drawn, rated, a.Rating, a.RD, a.Vol, b.Ended)
	}
	if err := s.tx.SendBatch(ctx, batch).Close(); err != nil {
		return fmt.Errorf("record result: %w", err)
	}
	return nil
}

const userStatsSQL = `
	SELECT variant, played, won, lost, drawn, rated, rating, deviation, volatility, rated_at FROM board_stats
	WHERE service_id = $1 AND user_id = $2 ORDER BY variant`

// UserStats returns a user's statistics and ratings in a bot, one per variant played.
func (s *Store) UserStats(ctx context.Context, service int, user int64) ([]board.Stats, error) {
	rows, _ := s.tx.Query(ctx, userStatsSQL, service, user)
	stats, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (board.Stats, error) {
		var st board.Stats
		var ratedAt *time.Time
		r := &st.Rating
		err := row.Scan(&st.Variant, &st.Played, &st.Won, &st.Lost, &st.Drawn, &st.Rated, &r.Rating, &r.RD, &r.Vol, &ratedAt)
		if ratedAt != nil {
			st.RatedAt = *ratedAt
		}
		return st, err
	})
	if err != nil {
		return nil, fmt.Errorf("stats of user %d: %w", user, err)
	}
	return stats, nil
}
