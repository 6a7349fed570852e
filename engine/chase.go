package engine

import (
	"fmt"
	"strconv"
	"strings"
)

// Chase (Tom Kruszewski, TSR 1986), following its Zillions rule file for
// every detail the printed rules leave open.
//
// Rules as implemented:
//   - Board: 81 hexes in rows A (Red's home, bottom) to I (White's home),
//     cells 1-9; rows B, D, F, H are shifted half a hex left; the left and
//     right edges are glued, so a die leaving the board at one side comes
//     back at the other. E5 is the Chamber.
//   - Each side has ten dice whose pips on the board always total 25: nine
//     start on the home row showing 1 2 3 4 5 4 3 2 1, the tenth is spare.
//     Red (row A, the first player) moves first unless WithFirstPlayer says
//     otherwise.
//   - A turn is one of:
//     1. Move a die exactly as many cells as its pips in one of the six
//     directions. The cells passed must be empty and not the Chamber. A
//     diagonal move that would leave the board at the top or bottom row
//     ricochets (north-east becomes south-east and so on) and keeps the new
//     direction. On the last cell: an enemy die is captured; an own die is
//     bumped one cell further in the same direction, bumping the next own
//     die in turn, and a bumped die landing on an enemy captures it. The
//     mover's starting cell counts as empty. A bump that would push a die
//     into the Chamber makes the move illegal.
//     2. Move a die exactly onto the Chamber: it splits in two halves (the
//     larger ceil(v/2)) that leave the Chamber on the two cells flanking
//     the one it came from: the larger on the mover's left (120 degrees
//     left of its direction of travel), the smaller on its right; the
//     spare die provides the second half. Each half captures an enemy die
//     or bumps own dice outwards, as above. A die showing 1, or any die
//     while all ten dice of the side are on the board, leaves whole to the
//     left instead.
//     3. Exchange: move pips between two adjacent own dice (wrap counts),
//     both staying within 1-6; no die moves.
//   - After a capture the victim brings its total back to 25: the lost pips
//     go to its lowest die (up to 6), the rest to the next lowest, and so
//     on; dice of equal value are served in board order A1, A2, ..., I9.
//   - A side reduced to fewer than five dice loses at once. A side with no
//     legal move loses. Threefold repetition and the ply limit draw.
//   - Where the two halves of a split interact (one bumps a die the other
//     then meets), the halves are resolved one after the other, left first.
//
// Positions are written as the nine rows A to I separated by "/", one
// character per cell: "." empty, "1"-"6" a Red die, "a"-"f" a White die,
// then the side to move, "r" or "w". The start is
// "123454321/........./........./........./........./........./........./........./abcdedcba r".
// Moves are written "A1-A2" (origin and the cell where the moving die
// stops, E5 for a Chamber move), with the entry direction added, as in
// "C5-E5(ne)", when two moves would otherwise read the same; exchanges are
// written "A3>A4:2" (two pips from A3 to A4).

// chaseData holds Chase's board facts.
type chaseData struct {
	t       *topology
	chamber int
}

// chaseRules builds the rules of Chase.
func chaseRules() *rules {
	t := hexCylinder(9, 9)
	cd := &chaseData{t: t, chamber: 4*9 + 4}
	r := &rules{
		name:        "chase",
		title:       "Chase",
		playerNames: [2]string{"Red", "White"},
		topo:        t,
		groups:      []uint32{group(modeQuiet)},
		dedupe:      true,
		dedupeAll:   true,
		repetitions: 3,
		quiescence:  qCapture,
	}
	for v := Kind(1); v <= 6; v++ {
		r.kinds[v] = kindInfo{name: fmt.Sprintf("die %d", v), letter: byte('0' + v), value: 100}
		r.byKind[v] = []moveRule{{modeQuiet, cd.dieRule}, {modeQuiet, cd.exchangeRule}}
	}
	r.pregen = func(_ *rules, s *State) bool {
		n := cd.count(s)
		return n[0] >= 5 && n[1] >= 5
	}
	r.status = cd.status
	r.terminal = func(_ *rules, s *State, n int) (bool, int) {
		cnt := cd.count(s)
		switch {
		case cnt[s.Turn] < 5:
			return true, -1
		case cnt[s.Turn.other()] < 5:
			return true, 1
		case n == 0:
			return true, -1
		}
		return false, 0
	}
	r.encode = encodeChase
	r.decode = decodeChase
	r.write, r.clash = writeChase, clashChase
	r.letters = "nesw" // the entry directions of "C5-E5(ne)"
	r.eval = cd.eval
	r.glyph = glyphChase
	r.start = "123454321/........./........./........./........./........./........./........./abcdedcba r"
	return r.finish()
}

// count returns the number of dice of each side.
func (cd *chaseData) count(s *State) [2]int {
	var n [2]int
	for sq := 0; sq < 81; sq++ {
		if pc := s.Board[sq]; pc != 0 {
			n[pc.Owner()]++
		}
	}
	return n
}

