package devtools

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/color"
	"image/color/palette"
	"image/gif"
	"image/jpeg"
	"image/png"
	"testing"
	"time"
)

// Ensure the decoding cost of an image is read from its header: its pixels at the size of the
// decoded colour model, twice for an interlaced PNG, plus the coefficients of a progressive JPEG.
func TestDecodeCost(t *testing.T) {
	t.Parallel()
	encode := func(img image.Image, format string) []byte {
		t.Helper()
		var b bytes.Buffer
		var err error
		switch format {
		case "png":
			err = png.Encode(&b, img)
		case "jpeg":
			err = jpeg.Encode(&b, img, nil)
		case "gif":
			err = gif.Encode(&b, img, nil)
		}
		if err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	r := image.Rect(0, 0, 40, 30)
	rgba64 := image.NewRGBA64(r)
	rgba64.Set(1, 1, color.RGBA64{R: 1, A: 0x8000}) // not opaque, so the encoder keeps 16-bit alpha
	for _, c := range []struct {
		name   string
		img    image.Image
		format string
		want   int64
	}{
		{"paletted PNG", image.NewPaletted(r, palette.Plan9), "png", 1200},
		{"gray PNG", image.NewGray(r), "png", 1200},
		{"gray 16-bit PNG", image.NewGray16(r), "png", 2400},
		{"RGBA PNG", image.NewRGBA(r), "png", 4800},
		{"RGBA 16-bit PNG", rgba64, "png", 9600},
		{"JPEG", image.NewRGBA(r), "jpeg", 3600},
		{"gray JPEG", image.NewGray(r), "jpeg", 1200},
		{"GIF", image.NewPaletted(r, palette.Plan9), "gif", 1200},
	} {
		data := encode(c.img, c.format)
		cfg, format, err := image.DecodeConfig(bytes.NewReader(data))
		if err != nil || format != c.format {
			t.Fatalf("%s: %v, format %q", c.name, err, format)
		}
		if got := decodeCost(data, cfg, format); got != c.want {
			t.Errorf("%s: cost %d, want %d", c.name, got, c.want)
		}
	}

	// An interlaced PNG costs its passes too (the flag is the last byte of the header).
	data := encode(image.NewRGBA(r), "png")
	cfg, _, _ := image.DecodeConfig(bytes.NewReader(data))
	data[28] = 1
	if got := decodeCost(data, cfg, "png"); got != 9600 {
		t.Errorf("interlaced RGBA PNG: cost %d, want 9600", got)
	}
	// A progressive JPEG keeps four bytes of coefficients a sample of each of its components.
	jfif := []byte{0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x04, 'J', 'F'}
	progressive := append(append([]byte{}, jfif...), 0xFF, 0xC2, 0x00, 0x02)
	baseline := append(append([]byte{}, jfif...), 0xFF, 0xC0, 0x00, 0x02)
	if got := decodeCost(progressive, image.Config{ColorModel: color.YCbCrModel, Width: 40, Height: 30}, "jpeg"); got != 18000 {
		t.Errorf("progressive JPEG: cost %d, want 18000", got)
	}
	if got := decodeCost(baseline, image.Config{ColorModel: color.YCbCrModel, Width: 40, Height: 30}, "jpeg"); got != 3600 {
		t.Errorf("baseline JPEG: cost %d, want 3600", got)
	}
	for _, bad := range [][]byte{nil, {0xFF, 0xD8}, {0xFF, 0xD8, 0xFF, 0xE0, 0xFF, 0xFF}, {0xFF, 0xD8, 0x00, 0x00, 0x00}} {
		if jpegProgressive(bad) {
			t.Errorf("jpegProgressive(% x) = true", bad)
		}
	}
}

// Ensure images are decoded one at a time: a decode waits while another holds the slot, and
// gives up with its context.
func TestDecodeOneAtATime(t *testing.T) {
	t.Parallel()
	tools := New(Config{})
	var b bytes.Buffer
	png.Encode(&b, image.NewGray(image.Rect(0, 0, 2, 2)))
	tools.decoding <- struct{}{} // another decode runs
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := tools.decode(ctx, b.Bytes()); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a decode while another runs: %v, want it to wait until its context ends", err)
	}
	done := make(chan error, 1)
	go func() { done <- tools.decode(context.Background(), b.Bytes()) }()
	select {
	case err := <-done:
		t.Fatalf("a decode ran beside another: %v", err)
	case <-time.After(20 * time.Millisecond):
	}
	<-tools.decoding // the other decode ends
	if err := <-done; err != nil {
		t.Fatalf("the waiting decode: %v", err)
	}
	if len(tools.decoding) != 0 {
		t.Error("the slot was not given back")
	}
}
