package boardpg

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/questbot/questbot/sessions/board"
)

var _ board.Ratings = (*Store)(nil)

const historyOfSQL = `
	SELECT id, variant, board_id, rated_at, rating, deviation, volatility FROM board_rating_history
	WHERE service_id = $1 AND user_id = $2
	ORDER BY variant, rated_at, id`

// RatingHistory implements board.Ratings.
func (s *Store) RatingHistory(ctx context.Context, service int, user int64) ([]board.RatingPoint, error) {
	rows, _ := s.tx.Query(ctx, historyOfSQL, service, user)
	list, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (board.RatingPoint, error) {
		var p board.RatingPoint
		err := row.Scan(&p.ID, &p.Variant, &p.Board, &p.At, &p.Rating.Rating, &p.Rating.RD, &p.Rating.Vol)
		return p, err
	})
	if err != nil {
		return nil, fmt.Errorf("rating history of user %d: %w", user, err)
	}
	return list, nil
}

// leaderboardSQL ranks the rated players of a variant as of $3: each deviation aged to then by
// board.Glicko.Age's formula (RD' = √(RD² + (173.7178·σ)²·t), t the idle time in rating periods
// of $4 seconds, at most 350), established (RD' ≤ $5) and provisional players apart, each in
// the order of board.LeaderboardLess; it returns the first $6 of each, and user $7.
const leaderboardSQL = `
	WITH aged AS (
		SELECT user_id, rating, volatility, rated,
			least(350, sqrt(deviation ^ 2 + (173.7178 * volatility) ^ 2
				* greatest(0, extract(epoch FROM $3::timestamptz - rated_at)) / $4)) AS rd
		FROM board_stats
		WHERE service_id = $1 AND variant = $2 AND rated > 0
	), ranked AS (
		SELECT *, rd > $5 AS provisional,
			row_number() OVER (PARTITION BY rd > $5 ORDER BY rating DESC, rd, user_id) AS place
		FROM aged
	)
	SELECT user_id, rating, rd, volatility, rated, place, provisional FROM ranked
	WHERE place <= $6 OR user_id = $7
	ORDER BY provisional, place`

// Leaderboard implements board.Ratings.
func (s *Store) Leaderboard(ctx context.Context, service int, variant string, user int64, now time.Time, limit int) (*board.Leaderboard, error) {
	rows, _ := s.tx.Query(ctx, leaderboardSQL, service, variant, now, board.RatingPeriod.Seconds(),
		board.ProvisionalRD, limit, user)
	list, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (board.Standing, error) {
		var st board.Standing
		err := row.Scan(&st.User, &st.Rating.Rating, &st.Rating.RD, &st.Rating.Vol, &st.Games, &st.Place, &st.Provisional)
		return st, err
	})
	if err != nil {
		return nil, fmt.Errorf("leaderboard of %s: %w", variant, err)
	}
	lb := &board.Leaderboard{Variant: variant}
	for _, st := range list {
		if st.User == user {
			me := st
			lb.Me = &me
		}
		if st.Place > limit {
			continue
		}
		if st.Provisional {
			lb.Provisional = append(lb.Provisional, st)
		} else {
			lb.Established = append(lb.Established, st)
		}
	}
	return lb, nil
}
