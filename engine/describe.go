package engine

import (
	"fmt"
	"strconv"
)

// # Games as descriptions
//
// A description is a game written as data: a Go struct literal of the
// board (a grid, which squares are played, how they are named), the
// pieces and the patterns they move by (step, slide, jump with
// continuation, flying jump, replacement capture), how a capture is chosen
// when several are possible (the majority rule and its refinements), the
// promotion zone and when a piece is crowned, who moves first, and how a
// game ends (no moves, a piece reaching the far rank, repetition, a
// reversible-move count). compile turns it into the engine's rules, played
// by the generic machinery of rules.go and context.go: priority groups,
// continuations, deferred or immediate removal, whole-list filters.
//
// The patterns below are written against the move context only; they share
// no code with the hand-written generators of draughts.go, and the tests
// (describe_test.go) check that a described Russian, International,
// Brazilian, English and Turkish draughts give the same perft and the same
// legal moves as the hand-written ones, and that every described variant
// agrees with an independent reference generator on random games.
//
// Games that place stones instead of moving pieces (Othello) keep a
// generator of their own: their moves flip or remove whole groups, which
// is not a pattern of one piece.

// squareSet says which squares of a grid are played.
type squareSet uint8

const (
	allSquares   squareSet = iota // every square (Turkish, Breakthrough)
	darkSquares                   // squares of a1's colour: a1 is dark (Russian, International, English)
	lightSquares                  // the other colour: a1 is light, h1 dark (Italian, Spanish)
)

// boardSpec describes a rectangular board as the first player sees it.
type boardSpec struct {
	width, height int
	squares       squareSet
	numbered      bool // squares named 1..n from the top left (PDN) instead of a1..
	// orthogonal links, on a board of every other square, each square to
	// the nearest played square along its file and rank (two steps away,
	// a square of the same colour), so that pieces may capture
	// orthogonally over the squares of their colour (Frisian draughts).
	orthogonal bool
}

// patternKind is how a piece moves under one pattern.
type patternKind uint8

const (
	// patStep moves one square to a free square.
	patStep patternKind = iota
	// patSlide moves any number of free squares along a line.
	patSlide
	// patJump captures an adjacent enemy piece by jumping to the free
	// square right behind it; the capture continues while it can.
	patJump
	// patFlyingJump captures along a line: over free squares, one enemy
	// piece, onto a free square beyond it (any of them, or only the
	// first with landNext); the capture continues while it can.
	patFlyingJump
	// patTake captures an adjacent enemy piece by taking its square (the
	// chess way); the move ends there.
	patTake
)

// pattern is one way a piece may move: a kind of motion along directions
// written in the first player's frame ("forward" is north; the second
// player's moves are the mirror image).
type pattern struct {
	kind patternKind
	dirs []int
	// landNext: a flying capture lands right behind the piece it takes
	// (Thai kings).
	landNext bool
	// spareKings: this pattern may not capture kings (Italian men).
	spareKings bool
}

// pieceSpec describes one kind of piece.
type pieceSpec struct {
	kind   Kind
	name   string
	letter byte
	value  int  // material value for the AI
	king   bool // counted as a king by the capture preferences and draw rules
	// promotesTo is the kind a piece of this kind becomes in its promotion
	// zone (0: never).
	promotesTo Kind
	// irreversible: moving this kind resets the reversible-move clock
	// (men); captures always do.
	irreversible bool
	moves        []pattern
	captures     []pattern
}

// preference ranks the captures of a position when several are possible:
// only the captures with the highest value are legal. A description lists
// preferences in order, each applied to the captures the previous ones
// kept (the majority rule, then its refinements).
type preference uint8

const (
	preferMostPieces   preference = iota + 1 // the most pieces taken (majority rule)
	preferKingCaptures                       // a capture by a king over one by a man
	preferMostKings                          // the most kings taken
	preferEarlyKing                          // a king taken as early as possible in the chain
	// preferValue: the highest value taken, a king counting for less than
	// two men and more than one, so that n kings outweigh 2n-1 men and
	// 2n men outweigh n kings (Frisian draughts).
	preferValue
)

