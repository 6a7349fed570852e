package engine

import "math/bits"

// Counting chess moves without building them: perft's bulk counting at
// the last ply only needs the number of legal moves, which the bitboards
// give as population counts of the squares each piece may reach. The
// count follows the generator's rules exactly (chessGen.generate): the
// same checkers, pins and target squares, promotions counted four times
// (queen, rook, bishop, knight), en passant and castling tested by the
// same occupancy tests. TestChessCountMatchesGenerate compares the two.

// count returns the number of legal moves of s, len(generate(s)), without
// building the moves. It is the rules' count hook.
func (x *chessGen) count(r *rules, s *State, c *ctx) int {
	var cb chessBits
	cb.load(&s.Board)
	return x.countBits(r, s, c, &cb)
}

// countBelow returns perft(2) of s, whose legal moves are ms: the rules'
// countBelow hook. Each move is played on child, and the bitboards of
// the position after it are those of s with the squares the move changed
// updated, which costs less than reading the board again (perft reads
// the board at every position of the last ply but one, and bulk
// counting leaves little else to do there).
func (x *chessGen) countBelow(r *rules, s *State, c *ctx, ms []move, child *State) int64 {
	var cb chessBits
	cb.load(&s.Board)
	var n int64
	for i := range ms {
		m := &ms[i]
		*child = *s
		r.apply(child, m)
		after := cb
		var done uint64
		for j := 0; j < int(m.nchg); j++ {
			sq := int(m.sq[j])
			if sq >= 64 || done>>sq&1 != 0 {
				continue
			}
			done |= 1 << sq
			after.toggle(sq, s.Board[sq])
			after.toggle(sq, child.Board[sq])
		}
		n += int64(x.countBits(r, child, c, &after))
	}
	return n
}

// countBits is count with the bitboards of s given.
func (x *chessGen) countBits(r *rules, s *State, c *ctx, cb *chessBits) int {
	me := s.Turn
	own, enemy := cb.side[me], cb.side[me.other()]
	kings := cb.kind[kindChessKing] & own
	if kings == 0 || kings&(kings-1) != 0 {
		return len(r.generateRef(s, c, c.out)) // as generate does
	}
	ct := x.ct
	k := bits.TrailingZeros64(kings) & 63
	checks := ct.checkers(cb, k, enemy, me)
	n := x.countKing(cb, k, me, s.Aux[auxCastle], checks != 0)
	pawns := cb.kind[kindPawn] & own
	// En passant is tested by the occupancy after the capture, in check
	// or not, as the generator does.
	if epSq := int(s.Aux[auxEP]) - 1; epSq != none {
		epSq &= 63
		capSq := epSq - 8
		if me == Second {
			capSq = epSq + 8
		}
		lg := chessLegal{k: k}
		for p := ct.pawnFrom[me.other()][epSq] & pawns; p != 0; p &= p - 1 {
			if x.epLegal(cb, &lg, me, bits.TrailingZeros64(p), epSq, capSq) {
				n++
			}
		}
	}
	var target uint64
	switch {
	case checks == 0:
		target = ^own
	case checks&(checks-1) == 0:
		target = checks | ct.between[k][bits.TrailingZeros64(checks)&63]
	default:
		return n // double check: only the king moves
	}
	pinned := ct.pinned(cb, k, own, enemy)
	line := &ct.line[k]
	for p := cb.kind[kindKnight] & own &^ pinned; p != 0; p &= p - 1 {
		n += bits.OnesCount64(ct.knight[bits.TrailingZeros64(p)&63] & target)
	}
	queens := cb.kind[kindQueen] & own
	// The diagonal and the straight sliders are counted by two loops: one
	// loop that tests each piece's kind runs the count about a fifth slower
	// (Kiwipete's perft).
	for p := (cb.kind[kindBishop]&own | queens); p != 0; p &= p - 1 {
		from := bits.TrailingZeros64(p) & 63
		n += bits.OnesCount64(ct.bishopAttacks(from, cb.occ) & pinnedTo(target, pinned, line, from))
	}
	for p := (cb.kind[kindRook]&own | queens); p != 0; p &= p - 1 {
		from := bits.TrailingZeros64(p) & 63
		n += bits.OnesCount64(ct.rookAttacks(from, cb.occ) & pinnedTo(target, pinned, line, from))
	}
	return n + countPawns(cb, me, pawns&^pinned, target) + x.countPinnedPawns(cb, me, k, pawns&pinned, target)
}

