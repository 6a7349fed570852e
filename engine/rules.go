package engine

import "slices"

// mode is a move rule's type in the ZRF/Dagaz sense (capture, quiet, ...).
// Priority groups list modes; continuations ask for a mode.
type mode uint8

const (
	modeQuiet mode = iota
	modeCapture
)

// moveRule is one way a kind of piece may move: a small function over the
// move context, tagged with its mode.
type moveRule struct {
	mode mode
	fn   func(c *ctx)
}

// promoTiming says when a piece reaching its promotion zone is crowned.
type promoTiming uint8

const (
	// promoNow crowns on arrival, also in the middle of a capture; the
	// capture goes on with the new kind's rules (Russian draughts).
	promoNow promoTiming = iota
	// promoAtEnd crowns only if the move ends in the zone (International,
	// Brazilian, Turkish); a man passing through the zone mid-capture
	// stays a man.
	promoAtEnd
	// promoStop crowns on arrival and ends the move there (English).
	promoStop
)

// filter is a whole-list rule: it sees every generated move of a position
// and keeps the legal ones (majority capture, the Russian king's landing
// rule, chess legality). It compacts the slice in place.
type filter func(r *rules, s *State, ms []move) []move

// kindInfo describes a piece kind for notation, diagrams and the AI.
type kindInfo struct {
	name   string
	letter byte // position strings and diagrams (upper case)
	value  int  // material value for evaluation
}

// rules is an immutable game description: board, pieces and their move
// rules, priorities, capture semantics, filters, and the hooks each game
// supplies for status, position strings, notation and evaluation. One
// value serves any number of games and searches at once.
type rules struct {
	name        string
	title       string
	playerNames [2]string
	topo        *topology
	kinds       [16]kindInfo
	byKind      [16][]moveRule
	// groups lists mode sets in priority order; generation stops at the
	// first group that yields a move (mandatory capture).
	groups       []uint32
	immediate    bool // captured pieces vanish at once (Turkish strike)
	promo        promoTiming
	promoKind    [16]Kind // kind -> kind it is crowned to (0 = never)
	promoZone    [2]bitset
	isKing       [16]bool // counted as "king" by majority refinements and the AI
	irreversible [16]bool // moving this kind resets the clock (men, pawns)
	filters      []filter
	// dedupe merges moves with the same effect (ring captures, a king
	// stopping between two pieces on a line, symmetric ricochets);
	// dedupeAll compares every move, not only captures.
	dedupe, dedupeAll bool
	z                 zobrist
	// Game hooks.
	start  string                           // start position string
	pregen func(r *rules, s *State) bool    // false: the game is over, no moves
	gen    func(r *rules, s *State, c *ctx) // replaces rule-driven generation
	// fast, when set, is a specialised generator that generate uses
	// instead of routes and dedupe (bitboards for chess and draughts). It
	// must return the same moves in the same order as the reference,
	// generateRef, which the differential tests compare it with.
	fast func(r *rules, s *State, c *ctx, out []move) []move
	// count, when set, returns len(generate(s)) without building the
	// moves (perft's bulk counting; chess and the draughts of draughtsBB),
	// or -1 for a position it leaves to generate. It must agree with
	// generate in every position, which the differential tests check.
	count func(r *rules, s *State, c *ctx) int
	// countBelow, when set, returns perft(2) of s given its legal moves
	// ms: the sum of count over the positions after them, each played on
	// child (for chess: with the bitboards of s updated by each move
	// instead of read again from the board). It must agree with count
	// wherever count answers, and returns -1 where count would not.
	countBelow func(r *rules, s *State, c *ctx, ms []move, child *State) int64
	encode     func(r *rules, s *State) string // position string
	decode     func(r *rules, s string) (State, error)
	status     func(g *Game, nLegal int) Status // game end; nil: default rules

	// standing and tactical, when set (chess and Chess960), serve the
	// chess quiescence search. standing reports whether the side to move
	// is in check and, when it is not, whether it has a legal move, with
	// scratch as the buffer of any moves it generates to know. tactical
	// generates the moves the search plays: in a position whose side to
	// move is not in check, the legal captures and the promotions to a
	// queen, in their order in generate's list; in check, every legal
	// move. The differential tests compare both with generate.
	standing func(r *rules, s *State, c *ctx, scratch []move) (inCheck, hasMove bool)
	tactical func(r *rules, s *State, c *ctx, out []move) []move

	// endings are the game's own draw rules (small endings), checked by
	// drawStatus after repetition.
	endings func(g *Game) Status
	// write appends the notation of a legal move to buf; amb says whether
	// another legal move has the same clash key, so that the move must be
	// written in its longer form. clash (nil: never) gives that key, 0
	// for a move that is always written the same way.
	write func(r *rules, s *State, m *move, amb bool, buf []byte) []byte
	clash func(m *move) uint32
	eval  func(r *rules, s *State) int // static evaluation, side to move's view
	// special reads the game's own move forms (chess castling and
	// standard algebraic notation) from text already turned into Latin
	// letters; done is false when text is not in such a form.
	special func(g *Game, legal []Move, text string) (m Move, err *MoveError, done bool)
	// inCheck reports whether the side to move is in check (chess; nil
	// elsewhere), for the check marks of standard algebraic notation.
	inCheck func(s *State) bool
	// rested reports whether the mover's piece on sq is a king that may
	// not make a non-capturing move now (Frisian's three moves rule; nil
	// elsewhere), for the explanation of a refused move.
	rested func(r *rules, s *State, sq int) bool
	// letters lists the letters of the game's notation besides its square
	// names and "x" (chess piece letters).
	letters string
	// terminal tells the AI whether a position with nMoves legal moves
	// ends the game, and the result for the side to move (1, 0, -1);
	// nil: no moves loses (or draws with noMovesDraw).
	terminal func(r *rules, s *State, nMoves int) (bool, int)
	glyph    func(pc Piece) byte // diagram character
	// look gives the cell size and the pieces of the game's pictures
	// (nil: chosen by board, see Game.layout).
	look func() (cell int, sprites *spriteSet)
	// Draw and termination parameters.
	clockLimit  int    // plies of reversible moves that draw (0 = none)
	clockRule   Rule   // the rule of that draw
	clockReason string // and its Status reason
	repetitions int    // occurrences of a position that draw (0 = none)
	noMovesDraw bool   // a side without moves draws instead of losing
	// AI parameters.
	quiescence qmode
	// useMCTS makes MCTS the game's default AI. Self-play (TestSelfPlay)
	// decides it; at the time of writing alpha-beta won in every game.
	useMCTS bool
}