// captureSpec describes the capture rules.
type captureSpec struct {
	mandatory   bool // a capture must be played when one is possible
	immediate   bool // captured pieces leave the board at once (the Turkish strike)
	noReverse   bool // a flying capture may not turn back along its own line
	kingLanding bool // the Russian king's landing rule (filterKingLanding)
	prefer      []preference
}

// endSpec describes how a game ends besides a side without a legal move
// losing.
type endSpec struct {
	noMovesDraw bool // a side without moves draws instead of losing
	// goal: a side whose piece reaches its far rank wins (Breakthrough).
	goal bool
	// kingMoves: that many moves each without a capture and without a
	// man (an irreversible kind) moving draw (0: no such rule).
	kingMoves  int
	repetition int // occurrences of a position that draw (0: none)
	endings    func(g *Game) Status
}

// description is a whole game as data.
type description struct {
	name, title string
	players     [2]string
	board       boardSpec
	pieces      []pieceSpec
	// start: ranks of pieces of startKind for each side, from each side's
	// own back rank (skipping it with skipBack).
	startRows int
	skipBack  bool
	startKind Kind
	first     Player
	capture   captureSpec
	promo     promoTiming
	end       endSpec
	quiesce   qmode
}

// gridBoard builds the board of a description: a grid as the first player
// sees it, a1 at the bottom left, with the squares of spec.squares linked
// in the eight directions (only diagonally when every other square is
// played).
func gridBoard(spec boardSpec) *topology {
	type cell struct{ c, r int }
	played := func(c, r int) bool {
		switch spec.squares {
		case darkSquares:
			return (c+r)%2 == 0
		case lightSquares:
			return (c+r)%2 == 1
		}
		return true
	}
	var cells []cell
	if spec.numbered {
		for r := spec.height - 1; r >= 0; r-- {
			for c := 0; c < spec.width; c++ {
				if played(c, r) {
					cells = append(cells, cell{c, r})
				}
			}
		}
	} else {
		for r := 0; r < spec.height; r++ {
			for c := 0; c < spec.width; c++ {
				if played(c, r) {
					cells = append(cells, cell{c, r})
				}
			}
		}
	}
	t := newTopology(len(cells), eightDirs)
	t.width, t.height, t.shape, t.numbered = spec.width, spec.height, shapeRect, spec.numbered
	t.lightA1 = spec.squares == lightSquares
	for sq, cl := range cells {
		t.col[sq], t.row[sq] = int8(cl.c), int8(cl.r)
		if spec.numbered {
			t.setName(sq, strconv.Itoa(sq+1))
		} else {
			t.setName(sq, string(rune('a'+cl.c))+strconv.Itoa(cl.r+1))
		}
	}
	t.linkGrid(spec.squares == allSquares, true)
	if spec.orthogonal && spec.squares != allSquares {
		for sq := range cells {
			for d := dirN; d <= dirW; d += 2 {
				c, r := int(t.col[sq])+2*gridVec[d][0], int(t.row[sq])+2*gridVec[d][1]
				if q := t.at(c, r); q != none {
					t.links[sq*t.nd+d] = int16(q)
				}
			}
		}
	}
	t.setReflection()
	return t
}