// stepBounce takes one step from sq in direction d, ricocheting off the
// top or bottom row; it returns the new cell and the direction now in
// force.
func (cd *chaseData) stepBounce(sq, d int) (int, int) {
	if nx := cd.t.step(sq, d); nx != none {
		return nx, d
	}
	d = int(cd.t.mirror[d])
	return cd.t.step(sq, d), d
}

// dieRule generates the moves of the die on c.from: slides, captures,
// bumps and Chamber moves in the six directions.
func (cd *chaseData) dieRule(c *ctx) {
	b := &c.s.Board
	v := int(c.piece.Kind())
	for d0 := 0; d0 < 6; d0++ {
		// A first step off the board ricochets at once, which is exactly
		// the mirrored direction's path: skip it to avoid a duplicate.
		if cd.t.step(c.from, d0) == none {
			continue
		}
		cur, d := c.from, d0
		ok := true
		for i := 1; i <= v; i++ {
			cur, d = cd.stepBounce(cur, d)
			if i < v && (cur == cd.chamber || b[cur] != 0) {
				ok = false
				break
			}
		}
		if !ok {
			continue
		}
		switch {
		case cur == cd.chamber:
			cd.chamberMove(c, v, d)
		case b[cur] == 0:
			c.emitChanges([]change{{c.from, 0}, {cur, c.piece}}, []int{c.from, cur}, 0, 0, 0).dir = uint8(d)
		default:
			var w chaseWork
			w.start(c)
			if !w.push(cd, cur, d, c.piece) {
				continue
			}
			w.finish(cd, c, cur, uint8(d), 0)
		}
	}
}

// chamberMove emits the move of a die of value v entering the Chamber
// while travelling in direction d.
func (cd *chaseData) chamberMove(c *ctx, v, d int) {
	var w chaseWork
	w.start(c)
	left, right := (d+2)%6, (d+4)%6
	if v == 1 || cd.count(c.s)[c.me] >= 10 {
		if !w.push(cd, cd.t.step(cd.chamber, left), left, c.piece) {
			return
		}
	} else {
		big, small := (v+1)/2, v/2
		if !w.push(cd, cd.t.step(cd.chamber, left), left, makePiece(c.me, Kind(big))) ||
			!w.push(cd, cd.t.step(cd.chamber, right), right, makePiece(c.me, Kind(small))) {
			return
		}
	}
	w.finish(cd, c, cd.chamber, uint8(d), flagChamber)
}

// chaseWork is a scratch board for moves with bumps, captures or splits.
type chaseWork struct {
	b    [81]Piece
	me   Player
	pips int // pips captured from the opponent
	ncap int
}

// start copies the position and lifts the moving die.
func (w *chaseWork) start(c *ctx) {
	copy(w.b[:], c.s.Board[:81])
	w.b[c.from] = 0
	w.me = c.me
}

// push puts die on cell at, arriving in direction d: an enemy there is
// captured, an own die there is pushed one cell on (ricocheting if need
// be), and so on. It reports false if a die would be pushed into the
// Chamber.
func (w *chaseWork) push(cd *chaseData, at, d int, die Piece) bool {
	for steps := 0; steps <= 10; steps++ {
		if at == cd.chamber {
			return false
		}
		occ := w.b[at]
		w.b[at] = die
		if occ == 0 {
			return true
		}
		if occ.Owner() != w.me {
			w.pips += int(occ.Kind())
			w.ncap++
			return true
		}
		die = occ
		at, d = cd.stepBounce(at, d)
	}
	return false
}

// finish reallocates captured pips to the victim's dice and emits the
// move as the difference between the scratch board and the position.
func (w *chaseWork) finish(cd *chaseData, c *ctx, to int, dir uint8, flags uint8) {
	victim := w.me.other()
	for w.pips > 0 {
		best := none
		for sq := 0; sq < 81; sq++ {
			pc := w.b[sq]
			if pc != 0 && pc.Owner() == victim && pc.Kind() < 6 && (best == none || pc.Kind() < w.b[best].Kind()) {
				best = sq
			}
		}
		if best == none {
			break // fewer than five dice: the victim has lost anyway
		}
		add := min(6-int(w.b[best].Kind()), w.pips)
		w.b[best] = makePiece(victim, w.b[best].Kind()+Kind(add))
		w.pips -= add
	}
	var chg [81]change
	n := 0
	for sq := 0; sq < 81; sq++ {
		if w.b[sq] != c.s.Board[sq] {
			chg[n] = change{sq, w.b[sq]}
			n++
		}
	}
	if n > maxChanges {
		return // cannot happen with ten dice a side; never overflow a move
	}
	m := c.emitChanges(chg[:n], []int{c.from, to}, w.ncap, 0, flags)
	m.dir = dir
}

// exchangeRule generates the exchanges that move pips from the die on
// c.from to an adjacent own die.
func (cd *chaseData) exchangeRule(c *ctx) {
	b := &c.s.Board
	a := int(c.piece.Kind())
	for d := 0; d < 6; d++ {
		nb := cd.t.step(c.from, d)
		if nb == none || b[nb] == 0 || b[nb].Owner() != c.me {
			continue
		}
		v := int(b[nb].Kind())
		for k := 1; k < a && v+k <= 6; k++ {
			m := c.emitChanges([]change{{c.from, makePiece(c.me, Kind(a-k))}, {nb, makePiece(c.me, Kind(v+k))}},
				[]int{c.from, nb}, 0, 0, flagExchange)
			m.tag = uint8(k)
		}
	}
}

