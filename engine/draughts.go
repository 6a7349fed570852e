package engine

import (
	"fmt"
	"strconv"
	"strings"
)

// The draughts family shares one set of move rules, parameterised by the
// variant's data: board, directions, capture semantics, promotion timing
// and filters. Each variant's file (russian.go, international.go,
// turkish.go, english.go) only fills in a draughtsConfig.

// Piece kinds of the draughts family.
const (
	kindMan  Kind = 1
	kindKing Kind = 2
)

// draughtsConfig is the data that distinguishes one draughts variant.
type draughtsConfig struct {
	name, title string
	size        int  // board is size x size
	numbered    bool // PDN square numbers instead of algebraic names
	orthogonal  bool // Turkish: all squares, orthogonal moves
	rows        int  // ranks of men per side
	skipBack    bool // leave each side's back rank empty (Turkish)
	// manCaptureBack lets men capture backwards (all but English/Turkish).
	manCaptureBack bool
	flying         bool // kings move any distance (all but English)
	promo          promoTiming
	majority       bool // must capture the most pieces
	kingLanding    bool // Russian landing rule for kings
	immediate      bool // captured pieces vanish at once (Turkish strike)
	noReverse      bool // a king may not turn 180 degrees mid-capture
	firstToMove    Player
	// kingMoves is the number of moves each with only kings moving and no
	// capture that draws (RuleKingMoves).
	kingMoves int
	endings   func(g *Game) Status // the variant's small-ending draw rules
}

// draughts builds the rules of a draughts variant from its data.
func draughts(dc draughtsConfig) *rules {
	t := rectBoard(dc.size, dc.size, !dc.orthogonal, dc.numbered)
	r := &rules{
		name:        dc.name,
		title:       dc.title,
		playerNames: [2]string{"White", "Black"},
		topo:        t,
		immediate:   dc.immediate,
		promo:       dc.promo,
		dedupe:      true,
		clockLimit:  2 * dc.kingMoves,
		clockRule:   RuleKingMoves,
		clockReason: fmt.Sprintf("%d moves each with only kings moving and no capture", dc.kingMoves),
		endings:     dc.endings,
		repetitions: 3,
		quiescence:  qForced,
	}
	r.kinds[kindMan] = kindInfo{name: "man", letter: 'M', value: 100}
	r.kinds[kindKing] = kindInfo{name: "king", letter: 'K', value: 300}
	r.isKing[kindKing] = true
	r.irreversible[kindMan] = true
	r.promoKind[kindMan] = kindKing
	for sq := 0; sq < t.n(); sq++ {
		switch int(t.row[sq]) {
		case dc.size - 1:
			r.promoZone[First].set(sq)
		case 0:
			r.promoZone[Second].set(sq)
		}
	}

	var manMoves, manJumps, kingDirs []int
	if dc.orthogonal {
		manMoves = []int{dirN, dirE, dirW}
		manJumps = manMoves
		kingDirs = []int{dirN, dirE, dirS, dirW}
	} else {
		manMoves = []int{dirNW, dirNE}
		manJumps = manMoves
		if dc.manCaptureBack {
			manJumps = []int{dirNW, dirNE, dirSE, dirSW}
		}
		kingDirs = []int{dirNW, dirNE, dirSE, dirSW}
	}
	r.byKind[kindMan] = []moveRule{
		{modeCapture, jumpRule(t, manJumps)},
		{modeQuiet, stepRule(t, manMoves)},
	}
	if dc.flying {
		r.byKind[kindKing] = []moveRule{
			{modeCapture, flyingJumpRule(t, kingDirs, dc.noReverse)},
			{modeQuiet, slideRule(t, kingDirs)},
		}
	} else {
		r.byKind[kindKing] = []moveRule{
			{modeCapture, jumpRule(t, kingDirs)},
			{modeQuiet, stepRule(t, kingDirs)},
		}
	}
	r.groups = []uint32{group(modeCapture), group(modeQuiet)}
	if dc.kingLanding {
		r.filters = append(r.filters, filterKingLanding)
	}
	if dc.majority {
		r.filters = append(r.filters, filterMajority)
	}

	var start State
	start.Turn = dc.firstToMove
	for sq := 0; sq < t.n(); sq++ {
		row := int(t.row[sq])
		lo := 0
		if dc.skipBack {
			lo = 1
		}
		switch {
		case row >= lo && row < lo+dc.rows:
			start.Board[sq] = makePiece(First, kindMan)
		case row <= dc.size-1-lo && row > dc.size-1-lo-dc.rows:
			start.Board[sq] = makePiece(Second, kindMan)
		}
	}
	r.encode = encodeDraughts
	r.decode = decodeDraughts
	r.write = writeDraughts
	if dc.numbered {
		r.clash = clashDraughts
	}
	r.eval = evalDraughts
	r.glyph = glyphDraughts
	r.finish()
	if g := newDraughtsBB(r, dc, manMoves, manJumps, kingDirs); g != nil {
		r.fast, r.count = g.generate, g.count
	}
	r.start = encodeDraughts(r, &start)
	return r
}

