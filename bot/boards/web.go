package boards

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"html"
	"regexp"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/questbot/questbot/bot"
	"github.com/questbot/questbot/bot/botpg"
	"github.com/questbot/questbot/bot/texts"
	"github.com/questbot/questbot/engine"
	"github.com/questbot/questbot/sessions"
	"github.com/questbot/questbot/sessions/board"
	"github.com/questbot/questbot/sessions/board/boardpg"
)

// # The web game server's side of the boards
//
// The web game server (package bot/boards/web) plays the same boards as Telegram. Its writes are
// the Web* operations below: each runs in a transaction of the board's bot (bot.Transport.Do),
// locks the board, applies the rules of package board and commits through the same path as a
// press in Telegram (commit, then announce), so a move made on the web page reaches the
// opponent's chat board exactly as a move made with the buttons, and the mover's own chat board
// is changed in place. Its reads are WebState (a board as one viewer sees it: the position, the
// legal moves with the squares to tap, the clocks, the moves the viewer has not seen) and
// PictureFile (the engine's picture, the same file Telegram is sent).
//
// A player may let anyone watch their game: a per-board switch (board_spectators, migration
// 017_web.sql) that either player sets; a watcher sees the board from the first seat, read-only.

// ErrPrivate: the board is joined by invite only.
var ErrPrivate = sessions.Refusal(sessions.KindConflict, "invite only")

// GameState is a board as one viewer sees it on the web, in the shape of the JSON API.
type GameState struct {
	ID      int64  `json:"id"`
	Variant string `json:"variant"`
	Title   string `json:"title"`
	// Control is the time control's name, ControlTitle its text in the viewer's language.
	Control      string `json:"control"`
	ControlTitle string `json:"control_title"`
	Status       string `json:"status"`
	Revision     int64  `json:"revision"`
	// Seat is the viewer's seat, -1 for a spectator.
	Seat     int          `json:"seat"`
	Seats    [2]SeatState `json:"seats"`
	ToMove   int          `json:"to_move"`
	Ply      int          `json:"ply"`
	Deadline *time.Time   `json:"deadline"`
	Moves    []MoveState  `json:"moves"`
	// Unseen are the plies of the opponent's moves the viewer has not seen yet.
	Unseen []int `json:"unseen"`
	// Legal are the viewer's legal moves when it is their turn.
	Legal      []LegalMove  `json:"legal"`
	Offer      *OfferState  `json:"offer"`
	CanUndo    bool         `json:"can_undo"`
	Spectators bool         `json:"spectators"`
	Result     *ResultState `json:"result"`
	Picture    PictureState `json:"picture"`
}

// SeatState is a seat as the web shows it.
type SeatState struct {
	Name string `json:"name"`
	// Bot is the bot's level ("easy", "normal", "strong"), "" for a player.
	Bot string `json:"bot"`
	// ClockMS is what is left of the seat's main time, in milliseconds, the running clock
	// charged with its thinking so far.
	ClockMS int64 `json:"clock_ms"`
}

// MoveState is a move of the move list.
type MoveState struct {
	Ply  int    `json:"ply"`
	Seat int    `json:"seat"`
	Text string `json:"text"`
}

// LegalMove is a legal move and the squares a player taps to make it: the origin, then each
// landing square (engine.Game.Describe).
type LegalMove struct {
	Text string   `json:"text"`
	Path []string `json:"path"`
}

// OfferState is a pending draw offer.
type OfferState struct {
	Seat int `json:"seat"`
}

// ResultState is the result of a finished game: the text in the viewer's language and the
// winning seat (nil for a draw).
type ResultState struct {
	Text   string `json:"text"`
	Winner *int   `json:"winner"`
}

// PictureState is the picture of the board as the viewer sees it and where each square is in it
// (engine.Game.ImageMap). The web server fills in URL; Version names what the picture shows.
type PictureState struct {
	URL     string        `json:"url"`
	Width   int           `json:"width"`
	Height  int           `json:"height"`
	Squares []SquareState `json:"squares"`
	Viewer  int           `json:"-"`
	Version string        `json:"-"`
}

// SquareState is a square of the picture: its name, centre and the radius a click is taken in.
type SquareState struct {
	Name string `json:"name"`
	X    int    `json:"x"`
	Y    int    `json:"y"`
	R    int    `json:"r"`
}

// Spectators reports whether a board's players let anyone watch it.
func Spectators(ctx context.Context, db pgx.Tx, id int64) (bool, error) {
	return boardpg.New(db).Spectators(ctx, id)
}

