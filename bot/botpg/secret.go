package botpg

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/questbot/questbot/bot"
)

// # Secrets in the outbox
//
// A request that carries a credential (bot.Request.Secrets, or a bot.KeepSecret of its
// transaction) names it in outbox.secrets (migration 025_secrets.sql). The credential never
// stays at rest once its request is done: a sent row is deleted; a row that fails for good has
// its parameters withheld (outbox_withhold) and its secrets cleared in the transaction that
// records the failure, and each credential goes to outbox_secret_failure, the transport's own
// record, from which the feature that issued it takes it (Outbox.TakeSecretFailures) to revoke
// it. The transport knows nothing of the features' tables.

// KeepSecret implements bot.KeepSecret for an update's transaction.
func (t *handleTx) KeepSecret(s bot.Secret) { t.secrets = append(t.secrets, s) }

// KeepSecret implements bot.KeepSecret for a transaction of Run.
func (t *jobTx) KeepSecret(s bot.Secret) { t.secrets = append(t.secrets, s) }

// hasSecrets reports whether queueSecrets has anything to mark for reqs and declared.
func hasSecrets(reqs []bot.Request, declared []bot.Secret) bool {
	if len(declared) > 0 {
		return true
	}
	for _, r := range reqs {
		if len(r.Secrets) > 0 {
			return true
		}
	}
	return false
}

// markSecretSQL names a secret ($4) on the pending rows of a chat ($1, $2) whose parameters hold
// one of its values ($3), queued by the same transaction (a fresh secret is nowhere else).
const markSecretSQL = `
	UPDATE outbox SET secrets = COALESCE(secrets, '[]'::jsonb) || jsonb_build_array($4::jsonb)
	WHERE service_id = $1 AND chat_id = $2 AND status = 'pending'
		AND NOT COALESCE(secrets, '[]'::jsonb) @> jsonb_build_array($4::jsonb)
		AND EXISTS (SELECT 1 FROM jsonb_each_text(params) p, unnest($3::text[]) v
			WHERE v <> '' AND strpos(p.value, v) > 0)`

// queueSecrets adds to b, after the insertion of reqs, the marks of the secrets they carry: their
// own (Request.Secrets) and those the transaction keeps (declared) that their parameters hold.
func queueSecrets(b *pgx.Batch, service int, reqs []bot.Request, declared []bot.Secret) {
	type mark struct {
		chat     int64
		kind, id string
	}
	seen := map[mark]bool{}
	add := func(chat int64, s bot.Secret) {
		m := mark{chat, s.Kind, s.ID}
		if seen[m] {
			return
		}
		seen[m] = true
		raw, _ := json.Marshal(s) // strings and a time always marshal
		b.Queue(markSecretSQL, service, chat, s.Values, string(raw))
	}
	for _, r := range reqs {
		for _, s := range r.Secrets {
			add(r.ChatID, s)
		}
		for _, s := range declared {
			if s.Carries(r) {
				add(r.ChatID, s)
			}
		}
	}
}

// withholdFailedSQL withholds the secrets of the rows of a chat ($1, $2) that have failed (the
// one just recorded, or all those of a user who blocked the bot) and records their credentials.
const withholdFailedSQL = `
	WITH o AS (
		SELECT id, secrets FROM outbox
		WHERE service_id = $1 AND chat_id = $2 AND status = 'failed' AND secrets IS NOT NULL
		FOR UPDATE),
	u AS (
		UPDATE outbox x SET params = outbox_withhold(x.params, o.secrets), secrets = NULL
		FROM o WHERE x.id = o.id
		RETURNING x.service_id, x.chat_id, o.secrets, x.last_error)
	INSERT INTO outbox_secret_failure (service_id, chat_id, kind, ref, reason)
	SELECT u.service_id, u.chat_id, s->>'kind', s->>'id', COALESCE(u.last_error, 'failed')
	FROM u, jsonb_array_elements(u.secrets) s`

// droppedSQL records the credentials ($3) of a row of a chat ($1, $2) dropped unsent.
const droppedSQL = `
	INSERT INTO outbox_secret_failure (service_id, chat_id, kind, ref, reason)
	SELECT $1, $2, s->>'kind', s->>'id', 'dropped unsent' FROM jsonb_array_elements($3::jsonb) s`

