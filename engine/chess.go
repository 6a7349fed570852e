package engine

// Chess, mainly there to keep the core honest (castling is a compound
// move, en passant captures away from the landing square, promotion is a
// choice, and legality is a whole-list filter), but fully playable.
//
// Rules as implemented: the FIDE laws of chess, including castling, en
// passant and promotion to queen, rook, bishop or knight. The game ends by
// checkmate, stalemate (draw), threefold repetition (draw, automatic), the
// fifty-move rule (draw after 100 plies without capture or pawn move,
// automatic), a dead position (see deadPosition) or the platform's ply
// limit.
//
// Positions are FEN strings; moves are written in long algebraic notation
// ("e2e4", "e1g1" for castling, "e7e8q"), and read also as "e2-e4", "O-O"
// and standard algebraic notation ("Nf3", "exd5", "e8=Q").

// Chess piece kinds.
const (
	kindPawn Kind = iota + 1
	kindKnight
	kindBishop
	kindRook
	kindQueen
	kindChessKing
)

// Chess game variables in State.Aux.
const (
	auxEP     = 0 // en passant target square + 1, 0 = none
	auxCastle = 1 // castling rights: castleWK | castleWQ | castleBK | castleBQ
)

// Castling rights bits.
const (
	castleWK = 1 << iota
	castleWQ
	castleBK
	castleBQ
)

// Squares used by castling (a1 = 0, rank by rank).
const (
	sqA1, sqB1, sqC1, sqD1, sqE1, sqF1, sqG1, sqH1 = 0, 1, 2, 3, 4, 5, 6, 7
	sqA8, sqE8, sqH8                               = 56, 60, 63
)

// chessData holds the precomputed tables of the chess rules.
type chessData struct {
	t *topology
	// knight[sq] lists the knight's targets.
	knight [64][]uint8
	// aligned[a][b] tells whether b lies on a rank, file or diagonal
	// through a: only such pieces can be pinned to a king on a.
	aligned [64][64]bool
	// castleMask[sq] clears the rights lost when a piece leaves or
	// arrives on sq.
	castleMask [64]uint8
}

// knightSteps are the knight's leaps as two steps: one orthogonal, then
// one diagonal continuing away from the origin.
var knightSteps = [8][2]int{
	{dirN, dirNE}, {dirN, dirNW}, {dirE, dirNE}, {dirE, dirSE},
	{dirS, dirSE}, {dirS, dirSW}, {dirW, dirSW}, {dirW, dirNW},
}

func newChessData(t *topology) *chessData {
	cd := &chessData{t: t}
	for sq := 0; sq < 64; sq++ {
		for _, ks := range knightSteps {
			if a := t.step(sq, ks[0]); a != none {
				if b := t.step(a, ks[1]); b != none {
					cd.knight[sq] = append(cd.knight[sq], uint8(b))
				}
			}
		}
		for d := 0; d < 8; d++ {
			for q := t.step(sq, d); q != none; q = t.step(q, d) {
				cd.aligned[sq][q] = true
			}
		}
		cd.castleMask[sq] = 0xff
	}
	cd.castleMask[sqE1] &^= castleWK | castleWQ
	cd.castleMask[sqH1] &^= castleWK
	cd.castleMask[sqA1] &^= castleWQ
	cd.castleMask[sqE8] &^= castleBK | castleBQ
	cd.castleMask[sqH8] &^= castleBK
	cd.castleMask[sqA8] &^= castleBQ
	return cd
}

