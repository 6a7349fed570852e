package tgemu

import (
	"image"
	"image/color"
	"image/color/palette"
	"math/rand/v2"
	"testing"
)

// genericScale is scale through the color models alone, the rule the direct reads must agree
// with.
func genericScale(img image.Image, w, h int) *image.RGBA {
	b := img.Bounds()
	out := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			out.Set(x, y, img.At(b.Min.X+x*b.Dx()/w, b.Min.Y+y*b.Dy()/h))
		}
	}
	return out
}

// Ensure the small copies of a paletted, an RGBA, an NRGBA (half transparent pixels included)
// and a gray image, off the origin, are the pixels the color models give.
func TestScaleReadsPixelsAsTheColorModels(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	bounds := image.Rect(3, 5, 3+123, 5+77)
	pal := image.NewPaletted(bounds, palette.Plan9[:100])
	rgba := image.NewRGBA(bounds)
	nrgba := image.NewNRGBA(bounds)
	gray := image.NewGray(bounds)
	for y := bounds.Min.Y; y < bounds.Max.Y; y++ {
		for x := bounds.Min.X; x < bounds.Max.X; x++ {
			pal.SetColorIndex(x, y, uint8(r.IntN(100)))
			a := uint8(r.IntN(256))
			rgba.Set(x, y, color.NRGBA{uint8(r.IntN(256)), uint8(r.IntN(256)), uint8(r.IntN(256)), a})
			nrgba.SetNRGBA(x, y, color.NRGBA{uint8(r.IntN(256)), uint8(r.IntN(256)), uint8(r.IntN(256)), a})
			gray.SetGray(x, y, color.Gray{uint8(r.IntN(256))})
		}
	}
	for name, img := range map[string]image.Image{"paletted": pal, "rgba": rgba, "nrgba": nrgba, "gray": gray} {
		for _, size := range [][2]int{{90, 56}, {40, 25}, {123, 77}, {1, 1}} {
			got := scale(img, size[0], size[1]).(*image.RGBA)
			want := genericScale(img, size[0], size[1])
			for i := range want.Pix {
				if got.Pix[i] != want.Pix[i] {
					px := i / 4
					t.Fatalf("%s at %d×%d: pixel (%d, %d) is %v, want %v", name, size[0], size[1],
						px%size[0], px/size[0], got.Pix[i/4*4:i/4*4+4], want.Pix[i/4*4:i/4*4+4])
				}
			}
		}
	}
}
