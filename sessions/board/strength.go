package board

// The measured strength of the bot's levels, which the views show beside the level's name
// ("strong (≈2000)"). Only measured figures are listed: a game or level missing here shows its
// name alone. Each game has its own scale, so a figure compares with the other levels of its
// game only, never with another game's: the views show it beside its game's levels alone.
//
// Chess: the rating on Stockfish's UCI_Elo scale (Stockfish 15.1, Debian's package, limited
// with UCI_LimitStrength to fixed ratings, 100 ms a move, as the anchors), each level searching
// as the bot does in play (its node limit, capped by the service's time a move in CPU time).
// Measured on 2026-11-27 between 10:11 and 10:52 UTC in a quiet window (nothing else running on
// the two cores but two of these runs side by side), each level as it searches since the
// evaluation's threats and the refined search's exchange evaluation (strong: 1,000,000 nodes
// with the refined chess search, 1.19 to 1.24 s of CPU a move on average; normal 30 ms; easy
// 5 ms), the two runs of strong rated together by the last command (the most likely rating
// given all 48 games):
//
//	questbot strength -levels easy -elo 1350,1550 -pairs 5 -seed 52
//	questbot strength -levels normal -elo 1600,1800,2000 -pairs 5 -seed 51
//	questbot strength -levels strong -elo 1900,2100,2300 -pairs 4 -seed 71 > strong-71.txt
//	questbot strength -levels strong -elo 2000,2200,2400 -pairs 4 -seed 72 > strong-72.txt
//	questbot strength -refit strong-71.txt,strong-72.txt
//
// Before that change, measured the same way: easy ≈1393 ± 82, normal ≈1842 ± 70, strong
// (900,000 nodes) ≈1980 ± 76, and strong as 400,000 nodes of the plain search ≈1907 ± 83;
// normal's change is within its error. Measure in a quiet window: Stockfish's 100 ms a move is wall time, and on a busy machine it searches
// less, which made earlier runs on a loaded machine read some 200 to 500 points too high.
//
// Other games (Russian, International and English draughts so far): the rating on the game's
// own ladder of fixed-depth alpha-beta searches (`questbot strength -ladder`), where the search
// of depth 1 is rated 1000, the rungs play the rung below them and the levels the rungs about
// them, and all are rated together (the most likely ratings given all the games). This scale is
// not Stockfish's, nor another game's: in Russian draughts a search a ply deeper gains between
// 40 and 210 points. Each level searches as the bot does in play (its node limit, capped by the
// service's time a move in CPU time, so a busy machine does not weaken it), and every game
// starts from a different level opening of four random plies, played twice with colours
// swapped. Err is the standard error against
// depth 1: most of it is the ladder's own, the uncertainty of the chain of rungs between depth
// 1 and the level, which adds up rung by rung; where a level stands among the rungs about it
// is closer (the second error the command prints). Measured on 2026-11-27, on a machine busy
// with other work (the searches are bounded in nodes and CPU time, so that changes nothing but
// the wall time), with
//
// Russian draughts, the three runs rated together by the last command:
//
//	questbot strength -game russian -ladder -depths 1,2,3,4,5,6,7,8,10 -levels easy:1-4,normal:3-8,strong:6-10 -pairs 8 -rung-pairs 8 -seed 101 > russian-101.txt
//	questbot strength -game russian -ladder -depths 8,10,12,14 -levels normal:8-12,strong:10-14 -pairs 6 -rung-pairs 6 -seed 102 > russian-102.txt
//	questbot strength -game russian -ladder -depths 8,10,12 -levels normal:8-12,strong:10-12 -pairs 6 -rung-pairs 4 -seed 103 > russian-103.txt
//	questbot strength -refit russian-101.txt,russian-102.txt,russian-103.txt
//
// (the second was stopped after its first 24 games, between the rungs of depths 8 to 12: its
// rung of depth 14 took minutes a game; the 24 games were rated with the others). The levels'
// places among the rungs about them: easy ±49, normal ±40, strong ±47. Easy plays as the
// search of depth 2 does (≈1157), normal between depths 10 (≈2080) and 12 (≈2187), strong
// above depth 12.
//
// International draughts, the two runs rated together by the last command:
//
//	questbot strength -game international -ladder -depths 1,2,3,4,5,6,7,8,10 -levels easy:1-4,normal:4-10,strong:6-10 -pairs 5 -rung-pairs 5 -seed 201 > international-201.txt
//	questbot strength -game international -ladder -depths 10,11 -levels strong:10-11 -pairs 3 -rung-pairs 3 -seed 203 > international-203.txt
//	questbot strength -refit international-201.txt,international-203.txt
//
// (a rung of depth 12, tried with -seed 202, took more than three minutes a game and was
// given up before it finished one). The levels' places among the rungs about them: easy ±65,
// normal ±62, strong ±66. Easy plays between the searches of depths 2 (≈1039) and 3 (≈1239),
// normal between depths 7 (≈2277) and 8 (≈2407), strong between depths 10 (≈2661) and 11
// (≈2801). The ladder's errors here are larger than Russian draughts', from fewer games
// between its rungs: the figures order the levels, each among the rungs about it to some 65
// points, but each is known to some 250 against depth 1.
//
// English draughts, one run:
//
//	questbot strength -game english -ladder -depths 1,2,3,4,5,6,7,8,10,12 -levels easy:1-4,normal:4-10,strong:6-12 -pairs 4 -rung-pairs 4 -seed 301
//
// The levels' places among the rungs about them: easy ±66, normal ±62, strong ±76. With short
// kings and many draws, the shallow searches hardly differ here (depth 1 scored 5½ of 8
// against depth 2; easy, which searches two plies, ≈895, is below depth 1), normal plays
// between depths 8 (≈1531) and 10 (≈1593), strong above depth 12 (≈1725; +3 =4 −1 against
// it). Fewer games than the others, so each figure is known to some 200 against depth 1.

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
