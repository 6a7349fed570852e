package botpg

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/questbot/questbot/bot"
	"github.com/questbot/questbot/migrations/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// newStore returns a store on a fresh database with one bot registered, and the bot's id.
func newStore(t *testing.T) (*Store, *pgxpool.Pool, int) {
	t.Helper()
	pool := pgtest.New(t)
	s := New(pool)
	id, _, err := s.RegisterService(context.Background(), "1:T", tgbotapi.User{ID: 1, UserName: "b"})
	if err != nil {
		t.Fatal(err)
	}
	return s, pool, id
}

// text is a raw message update from user (and chat) 7; extra is added to the message object.
func text(id, s, extra string) json.RawMessage {
	return json.RawMessage(`{"update_id":` + id + `,"message":{"message_id":1,"date":1,` +
		`"from":{"id":7,"is_bot":false,"first_name":"Ann"},"chat":{"id":7,"type":"private"},"text":"` + s + `"` + extra + `}}`)
}

// Ensure a batch with updates PostgreSQL cannot hold as they are, and updates that cannot be
// decoded or acknowledged, is stored whole: the first cleaned into the inbox, the others in the
// quarantine as received, once however often they are delivered; and the offset moves.
func TestSaveUpdates(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, pool, service := newStore(t)
	batch := []json.RawMessage{
		text("1", "plain", ""),
		text("2", `a\u0000b`, ""),
		text("3", "typed", `,"chat":{"id":"seven"}`),
		text("4", "huge number", `,"unknown_field":1e1000000`),
		text(strings.Repeat("9", 30), "id too big", ""),
		text(`"5"`, "id a string", ""),
		text("9223372036854775807", "last", ""),
		json.RawMessage(`{"message":{"message_id":1,"date":1,"chat":{"id":7,"type":"private"},"text":"no id"}}`),
		text("8", strings.Repeat("й", 4097), ""),
		text("6", "after", ""),
	}
	saved, err := s.SaveUpdates(ctx, service, batch, 7)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(saved.Chats, []bot.ChatKey{{Service: service, Chat: 7}}) {
		t.Errorf("chats %v, want chat 7", saved.Chats)
	}
	var ids []int64
	var texts []string
	rows, _ := pool.Query(ctx, `SELECT update_id, payload->'message'->>'text' FROM inbox ORDER BY update_id`)
	for rows.Next() {
		var id int64
		var s string
		if err := rows.Scan(&id, &s); err != nil {
			t.Fatal(err)
		}
		ids, texts = append(ids, id), append(texts, s)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ids, []int64{1, 2, 6}) || !slices.Equal(texts, []string{"plain", "a\uFFFDb", "after"}) {
		t.Errorf("inbox %v %q, want 1 2 6 with a U+FFFD for the U+0000", ids, texts)
	}
	// By id (- when it cannot be read) and the start of the reason.
	want := []string{"-:undecodable", "-:undecodable", "-:update_id missing", "3:undecodable",
		"4:refused by the database", "8:a text of 4097 characters", "9223372036854775807:update_id 9223372036854775807 cannot be acknowledged"}
	var got []string
	for _, q := range saved.Quarantined {
		id := "-"
		if q.IDKnown {
			id = strconv.FormatInt(q.UpdateID, 10)
		}
		for _, w := range want {
			if prefix := strings.SplitN(w, ":", 2); prefix[0] == id && strings.HasPrefix(q.Reason, prefix[1]) {
				got = append(got, w)
				break
			}
		}
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("quarantined %+v, want %v", saved.Quarantined, want)
	}
	var n int
	pool.QueryRow(ctx, `SELECT count(*) FROM inbox_quarantine WHERE payload = $1`, []byte(batch[3])).Scan(&n)
	if n != 1 {
		t.Errorf("the update refused by the database is not kept as received")
	}
	var offset int64
	pool.QueryRow(ctx, `SELECT update_offset FROM service WHERE id = $1`, service).Scan(&offset)
	if offset != 7 {
		t.Errorf("offset %d, want 7", offset)
	}

	// Delivered again: nothing new is stored, nothing is quarantined again.
	again, err := s.SaveUpdates(ctx, service, batch, 7)
	if err != nil {
		t.Fatal(err)
	}
	if len(again.Quarantined) != 0 {
		t.Errorf("quarantined again: %+v", again.Quarantined)
	}
	pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM inbox) * 100 + (SELECT count(*) FROM inbox_quarantine)`).Scan(&n)
	if n != 307 {
		t.Errorf("%d inbox rows and %d quarantined after the second delivery, want 3 and 7", n/100, n%100)
	}
}

// Ensure the ordering key of every kind of update is found without a panic: a button under an
// inline message (no message) is its sender's, chat member updates are their chat's.
func TestChatOf(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		raw  string
		want int64
	}{
		{`{"update_id":1,"callback_query":{"id":"q","from":{"id":5,"first_name":"A"},"inline_message_id":"i","data":"d"}}`, 5},
		{`{"update_id":1,"callback_query":{"id":"q","from":{"id":5,"first_name":"A"},"message":{"message_id":1,"date":1,"chat":{"id":-9,"type":"group"}},"data":"d"}}`, -9},
		{`{"update_id":1,"message":{"message_id":1,"date":1,"from":{"id":5,"first_name":"A"}}}`, 5},
		{`{"update_id":1,"my_chat_member":{"chat":{"id":8,"type":"private"},"from":{"id":8,"first_name":"A"},"date":1,` +
			`"old_chat_member":{"user":{"id":1,"first_name":"b"},"status":"member"},"new_chat_member":{"user":{"id":1,"first_name":"b"},"status":"kicked"}}}`, 8},
		{`{"update_id":1,"inline_query":{"id":"q","from":{"id":6,"first_name":"A"},"query":"x","offset":""}}`, 6},
		{`{"update_id":1,"poll":{"id":"p","question":"?","options":[],"total_voter_count":0,"is_closed":false,"is_anonymous":true,"type":"regular","allows_multiple_answers":false}}`, 0},
	} {
		var u tgbotapi.Update
		if err := json.Unmarshal([]byte(c.raw), &u); err != nil {
			t.Fatal(err)
		}
		if got := chatOf(&u); got != c.want {
			t.Errorf("chatOf(%s) = %d, want %d", c.raw, got, c.want)
		}
	}
}

// Ensure a batch whose claim takes the first update of each chat removes the handled updates
// and puts back, as they were, those whose handlers failed: they are claimed again, first in
// their chat, and their failures are counted; nothing of the failed handler's work stays.
func TestHandleBatchPutsBackFailures(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, pool, service := newStore(t)
	other := json.RawMessage(`{"update_id":3,"message":{"message_id":1,"date":1,` +
		`"from":{"id":8,"is_bot":false,"first_name":"Bob"},"chat":{"id":8,"type":"private"},"text":"bob"}}`)
	if _, err := s.SaveUpdates(ctx, service, []json.RawMessage{text("1", "first", ""), text("2", "second", ""), other}, 4); err != nil {
		t.Fatal(err)
	}
	var received time.Time
	if err := pool.QueryRow(ctx, `SELECT received_at FROM inbox WHERE update_id = 1`).Scan(&received); err != nil {
		t.Fatal(err)
	}
	chats := []bot.ChatKey{{Service: service, Chat: 7}, {Service: service, Chat: 8}}
	fail := errors.New("refused")
	handler := func(ctx context.Context, tx bot.Tx, u *bot.Update) error {
		if u.Message.Text == "first" {
			if _, err := tx.DB().Exec(ctx, `UPDATE users SET language = 'xx' WHERE id = 7`); err != nil {
				return err
			}
			return fail
		}
		return tx.Send(ctx, bot.Request{Method: "sendMessage", ChatID: u.Chat, Params: map[string]string{"text": u.Message.Text}})
	}
	out, err := s.HandleBatch(ctx, chats, handler)
	if err != nil {
		t.Fatal(err)
	}
	if !errors.Is(out[0].Err, fail) || !out[0].More || out[1].Err != nil || out[1].More {
		t.Fatalf("results %+v, want chat 7 failed with more to come, chat 8 handled", out)
	}
	if _, err := s.RecordFailure(ctx, chats[0], 1, "refused", 5, nil); err != nil {
		t.Fatal(err)
	}
	var ids []int64
	rows, _ := pool.Query(ctx, `SELECT update_id FROM inbox ORDER BY update_id`)
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	if !slices.Equal(ids, []int64{1, 2}) {
		t.Errorf("inbox %v, want 1 and 2", ids)
	}
	var attempts int
	var again time.Time
	var lang, errText string
	err = pool.QueryRow(ctx, `SELECT i.attempts, i.received_at, i.error, u.language FROM inbox i, users u
		WHERE i.update_id = 1 AND u.id = 7`).Scan(&attempts, &again, &errText, &lang)
	if err != nil {
		t.Fatal(err)
	}
	if attempts != 1 || !again.Equal(received) || errText != "refused" || lang == "xx" {
		t.Errorf("update 1: %d attempts, received %v (was %v), error %q, language %q; want 1, unchanged, refused, not xx",
			attempts, again, received, errText, lang)
	}
	var texts []string
	rows, _ = pool.Query(ctx, `SELECT params->>'text' FROM outbox ORDER BY id`)
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		texts = append(texts, s)
	}
	if !slices.Equal(texts, []string{"bob"}) {
		t.Errorf("outbox %q, want only bob's reply", texts)
	}
	// The failed update comes first again in its chat, with its payload intact.
	var seen []string
	out, err = s.HandleBatch(ctx, chats[:1], func(ctx context.Context, tx bot.Tx, u *bot.Update) error {
		seen = append(seen, u.Message.Text)
		return nil
	})
	if err != nil || out[0].Err != nil || !out[0].More || !slices.Equal(seen, []string{"first"}) {
		t.Errorf("second claim: %+v, %v, handled %q; want first, with more to come", out, err, seen)
	}
}

// Ensure the writes a handler queues for the COMMIT (bot.Tx.AtCommit) are made with it, after
// the handler's own statements (which do not see them), and are dropped with the work of a
// handler that fails, the other updates of the batch keeping theirs; and that a job's are made
// when it commits, never when it fails.
func TestAtCommit(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, pool, service := newStore(t)
	other := json.RawMessage(`{"update_id":3,"message":{"message_id":1,"date":1,` +
		`"from":{"id":8,"is_bot":false,"first_name":"Bob"},"chat":{"id":8,"type":"private"},"text":"bob"}}`)
	if _, err := s.SaveUpdates(ctx, service, []json.RawMessage{text("1", "first", ""), other}, 4); err != nil {
		t.Fatal(err)
	}
	fail := errors.New("refused")
	var seenInside string
	out, err := s.HandleBatch(ctx, []bot.ChatKey{{Service: service, Chat: 7}, {Service: service, Chat: 8}},
		func(ctx context.Context, tx bot.Tx, u *bot.Update) error {
			tx.AtCommit(`UPDATE users SET first_name = $2 WHERE id = $1`, u.Chat, "renamed")
			if u.Chat == 7 {
				return fail
			}
			return tx.DB().QueryRow(ctx, `SELECT first_name FROM users WHERE id = $1`, u.Chat).Scan(&seenInside)
		})
	if err != nil {
		t.Fatal(err)
	}
	if !errors.Is(out[0].Err, fail) || out[1].Err != nil {
		t.Fatalf("results %+v, want chat 7 failed and chat 8 handled", out)
	}
	if seenInside != "Bob" {
		t.Errorf("the handler read %q; want Bob, the write at the COMMIT not made yet", seenInside)
	}
	names := func() [2]string {
		t.Helper()
		var n [2]string
		if err := pool.QueryRow(ctx, `SELECT (SELECT first_name FROM users WHERE id = 7), (SELECT first_name FROM users WHERE id = 8)`).
			Scan(&n[0], &n[1]); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if got := names(); got != [2]string{"Ann", "renamed"} {
		t.Errorf("after the batch, users 7 and 8 are %q; want Ann and renamed", got)
	}
	if _, err := s.Run(ctx, service, func(ctx context.Context, tx bot.Tx) error {
		tx.AtCommit(`UPDATE users SET first_name = 'job' WHERE id = 7`)
		return fail
	}); !errors.Is(err, fail) {
		t.Fatalf("a failing job: %v", err)
	}
	if got := names(); got[0] != "Ann" {
		t.Errorf("after a failed job, user 7 is %q; want Ann", got[0])
	}
	if _, err := s.Run(ctx, service, func(ctx context.Context, tx bot.Tx) error {
		tx.AtCommit(`UPDATE users SET first_name = 'job' WHERE id = 7`)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if got := names(); got[0] != "job" {
		t.Errorf("after a job, user 7 is %q; want job", got[0])
	}
}