// compile turns a description into rules. It panics on a description
// that cannot be played (a programming error in a variant's literal).
func compile(d description) *rules {
	t := gridBoard(d.board)
	if t.n() > maxSquares {
		panic(fmt.Sprintf("engine: %s: %d squares", d.name, t.n()))
	}
	r := &rules{
		name:        d.name,
		title:       d.title,
		playerNames: d.players,
		topo:        t,
		immediate:   d.capture.immediate,
		promo:       d.promo,
		dedupe:      true,
		repetitions: d.end.repetition,
		noMovesDraw: d.end.noMovesDraw,
		endings:     d.end.endings,
		quiescence:  d.quiesce,
	}
	if d.end.kingMoves > 0 {
		r.clockLimit = 2 * d.end.kingMoves
		r.clockRule = RuleKingMoves
		r.clockReason = fmt.Sprintf("%d moves each with only kings moving and no capture", d.end.kingMoves)
	}
	for _, p := range d.pieces {
		r.kinds[p.kind] = kindInfo{name: p.name, letter: p.letter, value: p.value}
		r.isKing[p.kind] = p.king
		r.irreversible[p.kind] = p.irreversible
		r.promoKind[p.kind] = p.promotesTo
		for _, pt := range p.captures {
			r.byKind[p.kind] = append(r.byKind[p.kind], moveRule{modeCapture, patternRule(t, pt, d.capture.noReverse)})
		}
		for _, pt := range p.moves {
			r.byKind[p.kind] = append(r.byKind[p.kind], moveRule{modeQuiet, patternRule(t, pt, d.capture.noReverse)})
		}
	}
	for sq := 0; sq < t.n(); sq++ {
		switch int(t.row[sq]) {
		case t.height - 1:
			r.promoZone[First].set(sq)
		case 0:
			r.promoZone[Second].set(sq)
		}
	}
	if d.capture.mandatory {
		r.groups = []uint32{group(modeCapture), group(modeQuiet)}
	} else {
		r.groups = []uint32{group(modeCapture, modeQuiet)}
	}
	if d.capture.kingLanding {
		r.filters = append(r.filters, filterKingLanding)
	}
	if len(d.capture.prefer) > 0 {
		prefs := d.capture.prefer
		r.filters = append(r.filters, func(r *rules, s *State, ms []move) []move {
			return filterPreferences(r, s, ms, prefs)
		})
	}
	if d.end.goal {
		r.pregen = func(r *rules, s *State) bool { return goalReached(r, s) < 0 }
		r.status = goalStatus
	}
	r.encode, r.decode = encodeDraughts, decodeDraughts
	r.write = writeDraughts
	if t.numbered {
		r.clash = clashDraughts
	}
	r.eval = evalDraughts
	r.glyph = glyphDraughts
	r.finish()

	var start State
	start.Turn = d.first
	lo := 0
	if d.skipBack {
		lo = 1
	}
	for sq := 0; sq < t.n(); sq++ {
		row := int(t.row[sq])
		switch {
		case row >= lo && row < lo+d.startRows:
			start.Board[sq] = makePiece(First, d.startKind)
		case row <= t.height-1-lo && row > t.height-1-lo-d.startRows:
			start.Board[sq] = makePiece(Second, d.startKind)
		}
	}
	r.start = encodeDraughts(r, &start)
	return r
}

// patternRule returns the move rule of one pattern. It walks the board in
// the mover's frame (ctx.next) and builds every move with the context's
// land, capture, cont and emit.
func patternRule(t *topology, p pattern, noReverse bool) func(c *ctx) {
	dirs := p.dirs
	switch p.kind {
	case patStep:
		return func(c *ctx) {
			for _, d := range dirs {
				if to := c.next(c.at, d); to != none && c.isEmpty(to) {
					mk := c.mark()
					c.land(to, int(c.dmap[d]))
					c.emit()
					c.back(mk)
				}
			}
		}
	case patSlide:
		return func(c *ctx) {
			for _, d := range dirs {
				for to := c.next(c.at, d); to != none && c.isEmpty(to); to = c.next(to, d) {
					mk := c.mark()
					c.land(to, int(c.dmap[d]))
					c.emit()
					c.back(mk)
				}
			}
		}
	case patJump:
		return func(c *ctx) {
			for _, d := range dirs {
				over := c.next(c.at, d)
				if over == none || !c.isEnemy(over) || p.spareKings && c.r.isKing[c.s.Board[over].Kind()] {
					continue
				}
				to := c.next(over, d)
				if to == none || !c.isEmpty(to) {
					continue
				}
				mk := c.mark()
				c.capture(over)
				c.land(to, int(c.dmap[d]))
				c.cont(modeCapture)
				c.back(mk)
			}
		}
	case patFlyingJump:
		opp := t.opposite
		return func(c *ctx) {
			for _, d := range dirs {
				abs := int(c.dmap[d])
				if noReverse && c.lastDir != none && int(opp[c.lastDir]) == abs {
					continue
				}
				over := c.next(c.at, d)
				for over != none && c.isEmpty(over) {
					over = c.next(over, d)
				}
				if over == none || !c.isEnemy(over) || p.spareKings && c.r.isKing[c.s.Board[over].Kind()] {
					continue
				}
				for to := c.next(over, d); to != none && c.isEmpty(to); to = c.next(to, d) {
					mk := c.mark()
					c.capture(over)
					c.land(to, abs)
					c.cont(modeCapture)
					c.back(mk)
					if p.landNext {
						break
					}
				}
			}
		}
	case patTake:
		return func(c *ctx) {
			for _, d := range dirs {
				to := c.next(c.at, d)
				if to == none || !c.isEnemy(to) || p.spareKings && c.r.isKing[c.s.Board[to].Kind()] {
					continue
				}
				c.emitTake(to)
			}
		}
	}
	panic(fmt.Sprintf("engine: unknown pattern %d", p.kind))
}

