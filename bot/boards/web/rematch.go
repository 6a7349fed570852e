package web

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/questbot/questbot/bot"
	"github.com/questbot/questbot/bot/boards"
	"github.com/questbot/questbot/bot/texts"
	"github.com/questbot/questbot/sessions/board"
)

// # After the game
//
// The state of a finished game carries what its page offers after it (AfterState): each
// player's rating change in a rated game, the rematch (POST /api/v1/games/{id}/rematch offers
// it, or accepts the opponent's; .../rematch/accept and .../rematch/decline answer it, decline
// also withdrawing one's own offer: the service's boards.Boards.Rematch, AcceptRematch and
// DeclineRematch), and a new opponent: the same game and clock sought anew with POST
// /api/v1/games, as the lobby does.

// AfterState is what follows a finished game.
type AfterState struct {
	// Ratings are each seat's rating change in a rated game (nil for a seat that has none: the
	// bot's, and both of an unrated game).
	Ratings [2]*RatingChange `json:"ratings"`
	// Rematch is the game's rematch, once offered; nil before.
	Rematch *RematchState `json:"rematch"`
	// CanRematch says that the viewer, a player, may offer a rematch (or accept the offer).
	CanRematch bool `json:"can_rematch"`
	// Archives are the addresses of the pages of each seat's archive ("" for the bot's).
	Archives [2]string `json:"archives"`
	// NewOpponent is the seek of the same game and clock against a person, the body of POST
	// /api/v1/games; nil for a spectator.
	NewOpponent *Seek `json:"new_opponent"`
}

// RatingChange is a seat's rating before and after a rated game, and the difference.
type RatingChange struct {
	Before int `json:"before"`
	After  int `json:"after"`
	Change int `json:"change"`
}

// RematchState is the rematch of a game: the new board, the seat (in this game) of the player
// who offered it, and its state: "offered" while it waits for the answer, "accepted" once
// played, "declined" when declined or withdrawn.
type RematchState struct {
	ID        int64  `json:"id"`
	OfferedBy int    `json:"offered_by"`
	State     string `json:"state"`
}

// Seek is a game sought against a person: its game and clock.
type Seek struct {
	Variant string `json:"variant"`
	Control string `json:"control"`
}

// ratingChange is a seat's rating change in a finished rated game; nil otherwise.
func ratingChange(bd *board.Board, seat int) *RatingChange {
	s := bd.Seats[seat]
	if !bd.Rated || bd.Status != board.Finished || !s.Human() || s.RatingBefore == 0 && s.RatingAfter == 0 {
		return nil
	}
	return &RatingChange{Before: s.RatingBefore, After: s.RatingAfter, Change: s.RatingAfter - s.RatingBefore}
}

// afterGame is what follows a finished game for a seat (-1: a spectator); nil while it is not
// over.
func afterGame(ctx context.Context, db pgxTx, svc *boards.Boards, bd *board.Board, seat int) (*AfterState, error) {
	if bd.Status != board.Finished {
		return nil, nil
	}
	a := &AfterState{}
	for i, s := range bd.Seats {
		a.Ratings[i] = ratingChange(bd, i)
		if s.Human() {
			a.Archives[i] = fmt.Sprintf("/players/%d/games", s.User)
		}
	}
	r, err := svc.RematchOf(ctx, db, bd.ID)
	if err != nil {
		return nil, err
	}
	if r != nil {
		state := "accepted"
		switch r.Board.Status {
		case board.Waiting:
			state = "offered"
		case board.Aborted:
			state = "declined"
		}
		a.Rematch = &RematchState{ID: r.Board.ID, OfferedBy: r.OfferedBy, State: state}
	}
	if seat >= 0 {
		a.CanRematch = r == nil || r.Board.Status == board.Waiting && r.OfferedBy != seat
		control := bd.Control.Name
		if bd.Seats[1-seat].Bot != board.NoBot || control == "" {
			control = "none"
		}
		a.NewOpponent = &Seek{Variant: bd.Variant, Control: control}
	}
	return a, nil
}

// routeRematch adds the rematch's calls to mux.
func (s *Server) routeRematch(mux router) {
	mux.HandleFunc("POST /api/v1/games/{id}/rematch", s.api(0, s.op(s.rematch)))
	mux.HandleFunc("POST /api/v1/games/{id}/rematch/accept", s.api(0, s.op(s.rematchAccept)))
	mux.HandleFunc("POST /api/v1/games/{id}/rematch/decline", s.api(0, s.op(s.rematchDecline)))
}

// rematchWords are the answers to the rematch's refusals, in the request's language.
var rematchWords = []struct {
	err error
	key string
}{{boards.ErrNotOver, "err.rematchNotOver"}, {boards.ErrNoRematch, "err.noRematch"}, {boards.ErrRematched, "err.rematched"}}

// rematchErr words a refusal of the rematch's; other errors are as they are.
func rematchErr(err error) error {
	for _, w := range rematchWords {
		if errors.Is(err, w.err) {
			key := w.key
			return apiWords(http.StatusConflict, "conflict", func(c *texts.Catalog) string { return c.Web.Page[key] })
		}
	}
	return err
}

// rematch is POST /api/v1/games/{id}/rematch: the state of the finished game after the offer
// (or the acceptance), whose after.rematch names the new game. The answer is read after the
// operation (op with no state of its own), since the finished board is not what it changed.
func (s *Server) rematch(*http.Request) (boardOp, error) {
	return func(ctx context.Context, tx bot.Tx, _ *http.Request, c *caller, id int64) (*GameState, error) {
		_, err := s.cfg.Boards.Rematch(ctx, tx, c.player(), id)
		return nil, rematchErr(err)
	}, nil
}

// rematchAccept is POST /api/v1/games/{id}/rematch/accept.
func (s *Server) rematchAccept(*http.Request) (boardOp, error) {
	return func(ctx context.Context, tx bot.Tx, _ *http.Request, c *caller, id int64) (*GameState, error) {
		_, err := s.cfg.Boards.AcceptRematch(ctx, tx, c.player(), id)
		return nil, rematchErr(err)
	}, nil
}

// rematchDecline is POST /api/v1/games/{id}/rematch/decline.
func (s *Server) rematchDecline(*http.Request) (boardOp, error) {
	return func(ctx context.Context, tx bot.Tx, _ *http.Request, c *caller, id int64) (*GameState, error) {
		return nil, rematchErr(s.cfg.Boards.DeclineRematch(ctx, tx, c.player(), id))
	}, nil
}
