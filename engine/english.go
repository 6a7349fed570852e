package engine

// English draughts (American checkers), kept as a test configuration of
// the draughts family: its deep published perft table checks the shared
// move rules with short kings and forward-only men.
//
// Rules as implemented: 8x8 board, dark squares numbered 1-32 from the top
// left; Black (the second player, at the top) has men on 1-12 and moves
// first; men move and capture diagonally forward only; kings move and
// capture one square in any diagonal direction; capture is mandatory with
// free choice of chain; a man reaching the last rank is crowned and the
// move ends there.
func englishRules() *rules {
	return draughts(draughtsConfig{
		name:        "english",
		title:       "English draughts",
		size:        8,
		numbered:    true,
		rows:        3,
		promo:       promoStop,
		firstToMove: Second,
		kingMoves:   25,
	})
}
