package engine

import (
	"math/bits"
	"sync"
)

// Bitboard move generation for chess (the standard game; Chess960 keeps
// the move rules). The position is read into bitboards (a1 = bit 0, rank
// by rank, the engine's square order), sliding attacks are read from
// magic tables (chess_magic.go; the generator's slides scan each ray, the
// ray beyond the first blocker cut off with the blocker's own ray), and
// moves are legal as they are generated: the checking pieces give the
// squares a move must reach, the pinned pieces the line they must stay
// on, and the king's squares are tested for attacks with the king off the
// board. En passant, the one move that removes a piece from a square other
// than its landing square, and castling are tested by their exact
// occupancy after the move.
//
// Moves come out in the order of the move rules (pieces in square order,
// each piece's directions in its rule's order, slides outwards) and are
// written by chessData.emit, so the lists equal those of the move rules
// and the legality filter.

// chessTables are the fixed bitboards of the 8x8 board.
type chessTables struct {
	// ray[d][sq] holds the squares beyond sq in direction d.
	ray    [8][64]uint64
	knight [64]uint64
	king   [64]uint64
	// pawnFrom[p][sq] holds the squares from which a pawn of p's opponent
	// attacks sq: those a pawn of p standing on sq would attack.
	pawnFrom [2][64]uint64
	// between[a][b]: the squares strictly between two aligned squares;
	// line[a][b]: the whole line through them (0 if not aligned).
	between, line [64][64]uint64
	// rookMagic and bishopMagic are the sliders' magic tables.
	rookMagic, bishopMagic [64]magicSquare
}

// rayUp tells whether direction d runs up the square order (north,
// north-east, east, north-west).
var rayUp = [8]bool{dirN: true, dirNE: true, dirE: true, dirNW: true}

// Slider directions in the order of the move rules.
var (
	rookDirs   = []int{dirN, dirE, dirS, dirW}
	bishopDirs = []int{dirNE, dirSE, dirSW, dirNW}
	queenDirs  = []int{dirN, dirE, dirS, dirW, dirNE, dirSE, dirSW, dirNW}
)

// chessTablesOnce builds the tables on first use; they are read-only.
var chessTablesOnce = sync.OnceValue(newChessTables)

func newChessTables() *chessTables {
	t := rectBoard(8, 8, false, false)
	ct := &chessTables{}
	for sq := 0; sq < 64; sq++ {
		for d := 0; d < 8; d++ {
			for q := t.step(sq, d); q != none; q = t.step(q, d) {
				ct.ray[d][sq] |= 1 << q
			}
			if q := t.step(sq, d); q != none {
				ct.king[sq] |= 1 << q
			}
		}
		for _, ks := range knightSteps {
			if a := t.step(sq, ks[0]); a != none {
				if b := t.step(a, ks[1]); b != none {
					ct.knight[sq] |= 1 << b
				}
			}
		}
		for p, dirs := range [2][2]int{{dirNW, dirNE}, {dirSW, dirSE}} {
			for _, d := range dirs {
				if q := t.step(sq, d); q != none {
					ct.pawnFrom[p][sq] |= 1 << q
				}
			}
		}
	}
	for a := 0; a < 64; a++ {
		for d := 0; d < 8; d++ {
			for r := ct.ray[d][a]; r != 0; r &= r - 1 {
				b := bits.TrailingZeros64(r)
				ct.between[a][b] = ct.ray[d][a] &^ ct.ray[d][b] &^ (1 << b)
				ct.line[a][b] = ct.ray[d][a] | ct.ray[(d+4)%8][a] | 1<<a
			}
		}
	}
	initMagics(&ct.rookMagic, ct.rookRays)
	initMagics(&ct.bishopMagic, ct.bishopRays)
	return ct
}

// rayAttack returns the squares a slider on sq reaches in direction d:
// the ray up to and including its first occupied square.
func (ct *chessTables) rayAttack(d, sq int, occ uint64) uint64 {
	d &= 7
	r := ct.ray[d][sq&63]
	if blk := r & occ; blk != 0 {
		r ^= ct.ray[d][firstOnRay(blk, rayUp[d])&63]
	}
	return r
}