// absDirs translates directions of the first player's frame into absolute
// directions for each player, once, when the rules are built: the move
// rules below are the hot path of draughts generation.
func absDirs(t *topology, dirs []int) [2][]int {
	var out [2][]int
	for p := range out {
		for _, d := range dirs {
			out[p] = append(out[p], int(t.sym[p][d]))
		}
	}
	return out
}

// stepRule moves a piece one square in any of dirs (the mover's frame).
func stepRule(t *topology, dirs []int) func(c *ctx) {
	abs := absDirs(t, dirs)
	return func(c *ctx) {
		b, links, base := &c.s.Board, c.links, c.at*c.nd
		for _, d := range abs[c.me] {
			if to := int(links[base+d]); to != none && (b[to] == 0 || to == c.from) {
				c.emitStep(to)
			}
		}
	}
}

// slideRule moves a flying king any number of free squares along dirs.
func slideRule(t *topology, dirs []int) func(c *ctx) {
	abs := absDirs(t, dirs)
	return func(c *ctx) {
		b, links, nd := &c.s.Board, c.links, c.nd
		for _, d := range abs[c.me] {
			for to := int(links[c.at*nd+d]); to != none && b[to] == 0; to = int(links[to*nd+d]) {
				c.emitStep(to)
			}
		}
	}
}

// jumpRule captures by jumping an adjacent enemy piece to the free square
// right behind it, then continues the chain.
func jumpRule(t *topology, dirs []int) func(c *ctx) {
	abs := absDirs(t, dirs)
	return func(c *ctx) {
		b, links, nd := &c.s.Board, c.links, c.nd
		for _, d := range abs[c.me] {
			over := int(links[c.at*nd+d])
			if over == none {
				continue
			}
			if pc := b[over]; pc == 0 || pc.Owner() == c.me || !c.isEnemy(over) {
				continue
			}
			to := int(links[over*nd+d])
			if to == none || !c.isEmpty(to) {
				continue
			}
			mk := c.mark()
			c.capture(over)
			c.land(to, d)
			c.cont(modeCapture)
			c.back(mk)
		}
	}
}

// flyingJumpRule captures with a flying king: along a line, over free
// squares, one enemy piece, and onto any free square beyond it; every
// landing square is a separate branch. With noReverse the king may not
// jump back along the line it just came by (Turkish).
func flyingJumpRule(t *topology, dirs []int, noReverse bool) func(c *ctx) {
	abs := absDirs(t, dirs)
	opp := t.opposite
	return func(c *ctx) {
		links, nd := c.links, c.nd
		for _, d := range abs[c.me] {
			if noReverse && c.lastDir != none && int(opp[c.lastDir]) == d {
				continue
			}
			q := int(links[c.at*nd+d])
			for q != none && c.isEmpty(q) {
				q = int(links[q*nd+d])
			}
			if q == none || !c.isEnemy(q) {
				continue
			}
			over := q
			for l := int(links[over*nd+d]); l != none && c.isEmpty(l); l = int(links[l*nd+d]) {
				mk := c.mark()
				c.capture(over)
				c.land(l, d)
				c.cont(modeCapture)
				c.back(mk)
			}
		}
	}
}

// glyphDraughts draws men as w/b and kings as W/B.
func glyphDraughts(pc Piece) byte {
	switch {
	case pc == 0:
		return '.'
	case pc.Owner() == First && pc.Kind() == kindKing:
		return 'W'
	case pc.Owner() == First:
		return 'w'
	case pc.Kind() == kindKing:
		return 'B'
	default:
		return 'b'
	}
}

// encodeDraughts writes the PDN-style position string
// "W:Wc3,e3,Kd4:Bf6" (side to move, then White's and Black's pieces, kings
// prefixed with K; numbered boards use square numbers).
func encodeDraughts(r *rules, s *State) string {
	var b strings.Builder
	b.WriteString([]string{"W", "B"}[s.Turn])
	for _, p := range []Player{First, Second} {
		b.WriteString([]string{":W", ":B"}[p])
		first := true
		for sq := 0; sq < r.topo.n(); sq++ {
			pc := s.Board[sq]
			if pc == 0 || pc.Owner() != p {
				continue
			}
			if !first {
				b.WriteByte(',')
			}
			first = false
			if pc.Kind() == kindKing {
				b.WriteByte('K')
			}
			b.WriteString(r.topo.names[sq])
		}
	}
	return b.String()
}

