package web

import (
	"context"
	"net/http"

	"github.com/questbot/questbot/bot/boards"
	"github.com/questbot/questbot/sessions/board"
	"github.com/questbot/questbot/sessions/board/boardpg"
)

// # Pictures of the messages a whole chat sees
//
// Telegram shows the picture of a board played in a shared message (an inline message, whose
// photo Telegram takes only from a URL) by fetching it from this server, without a session:
// GET /api/v1/games/{id}/picture.png?seat=0&ply=…&v=…&k=<key> (boards.SharedPictureURL), where
// the key, derived from the board's invitation, is what lets the fetch through. A wrong key, or
// a board played in its players' chats, is answered as a game that does not exist. The picture
// is White's or the first side's view, as the message shows it; it may be cached by anyone
// (Telegram's servers) when v names the position shown now. The challenges of the inline
// results show the start position of their game, GET /api/v1/variants/{variant}/picture.png,
// which is public.

// sharedPicture answers the picture of a board played in a shared message to whoever gives its
// key.
func (s *Server) sharedPicture(w http.ResponseWriter, r *http.Request, id int64, key string) error {
	var bd *board.Board
	err := s.read(r.Context(), func(ctx context.Context, db pgxTx) error {
		sh, ok, err := boardpg.New(db).SharedOf(ctx, id)
		if err != nil {
			return err
		}
		if !ok || !boards.SharedPictureKeyValid(sh.Invite, key) {
			return missing()
		}
		bd, err = s.cfg.Boards.Store(db).Get(ctx, id)
		return err
	})
	if err != nil {
		return err
	}
	path, version, err := s.cfg.Boards.PictureFile(bd, 0)
	if err != nil {
		return err
	}
	return writePicture(w, r, path, version, "public")
}

// startPicture is GET /api/v1/variants/{variant}/picture.png: the start position of a game the
// bot offers.
func (s *Server) startPicture(w http.ResponseWriter, r *http.Request, c *caller) error {
	path, version, err := s.cfg.Boards.StartPicture(r.PathValue("variant"))
	if err != nil {
		return err
	}
	return writePicture(w, r, path, version, "public")
}
