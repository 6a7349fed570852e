package botpg

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/questbot/questbot/bot"
)

// textFrom is a raw message update from user (and private chat) user.
func textFrom(id int64, user int64, s string) json.RawMessage {
	u := strconv.FormatInt(user, 10)
	return json.RawMessage(`{"update_id":` + strconv.FormatInt(id, 10) + `,"message":{"message_id":1,"date":1,` +
		`"from":{"id":` + u + `,"is_bot":false,"first_name":"U` + u + `","language_code":"ru"},` +
		`"chat":{"id":` + u + `,"type":"private"},"text":"` + s + `"}}`)
}

// echo is a handler that answers every message with its text, and fails on the text "fail".
func echo(seen *[]string) bot.Handler {
	return func(ctx context.Context, tx bot.Tx, u *bot.Update) error {
		*seen = append(*seen, u.Message.Text)
		if u.Message.Text == "fail" {
			// A statement first, so that the failure has something to roll back.
			if _, err := tx.DB().Exec(ctx, `UPDATE users SET first_name = 'changed' WHERE id = $1`, u.User.ID); err != nil {
				return err
			}
			return errors.New("cannot")
		}
		reqs, err := bot.SendHTML(u.Chat, "echo "+u.Message.Text, nil)
		if err != nil {
			return err
		}
		return tx.Send(ctx, reqs...)
	}
}

