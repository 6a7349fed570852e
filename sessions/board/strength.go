package board

// The measured strength of the bot's levels, which the views show beside the level's name
// ("strong (≈2450)"). Only measured figures are listed: a game or level missing here shows its
// name alone.
//
// Chess: the rating on Stockfish's UCI_Elo scale (Stockfish 15.1, Debian's package, limited
// with UCI_LimitStrength to fixed ratings, 100 ms a move, as the anchors), each level searching
// as the bot does in play (its node limit, capped by the service's time a move in CPU time).
// Measured on 2026-11-27, on two cores shared with other work, with
//
//	questbot strength -levels easy -elo 1350 -pairs 10 -seed 31
//	questbot strength -levels easy -elo 1550,1750 -pairs 5 -seed 32
//	questbot strength -levels normal -elo 1350,1550,1750,1950 -pairs 5 -seed 21
//	questbot strength -levels normal -elo 2150,2350 -pairs 5 -seed 22
//	questbot strength -levels strong -elo E -pairs 5 -seed S
//
// the last for E = 1700 … 2700 by 200 (S = 11 … 16), each stopped when time ran out, after 1
// to 5 games; every game of a level rated together. Strong's figure rests on 16 games only and
// may be high: Stockfish's higher ratings search deeper, and on the busy machine its 100 ms
// did not always give it that depth.
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
		BotEasy:   {Rating: 1526, Err: 61, Games: 40},
		BotNormal: {Rating: 2044, Err: 62, Games: 60},
		BotStrong: {Rating: 2445, Err: 110, Games: 16},
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
