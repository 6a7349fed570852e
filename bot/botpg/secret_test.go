package botpg

import (
	"context"
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
	if status != "pending" || text != "key GOOD-SECRET" {
		t.Errorf("the good row: %s %q", status, text)
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
