package engine

import "math/bits"

// Static exchange evaluation: what a move wins or loses on its landing
// square when both sides go on capturing there, each with its least
// valuable piece, and each may stop when going on would lose. It looks
// only at the one square (pins and the checks the exchange gives are not
// seen), which makes it cheap enough to ask of every capture the refined
// search orders and of every move it considers pruning near the horizon.

// seeValue is the value of each kind in the exchange; the king's is larger
// than all the others together, so it takes last.
var seeValue = [kindChessKing + 1]int{kindPawn: 100, kindKnight: 325, kindBishop: 335, kindRook: 500, kindQueen: 975, kindChessKing: 20000}

// see returns the material the side to move (mover) wins, in centipawns,
// by playing m on board b and letting the exchange on m's landing square
// run its course. Castling exchanges nothing.
func see(b *[maxSquares]Piece, m *move, mover Player) int {
	var cb chessBits
	cb.load(b)
	return seeBits(&cb, b, m, mover)
}

// seeBits is see with the board already read into cb.
func seeBits(cb *chessBits, b *[maxSquares]Piece, m *move, mover Player) int {
	if m.flags&flagCastle != 0 {
		return 0
	}
	ct := chessTablesOnce()
	from, to := m.from()&63, m.to()&63
	occ := cb.occ &^ (1 << from)
	var gain [32]int
	if pc := b[to]; pc != 0 {
		gain[0] = seeValue[pc.Kind()&7]
	} else if m.ncap > 0 {
		// En passant: the pawn taken stands behind the landing square.
		gain[0] = seeValue[kindPawn]
		if mover == First {
			occ &^= 1 << (to - 8)
		} else {
			occ &^= 1 << (to + 8)
		}
	}
	piece := b[from].Kind() & 7 // the piece standing on the square, about to be taken
	if m.flags&flagPromotion != 0 {
		piece = Kind(m.tag) & 7
		gain[0] += seeValue[piece] - seeValue[kindPawn]
	}
	side := mover.other()
	d := 0
	for d < len(gain)-1 {
		atk := ct.attackersTo(cb, to, occ) & occ & cb.side[side]
		if atk == 0 {
			break
		}
		d++
		gain[d] = seeValue[piece] - gain[d-1]
		k := kindPawn
		for ; k < kindChessKing && atk&cb.kind[k] == 0; k++ {
		}
		occ &^= 1 << (bits.TrailingZeros64(atk&cb.kind[k]) & 63)
		piece = k
		side = side.other()
	}
	// gain[i] is the balance of the side that made the i-th capture if the
	// exchange stopped there; each side, from the last back, takes only
	// when taking leaves it better off than stopping.
	for ; d > 0; d-- {
		gain[d-1] = -max(-gain[d-1], gain[d])
	}
	return gain[0]
}

// attackersTo returns the pieces of both sides that attack sq with the
// squares of occ occupied (the sliders seen through the pieces an exchange
// has taken off).
func (ct *chessTables) attackersTo(cb *chessBits, sq int, occ uint64) uint64 {
	pawns := cb.kind[kindPawn]
	a := ct.knight[sq]&cb.kind[kindKnight] | ct.king[sq]&cb.kind[kindChessKing] |
		ct.pawnFrom[Second][sq]&pawns&cb.side[First] | ct.pawnFrom[First][sq]&pawns&cb.side[Second]
	queens := cb.kind[kindQueen]
	if rq := cb.kind[kindRook] | queens; rq != 0 {
		a |= ct.rookAttacks(sq, occ) & rq
	}
	if bq := cb.kind[kindBishop] | queens; bq != 0 {
		a |= ct.bishopAttacks(sq, occ) & bq
	}
	return a
}
