package engine

import (
	"image/color"
	"sync"
)

// The pieces of the board pictures, drawn as vector silhouettes in a unit
// square (x to the right, y down) and painted once per size into sprites.
// The sprite sets are computed on first use and then only read, so any
// number of games may draw at once.

// Piece colours.
var (
	colWhiteFill  = color.RGBA{250, 246, 236, 255}
	colWhiteInk   = color.RGBA{40, 34, 30, 255}
	colBlackFill  = color.RGBA{44, 40, 40, 255}
	colBlackInk   = color.RGBA{18, 16, 16, 255}
	colBlackLine  = color.RGBA{205, 198, 186, 255} // details on black pieces
	colCrown      = color.RGBA{232, 178, 40, 255}
	colCrownInk   = color.RGBA{120, 80, 10, 255}
	colRedDie     = color.RGBA{200, 38, 38, 255}
	colRedDieInk  = color.RGBA{110, 14, 14, 255}
	colFoxFill    = color.RGBA{226, 116, 32, 255}
	colFoxInk     = color.RGBA{96, 44, 8, 255}
	colGooseBeak  = color.RGBA{240, 160, 30, 255}
	colWhiteGroov = color.RGBA{214, 206, 190, 255}
	colBlackGroov = color.RGBA{90, 84, 80, 255}
)

// chessShape returns the silhouette of a chess piece kind and its inner
// detail lines.
func chessShape(k Kind) (body region, details region) {
	base := union{
		box{0.22, 0.80, 0.78, 0.90, 0.03},
		box{0.28, 0.74, 0.72, 0.82, 0.02},
	}
	switch k {
	case kindPawn:
		return union{base,
			disc{pt{0.5, 0.27}, 0.12},
			box{0.36, 0.40, 0.64, 0.47, 0.03},
			poly{{0.43, 0.44}, {0.57, 0.44}, {0.66, 0.76}, {0.34, 0.76}},
		}, stroke{[]pt{{0.37, 0.47}, {0.63, 0.47}}, 0.02}
	case kindRook:
		return union{base,
			poly{
				{0.24, 0.13}, {0.35, 0.13}, {0.35, 0.21}, {0.445, 0.21}, {0.445, 0.13},
				{0.555, 0.13}, {0.555, 0.21}, {0.65, 0.21}, {0.65, 0.13}, {0.76, 0.13},
				{0.76, 0.33}, {0.68, 0.39}, {0.68, 0.74}, {0.32, 0.74}, {0.32, 0.39}, {0.24, 0.33},
			},
		}, union{stroke{[]pt{{0.28, 0.34}, {0.72, 0.34}}, 0.025}, stroke{[]pt{{0.33, 0.70}, {0.67, 0.70}}, 0.025}}
	case kindBishop:
		return union{base,
			disc{pt{0.5, 0.12}, 0.055},
			disc{pt{0.5, 0.40}, 0.16},
			poly{{0.5, 0.15}, {0.37, 0.34}, {0.63, 0.34}},
			box{0.36, 0.56, 0.64, 0.63, 0.03},
			poly{{0.44, 0.58}, {0.56, 0.58}, {0.64, 0.76}, {0.36, 0.76}},
		}, union{stroke{[]pt{{0.55, 0.28}, {0.46, 0.42}}, 0.03}, stroke{[]pt{{0.38, 0.63}, {0.62, 0.63}}, 0.02}}
	case kindKnight:
		return union{base,
			poly{
				{0.26, 0.76}, {0.74, 0.76}, {0.76, 0.58}, {0.72, 0.40}, {0.64, 0.26},
				{0.55, 0.19}, {0.53, 0.09}, {0.46, 0.17}, {0.41, 0.10}, {0.38, 0.20},
				{0.28, 0.29}, {0.19, 0.44}, {0.16, 0.53}, {0.21, 0.59}, {0.29, 0.56},
				{0.35, 0.51}, {0.44, 0.49}, {0.36, 0.61}, {0.30, 0.69},
			},
		}, union{disc{pt{0.40, 0.31}, 0.03}, stroke{[]pt{{0.57, 0.22}, {0.66, 0.36}, {0.70, 0.52}, {0.69, 0.70}}, 0.025}}
	case kindQueen:
		return union{base,
			poly{
				{0.17, 0.28}, {0.31, 0.56}, {0.34, 0.24}, {0.44, 0.53}, {0.5, 0.19},
				{0.56, 0.53}, {0.66, 0.24}, {0.69, 0.56}, {0.83, 0.28}, {0.71, 0.76}, {0.29, 0.76},
			},
			disc{pt{0.17, 0.26}, 0.05}, disc{pt{0.34, 0.21}, 0.05}, disc{pt{0.5, 0.16}, 0.05},
			disc{pt{0.66, 0.21}, 0.05}, disc{pt{0.83, 0.26}, 0.05},
		}, stroke{[]pt{{0.31, 0.66}, {0.69, 0.66}}, 0.025}
	case kindChessKing:
		return union{base,
			box{0.46, 0.05, 0.54, 0.25, 0.01},
			box{0.40, 0.10, 0.60, 0.17, 0.01},
			poly{
				{0.5, 0.27}, {0.56, 0.32}, {0.68, 0.26}, {0.80, 0.34}, {0.79, 0.46},
				{0.70, 0.76}, {0.30, 0.76}, {0.21, 0.46}, {0.20, 0.34}, {0.32, 0.26}, {0.44, 0.32},
			},
		}, union{stroke{[]pt{{0.5, 0.32}, {0.5, 0.66}}, 0.025}, stroke{[]pt{{0.31, 0.66}, {0.69, 0.66}}, 0.025}}
	}
	return disc{pt{0.5, 0.5}, 0.3}, nil
}

