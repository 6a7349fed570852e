package engine

import (
	"fmt"
	"strconv"
	"strings"
)

// Othello (Reversi).
//
// Source: the rules of the World Othello Federation (WOF "Othello rules",
// as in the World Othello Championship rules). As implemented:
//   - 8x8 board, squares a1..h8; the start position has White discs on d4
//     and e5, Black discs on d5 and e4; Black moves first.
//   - A move places a disc of the mover's colour on an empty square so
//     that it brackets, along at least one of the eight lines, a
//     contiguous run of the opponent's discs ending in one of the mover's
//     own; every bracketed run, in every direction, is flipped.
//   - A side with no such placement passes: its only legal move is "pass"
//     (on the keyboards, the "pass" button). When neither side can place
//     a disc the game is over and the side with more discs wins
//     (RuleMoreDiscs); equal counts draw. Empty squares are not awarded.
//   - The platform's ply limit cannot be reached (at most 60 placements
//     and the passes between them).
//
// Perft counts a pass as a move, as the published tables do (4, 12, 56,
// 244, 1396, 8200, 55092, 390216, 3005288, ... from the start).
//
// Othello's moves place and flip discs, which no pattern of one piece
// describes, so it has its own generator (the gen hook); the rest is the
// common machinery. Players: First is White, Second is Black, who starts.

// kindDisc is Othello's only piece kind.
const kindDisc Kind = 1

// othelloPass is the square of the pass move: a point off the board,
// named "pass", so that a pass is a move with a path like any other (a
// button, a typed word, a line of the move list).
const othelloPass = 64

// placementBoard builds the board of a game that places stones: a w x h
// grid of all squares, a1 at the bottom left, and after them the pass
// point (returned), which lies off the grid (row -1, see hasOffBoard): no
// square links to it, and the pictures draw it as a button.
func placementBoard(w, h int) (*topology, int) {
	pass := w * h
	t := newTopology(pass+1, eightDirs)
	t.width, t.height, t.shape = w, h, shapeRect
	for r := 0; r < h; r++ {
		for c := 0; c < w; c++ {
			sq := r*w + c
			t.col[sq], t.row[sq] = int8(c), int8(r)
			t.setName(sq, string(rune('a'+c))+strconv.Itoa(r+1))
		}
	}
	t.col[pass], t.row[pass] = -100, -1
	t.setName(pass, "pass")
	t.linkGrid(true, true)
	t.setReflection()
	return t, pass
}

func othelloRules() *rules {
	t, _ := placementBoard(8, 8)
	r := &rules{
		name:        "othello",
		title:       "Othello",
		playerNames: [2]string{"White", "Black"},
		topo:        t,
		gen:         genOthello,
		encode:      encodeOthello,
		decode:      decodeOthello,
		status:      othelloStatus,
		terminal:    othelloTerminal,
		eval:        evalOthello,
		glyph:       glyphOthello,
		write: func(r *rules, _ *State, m *move, _ bool, buf []byte) []byte {
			return append(buf, r.topo.names[m.path[0]]...)
		},
		look:       func() (int, *spriteSet) { return cell8, stoneSprites() },
		quiescence: qNone,
	}
	r.kinds[kindDisc] = kindInfo{name: "disc", letter: 'D', value: 1}
	r.irreversible[kindDisc] = true
	r.finish()
	var s State
	s.Turn = Second
	s.Board[3*8+3], s.Board[4*8+4] = makePiece(First, kindDisc), makePiece(First, kindDisc)
	s.Board[4*8+3], s.Board[3*8+4] = makePiece(Second, kindDisc), makePiece(Second, kindDisc)
	r.start = encodeOthello(r, &s)
	return r
}

// othelloFlips lists in out the discs that a disc of p placed on sq would
// flip, and returns how many.
func othelloFlips(t *topology, b *[maxSquares]Piece, sq int, p Player, out *[24]int) int {
	n := 0
	for d := 0; d < 8; d++ {
		k := n
		q := t.step(sq, d)
		for q != none && b[q] != 0 && b[q].Owner() != p {
			if k < len(out) {
				out[k] = q
			}
			k++
			q = t.step(q, d)
		}
		if q != none && b[q] != 0 && k > n {
			n = k // bracketed by one of p's discs: the run flips
		}
	}
	return n
}

// canPlace reports whether p has a placement on b.
func canPlace(t *topology, b *[maxSquares]Piece, p Player) bool {
	var flips [24]int
	for sq := 0; sq < 64; sq++ {
		if b[sq] == 0 && othelloFlips(t, b, sq, p, &flips) > 0 {
			return true
		}
	}
	return false
}

// genOthello emits every placement of the side to move, or the pass when
// it has none and the opponent has one.
func genOthello(r *rules, s *State, c *ctx) {
	t := r.topo
	var flips [24]int
	var chg [25]change
	disc := makePiece(s.Turn, kindDisc)
	for sq := 0; sq < 64; sq++ {
		if s.Board[sq] != 0 {
			continue
		}
		n := othelloFlips(t, &s.Board, sq, s.Turn, &flips)
		if n == 0 {
			continue
		}
		chg[0] = change{sq, disc}
		for i := 0; i < n; i++ {
			chg[i+1] = change{flips[i], disc}
		}
		c.emitChanges(chg[:n+1], []int{sq}, 0, 0, flagIrrevers)
	}
	if len(c.out) == 0 && canPlace(t, &s.Board, s.Turn.other()) {
		c.emitChanges(nil, []int{othelloPass}, 0, 0, 0)
	}
}

