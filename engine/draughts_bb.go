package engine

import (
	"math/bits"
	"slices"
)

// draughtsBB is the fast move generator of the draughts games built by
// draughts (Russian, International, Brazilian, Turkish, English). It
// reads the position as bitboards, finds with a few shifts the pieces
// that can capture, and then builds their capture chains (capWalk) or,
// if there are none, writes the quiet moves directly. Its moves, and
// their order, are those of the move rules: pieces in square order, each
// piece's directions in the order of its rules, a slide square by square
// outwards.
type draughtsBB struct {
	t      *topology
	words  int    // 8-square words of the board
	all    uint64 // the board's squares
	flying bool   // kings fly
	// noReverse forbids a king to jump back along the line it came by.
	noReverse bool
	// Absolute directions per player: men's steps and captures, kings'
	// moves (the order of the move rules).
	manStep, manJump, kingDirs [2][]int
	// shift[d] moves a set of squares one step in absolute direction d;
	// jumpBack, kingBack and stepBack hold, per player, the shifts opposite
	// to the men's captures, the kings' moves and the men's steps.
	shift                        [8]bbShift
	jumpBack, kingBack, stepBack [2][]bbShift
	// ray[d][sq] holds the squares beyond sq in direction d; up[d] says
	// whether they run up the square order.
	ray [8][64]uint64
	up  [8]bool
	// promo[p] is the promotion zone of player p, empty if men of the
	// game never promote.
	promo [2]uint64
	// The steps of a man of player p on sq in its i-th direction: the
	// square reached (sq itself when there is none), the piece it becomes
	// there and the move's Zobrist key.
	stepTo    [2][3][64]uint8
	stepFinal [2][3][64]Piece
	stepKey   [2][3][64]uint64
	// jumpOver[d][sq] and jumpLand[d][sq] are the square jumped and the
	// landing square of a short jump from sq in absolute direction d; both
	// are sq itself when the jump leaves the board.
	jumpOver, jumpLand [8][64]uint8
}

// newDraughtsBB builds the fast generator of r, a draughts game with the
// given data, or returns nil when the board does not fit in 64 bits or its
// directions are not uniform shifts.
func newDraughtsBB(r *rules, dc draughtsConfig, manStep, manJump, kingDirs []int) *draughtsBB {
	t := r.topo
	n := t.n()
	if n > 64 || len(manStep) > 3 {
		return nil
	}
	g := &draughtsBB{t: t, words: (n + 7) / 8, flying: dc.flying, noReverse: dc.noReverse}
	if n == 64 {
		g.all = ^uint64(0)
	} else {
		g.all = 1<<n - 1
	}
	g.manStep, g.manJump, g.kingDirs = absDirs(t, manStep), absDirs(t, manJump), absDirs(t, kingDirs)
	for d := 0; d < 8; d++ {
		sh, ok := newShift(t, d)
		if !ok {
			return nil
		}
		g.shift[d] = sh
		for sq := 0; sq < n; sq++ {
			g.jumpOver[d][sq], g.jumpLand[d][sq] = uint8(sq), uint8(sq)
			if over := t.step(sq, d); over != none {
				if land := t.step(over, d); land != none {
					g.jumpOver[d][sq], g.jumpLand[d][sq] = uint8(over), uint8(land)
				}
			}
			for q := t.step(sq, d); q != none; q = t.step(q, d) {
				g.ray[d][sq] |= 1 << q
				g.up[d] = q > sq
			}
		}
	}
	for p := range g.promo {
		for _, d := range g.manJump[p] {
			g.jumpBack[p] = append(g.jumpBack[p], g.shift[t.opposite[d]])
		}
		for _, d := range g.kingDirs[p] {
			g.kingBack[p] = append(g.kingBack[p], g.shift[t.opposite[d]])
		}
		for _, d := range g.manStep[p] {
			g.stepBack[p] = append(g.stepBack[p], g.shift[t.opposite[d]])
		}
		if r.promoKind[kindMan] != 0 {
			g.promo[p] = r.promoZone[p][0]
		}
		man := makePiece(Player(p), kindMan)
		for i, d := range g.manStep[p] {
			for sq := 0; sq < n; sq++ {
				to, final := t.step(sq, d), man
				if to == none {
					to = sq
				}
				if g.promo[p]>>to&1 != 0 {
					final = makePiece(Player(p), kindKing)
				}
				g.stepTo[p][i][sq] = uint8(to)
				g.stepFinal[p][i][sq] = final
				g.stepKey[p][i][sq] = r.z.sq[sq*pieceCodes+int(man)] ^ r.z.sq[to*pieceCodes+int(final)]
			}
		}
	}
	return g
}

