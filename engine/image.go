package engine

import (
	"image"
	"image/color"
	"io"
	"math"
	"strconv"
)

// The board picture for chat, drawn with the standard library only: a
// board at least 640 pixels wide, turned to the player who looks at it,
// with coordinates (and the square numbers of numbered boards), real
// piece figures, the last move marked (its squares, the path of a capture
// and the pieces it took) and, above the board, who is to move and the
// last move's notation.

// Sizes of the pictures, in pixels.
const (
	cell8     = 80 // a square of the 8x8 boards
	cell10    = 64 // a square of the International board
	cellCross = 88 // a point spacing of the Fox and Geese cross
	hexWidth  = 70 // a Chase hex, flat side to flat side
	hexPieces = 60 // the sprites of Chase's dice
	sideW     = 34 // the margins with coordinates
	barH      = 56 // the bar above the board
)

// Board colours.
var (
	colFrame    = color.RGBA{46, 38, 33, 255}
	colLabel    = color.RGBA{226, 214, 196, 255}
	colLight    = color.RGBA{238, 216, 182, 255}
	colDark     = color.RGBA{176, 132, 96, 255}
	colLast     = color.RGBA{246, 226, 84, 255} // tint of the last move's squares
	colPath     = color.RGBA{226, 84, 32, 255}
	colCaptured = color.RGBA{214, 30, 30, 255}
	colSelected = color.RGBA{116, 192, 88, 255}
	colTarget   = color.RGBA{36, 120, 48, 255}
	colNumber   = color.RGBA{255, 244, 224, 255}
	colNumberBg = color.RGBA{60, 40, 28, 255}
	colCrossBg  = color.RGBA{232, 212, 176, 255}
	colCrossInk = color.RGBA{120, 88, 60, 255}
	colHex      = color.RGBA{234, 228, 214, 255}
	colHexInk   = color.RGBA{150, 138, 120, 255}
	colChamber  = color.RGBA{150, 162, 210, 255}
	colGold     = color.RGBA{240, 196, 60, 255}
)

// ImageOptions chooses what a picture shows besides the position.
type ImageOptions struct {
	// Viewer is the side whose pieces are at the bottom.
	Viewer Player
	// Selected lists squares to mark as chosen (the squares tapped so far
	// in button entry) and Targets the squares that may be tapped next
	// (StepInfo.Next); unknown names are ignored.
	Selected, Targets []string
	// HideLastMove leaves the last move unmarked.
	HideLastMove bool
}

// WritePNG encodes the current position as seen by viewer (the viewer's side at the bottom),
// with the last move marked, as a PNG (see encodePNG).
func (g *Game) WritePNG(w io.Writer, viewer Player) error {
	return g.WriteRenderPNG(w, ImageOptions{Viewer: viewer})
}

// WriteRenderPNG draws the position with opt and encodes it as a PNG (see encodePNG). It draws
// into a recycled picture, so that making many pictures does not churn
// the garbage collector.
func (g *Game) WriteRenderPNG(w io.Writer, opt ImageOptions) error {
	lay := g.layout(opt.Viewer == Second)
	img := scratchRGBA(lay.w, lay.h)
	defer rgbaPool.Put(img)
	g.renderInto(img, lay, opt)
	return encodePNG(w, img)
}

// render draws the current position with the given options. The last
// move comes from the game's history, so a game rebuilt by replaying its
// moves shows it; a game started from a position string has none until a
// move is played.
func (g *Game) render(opt ImageOptions) *image.RGBA {
	lay := g.layout(opt.Viewer == Second)
	img := image.NewRGBA(image.Rect(0, 0, lay.w, lay.h))
	g.renderInto(img, lay, opt)
	return img
}

