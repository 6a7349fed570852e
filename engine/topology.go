package engine

import (
	"strconv"
	"strings"
)

// maxSquares is the largest number of squares (cells, points) a board may
// have. Every supported board fits: International draughts uses 50 dark
// squares, chess 64, Chase 81 hexes.
const maxSquares = 128

// none marks a missing neighbour or an absent square in link tables.
const none = -1

// Direction indices of the eight-direction boards (rectangles and the
// cross). They go clockwise from north, so the opposite direction is d+4.
const (
	dirN = iota
	dirNE
	dirE
	dirSE
	dirS
	dirSW
	dirW
	dirNW
)

// Direction indices of the hex cylinder, counter-clockwise from east in
// 60-degree steps, so d+2 turns 120 degrees left and d+4 turns 120 degrees
// right (d+3 is the opposite direction).
const (
	hexE = iota
	hexNE
	hexNW
	hexW
	hexSW
	hexSE
)

// shape tells the renderers how to draw a board.
type shape uint8

const (
	shapeRect  shape = iota // square cells on a grid
	shapeHex                // hex cells, odd rows shifted half a cell left
	shapeCross              // points of the 33-point cross, joined by lines
)

// topology is a board built from data: named squares, named directions and
// a neighbour table. Everything else in the engine navigates through it, so
// a new board is a new table rather than new movement code.
//
// Squares are numbered 0..n-1 in "board order", which is also the order in
// which pieces are visited during move generation and the order used for
// Chase's tie-breaks (A1, A2, ..., I9).
type topology struct {
	names    []string       // square names as shown to players
	lookup   map[string]int // lower-cased name -> square
	dirNames []string
	nd       int     // number of directions
	links    []int16 // links[sq*nd+d] = neighbour of sq in direction d, or none
	opposite []int8  // opposite[d]
	mirror   []int8  // ricochet: direction taken when d leaves the board, or none
	// sym[p][d] maps a direction written in the first player's frame to the
	// absolute direction for player p (e.g. "forward" for Black is south).
	sym [2][]uint8
	// col and row are display coordinates: row 0 is the bottom row as the
	// first player sees it; for hex boards col is counted in half cells.
	col, row      []int8
	width, height int // display grid size in the same units
	shape         shape
	numbered      bool // squares are named by numbers (PDN style)
	// lightA1: the played squares of a board that plays every other square
	// are those where a1 is light (Italian, Spanish); pictures colour the
	// played squares dark.
	lightA1 bool
}

// n returns the number of squares.
func (t *topology) n() int { return len(t.names) }

// step returns the neighbour of sq in absolute direction d, or none.
func (t *topology) step(sq, d int) int { return int(t.links[sq*t.nd+d]) }

// square looks a square up by name, ignoring case and surrounding spaces.
func (t *topology) square(name string) (int, bool) {
	sq, ok := t.lookup[strings.ToLower(strings.TrimSpace(name))]
	return sq, ok
}

// at returns the square at display coordinates (col, row), or none.
func (t *topology) at(col, row int) int {
	for sq := range t.names {
		if int(t.col[sq]) == col && int(t.row[sq]) == row {
			return sq
		}
	}
	return none
}

// newTopology allocates the tables for n squares and the given directions.
func newTopology(n int, dirs []string) *topology {
	t := &topology{
		names:    make([]string, n),
		lookup:   make(map[string]int, n),
		dirNames: dirs,
		nd:       len(dirs),
		links:    make([]int16, n*len(dirs)),
		opposite: make([]int8, len(dirs)),
		mirror:   make([]int8, len(dirs)),
		col:      make([]int8, n),
		row:      make([]int8, n),
	}
	for i := range t.links {
		t.links[i] = none
	}
	for d := range t.mirror {
		t.mirror[d] = none
	}
	for p := range t.sym {
		t.sym[p] = make([]uint8, len(dirs))
		for d := range dirs {
			t.sym[p][d] = uint8(d)
		}
	}
	return t
}

// setName records the display name of sq.
func (t *topology) setName(sq int, name string) {
	t.names[sq] = name
	t.lookup[strings.ToLower(name)] = sq
}

// eightDirs are the names of the eight compass directions, clockwise from
// north, matching dirN..dirNW.
var eightDirs = []string{"n", "ne", "e", "se", "s", "sw", "w", "nw"}

// gridVec gives the (col, row) step of each eight-direction index.
var gridVec = [8][2]int{{0, 1}, {1, 1}, {1, 0}, {1, -1}, {0, -1}, {-1, -1}, {-1, 0}, {-1, 1}}

// setReflection gives the second player the mirror image of the first
// player's directions across the horizontal axis: north becomes south,
// north-east becomes south-east, east and west stay. It is the Dagaz
// convention for boards where the players face each other.
func (t *topology) setReflection() {
	refl := [8]uint8{dirS, dirSE, dirE, dirNE, dirN, dirNW, dirW, dirSW}
	copy(t.sym[1], refl[:])
	for d := 0; d < 8; d++ {
		t.opposite[d] = int8((d + 4) % 8)
	}
}