// sides reads s as bitboards: the men and the kings on the board, the
// pieces of the side to move, the enemy's and the free squares.
func (g *draughtsBB) sides(s *State) (men, kings, mine, enemy, empty uint64) {
	men, kings, second := boardBits(&s.Board, g.words)
	occ := (men | kings) & g.all
	mine = occ &^ second
	if s.Turn == Second {
		mine = occ & second
	}
	return men, kings, mine, occ ^ mine, g.all &^ occ
}

// generate is the rules' fast hook.
func (g *draughtsBB) generate(r *rules, s *State, c *ctx, out []move) []move {
	men, kings, mine, enemy, empty := g.sides(s)
	me := s.Turn
	if from := g.capturers(me, mine&men, mine&kings, enemy, empty); from != 0 {
		return g.captures(r, s, out, from, empty, enemy, kings)
	}
	return g.quiet(r, s, out[:0], mine, mine&men, empty)
}

// capturers returns the pieces of the side to move that can capture: that
// can make the first jump of a chain, over an enemy piece onto a free
// square.
func (g *draughtsBB) capturers(me Player, men, kings, enemy, empty uint64) uint64 {
	var from uint64
	jb := g.jumpBack[me]
	for i := range jb {
		// Back from the free landing squares over the enemy pieces.
		if over := jb[i].apply(empty) & enemy; over != 0 {
			from |= jb[i].apply(over) & men
		}
	}
	if kings == 0 {
		return from
	}
	if !g.flying {
		kb := g.kingBack[me]
		for i := range kb {
			from |= kb[i].apply(kb[i].apply(empty)&enemy) & kings
		}
		return from
	}
	occ := ^empty & g.all
	for k := kings; k != 0; k &= k - 1 {
		sq := bits.TrailingZeros64(k)
		for _, d := range g.kingDirs[me] {
			q := firstOnRay(g.ray[d][sq]&occ, g.up[d])
			if q != none && enemy>>q&1 != 0 {
				if l := g.t.step(q, d); l != none && empty>>l&1 != 0 {
					from |= 1 << sq
					break
				}
			}
		}
	}
	return from
}