// renderInto draws the picture into img, which has the layout's size.
func (g *Game) renderInto(img *image.RGBA, lay layout, opt ImageOptions) {
	cv := &canvas{img: img}
	cv.rect(0, 0, lay.w, lay.h, colFrame)
	marks := g.marks(opt)
	switch g.r.topo.shape {
	case shapeRect:
		g.drawRect(cv, lay, marks)
	case shapeCross:
		g.drawCross(cv, lay, marks)
	case shapeHex:
		g.drawHex(cv, lay, marks)
	}
	if g.r.topo.hasOffBoard() {
		g.drawOffBoard(cv, lay, marks)
	}
	g.drawLastMove(cv, lay, marks)
	s := g.cur()
	for sq := 0; sq < g.r.topo.n(); sq++ {
		if pc := s.Board[sq]; pc != 0 && lay.sprites.pieces[pc] != nil {
			x, y := lay.center(sq)
			cv.blit(lay.sprites.pieces[pc], x, y)
		}
	}
	if g.r.topo.numbered {
		g.drawNumbers(cv, lay)
	}
	for sq := range marks.target {
		x, y := lay.center(sq)
		cv.disc(float64(x), float64(y), float64(lay.cell)*0.11, colTarget, 0.85)
	}
	g.drawBar(cv, lay)
}

// marks are the squares a picture marks.
type marks struct {
	last, path, captured, selected, target map[int]bool
	line                                   []int // the path of the last move
}

// marks collects the squares of the last move and of the options.
func (g *Game) marks(opt ImageOptions) marks {
	mk := marks{last: map[int]bool{}, path: map[int]bool{}, captured: map[int]bool{},
		selected: map[int]bool{}, target: map[int]bool{}}
	for _, name := range opt.Selected {
		if sq, ok := g.r.topo.square(name); ok {
			mk.selected[sq] = true
		}
	}
	for _, name := range opt.Targets {
		if sq, ok := g.r.topo.square(name); ok {
			mk.target[sq] = true
		}
	}
	if opt.HideLastMove || len(g.moves) == 0 {
		return mk
	}
	m := &g.moves[len(g.moves)-1].m
	for i := 0; i < int(m.npath); i++ {
		mk.line = append(mk.line, int(m.path[i]))
		mk.path[int(m.path[i])] = true
	}
	mk.last[m.from()] = true
	mk.last[m.to()] = true
	prev := &g.hist[len(g.hist)-2]
	mover := prev.Turn
	for i := 0; i < int(m.nchg); i++ {
		sq, pc := int(m.sq[i]), m.pc[i]
		// A piece taken where the mover now stands (chess, Chase) is not
		// crossed out: the mover's piece shows the capture.
		if before := prev.Board[sq]; before != 0 && before.Owner() != mover && pc == 0 {
			mk.captured[sq] = true
		}
	}
	return mk
}

// layout places a board in its picture.
type layout struct {
	w, h    int
	x0, y0  int // the top left corner of the board
	cell    int
	flip    bool
	sprites *spriteSet
	t       *topology
}

// layout computes the picture's geometry for g's board.
func (g *Game) layout(flip bool) layout {
	t := g.r.topo
	l := layout{flip: flip, t: t, x0: sideW, y0: barH}
	switch {
	case t.shape == shapeHex:
		l.cell = hexWidth
		l.sprites = diceSprites()
		l.w = 2*sideW + hexWidth*t.width/2 + hexWidth/2
		l.h = barH + sideW + int(float64(hexWidth)/math.Sqrt(3)*(1.5*float64(t.height-1)+2))
	case t.shape == shapeCross:
		l.cell = cellCross
		l.sprites = foxSprites()
	case g.r.look != nil:
		l.cell, l.sprites = g.r.look()
	case t.width == 12:
		l.cell = cell12
		l.sprites = draughtsSprites12()
	case t.width == 10:
		l.cell = cell10
		l.sprites = draughtsSprites10()
	case g.r.name == "chess":
		l.cell = cell8
		l.sprites = chessSprites()
	default:
		l.cell = cell8
		l.sprites = draughtsSprites8()
	}
	if t.shape != shapeHex {
		l.w = 2*sideW + t.width*l.cell
		l.h = barH + sideW + t.height*l.cell
		if t.hasOffBoard() {
			l.h += l.cell // the strip of the points off the board (Othello's pass)
		}
	}
	return l
}

// center returns the pixel centre of square sq.
func (l *layout) center(sq int) (int, int) {
	t := l.t
	col, row := int(t.col[sq]), int(t.row[sq])
	if t.shape == shapeHex {
		half := col // hex columns are counted in half cells
		if l.flip {
			row, half = t.height-1-row, t.width-1-half
		}
		r := float64(hexWidth) / math.Sqrt(3)
		x := float64(l.x0) + float64(hexWidth)/2 + float64(half)*float64(hexWidth)/2
		y := float64(l.y0) + r + float64(t.height-1-row)*1.5*r
		return int(x), int(y)
	}
	if row < 0 {
		return l.offBoardCenter()
	}
	if l.flip {
		col, row = t.width-1-col, t.height-1-row
	}
	return l.x0 + col*l.cell + l.cell/2, l.y0 + (t.height-1-row)*l.cell + l.cell/2
}