// discs counts each side's discs.
func discs(s *State) (n [2]int) {
	for sq := 0; sq < 64; sq++ {
		if pc := s.Board[sq]; pc != 0 {
			n[pc.Owner()]++
		}
	}
	return n
}

// othelloStatus: the game ends when neither side can place a disc (no
// legal move, not even a pass); the side with more discs wins.
func othelloStatus(g *Game, nLegal int) Status {
	if nLegal > 0 {
		return g.drawStatus()
	}
	n := discs(g.cur())
	reason := fmt.Sprintf("no placements left: %d discs to %d", n[Second], n[First])
	switch {
	case n[First] > n[Second]:
		return end(Win, First, RuleMoreDiscs, reason)
	case n[Second] > n[First]:
		return end(Win, Second, RuleMoreDiscs, reason)
	}
	return end(Draw, 0, RuleMoreDiscs, reason)
}

// othelloTerminal tells the search the result of a finished game.
func othelloTerminal(_ *rules, s *State, nMoves int) (bool, int) {
	if nMoves > 0 {
		return false, 0
	}
	n := discs(s)
	me, them := n[s.Turn], n[s.Turn.other()]
	switch {
	case me > them:
		return true, 1
	case me < them:
		return true, -1
	}
	return true, 0
}

// othelloWeights are the usual square weights of Othello programs:
// corners are worth most, the squares next to an empty corner least.
var othelloWeights = [64]int{
	100, -20, 10, 5, 5, 10, -20, 100,
	-20, -50, -2, -2, -2, -2, -50, -20,
	10, -2, 1, 1, 1, 1, -2, 10,
	5, -2, 1, 0, 0, 1, -2, 5,
	5, -2, 1, 0, 0, 1, -2, 5,
	10, -2, 1, 1, 1, 1, -2, 10,
	-20, -50, -2, -2, -2, -2, -50, -20,
	100, -20, 10, 5, 5, 10, -20, 100,
}

// evalOthello scores square weights and mobility from the side to move's
// point of view; near the end, when few squares are empty, the disc count.
func evalOthello(r *rules, s *State) int {
	score, empty := 0, 0
	n := discs(s)
	for sq := 0; sq < 64; sq++ {
		pc := s.Board[sq]
		if pc == 0 {
			empty++
			continue
		}
		w := othelloWeights[sq]
		if pc.Owner() == s.Turn {
			score += w
		} else {
			score -= w
		}
	}
	if empty <= 12 {
		score += 10 * (n[s.Turn] - n[s.Turn.other()])
	}
	var flips [24]int
	mob := [2]int{}
	for sq := 0; sq < 64; sq++ {
		if s.Board[sq] != 0 {
			continue
		}
		for p := range mob {
			if othelloFlips(r.topo, &s.Board, sq, Player(p), &flips) > 0 {
				mob[p]++
			}
		}
	}
	return score + 5*(mob[s.Turn]-mob[s.Turn.other()])
}

func glyphOthello(pc Piece) byte {
	switch {
	case pc == 0:
		return '.'
	case pc.Owner() == First:
		return 'w'
	}
	return 'b'
}

// encodeOthello writes "8/8/8/3wb3/3bw3/8/8/8 b": the ranks from the 8th
// down, w and b for the discs, digits for runs of empty squares, then the
// side to move.
func encodeOthello(_ *rules, s *State) string {
	var b strings.Builder
	writeRanks(&b, s, 8, glyphOthello)
	b.WriteString([]string{" w", " b"}[s.Turn])
	return b.String()
}

// writeRanks writes a square board of size×size (squares numbered rank by rank from a1) as
// FEN writes ranks: from the top rank down, separated by "/", a piece by its glyph and a run of
// empty squares by its length.
func writeRanks(b *strings.Builder, s *State, size int, glyph func(Piece) byte) {
	for r := size - 1; r >= 0; r-- {
		run := 0
		for c := 0; c < size; c++ {
			pc := s.Board[r*size+c]
			if pc == 0 {
				run++
				continue
			}
			if run > 0 {
				b.WriteString(strconv.Itoa(run))
				run = 0
			}
			b.WriteByte(glyph(pc))
		}
		if run > 0 {
			b.WriteString(strconv.Itoa(run))
		}
		if r > 0 {
			b.WriteByte('/')
		}
	}
}

// decodeOthello reads a position written by encodeOthello.
func decodeOthello(_ *rules, text string) (State, error) {
	var s State
	fields := strings.Fields(text)
	if len(fields) != 2 {
		return s, fmt.Errorf("%w: want \"<ranks> <side>\"", ErrBadPosition)
	}
	switch strings.ToLower(fields[1]) {
	case "w":
		s.Turn = First
	case "b":
		s.Turn = Second
	default:
		return s, fmt.Errorf("%w: side to move %q", ErrBadPosition, fields[1])
	}
	ranks := strings.Split(fields[0], "/")
	if len(ranks) != 8 {
		return s, fmt.Errorf("%w: %d ranks, want 8", ErrBadPosition, len(ranks))
	}
	for i, rank := range ranks {
		r, c := 7-i, 0
		for _, ch := range strings.ToLower(rank) {
			switch {
			case ch >= '1' && ch <= '8':
				c += int(ch - '0')
			case ch == 'w' || ch == 'b':
				if c < 8 {
					p := First
					if ch == 'b' {
						p = Second
					}
					s.Board[r*8+c] = makePiece(p, kindDisc)
				}
				c++
			default:
				return s, fmt.Errorf("%w: %q in rank %d", ErrBadPosition, ch, r+1)
			}
		}
		if c != 8 {
			return s, fmt.Errorf("%w: rank %d has %d squares", ErrBadPosition, r+1, c)
		}
	}
	return s, nil
}