// rookAttacks and bishopAttacks return the squares a rook or a bishop on
// sq attacks with the squares of occ occupied: each ray up to and
// including its first occupied square. They are read from the magic
// tables (chess_magic.go).
func (ct *chessTables) rookAttacks(sq int, occ uint64) uint64 { return ct.rookMagic[sq&63].at(occ) }

func (ct *chessTables) bishopAttacks(sq int, occ uint64) uint64 { return ct.bishopMagic[sq&63].at(occ) }

// rookRays and bishopRays return the same attacks by scanning the rays,
// to fill the magic tables. The rays that run up the square order
// (north, east; north-east, north-west) find their blocker with the
// lowest set bit, the others with the highest.
func (ct *chessTables) rookRays(sq int, occ uint64) uint64 {
	sq &= 63
	return ct.upRay(dirN, sq, occ) | ct.upRay(dirE, sq, occ) | ct.downRay(dirS, sq, occ) | ct.downRay(dirW, sq, occ)
}

func (ct *chessTables) bishopRays(sq int, occ uint64) uint64 {
	sq &= 63
	return ct.upRay(dirNE, sq, occ) | ct.upRay(dirNW, sq, occ) | ct.downRay(dirSE, sq, occ) | ct.downRay(dirSW, sq, occ)
}

func (ct *chessTables) upRay(d, sq int, occ uint64) uint64 {
	r := ct.ray[d&7][sq&63]
	if blk := r & occ; blk != 0 {
		r ^= ct.ray[d&7][bits.TrailingZeros64(blk)&63]
	}
	return r
}

func (ct *chessTables) downRay(d, sq int, occ uint64) uint64 {
	r := ct.ray[d&7][sq&63]
	if blk := r & occ; blk != 0 {
		r ^= ct.ray[d&7][(63-bits.LeadingZeros64(blk))&63]
	}
	return r
}

// chessBits is a position as bitboards: occupancy, the pieces of each
// side and of each kind.
type chessBits struct {
	occ  uint64
	side [2]uint64
	kind [kindChessKing + 1]uint64
}

// load reads the board. A chess piece's code holds its kind in bits 0-2
// and its owner in bit 4.
func (cb *chessBits) load(b *[maxSquares]Piece) {
	var k0, k1, k2, second uint64
	for i := 0; i < 8; i++ {
		j := (i & 15) * 8 // i < 16: the slice needs no bounds check
		q := b[j : j+8 : j+8]
		w := uint64(q[0]) | uint64(q[1])<<8 | uint64(q[2])<<16 | uint64(q[3])<<24 |
			uint64(q[4])<<32 | uint64(q[5])<<40 | uint64(q[6])<<48 | uint64(q[7])<<56
		sh := uint(i * 8)
		k0 |= gatherBytes(w) << sh
		k1 |= gatherBytes(w>>1) << sh
		k2 |= gatherBytes(w>>2) << sh
		second |= gatherBytes(w>>4) << sh
	}
	cb.occ = k0 | k1 | k2
	cb.side[Second] = second & cb.occ
	cb.side[First] = cb.occ &^ second
	cb.kind[kindPawn] = k0 &^ k1 &^ k2
	cb.kind[kindKnight] = k1 &^ k0 &^ k2
	cb.kind[kindBishop] = k0 & k1 &^ k2
	cb.kind[kindRook] = k2 &^ k0 &^ k1
	cb.kind[kindQueen] = k2 & k0 &^ k1
	cb.kind[kindChessKing] = k2 & k1 &^ k0
}

// toggle puts the piece pc on square sq of the bitboards, or takes it
// off when it stands there (no change for an empty square).
func (cb *chessBits) toggle(sq int, pc Piece) {
	if pc == 0 {
		return
	}
	bit := uint64(1) << (sq & 63)
	cb.occ ^= bit
	cb.side[pc>>4&1] ^= bit
	if k := int(pc & 7); k < len(cb.kind) {
		cb.kind[k] ^= bit
	}
}

