package engine

import (
	"image/color"
	"math"
)

// A small vector rasteriser for the board pictures: shapes are signed
// distance functions (negative inside), so edges and outlines are
// anti-aliased exactly, without supersampling. Pieces are drawn once into
// sprites (see sprites.go); only lines are drawn per picture.

// pt is a point in a shape's own coordinates.
type pt struct{ x, y float64 }

// region is a region of the plane given by its signed distance function.
type region interface {
	dist(x, y float64) float64
}

// disc is a filled circle.
type disc struct {
	c pt
	r float64
}

func (d disc) dist(x, y float64) float64 { return math.Hypot(x-d.c.x, y-d.c.y) - d.r }

// poly is a filled polygon (even-odd rule).
type poly []pt

func (p poly) dist(x, y float64) float64 {
	d := math.Inf(1)
	inside := false
	for i := range p {
		a, b := p[i], p[(i+1)%len(p)]
		d = math.Min(d, segDist(x, y, a, b))
		if (a.y > y) != (b.y > y) && x < a.x+(y-a.y)*(b.x-a.x)/(b.y-a.y) {
			inside = !inside
		}
	}
	if inside {
		return -d
	}
	return d
}

// box is an axis-aligned rectangle with corners rounded by r.
type box struct {
	x0, y0, x1, y1, r float64
}

func (b box) dist(x, y float64) float64 {
	cx, cy := (b.x0+b.x1)/2, (b.y0+b.y1)/2
	hx, hy := (b.x1-b.x0)/2-b.r, (b.y1-b.y0)/2-b.r
	qx, qy := math.Abs(x-cx)-hx, math.Abs(y-cy)-hy
	out := math.Hypot(math.Max(qx, 0), math.Max(qy, 0))
	return out + math.Min(math.Max(qx, qy), 0) - b.r
}

// stroke is a thick polyline with round ends (w is its full width).
type stroke struct {
	pts []pt
	w   float64
}

func (s stroke) dist(x, y float64) float64 {
	d := math.Inf(1)
	for i := 0; i+1 < len(s.pts); i++ {
		d = math.Min(d, segDist(x, y, s.pts[i], s.pts[i+1]))
	}
	return d - s.w/2
}

// union is the union of shapes.
type union []region

func (u union) dist(x, y float64) float64 {
	d := math.Inf(1)
	for _, s := range u {
		d = math.Min(d, s.dist(x, y))
	}
	return d
}

// minus is a shape with holes cut out of it.
type minus struct {
	base region
	hole region
}

func (m minus) dist(x, y float64) float64 { return math.Max(m.base.dist(x, y), -m.hole.dist(x, y)) }

// segDist is the distance from (x, y) to the segment ab.
func segDist(x, y float64, a, b pt) float64 {
	dx, dy := b.x-a.x, b.y-a.y
	t := 0.0
	if l := dx*dx + dy*dy; l > 0 {
		t = math.Max(0, math.Min(1, ((x-a.x)*dx+(y-a.y)*dy)/l))
	}
	return math.Hypot(x-a.x-t*dx, y-a.y-t*dy)
}

// cover turns a signed distance in pixels into pixel coverage.
func cover(d float64) float64 { return math.Max(0, math.Min(1, 0.5-d)) }

// sprite is a small premultiplied RGBA picture drawn once and blended
// onto boards many times.
type sprite struct {
	w, h int
	pix  []uint8 // premultiplied RGBA, row by row
}

// layer is one coat of paint of a sprite: a shape (in unit coordinates,
// scaled to the sprite) filled with fill and outlined inside its edge with
// ink of width line pixels (0: no outline).
type layer struct {
	s         region
	fill, ink color.RGBA
	line      float64
}

// newSprite paints the layers, in order, on a transparent w x h sprite
// whose unit square maps to scale pixels, with (0, 0) at offset (ox, oy).
func newSprite(w, h int, scale, ox, oy float64, layers ...layer) *sprite {
	sp := &sprite{w: w, h: h, pix: make([]uint8, 4*w*h)}
	for j := 0; j < h; j++ {
		for i := 0; i < w; i++ {
			x, y := (float64(i)+0.5-ox)/scale, (float64(j)+0.5-oy)/scale
			o := 4 * (j*w + i)
			for _, l := range layers {
				d := l.s.dist(x, y) * scale
				a := cover(d)
				if a == 0 {
					continue
				}
				c := l.fill
				if l.line > 0 {
					c = mix(l.ink, l.fill, cover(d+l.line))
				}
				blendPremul(sp.pix[o:o+4], c, a)
			}
		}
	}
	return sp
}

// mix returns a*(1-t) + b*t per channel.
func mix(a, b color.RGBA, t float64) color.RGBA {
	f := func(x, y uint8) uint8 { return uint8(float64(x)*(1-t) + float64(y)*t + 0.5) }
	return color.RGBA{f(a.R, b.R), f(a.G, b.G), f(a.B, b.B), 255}
}

// blendPremul paints colour c with coverage a over the premultiplied
// pixel p.
func blendPremul(p []uint8, c color.RGBA, a float64) {
	k := 1 - a
	p[0] = uint8(float64(c.R)*a + float64(p[0])*k + 0.5)
	p[1] = uint8(float64(c.G)*a + float64(p[1])*k + 0.5)
	p[2] = uint8(float64(c.B)*a + float64(p[2])*k + 0.5)
	p[3] = uint8(255*a + float64(p[3])*k + 0.5)
}
