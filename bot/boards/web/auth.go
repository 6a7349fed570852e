package web

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"github.com/questbot/questbot/bot"
	"github.com/questbot/questbot/bot/boards"
	"github.com/questbot/questbot/bot/botpg"
	"github.com/questbot/questbot/scripts"
)

// # Identity
//
// Nobody has a password. /web in the bot (the built-in board.web) gives a login link with a
// ticket: 128 random bits, single use, valid for TicketTTL. Redeeming it (GET /login/<ticket>)
// makes a session: 256 random bits in the cookie qb_session, valid until it has not been used for
// SessionIdle. An admin's /token (board.token) issues an API token for a program, qbt_ and 256
// random bits, sent as "Authorization: Bearer"; it is valid until revoked. Only the SHA-256 hash
// of each secret is stored (migration 017_web.sql), so the database opens nothing; the message
// that carries a link or a token keeps it only until it is sent, and one that could not be
// delivered has its credential revoked (undelivered.go).
//
// Cross-site requests: the cookie is SameSite=Lax, and a POST authenticated by the cookie must
// carry the header X-CSRF-Token with the session's CSRF token, an HMAC of the session's secret
// (so it needs no storage, and only a page that can read the API's answers has it). A call with
// a Bearer token carries no cookie, so it needs none.

// Lifetimes of the secrets.
const (
	// TicketTTL is how long a login link works.
	TicketTTL = 10 * time.Minute
	// SessionIdle is how long a session lasts unused.
	SessionIdle = 30 * 24 * time.Hour
	// touchEvery is how often a session in use records that it was used.
	touchEvery = time.Minute
)

// CookieName is the session cookie.
const CookieName = "qb_session"

// TokenPrefix starts every API token.
const TokenPrefix = "qbt_"

// newSecret returns n random bytes in base64url.
func newSecret(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// hash is what is stored of a secret.
func hash(secret string) []byte {
	h := sha256.Sum256([]byte(secret))
	return h[:]
}

// csrfToken is the CSRF token of a session, derived from its secret.
func csrfToken(secret string) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte("questbot csrf"))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// errRefused is a ticket, session or token that is unknown, used, expired or revoked.
var errRefused = errors.New("refused")

// ---- Tickets

const issueTicketSQL = `
	INSERT INTO web_login_ticket (hash, service_id, user_id, created_at, expires_at) VALUES ($1, $2, $3, $4, $5)`

// The tickets that expired a day ago go: a used or expired ticket is kept a while for the record.
const pruneTicketsSQL = `DELETE FROM web_login_ticket WHERE expires_at < $1`

// IssueTicket makes a login ticket for a user of a bot, valid from now for TicketTTL, in the
// caller's transaction, and returns it.
func IssueTicket(ctx context.Context, db pgx.Tx, service int, user int64, now time.Time) (string, error) {
	ticket := newSecret(16)
	if _, err := db.Exec(ctx, pruneTicketsSQL, now.Add(-24*time.Hour)); err != nil {
		return "", fmt.Errorf("web: login ticket: %w", err)
	}
	if _, err := db.Exec(ctx, issueTicketSQL, hash(ticket), service, user, now, now.Add(TicketTTL)); err != nil {
		return "", fmt.Errorf("web: login ticket: %w", err)
	}
	return ticket, nil
}

const redeemTicketSQL = `
	UPDATE web_login_ticket SET used_at = $2
	WHERE hash = $1 AND used_at IS NULL AND expires_at > $2
	RETURNING service_id, user_id`

const createSessionSQL = `
	INSERT INTO web_session (hash, service_id, user_id, created_at, last_seen_at) VALUES ($1, $2, $3, $4, $4)`

const pruneSessionsSQL = `DELETE FROM web_session WHERE service_id = $1 AND user_id = $2 AND last_seen_at < $3`

// redeem uses a ticket and opens a session for its user, returning the session's secret.
// Returns errRefused for a ticket unknown, used or expired.
func redeem(ctx context.Context, db pgx.Tx, ticket string, now time.Time) (string, error) {
	var service int
	var user int64
	err := db.QueryRow(ctx, redeemTicketSQL, hash(ticket), now).Scan(&service, &user)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", errRefused
	}
	if err != nil {
		return "", fmt.Errorf("web: redeem a ticket: %w", err)
	}
	if _, err := db.Exec(ctx, pruneSessionsSQL, service, user, now.Add(-SessionIdle)); err != nil {
		return "", fmt.Errorf("web: redeem a ticket: %w", err)
	}
	secret := newSecret(32)
	if _, err := db.Exec(ctx, createSessionSQL, hash(secret), service, user, now); err != nil {
		return "", fmt.Errorf("web: open a session: %w", err)
	}
	return secret, nil
}

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

const sessionSQL = `SELECT service_id, user_id, last_seen_at FROM web_session WHERE hash = $1 AND last_seen_at > $2`

