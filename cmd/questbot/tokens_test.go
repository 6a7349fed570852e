package main

import (
	"bytes"
	"context"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"
	"github.com/jackc/pgx/v5"

	"github.com/questbot/questbot/bot/emulator/tgemu"
	"github.com/questbot/questbot/bot/testkit/wait"
	"github.com/questbot/questbot/migrations/pgtest"
)

// Ensure the token of a bot configured in the database does not stay there in plain text: a
// start with TOKEN_KEY seals it (and the bot runs), later starts with the key run it from the
// sealed token, and a start without the key, or with another, leaves it sealed and runs the
// other bots, saying why that one does not run. The token never appears in the logs.
func TestServeSealsTokens(t *testing.T) {
	t.Parallel()
	const envToken, dbToken = "900001:env-token", "900002:db-token-SECRET"
	emu := tgemu.New(tgemu.Options{})
	envBot, dbBot := emu.AddBot(envToken, "env_bot"), emu.AddBot(dbToken, "db_bot")
	srv := httptest.NewServer(emu)
	t.Cleanup(srv.Close)
	envBot.AddUser(tgbotapi.User{ID: 5, FirstName: "Ann", LanguageCode: "en"})
	dbBot.AddUser(tgbotapi.User{ID: 5, FirstName: "Ann", LanguageCode: "en"})

	url := pgtest.ConnString(t)
	ctx := context.Background()
	db, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close(ctx) })
	if _, err := db.Exec(ctx, `INSERT INTO service (token) VALUES ($1)`, dbToken); err != nil {
		t.Fatal(err)
	}

	const key = "5f4dcc3b5aa765d61d8327deb882cf995f4dcc3b5aa765d61d8327deb882cf99"
	// serve starts questbot serve with the key, talking to the emulator.
	serve := func(key string) *running {
		t.Helper()
		cfg := testConfig(t)
		cfg.DatabaseURL, cfg.BotToken, cfg.TelegramAPIURL, cfg.TokenKey = url, envToken, srv.URL, key
		cfg.UploadsDir = t.TempDir()
		r := startServer(t, cfg)
		waitHealthy(t, r, wait.Hang)
		<-r.srv.started
		return r
	}
	// greeted waits until the user is greeted by b.
	greeted := func(r *running, b *tgemu.Bot) {
		t.Helper()
		n := len(b.Messages(5))
		if _, err := b.SendText(5, "/start"); err != nil {
			t.Fatal(err)
		}
		waitLogged(t, r, "the greeting of "+b.Me().UserName, func() bool {
			msgs := b.Messages(5)
			return len(msgs) > n+1 && msgs[len(msgs)-1].FromBot
		})
	}
	stored := func() (plain *string, sealed []byte, botID *int64) {
		t.Helper()
		err := db.QueryRow(ctx, `SELECT token, token_sealed, bot_user_id FROM service WHERE id = 1`).Scan(&plain, &sealed, &botID)
		if err != nil {
			t.Fatal(err)
		}
		return
	}
	stop := func(r *running) {
		t.Helper()
		r.stop()
		if err := <-r.done; err != nil {
			t.Fatal(err)
		}
		r.done <- nil // for the cleanup
		if strings.Contains(r.logs.String(), "db-token-SECRET") {
			t.Errorf("the token appears in the logs:\n%s", r.logs)
		}
	}

	r := serve(key)
	greeted(r, dbBot)
	greeted(r, envBot)
	stop(r)
	plain, sealed, botID := stored()
	if plain != nil || len(sealed) == 0 || bytes.Contains(sealed, []byte("db-token")) || botID == nil || *botID != 900002 {
		t.Fatalf("after a start with the key: token %v, sealed %d bytes, bot id %v", plain, len(sealed), botID)
	}
	var rows int
	db.QueryRow(ctx, `SELECT count(*) FROM service WHERE bot_user_id = 900002`).Scan(&rows)
	if rows != 1 {
		t.Errorf("%d service rows for the database's bot, want its own", rows)
	}

	r = serve(key)
	greeted(r, dbBot)
	stop(r)

	for _, other := range []string{"", strings.Repeat("ab", 32)} {
		r = serve(other)
		greeted(r, envBot)
		wait.For(t, wait.Hang, "the report of the sealed token", func() bool {
			return strings.Contains(r.logs.String(), "its token is sealed and TOKEN_KEY does not open it")
		})
		stop(r)
		if strings.Contains(r.logs.String(), `username=db_bot`) {
			t.Errorf("key %q: the bot of the sealed token ran", other)
		}
		if p, s, _ := stored(); p != nil || !bytes.Equal(s, sealed) {
			t.Errorf("key %q: the sealed token changed", other)
		}
	}

	// An operator replaces the token in plain text: the next start with the key seals it again.
	if _, err := db.Exec(ctx, `UPDATE service SET token = $1 WHERE id = 1`, dbToken); err != nil {
		t.Fatal(err)
	}
	r = serve(key)
	greeted(r, dbBot)
	stop(r)
	if p, s, _ := stored(); p != nil || len(s) == 0 || bytes.Equal(s, sealed) {
		t.Errorf("the replaced token: plain %v, sealed again %v", p, !bytes.Equal(s, sealed))
	}
}

