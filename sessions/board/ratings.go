package board

import (
	"context"
	"time"
)

// Ratings reads the ratings the store keeps (boardpg implements it): the rating history of a
// player and the leaderboards, bound to the caller's transaction. The ratings themselves are
// written by Store.Save, with the result of the game that moves them.
type Ratings interface {
	// RatingHistory returns a user's rating after each of their rated games in a bot, by
	// variant, then in the order played.
	RatingHistory(ctx context.Context, service int, user int64) ([]RatingPoint, error)
	// Leaderboard returns the best players of a variant in a bot as of now (their deviations
	// aged to now, see Glicko.Age): at most limit established players and at most limit
	// provisional ones, and user's own standing.
	Leaderboard(ctx context.Context, service int, variant string, user int64, now time.Time, limit int) (*Leaderboard, error)
}

// RatingPoint is a player's rating after a rated game: a row of their rating history.
type RatingPoint struct {
	// ID grows with every row written, so the last row's names a history as it stands.
	ID      int64
	Variant string
	Board   int64
	At      time.Time
	Rating  Glicko
}

// Standing is a player's place on a leaderboard.
type Standing struct {
	User int64
	// Rating is the player's rating as of the leaderboard's time (the deviation aged).
	Rating Glicko
	// Games is the number of their rated games.
	Games int
	// Place counts from 1 among the established players, or among the provisional ones.
	Place       int
	Provisional bool
}

// Leaderboard is the best players of a variant in a bot, in the order of LeaderboardLess.
type Leaderboard struct {
	Variant string
	// Established are the best players whose rating is established (RD ≤ ProvisionalRD),
	// Provisional the best of the others.
	Established, Provisional []Standing
	// Me is the asker's standing; nil when they have no rated game in the variant.
	Me *Standing
}

// LeaderboardLess is the order of a leaderboard: the higher rating first, then the smaller
// deviation, then the smaller user id, so that the order is the same on every reading.
func LeaderboardLess(a, b Standing) bool {
	if a.Rating.Rating != b.Rating.Rating {
		return a.Rating.Rating > b.Rating.Rating
	}
	if a.Rating.RD != b.Rating.RD {
		return a.Rating.RD < b.Rating.RD
	}
	return a.User < b.User
}
