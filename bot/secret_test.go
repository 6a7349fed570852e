package bot_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/questbot/questbot/bot"
	"github.com/questbot/questbot/bot/emulator/tgemu"
)

// secretOf is the secret the test's handler gives a user.
func secretOf(user int64) string { return fmt.Sprintf("S3CR3T-%d-xyz", user) }

// Ensure a request that carries a secret never leaves it at rest once it is done: a row sent is
// gone; a row Telegram refuses, one to a user who blocked the bot (with the chat's other pending
// rows), one whose secret expired before its turn (never sent), and one dropped for its ref,
// each keep a form with the secret withheld, lose their secrets, and are recorded for the
// feature to revoke, with the credential's kind and id; neither the record of the error nor any
// log line holds a secret. The secret reaches the outbox by the transaction that keeps it
// (bot.KeepSecret), from a message or a button's press, or by the request's own Secrets.
func TestSecretsAtRest(t *testing.T) {
	t.Parallel()
	e := newEnv(t, tgemu.Options{})
	const (
		refused = 21
		blocked = 22
		expired = 23
		sent    = 24
		dropped = 25
		pressed = 26
	)
	for u := int64(refused); u <= pressed; u++ {
		e.User(u, "u", "en")
	}
	say := func(ctx context.Context, tx bot.Tx, chat int64, expires time.Time) error {
		s := secretOf(chat)
		if err := bot.KeepSecret(tx, bot.Secret{Kind: "test.key", ID: fmt.Sprint(chat), Values: []string{s}, Expires: expires}); err != nil {
			return err
		}
		reqs, err := bot.SendHTML(chat, "Your key: <code>"+s+"</code>", nil)
		if err != nil {
			return err
		}
		return tx.Send(ctx, reqs...)
	}
	handler := func(ctx context.Context, tx bot.Tx, u *bot.Update) error {
		if cq := u.CallbackQuery; cq != nil {
			return say(ctx, tx, u.Chat, time.Now().Add(time.Hour))
		}
		switch u.Chat {
		case expired:
			return say(ctx, tx, u.Chat, time.Now().Add(-time.Second))
		case blocked:
			if err := say(ctx, tx, u.Chat, time.Now().Add(time.Hour)); err != nil {
				return err
			}
			reqs, _ := bot.SendHTML(u.Chat, "Your second key: S3CR3T-second", nil)
			reqs[0].Secrets = []bot.Secret{{Kind: "test.key", ID: "second", Values: []string{"S3CR3T-second"}}}
			return tx.Send(ctx, reqs...)
		case dropped:
			req, err := bot.EditHTMLRef(u.Chat, "nothing-sent-under-it", "Your key: "+secretOf(u.Chat), nil)
			if err != nil {
				return err
			}
			req.Secrets = []bot.Secret{{Kind: "test.key", ID: fmt.Sprint(u.Chat), Values: []string{secretOf(u.Chat)}}}
			return tx.Send(ctx, req)
		case pressed:
			reqs, err := bot.SendHTML(u.Chat, "Press for a key", bot.Keyboard{{{Text: "Key", Data: "key"}}})
			if err != nil {
				return err
			}
			return tx.Send(ctx, reqs...)
		}
		return say(ctx, tx, u.Chat, time.Now().Add(time.Hour))
	}
	e.Bot.InjectFault(tgemu.Fault{Method: "sendMessage", ChatID: refused, Code: 400})
	e.Bot.InjectFault(tgemu.Fault{Method: "sendMessage", ChatID: blocked, Code: 403})
	e.start(t, bot.Config{Handler: handler, Limits: &bot.NoLimits})
	for u := int64(refused); u <= pressed; u++ {
		e.Send(t, u, "/key")
	}
	menu := e.WaitText(t, pressed, 0, "Press for a key")
	e.Bot.InjectFault(tgemu.Fault{Method: "sendMessage", ChatID: pressed, Code: 400})
	e.Press(t, pressed, menu, "Key")
	e.WaitText(t, sent, 0, secretOf(sent))
	e.WaitFor(t, "every secret settled", func() bool {
		p, f := e.QueryInt(t, `SELECT count(*) FROM outbox WHERE status = 'pending' AND chat_id > 20`),
			e.QueryInt(t, `SELECT count(*) FROM outbox_secret_failure`)
		if f > 6 {
			t.Fatalf("%d secrets recorded, want 6", f)
		}
		return p == 0 && f == 6
	})

	if n := e.QueryInt(t, `SELECT count(*) FROM outbox WHERE params::text LIKE '%S3CR3T%' OR last_error LIKE '%S3CR3T%'
		OR secrets IS NOT NULL`); n != 0 {
		t.Errorf("%d outbox rows still hold a secret", n)
	}
	type failed struct {
		chat             int64
		text, lastError  string
		kind, id, reason string
	}
	rows, err := e.Pool.Query(context.Background(), `
		SELECT o.chat_id, o.params->>'text', coalesce(o.last_error, '') FROM outbox o WHERE o.status = 'failed' ORDER BY o.id`)
	if err != nil {
		t.Fatal(err)
	}
	kept, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (failed, error) {
		var f failed
		return f, r.Scan(&f.chat, &f.text, &f.lastError)
	})
	if err != nil {
		t.Fatal(err)
	}
	chats := map[int64]int{}
	for _, f := range kept {
		chats[f.chat]++
		if !strings.Contains(f.text, bot.Withheld) {
			t.Errorf("chat %d: the failed row's text %q", f.chat, f.text)
		}
		if f.chat == expired && !strings.Contains(f.lastError, "expired") {
			t.Errorf("the expired row's error: %q", f.lastError)
		}
	}
	if chats[refused] != 1 || chats[blocked] != 2 || chats[expired] != 1 || chats[pressed] != 1 || len(chats) != 4 {
		t.Errorf("failed rows by chat: %v", chats)
	}
	rows, err = e.Pool.Query(context.Background(), `SELECT chat_id, kind, ref, reason FROM outbox_secret_failure ORDER BY chat_id, ref`)
	if err != nil {
		t.Fatal(err)
	}
	records, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (failed, error) {
		var f failed
		return f, r.Scan(&f.chat, &f.kind, &f.id, &f.reason)
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		chat       int64
		id, reason string
	}{{refused, "21", "400"}, {blocked, "22", "403"}, {blocked, "second", "403"}, {expired, "23", "expired"},
		{dropped, "25", "dropped"}, {pressed, "26", "400"}}
	if len(records) != len(want) {
		t.Errorf("%d records, want %d: %+v", len(records), len(want), records)
	}
	for i, r := range records {
		if i >= len(want) || r.chat != want[i].chat || r.kind != "test.key" || r.id != want[i].id ||
			!strings.Contains(r.reason, want[i].reason) || strings.Contains(r.reason, "S3CR3T") {
			t.Errorf("record %d: %+v, want %+v", i, r, want[min(i, len(want)-1)])
		}
	}
	if n := e.CountText(expired, "S3CR3T"); n != 0 {
		t.Errorf("the expired secret was sent")
	}
	if logs := e.Logs.String(); strings.Contains(logs, "S3CR3T") {
		t.Errorf("a log line holds a secret:\n%s", logs)
	} else if !strings.Contains(logs, "Telegram rejected a request") || !strings.Contains(logs, bot.Withheld) {
		t.Errorf("the refusal is not logged with its parameters withheld:\n%s", logs)
	}
}

// Ensure a feature learns that it cannot hand out a secret through a transaction that cannot
// keep one.
func TestKeepSecretRefused(t *testing.T) {
	t.Parallel()
	if err := bot.KeepSecret(plainTx{}, bot.Secret{Kind: "k", ID: "1", Values: []string{"v"}}); !errors.Is(err, bot.ErrNoSecrets) {
		t.Fatalf("KeepSecret on a plain Tx: %v", err)
	}
}

// plainTx is a Tx that keeps no secrets.
type plainTx struct{}

func (plainTx) DB() pgx.Tx                                 { return nil }
func (plainTx) Send(context.Context, ...bot.Request) error { return nil }
func (plainTx) AfterCommit(func())                         {}
func (plainTx) AtCommit(string, ...any)                    {}