// queueSecretOutcome adds to b, after queueOutcome's statements, what becomes of the secrets of
// row: withheld and recorded when it failed for good (and, for a user who blocked the bot, those
// of the chat's other rows failed with it), recorded when it was dropped unsent.
func queueSecretOutcome(b *pgx.Batch, row *bot.OutboxRow, o bot.Outcome) {
	switch o.Kind {
	case bot.OutcomeFailed, bot.OutcomeBlocked:
		b.Queue(withholdFailedSQL, row.Chat.Service, row.Chat.Chat)
	case bot.OutcomeDropped:
		if len(row.Request.Secrets) > 0 {
			raw, _ := json.Marshal(row.Request.Secrets) // strings and times always marshal
			b.Queue(droppedSQL, row.Chat.Service, row.Chat.Chat, string(raw))
		}
	}
}

// decodeSecrets reads the secrets column of a claimed row into its request.
func decodeSecrets(row *bot.OutboxRow, raw []byte) error {
	if len(raw) == 0 {
		return nil
	}
	if err := json.Unmarshal(raw, &row.Request.Secrets); err != nil {
		return fmt.Errorf("decode the secrets of row %d: %w", row.ID, err)
	}
	return nil
}

// expireSecretsSQL fails the pending rows whose secret has expired, that no sender holds (the
// sender itself fails those it reaches; these are the rows of a bot no process runs), with their
// secrets withheld and recorded.
const expireSecretsSQL = `
	WITH o AS (
		SELECT id, secrets FROM outbox
		WHERE secrets IS NOT NULL AND status = 'pending' AND EXISTS (
			SELECT 1 FROM jsonb_array_elements(secrets) s
			WHERE s->>'expires' IS NOT NULL AND (s->>'expires')::timestamptz <= now())
		FOR UPDATE SKIP LOCKED),
	u AS (
		UPDATE outbox x SET status = 'failed', failed_at = now(), last_error = $1,
			params = outbox_withhold(x.params, o.secrets), secrets = NULL
		FROM o WHERE x.id = o.id
		RETURNING x.service_id, x.chat_id, o.secrets)
	INSERT INTO outbox_secret_failure (service_id, chat_id, kind, ref, reason)
	SELECT u.service_id, u.chat_id, s->>'kind', s->>'id', $1 FROM u, jsonb_array_elements(u.secrets) s`

// cleanupSecrets fails the pending rows whose secret expired unsent (Cleanup runs it), and
// removes the records of failed credentials older than age that no feature took.
func (s *Store) cleanupSecrets(ctx context.Context, age string) error {
	if _, err := s.pool.Exec(ctx, expireSecretsSQL, "not sent: the secret it carries expired first"); err != nil {
		return fmt.Errorf("expire secrets: %w", err)
	}
	if _, err := s.pool.Exec(ctx, `DELETE FROM outbox_secret_failure WHERE failed_at < now() - $1::interval`, age); err != nil {
		return fmt.Errorf("prune secret failures: %w", err)
	}
	return nil
}

// SecretFailureServices returns the bots that have credentials of kinds whose delivery failed,
// not yet taken.
func (Outbox) SecretFailureServices(ctx context.Context, db pgx.Tx, kinds []string) ([]int, error) {
	rows, err := db.Query(ctx, `SELECT DISTINCT service_id FROM outbox_secret_failure WHERE kind = ANY($1)`, kinds)
	if err != nil {
		return nil, fmt.Errorf("secret failures: %w", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int])
	if err != nil {
		return nil, fmt.Errorf("secret failures: %w", err)
	}
	return ids, nil
}

// TakeSecretFailures takes up to limit credentials of kinds of a bot whose delivery failed, in
// the caller's transaction: they are locked (FOR UPDATE SKIP LOCKED, so that two processes never
// take one) and deleted, for good once the transaction commits, with whatever the caller did
// about them (the revocation, the notice to the issuer).
func (Outbox) TakeSecretFailures(ctx context.Context, db pgx.Tx, service int, kinds []string, limit int) ([]bot.SecretFailure, error) {
	rows, err := db.Query(ctx, `
		DELETE FROM outbox_secret_failure WHERE id IN (
			SELECT id FROM outbox_secret_failure WHERE service_id = $1 AND kind = ANY($2)
			ORDER BY id LIMIT $3 FOR UPDATE SKIP LOCKED)
		RETURNING service_id, chat_id, kind, ref, reason, failed_at`, service, kinds, limit)
	if err != nil {
		return nil, fmt.Errorf("take secret failures: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (bot.SecretFailure, error) {
		var f bot.SecretFailure
		err := r.Scan(&f.Service, &f.Chat, &f.Kind, &f.ID, &f.Reason, &f.At)
		return f, err
	})
	if err != nil {
		return nil, fmt.Errorf("take secret failures: %w", err)
	}
	return out, nil
}
