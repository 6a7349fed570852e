package engine

import (
	"fmt"
	"strings"
)

// Chess960 (Fischer random chess).
//
// Source: the FIDE Laws of Chess, Guidelines II ("Chess960 rules"). As
// implemented: the pieces of the first rank are shuffled, the same for
// both sides, with the bishops on squares of opposite colours and the king
// between the rooks; the game's start is position number seed mod 960 in
// Scharnagl's numbering (518 is the usual start), so a game replayed from
// its seed starts alike. Everything else is chess (chess.go), except
// castling: with the right still held, the king and the castling rook
// both end where they would in chess (king on g1 and rook on f1 "on the
// king's side", the side of the h-file; king on c1 and rook on d1 on the
// other), provided every square between the king's and the rook's start
// and end squares is empty but for these two pieces, and the king is not
// in check, does not pass through an attacked square and does not land on
// one. A castling is written, and tapped, as the king taking its own rook
// ("e1h1", "b1a1"); "O-O" and "O-O-O" are read too. Positions are FEN
// with Shredder-FEN castling rights, the files of the rooks ("HAha"); on
// reading, X-FEN's "KQkq" (the outermost rooks) are accepted too.
//
// Moves are shown, and exported, in standard algebraic notation, castling
// as "O-O" (the king's side) and "O-O-O" (Game.Record, Game.Display); they
// are read in it too ("Nf3", "exd5", "O-O"), and in long algebraic
// notation ("g1f3", the king taking its own rook for a castling).

// c960 holds what castling needs of a Chess960 game: the files of the
// kings and of the castling rooks, per side ([0] the king's side, [1] the
// queen's side; -1 when that right is not held at the start).
type c960 struct {
	cd   *chessData
	king [2]int
	rook [2][2]int
}

// chess960Rules builds the rules of one game: the castling files come
// from its start position (the seed's, or the one given).
func chess960Rules(cfg *config) (*rules, error) {
	pos := cfg.position
	if pos == "" {
		pos = chess960Start(int(cfg.seed % 960))
	}
	x, err := castlingFiles(pos)
	if err != nil {
		return nil, err
	}
	r := chessRules()
	r.name, r.title = "chess960", "Chess960"
	r.fast, r.count, r.countBelow = nil, nil, nil // castling from other files: the move rules generate
	t := r.topo
	x.cd = newChessData(t)
	cd := x.cd
	// Castling aside, Chess960 moves as chess: the quiescence search's
	// moves (captures and promotions) come from chess's generator, with
	// this game's castling squares for the rights a capture takes away,
	// and the full list where castling matters.
	gen := &chessGen{cd: cd, ct: chessTablesOnce()}
	r.standing, r.tactical = gen.standing, gen.tactical
	// Castling rights are lost when a piece leaves or reaches the king's
	// or a castling rook's start square.
	for sq := range cd.castleMask {
		cd.castleMask[sq] = 0xff
	}
	for p := 0; p < 2; p++ {
		rank := 7 * p
		if x.king[p] >= 0 {
			cd.castleMask[rank*8+x.king[p]] &^= 3 << (2 * p)
		}
		for side := 0; side < 2; side++ {
			if f := x.rook[p][side]; f >= 0 {
				cd.castleMask[rank*8+f] &^= 1 << (2*p + side)
			}
		}
	}
	diag := []int{dirNE, dirSE, dirSW, dirNW}
	orth := []int{dirN, dirE, dirS, dirW}
	r.byKind[kindPawn] = []moveRule{{modeQuiet, cd.pawnRule}}
	r.byKind[kindKnight] = []moveRule{{modeQuiet, cd.knightRule}}
	r.byKind[kindBishop] = []moveRule{{modeQuiet, cd.sliderRule(diag)}}
	r.byKind[kindRook] = []moveRule{{modeQuiet, cd.sliderRule(orth)}}
	r.byKind[kindQueen] = []moveRule{{modeQuiet, cd.sliderRule(append(orth, diag...))}}
	r.byKind[kindChessKing] = []moveRule{{modeQuiet, x.kingRule}}
	r.filters = []filter{x.legal}
	r.status = cd.status
	r.encode = x.encode
	r.decode = x.decode
	r.special = parse960
	r.look = func() (int, *spriteSet) { return cell8, chessSprites() }
	s, err := x.decode(r, pos)
	if err != nil {
		return nil, err
	}
	r.start = x.encode(r, &s)
	return r, nil
}

