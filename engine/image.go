package engine

import (
	"image"
	"image/color"
	"image/png"
	"io"
	"math"
	"strconv"
	"strings"
)

// The board picture for chat: drawn with the standard library only (no
// fonts, no files), so it works anywhere the bot runs.

const (
	cellPx   = 48 // side of a square cell
	marginPx = 24 // room for coordinates
)

var (
	colLight   = color.RGBA{240, 217, 181, 255}
	colDark    = color.RGBA{181, 136, 99, 255}
	colBack    = color.RGBA{250, 248, 240, 255}
	colLabel   = color.RGBA{60, 60, 60, 255}
	colHigh    = color.RGBA{246, 226, 90, 255}
	colWhite   = color.RGBA{245, 245, 240, 255}
	colBlack   = color.RGBA{35, 35, 35, 255}
	colRed     = color.RGBA{200, 40, 40, 255}
	colFox     = color.RGBA{230, 120, 30, 255}
	colLine    = color.RGBA{120, 100, 80, 255}
	colHex     = color.RGBA{225, 230, 235, 255}
	colChamber = color.RGBA{150, 160, 200, 255}
)

// Image draws the current position as seen by viewer (the viewer's side at
// the bottom), with coordinates and the last move highlighted.
func (g *Game) Image(viewer Player) image.Image {
	t := g.r.topo
	s := g.cur()
	var last bitset
	if n := len(g.moves); n > 0 {
		m := &g.moves[n-1].m
		for i := 0; i < int(m.npath); i++ {
			last.set(int(m.path[i]))
		}
	}
	cv := newCanvas(t)
	flip := viewer == Second
	cv.fill(colBack)
	// Board.
	switch t.shape {
	case shapeRect:
		for row := 0; row < t.height; row++ {
			for col := 0; col < t.width; col++ {
				x, y := cv.cellXY(col, row, flip)
				c := colLight
				if (col+row)%2 == 0 {
					c = colDark
				}
				if sq := t.at(col, row); sq != none && last.has(sq) {
					c = colHigh
				}
				cv.rect(x-cellPx/2, y-cellPx/2, cellPx, cellPx, c)
			}
		}
	case shapeCross:
		for sq := 0; sq < t.n(); sq++ {
			x, y := cv.cellXY(int(t.col[sq]), int(t.row[sq]), flip)
			for d := 0; d < t.nd; d++ {
				if q := t.step(sq, d); q > sq {
					x2, y2 := cv.cellXY(int(t.col[q]), int(t.row[q]), flip)
					cv.line(x, y, x2, y2, 3, colLine)
				}
			}
		}
		for sq := 0; sq < t.n(); sq++ {
			x, y := cv.cellXY(int(t.col[sq]), int(t.row[sq]), flip)
			c := colLine
			if last.has(sq) {
				c = colHigh
				cv.disk(x, y, 10, c)
			}
			cv.disk(x, y, 6, c)
		}
	case shapeHex:
		for sq := 0; sq < t.n(); sq++ {
			x, y := cv.hexXY(sq, flip)
			c := colHex
			if sq == 4*9+4 {
				c = colChamber
			}
			if last.has(sq) {
				c = colHigh
			}
			cv.hex(x, y, cv.hexR-1, c)
		}
	}
	// Pieces.
	for sq := 0; sq < t.n(); sq++ {
		pc := s.Board[sq]
		if pc == 0 {
			continue
		}
		var x, y int
		if t.shape == shapeHex {
			x, y = cv.hexXY(sq, flip)
		} else {
			x, y = cv.cellXY(int(t.col[sq]), int(t.row[sq]), flip)
		}
		g.drawPiece(cv, x, y, pc)
	}
	cv.labels(t, flip)
	return cv.img
}

// WritePNG encodes Image(viewer) as PNG.
func (g *Game) WritePNG(w io.Writer, viewer Player) error {
	return png.Encode(w, g.Image(viewer))
}