// Viewable reports the seat a user sees a board from: theirs, or -1 for anyone else when the
// board may be watched (its players allow it, or it waits for an opponent to join it). Returns
// board.ErrNotSeated otherwise.
func Viewable(bd *board.Board, user int64, spectators bool) (int, error) {
	if user != board.BotUser {
		if seat, err := bd.SeatOf(user); err == nil {
			return seat, nil
		}
	}
	if (spectators && bd.Status != board.Waiting) || (bd.Status == board.Waiting && !bd.Private) {
		return -1, nil
	}
	return 0, fmt.Errorf("board %d: user %d: %w", bd.ID, user, board.ErrNotSeated)
}

// WebState returns a board of a bot (service 0: of any bot) as a user sees it (user 0: someone
// not logged in). Returns
// board.ErrNotFound for a board of another bot or none, board.ErrNotSeated when the user
// may not see it (see Viewable).
func (b *Boards) WebState(ctx context.Context, db pgx.Tx, service int, user, boardID int64) (*GameState, *board.Board, error) {
	bd, err := b.store(db).Get(ctx, boardID)
	if err != nil {
		return nil, nil, err
	}
	if service != 0 && bd.Service != service {
		return nil, nil, fmt.Errorf("board %d of bot %d: %w", boardID, bd.Service, board.ErrNotFound)
	}
	spect, err := b.store(db).Spectators(ctx, boardID)
	if err != nil {
		return nil, nil, err
	}
	seat, err := Viewable(bd, user, spect)
	if err != nil {
		return nil, nil, err
	}
	lang := "en"
	if user != board.BotUser {
		p, err := b.users.Profile(ctx, db, user)
		if err != nil && !errors.Is(err, botpg.ErrNoUser) {
			return nil, nil, err
		}
		if p != nil {
			lang = p.Lang
		}
	}
	st, err := b.state(ctx, db, bd, seat, texts.For(lang))
	if err != nil {
		return nil, nil, err
	}
	st.Spectators = spect
	return st, bd, nil
}

// tagRE matches the HTML tags of the catalogue's texts.
var tagRE = regexp.MustCompile(`<[^>]*>`)

// plain turns a text of the catalogue (HTML) into plain text.
func plain(s string) string { return html.UnescapeString(tagRE.ReplaceAllString(s, "")) }

// state builds the state of a board for a seat (-1: a spectator) in c's language.
func (b *Boards) state(ctx context.Context, db pgx.Tx, bd *board.Board, seat int, c *texts.Catalog) (*GameState, error) {
	g, err := bd.Game()
	if err != nil {
		return nil, err
	}
	sc := &scene{bd: bd, g: g}
	for i, s := range bd.Seats {
		if !s.Human() {
			continue
		}
		p, err := b.users.Profile(ctx, db, s.User)
		if errors.Is(err, botpg.ErrNoUser) {
			continue
		}
		if err != nil {
			return nil, err
		}
		sc.players[i] = p
	}
	now := b.now()
	st := &GameState{ID: bd.ID, Variant: bd.Variant, Title: c.Game(bd.Variant), Control: bd.Control.Name,
		ControlTitle: c.Control(bd.Control.Name), Status: bd.Status.String(), Revision: bd.Revision(), Seat: seat,
		ToMove: bd.ToMove, Ply: bd.Ply(), Moves: []MoveState{}, Unseen: []int{}, Legal: []LegalMove{}}
	clocks := bd.Clocks(now)
	for i, s := range bd.Seats {
		st.Seats[i] = SeatState{Bot: s.Bot.String(), ClockMS: clocks[i].Milliseconds()}
		if !s.Empty() {
			st.Seats[i].Name = plain(sc.name(c, i))
		}
	}
	if !bd.Deadline.IsZero() {
		d := bd.Deadline
		st.Deadline = &d
	}
	for _, m := range bd.Moves {
		st.Moves = append(st.Moves, MoveState{Ply: m.Ply, Seat: m.Seat, Text: m.Text})
		if seat >= 0 && m.Seat != seat && m.Ply > bd.Seats[seat].Seen {
			st.Unseen = append(st.Unseen, m.Ply)
		}
	}
	if seat >= 0 && bd.Status == board.Active && bd.ToMove == seat {
		for _, mv := range g.LegalMoves() {
			path, _ := g.Describe(mv)
			st.Legal = append(st.Legal, LegalMove{Text: mv.String(), Path: path})
		}
	}
	if o := bd.Offer; o != nil {
		st.Offer = &OfferState{Seat: o.Seat}
	}
	st.CanUndo = seat >= 0 && canUndo(bd, seat)
	if bd.Status == board.Finished && bd.Outcome != nil {
		st.Result = b.webResult(c, sc, seat)
	}
	viewer := max(seat, 0)
	im := g.ImageMap(engine.Player(viewer))
	st.Picture = PictureState{Width: im.Width, Height: im.Height, Viewer: viewer, Version: pictureVersion(g)}
	for _, s := range im.Squares {
		st.Picture.Squares = append(st.Picture.Squares, SquareState{Name: s.Name, X: s.X, Y: s.Y, R: s.Radius})
	}
	return st, nil
}

