package botpg

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// # The users' credentials for the web game server
//
// Credentials is the one place that reads and writes what lets a user of a bot into the web
// game server (migration 017_web.sql): the login tickets of the links /web gives
// (web_login_ticket), the browsers' sessions a ticket opens (web_session), the API tokens an
// admin's /token issues to programs (web_api_token), and the Mini Apps' initData that opened a
// session, kept so that none opens a second one (web_app_data_used, migration 026_miniapp.sql). The Telegram view issues tickets and tokens
// and revokes those nobody received; the web game server redeems tickets, looks sessions and
// tokens up, ends sessions and asks whether the credential of an event stream still holds.
//
// Every secret is made here, random: a ticket is 128 bits, a session's secret 256 and an API
// token TokenPrefix and 256 bits, each written in base64url. Only its SHA-256 hash (SecretHash)
// is stored, so the database opens nothing. How long each lives is the caller's to say.

// TokenPrefix starts every API token.
const TokenPrefix = "qbt_"

// ErrRefused: a ticket, session or API token that is unknown, used, expired or revoked.
var ErrRefused = errors.New("botpg: the credential is unknown, used, expired or revoked")

// ErrBadTicketRef: a ticket's ref (see IssueTicket) that names no ticket.
var ErrBadTicketRef = errors.New("botpg: not the ref of a login ticket")

// Credentials is the store of the users' credentials for the web game server. The zero value is
// ready; every method takes the caller's transaction, or a connection.
type Credentials struct{}

// newSecret returns n random bytes in base64url.
func newSecret(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// SecretHash is what is stored of a secret, and by what a session is named when its end is
// announced (web_revoked, migration 025_secrets.sql, in hex).
func SecretHash(secret string) []byte {
	h := sha256.Sum256([]byte(secret))
	return h[:]
}

// ---- Login tickets

const issueTicketSQL = `
	INSERT INTO web_login_ticket (hash, service_id, user_id, created_at, expires_at) VALUES ($1, $2, $3, $4, $5)`

// The tickets that expired a day ago go: a used or expired ticket is kept a while for the record.
const pruneTicketsSQL = `DELETE FROM web_login_ticket WHERE expires_at < $1`

// IssueTicket makes a login ticket for a user of a bot, valid from now for ttl, and returns it
// with its ref: the hash in hex, which names the ticket without opening it (bot.Secret.ID, so
// that UseUpTicket can find it again).
func (Credentials) IssueTicket(ctx context.Context, db pgx.Tx, service int, user int64, now time.Time, ttl time.Duration) (ticket, ref string, err error) {
	ticket = newSecret(16)
	if _, err := db.Exec(ctx, pruneTicketsSQL, now.Add(-24*time.Hour)); err != nil {
		return "", "", fmt.Errorf("login ticket: %w", err)
	}
	h := SecretHash(ticket)
	if _, err := db.Exec(ctx, issueTicketSQL, h, service, user, now, now.Add(ttl)); err != nil {
		return "", "", fmt.Errorf("login ticket: %w", err)
	}
	return ticket, hex.EncodeToString(h), nil
}

const redeemTicketSQL = `
	UPDATE web_login_ticket SET used_at = $2
	WHERE hash = $1 AND used_at IS NULL AND expires_at > $2
	RETURNING service_id, user_id`

const createSessionSQL = `
	INSERT INTO web_session (hash, service_id, user_id, created_at, last_seen_at) VALUES ($1, $2, $3, $4, $4)`

const pruneSessionsSQL = `DELETE FROM web_session WHERE service_id = $1 AND user_id = $2 AND last_seen_at < $3`

// RedeemTicket uses a ticket and opens a session for its user, returning the session's secret;
// the user's sessions unused for idle go on the way. Returns ErrRefused for a ticket unknown,
// used or expired.
func (Credentials) RedeemTicket(ctx context.Context, db pgx.Tx, ticket string, now time.Time, idle time.Duration) (string, error) {
	var service int
	var user int64
	err := db.QueryRow(ctx, redeemTicketSQL, SecretHash(ticket), now).Scan(&service, &user)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", ErrRefused
	}
	if err != nil {
		return "", fmt.Errorf("redeem a login ticket: %w", err)
	}
	return openSession(ctx, db, service, user, now, idle)
}

const ticketLiveSQL = `
	SELECT EXISTS (SELECT 1 FROM web_login_ticket WHERE hash = $1 AND used_at IS NULL AND expires_at > $2)`

// TicketLive says whether a ticket would open a session at now (known, unused, not expired),
// without using it: the page of a login link asks before it offers to log in.
func (Credentials) TicketLive(ctx context.Context, db DB, ticket string, now time.Time) (bool, error) {
	var live bool
	if err := db.QueryRow(ctx, ticketLiveSQL, SecretHash(ticket), now).Scan(&live); err != nil {
		return false, fmt.Errorf("look up a login ticket: %w", err)
	}
	return live, nil
}

