package engine

// ctx is the move context that move rules run against, in the style of the
// second-generation Dagaz model: a rule looks at the board through the
// context (isEmpty, isEnemy, ...), walks the piece "in hand" square by
// square (land), records captures (capture), and finishes a move (emit) or
// asks for a continuation of the same compound move (cont).
//
// The context keeps an overlay over the position being generated from: the
// origin square counts as empty once the piece has left it, and squares
// captured earlier in the same move are either still occupied but no
// longer capturable (deferred removal, the rule in most draughts) or
// already empty (immediate removal, the Turkish strike). Nothing touches
// the State itself, so rules can explore branches with mark/back.
type ctx struct {
	r     *rules
	s     *State
	out   []move
	me    Player
	dmap  []uint8 // the mover's direction permutation
	links []int16 // the board's neighbour table and number of directions
	nd    int
	// The piece in hand and where it stands.
	from, at int
	piece    Piece
	lastDir  int  // absolute direction of the last landing, or none
	stop     bool // the move must end here (promotion ends an English capture)
	// Captures and path of the compound move so far.
	caps  bitset
	ncap  int
	nking int
	npath int
	capSq [maxPath]uint8
	path  [maxPath]uint8
}

// mark is a saved context, restored by back when a rule explores the next
// branch.
type mark struct {
	at, ncap, nking, npath, lastDir int
	piece                           Piece
	stop                            bool
}

// begin prepares the context for the piece pc standing on sq.
func (c *ctx) begin(sq int, pc Piece) {
	c.from, c.at, c.piece = sq, sq, pc
	c.lastDir, c.stop = none, false
	c.ncap, c.nking, c.npath = 0, 0, 1
	c.path[0] = uint8(sq)
}

// next returns the neighbour of sq in direction d of the mover's frame.
func (c *ctx) next(sq, d int) int {
	return int(c.links[sq*c.nd+int(c.dmap[d])])
}

// isEmpty reports whether sq is free to pass or land on, as seen from
// inside the move being built.
func (c *ctx) isEmpty(sq int) bool {
	if sq == c.from {
		return true
	}
	if c.caps.has(sq) {
		return c.r.immediate
	}
	return c.s.Board[sq] == 0
}

// isEnemy reports whether sq holds an enemy piece that may still be
// captured in this move.
func (c *ctx) isEnemy(sq int) bool {
	pc := c.s.Board[sq]
	return pc != 0 && pc.Owner() != c.me && sq != c.from && !c.caps.has(sq)
}

// mark saves the context.
func (c *ctx) mark() mark {
	return mark{at: c.at, ncap: c.ncap, nking: c.nking, npath: c.npath, lastDir: c.lastDir, piece: c.piece, stop: c.stop}
}

// back restores a saved context.
func (c *ctx) back(m mark) {
	for i := m.ncap; i < c.ncap; i++ {
		c.caps.clear(int(c.capSq[i]))
	}
	c.at, c.ncap, c.nking, c.npath, c.lastDir, c.piece, c.stop = m.at, m.ncap, m.nking, m.npath, m.lastDir, m.piece, m.stop
}

// capture marks the enemy piece on sq as taken by this move.
func (c *ctx) capture(sq int) {
	c.caps.set(sq)
	c.capSq[c.ncap] = uint8(sq)
	c.ncap++
	if c.r.isKing[c.s.Board[sq].Kind()] {
		c.nking++
	}
}

// land moves the piece in hand to sq, arriving in absolute direction d,
// and applies promotion when the game crowns pieces as soon as they reach
// the zone (Russian) or crowns and stops (English).
func (c *ctx) land(sq, d int) {
	c.path[c.npath] = uint8(sq)
	c.npath++
	c.at, c.lastDir = sq, d
	if c.r.promo != promoAtEnd {
		if k := c.r.promoKind[c.piece.Kind()]; k != 0 && c.r.promoZone[c.me].has(sq) {
			c.piece = makePiece(c.me, k)
			if c.r.promo == promoStop {
				c.stop = true
			}
		}
	}
}

// full reports whether the move has no room for another capture.
func (c *ctx) full() bool { return c.npath >= maxPath-1 || c.ncap+3 >= maxChanges }

// cont continues the compound move with every rule of the given mode for
// the piece in hand (its current kind, so a man crowned mid-capture goes on
// as a king). If no continuation exists the move so far is complete and is
// emitted; a move that can continue is never emitted short.
func (c *ctx) cont(mode mode) {
	if c.stop || c.full() {
		c.emit()
		return
	}
	before := len(c.out)
	rs := c.r.byKind[c.piece.Kind()]
	for i := range rs {
		if rs[i].mode == mode {
			rs[i].fn(c)
		}
	}
	if len(c.out) == before {
		c.emit()
	}
}