// linkGrid fills the neighbour table of a grid board whose squares are
// given by their display coordinates; diagonals selects the diagonal
// directions and orthogonals the orthogonal ones.
func (t *topology) linkGrid(orthogonals, diagonals bool) {
	for sq := range t.names {
		for d := 0; d < 8; d++ {
			diag := d%2 == 1
			if diag && !diagonals || !diag && !orthogonals {
				continue
			}
			c, r := int(t.col[sq])+gridVec[d][0], int(t.row[sq])+gridVec[d][1]
			if q := t.at(c, r); q != none {
				t.links[sq*8+d] = int16(q)
			}
		}
	}
}

// rectBoard builds a w x h board of square cells, as the first player sees
// it: a1 at the bottom left. With darkOnly only the squares of a1's colour
// are kept (draughts) and only diagonal links exist; otherwise all squares
// and all eight directions are present. With numbered the squares are named
// 1..n in reading order from the top left (PDN numbering for International
// and English draughts) and numbered in that order; otherwise they get
// algebraic names and are numbered from a1 along the ranks.
func rectBoard(w, h int, darkOnly, numbered bool) *topology {
	type cell struct{ c, r int }
	var cells []cell
	if numbered {
		for r := h - 1; r >= 0; r-- {
			for c := 0; c < w; c++ {
				if !darkOnly || (c+r)%2 == 0 {
					cells = append(cells, cell{c, r})
				}
			}
		}
	} else {
		for r := 0; r < h; r++ {
			for c := 0; c < w; c++ {
				if !darkOnly || (c+r)%2 == 0 {
					cells = append(cells, cell{c, r})
				}
			}
		}
	}
	t := newTopology(len(cells), eightDirs)
	t.width, t.height, t.shape, t.numbered = w, h, shapeRect, numbered
	for sq, cl := range cells {
		t.col[sq], t.row[sq] = int8(cl.c), int8(cl.r)
		if numbered {
			t.setName(sq, strconv.Itoa(sq+1))
		} else {
			t.setName(sq, string(rune('a'+cl.c))+strconv.Itoa(cl.r+1))
		}
	}
	t.linkGrid(!darkOnly, true)
	t.setReflection()
	return t
}

// crossBoard builds the 33-point cross of Fox and Geese: a 7x7 grid
// without its four 2x2 corners, points named a1..g7. Lines are
// orthogonal; with diagonals every diagonal between two points of the
// cross is a line too.
func crossBoard(diagonals bool) *topology {
	type cell struct{ c, r int }
	var cells []cell
	for r := 0; r < 7; r++ {
		for c := 0; c < 7; c++ {
			if (c >= 2 && c <= 4) || (r >= 2 && r <= 4) {
				cells = append(cells, cell{c, r})
			}
		}
	}
	t := newTopology(len(cells), eightDirs)
	t.width, t.height, t.shape = 7, 7, shapeCross
	for sq, cl := range cells {
		t.col[sq], t.row[sq] = int8(cl.c), int8(cl.r)
		t.setName(sq, string(rune('a'+cl.c))+strconv.Itoa(cl.r+1))
	}
	t.linkGrid(true, diagonals)
	t.setReflection()
	return t
}

// hexCylinder builds Chase's board: rows A..I (A at the bottom), cells
// 1..9, rows B, D, F, H shifted half a hex to the left. The left and right
// edges are glued (east of A9 is A1). A diagonal step off the top or bottom
// row has no link; mirror gives the direction a die ricochets into instead
// (north-east <-> south-east, north-west <-> south-west).
func hexCylinder(rows, cols int) *topology {
	t := newTopology(rows*cols, []string{"e", "ne", "nw", "w", "sw", "se"})
	t.width, t.height, t.shape = 2*cols+1, rows, shapeHex
	sq := func(r, c int) int { return r*cols + (c%cols+cols)%cols }
	for r := 0; r < rows; r++ {
		for c := 0; c < cols; c++ {
			s := sq(r, c)
			even := r%2 == 0 // rows A, C, E, G, I
			t.setName(s, string(rune('A'+r))+strconv.Itoa(c+1))
			t.row[s] = int8(r)
			if even {
				t.col[s] = int8(2*c + 1)
			} else {
				t.col[s] = int8(2 * c)
			}
			link := func(d, r2, c2 int) {
				if r2 >= 0 && r2 < rows {
					t.links[s*6+d] = int16(sq(r2, c2))
				}
			}
			link(hexE, r, c+1)
			link(hexW, r, c-1)
			if even {
				link(hexNE, r+1, c+1)
				link(hexNW, r+1, c)
				link(hexSE, r-1, c+1)
				link(hexSW, r-1, c)
			} else {
				link(hexNE, r+1, c)
				link(hexNW, r+1, c-1)
				link(hexSE, r-1, c)
				link(hexSW, r-1, c-1)
			}
		}
	}
	for d := 0; d < 6; d++ {
		t.opposite[d] = int8((d + 3) % 6)
	}
	t.mirror[hexNE], t.mirror[hexSE] = hexSE, hexNE
	t.mirror[hexNW], t.mirror[hexSW] = hexSW, hexNW
	return t
}