// pictureVersion names what a board's picture shows (the position and the last move), so that
// its address changes with it and a picture may be cached for good.
func pictureVersion(g *engine.Game) string {
	last := ""
	if h := g.History(); len(h) > 0 {
		last = h[len(h)-1].String()
	}
	sum := sha256.Sum256([]byte(g.Variant() + "\x00" + g.Position() + "\x00" + last))
	return hex.EncodeToString(sum[:6])
}

// webResult words the result of a finished game for a seat (-1: a spectator), in plain text.
func (b *Boards) webResult(c *texts.Catalog, sc *scene, seat int) *ResultState {
	o, t := sc.bd.Outcome, &c.Board
	reason := endReason(c, sc)
	res := &ResultState{}
	switch {
	case o.Draw:
		res.Text = fmt.Sprintf(t.Draw, reason)
	case seat >= 0 && sc.bd.Seats[seat].Human() && o.Winner == seat:
		res.Text = fmt.Sprintf(t.YouWin, reason)
	case seat >= 0 && sc.bd.Seats[seat].Human():
		res.Text = fmt.Sprintf(t.YouLose, reason)
	default:
		res.Text = fmt.Sprintf(t.Win, sc.name(c, o.Winner), reason)
	}
	if !o.Draw {
		w := o.Winner
		res.Winner = &w
	}
	res.Text = plain(res.Text)
	return res
}

// PictureFile returns the file of a board's picture as a seat sees it (the file Telegram is
// sent; drawn when there is none).
func (b *Boards) PictureFile(bd *board.Board, seat int) (path, version string, err error) {
	g, err := bd.Game()
	if err != nil {
		return "", "", err
	}
	path, err = b.picture(g, seat, nil)
	return path, pictureVersion(g), err
}

// lockSeat locks a board of a bot for one of its players and returns it with their seat.
// Returns board.ErrNotFound for a board of another bot, board.ErrNotSeated for anyone but
// its players.
func (b *Boards) lockSeat(ctx context.Context, tx bot.Tx, service int, user, boardID int64) (Store, *board.Board, int, error) {
	st := b.store(tx.DB())
	bd, err := st.Lock(ctx, boardID)
	if err != nil {
		return nil, nil, 0, err
	}
	if bd.Service != service {
		return nil, nil, 0, fmt.Errorf("board %d of bot %d: %w", boardID, bd.Service, board.ErrNotFound)
	}
	if user == board.BotUser {
		return nil, nil, 0, board.ErrNotSeated
	}
	seat, err := bd.SeatOf(user)
	if err != nil {
		return nil, nil, 0, err
	}
	return st, bd, seat, nil
}

// WebMove plays a move for a player on the web: text as written or a legal move's notation, at
// the ply the player saw (board.ErrStale when the board has moved on). The move is played as a
// press in Telegram plays it: it tells that the player has seen the board at that ply, and both
// chats' boards show it.
func (b *Boards) WebMove(ctx context.Context, tx bot.Tx, service int, user, boardID int64, text string, ply int) error {
	st, bd, seat, err := b.lockSeat(ctx, tx, service, user, boardID)
	if err != nil {
		return err
	}
	if err := b.markWeb(ctx, tx, boardID, seat); err != nil {
		return err
	}
	if bd.Status == board.Active && bd.ToMove == seat && ply == bd.Ply() {
		if err := b.seen(ctx, tx, st, bd, seat, byWeb); err != nil {
			return err
		}
	}
	return b.play(ctx, tx, st, bd, user, text, ply, seat, byWeb)
}

// WebUndo takes back the player's last move (board.Board.Undo decides when it may).
func (b *Boards) WebUndo(ctx context.Context, tx bot.Tx, service int, user, boardID int64) error {
	return b.webOp(ctx, tx, service, user, boardID, func(bd *board.Board, now time.Time) ([]board.Event, error) {
		return bd.Undo(user, now)
	})
}