// attacked reports whether the pieces in by (a subset of one side)
// attack sq, with the squares in occ occupied. mover is the other side.
func (ct *chessTables) attacked(cb *chessBits, sq int, occ, by uint64, mover Player) bool {
	if ct.knight[sq]&cb.kind[kindKnight]&by != 0 ||
		ct.pawnFrom[mover][sq]&cb.kind[kindPawn]&by != 0 ||
		ct.king[sq]&cb.kind[kindChessKing]&by != 0 {
		return true
	}
	queens := cb.kind[kindQueen]
	if rq := (cb.kind[kindRook] | queens) & by; rq != 0 && ct.rookAttacks(sq, occ)&rq != 0 {
		return true
	}
	bq := (cb.kind[kindBishop] | queens) & by
	return bq != 0 && ct.bishopAttacks(sq, occ)&bq != 0
}

// checkers returns the pieces of by that attack the king on k.
func (ct *chessTables) checkers(cb *chessBits, k int, by uint64, mover Player) uint64 {
	c := (ct.knight[k]&cb.kind[kindKnight] | ct.pawnFrom[mover][k]&cb.kind[kindPawn]) & by
	queens := cb.kind[kindQueen]
	rq := (cb.kind[kindRook] | queens) & by
	bq := (cb.kind[kindBishop] | queens) & by
	return c | ct.rookAttacks(k, cb.occ)&rq | ct.bishopAttacks(k, cb.occ)&bq
}

// pinned returns the pieces of own that stand alone between the king on k
// and an enemy slider of by moving along that line.
func (ct *chessTables) pinned(cb *chessBits, k int, own, by uint64) uint64 {
	var pins uint64
	queens := cb.kind[kindQueen]
	// The sliders on the king's lines, as if the board were empty: each
	// pins the one piece between it and the king when that is one of own.
	snipers := ct.rookAttacks(k, 0)&(cb.kind[kindRook]|queens)&by |
		ct.bishopAttacks(k, 0)&(cb.kind[kindBishop]|queens)&by
	for ; snipers != 0; snipers &= snipers - 1 {
		b := ct.between[k&63][bits.TrailingZeros64(snipers)&63] & cb.occ
		if b != 0 && b&(b-1) == 0 && b&own != 0 {
			pins |= b
		}
	}
	return pins
}

// inCheck reports whether the side to move's king is attacked: the
// rules' inCheck hook, which the search asks in nearly every node. Like
// the scan of the board it replaces, it looks at the side's first king in
// square order and reports no check for a side without one.
func (x *chessGen) inCheck(s *State) bool {
	var cb chessBits
	cb.load(&s.Board)
	me := s.Turn
	kings := cb.kind[kindChessKing] & cb.side[me]
	if kings == 0 {
		return false
	}
	return x.ct.attacked(&cb, bits.TrailingZeros64(kings)&63, cb.occ, cb.side[me.other()], me)
}

// chessGen is the fast generator of one chess game's rules.
type chessGen struct {
	cd *chessData
	ct *chessTables
}

// chessLegal holds what legality needs in one position.
type chessLegal struct {
	k      int    // the mover's king
	target uint64 // squares a move other than the king's may reach
	pinned uint64
}

// ok reports whether moving the piece on from (not the king, not en
// passant) to to is legal.
func (x *chessGen) ok(lg *chessLegal, from, to int) bool {
	return lg.target>>(to&63)&1 != 0 && (lg.pinned>>(from&63)&1 == 0 || x.ct.line[lg.k&63][from&63]>>(to&63)&1 != 0)
}