// emit completes the move built so far: the origin is emptied, captured
// pieces removed, and the piece in hand (crowned now if the game crowns at
// the end of the move) put on its last square.
func (c *ctx) emit() {
	final := c.piece
	if c.r.promo == promoAtEnd {
		if k := c.r.promoKind[final.Kind()]; k != 0 && c.r.promoZone[c.me].has(c.at) {
			final = makePiece(c.me, k)
		}
	}
	m := c.push()
	z := c.r.z.sq
	b := &c.s.Board
	m.sq[0], m.pc[0] = uint8(c.from), 0
	key := z[c.from*pieceCodes+int(b[c.from])]
	for i := 0; i < c.ncap; i++ {
		q := c.capSq[i]
		m.sq[i+1], m.pc[i+1] = q, 0
		key ^= z[int(q)*pieceCodes+int(b[q])]
	}
	n := c.ncap + 1
	m.sq[n] = uint8(c.at)
	m.pc[n] = final
	key ^= z[c.at*pieceCodes+int(final)]
	m.nchg = uint8(n + 1)
	m.key = key
	copy(m.path[:c.npath], c.path[:c.npath])
	m.npath = uint8(c.npath)
	m.ncap, m.nking = uint8(c.ncap), uint8(c.nking)
	m.tag, m.auxMask, m.aux = 0, 0, [numAux]uint8{}
	m.flags = 0
	if c.ncap > 0 {
		m.flags = flagCapture | flagIrrevers
	} else if c.r.irreversible[b[c.from].Kind()] {
		m.flags = flagIrrevers
	}
	if final != b[c.from] {
		m.flags |= flagPromotion
	}
}

// push appends a move to the output and returns it for filling in. The
// move is not cleared: callers set every field (arrays only up to their
// counts), which saves zeroing 150 bytes per generated move.
func (c *ctx) push() *move {
	n := len(c.out)
	if n < cap(c.out) {
		c.out = c.out[:n+1]
	} else {
		c.out = append(c.out, move{})
	}
	return &c.out[n]
}

// emitStep emits a quiet move of the piece in hand from its origin to the
// free square to: the hot path of draughts generation, equivalent to
// land followed by emit but without the bookkeeping of a compound move.
func (c *ctx) emitStep(to int) {
	pc := c.piece
	final := pc
	if k := c.r.promoKind[pc.Kind()]; k != 0 && c.r.promoZone[c.me].has(to) {
		final = makePiece(c.me, k)
	}
	m := c.push()
	z := c.r.z.sq
	m.key = z[c.from*pieceCodes+int(pc)] ^ z[to*pieceCodes+int(final)]
	m.sq[0], m.pc[0] = uint8(c.from), 0
	m.sq[1], m.pc[1] = uint8(to), final
	m.path[0], m.path[1] = uint8(c.from), uint8(to)
	m.nchg, m.npath, m.ncap, m.nking = 2, 2, 0, 0
	m.tag, m.auxMask, m.aux = 0, 0, [numAux]uint8{}
	m.flags = 0
	if c.r.irreversible[pc.Kind()] {
		m.flags = flagIrrevers
	}
	if final != pc {
		m.flags |= flagPromotion
	}
}

// change is one square assignment of a move under construction.
type change struct {
	sq int
	pc Piece
}

// emitChanges emits a move given as explicit square assignments (Chase).
// Assignments to the same square collapse to the last one; the caller
// passes at most maxChanges distinct squares. path lists the squares a
// player names to play the move. Unlike push, it starts from a cleared
// move: it is not on a hot path.
func (c *ctx) emitChanges(chg []change, path []int, ncap, nking int, flags uint8) *move {
	c.out = append(c.out, move{})
	m := &c.out[len(c.out)-1]
	z := c.r.z.sq
	n := 0
	for _, ch := range chg {
		j := 0
		for j < n && int(m.sq[j]) != ch.sq {
			j++
		}
		if j == n {
			m.sq[n] = uint8(ch.sq)
			n++
		}
		m.pc[j] = ch.pc
	}
	var key uint64
	for j := 0; j < n; j++ {
		q := int(m.sq[j])
		key ^= z[q*pieceCodes+int(c.s.Board[q])] ^ z[q*pieceCodes+int(m.pc[j])]
	}
	m.nchg = uint8(n)
	m.key = key
	for i, p := range path {
		m.path[i] = uint8(p)
	}
	m.npath = uint8(len(path))
	m.ncap, m.nking, m.flags = uint8(ncap), uint8(nking), flags
	if ncap > 0 {
		m.flags |= flagCapture | flagIrrevers
	}
	return m
}