// chessRules builds the rules of chess.
func chessRules() *rules {
	t := rectBoard(8, 8, false, false)
	cd := newChessData(t)
	r := &rules{
		name:        "chess",
		title:       "Chess",
		playerNames: [2]string{"White", "Black"},
		topo:        t,
		groups:      []uint32{group(modeQuiet)},
		clockLimit:  100,
		clockRule:   RuleFiftyMoves,
		clockReason: "fifty-move rule",
		repetitions: 3,
		quiescence:  qCapture,
	}
	for k, ki := range []kindInfo{
		{"pawn", 'P', 100}, {"knight", 'N', 320}, {"bishop", 'B', 330},
		{"rook", 'R', 500}, {"queen", 'Q', 900}, {"king", 'K', 0},
	} {
		r.kinds[k+1] = ki
	}
	r.isKing[kindQueen] = true // "kings" for move ordering: the big pieces
	r.irreversible[kindPawn] = true
	diag := []int{dirNE, dirSE, dirSW, dirNW}
	orth := []int{dirN, dirE, dirS, dirW}
	r.byKind[kindPawn] = []moveRule{{modeQuiet, cd.pawnRule}}
	r.byKind[kindKnight] = []moveRule{{modeQuiet, cd.knightRule}}
	r.byKind[kindBishop] = []moveRule{{modeQuiet, cd.sliderRule(diag)}}
	r.byKind[kindRook] = []moveRule{{modeQuiet, cd.sliderRule(orth)}}
	r.byKind[kindQueen] = []moveRule{{modeQuiet, cd.sliderRule(append(orth, diag...))}}
	r.byKind[kindChessKing] = []moveRule{{modeQuiet, cd.kingRule}}
	r.filters = []filter{cd.legal}
	gen := &chessGen{cd: cd, ct: chessTablesOnce()}
	r.fast, r.count, r.countBelow = gen.generate, gen.count, gen.countBelow
	r.standing, r.tactical = gen.standing, gen.tactical
	r.encode = encodeFEN
	r.decode = decodeFEN
	r.write = writeChess
	r.special = parseSAN
	r.inCheck = gen.inCheck
	r.letters = "KQRBNPOkqrbnpo"
	r.status = cd.status
	r.terminal = func(_ *rules, s *State, n int) (bool, int) {
		if n > 0 {
			return false, 0
		}
		if k := kingSquare(&s.Board, s.Turn); k != none && cd.attacked(&s.Board, k, s.Turn.other()) {
			return true, -1
		}
		return true, 0
	}
	r.eval = evalChess
	r.glyph = glyphChess
	r.start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
	return r.finish()
}

// emit adds a chess move: the piece on from goes to to (as final, which
// differs for a promotion), capSq (or none) is emptied, and for castling
// the rook goes from rookFrom to rookTo. ep is the new en passant target
// square or none.
func (cd *chessData) emit(c *ctx, from, to int, final Piece, capSq, rookFrom, rookTo, ep int) {
	b := &c.s.Board
	z := c.r.z.sq
	pc := b[from]
	m := c.push()
	m.sq[0], m.pc[0] = uint8(from), 0
	m.sq[1], m.pc[1] = uint8(to), final
	key := z[from*pieceCodes+int(pc)] ^ z[to*pieceCodes+int(b[to])] ^ z[to*pieceCodes+int(final)]
	n := 2
	m.flags, m.ncap, m.nking = 0, 0, 0
	if pc.Kind() == kindPawn {
		m.flags = flagIrrevers
	}
	if b[to] != 0 {
		m.flags, m.ncap = flagCapture|flagIrrevers, 1
		if c.r.isKing[b[to].Kind()] {
			m.nking = 1
		}
	}
	if capSq != none {
		m.sq[n], m.pc[n] = uint8(capSq), 0
		key ^= z[capSq*pieceCodes+int(b[capSq])]
		n++
		m.flags, m.ncap = flagCapture|flagIrrevers, 1
	}
	if rookFrom != none {
		rook := b[rookFrom]
		m.sq[n], m.pc[n] = uint8(rookFrom), 0
		m.sq[n+1], m.pc[n+1] = uint8(rookTo), rook
		key ^= z[rookFrom*pieceCodes+int(rook)] ^ z[rookTo*pieceCodes+int(rook)]
		n += 2
		m.flags |= flagCastle
	}
	if final != pc {
		m.flags |= flagPromotion
	}
	m.key = key
	m.nchg = uint8(n)
	m.path[0], m.path[1], m.npath = uint8(from), uint8(to), 2
	m.tag = 0
	if final != pc {
		m.tag = uint8(final.Kind())
	}
	m.auxMask = 1<<auxEP | 1<<auxCastle
	m.aux[auxEP] = uint8(ep + 1)
	m.aux[auxCastle] = c.s.Aux[auxCastle] & cd.castleMask[from] & cd.castleMask[to]
}

