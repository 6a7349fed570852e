package boards

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/questbot/questbot/bot/internal/atomicfile"
	"github.com/questbot/questbot/engine"
	"github.com/questbot/questbot/sessions/board"
)

// # Pictures
//
// A board is shown as a PNG the engine draws (engine.Game.WriteRenderPNG): the position as one
// side sees it, with the last move marked and, while a move is entered with the buttons, the
// squares tapped and those that may be tapped next. The outbox sends photos from files
// (bot.Request.FilePath) and remembers the file_id Telegram gives each path, so the pictures are
// files named after what they show: the game, the position, the last move, the side at the
// bottom, the marked squares, and a digest of the engine's drawing (of a reference picture, made
// once per process), so that a change to the drawing never serves an old picture. The same picture is written once and sent by its
// file_id from then on: the start position of every game, a position reached again.
//
// Files are written beside their final name and renamed into place, so the sender never reads
// half a picture. Sweep removes the pictures not written for KeepPictures; a picture found
// older than KeepPictures minus a day when it is needed is written again (which also makes the
// sender upload it afresh), so a picture a pending message names is never a day from removal.

// pictureExt is the extension of the pictures, and tempExt that of a picture being written.
const (
	pictureExt = ".png"
	tempExt    = ".tmp"
)

// pictures is the folder of board pictures.
type pictures struct {
	dir  string
	keep time.Duration
	now  func() time.Time

	once   sync.Once
	digest string // of the engine's drawing
	err    error
}

// drawing returns a digest of how the engine draws: the picture of a reference position.
func (p *pictures) drawing() (string, error) {
	p.once.Do(func() {
		g, err := engine.NewGame("chess")
		if err == nil {
			_, err = g.Play("e2e4")
		}
		if err != nil {
			p.err = fmt.Errorf("boards: reference picture: %w", err)
			return
		}
		var buf bytes.Buffer
		opt := engine.ImageOptions{Viewer: engine.Second, Selected: []string{"d7"}, Targets: []string{"d6", "d5"}}
		if err := g.WriteRenderPNG(&buf, opt); err != nil {
			p.err = fmt.Errorf("boards: reference picture: %w", err)
			return
		}
		sum := sha256.Sum256(buf.Bytes())
		p.digest = hex.EncodeToString(sum[:8])
	})
	return p.digest, p.err
}

// path returns the file of the picture of g's current position drawn with opt (the viewer, the
// squares of a move being entered), drawing and writing it first when there is none (or only one
// near its removal). rendered reports whether it was drawn now.
func (p *pictures) path(g *engine.Game, opt engine.ImageOptions) (path string, rendered bool, err error) {
	d, err := p.drawing()
	if err != nil {
		return "", false, err
	}
	last := ""
	if h := g.History(); len(h) > 0 {
		last = h[len(h)-1].String()
	}
	key := []string{d, g.Variant(), g.Position(), last, fmt.Sprint(opt.Viewer), strings.Join(opt.Selected, ","),
		strings.Join(opt.Targets, ","), fmt.Sprint(opt.HideLastMove)}
	sum := sha256.Sum256([]byte(strings.Join(key, "\x00")))
	name := hex.EncodeToString(sum[:16])
	path = filepath.Join(p.dir, name[:2], name+pictureExt)
	if st, err := os.Stat(path); err == nil && p.now().Sub(st.ModTime()) < p.keep-24*time.Hour {
		return path, false, nil
	}
	var buf bytes.Buffer
	if err := g.WriteRenderPNG(&buf, opt); err != nil {
		return "", false, fmt.Errorf("boards: draw: %w", err)
	}
	if err := writeFile(path, buf.Bytes()); err != nil {
		return "", false, err
	}
	return path, true, nil
}

// writeFile writes data to path whole or not at all (package atomicfile); a leftover of a
// crash ends in tempExt, which the sweep removes.
func writeFile(path string, data []byte) error {
	if err := atomicfile.Write(path, data, "*"+tempExt); err != nil {
		return fmt.Errorf("boards: pictures: %w", err)
	}
	return nil
}

// sweep removes the pictures last written more than keep ago, and what writers that died left
// (temporary files over an hour old); it returns how many files it removed.
func (p *pictures) sweep() (int, error) {
	now := p.now()
	removed := 0
	err := filepath.WalkDir(p.dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if os.IsNotExist(err) {
				return nil
			}
			return err
		}
		if d.IsDir() {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return nil // removed meanwhile
		}
		age := now.Sub(info.ModTime())
		old := strings.HasSuffix(path, pictureExt) && age > p.keep || strings.HasSuffix(path, tempExt) && age > time.Hour
		if old && os.Remove(path) == nil {
			removed++
		}
		return nil
	})
	if err != nil {
		return removed, fmt.Errorf("boards: sweep pictures: %w", err)
	}
	return removed, nil
}

// Picture returns the file of a game's picture as opt asks for it (the viewer's side at the
// bottom, the squares of a move being entered), drawn when there is none, timing the drawing.
func (b *Boards) Picture(g *engine.Game, opt engine.ImageOptions) (string, error) {
	start := time.Now()
	path, rendered, err := b.pics.path(g, opt)
	if err != nil {
		return "", err
	}
	if rendered {
		b.metrics.Render.Observe(time.Since(start).Seconds())
	}
	return path, nil
}

// PictureFile returns the file of a board's picture as a seat sees it (the file Telegram is
// sent) and its version (PictureVersion).
func (b *Boards) PictureFile(bd *board.Board, seat int) (path, version string, err error) {
	g, err := bd.Game()
	if err != nil {
		return "", "", err
	}
	path, err = b.Picture(g, engine.ImageOptions{Viewer: engine.Player(seat)})
	return path, PictureVersion(g), err
}

// PictureVersion names what a board's picture shows (the position and the last move), so that
// its address changes with it and a picture may be cached for good.
func PictureVersion(g *engine.Game) string {
	last := ""
	if h := g.History(); len(h) > 0 {
		last = h[len(h)-1].String()
	}
	sum := sha256.Sum256([]byte(g.Variant() + "\x00" + g.Position() + "\x00" + last))
	return hex.EncodeToString(sum[:6])
}
