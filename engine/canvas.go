package engine

import (
	"image"
	"image/color"
	"math"
	"sync"
)

// canvas is an opaque RGBA picture with the few drawing operations the
// boards need. Shapes drawn per picture are anti-aliased through their
// signed distance (see raster.go), evaluated only inside their bounds.
type canvas struct {
	img *image.RGBA
}

// rect fills a rectangle.
func (cv *canvas) rect(x, y, w, h int, c color.RGBA) {
	r := image.Rect(x, y, x+w, y+h).Intersect(cv.img.Rect)
	if r.Empty() {
		return
	}
	row := cv.img.Pix[cv.img.PixOffset(r.Min.X, r.Min.Y):cv.img.PixOffset(r.Max.X, r.Min.Y)]
	for i := 0; i < len(row); i += 4 {
		row[i], row[i+1], row[i+2], row[i+3] = c.R, c.G, c.B, 255
	}
	for j := r.Min.Y + 1; j < r.Max.Y; j++ {
		copy(cv.img.Pix[cv.img.PixOffset(r.Min.X, j):], row)
	}
}

// blend paints colour c with coverage a (0..1) over pixel (x, y), which
// the caller has clipped to the picture (whose origin is 0, 0).
func (cv *canvas) blend(x, y int, c color.RGBA, a float64) {
	o := y*cv.img.Stride + 4*x
	p := cv.img.Pix[o : o+3 : o+3]
	k := 1 - a
	p[0] = uint8(float64(c.R)*a + float64(p[0])*k + 0.5)
	p[1] = uint8(float64(c.G)*a + float64(p[1])*k + 0.5)
	p[2] = uint8(float64(c.B)*a + float64(p[2])*k + 0.5)
}

// fillRegion paints region s (in pixel coordinates, within the bounds
// x0, y0, x1, y1) with colour c at opacity alpha.
func (cv *canvas) fillRegion(s region, x0, y0, x1, y1 float64, c color.RGBA, alpha float64) {
	r := image.Rect(int(x0)-1, int(y0)-1, int(x1)+2, int(y1)+2).Intersect(cv.img.Rect)
	for j := r.Min.Y; j < r.Max.Y; j++ {
		for i := r.Min.X; i < r.Max.X; i++ {
			if a := cover(s.dist(float64(i)+0.5, float64(j)+0.5)); a > 0 {
				cv.blend(i, j, c, a*alpha)
			}
		}
	}
}

// disc paints a filled circle.
func (cv *canvas) disc(x, y, r float64, c color.RGBA, alpha float64) {
	b := image.Rect(int(x-r)-1, int(y-r)-1, int(x+r)+2, int(y+r)+2).Intersect(cv.img.Rect)
	for j := b.Min.Y; j < b.Max.Y; j++ {
		dy := float64(j) + 0.5 - y
		for i := b.Min.X; i < b.Max.X; i++ {
			dx := float64(i) + 0.5 - x
			if a := cover(math.Sqrt(dx*dx+dy*dy) - r); a > 0 {
				cv.blend(i, j, c, a*alpha)
			}
		}
	}
}

// roundRect paints a rectangle with rounded corners.
func (cv *canvas) roundRect(x, y, w, h, r float64, c color.RGBA, alpha float64) {
	cv.fillRegion(box{x, y, x + w, y + h, r}, x, y, x+w, y+h, c, alpha)
}

// line paints a polyline of width w with round joints. Each pixel is
// painted once, with the coverage of the nearest segment, and only the
// pixels near a segment are examined (row by row, around the point where
// the segment crosses the row).
func (cv *canvas) line(pts []pt, w float64, c color.RGBA, alpha float64) {
	if len(pts) < 2 {
		return
	}
	y0, y1 := pts[0].y, pts[0].y
	for _, p := range pts {
		y0, y1 = math.Min(y0, p.y), math.Max(y1, p.y)
	}
	reach := w/2 + 1
	rows := image.Rect(0, int(y0-reach)-1, 1, int(y1+reach)+2).Intersect(image.Rect(0, 0, 1, cv.img.Rect.Dy()))
	for j := rows.Min.Y; j < rows.Max.Y; j++ {
		fy := float64(j) + 0.5
		lo, hi := math.Inf(1), math.Inf(-1)
		for k := 0; k+1 < len(pts); k++ {
			l, h, ok := segmentSpan(pts[k], pts[k+1], fy, reach)
			if ok {
				lo, hi = math.Min(lo, l), math.Max(hi, h)
			}
		}
		if lo > hi {
			continue
		}
		for i := max(int(lo)-1, 0); i <= min(int(hi)+1, cv.img.Rect.Dx()-1); i++ {
			d := math.Inf(1)
			for k := 0; k+1 < len(pts); k++ {
				d = math.Min(d, segDist(float64(i)+0.5, fy, pts[k], pts[k+1]))
			}
			if a := cover(d - w/2); a > 0 {
				cv.blend(i, j, c, a*alpha)
			}
		}
	}
}

