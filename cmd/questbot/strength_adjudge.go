package main

import (
	"fmt"

	"github.com/questbot/questbot/engine"
)

// Adjudication ends a strength game early when both players agree on its result, as match
// programs for chess engines do, so that a match of many games fits in an evening:
//
//   - won, when for adjudgeWinPlies plies in a row both players' searches give the same side
//     an advantage of the game's win score or more (a mate counts);
//   - drawn, in chess only (and Chess960), after adjudgeDrawFrom plies, when for adjudgeDrawPlies plies in a
//     row both judge the position within adjudgeDrawScore of equality.
//
// Only chess (and Chess960) is adjudicated on the evaluation's word: its scores are centipawns, and a side
// 10 pawns ahead wins. In the other games an evaluation's lead is no such promise: in Russian
// draughts three kings (900) against a lone king on the long diagonal are a draw, and an
// Othello score swings from move to move. There a game is adjudicated won only when both
// searches have found the win (a score of mateScore or more, which no evaluation reaches), and
// never drawn: their own rules (no legal moves, repetition, the draw rules of king endings,
// the end of the board) finish them.
//
// A player that gives no judgement (a UCI engine that prints no score) never lets a game be
// adjudicated.
const (
	adjudgeWinScore  = 1000
	adjudgeWinPlies  = 6
	adjudgeDrawScore = 15
	adjudgeDrawPlies = 12
	adjudgeDrawFrom  = 160
	mateScore        = 100_000
)

// judgement is a player's score of the position it moved in, for the side to move.
type judgement struct {
	score int
	ok    bool
}

// engineJudgement is the judgement of one of our own searches (alpha-beta scores are in
// centipawns for chess; a win found is beyond any adjudgeWinScore).
func engineJudgement(info engine.SearchInfo) judgement {
	if info.Algorithm != engine.AlphaBeta || info.Depth == 0 {
		return judgement{}
	}
	return judgement{score: info.Score, ok: true}
}

// adjudicator follows the judgements of a game's moves.
type adjudicator struct {
	// winScore is the judgement that counts towards a win (adjudgeWinScore in chess,
	// mateScore otherwise); draws are adjudicated only when draws is set.
	winScore int
	draws    bool
	winSide  int // +1 First, -1 Second: the side the current run of judgements favours
	winRun   int
	drawRun  int
}

// newAdjudicator returns the adjudicator of a game of variant (see the rules above).
func newAdjudicator(variant string) adjudicator {
	if variant == "chess" || variant == "chess960" {
		return adjudicator{winScore: adjudgeWinScore, draws: true}
	}
	return adjudicator{winScore: mateScore}
}

// add takes the judgement j of the player (mover) who moved at ply, and tells whether the game is
// adjudicated, with First's score and the reason.
func (a *adjudicator) add(ply int, mover engine.Player, j judgement) (float64, string, bool) {
	if !j.ok {
		a.winRun, a.drawRun = 0, 0
		return 0, "", false
	}
	sc := j.score
	if mover != engine.First {
		sc = -sc
	}
	switch {
	case sc >= a.winScore || sc <= -a.winScore:
		side := 1
		if sc < 0 {
			side = -1
		}
		if side != a.winSide {
			a.winSide, a.winRun = side, 0
		}
		a.winRun++
	default:
		a.winRun = 0
	}
	if a.draws && ply >= adjudgeDrawFrom && sc <= adjudgeDrawScore && sc >= -adjudgeDrawScore {
		a.drawRun++
	} else {
		a.drawRun = 0
	}
	switch {
	case a.winRun >= adjudgeWinPlies:
		score := 1.0
		if a.winSide < 0 {
			score = 0
		}
		if a.winScore >= mateScore {
			return score, fmt.Sprintf("adjudicated: both players found the win for %d plies", adjudgeWinPlies), true
		}
		return score, fmt.Sprintf("adjudicated: both players judged the winner %d or more ahead for %d plies", a.winScore, adjudgeWinPlies), true
	case a.drawRun >= adjudgeDrawPlies:
		return 0.5, "adjudicated a draw: both sides judged the position level", true
	}
	return 0, "", false
}
