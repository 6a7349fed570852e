package engine

// The draughts of the family written as descriptions (describe.go): each
// variant below is its data alone, played by the generic machinery. Men
// are kind 1 and kings kind 2, as in draughts.go, so that position
// strings, notation, pictures and the evaluation are the family's.
//
// Square names: numbered boards follow PDN (1 at the top left, as the
// first player sees the board); the others are algebraic, a1 at the first
// player's bottom left.

// The diagonal directions in the mover's frame.
var (
	forwardDiagonals = []int{dirNW, dirNE}
	allDiagonals     = []int{dirNW, dirNE, dirSE, dirSW}
)

// draughtsPieces returns the man and the king of a variant: men step
// diagonally forward and capture along manCaptures (short jumps); kings
// fly or step, along every diagonal. spareKings: men may not take kings.
func draughtsPieces(manCaptures []int, flyingKings, spareKings bool) []pieceSpec {
	man := pieceSpec{kind: kindMan, name: "man", letter: 'M', value: 100, promotesTo: kindKing, irreversible: true,
		moves:    []pattern{{kind: patStep, dirs: forwardDiagonals}},
		captures: []pattern{{kind: patJump, dirs: manCaptures, spareKings: spareKings}}}
	king := pieceSpec{kind: kindKing, name: "king", letter: 'K', value: 300, king: true,
		moves:    []pattern{{kind: patStep, dirs: allDiagonals}},
		captures: []pattern{{kind: patJump, dirs: allDiagonals}}}
	if flyingKings {
		king.moves = []pattern{{kind: patSlide, dirs: allDiagonals}}
		king.captures = []pattern{{kind: patFlyingJump, dirs: allDiagonals}}
	}
	return []pieceSpec{man, king}
}

// canadianRules: Canadian draughts, the International game on a 12x12
// board.
//
// Source: the Official FMJD Rules for International Draughts, which the
// Canadian game plays on the larger board (the "Canadian checkers"
// article of the English Wikipedia: 12x12, 30 men each, International
// rules). As implemented: dark squares numbered 1-72 from the top left
// (PDN); 30 men each on the first five ranks; White moves first; men move
// diagonally forward and capture in all four diagonal directions; kings
// fly; capturing is mandatory and the capture of the most pieces must be
// played (kings count as men); captured pieces are removed when the move
// ends; a man is crowned only when its move ends on the last rank. A side
// without a legal move loses. Draws, as the FMJD's article 6, which counts
// pieces and not squares and so reads on any board: threefold repetition;
// 25 moves each with only kings moving and no capture (6.3); three pieces
// with a king against a lone king, 16 moves each (6.4); two pieces with a
// king, or a king, against a lone king, 5 moves each (6.5); and the ply
// limit.
func canadianRules() *rules {
	return compile(description{
		name: "canadian", title: "Canadian draughts", players: [2]string{"White", "Black"},
		board:     boardSpec{width: 12, height: 12, squares: darkSquares, numbered: true},
		pieces:    draughtsPieces(allDiagonals, true, false),
		startRows: 5, startKind: kindMan, first: First,
		capture: captureSpec{mandatory: true, prefer: []preference{preferMostPieces}},
		promo:   promoAtEnd,
		end:     endSpec{kingMoves: 25, repetition: 3, endings: fmjdEndings},
		quiesce: qForced,
	})
}

// poolRules: American pool checkers.
//
// Source: the rules of play of the American Pool Checkers Association
// (after G. Ramsey, "The Amazing World of American Pool Checkers", and V.
// Kaplan, "Strive To Be Superior at American Checkers"). As implemented:
// the English board (a dark square at each player's near left, squares
// numbered 1-32 from Black's side); Black (the second player, on 1-12)
// moves first; men move diagonally forward and capture forward and
// backward; kings fly, moving and capturing at any distance; capturing is
// mandatory but the player chooses any capture sequence (no majority
// rule); a king that has jumped a piece may land on any free square
// beyond it, but if it can capture again from some of them it must land
// on one of those and go on ("If a new capture is possible from one of
// these squares, it must continue the capture"; "a king must make all the
// possible jumps"), as in Russian draughts; captured pieces are removed
// when the move ends and cannot be jumped twice; a man that reaches the
// king row during a capture and can jump on backwards must do so and is
// not crowned: it is crowned only if its move ends there. A side without
// a legal move loses. Draws: threefold repetition, 25 moves each with
// only kings moving and no capture (the platform's count; the
// association's rule of three kings against one, 13 moves, is not
// applied), the ply limit.
func poolRules() *rules {
	return compile(description{
		name: "pool", title: "Pool checkers", players: [2]string{"White", "Black"},
		board:     boardSpec{width: 8, height: 8, squares: darkSquares, numbered: true},
		pieces:    draughtsPieces(allDiagonals, true, false),
		startRows: 3, startKind: kindMan, first: Second,
		capture: captureSpec{mandatory: true, kingLanding: true},
		promo:   promoAtEnd,
		end:     endSpec{kingMoves: 25, repetition: 3},
		quiesce: qForced,
	})
}

