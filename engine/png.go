package engine

import (
	"image"
	"image/color"
	"image/png"
	"io"
	"sync"
)

// PNG encoding of the pictures. A full-colour PNG of a board takes about
// 20 ms to compress; the same picture reduced to a 256-colour palette
// compresses in a few milliseconds and is a smaller file. The palette
// holds every flat colour the pictures use exactly, blends between the
// colours that meet at the edges of pieces and lines, and a coarse colour
// cube for anything else; a 32x32x32 table maps each colour to its
// nearest palette entry.

// quantizer maps RGB colours to palette indices.
type quantizer struct {
	pal color.Palette
	lut [1 << 15]uint8
}

// flatColours are the colours the pictures fill areas with.
func flatColours() []color.RGBA {
	cs := []color.RGBA{
		colFrame, colLabel, colLight, colDark, colLast, colPath, colCaptured, colSelected,
		colTarget, colNumber, colNumberBg, colCrossBg, colCrossInk, colHex, colHexInk,
		colChamber, colGold, colWhiteFill, colWhiteInk, colBlackFill, colBlackInk,
		colBlackLine, colCrown, colCrownInk, colRedDie, colRedDieInk, colFoxFill, colFoxInk,
		colGooseBeak, colWhiteGroov, colBlackGroov,
	}
	for _, sq := range []color.RGBA{colLight, colDark, colCrossInk, colHex, colChamber} {
		cs = append(cs, mix(sq, colSelected, 0.6), mix(sq, colLast, 0.55), mix(sq, colLast, 0.3))
	}
	return append(cs, chartColours()...)
}

// newQuantizer builds the palette and the table.
func newQuantizer() *quantizer {
	q := &quantizer{}
	seen := map[color.RGBA]bool{}
	add := func(c color.RGBA) {
		if !seen[c] && len(q.pal) < 256 {
			seen[c] = true
			q.pal = append(q.pal, c)
		}
	}
	flat := flatColours()
	for _, c := range flat {
		add(c)
	}
	edges := []color.RGBA{colLight, colDark, colWhiteFill, colWhiteInk, colBlackFill, colBlackInk,
		colPath, colCrown, colHex, colFrame, colRedDie}
	for i, a := range edges {
		for _, b := range edges[i+1:] {
			for _, t := range []float64{0.25, 0.5, 0.75} {
				add(mix(a, b, t))
			}
		}
	}
	for v := 0; v < 256; v += 17 {
		add(color.RGBA{uint8(v), uint8(v), uint8(v), 255})
	}
	for r := 0; r < 4; r++ {
		for g := 0; g < 4; g++ {
			for b := 0; b < 4; b++ {
				add(color.RGBA{uint8(r * 85), uint8(g * 85), uint8(b * 85), 255})
			}
		}
	}
	for key := range q.lut {
		c := color.RGBA{uint8(key>>10) << 3, uint8(key>>5&31) << 3, uint8(key&31) << 3, 255}
		q.lut[key] = nearest(q.pal, c.R|4, c.G|4, c.B|4)
	}
	// Flat colours map to themselves exactly.
	for _, c := range flat {
		q.lut[lutKey(c.R, c.G, c.B)] = nearest(q.pal, c.R, c.G, c.B)
	}
	return q
}

// lutKey is the table index of a colour: five bits per channel.
func lutKey(r, g, b uint8) int { return int(r>>3)<<10 | int(g>>3)<<5 | int(b>>3) }

// nearest returns the index of the palette colour closest to (r, g, b),
// weighting green most, as the eye does.
func nearest(pal color.Palette, r, g, b uint8) uint8 {
	best, bestD := 0, -1
	for i, pc := range pal {
		c := pc.(color.RGBA)
		dr, dg, db := int(c.R)-int(r), int(c.G)-int(g), int(c.B)-int(b)
		d := 3*dr*dr + 4*dg*dg + 2*db*db
		if bestD < 0 || d < bestD {
			best, bestD = i, d
		}
	}
	return uint8(best)
}

var paletteOnce = sync.OnceValue(newQuantizer)

// Recycled buffers of the PNG path: pictures, their paletted copies and
// the encoder's compression state. They hold no data between uses.
var (
	rgbaPool  sync.Pool // *image.RGBA
	palPool   sync.Pool // *image.Paletted
	pngBuffer encoderPool
)

// encoderPool recycles the PNG encoder's buffers.
type encoderPool struct{ p sync.Pool }

func (e *encoderPool) Get() *png.EncoderBuffer {
	b, _ := e.p.Get().(*png.EncoderBuffer)
	return b
}

func (e *encoderPool) Put(b *png.EncoderBuffer) { e.p.Put(b) }

// scratchRGBA returns a recycled picture of w x h pixels (contents
// undefined), or a new one.
func scratchRGBA(w, h int) *image.RGBA {
	if img, ok := rgbaPool.Get().(*image.RGBA); ok && img.Rect.Dx() == w && img.Rect.Dy() == h {
		return img
	}
	return image.NewRGBA(image.Rect(0, 0, w, h))
}

// encodePNG writes a picture made by render as a 256-colour PNG, with
// the fastest compression.
func encodePNG(w io.Writer, img *image.RGBA) error {
	q := paletteOnce()
	b := img.Rect
	out, ok := palPool.Get().(*image.Paletted)
	if !ok || out.Rect != b {
		out = image.NewPaletted(b, q.pal)
	}
	defer palPool.Put(out)
	for y := b.Min.Y; y < b.Max.Y; y++ {
		src := img.Pix[img.PixOffset(b.Min.X, y):img.PixOffset(b.Max.X, y)]
		dst := out.Pix[out.PixOffset(b.Min.X, y):out.PixOffset(b.Max.X, y)]
		for i := range dst {
			dst[i] = q.lut[lutKey(src[4*i], src[4*i+1], src[4*i+2])]
		}
	}
	enc := png.Encoder{CompressionLevel: png.BestSpeed, BufferPool: &pngBuffer}
	return enc.Encode(w, out)
}