// generate is the rules' fast hook.
func (x *chessGen) generate(r *rules, s *State, c *ctx, out []move) []move {
	b := &s.Board
	var cb chessBits
	cb.load(b)
	me := s.Turn
	own, enemy := cb.side[me], cb.side[me.other()]
	kings := cb.kind[kindChessKing] & own
	if kings == 0 || kings&(kings-1) != 0 {
		return r.generateRef(s, c, out) // not a position of play; loading refuses it
	}
	ct := x.ct
	lg := chessLegal{k: bits.TrailingZeros64(kings)}
	checks := ct.checkers(&cb, lg.k, enemy, me)
	switch {
	case checks == 0:
		lg.target = ^own
	case checks&(checks-1) == 0:
		lg.target = checks | ct.between[lg.k][bits.TrailingZeros64(checks)]
	}
	lg.pinned = ct.pinned(&cb, lg.k, own, enemy)
	var pm pawnMoves
	x.findPawnMoves(&pm, &cb, me, int(s.Aux[auxEP])-1)
	c.s, c.out, c.me = s, out[:0], me
	cd := x.cd
	for rest := own; rest != 0; rest &= rest - 1 {
		from := bits.TrailingZeros64(rest)
		pc := b[from]
		switch pc.Kind() {
		case kindPawn:
			if pm.any>>from&1 != 0 {
				x.pawn(c, &cb, &lg, &pm, from, pc)
			}
		case kindKnight:
			if lg.pinned>>from&1 != 0 {
				continue
			}
			for _, t := range cd.knight[from] {
				if lg.target>>t&1 != 0 {
					x.put(c, from, int(t), pc, none)
				}
			}
		case kindBishop:
			x.slide(c, &cb, &lg, from, pc, bishopDirs)
		case kindRook:
			x.slide(c, &cb, &lg, from, pc, rookDirs)
		case kindQueen:
			x.slide(c, &cb, &lg, from, pc, queenDirs)
		case kindChessKing:
			x.king(c, &cb, &lg, from, pc, checks != 0)
		}
	}
	return c.out
}

// slide emits a slider's legal moves along dirs, outwards. The moves
// are written as put writes them, with what they share (the origin's
// key, the castling rights kept) computed once.
func (x *chessGen) slide(c *ctx, cb *chessBits, lg *chessLegal, from int, pc Piece, dirs []int) {
	ct := x.ct
	allowed := lg.target
	if lg.pinned>>from&1 != 0 {
		allowed &= ct.line[lg.k][from]
	}
	b := &c.s.Board
	z := (*[64 * pieceCodes]uint64)(c.r.z.sq)
	isKing := &c.r.isKing
	from &= 63
	keyFrom := z[from*pieceCodes+int(pc&31)]
	rights := c.s.Aux[auxCastle] & x.cd.castleMask[from]
	out := c.out
	for _, d := range dirs {
		d &= 7
		att := ct.rayAttack(d, from, cb.occ) & allowed
		for att != 0 {
			var t int
			if rayUp[d] {
				t = bits.TrailingZeros64(att)
			} else {
				t = 63 - bits.LeadingZeros64(att)
			}
			att &^= 1 << t
			t &= 63
			n := len(out)
			if n < cap(out) {
				out = out[:n+1]
			} else {
				out = append(out, move{})
			}
			m := &out[n]
			victim := b[t]
			m.key = keyFrom ^ z[t*pieceCodes+int(victim&31)] ^ z[t*pieceCodes+int(pc&31)]
			m.sq[0], m.pc[0] = uint8(from), 0
			m.sq[1], m.pc[1] = uint8(t), pc
			m.path[0], m.path[1] = uint8(from), uint8(t)
			m.nchg, m.npath, m.ncap, m.nking, m.tag = 2, 2, 0, 0, 0
			m.flags = 0
			if victim != 0 {
				m.flags, m.ncap = flagCapture|flagIrrevers, 1
				if isKing[victim.Kind()] {
					m.nking = 1
				}
			}
			m.auxMask = 1<<auxEP | 1<<auxCastle
			m.aux[auxEP] = 0
			m.aux[auxCastle] = rights & x.cd.castleMask[t]
		}
	}
	c.out = out
}

// pawnMoves holds the pawns of the side to move that have a step, a
// double step, a capture to the left or to the right (as the mover sees
// them), found for all pawns at once, and what their moves share;
// legality is checked per move.
type pawnMoves struct {
	step, double, left, right, any uint64
	captures                       uint64 // left | right
	promo                          uint64 // pawns whose move promotes
	enemyPawns                     uint64
	// Offsets of the step and of the left and right captures, and the
	// en passant square or none.
	fwd, leftOff, rightOff, epSq int
}

// Files A and H.
const (
	fileA uint64 = 0x0101010101010101
	fileH uint64 = 0x8080808080808080
)

