package engine

import "math/bits"

// The moves of the chess quiescence search: in a position whose side to
// move is not in check, quiescence plays only the captures (en passant
// included) and the promotions to a queen, and generating every legal
// move to throw most of them away is most of its generation time.
// chessGen.tactical generates those moves alone, legal as generate makes
// them: with the same checkers, pins and occupancy tests, written by the
// same functions (put and chessData.emit) and in the same order as they
// stand in generate's list. The quiescence search therefore sees the list
// it saw when it filtered the full one, move for move;
// TestChessTacticalMatchesGenerate compares the two.
//
// Whether the side to move has a legal move at all decides checkmate and
// stalemate. chessGen.standing answers it without generating: a position
// of play nearly always has a pawn's step or a piece's move to an empty
// square, which a few bitboard tests find.

// chessPosition holds what standing and tactical read of a position.
type chessPosition struct {
	cb chessBits
	lg chessLegal
}

// read reads s into p. play is false when s is left to the full
// generator (the side to move has no king, or more than one); otherwise
// check tells whether the side to move is in check, and when it is not
// the legality of its moves is read too.
func (x *chessGen) read(p *chessPosition, s *State) (play, check bool) {
	cb := &p.cb
	cb.load(&s.Board)
	me := s.Turn
	own, enemy := cb.side[me], cb.side[me.other()]
	kings := cb.kind[kindChessKing] & own
	if kings == 0 || kings&(kings-1) != 0 {
		return false, false // not a position of play: loading refuses it
	}
	ct := x.ct
	p.lg.k = bits.TrailingZeros64(kings) & 63
	if ct.checkers(cb, p.lg.k, enemy, me) != 0 {
		return true, true
	}
	p.lg.target = ^own
	p.lg.pinned = ct.pinned(cb, p.lg.k, own, enemy)
	return true, false
}

// standing is the rules' standing hook: whether the side to move is in
// check and, when it is not, whether it has a legal move. A quiet move
// found by hasQuietMove answers; else the full list does (a capture, or a
// castling, the one move hasQuietMove leaves out: in Chess960 a king that
// stays on its square can castle when it has no other move).
func (x *chessGen) standing(r *rules, s *State, c *ctx, scratch []move) (inCheck, hasMove bool) {
	var p chessPosition
	play, check := x.read(&p, s)
	switch {
	case !play:
		if r.inCheck(s) {
			return true, false
		}
	case check:
		return true, false
	case x.hasQuietMove(&p.cb, &p.lg, s.Turn):
		return false, true
	}
	return false, len(r.generate(s, c, scratch)) > 0
}

// tactical is the rules' tactical hook: the moves the quiescence search
// plays in s. For a side to move not in check they are its legal
// captures and queen promotions in generate's order (a capturing
// promotion to any piece is a capture, a quiet one counts only as a
// queen); for a side in check, every legal move, as generate gives them.
func (x *chessGen) tactical(r *rules, s *State, c *ctx, out []move) []move {
	var p chessPosition
	if play, check := x.read(&p, s); !play || check {
		ms := r.generate(s, c, out)
		if !play && !r.inCheck(s) {
			ms = keepTactical(ms) // a position without its one king
		}
		return ms
	}
	cb, lg := &p.cb, &p.lg
	b := &s.Board
	me := s.Turn
	own, enemy := cb.side[me], cb.side[me.other()]
	ct := x.ct
	var pm pawnMoves
	x.findPawnMoves(&pm, cb, me, int(s.Aux[auxEP])-1)
	// The pawns with a tactical move: a capture, en passant or a step to
	// the last rank.
	pawns := pm.captures | pm.step&pm.promo
	if pm.epSq != none {
		pawns |= ct.pawnFrom[me.other()][pm.epSq&63] & cb.kind[kindPawn] & own
	}
	// Every other piece of the side is looked at: whether it attacks an
	// enemy piece is known only once its attacks are.
	c.s, c.out, c.me = s, out[:0], me
	cd := x.cd
	occ := cb.occ
	for rest := own&^cb.kind[kindPawn] | pawns; rest != 0; rest &= rest - 1 {
		from := bits.TrailingZeros64(rest) & 63
		pc := b[from]
		allowed := enemy
		if lg.pinned>>from&1 != 0 {
			allowed &= ct.line[lg.k][from]
		}
		switch pc.Kind() {
		case kindPawn:
			x.pawnTactical(c, cb, lg, &pm, from)
		case kindKnight:
			if lg.pinned>>from&1 != 0 || ct.knight[from]&enemy == 0 {
				continue
			}
			for _, t := range cd.knight[from] {
				if enemy>>t&1 != 0 {
					x.put(c, from, int(t), pc, none)
				}
			}
		case kindBishop:
			x.slideTactical(c, from, pc, ct.bishopAttacks(from, occ)&allowed, bishopDirs)
		case kindRook:
			x.slideTactical(c, from, pc, ct.rookAttacks(from, occ)&allowed, rookDirs)
		case kindQueen:
			att := ct.rookAttacks(from, occ) | ct.bishopAttacks(from, occ)
			x.slideTactical(c, from, pc, att&allowed, queenDirs)
		case kindChessKing:
			// The king's captures, in kingRule's order of directions, to
			// squares the enemy does not attack with the king off the board.
			if ct.king[from]&enemy == 0 {
				continue
			}
			kocc := occ &^ (1 << from)
			for d := 0; d < 8; d++ {
				if to := cd.t.step(from, d); to != none && enemy>>to&1 != 0 && !ct.attacked(cb, to, kocc, enemy, me) {
					x.put(c, from, to, pc, none)
				}
			}
		}
	}
	return c.out
}