const touchSessionSQL = `UPDATE web_session SET last_seen_at = $2 WHERE hash = $1`

const tokenSQL = `SELECT id, service_id, user_id FROM web_api_token WHERE hash = $1 AND revoked_at IS NULL`

// identify finds the caller of a request: an API token (Authorization: Bearer), else the
// session cookie; the zero caller without either. Returns errRefused for a token or cookie that
// opens nothing.
func (s *Server) identify(ctx context.Context, r *http.Request) (*caller, error) {
	now := s.now()
	start := time.Now()
	if auth := r.Header.Get("Authorization"); auth != "" {
		tok, ok := strings.CutPrefix(auth, "Bearer ")
		tok = strings.TrimSpace(tok)
		if !ok || !strings.HasPrefix(tok, TokenPrefix) {
			return nil, errRefused
		}
		c := &caller{}
		err := s.cfg.Pool.QueryRow(ctx, tokenSQL, hash(tok)).Scan(&c.token, &c.service, &c.user)
		s.health.observe(start, ignoreNoRows(err))
		if errors.Is(err, pgx.ErrNoRows) {
			return nil, errRefused
		}
		if err != nil {
			return nil, fmt.Errorf("web: API token: %w", err)
		}
		return c, nil
	}
	ck, err := r.Cookie(CookieName)
	if err != nil || ck.Value == "" {
		return &caller{}, nil
	}
	c := &caller{secret: ck.Value}
	var seen time.Time
	err = s.cfg.Pool.QueryRow(ctx, sessionSQL, hash(ck.Value), now.Add(-SessionIdle)).Scan(&c.service, &c.user, &seen)
	s.health.observe(start, ignoreNoRows(err))
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, errRefused
	}
	if err != nil {
		return nil, fmt.Errorf("web: session: %w", err)
	}
	if now.Sub(seen) > touchEvery {
		if _, err := s.cfg.Pool.Exec(ctx, touchSessionSQL, hash(ck.Value), now); err != nil {
			return nil, fmt.Errorf("web: session: %w", err)
		}
	}
	return c, nil
}

// ignoreNoRows is err, but nil for pgx.ErrNoRows: the database answered.
func ignoreNoRows(err error) error {
	if errors.Is(err, pgx.ErrNoRows) {
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

const endSessionSQL = `DELETE FROM web_session WHERE hash = $1`

const endSessionsSQL = `DELETE FROM web_session WHERE service_id = $1 AND user_id = $2`

// ---- API tokens

const issueTokenSQL = `
	INSERT INTO web_api_token (hash, name, service_id, user_id, created_by, created_at)
	VALUES ($1, $2, $3, $4, $5, $6) RETURNING id`

const revokeTokenSQL = `
	UPDATE web_api_token SET revoked_at = $3 WHERE id = $1 AND service_id = $2 AND revoked_at IS NULL`

// IssueToken makes an API token acting as user in a bot, named name, issued by admin, and
// returns its id and the token (shown once: only its hash is kept).
func IssueToken(ctx context.Context, db pgx.Tx, service int, user, admin int64, name string, now time.Time) (int64, string, error) {
	tok := TokenPrefix + newSecret(32)
	var id int64
	if err := db.QueryRow(ctx, issueTokenSQL, hash(tok), name, service, user, admin, now).Scan(&id); err != nil {
		return 0, "", fmt.Errorf("web: issue an API token: %w", err)
	}
	return id, tok, nil
}

// ErrUnknownToken: TokenOwner was given a token that is not in force (never issued, or revoked).
var ErrUnknownToken = errors.New("web: the API token is unknown or revoked")

// TokenOwner returns the bot and the user an API token in force acts for, as the server sees
// them when the token is sent: ErrUnknownToken for one that is not. Programs that prepare data
// for a token's user (the load check) use it; the server itself identifies callers per request.
func TokenOwner(ctx context.Context, db interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}, token string) (service int, user int64, err error) {
	token = strings.TrimSpace(token)
	if !strings.HasPrefix(token, TokenPrefix) {
		return 0, 0, fmt.Errorf("%w: it does not start with %s", ErrUnknownToken, TokenPrefix)
	}
	var id int64
	err = db.QueryRow(ctx, tokenSQL, hash(token)).Scan(&id, &service, &user)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, 0, ErrUnknownToken
	}
	if err != nil {
		return 0, 0, fmt.Errorf("web: API token: %w", err)
	}
	return service, user, nil
}

// RevokeToken revokes an API token of a bot; it reports whether one in force was revoked.
func RevokeToken(ctx context.Context, db pgx.Tx, service int, id int64, now time.Time) (bool, error) {
	tag, err := db.Exec(ctx, revokeTokenSQL, id, service, now)
	if err != nil {
		return false, fmt.Errorf("web: revoke API token %d: %w", id, err)
	}
	return tag.RowsAffected() == 1, nil
}

