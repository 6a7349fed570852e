package engine

import (
	"fmt"
	"strings"
	"sync"
)

// Gardner's minichess: chess on a 5x5 board.
//
// Source: Martin Gardner's 5x5 minichess as published in Scientific
// American (1969) and described by the "Minichess" article of the English
// Wikipedia (Gardner's variant; weakly solved as a draw by Mhalla and
// Prost, 2013). As implemented: a 5x5 board, a1..e5; White has a rook,
// knight, bishop, queen and king on a1..e1 and pawns on a2..e2, Black the
// same pieces on a5..e5 and pawns on a4..e4; White moves first. The
// pieces move as in chess (the FIDE Laws) except that pawns never make a
// double step, so there is no en passant, and there is no castling. A
// pawn reaching the last rank is promoted to a queen, rook, bishop or
// knight. The game ends by checkmate (RuleCheckmate), stalemate (a draw,
// RuleStalemate), threefold repetition, fifty moves by each side without
// a capture or a pawn move (RuleFiftyMoves), kings alone or with a single
// minor piece (RuleDeadPosition), or the platform's ply limit.
//
// The rules share chess's move rules for the pieces (chess.go: the
// knight, the sliders, the king, the attack test and the legality
// filter), which walk the board through its topology; the pawns, the
// position strings and the ending are the board's own. Moves are written
// in long algebraic notation ("b2b3", "a4b5", "b4b5q"); positions as the
// ranks of FEN, 5 to 1, and the side to move ("rnbqk/ppppp/5/PPPPP/RNBQK
// w").

// cellMini is a square of the 5x5 board: the picture is 2*34 + 5*116 =
// 648 pixels wide.
const cellMini = 116

var miniSprites = sync.OnceValue(func() *spriteSet { return newChessSprites(cellMini) })

// gardnerSize is the side of the board.
const gardnerSize = 5

