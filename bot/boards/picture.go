package boards

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

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
}

// The digest of the engine's drawing, made once per process (drawing).
var (
	drawingOnce   sync.Once
	drawingDigest string
	drawingErr    error
)

// drawing returns a digest of how the engine draws: the picture of a reference position, drawn
// once per process (New asks for it, so that no request pays for it).
func drawing() (string, error) {
	drawingOnce.Do(func() {
		g, err := engine.NewGame("chess")
		if err == nil {
			_, err = g.Play("e2e4")
		}
		if err != nil {
			drawingErr = fmt.Errorf("boards: reference picture: %w", err)
			return
		}
		var buf bytes.Buffer
		opt := engine.ImageOptions{Viewer: engine.Second, Selected: []string{"d7"}, Targets: []string{"d6", "d5"}}
		if err := g.WriteRenderPNG(&buf, opt); err != nil {
			drawingErr = fmt.Errorf("boards: reference picture: %w", err)
			return
		}
		sum := sha256.Sum256(buf.Bytes())
		drawingDigest = hex.EncodeToString(sum[:8])
	})
	return drawingDigest, drawingErr
}

// name returns the file of the picture of g's current position drawn with opt, without
// drawing it.
func (p *pictures) name(g *engine.Game, opt engine.ImageOptions) (string, error) {
	d, err := drawing()
	if err != nil {
		return "", err
	}
	last := ""
	if h := g.History(); len(h) > 0 {
		last = h[len(h)-1].String()
	}
	key := []string{d, g.Variant(), g.Position(), last, fmt.Sprint(opt.Viewer), strings.Join(opt.Selected, ","),
		strings.Join(opt.Targets, ","), fmt.Sprint(opt.HideLastMove)}
	sum := sha256.Sum256([]byte(strings.Join(key, "\x00")))
	name := hex.EncodeToString(sum[:16])
	return filepath.Join(p.dir, name[:2], name+pictureExt), nil
}

// path returns the file of the picture of g's current position drawn with opt (the viewer, the
// squares of a move being entered), drawing and writing it first when there is none (or only one
// near its removal). rendered reports whether this call drew it (another drawing the same
// picture at the same time is waited for: see drawOnce).
func (p *pictures) path(g *engine.Game, opt engine.ImageOptions) (path string, rendered bool, err error) {
	if path, err = p.name(g, opt); err != nil {
		return "", false, err
	}
	rendered, err = drawOnce(path, p.keep-24*time.Hour, p.now, func() ([]byte, error) {
		var buf bytes.Buffer
		if err := g.WriteRenderPNG(&buf, opt); err != nil {
			return nil, fmt.Errorf("boards: draw: %w", err)
		}
		return buf.Bytes(), nil
	})
	if err != nil {
		return "", false, err
	}
	return path, rendered, nil
}

// drawings are the pictures being drawn in this process, by file: a picture asked for again
// while it is drawn (both players' boards, the web's picture and the sender's) is drawn once,
// the others waiting for it.
var drawings = struct {
	sync.Mutex
	m map[string]*sync.WaitGroup
}{m: map[string]*sync.WaitGroup{}}

