package engine

import (
	"fmt"
	"strings"
)

// Atari Go (capture Go), on a 9x9 board.
//
// Source: the rules of Go (the AGA Concise Rules of Go: liberties,
// capture, no suicide) with the winning condition of Atari Go as taught
// to beginners (the "Atari Go" article of Sensei's Library, Yasuda
// Yasutoshi's "first capture" game): whoever captures first wins. As
// implemented:
//   - 9x9 points, named a1..i9 (a1 at Black's bottom left; the letter i
//     is used, unlike the Go convention, so that the names are the
//     engine's usual ones); the board is empty, Black moves first.
//   - A move places a stone of the mover's colour on an empty point.
//     Stones of one colour joined along the lines form a group; the empty
//     points next to a group are its liberties. A placement that leaves
//     an enemy group without liberties captures it and wins at once
//     (RuleFirstCapture). A placement that leaves its own group without a
//     liberty and captures nothing (suicide) is illegal.
//   - A side without a legal placement passes ("pass", as in Othello);
//     when neither side can place a stone the game is drawn (RuleNoMoves).
//     The platform's ply limit (600 plies) is out of reach of 81 points.
//
// The pictures draw the points as the cells of a 9x9 grid, the stones on
// them; moves are written by the point ("e5", "pass").

// kindStone is Atari Go's only piece kind.
const kindStone Kind = 1

// auxCaptured records, in State.Aux, that the last move captured: the
// game is over and the mover won.
const auxCaptured = 0

// goSize is the side of the board.
const goSize = 9

func atariGoRules() *rules {
	t, pass := placementBoard(goSize, goSize)
	gd := &goData{t: t, pass: pass}
	r := &rules{
		name:        "atarigo",
		title:       "Atari Go",
		playerNames: [2]string{"White", "Black"},
		topo:        t,
		gen:         gd.gen,
		encode:      encodeGo,
		decode:      decodeGo,
		status:      goStatus,
		eval:        gd.eval,
		glyph:       glyphOthello,
		write: func(r *rules, _ *State, m *move, _ bool, buf []byte) []byte {
			return append(buf, r.topo.names[m.path[0]]...)
		},
		terminal: func(_ *rules, s *State, n int) (bool, int) {
			switch {
			case s.Aux[auxCaptured] != 0:
				return true, -1 // the opponent has just captured
			case n == 0:
				return true, 0
			}
			return false, 0
		},
		pregen:      func(_ *rules, s *State) bool { return s.Aux[auxCaptured] == 0 },
		look:        func() (int, *spriteSet) { return cell8, stoneSprites() },
		noMovesDraw: true,
		quiescence:  qNone,
	}
	r.kinds[kindStone] = kindInfo{name: "stone", letter: 'S', value: 1}
	r.irreversible[kindStone] = true
	r.finish()
	var s State
	s.Turn = Second
	r.start = encodeGo(r, &s)
	return r
}

// goData holds the board of Atari Go for its generator.
type goData struct {
	t    *topology
	pass int
}

// orthogonal are the directions of Go's lines.
var orthogonal = [4]int{dirN, dirE, dirS, dirW}

// group collects in out the stones of the group on sq (its colour's
// stones joined along the lines, as on b) and returns how many liberties
// it has, counting up to limit.
func (gd *goData) group(b *[maxSquares]Piece, sq int, seen *bitset, out []int, limit int) ([]int, int) {
	colour := b[sq]
	out = append(out[:0], sq)
	seen.set(sq)
	var libs bitset
	nlib := 0
	for i := 0; i < len(out); i++ {
		for _, d := range orthogonal {
			q := gd.t.step(out[i], d)
			switch {
			case q == none:
			case b[q] == 0:
				if !libs.has(q) {
					libs.set(q)
					nlib++
				}
			case b[q] == colour && !seen.has(q):
				seen.set(q)
				out = append(out, q)
			}
		}
		if limit > 0 && nlib >= limit {
			break
		}
	}
	return out, nlib
}

// gen emits every legal placement of the side to move, or the pass when
// it has none and the opponent has one.
func (gd *goData) gen(r *rules, s *State, c *ctx) {
	gd.placements(r, s, c, s.Turn, true)
	if len(c.out) == 0 && gd.placements(r, s, c, s.Turn.other(), false) {
		c.emitChanges(nil, []int{gd.pass}, 0, 0, 0)
	}
}