// countPawns counts the steps, double steps and captures of the pawns in
// free (none of them pinned) that land on target; a move to the last rank
// counts four times, one per promotion piece.
func countPawns(cb *chessBits, me Player, free, target uint64) int {
	empty := ^cb.occ
	enemy := cb.side[me.other()] & target
	var step, double, west, east, last uint64
	if me == First {
		step = free << 8 & empty
		double = (step & 0xff0000) << 8 & empty & target
		west = (free &^ fileA) << 7 & enemy
		east = (free &^ fileH) << 9 & enemy
		last = 0xff00000000000000
	} else {
		step = free >> 8 & empty
		double = (step & 0xff0000000000) >> 8 & empty & target
		west = (free &^ fileA) >> 9 & enemy
		east = (free &^ fileH) >> 7 & enemy
		last = 0xff
	}
	step &= target
	n := bits.OnesCount64(step&^last) + bits.OnesCount64(double) +
		bits.OnesCount64(west&^last) + bits.OnesCount64(east&^last)
	promo := bits.OnesCount64(step&last) + bits.OnesCount64(west&last) + bits.OnesCount64(east&last)
	return n + 4*promo
}

// countPinnedPawns counts the moves of the pinned pawns: each moves only
// along the line through its king.
func (x *chessGen) countPinnedPawns(cb *chessBits, me Player, k int, pinned, target uint64) int {
	n := 0
	for p := pinned; p != 0; p &= p - 1 {
		from := bits.TrailingZeros64(p) & 63
		n += countPawns(cb, me, 1<<from, target&x.ct.line[k][from])
	}
	return n
}

// countKing counts the king's steps to squares the enemy does not attack
// (with the king off the board) and its castlings, as chessGen.king
// tests them.
func (x *chessGen) countKing(cb *chessBits, k int, me Player, rights uint8, inCheck bool) int {
	ct := x.ct
	own, enemy := cb.side[me], cb.side[me.other()]
	occ := cb.occ &^ (1 << k)
	n := 0
	for to := ct.king[k] &^ own; to != 0; to &= to - 1 {
		if !ct.attacked(cb, bits.TrailingZeros64(to), occ, enemy, me) {
			n++
		}
	}
	home, kBit, qBit := sqE1, uint8(castleWK), uint8(castleWQ)
	if me == Second {
		home, kBit, qBit = sqE8, castleBK, castleBQ
	}
	if k != home || rights&(kBit|qBit) == 0 || inCheck {
		return n
	}
	rooks := cb.kind[kindRook] & own
	if rights&kBit != 0 && cb.occ>>(home+1)&3 == 0 && rooks>>(home+3)&1 != 0 &&
		!ct.attacked(cb, home+1, cb.occ, enemy, me) &&
		!ct.attacked(cb, home+2, cb.occ^(1<<home|1<<(home+2)|1<<(home+3)|1<<(home+1)), enemy, me) {
		n++
	}
	if rights&qBit != 0 && cb.occ>>(home-3)&7 == 0 && rooks>>(home-4)&1 != 0 &&
		!ct.attacked(cb, home-1, cb.occ, enemy, me) &&
		!ct.attacked(cb, home-2, cb.occ^(1<<home|1<<(home-2)|1<<(home-4)|1<<(home-1)), enemy, me) {
		n++
	}
	return n
}

// pinnedTo returns the squares of target a piece on from may move to: all
// of them, or for a pinned piece those on its line through the king
// (line, the king's lines).
func pinnedTo(target, pinned uint64, line *[64]uint64, from int) uint64 {
	if pinned>>(from&63)&1 != 0 {
		return target & line[from&63]
	}
	return target
}
