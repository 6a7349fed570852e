package botpg

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/questbot/questbot/bot"
)

// boardState is the state the tests' board requests carry.
const boardState = "board:1"

// boardEdit is an edit of the board message of chat by its ref, carrying its state; label tells
// the edits apart.
func boardEdit(t *testing.T, chat int64, label string) bot.Request {
	t.Helper()
	r, err := bot.EditPhotoRef(chat, boardState, "/boards/"+label+".png", label, nil)
	if err != nil {
		t.Fatal(err)
	}
	r.State = boardState
	return r
}

// boardCaption is a caption's edit of the board message, carrying its state.
func boardCaption(t *testing.T, chat int64, label string) bot.Request {
	t.Helper()
	r, err := bot.EditCaptionRef(chat, boardState, label, nil)
	if err != nil {
		t.Fatal(err)
	}
	r.State = boardState
	return r
}

// boardAnew is the board sent anew at the bottom of chat: the deletion of its older copies and
// the new copy, loud or silent.
func boardAnew(t *testing.T, chat int64, label string, loud bool) []bot.Request {
	t.Helper()
	send, err := bot.SendPhoto(chat, "/boards/"+label+".png", label, nil)
	if err != nil {
		t.Fatal(err)
	}
	send.Ref = boardState
	if !loud {
		send.Params["disable_notification"] = "true"
	}
	return bot.WithState(boardState, bot.DeleteRef(chat, boardState), send)
}

