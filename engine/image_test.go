package engine

import (
	"bytes"
	"flag"
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
			img := g.Render(ImageOptions{Viewer: viewer})
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