// findPawnMoves fills pm for the pawns of me; epSq is the en passant
// square or none.
func (x *chessGen) findPawnMoves(pm *pawnMoves, cb *chessBits, me Player, epSq int) {
	pawns := cb.kind[kindPawn] & cb.side[me]
	empty := ^cb.occ
	enemy := cb.side[me.other()]
	if me == First {
		pm.step = empty >> 8 & pawns
		pm.double = empty >> 16 & pm.step & 0xff00
		pm.left = enemy >> 7 & pawns &^ fileA
		pm.right = enemy >> 9 & pawns &^ fileH
		pm.promo = 0x00ff000000000000
		pm.fwd, pm.leftOff, pm.rightOff = 8, 7, 9
	} else {
		pm.step = empty << 8 & pawns
		pm.double = empty << 16 & pm.step & 0x00ff000000000000
		pm.left = enemy << 9 & pawns &^ fileA
		pm.right = enemy << 7 & pawns &^ fileH
		pm.promo = 0xff00
		pm.fwd, pm.leftOff, pm.rightOff = -8, -9, -7
	}
	pm.captures = pm.left | pm.right
	pm.any = pm.step | pm.captures
	pm.enemyPawns = cb.kind[kindPawn] & enemy
	pm.epSq = epSq
	if epSq != none {
		pm.any |= x.ct.pawnFrom[me.other()][epSq] & pawns
	}
}

// pawn emits a pawn's legal moves in the order of pawnRule: the step,
// the double step, the captures to the left and right (as the mover sees
// them: north-west and north-east for White, south-west and south-east
// for Black), each promotion as queen, rook, bishop and knight.
func (x *chessGen) pawn(c *ctx, cb *chessBits, lg *chessLegal, pm *pawnMoves, from int, pc Piece) {
	from &= 63
	bit := uint64(1) << from
	promo := pm.promo&bit != 0
	if pm.step&bit != 0 {
		if t1 := from + pm.fwd; x.ok(lg, from, t1) {
			if promo {
				x.promote(c, from, t1, none)
			} else {
				x.put(c, from, t1, pc, none)
			}
		}
		if t2 := from + 2*pm.fwd; pm.double&bit != 0 && x.ok(lg, from, t2) {
			// The en passant square is recorded only if an enemy pawn
			// stands beside the landing square (see epPossible).
			ep := none
			beside := (1<<((t2+1)&63))&^fileA | (1<<((t2-1)&63))&^fileH
			if beside&pm.enemyPawns != 0 {
				ep = from + pm.fwd
			}
			x.put(c, from, t2, pc, ep)
		}
	}
	if pm.captures&bit == 0 && pm.epSq == none {
		return
	}
	x.pawnCaptures(c, cb, lg, pm, from, pc, promo)
}

// pawnCaptures emits the legal captures of the pawn pc on from, to the
// left and then the right (as the mover sees them), each promotion (promo)
// as queen, rook, bishop and knight, and en passant.
func (x *chessGen) pawnCaptures(c *ctx, cb *chessBits, lg *chessLegal, pm *pawnMoves, from int, pc Piece, promo bool) {
	bit := uint64(1) << (from & 63)
	for i, delta := range [2]int{pm.leftOff, pm.rightOff} {
		can := pm.left
		if i == 1 {
			can = pm.right
		}
		to := from + delta
		if can&bit != 0 {
			if x.ok(lg, from, to) {
				if promo {
					x.promote(c, from, to, none)
				} else {
					x.put(c, from, to, pc, none)
				}
			}
		} else if pm.epSq != none && to == pm.epSq && x.ct.pawnFrom[c.me][from&63]>>(to&63)&1 != 0 {
			capSq := to - pm.fwd
			if x.epLegal(cb, lg, c.me, from, to, capSq) {
				x.cd.emit(c, from, to, pc, capSq, none, none, none)
			}
		}
	}
}

// promote emits the four promotions of a pawn moving from from to to.
func (x *chessGen) promote(c *ctx, from, to, capSq int) {
	for _, k := range [4]Kind{kindQueen, kindRook, kindBishop, kindKnight} {
		x.cd.emit(c, from, to, makePiece(c.me, k), capSq, none, none, none)
	}
}