// WebResign resigns the game for the player.
func (b *Boards) WebResign(ctx context.Context, tx bot.Tx, service int, user, boardID int64) error {
	return b.webOp(ctx, tx, service, user, boardID, func(bd *board.Board, now time.Time) ([]board.Event, error) {
		return bd.Resign(user, now)
	})
}

// Draw actions of WebDraw.
const (
	DrawOffer   = "offer"
	DrawAccept  = "accept"
	DrawDecline = "decline"
)

// WebDraw offers a draw, or accepts or declines the opponent's offer (action: DrawOffer,
// DrawAccept, DrawDecline; board.ErrInvalid for any other).
func (b *Boards) WebDraw(ctx context.Context, tx bot.Tx, service int, user, boardID int64, action string) error {
	var op func(bd *board.Board, now time.Time) ([]board.Event, error)
	switch action {
	case DrawOffer:
		op = func(bd *board.Board, now time.Time) ([]board.Event, error) { return bd.OfferDraw(user, now) }
	case DrawAccept:
		op = func(bd *board.Board, now time.Time) ([]board.Event, error) {
			return bd.AcceptDraw(user, now)
		}
	case DrawDecline:
		op = func(bd *board.Board, now time.Time) ([]board.Event, error) {
			return bd.DeclineDraw(user, now)
		}
	default:
		return fmt.Errorf("%w: draw action %q", board.ErrInvalid, action)
	}
	return b.webOp(ctx, tx, service, user, boardID, op)
}

// webOp carries out an operation of a player on a board locked in tx, as a press of its button
// in Telegram does: a refused one changes nothing; one carried out tells that the player has seen
// the board, and is committed and shown in both chats.
func (b *Boards) webOp(ctx context.Context, tx bot.Tx, service int, user, boardID int64,
	op func(bd *board.Board, now time.Time) ([]board.Event, error)) error {
	st, bd, seat, err := b.lockSeat(ctx, tx, service, user, boardID)
	if err != nil {
		return err
	}
	ev, err := op(bd, b.now())
	if err != nil {
		return err
	}
	if err := b.markWeb(ctx, tx, boardID, seat); err != nil {
		return err
	}
	if err := b.seen(ctx, tx, st, bd, seat, byWeb); err != nil {
		return err
	}
	return b.commit(ctx, tx, st, bd, ev, seat, byWeb)
}

// WebSeen records that the player has seen the board up to ply (the web page shows the moves,
// then says so): the opponent's moves up to it can no longer be taken back, and their keyboard
// loses its button. Unlike a press, it is recorded in a finished game too.
func (b *Boards) WebSeen(ctx context.Context, tx bot.Tx, service int, user, boardID int64, ply int) error {
	st, bd, seat, err := b.lockSeat(ctx, tx, service, user, boardID)
	if err != nil {
		return err
	}
	if err := b.markWeb(ctx, tx, boardID, seat); err != nil {
		return err
	}
	other := 1 - seat
	could := canUndo(bd, other)
	changed, err := bd.Seen(user, ply)
	if err != nil || !changed {
		return err
	}
	if err := st.Save(ctx, bd); err != nil {
		return err
	}
	if !could || canUndo(bd, other) || !bd.Seats[other].Human() {
		return nil
	}
	sc, err := b.newScene(ctx, tx, bd)
	if err != nil {
		return err
	}
	if at := sc.sent[other]; at.IsZero() || b.now().Sub(at) > refreshAfter {
		return nil // as seen does: a message too old to edit is left
	}
	return b.show(ctx, tx, sc, other, showCaption, "", nil, false, 0)
}