// qmode selects the quiescence search of the alpha-beta player.
type qmode uint8

const (
	qNone    qmode = iota
	qForced        // captures are mandatory: search positions with captures to the end
	qCapture       // stand pat, then try captures (chess, Chase)
)

// group builds a priority group from modes.
func group(ms ...mode) uint32 {
	var g uint32
	for _, m := range ms {
		g |= 1 << m
	}
	return g
}

// finish computes derived tables once the description is complete.
func (r *rules) finish() *rules {
	r.z = newZobrist(r.topo.n())
	return r
}

// newCtx returns a generation context for r with room for typical lists.
func (r *rules) newCtx() *ctx {
	return &ctx{r: r, out: make([]move, 0, 128)}
}

// generate fills out with the legal moves of s (unsorted, without
// notation) and returns it. It allocates only if out is too small.
func (r *rules) generate(s *State, c *ctx, out []move) []move {
	if r.fast != nil {
		ms := r.fast(r, s, c, out)
		c.out = ms
		return ms
	}
	return r.generateRef(s, c, out)
}

// generateRef is generate by the move rules: routes, then the moves of
// the same effect merged. It is the reference formulation of every game,
// and the fallback of the fast generators for the positions they leave
// to it.
func (r *rules) generateRef(s *State, c *ctx, out []move) []move {
	ms := r.routes(s, c, out)
	if r.dedupe {
		ms = dedupeMoves(ms, !r.dedupeAll)
	}
	c.out = ms
	return ms
}

// routes is generate without merging the moves of the same effect: every
// route of a capture chain, one move each.
func (r *rules) routes(s *State, c *ctx, out []move) []move {
	c.s, c.out, c.me = s, out[:0], s.Turn
	c.dmap = r.topo.sym[s.Turn]
	c.links, c.nd = r.topo.links, r.topo.nd
	if r.pregen != nil && !r.pregen(r, s) {
		return c.out
	}
	if r.gen != nil {
		r.gen(r, s, c)
	} else {
		// Collect the mover's pieces once; every priority group walks them.
		var own [maxSquares]uint8
		nown := 0
		for sq := 0; sq < r.topo.n(); sq++ {
			if pc := s.Board[sq]; pc != 0 && pc.Owner() == s.Turn {
				own[nown] = uint8(sq)
				nown++
			}
		}
		for _, g := range r.groups {
			for _, sq8 := range own[:nown] {
				sq := int(sq8)
				pc := s.Board[sq]
				rs := r.byKind[pc.Kind()]
				for i := range rs {
					if g&(1<<rs[i].mode) != 0 {
						c.begin(sq, pc)
						rs[i].fn(c)
					}
				}
			}
			if len(c.out) > 0 {
				break
			}
		}
	}
	ms := c.out
	for _, f := range r.filters {
		ms = f(r, s, ms)
	}
	c.out = ms
	return ms
}

