package web

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/questbot/questbot/bot/boards"
	"github.com/questbot/questbot/bot/texts"
	"github.com/questbot/questbot/engine"
	"github.com/questbot/questbot/sessions/board"
	"github.com/questbot/questbot/sessions/tournament"
)

// # A board as the web shows it
//
// The web game server is a view of the board service (bot/boards): its writes are the service's
// operations, its reads build a board as one viewer sees it (gameState: the position, the legal
// moves with the squares to tap, the clocks; the moves the viewer has not seen and the answer to
// their draw offer as the board's record of events says them, boards.NewsOf) and serve the
// engine's picture (the same file Telegram is sent).
//
// A player may let anyone watch their game: a per-board switch (board_spectators, migration
// 017_web.sql) that either player sets; a watcher sees the board from the first seat, read-only.

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
	// LastEvent is the number of the board's last event of the record as the state was read (0:
	// none), from which a page opens the event stream (LastEventParam) so that it misses no
	// change made after the state: it is read before the board, and a board's events are
	// numbered in the order its changes commit, so every change the state lacks has an event
	// numbered above it (the stream may also send events the state holds already; their
	// revision tells them).
	LastEvent int64 `json:"last_event"`
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
	Legal []LegalMove `json:"legal"`
	Offer *OfferState `json:"offer"`
	// Declined is the answer to the viewer's draw offer of this move when it was declined (at
	// once by the bot, or by the opponent); nil otherwise. An offer accepted ends the game
	// (Result).
	Declined   *DeclinedState `json:"declined"`
	CanUndo    bool           `json:"can_undo"`
	Spectators bool           `json:"spectators"`
	Result     *ResultState   `json:"result"`
	Picture    PictureState   `json:"picture"`
	// Tournament is the tournament the game is played in; absent for a game of none.
	Tournament *GameTournament `json:"tournament,omitempty"`
	// Events are the events of the board's record the operation answered with recorded (a
	// POST's answer only), in order: their numbers go on from where the event stream is.
	Events []boards.Event `json:"events,omitempty"`
	// MainMS is each side's initial time of the control in milliseconds (0 without one), by
	// which a page tells when a clock runs low.
	MainMS int64 `json:"main_ms"`
	// After is what follows the game once it is over (rematch.go); nil before.
	After *AfterState `json:"after"`
}

// GameTournament is the tournament of a game: its id, system, the game's round and the rounds
// it plays (0 for an arena), and Title, the line that names them in the viewer's language
// ("🏆 Tournament #5, round 2 of 3"), which the game's page shows in its header, linked to the
// tournament's page.
type GameTournament struct {
	ID     int64  `json:"id"`
	System string `json:"system"`
	Round  int    `json:"round"`
	Rounds int    `json:"rounds"`
	Title  string `json:"title"`
}

// SeatState is a seat as the web shows it.
type SeatState struct {
	Name string `json:"name"`
	// Bot is the bot's level ("easy", "normal", "strong"), "" for a player; Level names it in
	// the viewer's language, as Telegram does (texts.Board.Levels), and Name already says it
	// ("Bot (easy)"), so that a page shows the name alone.
	Bot   string `json:"bot"`
	Level string `json:"level"`
	// ClockMS is what is left of the seat's main time, in milliseconds, the running clock
	// charged with its thinking so far.
	ClockMS int64 `json:"clock_ms"`
}

// MoveState is a move of the move list: Text as people read it (standard algebraic notation in
// chess, see boards.Scene.Record), Move in the engine's notation (what the API reads back), and
// Number, the number of the move the ply belongs to (one ply of each side makes a move).
type MoveState struct {
	Ply    int    `json:"ply"`
	Seat   int    `json:"seat"`
	Number int    `json:"number"`
	Text   string `json:"text"`
	Move   string `json:"move"`
}

// LegalMove is a legal move and the squares a player taps to make it, as the events of the
// record carry them too (boards.LegalMove).
type LegalMove = boards.LegalMove

// OfferState is a pending draw offer.
type OfferState struct {
	Seat int `json:"seat"`
}