// drawPiece draws one piece centred on (x, y).
func (g *Game) drawPiece(cv *canvas, x, y int, pc Piece) {
	fill, ink := colWhite, colBlack
	if pc.Owner() == Second {
		fill, ink = colBlack, colWhite
	}
	r := cellPx*2/5 - 1
	switch g.r.name {
	case "chase":
		if pc.Owner() == First {
			fill, ink = colRed, colWhite
		} else {
			fill, ink = colWhite, colBlack
		}
		cv.rect(x-13, y-13, 26, 26, colBlack)
		cv.rect(x-12, y-12, 24, 24, fill)
		cv.text(x, y, 3, string(rune('0'+pc.Kind())), ink)
	case "chess":
		cv.disk(x, y, r, ink)
		cv.disk(x, y, r-2, fill)
		cv.text(x, y, 3, string(rune("?PNBRQK"[pc.Kind()%7])), ink)
	default:
		fox := strings.HasPrefix(g.r.name, "fox")
		if fox {
			if pc.Kind() == kindFox {
				fill, ink = colFox, colBlack
			} else {
				fill, ink = colWhite, colBlack
			}
			r = cellPx/3 + 1
		}
		cv.disk(x, y, r, ink)
		cv.disk(x, y, r-2, fill)
		switch {
		case g.r.isKing[pc.Kind()]:
			cv.ring(x, y, r/2, 3, ink)
		case fox && pc.Kind() == kindFox:
			cv.text(x, y, 3, "F", ink)
		}
	}
}

// canvas is an RGBA image with the few drawing primitives the boards need.
type canvas struct {
	img          *image.RGBA
	rows         int // board rows (for flipping)
	cols         int
	hexR         int // hex radius (centre to corner)
	hexW, hexRow float64
}

func newCanvas(t *topology) *canvas {
	cv := &canvas{rows: t.height, cols: t.width}
	w, h := 2*marginPx+t.width*cellPx, 2*marginPx+t.height*cellPx
	if t.shape == shapeHex {
		cv.hexR = 26
		cv.hexW = math.Sqrt(3) * float64(cv.hexR)
		cv.hexRow = 1.5 * float64(cv.hexR)
		w = 2*marginPx + int(cv.hexW*float64(t.width)/2+cv.hexW/2) + 4
		h = 2*marginPx + int(cv.hexRow*float64(t.height-1)) + 2*cv.hexR + 4
	}
	cv.img = image.NewRGBA(image.Rect(0, 0, w, h))
	return cv
}

// cellXY returns the pixel centre of grid cell (col, row).
func (cv *canvas) cellXY(col, row int, flip bool) (int, int) {
	if flip {
		col, row = cv.cols-1-col, cv.rows-1-row
	}
	return marginPx + col*cellPx + cellPx/2, marginPx + (cv.rows-1-row)*cellPx + cellPx/2
}

// hexXY returns the pixel centre of Chase cell sq (its display column is
// counted in half cells).
func (cv *canvas) hexXY(sq int, flip bool) (int, int) {
	row, c := sq/9, sq%9
	half := 2 * c
	if row%2 == 0 {
		half++
	}
	if flip {
		row, half = 8-row, 18-half
	}
	x := float64(marginPx) + cv.hexW/2 + float64(half)*cv.hexW/2 + 2
	y := float64(marginPx) + float64(cv.hexR) + float64(8-row)*cv.hexRow + 2
	return int(x), int(y)
}

func (cv *canvas) set(x, y int, c color.RGBA) {
	if image.Pt(x, y).In(cv.img.Rect) {
		cv.img.SetRGBA(x, y, c)
	}
}

func (cv *canvas) fill(c color.RGBA) {
	b := cv.img.Rect
	cv.rect(0, 0, b.Dx(), b.Dy(), c)
}

func (cv *canvas) rect(x, y, w, h int, c color.RGBA) {
	r := image.Rect(x, y, x+w, y+h).Intersect(cv.img.Rect)
	for j := r.Min.Y; j < r.Max.Y; j++ {
		row := cv.img.Pix[cv.img.PixOffset(r.Min.X, j):cv.img.PixOffset(r.Max.X, j)]
		for i := 0; i < len(row); i += 4 {
			row[i], row[i+1], row[i+2], row[i+3] = c.R, c.G, c.B, c.A
		}
	}
}

func (cv *canvas) disk(cx, cy, r int, c color.RGBA) {
	for j := -r; j <= r; j++ {
		for i := -r; i <= r; i++ {
			if i*i+j*j <= r*r {
				cv.set(cx+i, cy+j, c)
			}
		}
	}
}

func (cv *canvas) ring(cx, cy, r, w int, c color.RGBA) {
	for j := -r - w; j <= r+w; j++ {
		for i := -r - w; i <= r+w; i++ {
			d := i*i + j*j
			if d >= r*r && d <= (r+w)*(r+w) {
				cv.set(cx+i, cy+j, c)
			}
		}
	}
}