// czechRules: Czech draughts (česká dáma).
//
// Source: the rules of the Czech Draughts Federation as summarised in the
// "Czech draughts" article of the English Wikipedia. As implemented: 8x8,
// a1 dark, 12 men each on the first three ranks, White moves first; men
// move and capture diagonally forward only; kings fly; capturing is
// mandatory, and when a king can capture the player must capture with a
// king; otherwise any capture sequence may be chosen (no majority rule),
// played to its end ("a multiple capture must be made in full"): a king
// that has jumped a piece lands on a square from which it can capture
// again if there is one, as in Russian draughts; captured pieces are
// removed when the move ends. A side without a legal move loses. Draws:
// threefold repetition, 25 moves each with only kings moving and no
// capture (the platform's count for the federation's "no capture is
// possible any more"), the ply limit.
func czechRules() *rules {
	return compile(description{
		name: "czech", title: "Czech draughts", players: [2]string{"White", "Black"},
		board:     boardSpec{width: 8, height: 8, squares: darkSquares},
		pieces:    draughtsPieces(forwardDiagonals, true, false),
		startRows: 3, startKind: kindMan, first: First,
		capture: captureSpec{mandatory: true, kingLanding: true, prefer: []preference{preferKingCaptures}},
		promo:   promoAtEnd,
		end:     endSpec{kingMoves: 25, repetition: 3},
		quiesce: qForced,
	})
}

// spanishRules: Spanish draughts (damas).
//
// Source: the rules of the Federación Española de Damas as given in the
// "Spanish draughts" articles (quantity and quality rules, board with the
// main diagonal from the bottom right). As implemented: 8x8 with the
// played squares those of h1 (a1 is not played), 12 men each on the first
// three ranks, White moves first; men move and capture diagonally forward
// only; kings fly; capturing is mandatory: the capture of the most pieces
// must be played (quantity) and among those the one that takes the most
// kings (quality); captured pieces are removed when the move ends; a man
// reaching the last rank is crowned (men capture forward only, so its
// move ends there). A side without a legal move loses. Draws: threefold
// repetition, 20 moves each with only kings moving and no capture, the
// ply limit.
func spanishRules() *rules {
	return compile(description{
		name: "spanish", title: "Spanish draughts", players: [2]string{"White", "Black"},
		board:     boardSpec{width: 8, height: 8, squares: lightSquares},
		pieces:    draughtsPieces(forwardDiagonals, true, false),
		startRows: 3, startKind: kindMan, first: First,
		capture: captureSpec{mandatory: true, prefer: []preference{preferMostPieces, preferMostKings}},
		promo:   promoAtEnd,
		end:     endSpec{kingMoves: 20, repetition: 3},
		quiesce: qForced,
	})
}

// italianRules: Italian draughts (dama italiana).
//
// Source: the rules of the Federazione Italiana Dama (fid.it, "Brief
// rules of Italian draughts"). As implemented: 8x8 with a dark square at
// each player's near right (the played squares are h1's; a1 is not
// played), 12 men each on the first three ranks, White moves first; men
// move and capture diagonally forward only and may not capture kings;
// kings move and capture one square in any diagonal direction (they do
// not fly); capturing is mandatory, and among the captures the player
// must take the most pieces, then capture with a king rather than a man,
// then take the most kings, then take a king as early in the chain as
// possible; a man reaching the last rank is crowned and its move ends.
// A side without a legal move loses. Draws: threefold repetition, 25
// moves each with only kings moving and no capture (the platform's
// count), the ply limit.
func italianRules() *rules {
	return compile(description{
		name: "italian", title: "Italian draughts", players: [2]string{"White", "Black"},
		board:     boardSpec{width: 8, height: 8, squares: lightSquares},
		pieces:    draughtsPieces(forwardDiagonals, false, true),
		startRows: 3, startKind: kindMan, first: First,
		capture: captureSpec{mandatory: true, prefer: []preference{preferMostPieces, preferKingCaptures, preferMostKings, preferEarlyKing}},
		promo:   promoStop,
		end:     endSpec{kingMoves: 25, repetition: 3},
		quiesce: qForced,
	})
}

