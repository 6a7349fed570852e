package web

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/questbot/questbot/bot/botpg"
)

// Ensure the check a hub makes after each new LISTEN closes the streams whose grants ended while
// it was not listening (their notifications are lost), and those only: a session gone, a token
// revoked, spectators switched off; the live session, token and switch keep theirs.
func TestRecheckAfterReconnect(t *testing.T) {
	t.Parallel()
	d := newEventsDB(t)
	ctx := context.Background()
	watched, open := d.board(t), d.board(t)
	exec := func(sql string, args ...any) {
		t.Helper()
		if _, err := d.pool.Exec(ctx, sql, args...); err != nil {
			t.Fatal(err)
		}
	}
	for _, secret := range []string{"gone", "kept"} {
		exec(`INSERT INTO web_session (hash, service_id, user_id, created_at, last_seen_at) VALUES ($1, $2, $3, now(), now())`,
			botpg.SecretHash(secret), d.service, d.user)
	}
	var revoked, kept int64
	for secret, p := range map[string]*int64{"revoked": &revoked, "kept": &kept} {
		if err := d.pool.QueryRow(ctx, `INSERT INTO web_api_token (hash, service_id, user_id, created_by, created_at)
			VALUES ($1, $2, $3, $3, now()) RETURNING id`, botpg.SecretHash(botpg.TokenPrefix+secret), d.service, d.user).Scan(p); err != nil {
			t.Fatal(err)
		}
	}
	for _, b := range []int64{watched, open} {
		exec(`INSERT INTO board_spectators (board_id, allowed, set_by, set_at) VALUES ($1, true, $2, now())`, b, d.user)
	}

	h := NewHub(d.pool, nil) // not running: the notifications below reach nobody
	grants := map[string]Grant{
		"a session gone":           {Session: botpg.SecretHash("gone"), Board: watched},
		"a session kept":           {Session: botpg.SecretHash("kept"), Board: watched},
		"a token revoked":          {Token: revoked, Board: watched},
		"a token kept":             {Token: kept, Board: watched},
		"a spectator switched off": {Board: watched, Spectator: true},
		"a spectator still let in": {Board: open, Spectator: true},
		"a player, switch off":     {Session: botpg.SecretHash("kept"), Board: watched},
	}
	chans := map[string]<-chan struct{}{}
	for name, g := range grants {
		ch, release := h.Guard(g)
		defer release()
		chans[name] = ch
	}
	exec(`DELETE FROM web_session WHERE hash = $1`, botpg.SecretHash("gone"))
	exec(`UPDATE web_api_token SET revoked_at = now() WHERE id = $1`, revoked)
	exec(`UPDATE board_spectators SET allowed = false WHERE board_id = $1`, watched)

	conn, err := pgx.ConnectConfig(ctx, d.pool.Config().ConnConfig)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if err := h.recheck(ctx, conn); err != nil {
		t.Fatal(err)
	}
	for name, ch := range chans {
		closed := false
		select {
		case <-ch:
			closed = true
		default:
		}
		want := name == "a session gone" || name == "a token revoked" || name == "a spectator switched off"
		if closed != want {
			t.Errorf("%s: closed %v, want %v", name, closed, want)
		}
	}
}
