package engine

import (
	"strings"
	"unicode"
)

// Move text is read leniently: "c3-d4", "c3d4", "C3 D4", "g5:e3:c5",
// "g5xc5" (origin and destination only, when that is unambiguous),
// "32-28", "e7e8q", "A3>A4:2". The text is split into square names and a
// suffix (any other letters and digits: a promotion piece, a Chase
// exchange amount or entry direction); separators are ignored.

// moveText is a move as written: the squares named, in order, and the
// remaining letters and digits.
type moveText struct {
	squares []int
	suffix  string
}

// maxNameLen is the longest square name of any board ("50", "a1", "I9").
const maxNameLen = 3

// tokenize splits text into square names and a suffix.
func (r *rules) tokenize(text string) moveText {
	var mt moveText
	s := strings.ToLower(text)
	var suffix strings.Builder
	for i := 0; i < len(s); {
		c := s[i]
		if !isAlnum(c) {
			i++
			continue
		}
		matched := false
		for l := maxNameLen; l >= 1; l-- {
			if i+l > len(s) {
				continue
			}
			// A name must not be cut out of a longer run of digits
			// ("1" from "12").
			if isDigit(s[i+l-1]) && i+l < len(s) && isDigit(s[i+l]) {
				continue
			}
			if sq, ok := r.topo.lookup[s[i:i+l]]; ok {
				mt.squares = append(mt.squares, sq)
				i += l
				matched = true
				break
			}
		}
		if matched {
			continue
		}
		if c != 'x' { // "x" is a capture separator, never a suffix
			suffix.WriteByte(c)
		}
		i++
	}
	mt.suffix = suffix.String()
	return mt
}