// crownShape is the crown drawn on draughts kings.
var crownShape = union{
	poly{
		{0.244, 0.651}, {0.219, 0.358}, {0.354, 0.504}, {0.427, 0.297}, {0.5, 0.468},
		{0.573, 0.297}, {0.646, 0.504}, {0.781, 0.358}, {0.756, 0.651},
	},
	disc{pt{0.219, 0.334}, 0.042}, disc{pt{0.427, 0.273}, 0.042}, disc{pt{0.573, 0.273}, 0.042}, disc{pt{0.781, 0.334}, 0.042},
}

// spriteSet holds the sprites of one board family at one cell size,
// indexed by Piece.
type spriteSet struct {
	cell   int
	pieces [pieceCodes]*sprite
}

// pieceSprite paints the layers of one piece in a cell of size px.
func pieceSprite(px int, layers ...layer) *sprite {
	return newSprite(px, px, float64(px), 0, 0, layers...)
}

// newDraughtsSprites paints men and crowned kings of both colours.
func newDraughtsSprites(px int) *spriteSet {
	ss := &spriteSet{cell: px}
	line := float64(px) / 30
	for _, p := range []Player{First, Second} {
		fill, ink, groove := colWhiteFill, colWhiteInk, colWhiteGroov
		if p == Second {
			fill, ink, groove = colBlackFill, colBlackInk, colBlackGroov
		}
		man := []layer{
			{s: disc{pt{0.5, 0.53}, 0.40}, fill: ink},                        // the edge of the piece
			{s: disc{pt{0.5, 0.48}, 0.40}, fill: fill, ink: ink, line: line}, // its top
			{s: minus{disc{pt{0.5, 0.48}, 0.29}, disc{pt{0.5, 0.48}, 0.26}}, fill: groove},
		}
		ss.pieces[makePiece(p, kindMan)] = pieceSprite(px, man...)
		king := append(append([]layer{}, man...),
			layer{s: crownShape, fill: colCrown, ink: colCrownInk, line: line * 0.8})
		ss.pieces[makePiece(p, kindKing)] = pieceSprite(px, king...)
	}
	return ss
}

// newChessSprites paints the six chess pieces of both colours.
func newChessSprites(px int) *spriteSet {
	ss := &spriteSet{cell: px}
	line := float64(px) / 28
	for k := kindPawn; k <= kindChessKing; k++ {
		body, details := chessShape(k)
		for _, p := range []Player{First, Second} {
			fill, ink, detail := colWhiteFill, colWhiteInk, colWhiteInk
			if p == Second {
				fill, ink, detail = colBlackFill, colBlackInk, colBlackLine
			}
			ls := []layer{{s: body, fill: fill, ink: ink, line: line}}
			if details != nil {
				ls = append(ls, layer{s: details, fill: detail})
			}
			ss.pieces[makePiece(p, k)] = pieceSprite(px, ls...)
		}
	}
	return ss
}

