package board

import "math"

// Elo parameters: every player starts at EloStart, and a game moves the ratings by at most
// EloK points.
const (
	EloStart = 1500
	EloK     = 32
)

// expectedScore returns the score a player rated a is expected to make against one rated b:
// 1/(1+10^((b−a)/400)), between 0 and 1.
func expectedScore(a, b int) float64 {
	return 1 / (1 + math.Pow(10, float64(b-a)/400))
}

// eloDelta returns the points a player rated a wins (or, negative, loses) against one rated b
// by scoring score (1 for a win, 0.5 for a draw, 0 for a loss): EloK·(score − expected),
// rounded half away from zero. The opponent's change is its negation, so ratings are whole
// numbers and no points are made or lost overall.
func eloDelta(a, b int, score float64) int {
	return int(math.Round(EloK * (score - expectedScore(a, b))))
}

// Rate returns both players' new ratings after a game in which the first, rated a, scored
// score against the second, rated b.
func Rate(a, b int, score float64) (int, int) {
	d := eloDelta(a, b, score)
	return a + d, b - d
}
