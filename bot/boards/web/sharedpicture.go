package web

import (
	"context"
	"net/http"

	"github.com/questbot/questbot/bot/boards"
	"github.com/questbot/questbot/sessions/board"
)

// # Pictures of the messages a whole chat sees
//
// Telegram shows the picture of a board played in a shared message (an inline message, whose
// photo Telegram takes only from a URL) by fetching it from this server, without a session:
// GET /api/v1/games/{id}/picture.jpg?seat=0&ply=…&v=…&k=<key> (boards.SharedPictureURL), where
// the key, derived from the board's invitation, is what lets the fetch through. A wrong key, or
// a board played in its players' chats, is answered as a game that does not exist. The picture
// is White's or the first side's view, as the message shows it; it may be cached by anyone
// (Telegram's servers) when v names the position shown now. The challenges of the inline
// results show the start position of their game, GET /api/v1/variants/{variant}/picture.jpg,
// which is public. Both are JPEG, as Telegram asks of inline results' photos; the same
// addresses ending in .png give the PNG.
//
// Telegram fetches from few addresses, one picture per move of every inline game at once, so a
// fetch with the right key is not counted by the rate limit of callers (it reads one row, and
// the picture from the pictures' cache) but by a limit of its own per client address
// (Config.PictureRate, PictureBurst), generous for Telegram and in the way of a loop that would
// take the server's time from everyone; a fetch with a wrong key is counted by the rate limit,
// as every other picture is, so that keys are not guessed at speed.

// sharedPicture answers the picture of a board played in a shared message to whoever gives its
// key.
func (s *Server) sharedPicture(w http.ResponseWriter, r *http.Request, c *caller, id int64, key string) error {
	var bd *board.Board
	err := s.read(r.Context(), func(ctx context.Context, db pgxTx) error {
		ok, err := s.cfg.Boards.SharedPictureOpens(ctx, db, id, key)
		if err != nil || !ok {
			return err
		}
		bd, err = s.cfg.Boards.Store(db).Get(ctx, id)
		return err
	})
	if err != nil {
		return err
	}
	if bd == nil {
		if err := s.limited(c, r); err != nil {
			return err
		}
		return missing()
	}
	if ok, wait := s.pictureLimit.allow(addrKey(s.clientAddr(r))); !ok {
		e := apiErr(http.StatusTooManyRequests, "rate_limited", "Too many pictures fetched; slow down.")
		e.retry = wait
		return e
	}
	path, version, err := s.cfg.Boards.PictureFile(boards.DrawnIn(r.Context(), boards.DrawnWebPicture), bd, 0)
	if err != nil {
		return err
	}
	return s.writePicture(w, r, path, version, "public")
}

// limited counts a request of c by the rate limit, as api does for the calls it limits: 429
// rate_limited when c has none left.
func (s *Server) limited(c *caller, r *http.Request) error {
	if ok, wait := s.limit.allow(s.key(c, r)); !ok {
		e := apiErr(http.StatusTooManyRequests, "rate_limited", "Too many requests; slow down.")
		e.retry = wait
		return e
	}
	return nil
}

// startPicture is GET /api/v1/variants/{variant}/picture.png: the start position of a game the
// bot offers.
func (s *Server) startPicture(w http.ResponseWriter, r *http.Request, c *caller) error {
	path, version, err := s.cfg.Boards.StartPicture(boards.DrawnIn(r.Context(), boards.DrawnWebPicture), r.PathValue("variant"))
	if err != nil {
		return err
	}
	return s.writePicture(w, r, path, version, "public")
}
