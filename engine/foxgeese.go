package engine

import (
	"fmt"
	"strings"
)

// Fox and Geese on the 33-point cross.
//
// Rules as implemented:
//   - Board: the 33 points of the cross (a 7x7 grid without its 2x2
//     corners), named a1..g7. Lines are orthogonal; WithDiagonals adds every
//     diagonal line between two points.
//   - Setup: the fox on d4 (the centre); 13 geese on c1-e1, c2-e2, a3-g3; 15
//     geese add a4 and g4; 17 geese (the British setup) add b4 and f4 as
//     well. The geese (the first player) move first.
//   - A goose steps to an adjacent free point, forwards or sideways; with
//     WithGeeseBackward also backwards.
//   - The fox steps to an adjacent free point in any direction, or captures
//     by jumping an adjacent goose to the free point right behind it; once
//     it has jumped it must go on jumping while it can (the whole chain is
//     one move). Capturing is optional unless WithFoxMustCapture is set;
//     with WithLongestCapture a capturing fox must take a longest chain.
//   - The geese win when the fox cannot move. The fox wins when the geese
//     cannot move, or when so few geese are left that they can no longer
//     trap it: by default fewer than 6 of 13, 7 of 15 or 8 of 17
//     (WithFoxWinThreshold changes it). Threefold repetition and the ply
//     limit draw.
//
// Positions are written row by row from the top (row 7), rows separated by
// "/", "." for an empty point, "G" for a goose and "F" for the fox, then
// the side to move ("g" or "f"): the 13-geese start is
// ".../.../......./...F.../GGGGGGG/GGG/GGG g".

// Fox and Geese piece kinds.
const (
	kindGoose Kind = 1
	kindFox   Kind = 2
)

// foxConfig holds the Fox and Geese options.
type foxConfig struct {
	geese         int
	diagonals     bool
	longest       bool
	mustCapture   bool
	geeseBackward bool
	threshold     int // the fox wins when fewer geese remain (0 = default)
}

func defaultFoxConfig() foxConfig { return foxConfig{} }

// WithDiagonals (Fox and Geese) adds the diagonal lines to the board.
func WithDiagonals(on bool) Option {
	return func(c *config) error { c.fox.diagonals = on; c.foxSet = true; return nil }
}

// WithLongestCapture (Fox and Geese) makes a capturing fox take a longest
// chain of jumps.
func WithLongestCapture(on bool) Option {
	return func(c *config) error { c.fox.longest = on; c.foxSet = true; return nil }
}

// WithFoxMustCapture (Fox and Geese) makes capturing mandatory for the fox.
func WithFoxMustCapture(on bool) Option {
	return func(c *config) error { c.fox.mustCapture = on; c.foxSet = true; return nil }
}

// WithGeeseBackward (Fox and Geese) lets geese step backwards too.
func WithGeeseBackward(on bool) Option {
	return func(c *config) error { c.fox.geeseBackward = on; c.foxSet = true; return nil }
}

// WithFoxWinThreshold (Fox and Geese) sets the number of geese below which
// the fox wins.
func WithFoxWinThreshold(n int) Option {
	return func(c *config) error {
		if n < 1 || n > 17 {
			return fmt.Errorf("%w: fox win threshold %d", ErrBadOption, n)
		}
		c.fox.threshold = n
		c.foxSet = true
		return nil
	}
}

// foxGeeseRules builds Fox and Geese with n geese.
func foxGeeseRules(fc foxConfig) (*rules, error) {
	extra := map[int][]string{13: nil, 15: {"a4", "g4"}, 17: {"a4", "g4", "b4", "f4"}}
	adds, ok := extra[fc.geese]
	if !ok {
		return nil, fmt.Errorf("%w: %d geese (13, 15 or 17)", ErrBadOption, fc.geese)
	}
	if fc.threshold == 0 {
		fc.threshold = map[int]int{13: 6, 15: 7, 17: 8}[fc.geese]
	}
	t := crossBoard(fc.diagonals)
	r := &rules{
		name:        fmt.Sprintf("foxgeese%d", fc.geese),
		title:       fmt.Sprintf("Fox and Geese (%d geese)", fc.geese),
		playerNames: [2]string{"Geese", "Fox"},
		topo:        t,
		dedupe:      true,
		repetitions: 3,
		quiescence:  qNone,
	}
	r.kinds[kindGoose] = kindInfo{name: "goose", letter: 'G', value: 100}
	r.kinds[kindFox] = kindInfo{name: "fox", letter: 'F', value: 0}
	geeseDirs := []int{dirN, dirE, dirW, dirNE, dirNW}
	if fc.geeseBackward {
		geeseDirs = append(geeseDirs, dirS, dirSE, dirSW)
	}
	all := []int{dirN, dirNE, dirE, dirSE, dirS, dirSW, dirW, dirNW}
	r.byKind[kindGoose] = []moveRule{{modeQuiet, stepRule(t, geeseDirs)}}
	r.byKind[kindFox] = []moveRule{{modeCapture, jumpRule(t, all)}, {modeQuiet, stepRule(t, all)}}
	if fc.mustCapture {
		r.groups = []uint32{group(modeCapture), group(modeQuiet)}
	} else {
		r.groups = []uint32{group(modeCapture, modeQuiet)}
	}
	if fc.longest {
		r.filters = []filter{filterLongestCapture}
	}
	threshold := fc.threshold
	countGeese := func(s *State) int {
		geese := 0
		for sq := 0; sq < t.n(); sq++ {
			if s.Board[sq].Kind() == kindGoose {
				geese++
			}
		}
		return geese
	}
	r.status = func(g *Game, nLegal int) Status {
		s := g.cur()
		if countGeese(s) < threshold {
			return end(Win, Second, RuleFewGeese, "too few geese to trap the fox")
		}
		if nLegal == 0 {
			if s.Turn == Second {
				return end(Win, First, RuleFoxTrapped, "the fox is trapped")
			}
			return end(Win, Second, RuleGeeseBlocked, "the geese cannot move")
		}
		return g.drawStatus()
	}
	r.pregen = func(_ *rules, s *State) bool { return countGeese(s) >= threshold }
	r.terminal = func(_ *rules, s *State, n int) (bool, int) {
		switch {
		case countGeese(s) < threshold && s.Turn == Second:
			return true, 1
		case countGeese(s) < threshold:
			return true, -1
		case n == 0:
			return true, -1
		}
		return false, 0
	}
	r.encode = encodeFox
	r.decode = decodeFox
	r.write = writeDraughts
	r.eval = evalFox
	r.glyph = glyphFox
	r.finish()
	var start State
	start.Board[mustSquare(t, "d4")] = makePiece(Second, kindFox)
	for sq := 0; sq < t.n(); sq++ {
		if t.row[sq] <= 2 {
			start.Board[sq] = makePiece(First, kindGoose)
		}
	}
	for _, name := range adds {
		start.Board[mustSquare(t, name)] = makePiece(First, kindGoose)
	}
	r.start = encodeFox(r, &start)
	return r, nil
}