// squareTint returns a square's colour with the marks applied.
func squareTint(base color.RGBA, sq int, mk marks) color.RGBA {
	switch {
	case mk.selected[sq]:
		return mix(base, colSelected, 0.6)
	case mk.last[sq]:
		return mix(base, colLast, 0.55)
	case mk.path[sq]:
		return mix(base, colLast, 0.3)
	}
	return base
}

// drawRect draws a board of square cells with its coordinates.
func (g *Game) drawRect(cv *canvas, l layout, mk marks) {
	t := l.t
	for row := 0; row < t.height; row++ {
		for col := 0; col < t.width; col++ {
			c := colLight
			if ((col+row)%2 == 0) != t.lightA1 {
				c = colDark
			}
			sq := t.at(col, row)
			if sq != none {
				c = squareTint(c, sq, mk)
			}
			dc, dr := col, row
			if l.flip {
				dc, dr = t.width-1-col, t.height-1-row
			}
			cv.rect(l.x0+dc*l.cell, l.y0+(t.height-1-dr)*l.cell, l.cell, l.cell, c)
		}
	}
	if t.numbered {
		return // the squares carry their numbers
	}
	for i := 0; i < t.height; i++ {
		row := i
		if l.flip {
			row = t.height - 1 - i
		}
		y := l.y0 + (t.height-1-i)*l.cell + l.cell/2
		cv.text(sideW/2, y, 2, strconv.Itoa(row+1), colLabel)
		cv.text(l.w-sideW/2, y, 2, strconv.Itoa(row+1), colLabel)
	}
	for i := 0; i < t.width; i++ {
		col := i
		if l.flip {
			col = t.width - 1 - i
		}
		cv.text(l.x0+i*l.cell+l.cell/2, l.y0+t.height*l.cell+sideW/2, 2, string(rune('a'+col)), colLabel)
	}
}

// drawNumbers writes each square's number in its top left corner, over a
// small dark plate so that it stays readable over a piece.
func (g *Game) drawNumbers(cv *canvas, l layout) {
	for sq := 0; sq < l.t.n(); sq++ {
		x, y := l.center(sq)
		name := l.t.names[sq]
		w := 12*len(name) - 2
		x0, y0 := x-l.cell/2+2, y-l.cell/2+2
		cv.roundRect(float64(x0), float64(y0), float64(w+6), 18, 4, colNumberBg, 0.55)
		cv.textAt(x0+3, y0+2, 2, name, colNumber)
	}
}

// drawCross draws the Fox and Geese board: lines between the points.
func (g *Game) drawCross(cv *canvas, l layout, mk marks) {
	t := l.t
	cv.rect(l.x0, l.y0, t.width*l.cell, t.height*l.cell, colCrossBg)
	for sq := 0; sq < t.n(); sq++ {
		x, y := l.center(sq)
		for d := 0; d < t.nd; d++ {
			q := t.step(sq, d)
			if q <= sq {
				continue
			}
			x2, y2 := l.center(q)
			switch {
			case x == x2: // straight lines are plain rectangles
				cv.rect(x-2, min(y, y2), 4, abs(y2-y), colCrossInk)
			case y == y2:
				cv.rect(min(x, x2), y-2, abs(x2-x), 4, colCrossInk)
			default:
				cv.line([]pt{{float64(x), float64(y)}, {float64(x2), float64(y2)}}, 4, colCrossInk, 1)
			}
		}
	}
	for sq := 0; sq < t.n(); sq++ {
		x, y := l.center(sq)
		c := squareTint(colCrossInk, sq, mk)
		r := 9.0
		if c != colCrossInk {
			r = 30
		}
		cv.disc(float64(x), float64(y), r, c, 1)
	}
	for i := 0; i < t.width; i++ {
		col, row := i, i
		if l.flip {
			col, row = t.width-1-i, t.height-1-i
		}
		cv.text(l.x0+i*l.cell+l.cell/2, l.h-sideW/2, 2, string(rune('a'+col)), colLabel)
		cv.text(sideW/2, l.y0+(t.height-1-i)*l.cell+l.cell/2, 2, strconv.Itoa(row+1), colLabel)
	}
}