// emitTake emits the capture of the enemy piece on to by the piece in
// hand, which takes its square (crowned there if to is in its zone).
func (c *ctx) emitTake(to int) {
	final := c.piece
	if k := c.r.promoKind[final.Kind()]; k != 0 && c.r.promoZone[c.me].has(to) {
		final = makePiece(c.me, k)
	}
	b := &c.s.Board
	victim := b[to]
	nking := 0
	if c.r.isKing[victim.Kind()] {
		nking = 1
	}
	m := c.emitChanges([]change{{c.from, 0}, {to, final}}, []int{c.from, to}, 1, nking, 0)
	if final != c.piece {
		m.flags |= flagPromotion
	}
}

// filterPreferences keeps the captures that rank highest by each
// preference in turn (quiet moves are kept: they are never mixed with
// captures when capturing is mandatory).
func filterPreferences(r *rules, s *State, ms []move, prefs []preference) []move {
	for _, p := range prefs {
		best := -1 << 30
		for i := range ms {
			if ms[i].ncap > 0 {
				best = max(best, preferenceValue(r, s, &ms[i], p))
			}
		}
		k := 0
		for i := range ms {
			if ms[i].ncap == 0 || preferenceValue(r, s, &ms[i], p) == best {
				ms[k] = ms[i]
				k++
			}
		}
		ms = ms[:k]
	}
	return ms
}

// preferenceValue scores a capture by one preference (higher is preferred).
func preferenceValue(r *rules, s *State, m *move, p preference) int {
	switch p {
	case preferMostPieces:
		return int(m.ncap)
	case preferKingCaptures:
		if r.isKing[s.Board[m.from()].Kind()] {
			return 1
		}
		return 0
	case preferMostKings:
		return int(m.nking)
	case preferValue:
		// A man is worth 100 and a king 199: below two men by less than
		// any count of kings on a board can add up to (n kings are worth
		// 200n-n, more than the 200n-100 of 2n-1 men while n < 100).
		return 100*int(m.ncap) + 99*int(m.nking)
	case preferEarlyKing:
		for i := 0; i < int(m.ncap); i++ {
			if r.isKing[s.Board[m.capturedAt(i)].Kind()] {
				return -i
			}
		}
		return -maxPath
	}
	return 0
}

// goalReached returns the side with a piece on its far rank (its
// promotion zone), or -1.
func goalReached(r *rules, s *State) int {
	for sq := 0; sq < r.topo.n(); sq++ {
		if pc := s.Board[sq]; pc != 0 && r.promoZone[pc.Owner()].has(sq) {
			return int(pc.Owner())
		}
	}
	return -1
}

// goalStatus ends a game won by reaching the far rank (RuleGoal), and
// otherwise applies the default rules.
func goalStatus(g *Game, nLegal int) Status {
	if p := goalReached(g.r, g.cur()); p >= 0 {
		return end(Win, Player(p), RuleGoal, "a piece reached the far rank")
	}
	return defaultStatus(g, nLegal)
}
