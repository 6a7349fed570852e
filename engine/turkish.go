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
//   - Crowning (a disputed rule; one reading chosen): a man that reaches
//     the last rank in the middle of a capture goes on capturing as a man
//     (sideways along the last rank, since it cannot capture backwards) and
//     is crowned when the move ends there. Source: the Turkish draughts
//     article of the English Wikipedia ("When a man reaches the back row, it
//     is promoted to a king at the end of the move"), which agrees with the
//     "Dagaz: kicks to common sense, part 4" article; Dagaz's own rule file
//     instead stops the move on the last rank, and some Turkish guides let
//     the new king go on capturing. Example: a White man on c6 with Black
//     men on c7 and d8 plays c6:c8:e8 and is crowned on e8.
//   - A side with no legal move (no pieces, or all blocked) loses; this is
//     the only way to win (same source).
//   - King against a single man (a disputed rule; one reading chosen): no
//     special rule, the game goes on. Popular Turkish rule sheets end the
//     game as a draw as soon as each side has one piece left; we follow the
//     Wikipedia article, where the game ends only when a side cannot move,
//     because a king normally catches a lone man and a player who has
//     earned a king against a man expects to play for the win. One king
//     against one king is a draw at once (RuleLoneKings): neither king can
//     ever be forced onto a line where the other may jump it.
//   - Draws otherwise: threefold repetition, 25 moves each with only kings
//     moving and no capture (the platform's counter; the Turkish rules have
//     none, and it keeps every game finite), or the ply limit.
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
		kingMoves:  25,
		endings:    turkishEndings,
	})
}