// inboxOf returns the inbox's rows as "id:attempts" in order of ids.
func inboxOf(t *testing.T, pool *pgxpool.Pool) []string {
	t.Helper()
	rows, err := pool.Query(context.Background(), `SELECT update_id, attempts FROM inbox ORDER BY update_id`)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for rows.Next() {
		var id int64
		var n int
		if err := rows.Scan(&id, &n); err != nil {
			t.Fatal(err)
		}
		out = append(out, strconv.FormatInt(id, 10)+":"+strconv.Itoa(n))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// outboxTexts returns the texts queued in the outbox, in order.
func outboxTexts(t *testing.T, pool *pgxpool.Pool) []string {
	t.Helper()
	rows, err := pool.Query(context.Background(), `SELECT params->>'text' FROM outbox ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// Ensure a long poll's updates of idle chats are handled in the transaction that stores them:
// no inbox row is written, the replies are queued in order, the senders are recorded, and the
// offset moves; a second delivery of the same batch (another process's poll) does nothing.
func TestHandleAtIntake(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, pool, service := newStore(t)
	var seen []string
	batch := []json.RawMessage{textFrom(10, 7, "a"), textFrom(11, 8, "b"), textFrom(12, 7, "c")}
	saved, handled, err := s.HandleAtIntake(ctx, service, batch, 13, time.Hour, echo(&seen))
	if err != nil {
		t.Fatal(err)
	}
	if len(saved.Chats) != 0 || len(handled) != 3 {
		t.Fatalf("stored chats %v and %d handled, want none stored and 3 handled", saved.Chats, len(handled))
	}
	for _, h := range handled {
		if h.Err != nil || h.Update.User == nil || h.Update.User.Language != "ru" || len(h.Touched) != 1 {
			t.Errorf("handled %+v, want a success with its user (language ru) and one lane touched", h)
		}
	}
	if got := inboxOf(t, pool); len(got) != 0 {
		t.Errorf("inbox %v, want empty", got)
	}
	if got := outboxTexts(t, pool); !slices.Equal(got, []string{"echo a", "echo b", "echo c"}) {
		t.Errorf("outbox %v", got)
	}
	var offset int64
	var users int
	if err := pool.QueryRow(ctx, `SELECT update_offset, (SELECT count(*) FROM users) FROM service WHERE id = $1`, service).
		Scan(&offset, &users); err != nil {
		t.Fatal(err)
	}
	if offset != 13 || users != 2 {
		t.Errorf("offset %d and %d users, want 13 and 2", offset, users)
	}
	saved, handled, err = s.HandleAtIntake(ctx, service, batch, 13, time.Hour, echo(&seen))
	if err != nil || len(saved.Chats) != 0 || len(handled) != 0 {
		t.Errorf("the batch again: %v, %d handled, %v; want nothing done", saved.Chats, len(handled), err)
	}
	if len(seen) != 3 || len(outboxTexts(t, pool)) != 3 {
		t.Errorf("handler saw %v, want the three updates once", seen)
	}
}

// Ensure an update waits behind its chat's stored updates: a chat with an update in the inbox,
// one whose handler failed (stored with its attempt counted, its statements rolled back, and
// the chat's later updates of the batch stored behind it), and every update once the budget is
// spent go to the inbox in order, while the other chats are handled.
func TestHandleAtIntakeStoresWhatMustWait(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, pool, service := newStore(t)
	if _, err := s.SaveUpdates(ctx, service, []json.RawMessage{textFrom(1, 7, "waiting")}, 2); err != nil {
		t.Fatal(err)
	}
	var seen []string
	batch := []json.RawMessage{
		textFrom(2, 7, "behind"),   // chat 7 has update 1 waiting
		textFrom(3, 8, "fail"),     // fails: stored with one attempt
		textFrom(4, 9, "ok"),       // handled
		textFrom(5, 8, "after"),    // behind the failure
		textFrom(6, 9, "ok again"), // handled
	}
	saved, handled, err := s.HandleAtIntake(ctx, service, batch, 7, time.Hour, echo(&seen))
	if err != nil {
		t.Fatal(err)
	}
	want := []bot.ChatKey{{Service: service, Chat: 7}, {Service: service, Chat: 8}}
	if !slices.Equal(saved.Chats, want) {
		t.Errorf("stored chats %v, want %v", saved.Chats, want)
	}
	if !slices.Equal(seen, []string{"fail", "ok", "ok again"}) {
		t.Errorf("handled %v", seen)
	}
	var failures int
	for _, h := range handled {
		if h.Err != nil {
			failures++
			if h.Chat.Chat != 8 || h.Update == nil {
				t.Errorf("failure %+v, want chat 8's with its update", h)
			}
		}
	}
	if failures != 1 || len(handled) != 3 {
		t.Errorf("%d handled with %d failures, want 3 and 1", len(handled), failures)
	}
	if got := inboxOf(t, pool); !slices.Equal(got, []string{"1:0", "2:0", "3:1", "5:0"}) {
		t.Errorf("inbox %v, want 1:0 2:0 3:1 5:0", got)
	}
	var name, errText string
	if err := pool.QueryRow(ctx, `SELECT u.first_name, i.error FROM users u, inbox i WHERE u.id = 8 AND i.update_id = 3`).
		Scan(&name, &errText); err != nil {
		t.Fatal(err)
	}
	if name != "U8" || errText != "cannot" {
		t.Errorf("user 8 named %q and the failure's error %q, want U8 (rolled back) and cannot", name, errText)
	}
	if got := outboxTexts(t, pool); !slices.Equal(got, []string{"echo ok", "echo ok again"}) {
		t.Errorf("outbox %v", got)
	}

	// The workers take the stored updates in order, as any.
	res, err := s.HandleBatch(ctx, []bot.ChatKey{{Service: service, Chat: 7}}, echo(&seen))
	if err != nil || res[0].Err != nil || res[0].Update.Message.Text != "waiting" || !res[0].More {
		t.Fatalf("chat 7's first update: %+v, %v", res, err)
	}

	// A budget spent before the first handler stores everything for the workers.
	seen = nil
	batch = []json.RawMessage{textFrom(7, 10, "x"), textFrom(8, 11, "y"), textFrom(9, 12, "z")}
	saved, handled, err = s.HandleAtIntake(ctx, service, batch, 10, time.Nanosecond, echo(&seen))
	if err != nil {
		t.Fatal(err)
	}
	if len(seen) != 0 || len(handled) != 0 || len(saved.Chats) != 3 {
		t.Errorf("with no budget: handled %v, stored %v; want all three stored", seen, saved.Chats)
	}
	if got := inboxOf(t, pool); !slices.Contains(got, "9:0") {
		t.Errorf("inbox %v, want update 9 stored", got)
	}
}

// Ensure a batch with updates that cannot be handled quarantines them and handles the rest.
func TestHandleAtIntakeQuarantines(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, pool, service := newStore(t)
	var seen []string
	batch := []json.RawMessage{textFrom(1, 7, "a"), json.RawMessage(`{"update_id":2,"message":"not an object"}`)}
	saved, handled, err := s.HandleAtIntake(ctx, service, batch, 3, time.Hour, echo(&seen))
	if err != nil {
		t.Fatal(err)
	}
	if len(handled) != 1 || len(saved.Quarantined) != 1 || saved.Quarantined[0].UpdateID != 2 {
		t.Errorf("handled %d, quarantined %+v; want 1 and update 2", len(handled), saved.Quarantined)
	}
	var n int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM inbox_quarantine`).Scan(&n); err != nil || n != 1 {
		t.Errorf("%d quarantined rows (%v), want 1", n, err)
	}
}