// WebCreate opens a game for a user of a bot, as /games does: against the bot at a level (the
// player's side drawn, no clock, as in Telegram), or, without a level, in the oldest game of the
// same game and clock that waits for an opponent, else in a new one that waits (a game the user
// already waits in for the same is given again). It returns the board. Returns
// board.ErrInvalid for a game or clock not offered.
func (b *Boards) WebCreate(ctx context.Context, tx bot.Tx, service int, user int64, variant, control string, level board.BotLevel) (int64, error) {
	if !offered(variant) || level > board.BotStrong {
		return 0, fmt.Errorf("%w: game %q", board.ErrInvalid, variant)
	}
	st := b.store(tx.DB())
	if level != board.NoBot {
		spec := board.Spec{Service: service, Creator: user, Variant: variant, Seed: b.seed(),
			Control: board.TimeControl{Name: "none"}, Side: board.SideRandom, Bot: level}
		bd, ev, err := board.Open(spec, b.now())
		if err != nil {
			return 0, err
		}
		if err := st.Create(ctx, bd); err != nil {
			return 0, err
		}
		seat, _ := bd.SeatOf(user)
		if err := b.markWeb(ctx, tx, bd.ID, seat); err != nil {
			return 0, err
		}
		sc, err := b.newScene(ctx, tx, bd)
		if err != nil {
			return 0, err
		}
		return bd.ID, b.announce(ctx, tx, sc, ev, seat, byWeb)
	}
	tc, err := b.control(ctx, st, control)
	if err != nil {
		return 0, err
	}
	spec := board.Spec{Service: service, Creator: user, Variant: variant, Seed: b.seed(), Control: tc,
		Side: board.SideRandom}
	mine, err := st.UserBoards(ctx, service, user, 0)
	if err != nil {
		return 0, err
	}
	for _, bi := range mine {
		if bi.Status == board.Waiting && bi.Variant == spec.Variant && bi.Control == spec.Control.Name {
			bd, err := st.Get(ctx, bi.ID)
			if err != nil {
				return 0, err
			}
			if !bd.Private {
				return bd.ID, nil
			}
		}
	}
	bd, err := st.ClaimWaiting(ctx, spec)
	if errors.Is(err, board.ErrNotFound) {
		bd, _, err = board.Open(spec, b.now())
		if err == nil {
			err = st.Create(ctx, bd)
		}
		if err == nil {
			seat, _ := bd.SeatOf(user)
			err = b.markWeb(ctx, tx, bd.ID, seat)
		}
		if err != nil {
			return 0, err
		}
		return bd.ID, b.showWaiting(ctx, tx, bd, "")
	}
	if err != nil {
		return 0, err
	}
	return bd.ID, b.join(ctx, tx, st, bd, user, byWeb)
}

// WebJoin seats a user in a public game of a bot that waits for an opponent, and starts it.
// Returns ErrPrivate for a game joined by invite only, board.ErrFull when it has started,
// board.ErrAlreadySeated for its creator.
func (b *Boards) WebJoin(ctx context.Context, tx bot.Tx, service int, user, boardID int64) error {
	st := b.store(tx.DB())
	bd, err := st.Lock(ctx, boardID)
	if err != nil {
		return err
	}
	if bd.Service != service {
		return fmt.Errorf("board %d of bot %d: %w", boardID, bd.Service, board.ErrNotFound)
	}
	if bd.Private && bd.Status == board.Waiting {
		if _, err := bd.SeatOf(user); err == nil {
			return fmt.Errorf("board %d: %w", boardID, board.ErrAlreadySeated)
		}
		return fmt.Errorf("board %d: %w", boardID, ErrPrivate)
	}
	return b.join(ctx, tx, st, bd, user, byWeb)
}

// WebSpectators sets whether anyone may watch a board; either player may switch it.
func (b *Boards) WebSpectators(ctx context.Context, tx bot.Tx, service int, user, boardID int64, allow bool) error {
	if _, _, _, err := b.lockSeat(ctx, tx, service, user, boardID); err != nil {
		return err
	}
	return b.store(tx.DB()).SetSpectators(ctx, boardID, allow, user, b.now())
}

// WebLegal returns the legal moves of a board's side to move, for the answer to a refused move.
func WebLegal(bd *board.Board) []string {
	g, err := bd.Game()
	if err != nil || bd.Status != board.Active {
		return []string{}
	}
	out := []string{}
	for _, mv := range g.LegalMoves() {
		out = append(out, mv.String())
	}
	return out
}

// webName names a player of a board in plain text, for lists.
func webName(c *texts.Catalog, p *botpg.Profile, s board.Seat) string {
	switch {
	case s.Bot != board.NoBot:
		return fmt.Sprintf(c.Board.Bot, c.Board.Levels[s.Bot.String()])
	case p == nil:
		return ""
	case strings.TrimSpace(p.FirstName) != "":
		return p.FirstName
	case p.Username != "":
		return "@" + p.Username
	}
	return fmt.Sprintf("#%d", p.ID)
}

// OpponentName names the opponent of a user's board in a list, in plain text, in the language
// of lang ("" while nobody has joined).
func (b *Boards) OpponentName(ctx context.Context, db pgx.Tx, lang string, s board.Seat) (string, error) {
	var p *botpg.Profile
	if s.Human() {
		var err error
		p, err = b.users.Profile(ctx, db, s.User)
		if err != nil && !errors.Is(err, botpg.ErrNoUser) {
			return "", err
		}
	}
	return webName(texts.For(lang), p, s), nil
}