// segmentSpan returns the x interval of row y within distance reach of
// the segment ab (conservatively), or false if the row is out of reach.
func segmentSpan(a, b pt, y, reach float64) (float64, float64, bool) {
	if y < math.Min(a.y, b.y)-reach || y > math.Max(a.y, b.y)+reach {
		return 0, 0, false
	}
	lo, hi := math.Min(a.x, b.x)-reach, math.Max(a.x, b.x)+reach
	dy := b.y - a.y
	if math.Abs(dy) < 1e-9 {
		return lo, hi, true
	}
	// Around the crossing of the segment's line with the row.
	dx := b.x - a.x
	x := a.x + (y-a.y)*dx/dy
	half := reach * math.Hypot(dx, dy) / math.Abs(dy)
	return math.Max(lo, x-half), math.Min(hi, x+half), true
}

// blit paints sprite sp centred on (x, y).
func (cv *canvas) blit(sp *sprite, x, y int) {
	x0, y0 := x-sp.w/2, y-sp.h/2
	for j := 0; j < sp.h; j++ {
		py := y0 + j
		if py < 0 || py >= cv.img.Rect.Dy() {
			continue
		}
		src := sp.pix[4*j*sp.w : 4*(j+1)*sp.w]
		for i := 0; i < sp.w; i++ {
			a := uint32(src[4*i+3])
			px := x0 + i
			if a == 0 || px < 0 || px >= cv.img.Rect.Dx() {
				continue
			}
			d := cv.img.Pix[cv.img.PixOffset(px, py):]
			if a == 255 {
				d[0], d[1], d[2] = src[4*i], src[4*i+1], src[4*i+2]
				continue
			}
			k := 255 - a
			d[0] = uint8(uint32(src[4*i]) + (uint32(d[0])*k+127)/255)
			d[1] = uint8(uint32(src[4*i+1]) + (uint32(d[1])*k+127)/255)
			d[2] = uint8(uint32(src[4*i+2]) + (uint32(d[2])*k+127)/255)
		}
	}
}

// text writes s centred on (cx, cy) with the 5x7 font at the given scale.
func (cv *canvas) text(cx, cy, scale int, s string, c color.RGBA) {
	w := 6*scale*len(s) - scale
	cv.textAt(cx-w/2, cy-7*scale/2, scale, s, c)
}

// textAt writes s with its top left corner at (x, y).
func (cv *canvas) textAt(x, y, scale int, s string, c color.RGBA) {
	for _, ch := range s {
		g := glyph5x7(ch)
		for row := 0; row < 7 && g != ""; row++ {
			for col := 0; col < 5; col++ {
				if g[5*row+col] == '#' {
					cv.rect(x+col*scale, y+row*scale, scale, scale, c)
				}
			}
		}
		x += 6 * scale
	}
}

// hexMask is the coverage of a Chase hex (pointy top) and of its inside
// less the outline, computed once.
type hexMask struct {
	w, h    int
	cov, in []float32
	ink     color.RGBA
	line    float64
}

var hexMaskOnce = sync.OnceValue(func() *hexMask {
	r := float64(hexWidth) / math.Sqrt(3)
	hm := &hexMask{w: hexWidth, h: int(2*r) + 1, ink: colHexInk, line: 1.6}
	hm.cov = make([]float32, hm.w*hm.h)
	hm.in = make([]float32, hm.w*hm.h)
	var hexagon poly
	for k := 0; k < 6; k++ {
		a := math.Pi/6 + float64(k)*math.Pi/3
		hexagon = append(hexagon, pt{float64(hm.w)/2 + (r-1)*math.Cos(a), float64(hm.h)/2 + (r-1)*math.Sin(a)})
	}
	for j := 0; j < hm.h; j++ {
		for i := 0; i < hm.w; i++ {
			d := hexagon.dist(float64(i)+0.5, float64(j)+0.5)
			hm.cov[j*hm.w+i] = float32(cover(d))
			hm.in[j*hm.w+i] = float32(cover(d + hm.line))
		}
	}
	return hm
})

// hexSprite returns a hex cell filled with c and outlined.
func hexSprite(c color.RGBA) *sprite {
	hm := hexMaskOnce()
	sp := &sprite{w: hm.w, h: hm.h, pix: make([]uint8, 4*hm.w*hm.h)}
	for i := range hm.cov {
		if a := float64(hm.cov[i]); a > 0 {
			blendPremul(sp.pix[4*i:4*i+4], mix(hm.ink, c, float64(hm.in[i])), a)
		}
	}
	return sp
}