// slideTactical emits a slider's captures: caps holds the enemy pieces
// it may take (at most one a direction, the first piece on the ray),
// emitted in the order of dirs as slide emits them.
func (x *chessGen) slideTactical(c *ctx, from int, pc Piece, caps uint64, dirs []int) {
	if caps == 0 {
		return
	}
	ray := &x.ct.ray
	for _, d := range dirs {
		if t := caps & ray[d&7][from&63]; t != 0 {
			x.put(c, from, bits.TrailingZeros64(t), pc, none)
		}
	}
}

// pawnTactical emits a pawn's tactical moves in the order of pawn: the
// step to the last rank as a queen, then the captures to the left and to
// the right (as the mover sees them), to the last rank as each of the four
// promotions, and en passant.
func (x *chessGen) pawnTactical(c *ctx, cb *chessBits, lg *chessLegal, pm *pawnMoves, from int) {
	from &= 63
	bit := uint64(1) << from
	promo := pm.promo&bit != 0
	if promo && pm.step&bit != 0 {
		if to := from + pm.fwd; x.ok(lg, from, to) {
			x.cd.emit(c, from, to, makePiece(c.me, kindQueen), none, none, none, none)
		}
	}
	x.pawnCaptures(c, cb, lg, pm, from, c.s.Board[from], promo)
}

// hasQuietMove reports whether the side to move, not in check, has a
// legal move to an empty square other than castling: a pawn's step, a
// move of a knight or a slider within its pin, or a king's step to a
// square the enemy does not attack. The cheapest tests come first; a
// position of play almost always has such a move.
func (x *chessGen) hasQuietMove(cb *chessBits, lg *chessLegal, me Player) bool {
	ct := x.ct
	own := cb.side[me]
	empty := ^cb.occ
	pawns := cb.kind[kindPawn] & own
	free := pawns &^ lg.pinned
	var step uint64
	if me == First {
		step = free << 8 & empty
	} else {
		step = free >> 8 & empty
	}
	if step != 0 {
		return true
	}
	// A pinned pawn steps only along a file it shares with its king.
	for p := pawns & lg.pinned; p != 0; p &= p - 1 {
		from := bits.TrailingZeros64(p) & 63
		to := from + 8
		if me == Second {
			to = from - 8
		}
		if to >= 0 && to < 64 && empty>>to&1 != 0 && ct.line[lg.k][from]>>to&1 != 0 {
			return true
		}
	}
	for p := cb.kind[kindKnight] & own &^ lg.pinned; p != 0; p &= p - 1 {
		if ct.knight[bits.TrailingZeros64(p)&63]&empty != 0 {
			return true
		}
	}
	occ := cb.occ
	queens := cb.kind[kindQueen] & own
	diagonal, straight := cb.kind[kindBishop]|queens, cb.kind[kindRook]|queens
	for p := (diagonal | straight) & own; p != 0; p &= p - 1 {
		from := bits.TrailingZeros64(p) & 63
		allowed := empty
		if lg.pinned>>from&1 != 0 {
			allowed &= ct.line[lg.k][from]
		}
		var att uint64
		if diagonal>>from&1 != 0 {
			att = ct.bishopAttacks(from, occ)
		}
		if straight>>from&1 != 0 {
			att |= ct.rookAttacks(from, occ)
		}
		if att&allowed != 0 {
			return true
		}
	}
	enemy := cb.side[me.other()]
	kocc := occ &^ (1 << lg.k)
	for to := ct.king[lg.k] & empty; to != 0; to &= to - 1 {
		if !ct.attacked(cb, bits.TrailingZeros64(to), kocc, enemy, me) {
			return true
		}
	}
	return false
}

// keepTactical keeps, in order, the moves of ms that the quiescence
// search plays when not in check: the captures and the promotions to a
// queen.
func keepTactical(ms []move) []move {
	k := 0
	for i := range ms {
		m := &ms[i]
		if m.ncap > 0 || (m.flags&flagPromotion != 0 && m.tag == uint8(kindQueen)) {
			ms[k] = *m
			k++
		}
	}
	return ms[:k]
}