// drawOnce makes sure path holds a picture written less than fresh ago (by now), drawing it
// with draw and writing it when it does not; drawn reports whether this call drew it. Only one
// caller of the process draws a file at a time: the others wait and find it written.
func drawOnce(path string, fresh time.Duration, now func() time.Time, draw func() ([]byte, error)) (drawn bool, err error) {
	for {
		if st, err := os.Stat(path); err == nil && now().Sub(st.ModTime()) < fresh {
			return false, nil
		}
		drawings.Lock()
		wg := drawings.m[path]
		if wg == nil {
			wg = &sync.WaitGroup{}
			wg.Add(1)
			drawings.m[path] = wg
			drawings.Unlock()
			break
		}
		drawings.Unlock()
		wg.Wait() // then look again: written, or failed (and this caller tries)
	}
	defer func() {
		drawings.Lock()
		wg := drawings.m[path]
		delete(drawings.m, path)
		drawings.Unlock()
		wg.Done()
	}()
	data, err := draw()
	if err != nil {
		return false, err
	}
	if err := writeFile(path, data); err != nil {
		return false, err
	}
	return true, nil
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

// Where a picture is drawn: the values of the label "where" of the metric of the pictures
// drawn (Metrics.Drawn). The web server marks its requests (DrawnIn), so that a picture drawn
// inside one is seen: a web move must draw none (the Telegram boards it changes are drawn as
// they are sent).
const (
	// DrawnAtSend: by the outbox's sender, as the request that shows it goes (DrawPicture).
	DrawnAtSend = "send"
	// DrawnWebPicture: to answer a picture address of the web game server.
	DrawnWebPicture = "web_picture"
	// DrawnWebRequest: inside any other request of the web game server (a move's, an offer's).
	DrawnWebRequest = "web_request"
	// DrawnElsewhere: in the handling of an update or in a job.
	DrawnElsewhere = "update"
)

// drawnKey is the context key of DrawnIn.
type drawnKey struct{}

// DrawnIn returns ctx marked as the context of a picture drawn where (DrawnWebPicture,
// DrawnWebRequest, ...): the pictures drawn under it are counted there (Metrics.Drawn).
func DrawnIn(ctx context.Context, where string) context.Context {
	return context.WithValue(ctx, drawnKey{}, where)
}

// drawnWhere is where a picture drawn under ctx is counted.
func drawnWhere(ctx context.Context) string {
	if w, ok := ctx.Value(drawnKey{}).(string); ok {
		return w
	}
	return DrawnElsewhere
}

// picturesDrawn counts the board pictures drawn by the process, by where (Metrics.Drawn): one
// counter for every service of the process, since the sender draws for all of them
// (DrawPicture).
var picturesDrawn = prometheus.NewCounterVec(prometheus.CounterOpts{
	Name: "questbot_board_pictures_drawn_total",
	Help: "Board pictures drawn, by where: as their Telegram request is sent (send), for a picture address of the web (web_picture), inside another web request (web_request), in an update or a job (update).",
}, []string{"where"})

// drawnCount mirrors picturesDrawn, for PicturesDrawn.
var drawnCount sync.Map // of string to *atomic.Int64

// renderSeconds is Metrics.Render: one histogram for every service of the process, as
// picturesDrawn.
var renderSeconds = prometheus.NewHistogram(prometheus.HistogramOpts{
	Name:    "questbot_board_render_seconds",
	Help:    "Time to draw a board picture and write it to its file.",
	Buckets: []float64{.001, .002, .005, .01, .02, .05, .1, .2},
})

// countDrawn counts a picture drawn where, and the time it took since start.
func countDrawn(where string, start time.Time) {
	renderSeconds.Observe(time.Since(start).Seconds())
	picturesDrawn.WithLabelValues(where).Inc()
	n, _ := drawnCount.LoadOrStore(where, new(atomic.Int64))
	n.(*atomic.Int64).Add(1)
}

// PicturesDrawn returns how many board pictures the process has drawn where (DrawnAtSend,
// DrawnWebRequest, ...), as the metric counts them: for the load checks and the tests.
func PicturesDrawn(where string) int64 {
	if n, ok := drawnCount.Load(where); ok {
		return n.(*atomic.Int64).Load()
	}
	return 0
}

// picture returns the file of a game's picture as opt asks for it (the viewer's side at the
// bottom, the squares of a move being entered), drawn when there is none, counting the drawing
// where ctx says (DrawnIn).
func (b *Boards) picture(ctx context.Context, g *engine.Game, opt engine.ImageOptions) (string, error) {
	start := time.Now()
	path, rendered, err := b.pics.path(g, opt)
	if err != nil {
		return "", err
	}
	if rendered {
		countDrawn(drawnWhere(ctx), start)
	}
	return path, nil
}

// PictureFile returns the file of a board's picture as a seat sees it (the file the web
// answers) and its version (PictureVersion), drawn when there is none.
func (b *Boards) PictureFile(ctx context.Context, bd *board.Board, seat int) (path, version string, err error) {
	g, err := bd.Game()
	if err != nil {
		return "", "", err
	}
	path, err = b.picture(ctx, g, engine.ImageOptions{Viewer: engine.Player(seat)})
	return path, PictureVersion(g), err
}

// PictureFileAt is PictureFile of the position after ply (0: the start), as the web's review of
// a game's moves shows it: the board's own game at its last ply, a replay before it. A ply the
// board has not reached is board.ErrInvalid.
func (b *Boards) PictureFileAt(ctx context.Context, bd *board.Board, seat, ply int) (path, version string, err error) {
	if ply == bd.Ply() {
		return b.PictureFile(ctx, bd, seat)
	}
	g, err := bd.GameAt(ply)
	if err != nil {
		return "", "", err
	}
	path, err = b.picture(ctx, g, engine.ImageOptions{Viewer: engine.Player(seat)})
	return path, PictureVersion(g), err
}

// # Pictures drawn as they are sent
//
// A board's picture in a Telegram chat is not drawn by the change that shows it (a move, made
// on the web, by the bot or in the chat) but by the outbox's sender, when the request that shows
// it goes (bot.Request.Draw): PictureToSend names the file the picture will be and describes
// it, without drawing it, and DrawPicture, the drawer the Telegram view registers under
// PictureDrawer, draws it from that description. A request superseded by a newer state of the
// board before it goes is never drawn, so a game played fast draws only what its players get
// to see; and a picture already there (the same position seen again, the other request of the
// same view) is not drawn again.
//
// The description is the game itself (the variant, its options, seed and start, the moves up
// to the position shown) and the view (the side at the bottom, the squares marked): the sender
// replays it, so that it draws what the request was queued for even when the board has moved
// on since, with no read of the database.

// PictureDrawer is the name of the board pictures' drawer (bot.RegisterDrawer, DrawPicture).
const PictureDrawer = "board-picture"

// pictureKey is the description of a picture to draw (bot.Drawing.Key), as JSON.
type pictureKey struct {
	Board    int64    `json:"board"`
	Variant  string   `json:"variant"`
	Options  string   `json:"options,omitempty"`
	Seed     uint64   `json:"seed"`
	Start    string   `json:"start"`
	Moves    []string `json:"moves,omitempty"`
	Viewer   int      `json:"viewer"`
	Selected []string `json:"selected,omitempty"`
	Targets  []string `json:"targets,omitempty"`
}

// PictureToSend returns the file of the picture of bd's game g as opt asks for it, and the key
// DrawPicture draws it from (the view queues it as the request's drawing, bot.Request.Draw,
// under PictureDrawer), without drawing it. g is bd's game (bd.Game).
func (b *Boards) PictureToSend(bd *board.Board, g *engine.Game, opt engine.ImageOptions) (path, key string, err error) {
	path, err = b.pics.name(g, opt)
	if err != nil {
		return "", "", err
	}
	k := pictureKey{Board: bd.ID, Variant: bd.Variant, Options: bd.Options.String(), Seed: bd.Seed, Start: bd.Start,
		Viewer: int(opt.Viewer), Selected: opt.Selected, Targets: opt.Targets}
	for _, m := range g.History() {
		k.Moves = append(k.Moves, m.String())
	}
	raw, err := json.Marshal(k)
	if err != nil {
		return "", "", fmt.Errorf("boards: picture of board %d: %w", bd.ID, err)
	}
	return path, string(raw), nil
}

// sendFresh is how recently a picture must have been written for the sender to send it as it
// is: one older may be near its removal (sweep), and is written again.
const sendFresh = 24 * time.Hour

// DrawPicture is the drawer of PictureDrawer (bot.Drawer): it draws the picture key describes
// (PictureToSend) and writes it at path, unless path holds it already.
func DrawPicture(ctx context.Context, key, path string) error {
	var k pictureKey
	if err := json.Unmarshal([]byte(key), &k); err != nil {
		return fmt.Errorf("boards: picture to draw: %w", err)
	}
	start := time.Now()
	drawn, err := drawOnce(path, sendFresh, time.Now, func() ([]byte, error) {
		g, err := k.game()
		if err != nil {
			return nil, err
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		var buf bytes.Buffer
		opt := engine.ImageOptions{Viewer: engine.Player(k.Viewer), Selected: k.Selected, Targets: k.Targets}
		if err := g.WriteRenderPNG(&buf, opt); err != nil {
			return nil, fmt.Errorf("boards: draw board %d: %w", k.Board, err)
		}
		return buf.Bytes(), nil
	})
	if err != nil {
		return err
	}
	if drawn {
		countDrawn(DrawnAtSend, start)
	}
	return nil
}

// game replays the game k describes.
func (k pictureKey) game() (*engine.Game, error) {
	if k.Viewer < 0 || k.Viewer > 1 {
		return nil, fmt.Errorf("boards: picture of board %d: no seat %d", k.Board, k.Viewer)
	}
	opts, err := board.ParseOptions(k.Options)
	if err != nil {
		return nil, fmt.Errorf("boards: picture of board %d: %w", k.Board, err)
	}
	bd := &board.Board{ID: k.Board, Variant: k.Variant, Options: opts, Seed: k.Seed, Start: k.Start, Position: k.Start}
	g, err := bd.Rebuild()
	if err != nil {
		return nil, fmt.Errorf("boards: picture: %w", err)
	}
	for i, m := range k.Moves {
		if _, err := g.Play(m); err != nil {
			return nil, fmt.Errorf("boards: picture of board %d: move %d: %w", k.Board, i+1, err)
		}
	}
	return g, nil
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