// pawnRule: one step forward, two from the start rank, diagonal captures,
// en passant, promotion.
func (cd *chessData) pawnRule(c *ctx) {
	b := &c.s.Board
	from := c.from
	lastRank, startRank := 7, 1
	if c.me == Second {
		lastRank, startRank = 0, 6
	}
	add := func(to, capSq, ep int) {
		if int(cd.t.row[to]) == lastRank {
			for _, k := range []Kind{kindQueen, kindRook, kindBishop, kindKnight} {
				cd.emit(c, from, to, makePiece(c.me, k), capSq, none, none, none)
			}
			return
		}
		cd.emit(c, from, to, c.piece, capSq, none, none, ep)
	}
	if t := c.next(from, dirN); t != none && b[t] == 0 {
		add(t, none, none)
		if int(cd.t.row[from]) == startRank {
			if t2 := c.next(t, dirN); b[t2] == 0 {
				ep := none
				if cd.epPossible(c, t2) {
					ep = t
				}
				add(t2, none, ep)
			}
		}
	}
	epSq := int(c.s.Aux[auxEP]) - 1
	for _, d := range []int{dirNW, dirNE} {
		t := c.next(from, d)
		if t == none {
			continue
		}
		if b[t] != 0 && b[t].Owner() != c.me {
			add(t, none, none)
		} else if t == epSq {
			add(t, c.next(t, dirS), none)
		}
	}
}

// epPossible reports whether an enemy pawn stands next to sq, the square a
// pawn has just reached by a double step. The en passant square is only
// recorded when a capture is possible, so that positions differing only in
// an unusable en passant right repeat as they should.
func (cd *chessData) epPossible(c *ctx, sq int) bool {
	enemyPawn := makePiece(c.me.other(), kindPawn)
	for _, d := range []int{dirE, dirW} {
		if q := cd.t.step(sq, d); q != none && c.s.Board[q] == enemyPawn {
			return true
		}
	}
	return false
}

// knightRule: the knight's leaps.
func (cd *chessData) knightRule(c *ctx) {
	b := &c.s.Board
	for _, t := range cd.knight[c.from] {
		if pc := b[t]; pc == 0 || pc.Owner() != c.me {
			cd.emit(c, c.from, int(t), c.piece, none, none, none, none)
		}
	}
}

// sliderRule: bishop, rook and queen moves along dirs.
func (cd *chessData) sliderRule(dirs []int) func(c *ctx) {
	return func(c *ctx) {
		b := &c.s.Board
		for _, d := range dirs {
			for t := cd.t.step(c.from, d); t != none; t = cd.t.step(t, d) {
				pc := b[t]
				if pc != 0 && pc.Owner() == c.me {
					break
				}
				cd.emit(c, c.from, t, c.piece, none, none, none, none)
				if pc != 0 {
					break
				}
			}
		}
	}
}

// kingRule: one step in any direction, and castling when the rights
// remain, the squares between king and rook are empty, and the king is not
// in check and does not pass through an attacked square (the landing
// square is checked by the legality filter like any king move).
func (cd *chessData) kingRule(c *ctx) {
	b := &c.s.Board
	for d := 0; d < 8; d++ {
		if t := cd.t.step(c.from, d); t != none && (b[t] == 0 || b[t].Owner() != c.me) {
			cd.emit(c, c.from, t, c.piece, none, none, none, none)
		}
	}
	rights := c.s.Aux[auxCastle]
	home, kBit, qBit := sqE1, uint8(castleWK), uint8(castleWQ)
	if c.me == Second {
		home, kBit, qBit = sqE8, castleBK, castleBQ
	}
	if c.from != home || rights&(kBit|qBit) == 0 {
		return
	}
	enemy := c.me.other()
	if cd.attacked(b, home, enemy) {
		return
	}
	rook := makePiece(c.me, kindRook)
	if rights&kBit != 0 && b[home+1] == 0 && b[home+2] == 0 && b[home+3] == rook && !cd.attacked(b, home+1, enemy) {
		cd.emit(c, home, home+2, c.piece, none, home+3, home+1, none)
	}
	if rights&qBit != 0 && b[home-1] == 0 && b[home-2] == 0 && b[home-3] == 0 && b[home-4] == rook && !cd.attacked(b, home-1, enemy) {
		cd.emit(c, home, home-2, c.piece, none, home-4, home-1, none)
	}
}