// decodeDraughts reads a position string written by encodeDraughts. It is
// lenient about spaces, letter case, a trailing full stop, the order of the
// fields and PDN square ranges ("W1-12" on numbered boards).
func decodeDraughts(r *rules, text string) (State, error) {
	var s State
	text = strings.TrimSuffix(strings.Join(strings.Fields(text), ""), ".")
	fields := strings.Split(text, ":")
	if len(fields) < 1 || len(fields) > 3 {
		return s, fmt.Errorf("%w: want \"W:W...:B...\"", ErrBadPosition)
	}
	switch strings.ToUpper(fields[0]) {
	case "W":
		s.Turn = First
	case "B":
		s.Turn = Second
	default:
		return s, fmt.Errorf("%w: side to move %q", ErrBadPosition, fields[0])
	}
	seen := map[byte]bool{}
	for _, f := range fields[1:] {
		if f == "" {
			return s, fmt.Errorf("%w: empty field", ErrBadPosition)
		}
		side := strings.ToUpper(f[:1])[0]
		var p Player
		switch side {
		case 'W':
			p = First
		case 'B':
			p = Second
		default:
			return s, fmt.Errorf("%w: field %q", ErrBadPosition, f)
		}
		if seen[side] {
			return s, fmt.Errorf("%w: %c listed twice", ErrBadPosition, side)
		}
		seen[side] = true
		if len(f) == 1 {
			continue
		}
		for _, item := range strings.Split(f[1:], ",") {
			kind := kindMan
			if item != "" && (item[0] == 'K' || item[0] == 'k') {
				kind = kindKing
				item = item[1:]
			}
			sqs, err := draughtsSquares(r, item)
			if err != nil {
				return s, err
			}
			for _, sq := range sqs {
				if s.Board[sq] != 0 {
					return s, fmt.Errorf("%w: square %s listed twice", ErrBadPosition, r.topo.names[sq])
				}
				s.Board[sq] = makePiece(p, kind)
			}
		}
	}
	return s, nil
}

// draughtsSquares parses one square or, on numbered boards, a range "1-12".
func draughtsSquares(r *rules, item string) ([]int, error) {
	if sq, ok := r.topo.square(item); ok {
		return []int{sq}, nil
	}
	if lo, hi, ok := strings.Cut(item, "-"); ok && r.topo.numbered {
		a, err1 := strconv.Atoi(lo)
		b, err2 := strconv.Atoi(hi)
		if err1 == nil && err2 == nil && a >= 1 && a <= b && b <= r.topo.n() {
			var out []int
			for i := a; i <= b; i++ {
				out = append(out, i-1)
			}
			return out, nil
		}
	}
	return nil, fmt.Errorf("%w: no square %q", ErrBadPosition, item)
}

// writeDraughts writes "c3-d4" for quiet moves and "g5:e3:c5" (every
// landing square) for captures; numbered boards write "32-28" and
// "28x19", adding the intermediate squares ("28x17x19") only when another
// capture of the list shares origin and destination (amb).
func writeDraughts(r *rules, _ *State, m *move, amb bool, buf []byte) []byte {
	names := r.topo.names
	sep := byte('-')
	if m.ncap > 0 {
		sep = ':'
		if r.topo.numbered {
			sep = 'x'
		}
	}
	short := r.topo.numbered && m.ncap > 0 && !amb
	buf = append(buf, names[m.path[0]]...)
	for k := 1; k < int(m.npath); k++ {
		if short && k < int(m.npath)-1 {
			continue
		}
		buf = append(buf, sep)
		buf = append(buf, names[m.path[k]]...)
	}
	return buf
}

// clashDraughts: on numbered boards, captures with the same origin and
// destination must be written in full.
func clashDraughts(m *move) uint32 {
	if m.ncap == 0 {
		return 0
	}
	return 1 + (uint32(m.path[0])<<8 | uint32(m.to()))
}

// evalDraughts scores material, men's advancement and centre control from
// the side to move's point of view.
func evalDraughts(r *rules, s *State) int {
	t := r.topo
	score := 0
	half := float64(t.width-1) / 2
	for sq := 0; sq < t.n(); sq++ {
		pc := s.Board[sq]
		if pc == 0 {
			continue
		}
		v := r.kinds[pc.Kind()].value
		row := int(t.row[sq])
		if pc.Owner() == Second {
			row = t.height - 1 - row
		}
		if pc.Kind() == kindMan {
			v += 3 * row
			if row == 0 {
				v += 4 // back-rank guard
			}
		}
		dc := float64(t.col[sq]) - half
		if dc < 0 {
			dc = -dc
		}
		v += int(4 - dc)
		if pc.Owner() == s.Turn {
			score += v
		} else {
			score -= v
		}
	}
	return score
}
