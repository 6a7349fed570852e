package engine

import (
	"bytes"
	"flag"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"testing"
)

// pictures writes the test pictures into a folder to look at:
// go test ./engine -run Picture -pictures /tmp/boards
var pictures = flag.String("pictures", "", "write the board pictures of the tests into this folder")

// pictureGames are the positions the picture tests draw: each game after
// a few moves, with a capture as the last move where the game allows.
var pictureGames = []struct {
	name, variant, pos string
	moves              []string
}{
	{"russian", "russian", "", []string{"g3-f4", "f6-g5", "e3-d4", "g5:e3:c5"}},
	{"russian-king", "russian", "W:WKc1,e3,g3:Bd4,f6,h8,Kb8", []string{"e3:c5"}},
	{"international", "international", "", []string{"32-28", "19-23", "28x19", "14x23"}},
	{"brazilian", "brazilian", "", []string{"c3-d4"}},
	{"turkish", "turkish", "", []string{"a3-a4"}},
	{"english", "english", "", []string{"11-15"}},
	{"chess", "chess", "", []string{"e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Bxc6"}},
	{"chase", "chase", "", []string{"A3>A4:2", "I1-H1"}},
	{"foxgeese13", "foxgeese13", "", []string{"c3-c4", "d4-d5"}},
	// An orthogonal capture, then a diagonal one: 28 takes 18 onto 8,
	// then 12 onto 17.
	{"frisian", "frisian", "W:W28,K46:B18,K3,12", []string{"28x17"}},
}

func TestPictures(t *testing.T) {
	for _, pg := range pictureGames {
		var opts []Option
		if pg.pos != "" {
			opts = append(opts, WithPosition(pg.pos))
		}
		g := mustGame(t, pg.variant, opts...)
		mustPlay(t, g, pg.moves...)
		for _, viewer := range []Player{First, Second} {
			img := g.render(ImageOptions{Viewer: viewer})
			if w := img.Bounds().Dx(); w < 640 {
				t.Errorf("%s: %d pixels wide, want at least 640", pg.name, w)
			}
			var buf bytes.Buffer
			if err := g.WritePNG(&buf, viewer); err != nil {
				t.Fatal(err)
			}
			back, err := png.Decode(bytes.NewReader(buf.Bytes()))
			if err != nil || back.Bounds() != img.Bounds() {
				t.Fatalf("%s: PNG does not decode: %v", pg.name, err)
			}
			if *pictures != "" {
				name := filepath.Join(*pictures, pg.name+[]string{"", "-flipped"}[viewer]+".png")
				if err := os.WriteFile(name, buf.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
}

// pixel returns the colour at (x, y) of a rendered picture.
func pixel(img *image.RGBA, x, y int) color.RGBA { return img.RGBAAt(x, y) }

// near reports whether two colours differ by at most 8 per channel.
func near(a, b color.RGBA) bool {
	d := func(x, y uint8) bool { return x-y < 9 || y-x < 9 }
	return d(a.R, b.R) && d(a.G, b.G) && d(a.B, b.B)
}

func TestPictureMarks(t *testing.T) {
	g := mustGame(t, "russian")
	lay := g.layout(false)
	corner := func(img *image.RGBA, name string) color.RGBA {
		x, y := lay.center(mustSquare(g.r.topo, name))
		return pixel(img, x-lay.cell/2+3, y-lay.cell/2+3)
	}
	centre := func(img *image.RGBA, name string) color.RGBA {
		x, y := lay.center(mustSquare(g.r.topo, name))
		return pixel(img, x, y)
	}
	img := g.render(ImageOptions{Selected: []string{"c3"}, Targets: []string{"b4", "d4"}})
	if c := corner(img, "c3"); !near(c, mix(colDark, colSelected, 0.6)) {
		t.Errorf("selected c3: %v", c)
	}
	if c := centre(img, "d4"); !near(c, mix(colDark, colTarget, 0.85)) {
		t.Errorf("target d4: %v", c)
	}
	if c := corner(img, "e3"); !near(c, colDark) {
		t.Errorf("plain e3: %v", c)
	}
	// White to move: the ring around White's disc in the bar.
	if c := pixel(img, sideW+18-17, barH/2); !near(c, colGold) {
		t.Errorf("no ring for White to move: %v", c)
	}
	// Black to move: the ring moves to Black's disc.
	mustPlay(t, g, "g3-f4", "f6-g5", "e3-d4")
	if c := pixel(g.render(ImageOptions{}), sideW+18+44-17, barH/2); !near(c, colGold) {
		t.Errorf("no ring for Black to move: %v", c)
	}
	// The last move and a capture.
	mustPlay(t, g, "g5:e3:c5")
	img = g.render(ImageOptions{})
	for _, sq := range []string{"g5", "c5"} {
		if c := corner(img, sq); !near(c, mix(colDark, colLast, 0.55)) {
			t.Errorf("last move square %s: %v", sq, c)
		}
	}
	if c := centre(img, "f4"); c.R < 150 || c.G > 120 {
		t.Errorf("the captured man on f4 is not crossed out: %v", c)
	}
	if c := pixel(img, sideW+18-17, barH/2); !near(c, colGold) {
		t.Errorf("no ring for White to move after Black's capture: %v", c)
	}
	// Seen by Black, a1 is at the top right.
	lay = g.layout(true)
	if x, y := lay.center(mustSquare(g.r.topo, "a1")); x < lay.w/2 || y > lay.h/2 {
		t.Errorf("a1 for Black at %d,%d", x, y)
	}
	if x, y := lay.center(mustSquare(g.r.topo, "h8")); x > lay.w/2 || y < lay.h/2 {
		t.Errorf("h8 for Black at %d,%d", x, y)
	}
	// The picture without the last move.
	img = g.render(ImageOptions{HideLastMove: true})
	lay = g.layout(false)
	if c := corner(img, "g5"); !near(c, colDark) {
		t.Errorf("hidden last move still marked: %v", c)
	}
}