// queue queues reqs in a transaction of their own, as a job or the web does.
func queue(t *testing.T, s *Store, service int, reqs ...bot.Request) {
	t.Helper()
	_, err := s.Run(context.Background(), service, func(ctx context.Context, tx bot.Tx) error {
		return tx.Send(ctx, reqs...)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// pendingRow is an outbox row as the tests read it.
type pendingRow struct {
	lane   bot.Lane
	method string
	label  string // the caption or text
	loud   bool
}

// pending returns the pending rows of chat in id order.
func pending(t *testing.T, pool *pgxpool.Pool, chat int64) []pendingRow {
	t.Helper()
	rows, err := pool.Query(context.Background(), `
		SELECT lane, method, params FROM outbox WHERE chat_id = $1 AND status = 'pending' ORDER BY id`, chat)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []pendingRow
	for rows.Next() {
		var lane int16
		var r pendingRow
		var raw []byte
		if err := rows.Scan(&lane, &r.method, &raw); err != nil {
			t.Fatal(err)
		}
		var params map[string]string
		if err := json.Unmarshal(raw, &params); err != nil {
			t.Fatal(err)
		}
		r.lane = bot.Lane(lane)
		r.label = params["caption"] + params["text"]
		if m := params["media"]; m != "" {
			var media map[string]string
			if err := json.Unmarshal([]byte(m), &media); err != nil {
				t.Fatal(err)
			}
			r.label = media["caption"]
		}
		r.loud = r.method == "sendPhoto" && params["disable_notification"] != "true"
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// Ensure a newer state of a board drops the pending requests it makes useless, and nothing else:
// an edit drops the edits it covers, a board sent anew drops the edits, copies and deletions
// before it and inherits the sound of a copy never sent, a deletion drops a send never made; a
// plain message is never dropped; the rows of a state queued outside an update go to the updates
// lane.
func TestSupersede(t *testing.T) {
	t.Parallel()
	s, pool, service := newStore(t)
	const chat = 5
	u := bot.LaneUpdates
	queue(t, s, service, boardEdit(t, chat, "e1"))
	queue(t, s, service, boardEdit(t, chat, "e2"))
	if got, want := pending(t, pool, chat), []pendingRow{{u, "editMessageMedia", "e2", false}}; !slices.Equal(got, want) {
		t.Fatalf("after two edits: %+v, want %+v", got, want)
	}
	// A caption's edit does not cover a photo's: both stay; a photo's covers both.
	queue(t, s, service, boardCaption(t, chat, "c1"))
	if got := pending(t, pool, chat); len(got) != 2 {
		t.Fatalf("after a caption's edit: %+v, want the photo's edit and the caption's", got)
	}
	queue(t, s, service, msg(chat, "words"))
	queue(t, s, service, boardEdit(t, chat, "e3"))
	want := []pendingRow{{bot.LaneConversation, "sendMessage", "words", false}, {u, "editMessageMedia", "e3", false}}
	if got := pending(t, pool, chat); !slices.Equal(got, want) {
		t.Fatalf("after the third edit: %+v, want %+v", got, want)
	}
	// Sent anew with a sound, then anew silently: one copy, which keeps the sound.
	queue(t, s, service, boardAnew(t, chat, "n1", true)...)
	queue(t, s, service, boardAnew(t, chat, "n2", false)...)
	want = []pendingRow{{bot.LaneConversation, "sendMessage", "words", false},
		{u, "deleteMessage", "", false}, {u, "sendPhoto", "n2", true}}
	if got := pending(t, pool, chat); !slices.Equal(got, want) {
		t.Fatalf("after two copies: %+v, want %+v", got, want)
	}
	// An edit after a copy never sent waits behind it; a deletion drops both.
	queue(t, s, service, boardEdit(t, chat, "e4"))
	if got := pending(t, pool, chat); len(got) != 4 || got[3].method != "editMessageMedia" {
		t.Fatalf("after an edit of the copy: %+v", got)
	}
	queue(t, s, service, bot.WithState(boardState, bot.DeleteRef(chat, boardState))...)
	want = []pendingRow{{bot.LaneConversation, "sendMessage", "words", false},
		{u, "deleteMessage", "", false}, {u, "deleteMessage", "", false}}
	if got := pending(t, pool, chat); !slices.Equal(got, want) {
		t.Fatalf("after the deletion: %+v, want %+v", got, want)
	}
	// Another chat's rows of the same state are its own.
	queue(t, s, service, boardEdit(t, chat+1, "other"))
	if got := pending(t, pool, chat); len(got) != 3 {
		t.Fatalf("another chat's edit changed this chat's rows: %+v", got)
	}
	if got := s.SupersededTotal(); got != 8 {
		t.Fatalf("superseded %d rows, want 8", got)
	}
	stats, err := s.OutboxStats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if stats[bot.LaneUpdates].Depth != 3 || stats[bot.LaneConversation].Depth != 1 {
		t.Fatalf("lane stats %+v, want 3 updates and 1 in the conversation", stats)
	}
}

// Ensure a row being sent is never dropped by a newer state: one a sender holds, and one whose
// send goes on without its batch (detached), whose outcome is not known yet.
func TestSupersedeSparesSends(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, pool, service := newStore(t)
	const chat = 5
	key := bot.ChatKey{Service: service, Chat: chat, Lane: bot.LaneUpdates}
	queue(t, s, service, boardEdit(t, chat, "e1"))
	now := time.Now()
	// While e1 is held by the sender, e2 is queued: e1 is sent, e2 waits.
	rows, _ := sendOnce(t, s, now, []bot.ChatKey{key}, func(r *bot.OutboxRow) bot.Outcome {
		queue(t, s, service, boardEdit(t, chat, "e2"))
		return bot.Outcome{Kind: bot.OutcomeSent}
	})
	if len(rows) != 1 || rows[0].Request.State != boardState {
		t.Fatalf("claimed %+v, want e1 with its state", rows)
	}
	if got := pending(t, pool, chat); len(got) != 1 || got[0].label != "e2" {
		t.Fatalf("after e1 was sent: %+v, want e2", got)
	}
	// e2's send is detached; e3 leaves it alone; once e2 is recorded, e3 goes.
	var detached *bot.OutboxRow
	lease := later(now, time.Minute)
	sendOnce(t, s, now, []bot.ChatKey{key}, func(r *bot.OutboxRow) bot.Outcome {
		detached = r
		return bot.Outcome{Kind: bot.OutcomeDetached, RetryAt: lease}
	})
	queue(t, s, service, boardEdit(t, chat, "e3"))
	if got := pending(t, pool, chat); len(got) != 2 || got[0].label != "e2" || got[1].label != "e3" {
		t.Fatalf("after e3 was queued: %+v, want e2 and e3", got)
	}
	held, err := s.FinishSend(ctx, now, detached, lease, bot.Outcome{Kind: bot.OutcomeSent})
	if err != nil || !held {
		t.Fatalf("finish send: held %v, %v", held, err)
	}
	rows, _ = sendOnce(t, s, now, []bot.ChatKey{key}, func(*bot.OutboxRow) bot.Outcome { return bot.Outcome{Kind: bot.OutcomeSent} })
	if len(rows) != 1 || rows[0].Request.Params["media"] == "" {
		t.Fatalf("claimed %+v, want e3", rows)
	}
}

// later is a lease's end as the sender makes it (to the microsecond).
func later(now time.Time, d time.Duration) time.Time { return now.Add(d).Truncate(time.Microsecond) }

// Ensure the rows of one state go in their order across lanes: a reply's edit of the board (the
// conversation) waits for the copy of the board still to be sent in the updates lane, and is
// claimed once that copy is sent; a plain reply does not wait.
func TestStateOrderAcrossLanes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, pool, service := newStore(t)
	const chat = 7 // the chat of text's updates
	queue(t, s, service, boardAnew(t, chat, "n1", true)...)
	if _, err := s.SaveUpdates(ctx, service, []json.RawMessage{text("1", "hi", "")}, 2); err != nil {
		t.Fatal(err)
	}
	conv := bot.ChatKey{Service: service, Chat: chat, Lane: bot.LaneConversation}
	upd := bot.ChatKey{Service: service, Chat: chat, Lane: bot.LaneUpdates}
	_, err := s.HandleBatch(ctx, []bot.ChatKey{{Service: service, Chat: chat}}, func(ctx context.Context, tx bot.Tx, u *bot.Update) error {
		return tx.Send(ctx, boardCaption(t, chat, "reply"))
	})
	if err != nil {
		t.Fatal(err)
	}
	got := pending(t, pool, chat)
	if len(got) != 3 || got[2].lane != bot.LaneConversation || got[2].label != "reply" {
		t.Fatalf("after the reply: %+v, want the copy in the updates lane and the reply's edit in the conversation", got)
	}
	now := time.Now()
	sent := func(*bot.OutboxRow) bot.Outcome { return bot.Outcome{Kind: bot.OutcomeSent} }
	rows, res := sendOnce(t, s, now, []bot.ChatKey{conv, upd}, sent)
	if len(rows) != 1 || rows[0].Request.Method != "deleteMessage" || res[0].Err != bot.ErrBusy {
		t.Fatalf("first claim: %+v (results %+v), want the deletion, and the reply waiting", rows, res)
	}
	rows, _ = sendOnce(t, s, now, []bot.ChatKey{conv, upd}, sent)
	if len(rows) != 1 || rows[0].Request.Method != "sendPhoto" {
		t.Fatalf("second claim: %+v, want the copy", rows)
	}
	rows, _ = sendOnce(t, s, now, []bot.ChatKey{conv, upd}, sent)
	if len(rows) != 1 || rows[0].Request.Method != "editMessageCaption" {
		t.Fatalf("third claim: %+v, want the reply's edit", rows)
	}
}

// Ensure an edit drops only the pending edits of the same message: an edit of the message whose
// button was pressed (by its message_id) and an edit of the board by its ref both stay, in order.
func TestSupersedeSameMessage(t *testing.T) {
	t.Parallel()
	s, pool, service := newStore(t)
	const chat = 5
	pressed := func(label string) bot.Request {
		r, err := bot.EditPhoto(chat, 41, "/boards/"+label+".png", label, nil)
		if err != nil {
			t.Fatal(err)
		}
		r.State = boardState
		return r
	}
	queue(t, s, service, pressed("tap1"))
	queue(t, s, service, pressed("tap2"))
	queue(t, s, service, boardEdit(t, chat, "move"))
	var got []string
	for _, r := range pending(t, pool, chat) {
		got = append(got, r.label)
	}
	if want := []string{"tap2", "move"}; !slices.Equal(got, want) {
		t.Fatalf("pending %q, want %q", got, want)
	}
}

// Ensure a newer aside (a quest screen left, edited to show the choice made) of a state drops
// the pending ones, whatever messages they edit, and nothing else: the new screens and the rows
// of other states stay; asides go to the updates lane.
func TestSupersedeAsides(t *testing.T) {
	t.Parallel()
	s, pool, service := newStore(t)
	const chat = 6
	left := func(msg int, label string) bot.Request {
		r, err := bot.EditHTML(chat, msg, label, nil)
		if err != nil {
			t.Fatal(err)
		}
		r.Aside, r.State = true, "quest-left:9"
		return r
	}
	screen := func(label string) bot.Request {
		reqs, err := bot.SendHTML(chat, label, nil)
		if err != nil {
			t.Fatal(err)
		}
		return reqs[0]
	}
	step := func(msg int, label string) { queue(t, s, service, screen("screen "+label), left(msg, "left "+label)) }
	step(1, "1")
	step(2, "2")
	queue(t, s, service, boardEdit(t, chat, "board"))
	step(3, "3")
	var got []string
	for _, r := range pending(t, pool, chat) {
		got = append(got, r.lane.String()+" "+r.label)
	}
	want := []string{"conversation screen 1", "conversation screen 2", "updates board", "conversation screen 3", "updates left 3"}
	if !slices.Equal(got, want) {
		t.Fatalf("pending %q, want %q", got, want)
	}
}

// Ensure the runs of a state of several chats queued together each supersede their own chat's
// rows and inherit their own chat's sound, that a second run of one chat's state in the same
// transaction supersedes the first, and that the rows keep the order they were queued in.
func TestSupersedeSeveralChatsAtOnce(t *testing.T) {
	t.Parallel()
	s, pool, service := newStore(t)
	const a, b = 11, 12
	u := bot.LaneUpdates
	queue(t, s, service, boardAnew(t, a, "a1", true)...)
	queue(t, s, service, boardAnew(t, b, "b1", false)...)
	var reqs []bot.Request
	reqs = append(reqs, boardAnew(t, a, "a2", false)...)
	reqs = append(reqs, boardAnew(t, b, "b2", false)...)
	reqs = append(reqs, msg(a, "words"), boardEdit(t, b, "b3"), boardEdit(t, a, "a3"), boardEdit(t, a, "a4"))
	reqs = append(reqs, msg(b, "more"), boardEdit(t, a, "a5"))
	queue(t, s, service, reqs...)
	wantA := []pendingRow{{u, "deleteMessage", "", false}, {u, "sendPhoto", "a2", true},
		{bot.LaneConversation, "sendMessage", "words", false}, {u, "editMessageMedia", "a5", false}}
	if got := pending(t, pool, a); !slices.Equal(got, wantA) {
		t.Fatalf("chat %d: %+v, want %+v", a, got, wantA)
	}
	wantB := []pendingRow{{u, "deleteMessage", "", false}, {u, "sendPhoto", "b2", false},
		{u, "editMessageMedia", "b3", false}, {bot.LaneConversation, "sendMessage", "more", false}}
	if got := pending(t, pool, b); !slices.Equal(got, wantB) {
		t.Fatalf("chat %d: %+v, want %+v", b, got, wantB)
	}
	// The rows of both chats in id order are the order they were queued in.
	rows, err := pool.Query(context.Background(), `
		SELECT chat_id, method FROM outbox WHERE status = 'pending' ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		chat   int64
		method string
	}
	var got []row
	for rows.Next() {
		var r row
		if err := rows.Scan(&r.chat, &r.method); err != nil {
			t.Fatal(err)
		}
		got = append(got, r)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	want := []row{{a, "deleteMessage"}, {a, "sendPhoto"}, {b, "deleteMessage"}, {b, "sendPhoto"},
		{a, "sendMessage"}, {b, "editMessageMedia"}, {b, "sendMessage"}, {a, "editMessageMedia"}}
	if !slices.Equal(got, want) {
		t.Fatalf("rows in id order %+v, want %+v", got, want)
	}
}