// chess960Start returns the start position number n (0..959) of
// Scharnagl's numbering as FEN.
func chess960Start(n int) string {
	var rank [8]byte
	rank[2*(n%4)+1] = 'B' // the light-squared bishop: b, d, f or h
	n /= 4
	rank[2*(n%4)] = 'B' // the dark-squared bishop: a, c, e or g
	n /= 4
	free := func(i int) int { // the file of the i-th free square
		for f := 0; f < 8; f++ {
			if rank[f] == 0 {
				if i == 0 {
					return f
				}
				i--
			}
		}
		return -1
	}
	rank[free(n%6)] = 'Q'
	n /= 6
	knights := [10][2]int{{0, 1}, {0, 2}, {0, 3}, {0, 4}, {1, 2}, {1, 3}, {1, 4}, {2, 3}, {2, 4}, {3, 4}}[n]
	a, b := free(knights[0]), free(knights[1])
	rank[a], rank[b] = 'N', 'N'
	rank[free(0)] = 'R'
	rank[free(0)] = 'K'
	rank[free(0)] = 'R'
	white := string(rank[:])
	var rights []byte
	for f := 7; f >= 0; f-- {
		if rank[f] == 'R' {
			rights = append(rights, byte('A'+f))
		}
	}
	rights = append(rights, []byte(strings.ToLower(string(rights)))...)
	return fmt.Sprintf("%s/pppppppp/8/8/8/8/PPPPPPPP/%s w %s - 0 1", strings.ToLower(white), white, rights)
}

// castlingFiles reads the files of the kings and castling rooks from a
// FEN's first and last ranks and castling field.
func castlingFiles(fen string) (*c960, error) {
	x := &c960{king: [2]int{-1, -1}, rook: [2][2]int{{-1, -1}, {-1, -1}}}
	f := strings.Fields(fen)
	if len(f) < 3 {
		return x, nil // no castling field: no castling
	}
	ranks := strings.Split(f[0], "/")
	if len(ranks) != 8 {
		return nil, fmt.Errorf("%w: FEN needs 8 ranks", ErrBadPosition)
	}
	home := [2]string{expandRank(ranks[7]), expandRank(ranks[0])}
	for p := 0; p < 2; p++ {
		king := byte("Kk"[p])
		x.king[p] = strings.IndexByte(home[p], king)
	}
	if f[2] == "-" {
		return x, nil
	}
	for _, ch := range f[2] {
		p := 0
		lower := ch | 0x20
		if ch == lower {
			p = 1
		}
		rook := byte("Rr"[p])
		k := x.king[p]
		if k < 0 {
			return nil, fmt.Errorf("%w: castling %q without a king on its first rank", ErrBadPosition, f[2])
		}
		file := -1
		switch {
		case lower == 'k': // X-FEN: the outermost rook on the king's side
			file = strings.LastIndexByte(home[p], rook)
		case lower == 'q':
			file = strings.IndexByte(home[p], rook)
		case lower >= 'a' && lower <= 'h':
			file = int(lower - 'a')
		}
		if file < 0 || file == k || home[p][file] != rook {
			return nil, fmt.Errorf("%w: castling %q", ErrBadPosition, f[2])
		}
		side := 0
		if file < k {
			side = 1
		}
		x.rook[p][side] = file
	}
	return x, nil
}

// expandRank writes a FEN rank with one character a square ('.' empty);
// a malformed rank gives a string the decoder refuses anyway.
func expandRank(rank string) string {
	var b strings.Builder
	for _, ch := range rank {
		if ch >= '1' && ch <= '8' {
			b.WriteString(strings.Repeat(".", int(ch-'0')))
		} else {
			b.WriteRune(ch)
		}
	}
	return b.String() + "........"
}

// encode writes FEN with the castling rights as the rooks' files.
func (x *c960) encode(r *rules, s *State) string {
	f := strings.Fields(encodeFEN(r, s))
	var rights []byte
	for p := 0; p < 2; p++ {
		for side := 0; side < 2; side++ {
			if s.Aux[auxCastle]&(1<<(2*p+side)) != 0 && x.rook[p][side] >= 0 {
				rights = append(rights, byte("Aa"[p])+byte(x.rook[p][side]))
			}
		}
	}
	f[2] = "-"
	if len(rights) > 0 {
		f[2] = string(rights)
	}
	return strings.Join(f, " ")
}

// decode reads FEN with Shredder-FEN or X-FEN castling rights, which must
// name this game's castling rooks.
func (x *c960) decode(r *rules, text string) (State, error) {
	f := strings.Fields(text)
	var field string
	if len(f) > 2 {
		field, f[2] = f[2], "-"
	}
	s, err := decodeFEN(r, strings.Join(f, " "))
	if err != nil || field == "" || field == "-" {
		return s, err
	}
	y, err := castlingFiles(strings.Join(append(f[:2:2], field), " "))
	if err != nil {
		return s, err
	}
	for p := 0; p < 2; p++ {
		for side := 0; side < 2; side++ {
			if y.rook[p][side] < 0 {
				continue
			}
			if y.rook[p][side] != x.rook[p][side] || y.king[p] != x.king[p] {
				return s, fmt.Errorf("%w: castling %q: not this game's rooks", ErrBadPosition, field)
			}
			s.Aux[auxCastle] |= 1 << (2*p + side)
		}
	}
	return s, nil
}

