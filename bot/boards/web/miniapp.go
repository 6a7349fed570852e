package web

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/questbot/questbot/bot"
	"github.com/questbot/questbot/bot/boards"
	"github.com/questbot/questbot/bot/boards/botusers"
	"github.com/questbot/questbot/bot/botpg"
)

// # Mini Apps: login with Telegram's signed data
//
// The Telegram view puts an "Open" button (web_app) on a player's board that opens the game's
// page inside Telegram, as a Mini App (bot/boards/telegram, miniapp.go). Telegram gives the page
// initData, the user's data signed with a key of the bot's token (bot.ParseWebAppData), and the
// page posts it to POST /api/v1/miniapp/login as {"init_data": "..."}. The server accepts it as a
// login link's ticket is accepted, and answers as /api/v1/me does, with the session cookie:
//
//   - signed by one of the bots this process runs (Config.MiniApps: the key of each bot's token;
//     initData does not name its bot, so the bot is the one whose key signs it);
//   - signed at most MiniAppDataAge ago, and at most MiniAppSkew in the future, by the server's
//     clock (Config.Now);
//   - never accepted before: its signature is kept (botpg.Credentials.OpenMiniAppSession) until
//     the data would be stale anyway, and the transport's cleanup job then removes it;
//   - for a user who has talked to that bot (a user of the bot the board service knows).
//
// Anything else is answered 401 with a code (miniapp_invalid, miniapp_forged, miniapp_stale,
// miniapp_replayed, miniapp_unknown_user) and a message the page shows; a refusal counts as a
// failed login of the client's address (throttle.go) and changes nothing. The session is the
// same as a ticket's, so the page then plays as that user.

// The ages of a Mini App's data the server accepts.
const (
	// MiniAppDataAge is how long after Telegram signed it a Mini App's initData opens a
	// session: a page left open a day must be opened again from its button.
	MiniAppDataAge = 24 * time.Hour
	// MiniAppSkew is how far in the future initData may be dated: the difference between the
	// clocks of Telegram and of the server.
	MiniAppSkew = time.Minute
)

// MiniAppKeys are the bots whose Mini Apps may log their users in: the key that signs each
// one's initData (bot.WebAppSecret of its token), by service id. bot.Transport is one.
type MiniAppKeys interface {
	WebAppKeys() map[int][]byte
}

// errUnknownMiniAppUser: the initData's user never talked to the bot.
var errUnknownMiniAppUser = errors.New("web: the Mini App's user does not use the bot")

// miniAppRefusal is the 401 answer to a Mini App's initData refused, with its code.
func miniAppRefusal(code, message string) *apiError {
	return apiErr(http.StatusUnauthorized, code, message)
}

// miniAppLogin opens a session with a Mini App's initData (POST /api/v1/miniapp/login).
func (s *Server) miniAppLogin(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	dataHeaders(w)
	if d := s.loginWait(r); d > 0 {
		retryAfter(w, d)
		writeError(w, r, tooManyFailures())
		return
	}
	if refusal := s.jsonLogin(r); refusal != nil {
		writeError(w, r, refusal)
		return
	}
	var body struct {
		InitData string `json:"init_data"`
	}
	if err := decode(r, &body); err != nil {
		writeError(w, r, s.mapErr(err, &caller{}))
		return
	}
	d, service, refusal := s.checkMiniApp(body.InitData)
	if refusal != nil {
		s.loginFailed(r)
		writeError(w, r, refusal)
		return
	}
	now := s.now()
	var secret string
	var p *boards.Profile
	err := s.write(r.Context(), func(ctx context.Context, db pgxTx) error {
		if _, ok, err := botpg.NewUsers().JoinedAt(ctx, db, service, d.User.ID); err != nil || !ok {
			if err == nil {
				err = errUnknownMiniAppUser
			}
			return err
		}
		var err error
		secret, err = creds.OpenMiniAppSession(ctx, db, service, d.User.ID, d.Hash, now, d.AuthDate.Add(MiniAppDataAge), SessionIdle)
		if err != nil {
			return err
		}
		if p, err = (botusers.Users{}).Profile(ctx, db, d.User.ID); err == nil && p == nil {
			err = errUnknownMiniAppUser
		}
		return err
	})
	switch {
	case errors.Is(err, errUnknownMiniAppUser):
		s.loginFailed(r)
		writeError(w, r, miniAppRefusal("miniapp_unknown_user",
			"You have not talked to this bot yet: open it in Telegram, send /start, then open the game again."))
		return
	case errors.Is(err, botpg.ErrReplayed):
		s.loginFailed(r)
		writeError(w, r, miniAppRefusal("miniapp_replayed",
			"This Mini App's login was used already: close the page and open it again from the button in Telegram."))
		return
	case err != nil:
		if r.Context().Err() == nil {
			s.fail(w, r, err)
		}
		return
	}
	http.SetCookie(w, s.cookie(secret, int(SessionIdle/time.Second)))
	name := boards.PlayerName(p, p.ID)
	writeJSON(w, http.StatusOK, map[string]any{
		"user": map[string]any{"id": p.ID, "name": name, "lang": p.Lang}, "csrf": csrfToken(secret)})
}

// checkMiniApp reads initData and finds the bot that signed it; the refusal to answer when it
// is malformed, signed by none of the bots, or stale.
func (s *Server) checkMiniApp(initData string) (*bot.WebAppData, int, *apiError) {
	d, err := bot.ParseWebAppData(initData)
	if err != nil {
		return nil, 0, miniAppRefusal("miniapp_invalid",
			"The page did not get the data Telegram gives a Mini App: open the game from its button in Telegram.")
	}
	service := 0
	if s.cfg.MiniApps != nil {
		for id, key := range s.cfg.MiniApps.WebAppKeys() {
			if d.SignedBy(key) {
				service = id
				break
			}
		}
	}
	if service == 0 {
		return nil, 0, miniAppRefusal("miniapp_forged",
			"The Mini App's data is not signed by this bot: open the game from its button in Telegram.")
	}
	if err := d.Fresh(s.now(), MiniAppDataAge, MiniAppSkew); err != nil {
		return nil, 0, miniAppRefusal("miniapp_stale",
			"The Mini App's data is out of date: close the page and open it again from the button in Telegram.")
	}
	return d, service, nil
}