// hex fills a pointy-topped hexagon of radius r.
func (cv *canvas) hex(cx, cy, r int, c color.RGBA) {
	hw := float64(r) * math.Sqrt(3) / 2
	for j := -r; j <= r; j++ {
		for i := -int(hw); i <= int(hw); i++ {
			ai, aj := math.Abs(float64(i)), math.Abs(float64(j))
			if ai <= hw && aj <= float64(r)-ai/math.Sqrt(3) {
				cv.set(cx+i, cy+j, c)
			}
		}
	}
}

// line draws a thick straight line.
func (cv *canvas) line(x0, y0, x1, y1, w int, c color.RGBA) {
	n := max(abs(x1-x0), abs(y1-y0))
	for k := 0; k <= n; k++ {
		x := x0 + (x1-x0)*k/max(n, 1)
		y := y0 + (y1-y0)*k/max(n, 1)
		cv.rect(x-w/2, y-w/2, w, w, c)
	}
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// text draws s centred on (cx, cy) with the 3x5 font scaled by scale.
func (cv *canvas) text(cx, cy, scale int, s string, c color.RGBA) {
	w := len(s)*4*scale - scale
	x := cx - w/2
	y := cy - 5*scale/2
	for _, ch := range s {
		i := strings.IndexRune(fontChars, ch)
		if i < 0 {
			x += 4 * scale
			continue
		}
		glyph := font3x5[15*i : 15*i+15]
		for row := 0; row < 5; row++ {
			for col := 0; col < 3; col++ {
				if glyph[3*row+col] == '#' {
					cv.rect(x+col*scale, y+row*scale, scale, scale, c)
				}
			}
		}
		x += 4 * scale
	}
}

// labels writes the coordinates around the board.
func (cv *canvas) labels(t *topology, flip bool) {
	if t.shape == shapeHex {
		for row := 0; row < 9; row++ {
			_, y := cv.hexXY(row*9, flip)
			cv.text(marginPx/2, y, 2, string(rune('A'+row)), colLabel)
		}
		for c := 0; c < 9; c++ {
			x, _ := cv.hexXY(c, flip)
			yb := cv.img.Rect.Dy() - marginPx/2
			cv.text(x, yb, 2, strconv.Itoa(c+1), colLabel)
		}
		return
	}
	for row := 0; row < t.height; row++ {
		_, y := cv.cellXY(0, row, flip)
		cv.text(marginPx/2, y, 2, strconv.Itoa(row+1), colLabel)
	}
	for col := 0; col < t.width; col++ {
		x, _ := cv.cellXY(col, 0, flip)
		cv.text(x, cv.img.Rect.Dy()-marginPx/2, 2, string(rune('A'+col)), colLabel)
	}
}

// fontChars lists the characters of font3x5, in order.
const fontChars = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"

// font3x5 is a tiny upper-case font: for each character of fontChars,
// five rows of three pixels ("#" set, "." clear), 15 bytes per character.
const font3x5 = "" +
	"####.##.##.####" + // 0
	".#.##..#..#.###" + // 1
	"###..#####..###" + // 2
	"###..####..####" + // 3
	"#.##.####..#..#" + // 4
	"####..###..####" + // 5
	"####..####.####" + // 6
	"###..#..#..#..#" + // 7
	"####.#####.####" + // 8
	"####.####..####" + // 9
	".#.#.#####.##.#" + // A
	"##.#.###.#.###." + // B
	"####..#..#..###" + // C
	"##.#.##.##.###." + // D
	"####..####..###" + // E
	"####..####..#.." + // F
	"####..#.##.####" + // G
	"#.##.#####.##.#" + // H
	"###.#..#..#.###" + // I
	"..#..#..##.####" + // J
	"#.##.###.#.##.#" + // K
	"#..#..#..#..###" + // L
	"#.########.##.#" + // M
	"##.#.##.##.##.#" + // N
	"####.##.##.####" + // O
	"####.#####..#.." + // P
	"####.##.####..#" + // Q
	"####.###.#.##.#" + // R
	"####..###..####" + // S
	"###.#..#..#..#." + // T
	"#.##.##.##.####" + // U
	"#.##.##.##.#.#." + // V
	"#.##.########.#" + // W
	"#.##.#.#.#.##.#" + // X
	"#.##.#.#..#..#." + // Y
	"###..#.#.#..###" // Z