// thaiRules: Thai draughts (mak-hot).
//
// Source: the rules as given by the "Mak-hot" article of the Checkers &
// Draughts Wiki and by Mindsports ("Thai" among the draughts variants).
// As implemented: 8x8, a1 dark, 8 men each on the first two ranks; White
// moves first (the Thai sites' choice; the sources say no colour is
// fixed); men move and capture diagonally forward only; kings move any
// distance along a diagonal, and capture a piece at any distance but land
// on the square right behind it, going on capturing from there; captured
// pieces leave the board at once, as in Turkish draughts; capturing is
// mandatory and any capture sequence may be chosen (no majority rule); a
// man reaching the last rank is crowned and its move ends. A side without
// a legal move loses. Draws: threefold repetition, 25 moves each with
// only kings moving and no capture (the platform's count), the ply limit.
func thaiRules() *rules {
	pieces := draughtsPieces(forwardDiagonals, true, false)
	pieces[1].captures = []pattern{{kind: patFlyingJump, dirs: allDiagonals, landNext: true}}
	return compile(description{
		name: "thai", title: "Thai draughts", players: [2]string{"White", "Black"},
		board:     boardSpec{width: 8, height: 8, squares: darkSquares},
		pieces:    pieces,
		startRows: 2, startKind: kindMan, first: First,
		capture: captureSpec{mandatory: true, immediate: true},
		promo:   promoStop,
		end:     endSpec{kingMoves: 25, repetition: 3},
		quiesce: qForced,
	})
}

// armenianRules: Armenian draughts (tama).
//
// Source: the "Armenian draughts" article of the English Wikipedia (and
// the rules of iggamecenter's Tama). As implemented: 8x8, every square
// played; 16 men each on the second and third ranks; White moves first;
// men move one square forward, diagonally forward or sideways, and capture
// by jumping an adjacent piece forward or sideways (never backwards or
// diagonally); kings move like a chess queen and capture along ranks and
// files only, at any distance, landing on any free square beyond;
// captured pieces leave the board at once (a later jump of the same move
// may cross their square); a king may not turn back along its line
// between two jumps; capturing is mandatory and the capture of the most
// pieces must be played (kings count as men). Crowning (the sources
// disagree; one reading chosen, as in Turkish draughts): a man is crowned
// when its move ends on the last rank; one passing it in a capture goes on
// as a man. A side without a legal move loses. Draws: threefold
// repetition, 25 moves each with only kings moving and no capture (the
// platform's count), the ply limit.
func armenianRules() *rules {
	orth := []int{dirN, dirE, dirS, dirW}
	man := pieceSpec{kind: kindMan, name: "man", letter: 'M', value: 100, promotesTo: kindKing, irreversible: true,
		moves:    []pattern{{kind: patStep, dirs: []int{dirNW, dirN, dirNE, dirE, dirW}}},
		captures: []pattern{{kind: patJump, dirs: []int{dirN, dirE, dirW}}}}
	king := pieceSpec{kind: kindKing, name: "king", letter: 'K', value: 300, king: true,
		moves:    []pattern{{kind: patSlide, dirs: []int{dirN, dirNE, dirE, dirSE, dirS, dirSW, dirW, dirNW}}},
		captures: []pattern{{kind: patFlyingJump, dirs: orth}}}
	return compile(description{
		name: "armenian", title: "Armenian draughts", players: [2]string{"White", "Black"},
		board:     boardSpec{width: 8, height: 8, squares: allSquares},
		pieces:    []pieceSpec{man, king},
		startRows: 2, skipBack: true, startKind: kindMan, first: First,
		capture: captureSpec{mandatory: true, immediate: true, noReverse: true, prefer: []preference{preferMostPieces}},
		promo:   promoAtEnd,
		end:     endSpec{kingMoves: 25, repetition: 3},
		quiesce: qForced,
	})
}
