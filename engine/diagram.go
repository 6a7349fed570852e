package engine

import (
	"strconv"
	"strings"
)

// Diagram returns a monospace text picture of the current position as seen
// by viewer (the viewer's side at the bottom), with coordinates. Each cell
// is three characters wide; the squares of the last move are bracketed,
// as in "[w]". Pieces use the characters of the game's position strings
// (w/b and W/B for draughts men and kings, FEN letters for chess, 1-6 and
// a-f for Chase dice, G and F for geese and fox); "." is an empty square
// and "*" Chase's empty Chamber. Light squares of draughts boards are
// blank.
func (g *Game) Diagram(viewer Player) string {
	t := g.r.topo
	s := g.cur()
	var last bitset
	if n := len(g.moves); n > 0 {
		m := &g.moves[n-1].m
		for i := 0; i < int(m.npath); i++ {
			last.set(int(m.path[i]))
		}
	}
	flip := viewer == Second
	var b strings.Builder
	rowLabel := func(row int) string {
		if t.shape == shapeHex {
			return string(rune('A'+row)) + " "
		}
		return pad(strconv.Itoa(row+1), 2)
	}
	for i := 0; i < t.height; i++ {
		row := t.height - 1 - i
		if flip {
			row = i
		}
		b.WriteString(rowLabel(row))
		b.WriteByte(' ')
		width := t.width
		if t.shape == shapeHex {
			width = 9
		}
		var line strings.Builder
		for j := 0; j < width; j++ {
			col := j
			if flip {
				col = width - 1 - j
			}
			sq := none
			if t.shape == shapeHex {
				sq = row*9 + col
				// Rows B, D, F, H sit half a cell left of the others; seen
				// from the other side they sit half a cell right.
				if (row%2 == 0) != flip && j == 0 {
					line.WriteByte(' ')
				}
			} else {
				sq = t.at(col, row)
			}
			if sq == none {
				line.WriteString("   ")
				continue
			}
			ch := g.r.glyph(s.Board[sq])
			if t.shape == shapeHex && sq == 4*9+4 && ch == '.' {
				ch = '*'
			}
			if last.has(sq) {
				line.WriteString("[" + string(ch) + "]")
			} else {
				line.WriteString(" " + string(ch) + " ")
			}
		}
		b.WriteString(strings.TrimRight(line.String(), " "))
		b.WriteByte('\n')
	}
	// Column labels.
	var labels strings.Builder
	labels.WriteString("   ")
	if t.shape == shapeHex {
		labels.WriteByte(' ')
		for j := 0; j < 9; j++ {
			c := j
			if flip {
				c = 8 - j
			}
			labels.WriteString(" " + strconv.Itoa(c+1) + " ")
		}
	} else {
		for j := 0; j < t.width; j++ {
			c := j
			if flip {
				c = t.width - 1 - j
			}
			labels.WriteString(" " + string(rune('a'+c)) + " ")
		}
	}
	b.WriteString(strings.TrimRight(labels.String(), " "))
	b.WriteByte('\n')
	if t.numbered {
		b.WriteString(g.numberKey(viewer))
	}
	return b.String()
}

// numberKey prints the square numbers of a numbered board in the same
// layout, so players can read PDN moves off the diagram.
func (g *Game) numberKey(viewer Player) string {
	t := g.r.topo
	var b strings.Builder
	for i := 0; i < t.height; i++ {
		row := t.height - 1 - i
		if viewer == Second {
			row = i
		}
		b.WriteString("   ")
		var line strings.Builder
		for j := 0; j < t.width; j++ {
			col := j
			if viewer == Second {
				col = t.width - 1 - j
			}
			if sq := t.at(col, row); sq != none {
				line.WriteString(pad(t.names[sq], 3))
			} else {
				line.WriteString("   ")
			}
		}
		b.WriteString(strings.TrimRight(line.String(), " "))
		b.WriteByte('\n')
	}
	return b.String()
}

// pad right-aligns s in a field of width n.
func pad(s string, n int) string {
	for len(s) < n {
		s = " " + s
	}
	return s
}
