package board

// The measured strength of the bot's levels, which the views show beside the level's name
// ("strong (≈2000)"). Only measured figures are listed: a game or level missing here shows its
// name alone.
//
// Chess: the rating on Stockfish's UCI_Elo scale (Stockfish limited with UCI_LimitStrength to
// fixed ratings, 100 ms a move, as the anchors), each level searching as the bot does in play
// (its node limit, capped by the service's time a move). Measured on %s with
//
//	questbot strength -game chess -levels … -elo … -pairs …
//
// (see levelRatings for each figure's games and error).
//
// Other games: the rating on the ladder of fixed-depth alpha-beta searches of the same engine,
// anchored at 1000 for the search to depth 1 (`questbot strength -ladder`): the figures say
// how the levels compare with each other in that game, not with chess or other games.

// levelRating is one measured figure: the estimate and its standard error, and how many games
// gave it.
type levelRating struct {
	Rating, Err, Games int
}

// levelRatings are the measured figures by game and level.
var levelRatings = map[string]map[BotLevel]levelRating{}

// Rating returns the measured rating of level l in variant (see levelRatings), rounded to the
// nearest 50 as the views show it; ok is false when none was measured.
func (l BotLevel) Rating(variant string) (rating int, ok bool) {
	r, ok := levelRatings[variant][l]
	if !ok {
		return 0, false
	}
	return (r.Rating + 25) / 50 * 50, true
}