// kingRule: one step in any direction, and castling (see the top of the
// file).
func (x *c960) kingRule(c *ctx) {
	cd := x.cd
	b := &c.s.Board
	for d := 0; d < 8; d++ {
		if t := cd.t.step(c.from, d); t != none && (b[t] == 0 || b[t].Owner() != c.me) {
			cd.emit(c, c.from, t, c.piece, none, none, none, none)
		}
	}
	p := int(c.me)
	rank := 7 * p
	rights := c.s.Aux[auxCastle]
	if c.from != rank*8+x.king[p] || rights&(3<<(2*p)) == 0 {
		return
	}
	enemy := c.me.other()
	if cd.attacked(b, c.from, enemy) {
		return
	}
	rook := makePiece(c.me, kindRook)
	for side := 0; side < 2; side++ {
		bit := uint8(1 << (2*p + side))
		if rights&bit == 0 || x.rook[p][side] < 0 {
			continue
		}
		rookSq := rank*8 + x.rook[p][side]
		if b[rookSq] != rook {
			continue
		}
		kTo, rTo := rank*8+6, rank*8+5
		if side == 1 {
			kTo, rTo = rank*8+2, rank*8+3
		}
		lo, hi := min(c.from, rookSq, kTo, rTo), max(c.from, rookSq, kTo, rTo)
		ok := true
		for sq := lo; sq <= hi && ok; sq++ {
			ok = sq == c.from || sq == rookSq || b[sq] == 0
		}
		step := 1
		if kTo < c.from {
			step = -1
		}
		for sq := c.from; ok && sq != kTo; {
			sq += step
			ok = !cd.attacked(b, sq, enemy)
		}
		if !ok {
			continue
		}
		m := c.emitChanges([]change{{c.from, 0}, {rookSq, 0}, {kTo, c.piece}, {rTo, rook}},
			[]int{c.from, rookSq}, 0, 0, flagCastle)
		m.auxMask = 1<<auxEP | 1<<auxCastle
		m.aux[auxEP] = 0
		m.aux[auxCastle] = rights &^ (3 << (2 * p))
	}
}

// legal drops the moves that leave the mover's king attacked: chess's
// filter for every move but castling, whose king does not stand on the
// second square of its path; a castling is tried on a scratch board.
func (x *c960) legal(r *rules, s *State, ms []move) []move {
	var castles [2]move
	nc, k := 0, 0
	for i := range ms {
		if ms[i].flags&flagCastle != 0 {
			castles[nc] = ms[i]
			nc++
			continue
		}
		if k != i {
			ms[k] = ms[i]
		}
		k++
	}
	ms = x.cd.legal(r, s, ms[:k])
	for i := 0; i < nc; i++ {
		b := s.Board
		m := &castles[i]
		for j := 0; j < int(m.nchg); j++ {
			b[m.sq[j]] = m.pc[j]
		}
		if !x.cd.attacked(&b, kingSquare(&b, s.Turn), s.Turn.other()) {
			ms = append(ms, *m)
		}
	}
	return ms
}

// parse960 reads castling, then the rest of standard algebraic notation.
// A king's move written to its castling rook's square ("Kh1") is the
// castling, as the king taking its own rook is.
func parse960(g *Game, legal []Move, text string) (Move, *MoveError, bool) {
	if m, e, done := parseCastling(g, legal, text); done {
		return m, e, done
	}
	return parseSAN(g, legal, text)
}

// parseCastling reads "O-O" and "O-O-O" (with letters or zeros) as the
// castling on the king's or the queen's side.
func parseCastling(g *Game, legal []Move, text string) (Move, *MoveError, bool) {
	t := strings.ToUpper(strings.ReplaceAll(strings.TrimRight(text, "+#!? "), "0", "O"))
	var long bool
	switch t {
	case "O-O", "OO":
	case "O-O-O", "OOO":
		long = true
	default:
		return Move{}, nil, false
	}
	for _, m := range legal {
		if m.m.flags&flagCastle != 0 && (m.m.path[1] < m.m.path[0]) == long {
			return m, nil, true
		}
	}
	return Move{}, &MoveError{Kind: MoveIllegal}, true
}