// DeclinedState is a draw offer declined: the seat that declined it and the answer in the
// viewer's language, in the words of the Telegram view (plain).
type DeclinedState struct {
	Seat int    `json:"seat"`
	Text string `json:"text"`
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

// gameState reads a board as a user sees it (State).
func (s *Server) gameState(ctx context.Context, db pgx.Tx, service int, user, id int64) (*GameState, *board.Board, error) {
	return State(ctx, db, s.cfg.Boards, service, user, id)
}

// State returns a board of a bot (service 0: of any bot) as a user sees it (user 0: someone
// not logged in). Returns
// board.ErrNotFound for a board of another bot or none, board.ErrNotSeated when the user
// may not see it (see boards.Watcher).
func State(ctx context.Context, db pgx.Tx, svc *boards.Boards, service int, user, id int64) (*GameState, *board.Board, error) {
	last, err := boards.LastEvent(ctx, db, id)
	if err != nil {
		return nil, nil, err
	}
	store := svc.Store(db)
	bd, err := store.Get(ctx, id)
	if err != nil {
		return nil, nil, err
	}
	if service != 0 && bd.Service != service {
		return nil, nil, fmt.Errorf("board %d of bot %d: %w", id, bd.Service, board.ErrNotFound)
	}
	spect, err := store.Spectators(ctx, id)
	if err != nil {
		return nil, nil, err
	}
	seat, err := boards.Watcher(bd, user, spect)
	if err != nil {
		return nil, nil, err
	}
	lang := "en"
	if user != board.BotUser {
		p, err := svc.Profile(ctx, db, user)
		if err != nil {
			return nil, nil, err
		}
		if p != nil {
			lang = p.Lang
		}
	}
	st, err := boardState(ctx, db, svc, bd, seat, texts.For(lang))
	if err != nil {
		return nil, nil, err
	}
	st.Spectators, st.LastEvent = spect, last
	if st.After, err = afterGame(ctx, db, svc, bd, seat); err != nil {
		return nil, nil, err
	}
	return st, bd, nil
}

// boardState builds the state of a board for a seat (-1: a spectator) in c's language.
func boardState(ctx context.Context, db pgx.Tx, svc *boards.Boards, bd *board.Board, seat int, c *texts.Catalog) (*GameState, error) {
	sc, err := svc.Players(ctx, db, bd)
	if err != nil {
		return nil, err
	}
	return sceneState(ctx, db, sc, svc, seat, c)
}

// sceneState is boardState from the board's scene, read already.
func sceneState(ctx context.Context, db pgx.Tx, sc *boards.Scene, svc *boards.Boards, seat int, c *texts.Catalog) (*GameState, error) {
	bd, g := sc.Board, sc.Game
	var err error
	now := svc.Now()
	st := &GameState{ID: bd.ID, Variant: bd.Variant, Title: c.Game(bd.Variant), Control: bd.Control.Name,
		ControlTitle: c.Control(bd.Control.Name), Status: bd.Status.String(), Revision: bd.Revision(), Seat: seat,
		ToMove: bd.ToMove, Ply: bd.Ply(), Moves: []MoveState{}, Unseen: []int{}, Legal: []LegalMove{}}
	st.MainMS = bd.Control.Main.Milliseconds()
	if tg := sc.Tournament; tg != nil {
		st.Tournament = &GameTournament{ID: tg.ID, System: string(tg.System), Round: tg.Round, Rounds: tg.Rounds,
			Title: c.Tournament().Heading(tg.ID, tg.System == tournament.Arena, tg.Round, tg.Rounds)}
	}
	clocks := bd.Clocks(now)
	for i, s := range bd.Seats {
		st.Seats[i] = SeatState{Bot: s.Bot.String(), Level: c.Level(bd.Variant, s.Bot), ClockMS: clocks[i].Milliseconds()}
		if !s.Empty() {
			st.Seats[i].Name = sc.Name(c, i)
		}
	}
	if !bd.Deadline.IsZero() {
		d := bd.Deadline
		st.Deadline = &d
	}
	record := sc.Record()
	for i, m := range bd.Moves {
		st.Moves = append(st.Moves, MoveState{Ply: m.Ply, Seat: m.Seat, Number: sc.MoveNumber(m.Ply), Text: record[i], Move: m.Text})
	}
	if seat >= 0 && bd.Status == board.Active && bd.ToMove == seat {
		st.Legal = boards.LegalMoves(g)
	}
	if o := bd.Offer; o != nil {
		st.Offer = &OfferState{Seat: o.Seat}
	}
	var news boards.SeatNews
	if seat >= 0 {
		if news, err = seatNews(ctx, db, bd, seat); err != nil {
			return nil, err
		}
		st.Unseen = news.Unseen
	}
	if news.Declined {
		text := c.Board.Declined
		if bd.Seats[1-seat].Bot != board.NoBot {
			text = c.Board.BotDeclines
		}
		st.Declined = &DeclinedState{Seat: 1 - seat, Text: texts.Plain(text)}
	}
	st.CanUndo = seat >= 0 && boards.CanUndo(bd, seat)
	if bd.Status == board.Finished && bd.Outcome != nil {
		st.Result = webResult(c, sc, seat)
	}
	viewer := max(seat, 0)
	im := g.ImageMap(engine.Player(viewer))
	st.Picture = PictureState{Width: im.Width, Height: im.Height, Viewer: viewer, Version: boards.PictureVersion(g)}
	for _, s := range im.Squares {
		st.Picture.Squares = append(st.Picture.Squares, SquareState{Name: s.Name, X: s.X, Y: s.Y, R: s.Radius})
	}
	return st, nil
}

// seatNews is what the board's record says a seat has not seen and whether its draw offer of
// this move was declined (boards.NewsOf), read in db; for a board begun before the record was
// kept, what the board itself says: the seat's mark of what it has seen, and its offer of this
// move (a seat offers a draw once a move) no longer standing in a game that goes on.
func seatNews(ctx context.Context, db pgx.Tx, bd *board.Board, seat int) (boards.SeatNews, error) {
	news, ok, err := boards.NewsOf(ctx, db, bd, seat)
	if err != nil || ok {
		return news, err
	}
	news = boards.SeatNews{Unseen: []int{}}
	for _, m := range bd.Moves {
		if m.Seat != seat && m.Ply > bd.Seats[seat].Seen {
			news.Unseen = append(news.Unseen, m.Ply)
		}
	}
	news.Declined = bd.Status == board.Active && bd.Offer == nil && bd.Seats[seat].Offered
	return news, nil
}

// webResult words the result of a finished game for a seat (-1: a spectator), in plain text.
func webResult(c *texts.Catalog, sc *boards.Scene, seat int) *ResultState {
	o, t := sc.Board.Outcome, &c.Board
	reason := sc.EndReason(c)
	res := &ResultState{}
	switch {
	case o.Draw:
		res.Text = fmt.Sprintf(texts.Plain(t.Draw), reason)
	case seat >= 0 && sc.Board.Seats[seat].Human() && o.Winner == seat:
		res.Text = fmt.Sprintf(texts.Plain(t.YouWin), reason)
	case seat >= 0 && sc.Board.Seats[seat].Human():
		res.Text = fmt.Sprintf(texts.Plain(t.YouLose), reason)
	default:
		res.Text = fmt.Sprintf(texts.Plain(t.Win), sc.Name(c, o.Winner), reason)
	}
	if !o.Draw {
		w := o.Winner
		res.Winner = &w
	}
	return res
}

// legalMoves returns the legal moves of a board's side to move as people read them (the API
// reads them back), for the answer to a refused move.
func legalMoves(bd *board.Board) []string {
	g, err := bd.Game()
	if err != nil || bd.Status != board.Active {
		return []string{}
	}
	out := []string{}
	for _, mv := range g.LegalMoves() {
		out = append(out, g.Display(mv))
	}
	return out
}

// webName names a player of a board of the game variant in plain text, for lists.
func webName(c *texts.Catalog, p *boards.Profile, s board.Seat, variant string) string {
	switch {
	case s.Bot != board.NoBot:
		return c.BotName(variant, s.Bot)
	case p == nil:
		return ""
	}
	return boards.PlayerName(p, p.ID)
}

// opponentName names the opponent of a user's board of the game variant in a list, in plain
// text, in the language of lang ("" while nobody has joined).
func (s *Server) opponentName(ctx context.Context, db pgx.Tx, lang string, seat board.Seat, variant string) (string, error) {
	var p *boards.Profile
	if seat.Human() {
		var err error
		if p, err = s.cfg.Boards.Profile(ctx, db, seat.User); err != nil {
			return "", err
		}
	}
	return webName(texts.For(lang), p, seat, variant), nil
}
