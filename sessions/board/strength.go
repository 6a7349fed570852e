package board

// The measured strength of the bot's levels, which the views show beside the level's name
// ("strong (≈2000)"). Only measured figures are listed: a game or level missing here shows its
// name alone. Each game has its own scale, so a figure compares with the other levels of its
// game only, never with another game's: the views show it beside its game's levels alone. Chess
// is rated on Stockfish's UCI_Elo scale, the other games on their own ladder of fixed-depth
// searches (depth 1 rated 1000), each level searching as the bot does in play. The figures are
// those `questbot strength` measured; how, when, and the command lines that reproduce them are
// in docs/performance.md ("The bot's strength").

// levelRating is one measured figure: the estimate and its standard error, and how many games
// gave it.
type levelRating struct {
	Rating, Err, Games int
}

// levelRatings are the measured figures by game and level.
var levelRatings = map[string]map[BotLevel]levelRating{
	"chess": {
		BotEasy:   {Rating: 1566, Err: 84, Games: 20},
		BotNormal: {Rating: 1800, Err: 70, Games: 30},
		BotStrong: {Rating: 2123, Err: 56, Games: 48},
	},
	"russian": {
		BotEasy:   {Rating: 1169, Err: 76, Games: 64},
		BotNormal: {Rating: 2116, Err: 161, Games: 132},
		BotStrong: {Rating: 2258, Err: 169, Games: 88},
	},
	"international": {
		BotEasy:   {Rating: 1185, Err: 96, Games: 40},
		BotNormal: {Rating: 2325, Err: 247, Games: 60},
		BotStrong: {Rating: 2760, Err: 267, Games: 52},
	},
	"english": {
		BotEasy:   {Rating: 895, Err: 100, Games: 32},
		BotNormal: {Rating: 1552, Err: 201, Games: 48},
		BotStrong: {Rating: 1810, Err: 226, Games: 40},
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
