package botpg

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/questbot/questbot/bot"
)

// Ensure the transport's cleanup fails the rows whose secret expired while no process sent them
// (a bot nobody runs any more), with the secret withheld and the credential recorded, and leaves
// a row whose secret is still good; and that an expired secret's row is never left pending.
func TestCleanupExpiresSecrets(t *testing.T) {
	t.Parallel()
	s, pool, service := newStore(t)
	ctx := context.Background()
	old := bot.Secret{Kind: "k", ID: "old", Values: []string{"OLD-SECRET"}, Expires: time.Now().Add(-time.Minute)}
	good := bot.Secret{Kind: "k", ID: "good", Values: []string{"GOOD-SECRET"}, Expires: time.Now().Add(time.Hour)}
	var reqs []bot.Request
	for chat, sec := range map[int64]bot.Secret{7: old, 8: good} {
		r, err := bot.SendHTML(chat, "key "+sec.Values[0], nil)
		if err != nil {
			t.Fatal(err)
		}
		r[0].Secrets = []bot.Secret{sec}
		reqs = append(reqs, r...)
	}
	if _, err := s.Enqueue(ctx, service, reqs); err != nil {
		t.Fatal(err)
	}
	if err := s.Cleanup(ctx, 48*time.Hour); err != nil {
		t.Fatal(err)
	}
	var status, text string
	var secrets *string
	if err := pool.QueryRow(ctx, `SELECT status, params->>'text', secrets::text FROM outbox WHERE chat_id = 7`).
		Scan(&status, &text, &secrets); err != nil {
		t.Fatal(err)
	}
	if status != "failed" || text != "key "+bot.Withheld || secrets != nil {
		t.Errorf("the expired row: %s %q %v", status, text, secrets)
	}
	if err := pool.QueryRow(ctx, `SELECT status, params->>'text' FROM outbox WHERE chat_id = 8`).Scan(&status, &text); err != nil {
		t.Fatal(err)
	}
	if status != "pending" || !strings.HasPrefix(text, "key "+sealedPrefix) || strings.Contains(text, "GOOD-SECRET") {
		t.Errorf("the good row: %s %q, want its secret sealed", status, text)
	}
	var kind, ref, reason string
	var chat int64
	if err := pool.QueryRow(ctx, `SELECT chat_id, kind, ref, reason FROM outbox_secret_failure`).Scan(&chat, &kind, &ref, &reason); err != nil {
		t.Fatal(err)
	}
	if chat != 7 || kind != "k" || ref != "old" || reason == "" {
		t.Errorf("the record: %d %s %s %q", chat, kind, ref, reason)
	}
}

