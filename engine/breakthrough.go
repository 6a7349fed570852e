package engine

// breakthroughRules: Breakthrough, Dan Troyka's game of 2000, written as a
// description (describe.go).
//
// Source: the rules as published with the game (2001 8x8 Game Design
// Competition) and in the "Breakthrough (board game)" article of the
// English Wikipedia. As implemented: an 8x8 board of all 64 squares; 16
// pieces each on the first two ranks; White moves first; a piece moves one
// square straight or diagonally forward to a free square, and captures
// only diagonally forward, by taking the enemy piece's square; capturing
// is never compulsory. The first side to bring a piece to the far rank
// wins (RuleGoal); a side without pieces, or with none that can move,
// loses (RuleNoMoves). Positions cannot repeat, as every move goes
// forward; the platform's ply limit still applies.
//
// Pieces are the draughts family's men (kind 1), so positions are written
// as in draughts ("W:Wa1,a2,...:Bh8,..."), and moves "a2-a3" and "a2:b3"
// for a capture.
func breakthroughRules() *rules {
	pawn := pieceSpec{kind: kindMan, name: "pawn", letter: 'P', value: 100, irreversible: true,
		moves:    []pattern{{kind: patStep, dirs: []int{dirNW, dirN, dirNE}}},
		captures: []pattern{{kind: patTake, dirs: forwardDiagonals}}}
	return compile(description{
		name: "breakthrough", title: "Breakthrough", players: [2]string{"White", "Black"},
		board:     boardSpec{width: 8, height: 8, squares: allSquares},
		pieces:    []pieceSpec{pawn},
		startRows: 2, startKind: kindMan, first: First,
		capture: captureSpec{},
		promo:   promoAtEnd,
		end:     endSpec{goal: true},
		quiesce: qCapture,
	})
}