// placements emits p's legal placements on s (or, without emit, reports
// whether p has one).
func (gd *goData) placements(r *rules, s *State, c *ctx, p Player, emit bool) bool {
	b := s.Board
	stone := makePiece(p, kindStone)
	var chg [goSize*goSize + 1]change
	var stones [goSize * goSize]int
	buf := stones[:0]
	for sq := 0; sq < gd.pass; sq++ {
		if b[sq] != 0 {
			continue
		}
		b[sq] = stone
		n := 0
		chg[n] = change{sq, stone}
		n++
		// Each enemy neighbour's group is walked afresh: a walk stops at
		// its first liberty, so the stones it saw are not the whole group,
		// and a later walk that could not enter them would miss the
		// liberties behind them. A neighbour that an earlier walk reached
		// belongs to a group already judged (captured, or with a liberty)
		// and is skipped.
		var judged bitset
		for _, d := range orthogonal {
			q := gd.t.step(sq, d)
			if q == none || b[q] == 0 || b[q] == stone || judged.has(q) {
				continue
			}
			var seen bitset
			var libs int
			buf, libs = gd.group(&b, q, &seen, buf, 1)
			for i := range judged {
				judged[i] |= seen[i]
			}
			if libs == 0 {
				for _, x := range buf {
					// A move holds at most maxChanges squares. The game ends
					// at this capture whatever is removed, so a group too
					// big for one move (40 stones or more, never seen in
					// play) leaves its last stones on the final board.
					if n < maxChanges {
						chg[n] = change{x, 0}
						n++
					}
				}
			}
		}
		legal := n > 1
		if !legal {
			var own bitset
			_, libs := gd.group(&b, sq, &own, buf, 1)
			legal = libs > 0
		}
		b[sq] = 0
		if !legal {
			continue
		}
		if !emit {
			return true
		}
		m := c.emitChanges(chg[:n], []int{sq}, n-1, 0, flagIrrevers)
		if n > 1 {
			m.auxMask = 1 << auxCaptured
			m.aux[auxCaptured] = 1
		}
	}
	return len(c.out) > 0
}

// goStatus: the first capture wins; a position where neither side can
// place a stone is drawn.
func goStatus(g *Game, nLegal int) Status {
	s := g.cur()
	if s.Aux[auxCaptured] != 0 {
		return end(Win, s.Turn.other(), RuleFirstCapture, "the first capture")
	}
	if nLegal == 0 {
		return end(Draw, 0, RuleNoMoves, "neither side can place a stone")
	}
	return g.drawStatus()
}

// eval scores liberties: a group in atari (one liberty) is about to be
// captured if it is the opponent's turn, so it weighs heavily; otherwise
// the side with more liberties per group stands better.
func (gd *goData) eval(_ *rules, s *State) int {
	var seen bitset
	var buf []int
	score := 0
	for sq := 0; sq < gd.pass; sq++ {
		pc := s.Board[sq]
		if pc == 0 || seen.has(sq) {
			continue
		}
		var libs int
		buf, libs = gd.group(&s.Board, sq, &seen, buf, 0)
		v := 4 * min(libs, 4)
		switch {
		case libs == 1 && pc.Owner() != s.Turn:
			v -= 1000 // the side to move captures it
		case libs == 1:
			v -= 120
		case libs == 2:
			v -= 30
		}
		if pc.Owner() == s.Turn {
			score += v
		} else {
			score -= v
		}
	}
	return score
}

// encodeGo writes "9/9/9/9/4b4/9/9/9/9 w": the ranks from the 9th down,
// w and b for the stones, digits for runs of empty points, then the side
// to move; "+" at the end marks a finished game (the last move captured).
func encodeGo(_ *rules, s *State) string {
	var b strings.Builder
	writeRanks(&b, s, goSize, glyphOthello)
	b.WriteString([]string{" w", " b"}[s.Turn])
	if s.Aux[auxCaptured] != 0 {
		b.WriteString(" +")
	}
	return b.String()
}

// decodeGo reads a position written by encodeGo.
func decodeGo(_ *rules, text string) (State, error) {
	var s State
	fields := strings.Fields(text)
	if len(fields) == 3 && fields[2] == "+" {
		s.Aux[auxCaptured] = 1
		fields = fields[:2]
	}
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
	if len(ranks) != goSize {
		return s, fmt.Errorf("%w: %d ranks, want %d", ErrBadPosition, len(ranks), goSize)
	}
	for i, rank := range ranks {
		r, c := goSize-1-i, 0
		for _, ch := range strings.ToLower(rank) {
			switch {
			case ch >= '1' && ch <= '9':
				c += int(ch - '0')
			case ch == 'w' || ch == 'b':
				if c < goSize {
					p := First
					if ch == 'b' {
						p = Second
					}
					s.Board[r*goSize+c] = makePiece(p, kindStone)
				}
				c++
			default:
				return s, fmt.Errorf("%w: %q in rank %d", ErrBadPosition, ch, r+1)
			}
		}
		if c != goSize {
			return s, fmt.Errorf("%w: rank %d has %d points", ErrBadPosition, r+1, c)
		}
	}
	return s, nil
}