// Ensure the records of failed credentials are taken by one transaction at a time (FOR UPDATE
// SKIP LOCKED): a second taker gets the others, a rolled back take leaves its records for the
// next, a committed one removes them; only the kinds asked for are taken.
func TestTakeSecretFailures(t *testing.T) {
	t.Parallel()
	_, pool, service := newStore(t)
	ctx := context.Background()
	if _, err := pool.Exec(ctx, `INSERT INTO outbox_secret_failure (service_id, chat_id, kind, ref, reason)
		VALUES ($1, 7, 'a', '1', 'x'), ($1, 7, 'a', '2', 'x'), ($1, 7, 'b', '3', 'x')`, service); err != nil {
		t.Fatal(err)
	}
	o := Outbox{}
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		got, err := o.SecretFailureServices(ctx, tx, []string{"a"})
		if err == nil && (len(got) != 1 || got[0] != service) {
			t.Errorf("services: %v", got)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	first, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	a, err := o.TakeSecretFailures(ctx, first, service, []string{"a"}, 1)
	if err != nil || len(a) != 1 || a[0].ID != "1" || a[0].Chat != 7 || a[0].Kind != "a" {
		t.Fatalf("the first take: %+v, %v", a, err)
	}
	second, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	b, err := o.TakeSecretFailures(ctx, second, service, []string{"a"}, 10)
	if err != nil || len(b) != 1 || b[0].ID != "2" {
		t.Fatalf("the second take, beside the first: %+v, %v", b, err)
	}
	if err := first.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	if err := second.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	var left []string
	rows, _ := pool.Query(ctx, `SELECT ref FROM outbox_secret_failure ORDER BY ref`)
	left, err = pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil || len(left) != 2 || left[0] != "1" || left[1] != "3" {
		t.Fatalf("left: %v, %v", left, err)
	}
}

// Ensure a credential rests in the database sealed only: the queued row's parameters and its
// secrets hold no clear value, the row claimed by the sender is opened in memory (parameters and
// secret in clear), and a store with another key (another process, or this one restarted)
// cannot open it and marks it unreadable. With WithSealKey two stores share the key. A fallback
// carries no copy of the secret.
func TestSecretsSealedAtRest(t *testing.T) {
	t.Parallel()
	s, pool, service := newStore(t)
	ctx := context.Background()
	sec := bot.Secret{Kind: "web.ticket", ID: "t1", Values: []string{"TICKET-9f8e7d"}, Expires: time.Now().Add(time.Hour)}
	r, err := bot.SendHTML(42, "Open https://games.example.org/login/TICKET-9f8e7d now", nil)
	if err != nil {
		t.Fatal(err)
	}
	fallback, err := bot.SendHTML(42, "Again: TICKET-9f8e7d", nil)
	if err != nil {
		t.Fatal(err)
	}
	r[0].Secrets, r[0].OnFailure = []bot.Secret{sec}, fallback
	if _, err := s.Enqueue(ctx, service, r); err != nil {
		t.Fatal(err)
	}
	var row string
	if err := pool.QueryRow(ctx, `SELECT o::text FROM outbox o WHERE chat_id = 42`).Scan(&row); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(row, "TICKET-9f8e7d") || !strings.Contains(row, sealedPrefix) {
		t.Fatalf("the queued row holds the secret in clear, or not sealed: %s", row)
	}
	claim := func(st *Store, chat ...int64) *bot.OutboxRow {
		t.Helper()
		var got *bot.OutboxRow
		c := int64(42)
		if len(chat) > 0 {
			c = chat[0]
		}
		_, err := st.SendBatch(ctx, time.Now(), []bot.ChatKey{{Service: service, Chat: c, Lane: bot.LaneOf("sendMessage")}},
			func(_ context.Context, rows []*bot.OutboxRow) []bot.Outcome {
				got = rows[0]
				return []bot.Outcome{{Kind: bot.OutcomeAbandon}}
			})
		if err != nil || got == nil {
			t.Fatalf("claim: %v, %v", got, err)
		}
		return got
	}
	got := claim(s)
	if got.Request.Params["text"] != "Open https://games.example.org/login/TICKET-9f8e7d now" ||
		got.Request.Secrets[0].Values[0] != "TICKET-9f8e7d" || got.Request.Secrets[0].Unreadable {
		t.Fatalf("the claimed request: %q %+v", got.Request.Params["text"], got.Request.Secrets)
	}
	other := New(pool)
	if got := claim(other); !got.Request.Secrets[0].Unreadable || strings.Contains(got.Request.Params["text"], "TICKET") {
		t.Fatalf("another key opened the secret: %q %+v", got.Request.Params["text"], got.Request.Secrets)
	}
	key, err := ParseTokenKey(strings.Repeat("ab", 32))
	if err != nil {
		t.Fatal(err)
	}
	a, b := New(pool).WithSealKey(key), New(pool).WithSealKey(key)
	if _, err := a.Enqueue(ctx, service, mustHTML(t, 43, "token qbt_SECRET-TOKEN", sec)); err != nil {
		t.Fatal(err)
	}
	if got := claim(b, 43); got.Request.Params["text"] != "token qbt_SECRET-TOKEN" || got.Request.Secrets[0].Unreadable {
		t.Fatalf("a second process with the key: %q %+v", got.Request.Params["text"], got.Request.Secrets)
	}
	var fallbacks string
	if err := pool.QueryRow(ctx, `SELECT on_failure::text FROM outbox WHERE chat_id = 42`).Scan(&fallbacks); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(fallbacks, "TICKET-9f8e7d") || !strings.Contains(fallbacks, bot.Withheld) {
		t.Fatalf("the fallback holds the secret: %s", fallbacks)
	}
}

// mustHTML is a text request to chat carrying secret sec, its value text's last word.
func mustHTML(t *testing.T, chat int64, text string, sec bot.Secret) []bot.Request {
	t.Helper()
	r, err := bot.SendHTML(chat, text, nil)
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(text)
	sec.Values = []string{f[len(f)-1]}
	r[0].Secrets = []bot.Secret{sec}
	return r
}