func isAlnum(c byte) bool { return isDigit(c) || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// ParseMove finds the legal move a player means by text. Besides each
// game's own notation it accepts Cyrillic letters that look like the
// Latin letters of that notation ("с3-d4" typed on a Russian keyboard),
// a single square when exactly one legal move ends there ("d4"), and the
// origin and destination of a capture without the squares between. A
// refusal is a *MoveError (wrapping ErrIllegalMove, ErrAmbiguousMove or
// ErrGameOver) saying why, with the legal moves of the piece named or
// the candidates of an ambiguous text.
func (g *Game) ParseMove(text string) (Move, error) {
	if st := g.Status(); st.Result != Ongoing {
		return Move{}, &MoveError{Kind: MoveGameOver, Input: text, Reason: st.Reason}
	}
	m, e := g.parse(text)
	if e != nil {
		e.Input = text
		return Move{}, e
	}
	return m, nil
}

// parse is ParseMove without the game-over check and the input field.
// A Cyrillic "х" is read as the file h, and if that reads as no move, as
// the capture sign x ("ехд5" is exd5); when neither reads, the answer is
// the one that names a square.
func (g *Game) parse(text string) (Move, *MoveError) {
	m, e := g.parseReading(text)
	if e == nil || !strings.ContainsAny(text, "хХ") {
		return m, e
	}
	m2, e2 := g.parseReading(strings.NewReplacer("х", "x", "Х", "x").Replace(text))
	if e2 == nil || e.Kind == MoveUnreadable {
		return m2, e2
	}
	return Move{}, e
}

// parseReading reads one reading of a typed move.
func (g *Game) parseReading(text string) (Move, *MoveError) {
	unreadable := &MoveError{Kind: MoveUnreadable}
	t := strings.TrimSpace(text)
	if len(t) > 200 {
		return Move{}, unreadable
	}
	t, ok := g.r.latin(t)
	if !ok {
		return Move{}, unreadable
	}
	legal := g.legalMoves()
	for _, m := range legal {
		if strings.EqualFold(m.text, t) {
			return m, nil
		}
	}
	if g.r.special != nil {
		if m, e, done := g.r.special(g, legal, t); done {
			return m, e
		}
	}
	in := g.r.tokenize(t)
	if len(in.squares) == 0 {
		return Move{}, unreadable
	}
	var cands []Move
	if len(in.squares) == 1 {
		sq := in.squares[0]
		if pc := g.cur().Board[sq]; pc != 0 {
			return Move{}, g.refuse(legal, sq) // an origin alone is not a move
		}
		for _, m := range legal {
			if m.m.to() == sq {
				cands = append(cands, m)
			}
		}
	} else {
		cands = g.byRoute(legal, in.squares)
	}
	// A suffix must match; without one, a move without suffix (Chase's
	// slide A3-A4) wins over moves that need one (the exchanges A3>A4:k).
	if in.suffix != "" || len(cands) > 1 {
		var same []Move
		for _, m := range cands {
			if g.r.tokenize(m.text).suffix == in.suffix {
				same = append(same, m)
			}
		}
		if in.suffix != "" || len(same) > 0 {
			cands = same
		}
	}
	switch len(cands) {
	case 1:
		return cands[0], nil
	case 0:
		if len(in.squares) == 1 {
			return Move{}, &MoveError{Kind: MoveIllegal, MustCapture: g.mustCapture(legal)}
		}
		return Move{}, g.refuse(legal, in.squares[0])
	}
	return Move{}, &MoveError{Kind: MoveAmbiguous, Candidates: cands}
}

// byRoute finds the legal moves a list of squares names (two at least),
// trying in turn: the move's path exactly; for a capture chain merged with
// others of the same effect (a ring taken either way round, a king
// stopping on another square between two pieces), the path of any of its
// routes; the origin, the destination and some landing squares in order,
// of the move or of one of its routes; the origin and the destination with
// squares in any order, each a landing square of one of its routes or a
// square of a piece it takes. Several moves found make the text ambiguous,
// and the player is asked for the full route.
func (g *Game) byRoute(legal []Move, sqs []int) []Move {
	var cands []Move
	for _, m := range legal {
		if pathEquals(&m.m, sqs) {
			cands = append(cands, m)
		}
	}
	if len(cands) > 0 {
		return cands
	}
	var routes []move
	if g.r.dedupe {
		routes = g.r.routes(g.cur(), g.r.newCtx(), nil)
	}
	// of returns the legal move of a route.
	of := func(rt *move) (Move, bool) {
		for _, m := range legal {
			if m.m.sameEffect(rt) {
				return m, true
			}
		}
		return Move{}, false
	}
	add := func(m Move) {
		for _, c := range cands {
			if c.m.equal(&m.m) {
				return
			}
		}
		cands = append(cands, m)
	}
	for i := range routes {
		if pathEquals(&routes[i], sqs) {
			if m, ok := of(&routes[i]); ok {
				add(m)
			}
		}
	}
	if len(cands) > 0 {
		return cands
	}
	for _, m := range legal {
		if pathContains(&m.m, sqs) {
			add(m)
		}
	}
	for i := range routes {
		if pathContains(&routes[i], sqs) {
			if m, ok := of(&routes[i]); ok {
				add(m)
			}
		}
	}
	if len(cands) > 0 || len(routes) == 0 {
		return cands
	}
	for _, m := range legal {
		if m.m.ncap == 0 || m.m.from() != sqs[0] || m.m.to() != sqs[len(sqs)-1] {
			continue
		}
		named := map[int]bool{}
		_, captured := g.Describe(m)
		for _, name := range captured {
			if sq, ok := g.r.topo.lookup[strings.ToLower(name)]; ok {
				named[sq] = true
			}
		}
		for i := range routes {
			if routes[i].sameEffect(&m.m) {
				for k := 0; k < int(routes[i].npath); k++ {
					named[int(routes[i].path[k])] = true
				}
			}
		}
		all := true
		for _, sq := range sqs[1 : len(sqs)-1] {
			all = all && named[sq]
		}
		if all {
			add(m)
		}
	}
	return cands
}

// refuse explains why no legal move starts on sq: an empty square, an
// enemy piece, or the legal moves of the mover's piece there.
func (g *Game) refuse(legal []Move, sq int) *MoveError {
	s := g.cur()
	name := g.r.topo.names[sq]
	switch pc := s.Board[sq]; {
	case pc == 0:
		return &MoveError{Kind: MoveNoPiece, Square: name}
	case pc.Owner() != s.Turn:
		return &MoveError{Kind: MoveNotYours, Square: name}
	}
	e := &MoveError{Kind: MoveIllegal, Square: name, MustCapture: g.mustCapture(legal)}
	e.Rested = !e.MustCapture && g.r.rested != nil && g.r.rested(g.r, s, sq)
	for _, m := range legal {
		if m.m.from() == sq {
			e.Candidates = append(e.Candidates, m)
		}
	}
	return e
}

// mustCapture reports whether the game makes capturing compulsory and
// the mover has a capture (then every legal move is one).
func (g *Game) mustCapture(legal []Move) bool {
	return len(g.r.groups) > 1 && len(legal) > 0 && legal[0].isCapture()
}

// latin replaces the Cyrillic letters that look like Latin ones by those
// letters, where the game's notation uses them (the squares' names, the
// piece letters, "x"). It reports false if a letter outside the Latin
// alphabet remains.
func (r *rules) latin(t string) (string, bool) {
	ascii := true
	for i := 0; i < len(t); i++ {
		if t[i] >= 0x80 {
			ascii = false
			break
		}
	}
	if ascii {
		return t, true
	}
	var b strings.Builder
	for _, c := range t {
		if c < 0x80 {
			b.WriteRune(c)
			continue
		}
		l := lookalike(c)
		if l == 0 || !r.usesLetter(l) {
			if unicode.IsLetter(c) || unicode.IsDigit(c) {
				return "", false
			}
			b.WriteByte(' ') // other symbols separate, as ASCII ones do
			continue
		}
		b.WriteByte(l)
	}
	return b.String(), true
}

// usesLetter reports whether the letter l (either case) appears in the
// game's notation.
func (r *rules) usesLetter(l byte) bool {
	lo, up := l|0x20, l&^0x20
	if lo == 'x' {
		return true
	}
	for _, name := range r.topo.names {
		if strings.IndexByte(name, lo) >= 0 || strings.IndexByte(name, up) >= 0 {
			return true
		}
	}
	return strings.IndexByte(r.letters, lo) >= 0 || strings.IndexByte(r.letters, up) >= 0
}

// lookalike returns the Latin letter a Cyrillic letter stands for, or 0:
// the file letters read phonetically, as Russian players name the files
// (а б ц д е ф г х: a b c d e f g h; "с" too, the letter of the same key
// as Latin c and the look-alike of it), and the letters that look like
// Latin ones and are typed by mistake on a Russian keyboard (к м н о р т
// у). "в" is not "b": it only looks like a capital B. "х" is both the
// file h and the look-alike of the capture sign x; parse tries both.
func lookalike(c rune) byte {
	if l, ok := cyrillicLatin[unicode.ToLower(c)]; ok {
		if unicode.IsUpper(c) {
			return l &^ 0x20
		}
		return l
	}
	return 0
}

// cyrillicLatin maps the lower-case Cyrillic letters lookalike reads.
var cyrillicLatin = map[rune]byte{
	'а': 'a', 'б': 'b', 'ц': 'c', 'с': 'c', 'д': 'd', 'е': 'e', 'ф': 'f', 'г': 'g', 'х': 'h',
	'к': 'k', 'м': 'm', 'н': 'h', 'о': 'o', 'р': 'p', 'т': 't', 'у': 'y',
}

// pathEquals reports whether m's path is exactly sqs.
func pathEquals(m *move, sqs []int) bool {
	if int(m.npath) != len(sqs) {
		return false
	}
	for i, sq := range sqs {
		if int(m.path[i]) != sq {
			return false
		}
	}
	return true
}

// pathContains reports whether sqs starts at m's origin, ends at m's
// destination and names some of m's intermediate squares in order.
func pathContains(m *move, sqs []int) bool {
	n := int(m.npath)
	if sqs[0] != int(m.path[0]) || sqs[len(sqs)-1] != int(m.path[n-1]) {
		return false
	}
	j := 1
	for _, sq := range sqs[1 : len(sqs)-1] {
		for j < n-1 && int(m.path[j]) != sq {
			j++
		}
		if j == n-1 {
			return false
		}
		j++
	}
	return true
}

// Describe returns the squares of a legal move of the current position by
// name: its path (origin and every landing square) and the squares of the
// enemy pieces it removes.
func (g *Game) Describe(mv Move) (path, captured []string) {
	m := &mv.m
	n := g.r.topo.n()
	for i := 0; i < int(m.npath); i++ {
		if int(m.path[i]) >= n {
			return nil, nil // a move of another game
		}
		path = append(path, g.r.topo.names[m.path[i]])
	}
	if m.ncap > 0 {
		for i := 0; i < int(m.nchg); i++ {
			sq := int(m.sq[i])
			if sq >= n {
				continue
			}
			before := g.cur().Board[sq]
			if m.pc[i] == 0 && before != 0 && before.Owner() != g.cur().Turn {
				captured = append(captured, g.r.topo.names[sq])
			}
		}
	}
	return path, captured
}