// status: fewer than five dice loses, then no legal move loses, then the
// common draw rules.
func (cd *chaseData) status(g *Game, nLegal int) Status {
	s := g.cur()
	n := cd.count(s)
	for _, p := range [2]Player{s.Turn, s.Turn.other()} {
		if n[p] < 5 {
			return end(Win, p.other(), RuleFewDice, "fewer than five dice")
		}
	}
	return defaultStatus(g, nLegal)
}

// writeChase writes "A1-A2" (origin and the cell where the moving die
// stops) and "A3>A4:2" (an exchange of two pips), adding the entry
// direction, "A1-A2(ne)", when another move of the list has the same
// origin and stopping cell (amb).
func writeChase(r *rules, _ *State, m *move, amb bool, buf []byte) []byte {
	names := r.topo.names
	buf = append(buf, names[m.path[0]]...)
	if m.flags&flagExchange != 0 {
		buf = append(buf, '>')
		buf = append(buf, names[m.path[1]]...)
		buf = append(buf, ':')
		return strconv.AppendInt(buf, int64(m.tag), 10)
	}
	buf = append(buf, '-')
	buf = append(buf, names[m.path[1]]...)
	if amb {
		buf = append(buf, '(')
		buf = append(buf, r.topo.dirNames[m.dir]...)
		buf = append(buf, ')')
	}
	return buf
}

// clashChase: die moves with the same origin and stopping cell must name
// their direction; exchanges never clash.
func clashChase(m *move) uint32 {
	if m.flags&flagExchange != 0 {
		return 0
	}
	return 1 + (uint32(m.path[0])<<8 | uint32(m.path[1]))
}

// glyphChase: "1"-"6" for Red dice, "a"-"f" for White dice.
func glyphChase(pc Piece) byte {
	if pc == 0 {
		return '.'
	}
	if pc.Owner() == First {
		return byte('0' + pc.Kind())
	}
	return byte('a' - 1 + pc.Kind())
}

// encodeChase writes the position string described above.
func encodeChase(_ *rules, s *State) string {
	var b strings.Builder
	for row := 0; row < 9; row++ {
		if row > 0 {
			b.WriteByte('/')
		}
		for col := 0; col < 9; col++ {
			b.WriteByte(glyphChase(s.Board[row*9+col]))
		}
	}
	b.WriteString([]string{" r", " w"}[s.Turn])
	return b.String()
}

// decodeChase reads a Chase position string. Each side needs 1 to 10
// dice (fewer than five means the game is over); the Chamber must be
// empty.
func decodeChase(_ *rules, text string) (State, error) {
	var s State
	f := strings.Fields(text)
	if len(f) != 2 {
		return s, fmt.Errorf("%w: want \"<9 rows> r|w\"", ErrBadPosition)
	}
	rows := strings.Split(f[0], "/")
	if len(rows) != 9 {
		return s, fmt.Errorf("%w: want 9 rows", ErrBadPosition)
	}
	var n [2]int
	for r, row := range rows {
		if len(row) != 9 {
			return s, fmt.Errorf("%w: row %c needs 9 cells", ErrBadPosition, 'A'+r)
		}
		for c := 0; c < 9; c++ {
			ch := row[c]
			switch {
			case ch == '.':
			case ch >= '1' && ch <= '6':
				s.Board[r*9+c] = makePiece(First, Kind(ch-'0'))
				n[0]++
			case ch >= 'a' && ch <= 'f':
				s.Board[r*9+c] = makePiece(Second, Kind(ch-'a'+1))
				n[1]++
			default:
				return s, fmt.Errorf("%w: bad cell %q", ErrBadPosition, ch)
			}
		}
	}
	if s.Board[4*9+4] != 0 {
		return s, fmt.Errorf("%w: a die in the Chamber", ErrBadPosition)
	}
	if n[0] > 10 || n[1] > 10 || n[0] == 0 || n[1] == 0 {
		return s, fmt.Errorf("%w: each side needs 1 to 10 dice", ErrBadPosition)
	}
	switch f[1] {
	case "r", "R":
		s.Turn = First
	case "w", "W":
		s.Turn = Second
	default:
		return s, fmt.Errorf("%w: side to move %q", ErrBadPosition, f[1])
	}
	return s, nil
}

// eval: the number of dice dominates; then low dice (fast to bring back,
// easy to split) and dice off the home row count a little.
func (cd *chaseData) eval(_ *rules, s *State) int {
	score := 0
	for sq := 0; sq < 81; sq++ {
		pc := s.Board[sq]
		if pc == 0 {
			continue
		}
		v := 1000
		row := sq / 9
		if pc.Owner() == Second {
			row = 8 - row
		}
		if row > 0 {
			v += 5
		}
		v -= 2 * int(pc.Kind())
		if pc.Owner() == s.Turn {
			score += v
		} else {
			score -= v
		}
	}
	return score
}