// quiet appends the quiet moves of the side to move, whose pieces are
// mine (men among them), to out: men's steps, kings' steps or slides. The
// men that can step in each direction are found by shifting the free
// squares back, so only pieces with a move are visited; a man's steps are
// written without branches from the tables of steps, each into the next
// free slot, which advances only if the step exists.
func (g *draughtsBB) quiet(r *rules, s *State, out []move, mine, men, empty uint64) []move {
	me := s.Turn & 1
	links := g.t.links
	back := g.stepBack[me]
	nd := len(back)
	var can [3]uint64
	var movers uint64
	for i := range back {
		can[i] = back[i].apply(empty) & men
		movers |= can[i]
	}
	kings := mine &^ men
	man := makePiece(me, kindMan)
	stepTo, stepFinal, stepKey := &g.stepTo[me], &g.stepFinal[me], &g.stepKey[me]
	n := len(out)
	for rest := movers | kings; rest != 0; rest &= rest - 1 {
		from := bits.TrailingZeros64(rest) & 63
		if kings>>from&1 != 0 {
			out = out[:n]
			pc := s.Board[from]
			for _, d := range g.kingDirs[me] {
				for to := int(links[from*8+d]); to != none && empty>>to&1 != 0; to = int(links[to*8+d]) {
					out = g.step(r, out, from, to, pc, me)
					if !g.flying {
						break
					}
				}
			}
			n = len(out)
			continue
		}
		if cap(out)-n < nd {
			out = slices.Grow(out[:n], 64)
		}
		out = out[:cap(out)]
		for i := 0; i < nd; i++ {
			to, final := stepTo[i][from], stepFinal[i][from]
			m := &out[n]
			m.key = stepKey[i][from]
			m.sq[0], m.pc[0] = uint8(from), 0
			m.sq[1], m.pc[1] = to, final
			m.path[0], m.path[1] = uint8(from), to
			m.nchg, m.npath, m.ncap, m.nking = 2, 2, 0, 0
			m.tag, m.auxMask, m.aux = 0, 0, [numAux]uint8{}
			m.flags = flagIrrevers
			if final != man {
				m.flags = flagIrrevers | flagPromotion
			}
			n += int(can[i] >> from & 1)
		}
	}
	return out[:n]
}

// step appends the quiet move of pc from from to the free square to, as
// ctx.emitStep writes it.
func (g *draughtsBB) step(r *rules, out []move, from, to int, pc Piece, me Player) []move {
	n := len(out)
	if n < cap(out) {
		out = out[:n+1]
	} else {
		out = append(out, move{})
	}
	m := &out[n]
	final := pc
	flags := uint8(0)
	if pc.Kind() == kindMan {
		flags = flagIrrevers
		if g.promo[me]>>to&1 != 0 {
			final = makePiece(me, kindKing)
			flags |= flagPromotion
		}
	}
	z := r.z.sq
	m.key = z[from*pieceCodes+int(pc)] ^ z[to*pieceCodes+int(final)]
	m.sq[0], m.pc[0] = uint8(from), 0
	m.sq[1], m.pc[1] = uint8(to), final
	m.path[0], m.path[1] = uint8(from), uint8(to)
	m.nchg, m.npath, m.ncap, m.nking = 2, 2, 0, 0
	m.tag, m.auxMask, m.aux = 0, 0, [numAux]uint8{}
	m.flags = flags
	return out
}

// count is the rules' count hook (perft's bulk counting): the number of
// moves generate returns, found without building them when the side to
// move has no capture, from the same shifts as quiet: a man's step per
// direction whose square ahead is free, a king's step or, for a flying
// king, every free square before the first piece on each of its lines. A
// position with a capture returns -1: its chains are counted by
// generating them.
func (g *draughtsBB) count(r *rules, s *State, c *ctx) int {
	men, kings, mine, enemy, empty := g.sides(s)
	me := s.Turn
	occ := mine | enemy
	if g.capturers(me, mine&men, mine&kings, enemy, empty) != 0 {
		return -1
	}
	myMen, myKings := mine&men, mine&^men
	n := 0
	for _, b := range g.stepBack[me&1] {
		n += bits.OnesCount64(b.apply(empty) & myMen)
	}
	if myKings == 0 {
		return n
	}
	dirs := g.kingDirs[me&1]
	if !g.flying {
		for _, d := range dirs {
			n += bits.OnesCount64(g.shift[d].apply(myKings) & empty)
		}
		return n
	}
	for k := myKings; k != 0; k &= k - 1 {
		sq := bits.TrailingZeros64(k)
		for _, d := range dirs {
			ray := g.ray[d][sq]
			q := firstOnRay(ray&occ, g.up[d])
			if q != none {
				ray &^= g.ray[d][q] | 1<<q
			}
			n += bits.OnesCount64(ray)
		}
	}
	return n
}
