package engine

// Turkish draughts (dama).
//
// Rules as implemented:
//   - 8x8 board, all 64 squares; 16 men per side on the second and third
//     ranks (the back rank starts empty); White moves first.
//   - Men move one square forward or sideways (never diagonally or back) and
//     capture the same way, by jumping an adjacent enemy piece. Kings fly
//     along ranks and files and capture at any distance, landing on any free
//     square beyond.
//   - Capturing is mandatory and the player must take the largest possible
//     number of pieces (kings count as men).
//   - The Turkish strike: a captured piece leaves the board at once, so later
//     jumps of the same move may cross its square. A king may not reverse
//     direction (turn 180 degrees) between two jumps.
//   - Crowning: a man that reaches the last rank in the middle of a capture
//     goes on capturing as a man (sideways along the last rank, since it
//     cannot capture backwards) and is crowned when the move ends on the
//     last rank. This follows the rule described in the "Dagaz: kicks to
//     common sense, part 4" article; Dagaz's own rule file instead stops the
//     move on the last rank. Example: a White man on c6 with Black men on c7
//     and d8 plays c6:c8:e8 and is crowned on e8.
//   - A side with no legal move loses. Draws: threefold repetition, 25
//     king-only moves each without capture, or the ply limit.
func turkishRules() *rules {
	return draughts(draughtsConfig{
		name:       "turkish",
		title:      "Turkish draughts",
		size:       8,
		orthogonal: true,
		rows:       2,
		skipBack:   true,
		flying:     true,
		promo:      promoAtEnd,
		majority:   true,
		immediate:  true,
		noReverse:  true,
	})
}
