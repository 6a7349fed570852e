package boards

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/questbot/questbot/engine"
	"github.com/questbot/questbot/sessions/board"
)

// Ensure a picture is written once under a name made from what it shows, found again for the
// same position and view, written again near its removal, and removed by the sweep when old.
func TestPictures(t *testing.T) {
	t.Parallel()
	p := &pictures{dir: t.TempDir(), keep: 3 * 24 * time.Hour, now: time.Now}
	g, err := engine.NewGame("russian")
	if err != nil {
		t.Fatal(err)
	}
	white, drawn, err := p.path(g, engine.ImageOptions{Viewer: engine.First})
	if err != nil || !drawn {
		t.Fatalf("first picture: %v, drawn %v", err, drawn)
	}
	again, drawn, _ := p.path(g, engine.ImageOptions{Viewer: engine.First})
	if again != white || drawn {
		t.Errorf("the same picture: %s (drawn %v), want %s", again, drawn, white)
	}
	black, _, _ := p.path(g, engine.ImageOptions{Viewer: engine.Second})
	marked, _, _ := p.path(g, engine.ImageOptions{Viewer: engine.First, Selected: []string{"c3"}, Targets: []string{"b4", "d4"}})
	if black == white || marked == white || marked == black {
		t.Errorf("pictures of other views share a name: %s %s %s", white, black, marked)
	}
	if _, err := g.Play("c3-d4"); err != nil {
		t.Fatal(err)
	}
	next, _, _ := p.path(g, engine.ImageOptions{Viewer: engine.First})
	if next == white {
		t.Error("a new position has the old picture")
	}
	data, err := os.ReadFile(next)
	if err != nil || len(data) < 8 || string(data[1:4]) != "PNG" {
		t.Fatalf("the picture is no PNG: %v", err)
	}
	// Old pictures: one near its removal is written again when needed; the sweep removes those
	// past it, and stray temporary files.
	old := time.Now().Add(-(p.keep - 12*time.Hour))
	os.Chtimes(white, old, old)
	if _, drawn, _ := p.path(g0(t), engine.ImageOptions{Viewer: engine.First}); !drawn {
		t.Error("a picture a day from removal was not written again")
	}
	older := time.Now().Add(-p.keep - time.Hour)
	os.Chtimes(black, older, older)
	tmp := filepath.Join(filepath.Dir(black), "x"+tempExt)
	os.WriteFile(tmp, []byte("half"), 0o644)
	os.Chtimes(tmp, older, older)
	if n, err := p.sweep(); err != nil || n != 2 {
		t.Errorf("sweep removed %d, %v; want 2", n, err)
	}
	for _, f := range []string{white, marked, next} {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("%s was removed: %v", f, err)
		}
	}
}

// g0 is a Russian game at the start.
func g0(t *testing.T) *engine.Game {
	t.Helper()
	g, err := engine.NewGame("russian")
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// BenchmarkPicture measures drawing and writing the picture of a new position (a chess game's
// positions, played at random), as a move does for each player.
func BenchmarkPicture(b *testing.B) {
	p := &pictures{dir: b.TempDir(), keep: DefaultKeepPictures, now: time.Now}
	g, err := engine.NewGame("chess", engine.WithSeed(3))
	if err != nil {
		b.Fatal(err)
	}
	if _, _, err := p.path(g, engine.ImageOptions{}); err != nil { // the reference picture
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ResetTimer()
	for i := range b.N {
		legal := g.LegalMoves()
		if len(legal) == 0 {
			if g, err = engine.NewGame("chess", engine.WithSeed(uint64(i))); err != nil {
				b.Fatal(err)
			}
			continue
		}
		mv, _, _ := g.BestMove(ctx, engine.Limits{Nodes: 1})
		g.Apply(mv)
		if _, _, err := p.path(g, engine.ImageOptions{Viewer: engine.Player(i % 2)}); err != nil {
			b.Fatal(err)
		}
	}
}

// Ensure a picture described for the sender (PictureToSend) is named as the picture drawn at
// once is, is not drawn until the drawer draws it (DrawPicture, counted as drawn at send), is
// the same picture byte for byte, and is not drawn again while its file is there; and that a
// description the drawer cannot replay is an error, not a picture.
func TestPictureToSend(t *testing.T) {
	t.Parallel()
	b := New(Config{Dir: t.TempDir()})
	now := time.Now()
	bd, _, err := board.Open(board.Spec{Service: 1, Creator: 1, Variant: "chess960", Seed: 7,
		Options: board.Options{PlyLimit: 80}}, now)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bd.Join(2, now); err != nil {
		t.Fatal(err)
	}
	g, err := bd.Game()
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		mv := g.LegalMoves()[0].String()
		if _, err := bd.Move(bd.Seats[bd.ToMove].User, mv, bd.Ply(), now); err != nil {
			t.Fatal(err)
		}
		if g, err = bd.Game(); err != nil {
			t.Fatal(err)
		}
	}
	opt := engine.ImageOptions{Viewer: engine.Second, Selected: []string{"a7"}, Targets: []string{"a6"}}
	path, key, err := b.PictureToSend(bd, g, opt)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("the picture to send was drawn before it was sent: %v", err)
	}
	before := PicturesDrawn(DrawnAtSend)
	if err := DrawPicture(context.Background(), key, path); err != nil {
		t.Fatal(err)
	}
	sent, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if n := PicturesDrawn(DrawnAtSend) - before; n < 1 {
		t.Errorf("the drawing at send is not counted")
	}
	// The same picture drawn at once, in another folder: the same name, the same bytes.
	other := New(Config{Dir: t.TempDir()})
	now2, err := other.picture(context.Background(), g, opt)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(now2) != filepath.Base(path) {
		t.Errorf("the picture to send is named %s, drawn at once %s", filepath.Base(path), filepath.Base(now2))
	}
	if data, _ := os.ReadFile(now2); !bytes.Equal(data, sent) {
		t.Error("the picture drawn at send differs from the one drawn at once")
	}
	st, _ := os.Stat(path)
	if err := DrawPicture(context.Background(), key, path); err != nil {
		t.Fatal(err)
	}
	if again, _ := os.Stat(path); !again.ModTime().Equal(st.ModTime()) {
		t.Error("a picture already there was drawn again")
	}
	for _, key := range []string{"{", `{"variant":"chess","moves":["e2e5"]}`, `{"variant":"nope"}`, `{"variant":"chess","viewer":3}`} {
		if err := DrawPicture(context.Background(), key, filepath.Join(t.TempDir(), "x.png")); err == nil {
			t.Errorf("the description %s was drawn", key)
		}
	}
}
