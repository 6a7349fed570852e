package botpg

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// Ensure the life of a login ticket and its session: a ticket is stored as its hash only and
// redeemed once, before it expires, into a session that is found while it is used and ends
// alone or with the user's others; a ticket used up by its ref opens nothing.
func TestTicketsAndSessions(t *testing.T) {
	t.Parallel()
	_, pool, service := newStore(t)
	ctx := context.Background()
	if _, err := pool.Exec(ctx, `INSERT INTO users (id, chat_id, first_name) VALUES (7, 7, 'Ann')`); err != nil {
		t.Fatal(err)
	}
	var c Credentials
	now := time.Now().Truncate(time.Microsecond)
	tx := func(fn func(tx pgx.Tx) error) error { return pgx.BeginFunc(ctx, pool, fn) }
	issue := func(at time.Time) (ticket, ref string) {
		t.Helper()
		err := tx(func(tx pgx.Tx) error {
			var err error
			ticket, ref, err = c.IssueTicket(ctx, tx, service, 7, at, 10*time.Minute)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return ticket, ref
	}
	redeem := func(ticket string, at time.Time) (secret string, err error) {
		err = tx(func(tx pgx.Tx) error {
			secret, err = c.RedeemTicket(ctx, tx, ticket, at, time.Hour)
			return err
		})
		return secret, err
	}

	ticket, ref := issue(now)
	if len(ticket) != 22 {
		t.Errorf("the ticket %q", ticket)
	}
	var stored []byte
	if err := pool.QueryRow(ctx, `SELECT hash FROM web_login_ticket`).Scan(&stored); err != nil || !bytes.Equal(stored, SecretHash(ticket)) {
		t.Fatalf("stored %x, %v; want the ticket's hash", stored, err)
	}
	secret, err := redeem(ticket, now.Add(time.Minute))
	if err != nil || len(secret) != 43 {
		t.Fatalf("redeem: %q, %v", secret, err)
	}
	if _, err := redeem(ticket, now.Add(time.Minute)); !errors.Is(err, ErrRefused) {
		t.Errorf("redeemed twice: %v", err)
	}
	late, _ := issue(now)
	if _, err := redeem(late, now.Add(11*time.Minute)); !errors.Is(err, ErrRefused) {
		t.Errorf("redeemed once expired: %v", err)
	}
	undelivered, ref2 := issue(now)
	if ref2 == ref {
		t.Error("two tickets have one ref")
	}
	if err := c.UseUpTicket(ctx, pool, ref2); err != nil {
		t.Fatal(err)
	}
	if _, err := redeem(undelivered, now); !errors.Is(err, ErrRefused) {
		t.Errorf("redeemed once used up: %v", err)
	}
	if err := c.UseUpTicket(ctx, pool, "not hex"); !errors.Is(err, ErrBadTicketRef) {
		t.Errorf("a ref that is no ticket's: %v", err)
	}

	s, u, seen, err := c.Session(ctx, pool, secret, now)
	if err != nil || s != service || u != 7 || !seen.Equal(now.Add(time.Minute)) {
		t.Fatalf("the session: bot %d, user %d, seen %v, %v", s, u, seen, err)
	}
	if _, _, _, err := c.Session(ctx, pool, secret, now.Add(time.Minute)); !errors.Is(err, ErrRefused) {
		t.Errorf("a session unused since: %v", err)
	}
	if err := c.TouchSession(ctx, pool, secret, now.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if _, _, seen, err := c.Session(ctx, pool, secret, now.Add(time.Minute)); err != nil || !seen.Equal(now.Add(time.Hour)) {
		t.Errorf("the session touched: seen %v, %v", seen, err)
	}
	if _, _, _, err := c.Session(ctx, pool, "forged", now); !errors.Is(err, ErrRefused) {
		t.Errorf("a forged session: %v", err)
	}
	other, _ := issue(now)
	second, err := redeem(other, now)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.EndSession(ctx, pool, secret); err != nil {
		t.Fatal(err)
	}
	if ok, err := c.SessionLive(ctx, pool, SecretHash(secret)); err != nil || ok {
		t.Errorf("the session ended is live: %v, %v", ok, err)
	}
	if ok, err := c.SessionLive(ctx, pool, SecretHash(second)); err != nil || !ok {
		t.Errorf("the other session is not live: %v, %v", ok, err)
	}
	if err := c.EndSessions(ctx, pool, service, 7); err != nil {
		t.Fatal(err)
	}
	if ok, err := c.SessionLive(ctx, pool, SecretHash(second)); err != nil || ok {
		t.Errorf("a session is live after the end of all: %v, %v", ok, err)
	}
}

// Ensure an API token is stored as its hash only, acts for its user while in force, and is
// revoked once, by its admin's /token or as undelivered.
func TestAPITokens(t *testing.T) {
	t.Parallel()
	_, pool, service := newStore(t)
	ctx := context.Background()
	if _, err := pool.Exec(ctx, `INSERT INTO users (id, chat_id, first_name) VALUES (7, 7, 'Ann'), (8, 8, 'Boris')`); err != nil {
		t.Fatal(err)
	}
	var c Credentials
	now := time.Now()
	id, tok, err := c.IssueToken(ctx, pool, service, 8, 7, "arbiter", now)
	if err != nil || !strings.HasPrefix(tok, TokenPrefix) || len(tok) != len(TokenPrefix)+43 {
		t.Fatalf("issue: %d %q, %v", id, tok, err)
	}
	if n := countWhere(t, pool, `SELECT count(*) FROM web_api_token WHERE hash = $1 AND name = 'arbiter'`, SecretHash(tok)); n != 1 {
		t.Fatalf("%d tokens stored by their hash", n)
	}
	if got, s, u, err := c.Token(ctx, pool, tok); err != nil || got != id || s != service || u != 8 {
		t.Fatalf("the token: %d, bot %d, user %d, %v", got, s, u, err)
	}
	if _, _, _, err := c.Token(ctx, pool, tok+"x"); !errors.Is(err, ErrRefused) {
		t.Errorf("a forged token: %v", err)
	}
	if ok, err := c.RevokeToken(ctx, pool, service+1, id, now); err != nil || ok {
		t.Errorf("revoked by another bot: %v, %v", ok, err)
	}
	if ok, err := c.RevokeToken(ctx, pool, service, id, now); err != nil || !ok {
		t.Fatalf("revoke: %v, %v", ok, err)
	}
	if ok, err := c.RevokeToken(ctx, pool, service, id, now); err != nil || ok {
		t.Errorf("revoked twice: %v, %v", ok, err)
	}
	if _, _, _, err := c.Token(ctx, pool, tok); !errors.Is(err, ErrRefused) {
		t.Errorf("a revoked token: %v", err)
	}
	if ok, err := c.TokenLive(ctx, pool, id); err != nil || ok {
		t.Errorf("a revoked token is live: %v, %v", ok, err)
	}

	id2, _, err := c.IssueToken(ctx, pool, service, 8, 7, "", now)
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := c.TokenLive(ctx, pool, id2); err != nil || !ok {
		t.Errorf("a token in force is not live: %v, %v", ok, err)
	}
	if user, admin, revoked, err := c.RevokeUndelivered(ctx, pool, service, id2); err != nil || !revoked || user != 8 || admin != 7 {
		t.Fatalf("revoke the undelivered: user %d, admin %d, %v, %v", user, admin, revoked, err)
	}
	if _, _, revoked, err := c.RevokeUndelivered(ctx, pool, service, id2); err != nil || revoked {
		t.Errorf("revoked twice as undelivered: %v, %v", revoked, err)
	}
}

// countWhere runs a count.
func countWhere(t *testing.T, db DB, sql string, args ...any) int {
	t.Helper()
	var n int
	if err := db.QueryRow(context.Background(), sql, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// Ensure a Mini App's initData opens one session only: the same data again is refused and opens
// nothing, another bot's record of the same hash is its own, and the records go once expired.
func TestMiniAppSessions(t *testing.T) {
	t.Parallel()
	s, pool, service := newStore(t)
	ctx := context.Background()
	if _, err := pool.Exec(ctx, `INSERT INTO users (id, chat_id, first_name) VALUES (7, 7, 'Ann')`); err != nil {
		t.Fatal(err)
	}
	var other int
	if err := pool.QueryRow(ctx, `INSERT INTO service (bot_user_id, username) VALUES (99, 'other') RETURNING id`).Scan(&other); err != nil {
		t.Fatal(err)
	}
	var c Credentials
	now := time.Now().Truncate(time.Microsecond)
	open := func(service int, hash []byte, expires time.Time) (secret string, err error) {
		err = pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
			secret, err = c.OpenMiniAppSession(ctx, tx, service, 7, hash, now, expires, time.Hour)
			return err
		})
		return secret, err
	}
	sessions := func() int {
		var n int
		if err := pool.QueryRow(ctx, `SELECT count(*) FROM web_session`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	fresh, stale := bytes.Repeat([]byte{1}, 32), bytes.Repeat([]byte{2}, 32)
	secret, err := open(service, fresh, now.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if svc, user, _, err := c.Session(ctx, pool, secret, now.Add(-time.Minute)); err != nil || svc != service || user != 7 {
		t.Fatalf("the session: %d %d %v", svc, user, err)
	}
	if _, err := open(service, fresh, now.Add(time.Hour)); !errors.Is(err, ErrReplayed) {
		t.Fatalf("the same data again: %v, want ErrReplayed", err)
	}
	if n := sessions(); n != 1 {
		t.Fatalf("%d sessions after a replay, want 1", n)
	}
	if _, err := open(other, fresh, now.Add(time.Hour)); err != nil {
		t.Fatalf("another bot's data of the same hash: %v", err)
	}
	if _, err := open(service, stale, now.Add(-time.Second)); err != nil {
		t.Fatal(err)
	}
	if err := s.Cleanup(ctx, time.Hour); err != nil {
		t.Fatal(err)
	}
	rows, err := pool.Query(ctx, `SELECT encode(hash, 'hex') FROM web_app_data_used WHERE service_id = $1`, service)
	if err != nil {
		t.Fatal(err)
	}
	left, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	if len(left) != 1 || left[0] != strings.Repeat("01", 32) {
		t.Errorf("after the cleanup: %v, want the unexpired record only", left)
	}
}
