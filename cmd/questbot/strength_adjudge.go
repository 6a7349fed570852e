package main

import (
	"fmt"

	"github.com/questbot/questbot/engine"
)

// Adjudication ends a strength game early when both players agree on its result, as match
// programs for chess engines do, so that a match of many games fits in an evening:
//
//   - won, when for adjudgeWinPlies plies in a row both players' searches give the same side
//     an advantage of adjudgeWinScore or more (a mate counts);
//   - drawn, after adjudgeDrawFrom plies, when for adjudgeDrawPlies plies in a row both judge the
//     position within adjudgeDrawScore of equality.
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
	winSide int // +1 First, -1 Second: the side the current run of judgements favours
	winRun  int
	drawRun int
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
	case sc >= adjudgeWinScore || sc <= -adjudgeWinScore:
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
	if ply >= adjudgeDrawFrom && sc <= adjudgeDrawScore && sc >= -adjudgeDrawScore {
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
		return score, fmt.Sprintf("adjudicated: both players judged the winner %d or more ahead for %d plies", adjudgeWinScore, adjudgeWinPlies), true
	case a.drawRun >= adjudgeDrawPlies:
		return 0.5, "adjudicated a draw: both sides judged the position level", true
	}
	return 0, "", false
}
