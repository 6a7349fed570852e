package engine

import "math/bits"

// capWalk builds the capture chains of one position for draughtsBB: the
// move rules' jumpRule, flyingJumpRule, ctx.cont and ctx.emit over
// bitboards, in the same order and with the same semantics (captured
// pieces removed at the end of the move or at once, crowning on arrival,
// at the end or stopping the move, a king's no-return rule), so that the
// chains equal those of the move context. It lives on the generating
// goroutine's stack: the rules stay shared and read-only.
type capWalk struct {
	g     *draughtsBB
	r     *rules
	b     *[maxSquares]Piece
	out   []move
	me    Player
	links []int16
	// The position: free squares, enemy pieces, kings (both sides), and
	// all ones when captured pieces vanish at once (else zero).
	empty, enemy, kings, immediate uint64
	// The chain so far, as in ctx.
	from, at int
	fromBit  uint64
	piece    Piece
	lastDir  int
	stop     bool
	caps     uint64
	ncap     int
	nking    int
	npath    int
	capSq    [maxPath]uint8
	path     [maxPath]uint8
}

// captures generates the capture chains of the pieces in from (those that
// can capture), in square order, then applies the game's filters and
// merges the moves of the same effect, as generateRef does.
func (g *draughtsBB) captures(r *rules, s *State, out []move, from, empty, enemy, kings uint64) []move {
	w := capWalk{g: g, r: r, b: &s.Board, out: out[:0], me: s.Turn, links: g.t.links,
		empty: empty, enemy: enemy, kings: kings}
	if r.immediate {
		w.immediate = ^uint64(0)
	}
	for ; from != 0; from &= from - 1 {
		sq := bits.TrailingZeros64(from)
		pc := s.Board[sq]
		w.from, w.at, w.fromBit, w.piece = sq, sq, 1<<sq, pc
		w.lastDir, w.stop = none, false
		w.caps, w.ncap, w.nking, w.npath = 0, 0, 0, 1
		w.path[0] = uint8(sq)
		w.rule()
	}
	ms := w.out
	if len(ms) < 2 {
		return ms // nothing to filter out or merge
	}
	// The filters of the draughts rules (the majority rule, the Russian
	// king's landing rule) only ever drop a capture for one that takes
	// more pieces: a list whose captures all take as many is kept whole.
	lo, hi := ms[0].ncap, ms[0].ncap
	for i := 1; i < len(ms); i++ {
		lo, hi = min(lo, ms[i].ncap), max(hi, ms[i].ncap)
	}
	if lo != hi {
		for _, f := range r.filters {
			ms = f(r, s, ms)
		}
	}
	if r.dedupe {
		ms = dedupeMoves(ms, !r.dedupeAll)
	}
	return ms
}

// isEmpty reports whether sq is free to pass or land on within the chain.
func (w *capWalk) isEmpty(sq int) bool {
	return (w.empty|w.fromBit|w.caps&w.immediate)>>sq&1 != 0
}

// isEnemy reports whether sq holds an enemy piece not yet taken.
func (w *capWalk) isEnemy(sq int) bool {
	return (w.enemy&^w.caps)>>sq&1 != 0
}

// rule runs the capture rule of the piece in hand.
func (w *capWalk) rule() {
	g := w.g
	if w.piece.Kind() == kindMan {
		w.jump(g.manJump[w.me])
	} else if g.flying {
		w.fly(g.kingDirs[w.me])
	} else {
		w.jump(g.kingDirs[w.me])
	}
}

// jump is jumpRule: over an adjacent enemy piece onto the free square
// right behind it.
func (w *capWalk) jump(dirs []int) {
	g := w.g
	at := w.at & 63
	// The enemy pieces still to take and the free squares, as they stand
	// when this jump starts (take restores them before returning).
	enemy := w.enemy &^ w.caps
	empty := w.empty | w.fromBit | w.caps&w.immediate
	for _, d := range dirs {
		d &= 7
		over, land := g.jumpOver[d][at], g.jumpLand[d][at]
		if enemy>>(over&63)&1 != 0 && empty>>(land&63)&1 != 0 {
			w.take(int(over), int(land), d)
		}
	}
}