// openSession opens a session for a user of a bot, returning its secret; the user's sessions
// unused for idle go on the way.
func openSession(ctx context.Context, db pgx.Tx, service int, user int64, now time.Time, idle time.Duration) (string, error) {
	if _, err := db.Exec(ctx, pruneSessionsSQL, service, user, now.Add(-idle)); err != nil {
		return "", fmt.Errorf("open a session: %w", err)
	}
	secret := newSecret(32)
	if _, err := db.Exec(ctx, createSessionSQL, SecretHash(secret), service, user, now); err != nil {
		return "", fmt.Errorf("open a session: %w", err)
	}
	return secret, nil
}

// useUpTicketSQL uses up a login ticket, unless it was used already.
const useUpTicketSQL = `UPDATE web_login_ticket SET used_at = now() WHERE hash = $1 AND used_at IS NULL`

// UseUpTicket uses up the ticket a ref names (see IssueTicket), so that its link opens nothing:
// the ticket of a link that could not be delivered. Returns ErrBadTicketRef for a ref that is no
// ticket's.
func (Credentials) UseUpTicket(ctx context.Context, db DB, ref string) error {
	h, err := hex.DecodeString(ref)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrBadTicketRef, err)
	}
	if _, err := db.Exec(ctx, useUpTicketSQL, h); err != nil {
		return fmt.Errorf("use up a login ticket: %w", err)
	}
	return nil
}

// ---- Sessions

const sessionSQL = `SELECT service_id, user_id, last_seen_at FROM web_session WHERE hash = $1 AND last_seen_at > $2`

// Session returns the bot and the user of the session whose secret is secret, and when it was
// last used, if that was after since. Returns ErrRefused when there is none.
func (Credentials) Session(ctx context.Context, db DB, secret string, since time.Time) (service int, user int64, seen time.Time, err error) {
	err = db.QueryRow(ctx, sessionSQL, SecretHash(secret), since).Scan(&service, &user, &seen)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, 0, time.Time{}, ErrRefused
	}
	if err != nil {
		return 0, 0, time.Time{}, fmt.Errorf("session: %w", err)
	}
	return service, user, seen, nil
}

const touchSessionSQL = `UPDATE web_session SET last_seen_at = $2 WHERE hash = $1`

// TouchSession records that the session whose secret is secret was used at now.
func (Credentials) TouchSession(ctx context.Context, db DB, secret string, now time.Time) error {
	if _, err := db.Exec(ctx, touchSessionSQL, SecretHash(secret), now); err != nil {
		return fmt.Errorf("session: %w", err)
	}
	return nil
}

const endSessionSQL = `DELETE FROM web_session WHERE hash = $1`

// EndSession ends the session whose secret is secret (a logout).
func (Credentials) EndSession(ctx context.Context, db DB, secret string) error {
	if _, err := db.Exec(ctx, endSessionSQL, SecretHash(secret)); err != nil {
		return fmt.Errorf("end a session: %w", err)
	}
	return nil
}

const endSessionsSQL = `DELETE FROM web_session WHERE service_id = $1 AND user_id = $2`

// EndSessions ends every session of a user of a bot (a logout everywhere).
func (Credentials) EndSessions(ctx context.Context, db DB, service int, user int64) error {
	if _, err := db.Exec(ctx, endSessionsSQL, service, user); err != nil {
		return fmt.Errorf("end the sessions of user %d: %w", user, err)
	}
	return nil
}

const sessionLiveSQL = `SELECT EXISTS (SELECT 1 FROM web_session WHERE hash = $1)`

// SessionLive reports whether the session whose secret's hash is hash (SecretHash) is still
// there.
func (Credentials) SessionLive(ctx context.Context, db DB, hash []byte) (bool, error) {
	var ok bool
	if err := db.QueryRow(ctx, sessionLiveSQL, hash).Scan(&ok); err != nil {
		return false, fmt.Errorf("session: %w", err)
	}
	return ok, nil
}

// ---- API tokens

const issueTokenSQL = `
	INSERT INTO web_api_token (hash, name, service_id, user_id, created_by, created_at)
	VALUES ($1, $2, $3, $4, $5, $6) RETURNING id`

// IssueToken makes an API token acting as user in a bot, named name, issued by admin, and
// returns its id and the token (shown once: only its hash is kept).
func (Credentials) IssueToken(ctx context.Context, db DB, service int, user, admin int64, name string, now time.Time) (int64, string, error) {
	tok := TokenPrefix + newSecret(32)
	var id int64
	if err := db.QueryRow(ctx, issueTokenSQL, SecretHash(tok), name, service, user, admin, now).Scan(&id); err != nil {
		return 0, "", fmt.Errorf("issue an API token: %w", err)
	}
	return id, tok, nil
}

