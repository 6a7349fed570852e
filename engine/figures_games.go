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
