package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"

	"github.com/questbot/questbot/bot/testkit/wait"
	"github.com/questbot/questbot/migrations/pgtest"
)

// Ensure ADMINS and NEW_USERS_ARE_DEVELOPERS are read and checked.
func TestConfigRoles(t *testing.T) {
	t.Parallel()
	env := map[string]string{"ADMINS": "7, 8,9", "NEW_USERS_ARE_DEVELOPERS": "true"}
	cfg, err := ConfigFromEnv(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Admins) != 3 || cfg.Admins[2] != 9 || cfg.NewUsersDevelopers == nil || !*cfg.NewUsersDevelopers {
		t.Fatalf("got admins %v, new users developers %v", cfg.Admins, cfg.NewUsersDevelopers)
	}
	if cfg, _ := ConfigFromEnv(func(string) string { return "" }); cfg.Admins != nil || cfg.NewUsersDevelopers != nil {
		t.Errorf("defaults: %v, %v", cfg.Admins, cfg.NewUsersDevelopers)
	}
	for _, bad := range []map[string]string{{"ADMINS": "7,x"}, {"ADMINS": "-1"}, {"NEW_USERS_ARE_DEVELOPERS": "sometimes"}} {
		if _, err := ConfigFromEnv(func(k string) string { return bad[k] }); err == nil {
			t.Errorf("%v: no error", bad)
		}
	}
}

// Ensure serve wires the developers' tools: the configured admin is an admin, a new user is a
// developer when NEW_USERS_ARE_DEVELOPERS is set, a quest sent into the chat is uploaded into
// UPLOADS_DIR (not relayed to the admins as a message), and the admin sees it with /quests.
func TestServeDevelopers(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t)
	cfg.DatabaseURL = pgtest.ConnString(t)
	cfg.UploadsDir = t.TempDir()
	cfg.Admins = []int64{7}
	on := true
	cfg.NewUsersDevelopers = &on
	quest, err := os.ReadFile(filepath.Join("..", "..", "uploads", "cargo-run_en.qmm"))
	if err != nil {
		t.Fatal(err)
	}
	r := startServer(t, cfg)
	waitHealthy(t, r, wait.Hang)
	<-r.srv.started
	b := r.srv.emuBot
	b.AddUser(tgbotapi.User{ID: 7, FirstName: "Ada", LanguageCode: "en"})
	b.AddUser(tgbotapi.User{ID: 8, FirstName: "Dev", UserName: "dev", LanguageCode: "en"})
	said := func(chat int64, want string) func() bool {
		return func() bool {
			for _, m := range b.Messages(chat) {
				if m.FromBot && strings.Contains(m.Text, want) {
					return true
				}
			}
			return false
		}
	}
	for _, u := range []int64{7, 8} {
		if _, err := b.SendText(u, "/start"); err != nil {
			t.Fatal(err)
		}
		wait.For(t, wait.Hang, "the greeting", said(u, "Hello"))
	}
	if _, err := b.SendDocument(8, "Cargo.qmm", "application/octet-stream", quest); err != nil {
		t.Fatal(err)
	}
	wait.For(t, wait.Hang, "the upload's answer", said(8, "Quest «Cargo» is uploaded"))
	matches, _ := filepath.Glob(filepath.Join(cfg.UploadsDir, "dev", "quests", "*.qmm"))
	if len(matches) != 1 {
		t.Errorf("stored quests %q, want one", matches)
	}
	if _, err := b.SendText(7, "/quests"); err != nil {
		t.Fatal(err)
	}
	wait.For(t, wait.Hang, "the admin's list", said(7, "Uploaded quests (1 of 1)"))
	for _, m := range b.Messages(7) {
		if m.Document != "" || strings.Contains(m.Text, "Cargo.qmm") {
			t.Errorf("the upload reached the admin: %+v", m)
		}
	}
	// The server implements every built-in the seeded commands call: none is refused.
	if logs := r.logs.String(); strings.Contains(logs, "Command refused") {
		t.Errorf("the seeded tree has refused commands:\n%s", logs)
	}
}