// attacked reports whether side by attacks sq on board b.
func (cd *chessData) attacked(b *[maxSquares]Piece, sq int, by Player) bool {
	t := cd.t
	for _, q := range cd.knight[sq] {
		if b[q] == makePiece(by, kindKnight) {
			return true
		}
	}
	// Pawns of "by" attack sq from the squares diagonally behind it, as
	// seen from by's side.
	pawn := makePiece(by, kindPawn)
	back := [2]int{dirSW, dirSE}
	if by == Second {
		back = [2]int{dirNW, dirNE}
	}
	for _, d := range back {
		if q := t.step(sq, d); q != none && b[q] == pawn {
			return true
		}
	}
	king := makePiece(by, kindChessKing)
	queen := makePiece(by, kindQueen)
	for d := 0; d < 8; d++ {
		slider := makePiece(by, kindRook)
		if d%2 == 1 {
			slider = makePiece(by, kindBishop)
		}
		q := t.step(sq, d)
		if q == none {
			continue
		}
		if b[q] == king {
			return true
		}
		for ; q != none; q = t.step(q, d) {
			if pc := b[q]; pc != 0 {
				if pc == slider || pc == queen {
					return true
				}
				break
			}
		}
	}
	return false
}

// kingSquare finds p's king, or none.
func kingSquare(b *[maxSquares]Piece, p Player) int {
	king := makePiece(p, kindChessKing)
	for sq := 0; sq < 64; sq++ {
		if b[sq] == king {
			return sq
		}
	}
	return none
}

// legal is the chess legality filter: it drops moves that leave the
// mover's king attacked. When the king is not in check only king moves, en
// passant captures and moves of pieces lined up with the king can expose
// it, so only those are tried on a scratch board.
func (cd *chessData) legal(_ *rules, s *State, ms []move) []move {
	me := s.Turn
	k := kingSquare(&s.Board, me)
	if k == none {
		return ms // positions without a king are rejected on load
	}
	inCheck := cd.attacked(&s.Board, k, me.other())
	var b [maxSquares]Piece
	n := 0
	for i := range ms {
		m := &ms[i]
		from := int(m.path[0])
		risky := inCheck || from == k || m.nchg > 2 || cd.aligned[k][from]
		if risky {
			b = s.Board
			for j := 0; j < int(m.nchg); j++ {
				b[m.sq[j]] = m.pc[j]
			}
			ks := k
			if from == k {
				ks = int(m.path[1])
			}
			if cd.attacked(&b, ks, me.other()) {
				continue
			}
		}
		if n != i {
			ms[n] = *m
		}
		n++
	}
	return ms[:n]
}

// status: checkmate, stalemate, a dead position, then the common draw
// rules.
func (cd *chessData) status(g *Game, nLegal int) Status {
	s := g.cur()
	if nLegal == 0 {
		k := kingSquare(&s.Board, s.Turn)
		if k != none && cd.attacked(&s.Board, k, s.Turn.other()) {
			return end(Win, s.Turn.other(), RuleCheckmate, "checkmate")
		}
		return end(Draw, 0, RuleStalemate, "stalemate")
	}
	if deadPosition(&s.Board) {
		return end(Draw, 0, RuleDeadPosition, "dead position: neither side can checkmate")
	}
	return g.drawStatus()
}

// deadPosition recognises the positions in which no sequence of legal
// moves can end in checkmate (FIDE Laws of Chess, article 5.2.2) by their
// material: kings only; kings and a single knight or bishop; kings and
// bishops that all stand on squares of one colour, whoever owns them (a
// bishop against a bishop of the same colour, two bishops of one colour
// against a king, ...). Positions dead only by their pawn structure are
// left to the other rules.
func deadPosition(b *[maxSquares]Piece) bool {
	minors, knights := 0, 0
	var colours [2]bool
	for sq := 0; sq < 64; sq++ {
		switch b[sq].Kind() {
		case 0, kindChessKing:
		case kindKnight:
			minors++
			knights++
		case kindBishop:
			minors++
			colours[(sq/8+sq%8)%2] = true
		default:
			return false
		}
	}
	if minors <= 1 {
		return true
	}
	return knights == 0 && colours[0] != colours[1]
}

// glyphChess uses FEN letters: upper case White, lower case Black.
func glyphChess(pc Piece) byte {
	if pc == 0 {
		return '.'
	}
	l := "?PNBRQK"[pc.Kind()%7]
	if pc.Owner() == Second {
		l += 'a' - 'A'
	}
	return l
}

// writeChess writes long algebraic notation: "e2e4", "e7e8q".
func writeChess(r *rules, _ *State, m *move, _ bool, buf []byte) []byte {
	buf = append(buf, r.topo.names[m.path[0]]...)
	buf = append(buf, r.topo.names[m.path[1]]...)
	if m.tag != 0 {
		buf = append(buf, "?pnbrqk"[m.tag%7])
	}
	return buf
}