const tokenSQL = `SELECT id, service_id, user_id FROM web_api_token WHERE hash = $1 AND revoked_at IS NULL`

// Token returns the id of an API token in force, and the bot and the user it acts for. Returns
// ErrRefused for a token never issued, or revoked.
func (Credentials) Token(ctx context.Context, db DB, token string) (id int64, service int, user int64, err error) {
	err = db.QueryRow(ctx, tokenSQL, SecretHash(token)).Scan(&id, &service, &user)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, 0, 0, ErrRefused
	}
	if err != nil {
		return 0, 0, 0, fmt.Errorf("API token: %w", err)
	}
	return id, service, user, nil
}

const tokenLiveSQL = `SELECT EXISTS (SELECT 1 FROM web_api_token WHERE id = $1 AND revoked_at IS NULL)`

// TokenLive reports whether the API token id is still in force.
func (Credentials) TokenLive(ctx context.Context, db DB, id int64) (bool, error) {
	var ok bool
	if err := db.QueryRow(ctx, tokenLiveSQL, id).Scan(&ok); err != nil {
		return false, fmt.Errorf("API token %d: %w", id, err)
	}
	return ok, nil
}

const revokeTokenSQL = `
	UPDATE web_api_token SET revoked_at = $3 WHERE id = $1 AND service_id = $2 AND revoked_at IS NULL`

// RevokeToken revokes an API token of a bot at now; it reports whether one in force was revoked.
func (Credentials) RevokeToken(ctx context.Context, db DB, service int, id int64, now time.Time) (bool, error) {
	tag, err := db.Exec(ctx, revokeTokenSQL, id, service, now)
	if err != nil {
		return false, fmt.Errorf("revoke API token %d: %w", id, err)
	}
	return tag.RowsAffected() == 1, nil
}

// revokeUndeliveredSQL revokes an API token not delivered, unless it was revoked already, and
// returns for whom it was and who asked for it.
const revokeUndeliveredSQL = `
	UPDATE web_api_token SET revoked_at = now()
	WHERE id = $1 AND service_id = $2 AND revoked_at IS NULL
	RETURNING user_id, created_by`

// RevokeUndelivered revokes an API token of a bot whose message could not be delivered, and
// returns the user it acted for and the admin who asked for it; revoked is false (and nothing
// changes) when it was revoked already.
func (Credentials) RevokeUndelivered(ctx context.Context, db DB, service int, id int64) (user, admin int64, revoked bool, err error) {
	err = db.QueryRow(ctx, revokeUndeliveredSQL, id, service).Scan(&user, &admin)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, 0, false, nil
	}
	if err != nil {
		return 0, 0, false, fmt.Errorf("revoke token %d: %w", id, err)
	}
	return user, admin, true, nil
}

// ---- Mini Apps

// ErrReplayed: a Mini App's initData that opened a session already.
var ErrReplayed = errors.New("botpg: the Mini App's data was used already")

const useWebAppDataSQL = `
	INSERT INTO web_app_data_used (service_id, hash, user_id, used_at, expires_at) VALUES ($1, $2, $3, $4, $5)
	ON CONFLICT (service_id, hash) DO NOTHING`

// purgeWebAppDataSQL removes the records of initData that would be refused as stale anyway.
const purgeWebAppDataSQL = `DELETE FROM web_app_data_used WHERE expires_at < $1`

// OpenMiniAppSession opens a session for a user of a bot with a Mini App's initData, named by
// its signature hash (bot.WebAppData.Hash) and checked by the caller, and returns the session's
// secret; the record that the data was used is kept until expires, when the data would be
// refused as stale anyway. The user's sessions unused for idle go on the way. Returns
// ErrReplayed, and opens nothing, when the data opened a session already.
func (Credentials) OpenMiniAppSession(ctx context.Context, db pgx.Tx, service int, user int64, hash []byte, now, expires time.Time, idle time.Duration) (string, error) {
	tag, err := db.Exec(ctx, useWebAppDataSQL, service, hash, user, now, expires)
	if err != nil {
		return "", fmt.Errorf("use a Mini App's data: %w", err)
	}
	if tag.RowsAffected() == 0 {
		return "", ErrReplayed
	}
	return openSession(ctx, db, service, user, now, idle)
}

// purgeWebAppData removes the records of the Mini Apps' initData that expired before now
// (Store.Cleanup runs it).
func purgeWebAppData(ctx context.Context, db DB, now time.Time) error {
	if _, err := db.Exec(ctx, purgeWebAppDataSQL, now); err != nil {
		return fmt.Errorf("purge the used Mini App data: %w", err)
	}
	return nil
}
