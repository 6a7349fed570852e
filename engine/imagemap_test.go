package engine

import (
	"image/color"
	"testing"
)

// Ensure the image map puts every square where the picture draws it: inside the picture, each
// centre nearer to its own square than to any other, and a piece drawn at the centre of a
// square that holds one (the picture is not the frame's colour there).
func TestImageMap(t *testing.T) {
	for _, v := range variants() {
		g, err := NewGame(v.Name)
		if err != nil {
			t.Fatal(err)
		}
		for _, viewer := range []Player{First, Second} {
			m := g.ImageMap(viewer)
			img := g.render(ImageOptions{Viewer: viewer, HideLastMove: true})
			if b := img.Bounds(); b.Dx() != m.Width || b.Dy() != m.Height {
				t.Fatalf("%s: map %dx%d, picture %v", v.Name, m.Width, m.Height, b)
			}
			if len(m.Squares) != g.r.topo.n() {
				t.Fatalf("%s: %d squares in the map, %d on the board", v.Name, len(m.Squares), g.r.topo.n())
			}
			seen := map[string]bool{}
			for i, s := range m.Squares {
				if s.X-s.Radius < 0 || s.Y-s.Radius < 0 || s.X+s.Radius > m.Width || s.Y+s.Radius > m.Height || s.Radius <= 0 {
					t.Errorf("%s viewer %d: square %s at (%d,%d) r %d outside %dx%d", v.Name, viewer, s.Name, s.X, s.Y, s.Radius, m.Width, m.Height)
				}
				if seen[s.Name] {
					t.Errorf("%s: square %s twice", v.Name, s.Name)
				}
				seen[s.Name] = true
				for _, o := range m.Squares[i+1:] {
					dx, dy := s.X-o.X, s.Y-o.Y
					if dx*dx+dy*dy < s.Radius*s.Radius {
						t.Errorf("%s: squares %s and %s overlap", v.Name, s.Name, o.Name)
					}
				}
				if g.cur().Board[i] != 0 {
					if c := img.RGBAAt(s.X, s.Y); c == (color.RGBA{}) {
						t.Errorf("%s: nothing drawn at %s", v.Name, s.Name)
					}
				}
			}
			// The viewer's side is at the bottom: the map flips with it.
			other := g.ImageMap(1 - viewer)
			if other.Squares[0].X == m.Squares[0].X && other.Squares[0].Y == m.Squares[0].Y && len(m.Squares) > 1 {
				t.Errorf("%s: the map does not turn with the viewer", v.Name)
			}
		}
	}
}