// put appends the plain move of pc from from to to (a step, a slide or a
// capture on the landing square; no promotion, en passant capture or
// castling), with the same fields as chessData.emit writes; ep is the en
// passant square the move creates, or none.
func (x *chessGen) put(c *ctx, from, to int, pc Piece, ep int) {
	from, to = from&63, to&63 // squares of the board: no bounds checks below
	s := c.s
	victim := s.Board[to]
	z := (*[64 * pieceCodes]uint64)(c.r.z.sq)
	m := c.push()
	m.key = z[from*pieceCodes+int(pc&31)] ^ z[to*pieceCodes+int(victim&31)] ^ z[to*pieceCodes+int(pc&31)]
	m.sq[0], m.pc[0] = uint8(from), 0
	m.sq[1], m.pc[1] = uint8(to), pc
	m.path[0], m.path[1] = uint8(from), uint8(to)
	m.nchg, m.npath, m.ncap, m.nking, m.tag = 2, 2, 0, 0, 0
	m.flags = 0
	if pc.Kind() == kindPawn {
		m.flags = flagIrrevers
	}
	if victim != 0 {
		m.flags, m.ncap = flagCapture|flagIrrevers, 1
		if c.r.isKing[victim.Kind()] {
			m.nking = 1
		}
	}
	m.auxMask = 1<<auxEP | 1<<auxCastle
	m.aux[auxEP] = uint8(ep + 1)
	m.aux[auxCastle] = s.Aux[auxCastle] & x.cd.castleMask[from] & x.cd.castleMask[to]
}

// epLegal tests an en passant capture by the occupancy after it: the
// pawn leaves from, lands on to and removes the pawn on capSq, which may
// uncover the king along a rank or a diagonal.
func (x *chessGen) epLegal(cb *chessBits, lg *chessLegal, me Player, from, to, capSq int) bool {
	occ := cb.occ ^ 1<<from ^ 1<<to ^ 1<<capSq
	return !x.ct.attacked(cb, lg.k, occ, cb.side[me.other()]&^(1<<capSq), me)
}

// king emits the king's legal steps and castlings, in the order of
// kingRule.
func (x *chessGen) king(c *ctx, cb *chessBits, lg *chessLegal, from int, pc Piece, inCheck bool) {
	cd, ct := x.cd, x.ct
	b := &c.s.Board
	me := c.me
	enemy := cb.side[me.other()]
	own := cb.side[me]
	occ := cb.occ &^ (1 << from)
	for d := 0; d < 8; d++ {
		if to := cd.t.step(from, d); to != none && own>>to&1 == 0 && !ct.attacked(cb, to, occ, enemy, me) {
			x.put(c, from, to, pc, none)
		}
	}
	rights := c.s.Aux[auxCastle]
	home, kBit, qBit := sqE1, uint8(castleWK), uint8(castleWQ)
	if me == Second {
		home, kBit, qBit = sqE8, castleBK, castleBQ
	}
	if from != home || rights&(kBit|qBit) == 0 || inCheck {
		return
	}
	rook := makePiece(me, kindRook)
	if rights&kBit != 0 && b[home+1] == 0 && b[home+2] == 0 && b[home+3] == rook &&
		!ct.attacked(cb, home+1, cb.occ, enemy, me) &&
		!ct.attacked(cb, home+2, cb.occ^(1<<home|1<<(home+2)|1<<(home+3)|1<<(home+1)), enemy, me) {
		cd.emit(c, home, home+2, pc, none, home+3, home+1, none)
	}
	if rights&qBit != 0 && b[home-1] == 0 && b[home-2] == 0 && b[home-3] == 0 && b[home-4] == rook &&
		!ct.attacked(cb, home-1, cb.occ, enemy, me) &&
		!ct.attacked(cb, home-2, cb.occ^(1<<home|1<<(home-2)|1<<(home-4)|1<<(home-1)), enemy, me) {
		cd.emit(c, home, home-2, pc, none, home-4, home-1, none)
	}
}
