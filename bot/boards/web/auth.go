package web

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/questbot/questbot/bot/boards"
	"github.com/questbot/questbot/bot/botpg"
)

// # Identity
//
// Nobody has a password. /web in the bot (a command of the Telegram view, bot/boards/telegram)
// gives a login link with a ticket: 128 random bits, single use, valid for ten minutes.
// Redeeming it (the page of GET /login/<ticket> posts to POST /login/<ticket>, login.go, which
// says how no other site can log a visitor in) makes a session: 256 random bits in the cookie
// qb_session, valid until it has not been used for SessionIdle. An admin's /token (also the
// Telegram view's) issues an API token for a program, qbt_ and 256 random bits, sent as
// "Authorization: Bearer"; it is valid until revoked. The tickets, sessions and tokens are kept
// by their store, botpg.Credentials, which stores only the SHA-256 hash of each secret, so the
// database opens nothing; this file finds who makes each request through it.
//
// Cross-site requests: the cookie is SameSite=Lax, and a POST authenticated by the cookie must
// carry the header X-CSRF-Token with the session's CSRF token, an HMAC of the session's secret
// (so it needs no storage, and only a page that can read the API's answers has it). A call with
// a Bearer token carries no cookie, so it needs none.

// Lifetimes of the sessions.
const (
	// SessionIdle is how long a session lasts unused.
	SessionIdle = 30 * 24 * time.Hour
	// touchEvery is how often a session in use records that it was used.
	touchEvery = time.Minute
)

// CookieName is the session cookie.
const CookieName = "qb_session"

// csrfToken is the CSRF token of a session, derived from its secret.
func csrfToken(secret string) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte("questbot csrf"))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// errRefused is a ticket, session or token that is unknown, used, expired or revoked (as the
// store says), or an Authorization header that holds no API token.
var errRefused = botpg.ErrRefused

// creds is the store of the tickets, sessions and API tokens.
var creds botpg.Credentials

// ---- Callers

// caller is who makes a request: a user of a bot, through a session or an API token; the zero
// caller is someone not logged in.
type caller struct {
	service int
	user    int64
	// secret is the session's (cookie), token the API token's id (Bearer).
	secret string
	token  int64
}

// anonymous reports whether nobody is logged in.
func (c *caller) anonymous() bool { return c.user == 0 }

// player is the caller as the board service knows them.
func (c *caller) player() boards.Player {
	return boards.Player{Service: c.service, User: c.user, By: boards.ByWeb}
}

// key is the caller's rate limit bucket: the API token, the user, or for someone not logged in
// the client's address (clientip.go).
func (s *Server) key(c *caller, r *http.Request) string {
	switch {
	case c.token != 0:
		return "t:" + strconv.FormatInt(c.token, 10)
	case c.user != 0:
		return fmt.Sprintf("u:%d:%d", c.service, c.user)
	}
	return addrKey(s.clientAddr(r))
}

// identify finds the caller of a request: an API token (Authorization: Bearer), else the
// session cookie; the zero caller without either. Returns errRefused for a token or cookie that
// opens nothing.
func (s *Server) identify(ctx context.Context, r *http.Request) (*caller, error) {
	now := s.now()
	start := time.Now()
	if auth := r.Header.Get("Authorization"); auth != "" {
		tok, ok := strings.CutPrefix(auth, "Bearer ")
		tok = strings.TrimSpace(tok)
		if !ok || !strings.HasPrefix(tok, botpg.TokenPrefix) {
			return nil, errRefused
		}
		c := &caller{}
		var err error
		c.token, c.service, c.user, err = creds.Token(ctx, s.cfg.Pool, tok)
		s.health.observe(start, ignoreRefused(err))
		if err != nil {
			return nil, err
		}
		return c, nil
	}
	ck, err := r.Cookie(CookieName)
	if err != nil || ck.Value == "" {
		return &caller{}, nil
	}
	c := &caller{secret: ck.Value}
	var seen time.Time
	c.service, c.user, seen, err = creds.Session(ctx, s.cfg.Pool, ck.Value, now.Add(-SessionIdle))
	s.health.observe(start, ignoreRefused(err))
	if err != nil {
		return nil, err
	}
	if now.Sub(seen) > touchEvery {
		if err := creds.TouchSession(ctx, s.cfg.Pool, ck.Value, now); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// ignoreRefused is err, but nil for errRefused: the database answered.
func ignoreRefused(err error) error {
	if errors.Is(err, errRefused) {
		return nil
	}
	return err
}

// checkCSRF checks the CSRF token of a POST authenticated by the session cookie.
func checkCSRF(r *http.Request, c *caller) bool {
	if c.secret == "" {
		return true
	}
	got := r.Header.Get("X-CSRF-Token")
	return got != "" && hmac.Equal([]byte(got), []byte(csrfToken(c.secret)))
}

// ---- API tokens

// ErrUnknownToken: TokenOwner was given a token that is not in force (never issued, or revoked).
var ErrUnknownToken = errors.New("web: the API token is unknown or revoked")

// TokenOwner returns the bot and the user an API token in force acts for, as the server sees
// them when the token is sent: ErrUnknownToken for one that is not. Programs that prepare data
// for a token's user (the load check) use it; the server itself identifies callers per request.
func TokenOwner(ctx context.Context, db botpg.DB, token string) (service int, user int64, err error) {
	token = strings.TrimSpace(token)
	if !strings.HasPrefix(token, botpg.TokenPrefix) {
		return 0, 0, fmt.Errorf("%w: it does not start with %s", ErrUnknownToken, botpg.TokenPrefix)
	}
	_, service, user, err = creds.Token(ctx, db, token)
	if errors.Is(err, botpg.ErrRefused) {
		return 0, 0, ErrUnknownToken
	}
	if err != nil {
		return 0, 0, fmt.Errorf("web: %w", err)
	}
	return service, user, nil
}