// fly is flyingJumpRule: along a line over free squares, one enemy piece,
// and onto any free square beyond it, each landing a branch.
func (w *capWalk) fly(dirs []int) {
	links := w.links
	noReverse := w.g.noReverse
	for _, d := range dirs {
		if noReverse && w.lastDir != none && int(w.g.t.opposite[w.lastDir]) == d {
			continue
		}
		q := int(links[w.at*8+d])
		for q != none && w.isEmpty(q) {
			q = int(links[q*8+d])
		}
		if q == none || !w.isEnemy(q) {
			continue
		}
		for l := int(links[q*8+d]); l != none && w.isEmpty(l); l = int(links[l*8+d]) {
			w.take(q, l, d)
		}
	}
}

// take captures the piece on over, lands on to arriving in direction d,
// continues the chain and then restores the chain as it was (ctx's mark,
// capture, land, cont and back).
func (w *capWalk) take(over, to, d int) {
	at, ncap, nking, npath, lastDir, piece, stop := w.at, w.ncap, w.nking, w.npath, w.lastDir, w.piece, w.stop
	w.caps |= 1 << over
	w.capSq[w.ncap] = uint8(over)
	w.ncap++
	if w.kings>>over&1 != 0 {
		w.nking++
	}
	w.path[w.npath] = uint8(to)
	w.npath++
	w.at, w.lastDir = to, d
	if w.r.promo != promoAtEnd && w.piece.Kind() == kindMan && w.g.promo[w.me]>>to&1 != 0 {
		w.piece = makePiece(w.me, kindKing)
		if w.r.promo == promoStop {
			w.stop = true
		}
	}
	w.cont()
	w.caps &^= 1 << over
	w.at, w.ncap, w.nking, w.npath, w.lastDir, w.piece, w.stop = at, ncap, nking, npath, lastDir, piece, stop
}

// cont continues the chain with the rule of the piece in hand, and emits
// it if it cannot go on.
func (w *capWalk) cont() {
	if !w.stop && w.npath < maxPath-1 && w.ncap+3 < maxChanges {
		before := len(w.out)
		w.rule()
		if len(w.out) > before {
			return
		}
	}
	w.emit()
}

// emit completes the chain as ctx.emit does.
func (w *capWalk) emit() {
	b := w.b
	final := w.piece
	if w.r.promo == promoAtEnd && final.Kind() == kindMan && w.g.promo[w.me]>>w.at&1 != 0 {
		final = makePiece(w.me, kindKing)
	}
	n := len(w.out)
	if n < cap(w.out) {
		w.out = w.out[:n+1]
	} else {
		w.out = append(w.out, move{})
	}
	m := &w.out[n]
	z := w.r.z.sq
	m.sq[0], m.pc[0] = uint8(w.from), 0
	key := z[w.from*pieceCodes+int(b[w.from])]
	for i := 0; i < w.ncap; i++ {
		q := w.capSq[i]
		m.sq[i+1], m.pc[i+1] = q, 0
		key ^= z[int(q)*pieceCodes+int(b[q])]
	}
	k := w.ncap + 1
	m.sq[k], m.pc[k] = uint8(w.at), final
	key ^= z[w.at*pieceCodes+int(final)]
	m.nchg = uint8(k + 1)
	m.key = key
	copy(m.path[:w.npath], w.path[:w.npath])
	m.npath = uint8(w.npath)
	m.ncap, m.nking = uint8(w.ncap), uint8(w.nking)
	m.tag, m.auxMask, m.aux = 0, 0, [numAux]uint8{}
	m.flags = flagCapture | flagIrrevers
	if final != b[w.from] {
		m.flags |= flagPromotion
	}
}
