package web

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/questbot/questbot/engine"
)

// Ensure the pictures' cache holds at most its bytes, the least recently used going first, and
// encodes a picture asked for by many at once once; a file that cannot be read is an error that
// is not kept.
func TestPictureCacheBound(t *testing.T) {
	dir := t.TempDir()
	var paths []string
	size := 0
	for i := range 4 {
		img := image.NewRGBA(image.Rect(0, 0, 40+i, 40))
		for x := range 40 + i {
			img.Set(x, x%40, color.RGBA{R: uint8(60 * i), A: 255})
		}
		var buf bytes.Buffer
		if err := png.Encode(&buf, img); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, fmt.Sprintf("%d.png", i))
		if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
		size = max(size, buf.Len())
	}
	// Room for two PNGs.
	c := newPictureCache(2*size + size/2)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if _, err := c.get(paths[0], false); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if n := c.encodes.Load(); n != 1 {
		t.Fatalf("%d encodes of one picture asked for at once, want 1", n)
	}
	for _, p := range paths[1:] {
		if _, err := c.get(p, false); err != nil {
			t.Fatal(err)
		}
	}
	if c.bytes > c.max || len(c.entries) != 2 || c.order.Len() != 2 {
		t.Fatalf("the cache holds %d bytes of %d in %d entries", c.bytes, c.max, len(c.entries))
	}
	before := c.encodes.Load()
	if _, err := c.get(paths[3], false); err != nil || c.encodes.Load() != before {
		t.Fatalf("the newest picture was encoded again (%v)", err)
	}
	if _, err := c.get(paths[0], false); err != nil || c.encodes.Load() != before+1 {
		t.Fatalf("the oldest picture was not encoded again (%v)", err)
	}
	missing := filepath.Join(dir, "gone.png")
	if _, err := c.get(missing, true); err == nil {
		t.Fatal("a missing file gave a picture")
	}
	if _, ok := c.entries[pictureKey{path: missing, jpeg: true}]; ok {
		t.Fatal("the error is kept")
	}
}

// BenchmarkPictureJPEG compares a chess board's JPEG encoded from its PNG (a miss of the
// pictures' cache) with the same picture served from the cache (a hit).
func BenchmarkPictureJPEG(b *testing.B) {
	g, err := engine.NewGame("chess")
	if err != nil {
		b.Fatal(err)
	}
	var buf bytes.Buffer
	if err := g.WriteRenderPNG(&buf, engine.ImageOptions{}); err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(b.TempDir(), "board.png")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		b.Fatal(err)
	}
	b.Run("encode", func(b *testing.B) {
		for b.Loop() {
			if _, err := encodePicture(path, true); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("cached", func(b *testing.B) {
		c := newPictureCache(PictureCacheBytes)
		for b.Loop() {
			if _, err := c.get(path, true); err != nil {
				b.Fatal(err)
			}
		}
	})
}
