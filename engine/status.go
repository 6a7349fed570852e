package engine

// Result is the outcome class of a game.
type Result uint8

// Game outcomes.
const (
	Ongoing Result = iota
	Win
	Draw
)

// String names the result.
func (r Result) String() string {
	switch r {
	case Win:
		return "win"
	case Draw:
		return "draw"
	default:
		return "ongoing"
	}
}

// Rule names the rule that ended a game, so that callers can word the
// ending in the player's language without reading Status.Reason. Every
// draw rule has its own value.
type Rule uint8

// The rules that end games. The package documentation says where each
// comes from.
const (
	RuleNone Rule = iota // the game goes on
	// RuleNoMoves: the side to move has no legal move (or no pieces) and
	// loses (draughts, Chase, the geese).
	RuleNoMoves
	RuleCheckmate
	RuleStalemate
	// RuleRepetition: the same position with the same side to move for
	// the third time.
	RuleRepetition
	// RuleFiftyMoves: chess, fifty moves by each side without a capture
	// or a pawn move.
	RuleFiftyMoves
	// RuleDeadPosition: chess, no sequence of legal moves can end in
	// checkmate (kings only; a single knight or bishop; bishops all on
	// squares of one colour).
	RuleDeadPosition
	// RuleKingMoves: draughts, only kings have moved, without a capture,
	// for 25 moves each (FMJD, Turkish, English) or 15 moves each
	// (Russian).
	RuleKingMoves
	// RuleSixteenMoves: FMJD, three pieces with a king (three kings, two
	// kings and a man, a king and two men) against a lone king, 16 moves
	// each.
	RuleSixteenMoves
	// RuleFiveMoves: FMJD, two pieces with a king (or one king) against a
	// lone king, 5 moves each.
	RuleFiveMoves
	// RuleThreeKings: Russian draughts, three or more kings against a
	// lone king that the stronger side has not taken by its 15th move.
	RuleThreeKings
	// RuleBalance: Russian draughts, both sides have kings and the balance
	// of forces has not changed (no capture, no crowning) for 30 moves (4
	// and 5 pieces) or 60 moves (6 and 7 pieces).
	RuleBalance
	// RuleLoneKings: Turkish and Frisian draughts, one king against one
	// king.
	RuleLoneKings
	// RuleFewDice: Chase, a side with fewer than five dice loses.
	RuleFewDice
	// RuleFoxTrapped: Fox and Geese, the fox cannot move.
	RuleFoxTrapped
	// RuleGeeseBlocked: Fox and Geese, the geese cannot move.
	RuleGeeseBlocked
	// RuleFewGeese: Fox and Geese, too few geese are left to trap the fox.
	RuleFewGeese
	// RulePlyLimit: the platform's cap on the length of a game.
	RulePlyLimit
	// RuleGoal: Breakthrough, a piece reached the far rank.
	RuleGoal
	// RuleMoreDiscs: Othello, neither side can place a disc; the side
	// with more discs wins (a draw when equal).
	RuleMoreDiscs
	// RuleFirstCapture: Atari Go, the first capture wins.
	RuleFirstCapture
	// RuleSevenMoves: Frisian draughts, two kings against a lone king
	// that the stronger side has not taken within 7 moves each.
	RuleSevenMoves
)

// ruleNames are the stable identifiers of the rules, for logs and stored
// results.
var ruleNames = [...]string{
	RuleNone: "none", RuleNoMoves: "no_moves", RuleCheckmate: "checkmate",
	RuleStalemate: "stalemate", RuleRepetition: "repetition", RuleFiftyMoves: "fifty_moves",
	RuleDeadPosition: "dead_position", RuleKingMoves: "king_moves",
	RuleSixteenMoves: "sixteen_moves", RuleFiveMoves: "five_moves",
	RuleThreeKings: "three_kings", RuleBalance: "balance", RuleLoneKings: "lone_kings",
	RuleFewDice: "few_dice", RuleFoxTrapped: "fox_trapped", RuleGeeseBlocked: "geese_blocked",
	RuleFewGeese: "few_geese", RulePlyLimit: "ply_limit", RuleGoal: "goal",
	RuleMoreDiscs: "more_discs", RuleFirstCapture: "first_capture", RuleSevenMoves: "seven_moves",
}

// String returns the rule's stable identifier ("checkmate",
// "sixteen_moves", ...).
func (r Rule) String() string {
	if int(r) < len(ruleNames) {
		return ruleNames[r]
	}
	return "unknown"
}

// Status is the state of play: ongoing, or won (by Winner) or drawn, with
// the rule that ended the game and a short English reason ("no legal
// moves", "threefold repetition", ...).
type Status struct {
	Result Result
	Winner Player // meaningful only when Result == Win
	Rule   Rule
	Reason string
}

// end builds the Status of a finished game.
func end(res Result, winner Player, rule Rule, reason string) Status {
	return Status{Result: res, Winner: winner, Rule: rule, Reason: reason}
}

// Status returns the current state of play. It decides every ending
// itself, draws included: see the package documentation.
func (g *Game) Status() Status {
	return g.statusOf(len(g.rawMoves()))
}

// statusOf is Status for a position with nLegal legal moves.
func (g *Game) statusOf(nLegal int) Status {
	if g.r.status != nil {
		return g.r.status(g, nLegal)
	}
	return defaultStatus(g, nLegal)
}

// defaultStatus: a side without legal moves loses (or draws, if the game
// says so); otherwise the common draw rules apply.
func defaultStatus(g *Game, nLegal int) Status {
	if nLegal == 0 {
		if g.r.noMovesDraw {
			return end(Draw, 0, RuleNoMoves, "no legal moves")
		}
		return end(Win, g.cur().Turn.other(), RuleNoMoves, "no legal moves")
	}
	return g.drawStatus()
}

// drawStatus applies the draw rules: repetition, the game's own ending
// rules, the reversible-move clock and the ply limit.
func (g *Game) drawStatus() Status {
	s := g.cur()
	if g.r.repetitions > 0 && g.repetitions() >= g.r.repetitions {
		return end(Draw, 0, RuleRepetition, "threefold repetition")
	}
	if g.r.endings != nil {
		if st := g.r.endings(g); st.Result != Ongoing {
			return st
		}
	}
	if g.r.clockLimit > 0 && int(s.Clock) >= g.r.clockLimit {
		return end(Draw, 0, g.r.clockRule, g.r.clockReason)
	}
	if len(g.moves) >= g.cfg.plyLimit {
		return end(Draw, 0, RulePlyLimit, "ply limit")
	}
	return Status{Result: Ongoing}
}

// repetitions counts how often the current position (same pieces, side to
// move and game variables) has occurred since the last irreversible move.
func (g *Game) repetitions() int {
	s := g.cur()
	n := 0
	lo := len(g.hist) - 1 - int(s.Clock)
	if lo < 0 {
		lo = 0
	}
	for i := len(g.hist) - 1; i >= lo; i-- {
		if g.hist[i].Hash == s.Hash && g.hist[i].Board == s.Board && g.hist[i].Turn == s.Turn {
			n++
		}
	}
	return n
}

// stretch returns the index in the history of the first position of the
// longest run, ending at the current position, of positions for which
// same(first, each) holds, looking back at most limit plies.
func (g *Game) stretch(limit int, same func(s *State) bool) int {
	i := len(g.hist) - 1
	for i > 0 && len(g.hist)-1-(i-1) <= limit && same(&g.hist[i-1]) {
		i--
	}
	return i
}