func gardnerRules() *rules {
	t := rectBoard(gardnerSize, gardnerSize, false, false)
	cd := &chessData{t: t}
	for sq := 0; sq < t.n(); sq++ {
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
	r := &rules{
		name:        "gardner",
		title:       "Gardner's minichess",
		playerNames: [2]string{"White", "Black"},
		topo:        t,
		groups:      []uint32{group(modeQuiet)},
		clockLimit:  100,
		clockRule:   RuleFiftyMoves,
		clockReason: "fifty-move rule",
		repetitions: 3,
		quiescence:  qCapture,
		filters:     []filter{cd.legal},
		encode:      encodeMini,
		decode:      decodeMini,
		write:       writeChess,
		eval:        evalMini,
		glyph:       glyphChess,
		look:        func() (int, *spriteSet) { return cellMini, miniSprites() },
	}
	for k, ki := range []kindInfo{
		{"pawn", 'P', 100}, {"knight", 'N', 300}, {"bishop", 'B', 300},
		{"rook", 'R', 500}, {"queen", 'Q', 900}, {"king", 'K', 0},
	} {
		r.kinds[k+1] = ki
	}
	r.isKing[kindQueen] = true
	r.irreversible[kindPawn] = true
	diag := []int{dirNE, dirSE, dirSW, dirNW}
	orth := []int{dirN, dirE, dirS, dirW}
	r.byKind[kindPawn] = []moveRule{{modeQuiet, cd.miniPawnRule}}
	r.byKind[kindKnight] = []moveRule{{modeQuiet, cd.knightRule}}
	r.byKind[kindBishop] = []moveRule{{modeQuiet, cd.sliderRule(diag)}}
	r.byKind[kindRook] = []moveRule{{modeQuiet, cd.sliderRule(orth)}}
	r.byKind[kindQueen] = []moveRule{{modeQuiet, cd.sliderRule(append(orth, diag...))}}
	// The king's rule is chess's: without castling rights it only steps.
	r.byKind[kindChessKing] = []moveRule{{modeQuiet, cd.kingRule}}
	r.status = func(g *Game, nLegal int) Status {
		s := g.cur()
		if nLegal == 0 {
			if k := kingSquare(&s.Board, s.Turn); k != none && cd.attacked(&s.Board, k, s.Turn.other()) {
				return end(Win, s.Turn.other(), RuleCheckmate, "checkmate")
			}
			return end(Draw, 0, RuleStalemate, "stalemate")
		}
		if miniDead(&s.Board) {
			return end(Draw, 0, RuleDeadPosition, "dead position: neither side can checkmate")
		}
		return g.drawStatus()
	}
	r.terminal = func(_ *rules, s *State, n int) (bool, int) {
		if n > 0 {
			return false, 0
		}
		if k := kingSquare(&s.Board, s.Turn); k != none && cd.attacked(&s.Board, k, s.Turn.other()) {
			return true, -1
		}
		return true, 0
	}
	r.finish()
	r.start = "rnbqk/ppppp/5/PPPPP/RNBQK w"
	return r
}

// miniPawnRule: one step forward to a free square, diagonal captures,
// promotion on the last rank; no double step, so no en passant.
func (cd *chessData) miniPawnRule(c *ctx) {
	b := &c.s.Board
	from := c.from
	last := gardnerSize - 1
	if c.me == Second {
		last = 0
	}
	add := func(to int) {
		if int(cd.t.row[to]) == last {
			for _, k := range []Kind{kindQueen, kindRook, kindBishop, kindKnight} {
				cd.emit(c, from, to, makePiece(c.me, k), none, none, none, none)
			}
			return
		}
		cd.emit(c, from, to, c.piece, none, none, none, none)
	}
	if t := c.next(from, dirN); t != none && b[t] == 0 {
		add(t)
	}
	for _, d := range []int{dirNW, dirNE} {
		if t := c.next(from, d); t != none && b[t] != 0 && b[t].Owner() != c.me {
			add(t)
		}
	}
}

// miniDead: kings alone, or with a single knight or bishop.
func miniDead(b *[maxSquares]Piece) bool {
	minors := 0
	for sq := 0; sq < gardnerSize*gardnerSize; sq++ {
		switch b[sq].Kind() {
		case 0, kindChessKing:
		case kindKnight, kindBishop:
			minors++
		default:
			return false
		}
	}
	return minors <= 1
}

// evalMini: material and advanced pawns, from the side to move's view.
func evalMini(r *rules, s *State) int {
	score := 0
	for sq := 0; sq < gardnerSize*gardnerSize; sq++ {
		pc := s.Board[sq]
		if pc == 0 {
			continue
		}
		v := r.kinds[pc.Kind()].value
		row, col := sq/gardnerSize, sq%gardnerSize
		if pc.Owner() == Second {
			row = gardnerSize - 1 - row
		}
		switch pc.Kind() {
		case kindPawn:
			v += 8 * row
		case kindKnight, kindBishop:
			if col > 0 && col < gardnerSize-1 {
				v += 8
			}
		}
		if pc.Owner() == s.Turn {
			score += v
		} else {
			score -= v
		}
	}
	return score
}

// encodeMini writes the ranks, 5 to 1, in FEN letters and the side to
// move.
func encodeMini(_ *rules, s *State) string {
	var b strings.Builder
	writeRanks(&b, s, gardnerSize, glyphChess)
	b.WriteString([]string{" w", " b"}[s.Turn])
	return b.String()
}

// decodeMini reads a position written by encodeMini: each side must have
// one king, and no pawn may stand on a last rank.
func decodeMini(_ *rules, text string) (State, error) {
	var s State
	fields := strings.Fields(text)
	if len(fields) != 2 {
		return s, fmt.Errorf("%w: want \"<ranks> <side>\"", ErrBadPosition)
	}
	switch fields[1] {
	case "w":
		s.Turn = First
	case "b":
		s.Turn = Second
	default:
		return s, fmt.Errorf("%w: side to move %q", ErrBadPosition, fields[1])
	}
	ranks := strings.Split(fields[0], "/")
	if len(ranks) != gardnerSize {
		return s, fmt.Errorf("%w: %d ranks, want %d", ErrBadPosition, len(ranks), gardnerSize)
	}
	kings := [2]int{}
	for i, rank := range ranks {
		row, col := gardnerSize-1-i, 0
		for _, ch := range rank {
			if ch >= '1' && ch <= '5' {
				col += int(ch - '0')
				continue
			}
			k := strings.IndexRune("PNBRQK", ch) + 1
			p := First
			if k == 0 {
				k = strings.IndexRune("pnbrqk", ch) + 1
				p = Second
			}
			if k == 0 || col >= gardnerSize {
				return s, fmt.Errorf("%w: rank %d: %q", ErrBadPosition, row+1, rank)
			}
			if Kind(k) == kindPawn && (row == 0 || row == gardnerSize-1) {
				return s, fmt.Errorf("%w: a pawn on rank %d", ErrBadPosition, row+1)
			}
			if Kind(k) == kindChessKing {
				kings[p]++
			}
			s.Board[row*gardnerSize+col] = makePiece(p, Kind(k))
			col++
		}
		if col != gardnerSize {
			return s, fmt.Errorf("%w: rank %d has %d squares", ErrBadPosition, row+1, col)
		}
	}
	if kings != [2]int{1, 1} {
		return s, fmt.Errorf("%w: each side needs one king", ErrBadPosition)
	}
	return s, nil
}
