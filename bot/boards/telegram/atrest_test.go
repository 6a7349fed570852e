package telegram_test

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/questbot/questbot/bot/emulator/tgemu"
	"github.com/questbot/questbot/migrations/pgtest"
)

// Ensure no credential rests in the database's files: after a session in which an admin is
// given API tokens (one delivered, one whose message Telegram refused) and a user login links
// (one delivered, one to a chat that blocked the bot), none of them is found in any file of the
// PostgreSQL cluster, its write-ahead log included, once it is checkpointed. (Telegram's copy of
// the delivered messages is the emulator's, outside the database.)
func TestNoCredentialAtRest(t *testing.T) {
	t.Parallel()
	e := newAccessEnv(t)
	e.greet(t, 1, "Ann")
	e.greet(t, 2, "Boris")
	e.Exec(t, `UPDATE users SET is_admin = true WHERE id = 1`)
	e.allow("Telegram rejected a request")
	e.allow("An API token could not be delivered; it is revoked and its issuer told")
	sentAnn := e.sentTo(1)

	after := e.LastID(1)
	e.Send(t, 1, "/token 2 delivered")
	e.WaitTextAfter(t, 1, after, "API token #1")
	e.Bot.InjectFault(tgemu.Fault{Method: "sendMessage", ChatID: 1, Code: 400})
	after = e.LastID(1)
	e.Send(t, 1, "/token 2 refused")
	e.WaitTextAfter(t, 1, after, "could not be delivered")
	after = e.LastID(1)
	e.Send(t, 1, "/web")
	e.WaitTextAfter(t, 1, after, "/login/")
	e.WaitIdle(t)
	var secrets []string
	for _, s := range sentAnn() {
		secrets = append(secrets, tokenRE.FindAllString(s, -1)...)
		for _, m := range ticketRE.FindAllStringSubmatch(s, -1) {
			secrets = append(secrets, m[1])
		}
	}
	sentBoris := e.sentTo(2)
	e.Bot.InjectFault(tgemu.Fault{Method: "sendMessage", ChatID: 2, Code: 403})
	e.Send(t, 2, "/web")
	e.WaitFor(t, "Boris's link used up", func() bool {
		return e.QueryInt(t, `SELECT count(*) FROM web_login_ticket WHERE used_at IS NOT NULL`) == 1
	})
	e.WaitIdle(t)
	for _, s := range sentBoris() {
		for _, m := range ticketRE.FindAllStringSubmatch(s, -1) {
			secrets = append(secrets, m[1])
		}
	}
	if len(secrets) != 4 {
		t.Fatalf("%d credentials sent (%q), want 2 tokens and 2 tickets", len(secrets), secrets)
	}
	e.Exec(t, `CHECKPOINT`)
	dir := pgtest.Cluster(t).DataDir()
	files := 0
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !d.Type().IsRegular() {
			return nil // a file that went away meanwhile (a recycled segment)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return nil
		}
		files++
		for _, s := range secrets {
			if bytes.Contains(data, []byte(s)) {
				t.Errorf("%s holds the credential %s…", path, s[:8])
			}
		}
		return nil
	})
	if err != nil || files < 100 {
		t.Fatalf("read %d files of %s: %v", files, dir, err)
	}
}