// ---- The built-ins

// Builtins returns the built-ins of the commands of the web game server (migration 017_web.sql),
// by name; publicURL is the server's address (PUBLIC_URL), now its clock (time.Now when nil):
//
//   - board.web: a login link in the field "link"; code ok, or off when no address is set.
//   - board.token (args): "<user id> [name]" issues an API token for that user of the bot
//     (fields token, id, who; code ok, or unknown for a user the bot does not know);
//     "revoke <id>" revokes one (code revoked, or not_found); usage for anything else;
//     forbidden for anyone but an admin, whatever the tree's guard says.
func Builtins(publicURL string, now func() time.Time) map[string]func(ctx context.Context, tx bot.Tx, u *bot.Update, args map[string]string) (*scripts.Result, error) {
	if now == nil {
		now = time.Now
	}
	publicURL = strings.TrimRight(publicURL, "/")
	return map[string]func(ctx context.Context, tx bot.Tx, u *bot.Update, args map[string]string) (*scripts.Result, error){
		"board.web": func(ctx context.Context, tx bot.Tx, u *bot.Update, _ map[string]string) (*scripts.Result, error) {
			if publicURL == "" {
				return &scripts.Result{Code: "off"}, nil
			}
			at := now()
			ticket, err := IssueTicket(ctx, tx.DB(), u.Service, u.User.ID, at)
			if err != nil {
				return nil, err
			}
			// The link is not sent once it no longer works, nor kept once its message failed
			// (undelivered.go).
			err = bot.KeepSecret(tx, bot.Secret{Kind: KindTicket, ID: hex.EncodeToString(hash(ticket)), Values: []string{ticket},
				Expires: at.Add(TicketTTL)})
			if err != nil {
				return nil, err
			}
			return result("ok", map[string]string{"link": publicURL + "/login/" + ticket})
		},
		"board.token": func(ctx context.Context, tx bot.Tx, u *bot.Update, args map[string]string) (*scripts.Result, error) {
			return token(ctx, tx, u, args["args"], now())
		},
	}
}

// result builds a built-in's answer with text fields.
func result(code string, fields map[string]string) (*scripts.Result, error) {
	res := &scripts.Result{Code: code, Fields: map[string]json.RawMessage{}}
	for k, v := range fields {
		raw, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		res.Fields[k] = raw
	}
	return res, nil
}

// maxTokenName bounds the name of an API token (runes; the table allows 64 characters).
const maxTokenName = 64

// token is /token: issue or revoke an API token (admins).
func token(ctx context.Context, tx bot.Tx, u *bot.Update, args string, now time.Time) (*scripts.Result, error) {
	if u.User == nil || !u.User.IsAdmin {
		return &scripts.Result{Code: "forbidden"}, nil
	}
	f := strings.Fields(args)
	if len(f) == 2 && strings.EqualFold(f[0], "revoke") {
		id, err := strconv.ParseInt(f[1], 10, 64)
		if err != nil || id <= 0 {
			return &scripts.Result{Code: "usage"}, nil
		}
		ok, err := RevokeToken(ctx, tx.DB(), u.Service, id, now)
		if err != nil {
			return nil, err
		}
		code := "revoked"
		if !ok {
			code = "not_found"
		}
		return result(code, map[string]string{"id": f[1]})
	}
	if len(f) == 0 {
		return &scripts.Result{Code: "usage"}, nil
	}
	user, err := strconv.ParseInt(f[0], 10, 64)
	if err != nil || user <= 0 {
		return &scripts.Result{Code: "usage"}, nil
	}
	name := strings.Join(f[1:], " ")
	if utf8.RuneCountInString(name) > maxTokenName {
		name = string([]rune(name)[:maxTokenName])
	}
	users := botpg.NewUsers()
	_, joined, err := users.JoinedAt(ctx, tx.DB(), u.Service, user)
	if err != nil {
		return nil, fmt.Errorf("web: /token: %w", err)
	}
	if !joined {
		return result("unknown", map[string]string{"who": f[0]})
	}
	p, err := users.Profile(ctx, tx.DB(), user)
	if err != nil {
		return nil, fmt.Errorf("web: /token: %w", err)
	}
	who := fmt.Sprintf("«%s» (%d)", p.FirstName, user)
	id, tok, err := IssueToken(ctx, tx.DB(), u.Service, user, u.User.ID, name, now)
	if err != nil {
		return nil, err
	}
	// A token whose message is not delivered is revoked, and the admin told (undelivered.go).
	err = bot.KeepSecret(tx, bot.Secret{Kind: KindToken, ID: strconv.FormatInt(id, 10), Values: []string{tok},
		Expires: now.Add(TokenDeliveryTTL)})
	if err != nil {
		return nil, err
	}
	return result("ok", map[string]string{"token": tok, "id": strconv.FormatInt(id, 10), "who": who})
}
