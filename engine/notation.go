package engine

import (
	"fmt"
	"strings"
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

// ParseMove finds the legal move a player means by text. Returns
// ErrGameOver when the game has ended, ErrIllegalMove when no legal move
// matches and ErrAmbiguousMove (listing the candidates) when several do.
func (g *Game) ParseMove(text string) (Move, error) {
	if st := g.Status(); st.Result != Ongoing {
		return Move{}, fmt.Errorf("%w: %s", ErrGameOver, st.Reason)
	}
	legal := g.legalMoves()
	t := strings.TrimSpace(text)
	if len(t) > 200 {
		return Move{}, fmt.Errorf("%w: text too long", ErrIllegalMove)
	}
	for _, m := range legal {
		if strings.EqualFold(m.text, t) {
			return m, nil
		}
	}
	if g.r.alias != nil {
		t = g.r.alias(g.r, g.cur(), legal, t)
	}
	in := g.r.tokenize(t)
	if len(in.squares) == 0 {
		return Move{}, fmt.Errorf("%w: %q names no square", ErrIllegalMove, text)
	}
	var cands []Move
	for _, m := range legal {
		if pathEquals(&m.m, in.squares) {
			cands = append(cands, m)
		}
	}
	if len(cands) == 0 && len(in.squares) >= 2 {
		for _, m := range legal {
			if pathContains(&m.m, in.squares) {
				cands = append(cands, m)
			}
		}
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
		return Move{}, fmt.Errorf("%w: %s", ErrIllegalMove, text)
	}
	names := make([]string, len(cands))
	for i, m := range cands {
		names[i] = m.text
	}
	return Move{}, fmt.Errorf("%w: %s could be %s", ErrAmbiguousMove, text, strings.Join(names, ", "))
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