// Ensure TOKEN_KEY and TOKEN_KEY_FILE are read and checked.
func TestConfigTokenKey(t *testing.T) {
	t.Parallel()
	hexKey := strings.Repeat("0f", 32)
	file := t.TempDir() + "/key"
	if err := os.WriteFile(file, []byte(hexKey+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		env map[string]string
		ok  bool
		set bool
	}{
		{map[string]string{}, true, false},
		{map[string]string{"TOKEN_KEY": hexKey}, true, true},
		{map[string]string{"TOKEN_KEY": "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="}, true, true},
		{map[string]string{"TOKEN_KEY_FILE": file}, true, true},
		{map[string]string{"TOKEN_KEY": "short"}, false, false},
		{map[string]string{"TOKEN_KEY": hexKey, "TOKEN_KEY_FILE": file}, false, false},
		{map[string]string{"TOKEN_KEY_FILE": file + ".missing"}, false, false},
	} {
		cfg, err := ConfigFromEnv(func(k string) string { return c.env[k] })
		if err == nil {
			key, rerr := cfg.ReadTokenKey()
			err = rerr
			if err == nil && (key != nil) != c.set {
				t.Errorf("%v: key set %v, want %v", c.env, !c.set, c.set)
			}
		}
		if (err == nil) != c.ok {
			t.Errorf("%v: error %v, want ok %v", c.env, err, c.ok)
		}
	}
}

// waitLogged waits until cond holds; the failure shows the server's logs.
func waitLogged(t *testing.T, r *running, what string, cond func() bool) {
	t.Helper()
	wait.ForShowing(t, wait.Hang, what, cond, r.logs.String)
}

// Ensure a bot configured in the database with a malformed token does not run, and says why
// without showing the token, while the other bots run (its getMe would be retried for ever, and
// hold back the bots after it).
func TestServeSkipsMalformedDatabaseToken(t *testing.T) {
	t.Parallel()
	const envToken, badToken = "900005:env-token", "900006:db token-SECRET"
	emu := tgemu.New(tgemu.Options{})
	envBot := emu.AddBot(envToken, "env_bot")
	srv := httptest.NewServer(emu)
	t.Cleanup(srv.Close)
	envBot.AddUser(tgbotapi.User{ID: 5, FirstName: "Ann", LanguageCode: "en"})
	url := pgtest.ConnString(t)
	ctx := context.Background()
	db, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close(ctx) })
	if _, err := db.Exec(ctx, `INSERT INTO service (token) VALUES ($1)`, badToken); err != nil {
		t.Fatal(err)
	}
	cfg := testConfig(t)
	cfg.DatabaseURL, cfg.BotToken, cfg.TelegramAPIURL = url, envToken, srv.URL
	r := startServer(t, cfg)
	waitHealthy(t, r, wait.Hang)
	if _, err := envBot.SendText(5, "/start"); err != nil {
		t.Fatal(err)
	}
	waitLogged(t, r, "the greeting of the other bot", func() bool {
		msgs := envBot.Messages(5)
		return len(msgs) > 1 && msgs[len(msgs)-1].FromBot
	})
	waitLogged(t, r, "the report of the malformed token", func() bool {
		return strings.Contains(r.logs.String(), "its token is malformed") &&
			strings.Contains(r.logs.String(), "character 10 is a space")
	})
	for _, form := range []string{"db token", "db%20token", "db+token", "SECRET"} {
		if strings.Contains(r.logs.String(), form) {
			t.Errorf("the logs show the token as %q:\n%s", form, r.logs)
		}
	}
}
