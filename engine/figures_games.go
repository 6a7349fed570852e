package engine

import "sync"

// The pieces of the games added as descriptions and of Othello.

// cell12 is a square of the 12x12 board (Canadian draughts): the picture
// is 2*34 + 12*54 = 716 pixels wide.
const cell12 = 54

// newStoneSprites paints flat discs (Othello): white for the first
// player, black for the second, with a light rim so that a black disc
// stands out on a dark square.
func newStoneSprites(px int) *spriteSet {
	ss := &spriteSet{cell: px}
	line := float64(px) / 30
	for _, p := range []Player{First, Second} {
		fill, ink := colWhiteFill, colWhiteInk
		if p == Second {
			fill, ink = colBlackFill, colBlackLine
		}
		ss.pieces[makePiece(p, kindDisc)] = pieceSprite(px,
			layer{s: disc{pt{0.5, 0.52}, 0.41}, fill: colBlackInk},
			layer{s: disc{pt{0.5, 0.5}, 0.41}, fill: fill, ink: ink, line: line},
		)
	}
	return ss
}

var (
	draughtsSprites12 = sync.OnceValue(func() *spriteSet { return newDraughtsSprites(cell12) })
	stoneSprites      = sync.OnceValue(func() *spriteSet { return newStoneSprites(cell8) })
)

// Points off the board: a board may have points that are not squares of
// its grid (Othello's pass). They have row -1, link to nothing, and are
// drawn as buttons in a strip below the board's coordinates, so that a
// page showing the picture can tap them like squares.

// hasOffBoard reports whether the board has points off its grid.
func (t *topology) hasOffBoard() bool {
	for sq := range t.names {
		if t.row[sq] < 0 {
			return true
		}
	}
	return false
}

// offBoardCenter is the centre of the off-board strip's button (one
// point per board so far: the strip holds it in its middle).
func (l *layout) offBoardCenter() (int, int) {
	return l.x0 + l.t.width*l.cell/2, l.y0 + l.t.height*l.cell + sideW + l.cell/2
}

// drawOffBoard draws the buttons of the off-board points, tinted like
// squares when selected or part of the last move, labelled with their
// names.
func (g *Game) drawOffBoard(cv *canvas, l layout, mk marks) {
	t := l.t
	for sq := range t.names {
		if t.row[sq] >= 0 {
			continue
		}
		x, y := l.offBoardCenter()
		w, h := float64(2*l.cell), float64(l.cell)*0.8
		cv.roundRect(float64(x)-w/2, float64(y)-h/2, w, h, h/4, squareTint(colLight, sq, mk), 1)
		cv.text(x, y, 2, t.names[sq], colWhiteInk)
	}
}
