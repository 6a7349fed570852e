package engine

import "math/bits"

// Bitboards for boards of at most 64 squares, in the topology's own square
// order (bit i is square i). They are derived from State.Board when a
// generator needs them, so positions stay plain values and apply stays
// the same for every game.

// boardBits returns the squares among the first 8*words of b that hold a
// piece with bit 0, bit 1 and bit 4 of its code set: in the draughts
// family the men, the kings and the pieces of the second player (see
// makePiece). Eight squares are read as one word and their bits gathered
// with one multiplication each.
func boardBits(b *[maxSquares]Piece, words int) (bit0, bit1, bit4 uint64) {
	for i := 0; i < words; i++ {
		j := (i & 15) * 8 // i < 16: the slice needs no bounds check
		q := b[j : j+8 : j+8]
		w := uint64(q[0]) | uint64(q[1])<<8 | uint64(q[2])<<16 | uint64(q[3])<<24 |
			uint64(q[4])<<32 | uint64(q[5])<<40 | uint64(q[6])<<48 | uint64(q[7])<<56
		sh := uint(i * 8)
		bit0 |= gatherBytes(w) << sh
		bit1 |= gatherBytes(w>>1) << sh
		bit4 |= gatherBytes(w>>4) << sh
	}
	return
}

// gatherBytes packs bit 0 of each byte of w into the low byte of the
// result (byte k to bit k). Multiplying by the magic constant moves bit 8k
// to bit 56+k; the other partial products land on distinct lower bits or
// beyond bit 63, so no carry reaches the top byte.
func gatherBytes(w uint64) uint64 {
	return (w & 0x0101010101010101) * 0x0102040810204080 >> 56
}

// bbShift moves a set of squares one step in a direction. On boards that
// number their squares row by row the neighbour of a square in a given
// direction is the square plus a constant that depends at most on the
// parity of the row (the dark squares of a draughts board): the squares
// with the same constant form one group.
type bbShift struct {
	n     int
	mask  [2]uint64 // squares of group i (those with a neighbour)
	left  [2]uint8  // the group's constant when positive, else 0
	right [2]uint8  // minus the constant when negative, else 0
}

// newShift derives the shift of absolute direction d from t's links. It
// reports false if the board needs more than two groups.
func newShift(t *topology, d int) (bbShift, bool) {
	var sh bbShift
	var deltas [2]int
	for sq := 0; sq < t.n(); sq++ {
		to := t.step(sq, d)
		if to == none {
			continue
		}
		delta := to - sq
		i := 0
		for i < sh.n && deltas[i] != delta {
			i++
		}
		if i == sh.n {
			if sh.n == len(deltas) {
				return sh, false
			}
			deltas[i] = delta
			if delta > 0 {
				sh.left[i] = uint8(delta)
			} else {
				sh.right[i] = uint8(-delta)
			}
			sh.n++
		}
		sh.mask[i] |= 1 << sq
	}
	return sh, true
}

// apply returns the neighbours in the shift's direction of the squares of
// b that have one.
func (sh *bbShift) apply(b uint64) uint64 {
	// An unused group has an empty mask: both terms are computed, without
	// a branch.
	return (b&sh.mask[0])<<(sh.left[0]&63)>>(sh.right[0]&63) |
		(b&sh.mask[1])<<(sh.left[1]&63)>>(sh.right[1]&63)
}

// firstOnRay returns the first square of set along a ray that runs up the
// square order (up) or down it, or none if set is empty.
func firstOnRay(set uint64, up bool) int {
	if set == 0 {
		return none
	}
	if up {
		return bits.TrailingZeros64(set)
	}
	return 63 - bits.LeadingZeros64(set)
}