// drawHex draws Chase's board of hexes, the Chamber in blue.
func (g *Game) drawHex(cv *canvas, l layout, mk marks) {
	t := l.t
	cells := map[color.RGBA]*sprite{} // one hex sprite per colour in use
	for sq := 0; sq < t.n(); sq++ {
		x, y := l.center(sq)
		c := colHex
		if sq == 4*9+4 {
			c = colChamber
		}
		c = squareTint(c, sq, mk)
		if cells[c] == nil {
			cells[c] = hexSprite(c)
		}
		cv.blit(cells[c], x, y)
	}
	for row := 0; row < t.height; row++ {
		_, y := l.center(row * 9)
		cv.text(sideW/2, y, 2, string(rune('A'+row)), colLabel)
	}
	for c := 0; c < 9; c++ {
		x, _ := l.center(c)
		if l.flip {
			x, _ = l.center(8*9 + c)
		}
		cv.text(x, l.h-sideW/2+2, 2, strconv.Itoa(c+1), colLabel)
	}
}

// drawLastMove draws the path of the last move and crosses out the
// pieces it took.
func (g *Game) drawLastMove(cv *canvas, l layout, mk marks) {
	if len(mk.line) >= 2 {
		pts := make([]pt, len(mk.line))
		for i, sq := range mk.line {
			x, y := l.center(sq)
			pts[i] = pt{float64(x), float64(y)}
		}
		w := float64(l.cell) * 0.09
		cv.line(pts, w, colPath, 0.7)
		end := pts[len(pts)-1]
		cv.disc(end.x, end.y, w*1.2, colPath, 0.7)
	}
	for sq := range mk.captured {
		x, y := l.center(sq)
		fx, fy, a := float64(x), float64(y), float64(l.cell)*0.2
		cv.line([]pt{{fx - a, fy - a}, {fx + a, fy + a}}, float64(l.cell)*0.08, colCaptured, 0.9)
		cv.line([]pt{{fx - a, fy + a}, {fx + a, fy - a}}, float64(l.cell)*0.08, colCaptured, 0.9)
	}
}

// drawBar draws the bar above the board: a disc for each side, the side
// to move larger and ringed in gold (or the result once the game is
// over), and the last move with its number.
func (g *Game) drawBar(cv *canvas, l layout) {
	y := float64(barH) / 2
	st := g.Status()
	for i, p := range []Player{First, Second} {
		x := float64(sideW) + 18 + float64(i)*44
		r := 11.0
		if st.Result == Ongoing && g.ToMove() == p {
			r = 15
			cv.disc(x, y, r+4, colGold, 1)
		}
		fill, ink := sideColours(g.r.name, p)
		cv.disc(x, y, r, ink, 1)
		cv.disc(x, y, r-2, fill, 1)
	}
	x := sideW + 110
	switch {
	case st.Result == Win && st.Winner == First:
		cv.textAt(x, int(y)-7, 2, "1-0", colGold)
	case st.Result == Win:
		cv.textAt(x, int(y)-7, 2, "0-1", colGold)
	case st.Result == Draw:
		cv.textAt(x, int(y)-7, 2, "1/2", colGold)
	}
	if text := g.barMove(); text != "" {
		cv.textAt(l.w-sideW-12*len(text), int(y)-7, 2, text, colLabel)
	}
}

// barMove is the last move as the bar writes it: its number and the move as the move list
// writes it (LastDisplay: "O-O", not the engine's "e1g1"), cut to 40 characters.
func (g *Game) barMove() string {
	n := len(g.moves)
	if n == 0 {
		return ""
	}
	text := strconv.Itoa((n+1)/2) + "."
	if n%2 == 0 {
		text += ".."
	}
	text += " " + g.LastDisplay()
	if len(text) > 40 {
		text = text[:37] + "..."
	}
	return text
}

// sideColours returns the fill and outline of a side's marker.
func sideColours(game string, p Player) (color.RGBA, color.RGBA) {
	switch {
	case game == "chase" && p == First:
		return colRedDie, colRedDieInk
	case game[:3] == "fox" && p == Second:
		return colFoxFill, colFoxInk
	case p == Second:
		return colBlackFill, colLabel
	}
	return colWhiteFill, colWhiteInk
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