// mustSquare looks up a square name that the code itself spells.
func mustSquare(t *topology, name string) int {
	sq, ok := t.square(name)
	if !ok {
		panic("engine: no square " + name) // a typo in a built-in table
	}
	return sq
}

// filterLongestCapture keeps, among the capturing moves, only those that
// take the most pieces; quiet moves stay.
func filterLongestCapture(_ *rules, _ *State, ms []move) []move {
	best := 0
	for i := range ms {
		if int(ms[i].ncap) > best {
			best = int(ms[i].ncap)
		}
	}
	k := 0
	for i := range ms {
		if ms[i].ncap == 0 || int(ms[i].ncap) == best {
			ms[k] = ms[i]
			k++
		}
	}
	return ms[:k]
}

func glyphFox(pc Piece) byte {
	switch pc.Kind() {
	case kindGoose:
		return 'G'
	case kindFox:
		return 'F'
	}
	return '.'
}

// foxRows returns the squares of each row of the cross, top row first.
func foxRows(t *topology) [][]int {
	rows := make([][]int, 7)
	for r := 6; r >= 0; r-- {
		for c := 0; c < 7; c++ {
			if sq := t.at(c, r); sq != none {
				rows[6-r] = append(rows[6-r], sq)
			}
		}
	}
	return rows
}

// encodeFox writes the position string described in the package comment
// of this game.
func encodeFox(r *rules, s *State) string {
	var b strings.Builder
	for i, row := range foxRows(r.topo) {
		if i > 0 {
			b.WriteByte('/')
		}
		for _, sq := range row {
			b.WriteByte(glyphFox(s.Board[sq]))
		}
	}
	b.WriteString([]string{" g", " f"}[s.Turn])
	return b.String()
}

// decodeFox reads a position string written by encodeFox; letter case
// and spaces are free. It needs exactly one fox and at most 17 geese.
func decodeFox(r *rules, text string) (State, error) {
	var s State
	f := strings.Fields(text)
	if len(f) != 2 {
		return s, fmt.Errorf("%w: want \"<rows> g|f\"", ErrBadPosition)
	}
	rows := strings.Split(f[0], "/")
	layout := foxRows(r.topo)
	if len(rows) != len(layout) {
		return s, fmt.Errorf("%w: want 7 rows", ErrBadPosition)
	}
	foxes, geese := 0, 0
	for i, row := range rows {
		if len(row) != len(layout[i]) {
			return s, fmt.Errorf("%w: row %d needs %d points", ErrBadPosition, 7-i, len(layout[i]))
		}
		for j := 0; j < len(row); j++ {
			sq := layout[i][j]
			switch row[j] {
			case '.':
			case 'G', 'g':
				s.Board[sq] = makePiece(First, kindGoose)
				geese++
			case 'F', 'f':
				s.Board[sq] = makePiece(Second, kindFox)
				foxes++
			default:
				return s, fmt.Errorf("%w: bad point %q", ErrBadPosition, row[j])
			}
		}
	}
	if foxes != 1 || geese > 17 {
		return s, fmt.Errorf("%w: need one fox and at most 17 geese", ErrBadPosition)
	}
	switch f[1] {
	case "g", "G":
		s.Turn = First
	case "f", "F":
		s.Turn = Second
	default:
		return s, fmt.Errorf("%w: side to move %q", ErrBadPosition, f[1])
	}
	return s, nil
}

// evalFox scores geese count and advance against the fox's freedom, from
// the side to move's point of view.
func evalFox(r *rules, s *State) int {
	t := r.topo
	geese, adv, fox := 0, 0, none
	for sq := 0; sq < t.n(); sq++ {
		switch s.Board[sq].Kind() {
		case kindGoose:
			geese++
			adv += int(t.row[sq])
		case kindFox:
			fox = sq
		}
	}
	free := 0
	if fox != none {
		for d := 0; d < t.nd; d++ {
			q := t.step(fox, d)
			if q == none {
				continue
			}
			if s.Board[q] == 0 {
				free += 2
			} else if q2 := t.step(q, d); q2 != none && s.Board[q2] == 0 {
				free += 6 // a capture threat
			}
		}
	}
	v := 100*geese + 3*adv - 8*free
	if s.Turn == Second {
		return -v
	}
	return v
}
