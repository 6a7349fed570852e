package board

// The measured strength of the bot's levels, which the views show beside the level's name
// ("strong (≈1900)"). Only measured figures are listed: a game or level missing here shows its
// name alone.
//
// Chess: the rating on Stockfish's UCI_Elo scale (Stockfish 15.1, Debian's package, limited
// with UCI_LimitStrength to fixed ratings, 100 ms a move, as the anchors), each level searching
// as the bot does in play (its node limit, capped by the service's time a move in CPU time).
// Measured on 2026-11-27 in a quiet window (nothing else running on the two cores), with
//
//	questbot strength -levels easy -elo 1350,1550 -pairs 5 -seed 52
//	questbot strength -levels normal -elo 1600,1800,2000 -pairs 5 -seed 51
//	questbot strength -levels strong -elo 2000,2400 -pairs 5 -seed 41
//	questbot strength -levels strong -elo 2200,2600 -pairs 5 -seed 42
//
// the two runs of strong rated together (the most likely rating given all 40 games). Measure in
// a quiet window: Stockfish's 100 ms a move is wall time, and on a busy machine it searches
// less, which made earlier runs on a loaded machine read some 200 to 500 points too high.
//
// Other games: no figure yet. The ladder of fixed-depth searches (`questbot strength -ladder`,
// anchored at 1000 for depth 1) gives figures that compare a game's levels with each other
// only; a partial run for Russian draughts left the strong level unmeasured.

// levelRating is one measured figure: the estimate and its standard error, and how many games
// gave it.
type levelRating struct {
	Rating, Err, Games int
}

// levelRatings are the measured figures by game and level.
var levelRatings = map[string]map[BotLevel]levelRating{
	"chess": {
		BotEasy:   {Rating: 1393, Err: 82, Games: 20},
		BotNormal: {Rating: 1842, Err: 70, Games: 30},
		BotStrong: {Rating: 1907, Err: 83, Games: 40},
	},
}

// Rating returns the measured rating of level l in variant (see levelRatings), rounded to the
// nearest 50 as the views show it; ok is false when none was measured.
func (l BotLevel) Rating(variant string) (rating int, ok bool) {
	r, ok := levelRatings[variant][l]
	if !ok {
		return 0, false
	}
	return (r.Rating + 25) / 50 * 50, true
}