// dedupeMoves keeps the first of every set of moves with the same effect.
// With capturesOnly, quiet moves are kept without comparison: in draughts
// only capture chains can coincide, so quiet lists skip the quadratic scan.
func dedupeMoves(ms []move, capturesOnly bool) []move {
	k := 0
outer:
	for i := range ms {
		m := &ms[i]
		for j := 0; j < k && !(capturesOnly && m.ncap == 0); j++ {
			if ms[j].sameEffect(m) {
				continue outer
			}
		}
		if k != i {
			ms[k] = *m
		}
		k++
	}
	return ms[:k]
}

// filterMajority keeps only the captures that take the most pieces (the
// majority rule of International, Brazilian and Turkish draughts; kings
// count as men).
func filterMajority(_ *rules, _ *State, ms []move) []move {
	best := 0
	for i := range ms {
		if int(ms[i].ncap) > best {
			best = int(ms[i].ncap)
		}
	}
	if best == 0 {
		return ms
	}
	k := 0
	for i := range ms {
		if int(ms[i].ncap) == best {
			ms[k] = ms[i]
			k++
		}
	}
	return ms[:k]
}

// filterKingLanding applies the Russian rule for a king that has just
// jumped a piece: it may land on any free square beyond, but if landing on
// some of them lets it capture again, it must land on one of those. In
// list terms, a capture A is illegal when another capture B follows the
// same path up to A's last jump, takes the same piece with it, and then
// goes on capturing.
func filterKingLanding(_ *rules, _ *State, ms []move) []move {
	k := 0
	for i := range ms {
		a := &ms[i]
		if a.ncap > 0 && shortLanding(a, ms) {
			continue
		}
		if k != i {
			ms[k] = *a
		}
		k++
	}
	return ms[:k]
}

// shortLanding reports whether capture a stopped on a landing square from
// which no continuation exists while some other landing after the same
// jump continues (see filterKingLanding).
func shortLanding(a *move, ms []move) bool {
	n := int(a.ncap)
	for j := range ms {
		b := &ms[j]
		if b.ncap <= a.ncap || b.path[0] != a.path[0] {
			continue
		}
		same := b.capturedAt(n-1) == a.capturedAt(n-1)
		for i := 1; same && i < n; i++ {
			same = b.path[i] == a.path[i]
		}
		if same {
			return true
		}
	}
	return false
}

// notate writes the notation of every move of a legal list. Moves that
// share a clash key are written in their long form; the keys are compared
// after sorting, so the check is linear in practice (n log n).
func (r *rules) notate(s *State, ms []move, text []string) {
	var amb []bool
	if r.clash != nil {
		amb = make([]bool, len(ms))
		keys := make([]uint64, 0, len(ms))
		for i := range ms {
			if k := r.clash(&ms[i]); k != 0 {
				keys = append(keys, uint64(k)<<32|uint64(i))
			}
		}
		slices.Sort(keys)
		for j := 1; j < len(keys); j++ {
			if keys[j]>>32 == keys[j-1]>>32 {
				amb[keys[j]&0xffffffff] = true
				amb[keys[j-1]&0xffffffff] = true
			}
		}
	}
	var buf []byte
	for i := range ms {
		buf = r.write(r, s, &ms[i], amb != nil && amb[i], buf[:0])
		text[i] = string(buf)
	}
}

// moveText appends the notation of ms[i], a move of the legal list ms, to
// buf. It scans the list once for a clashing move and allocates nothing
// when buf has room.
func (r *rules) moveText(s *State, ms []move, i int, buf []byte) []byte {
	amb := false
	if r.clash != nil {
		if k := r.clash(&ms[i]); k != 0 {
			for j := range ms {
				if j != i && r.clash(&ms[j]) == k {
					amb = true
					break
				}
			}
		}
	}
	return r.write(r, s, &ms[i], amb, buf)
}
