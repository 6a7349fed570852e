package engine

// ImageMap locates the squares of a board in the picture WriteRenderPNG draws, so that a page showing
// the picture can tell which square a click or a tap falls on, and mark squares over it.
type ImageMap struct {
	// Width and Height are the picture's size in pixels.
	Width, Height int
	// Squares lists every square of the board, in board order.
	Squares []SquareSpot
}

// SquareSpot is where one square is in a picture: its centre, and the radius of the circle
// around the centre that lies inside the square (half a cell; for a hexagonal cell, its inner
// radius).
type SquareSpot struct {
	Name   string
	X, Y   int
	Radius int
}

// ImageMap returns where the squares are in the picture of g as viewer sees it
// (ImageOptions.Viewer): the same geometry whatever the position and the marks.
func (g *Game) ImageMap(viewer Player) ImageMap {
	lay := g.layout(viewer == Second)
	t := g.r.topo
	m := ImageMap{Width: lay.w, Height: lay.h, Squares: make([]SquareSpot, t.n())}
	radius := lay.cell / 2
	for sq := range m.Squares {
		x, y := lay.center(sq)
		m.Squares[sq] = SquareSpot{Name: t.names[sq], X: x, Y: y, Radius: radius}
	}
	return m
}
