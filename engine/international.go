package engine

// International draughts and its 8x8 form, Brazilian draughts.
//
// Rules as implemented:
//   - International: 10x10 board, dark squares numbered 1-50 (PDN), 20 men
//     per side on the first four ranks. Brazilian: the same rules on the
//     8x8 board with 12 men and algebraic squares. White moves first.
//   - Men move one square diagonally forward and capture in all four
//     diagonal directions; kings fly.
//   - Capturing is mandatory and the player must take the largest possible
//     number of pieces (kings count as men).
//   - Captured pieces are removed only when the move ends (no Turkish
//     strike).
//   - A man is crowned only if its move ends on the last rank; passing
//     through the last rank in the middle of a capture does not crown it.
//   - A side with no legal move loses. Draws (FMJD rules, article 6; see
//     draughts_draws.go): the same position for the third time with the
//     same side to move (6.2), 25 moves each with only kings moving and no
//     capture (6.3), the 16-move (6.4) and 5-move (6.5) small endings
//     against a lone king; and the platform's ply limit.
//
// Moves are written "32-28" and "28x19"; the intermediate squares of a
// capture ("28x17x19") are added only when two captures share their origin
// and destination.
func internationalRules() *rules {
	return draughts(draughtsConfig{
		name:           "international",
		title:          "International draughts",
		size:           10,
		numbered:       true,
		rows:           4,
		manCaptureBack: true,
		flying:         true,
		promo:          promoAtEnd,
		majority:       true,
		kingMoves:      25,
		endings:        fmjdEndings,
	})
}

// brazilianRules is International draughts on the 8x8 board.
func brazilianRules() *rules {
	return draughts(draughtsConfig{
		name:           "brazilian",
		title:          "Brazilian draughts",
		size:           8,
		rows:           3,
		manCaptureBack: true,
		flying:         true,
		promo:          promoAtEnd,
		majority:       true,
		kingMoves:      25,
		endings:        fmjdEndings,
	})
}