// newFoxSprites paints the fox (an orange head with ears) and the geese.
func newFoxSprites(px int) *spriteSet {
	ss := &spriteSet{cell: px}
	line := float64(px) / 30
	ss.pieces[makePiece(First, kindGoose)] = pieceSprite(px,
		layer{s: disc{pt{0.5, 0.52}, 0.33}, fill: colWhiteFill, ink: colWhiteInk, line: line},
		layer{s: poly{{0.5, 0.30}, {0.60, 0.50}, {0.40, 0.50}}, fill: colGooseBeak, ink: colFoxInk, line: line * 0.7},
	)
	ss.pieces[makePiece(Second, kindFox)] = pieceSprite(px,
		layer{s: union{
			disc{pt{0.5, 0.55}, 0.33},
			poly{{0.22, 0.44}, {0.24, 0.10}, {0.45, 0.28}},
			poly{{0.78, 0.44}, {0.76, 0.10}, {0.55, 0.28}},
		}, fill: colFoxFill, ink: colFoxInk, line: line},
		layer{s: poly{{0.30, 0.62}, {0.5, 0.86}, {0.70, 0.62}, {0.5, 0.70}}, fill: colWhiteFill},
		layer{s: union{disc{pt{0.39, 0.50}, 0.04}, disc{pt{0.61, 0.50}, 0.04}, disc{pt{0.5, 0.84}, 0.04}}, fill: colBlackInk},
	)
	return ss
}

// dicePips are the pip positions of die faces 1 to 6.
var dicePips = [7][]pt{
	1: {{0.5, 0.5}},
	2: {{0.33, 0.33}, {0.67, 0.67}},
	3: {{0.31, 0.31}, {0.5, 0.5}, {0.69, 0.69}},
	4: {{0.33, 0.33}, {0.67, 0.33}, {0.33, 0.67}, {0.67, 0.67}},
	5: {{0.31, 0.31}, {0.69, 0.31}, {0.5, 0.5}, {0.31, 0.69}, {0.69, 0.69}},
	6: {{0.33, 0.28}, {0.67, 0.28}, {0.33, 0.5}, {0.67, 0.5}, {0.33, 0.72}, {0.67, 0.72}},
}

// newDiceSprites paints Chase's dice: red for the first player, white for
// the second, the value as pips.
func newDiceSprites(px int) *spriteSet {
	ss := &spriteSet{cell: px}
	line := float64(px) / 26
	for v := 1; v <= 6; v++ {
		for _, p := range []Player{First, Second} {
			fill, ink, pip := colRedDie, colRedDieInk, colWhiteFill
			if p == Second {
				fill, ink, pip = colWhiteFill, colWhiteInk, colBlackFill
			}
			var pips union
			for _, c := range dicePips[v] {
				pips = append(pips, disc{pt{0.2 + c.x*0.6, 0.2 + c.y*0.6}, 0.062})
			}
			ss.pieces[makePiece(p, Kind(v))] = pieceSprite(px,
				layer{s: box{0.2, 0.22, 0.8, 0.82, 0.1}, fill: ink},
				layer{s: box{0.2, 0.18, 0.8, 0.78, 0.1}, fill: fill, ink: ink, line: line},
				layer{s: pips, fill: pip},
			)
		}
	}
	return ss
}

// The sprite sets of the board families, at the cell sizes of the
// pictures (see layoutFor).
var (
	draughtsSprites8  = sync.OnceValue(func() *spriteSet { return newDraughtsSprites(cell8) })
	draughtsSprites10 = sync.OnceValue(func() *spriteSet { return newDraughtsSprites(cell10) })
	chessSprites      = sync.OnceValue(func() *spriteSet { return newChessSprites(cell8) })
	foxSprites        = sync.OnceValue(func() *spriteSet { return newFoxSprites(cellCross) })
	diceSprites       = sync.OnceValue(func() *spriteSet { return newDiceSprites(hexPieces) })
)
