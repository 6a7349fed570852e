package main

import (
	"strings"
	"testing"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"

	"github.com/questbot/questbot/bot/emulator/tgemu"
	"github.com/questbot/questbot/bot/testkit/wait"
	"github.com/questbot/questbot/bot/texts"
	"github.com/questbot/questbot/migrations/pgtest"
)

// Ensure serve without PUBLIC_URL offers the inline games as text, as docs/players.md promises: its
// default address is the listener's, which Telegram cannot fetch (and the emulator refuses, as
// Telegram does), so the results are articles, and the challenge chosen and joined is the board
// as text, edited in place.
func TestServeInlineWithoutPublicURL(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t)
	cfg.DatabaseURL = pgtest.ConnString(t)
	r := startServer(t, cfg)
	waitHealthy(t, r, wait.Hang)
	<-r.srv.started
	b := r.srv.emuBot
	const ann, bob, group = 5, 6, -70
	b.AddUser(tgbotapi.User{ID: ann, FirstName: "Ann", LanguageCode: "en"})
	b.AddUser(tgbotapi.User{ID: bob, FirstName: "Bob", LanguageCode: "en"})
	if err := b.AddGroup(group, "Club", ann, bob); err != nil {
		t.Fatal(err)
	}
	qid, err := b.InlineQuery(ann, group, "chess")
	if err != nil {
		t.Fatal(err)
	}
	var results []tgemu.InlineResult
	wait.ForShowing(t, wait.Hang, "the answer to the inline query", func() bool {
		if strings.Contains(r.logs.String(), "WEBDOCUMENT_URL_INVALID") {
			t.Fatalf("the bot answered with photos Telegram cannot fetch:\n%s", r.logs)
		}
		var ok bool
		results, ok = b.InlineAnswer(qid)
		return ok
	}, r.logs.String)
	if len(results) == 0 {
		t.Fatal("no results")
	}
	for _, res := range results {
		if res.Type != "article" || res.PhotoURL != "" {
			t.Fatalf("result %q is a %s (%q), want a text", res.ID, res.Type, res.PhotoURL)
		}
	}
	inlineID, _, err := b.ChooseInlineResult(qid, results[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	var join string
	wait.ForShowing(t, wait.Hang, "the challenge", func() bool {
		m, _ := b.InlineMessage(inlineID)
		join = m.Button("✅ Join")
		return join != "" && strings.Contains(m.Text, "wants to play")
	}, r.logs.String)
	// The chosen result may be recorded after Bob's press is handled (the updates of two users
	// are not ordered): Join then says the game is not ready yet, and is pressed again.
	for try := 0; ; try++ {
		id, err := b.PressInline(bob, inlineID, join)
		if err != nil {
			t.Fatal(err)
		}
		var answer string
		wait.ForShowing(t, wait.Hang, "the answer to Join", func() bool {
			var ok bool
			answer, ok = b.CallbackAnswer(id)
			return ok
		}, r.logs.String)
		if answer != texts.For("en").Shared.NotReady || try == 10 {
			break
		}
	}
	wait.ForShowing(t, wait.Hang, "the board as text", func() bool {
		m, _ := b.InlineMessage(inlineID)
		return strings.Contains(m.Text, "<pre>") && m.Photo == ""
	}, func() string { m, _ := b.InlineMessage(inlineID); return m.Text + "\n" + r.logs.String() })
}
