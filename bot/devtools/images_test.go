package devtools_test

import (
	"bytes"
	"context"
	"fmt"
	"image/color"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/questbot/questbot/bot/emulator/tgemu"
	"github.com/questbot/questbot/qmm"
)

// Ensure the images a quest names resolve to its owner's uploads first (the newest version,
// whatever the case of the name), never to another developer's image of the same name, and
// otherwise to the images the project ships.
func TestImages(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	const dev, other = 50, 51
	e.user(dev, "Dev", "dev", "en")
	e.user(other, "Olga", "olga", "en")
	e.hello(t, dev)
	e.hello(t, other)
	e.makeDeveloper(t, dev)
	e.makeDeveloper(t, other)
	red, green, blue, shipped := pngOf(t, 8, 8, color.RGBA{R: 255, A: 255}), pngOf(t, 8, 8, color.RGBA{G: 255, A: 255}),
		pngOf(t, 8, 8, color.RGBA{B: 255, A: 255}), pngOf(t, 3, 3, color.Black)

	id := number(t, e.put(t, dev, "probe.qmm", probe(t, "pictured"), "is uploaded").Text)
	otherID := number(t, e.put(t, other, "probe.qmm", probe(t, "pictured too"), "is uploaded").Text)
	e.put(t, dev, "map.png", red, "Image «map.png» is uploaded (version 1)")
	e.put(t, other, "MAP.png", blue, "Image «MAP.png» is uploaded (version 1)")

	// photo plays the quest to its first location and returns the photo shown there.
	photo := func(user int64, quest int64) []byte {
		t.Helper()
		n := e.LastID(user)
		e.Send(t, user, fmt.Sprintf("/load %d", quest))
		task := e.screen(t, user, n)
		n = e.LastID(user)
		e.Press(t, user, task, "I agree")
		m := e.WaitMessage(t, user, n, "a photo", func(m tgemu.Message) bool { return m.Photo != "" })
		data, _, _, ok := e.Emu.FileData(m.Photo)
		if !ok {
			t.Fatal("the photo has no data")
		}
		return data
	}
	if got := photo(dev, id); !bytes.Equal(got, red) {
		t.Error("the quest did not show its owner's image")
	}
	if got := photo(other, otherID); !bytes.Equal(got, blue) {
		t.Error("the other developer's quest did not show her own image")
	}
	e.put(t, dev, "Map.PNG", green, "Image «Map.PNG» is uploaded (version 2)")
	e.put(t, dev, "map.png", green, "is the same file as version 2")
	if got := photo(dev, id); !bytes.Equal(got, green) {
		t.Error("the quest did not show the newest version of the image")
	}

	// A developer without an image of that name gets the one the project ships.
	if err := os.WriteFile(filepath.Join(e.root, "map.png"), shipped, 0o644); err != nil {
		t.Fatal(err)
	}
	const third = 52
	e.user(third, "Tim", "tim", "en")
	e.hello(t, third)
	e.makeDeveloper(t, third)
	thirdID := number(t, e.put(t, third, "probe.qmm", probe(t, "plain"), "is uploaded").Text)
	if got := photo(third, thirdID); !bytes.Equal(got, shipped) {
		t.Error("the quest did not fall back to the shipped image")
	}

	// What a failed upload left on disk is swept once an hour old; the files in use stay.
	orphan := filepath.Join(e.root, "dev", "images", sha([]byte("orphan"))+".png")
	os.WriteFile(orphan, []byte("orphan"), 0o644)
	old := time.Now().Add(-2 * time.Hour)
	os.Chtimes(orphan, old, old)
	fresh := filepath.Join(e.root, "dev", "images", sha([]byte("fresh"))+".png")
	os.WriteFile(fresh, []byte("fresh"), 0o644)
	n, err := e.tools.Sweep(context.Background(), e.tr)
	if err != nil || n != 1 {
		t.Errorf("sweep removed %d files (%v), want 1", n, err)
	}
	if _, err := os.Stat(orphan); !os.IsNotExist(err) {
		t.Error("the orphan is still there")
	}
	if _, err := os.Stat(fresh); err != nil {
		t.Error("a fresh file was swept")
	}
	if _, err := os.Stat(filepath.Join(e.root, "dev", "images", sha(green)+".png")); err != nil {
		t.Error("a file in use was swept")
	}
	e.WaitIdle(t)
}

// Ensure an image is judged by the memory its decoding takes, from its header, before a pixel is
// decoded: a PNG of a few hundred kilobytes holding 4096×4096 pixels of 16-bit colour (128 MB
// decoded) is refused, and a small one of 16-bit colour is taken.
func TestImageDecodingMemory(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	const dev = 53
	e.user(dev, "Dev", "dev", "en")
	e.hello(t, dev)
	e.makeDeveloper(t, dev)
	deep := deepPNG(t, 4096, 4096)
	if len(deep) > 1<<20 {
		t.Fatalf("the deep PNG takes %d bytes", len(deep))
	}
	m := e.put(t, dev, "deep.png", deep, "is not an image I can show")
	if !strings.Contains(m.Text, "128.0 MB of memory, more than the 64.0 MB") {
		t.Errorf("the refusal: %q", m.Text)
	}
	if n := e.QueryInt(t, `SELECT count(*) FROM dev_upload`); n != 0 {
		t.Errorf("%d uploads stored", n)
	}
	e.put(t, dev, "small.png", deepPNG(t, 256, 256), "Image «small.png» is uploaded")
}

// Ensure an uploaded quest that names its picture as Space Rangers' quests do (no extension,
// another case) is warned of the picture while it is missing, naming the place, and shows the
// picture once it is uploaded as a file name with .png.
func TestImagesNamedAsTheReference(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	const dev = 54
	e.user(dev, "Dev", "dev", "en")
	e.hello(t, dev)
	e.makeDeveloper(t, dev)
	q, err := qmm.ReadJSON([]byte(strings.Replace(fmt.Sprintf(probeSource, "art"), `"img": "map.png"`, `"img": "Map"`, 1)))
	if err != nil {
		t.Fatal(err)
	}
	var file bytes.Buffer
	if err := qmm.Encode(&file, q); err != nil {
		t.Fatal(err)
	}
	src := file.Bytes()
	m := e.put(t, dev, "art.qmm", src, "is uploaded")
	if !strings.Contains(m.Text, "images found nowhere (1): Map (location 1)") {
		t.Errorf("the upload's answer does not warn of the missing picture: %q", m.Text)
	}
	id := number(t, m.Text)
	red := pngOf(t, 8, 8, color.RGBA{R: 255, A: 255})
	e.put(t, dev, "MAP.png", red, "Image «MAP.png» is uploaded (version 1)")
	m = e.put(t, dev, "art.qmm", src, "is the same file")
	if strings.Contains(m.Text, "images found nowhere") {
		t.Errorf("the picture uploaded is still reported missing: %q", m.Text)
	}
	n := e.LastID(dev)
	e.Send(t, dev, fmt.Sprintf("/load %d", id))
	task := e.screen(t, dev, n)
	n = e.LastID(dev)
	e.Press(t, dev, task, "I agree")
	photo := e.WaitMessage(t, dev, n, "a photo", func(m tgemu.Message) bool { return m.Photo != "" })
	if data, _, _, ok := e.Emu.FileData(photo.Photo); !ok || !bytes.Equal(data, red) {
		t.Error("the quest did not show the uploaded picture")
	}
	e.WaitIdle(t)
}
