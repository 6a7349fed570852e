package engine

// Russian draughts (shashki), the platform's main draughts game.
//
// Rules as implemented:
//   - 8x8 board, dark squares only, a1 dark; 12 men per side on the first
//     three ranks; White moves first.
//   - Men move one square diagonally forward and capture in all four
//     diagonal directions. Kings fly: any distance along a diagonal, and
//     capture a piece at any distance, landing on any free square beyond.
//   - Capturing is mandatory and a capture goes on while possible; the
//     player may choose any capture chain (no majority rule).
//   - Captured pieces stay on the board until the move ends: they block the
//     way and cannot be jumped twice (no Turkish strike).
//   - A man reaching the last rank during a capture is crowned at once and
//     goes on capturing as a king.
//   - After jumping a piece, a king must land on a square from which it can
//     capture again if there is such a square.
//   - A side with no legal move (or no pieces) loses. Draws: the same
//     position for the third time with the same side to move; the endgame
//     rules of the Russian Draughts Federation (draughts_draws.go): three
//     kings against a lone king not taken by the 15th move, an unchanged
//     balance of forces for 30 or 60 moves, 15 moves each with only kings
//     moving; or the platform's ply limit.
func russianRules() *rules {
	return draughts(draughtsConfig{
		name:           "russian",
		title:          "Russian draughts",
		size:           8,
		rows:           3,
		manCaptureBack: true,
		flying:         true,
		promo:          promoNow,
		kingLanding:    true,
		kingMoves:      15,
		endings:        russianEndings,
	})
}
