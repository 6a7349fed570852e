package bot_test

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/questbot/questbot/bot"
)

// Ensure a button press on an inline message (a callback_query without message) is stored,
// handled with its sender as the chat, and answered, and that the long poll goes on.
func TestCallbackWithoutMessage(t *testing.T) {
	t.Parallel()
	e := newFakeEnv(t)
	e.api.push(fakeUpdate{id: 1, raw: `{"update_id":1,"callback_query":{"id":"cq-1",` +
		`"from":{"id":42,"is_bot":false,"first_name":"Ann","language_code":"en"},` +
		`"inline_message_id":"inline-1","chat_instance":"7","data":"x"}}`})
	e.api.push(message(2, 43, "hello"))
	h := &recorder{}
	e.start(t, bot.Config{Handler: h.handle, Limits: &bot.NoLimits})
	e.waitFor(t, "both updates handled", func() bool { return len(h.updateIDs()) == 2 })
	e.waitFor(t, "the press answered", func() bool { return len(e.api.callsOf("answerCallbackQuery")) == 1 })
	if got := e.api.callsOf("answerCallbackQuery")[0].Params.Get("callback_query_id"); got != "cq-1" {
		t.Errorf("answered %q, want cq-1", got)
	}
	// The two chats are handled independently, in either order.
	var press *bot.Update
	for _, u := range h.updates() {
		if u.CallbackQuery != nil {
			press = u
		}
	}
	if press == nil {
		t.Fatal("the press was not handled")
	}
	if press.Chat != 42 || press.User == nil || press.User.ID != 42 {
		t.Errorf("the press was handled as chat %d by %+v", press.Chat, press.User)
	}
	e.waitFor(t, "the reply to the other user", func() bool { return slices.Equal(e.api.textsTo(43), []string{"got hello"}) })
	e.waitFor(t, "both acknowledged", func() bool { return slices.Contains(e.api.offsetsAsked(), 3) })
}

// Ensure updates PostgreSQL cannot hold as they are, and updates that cannot be decoded, stop
// nothing: a text with U+0000, an unpaired surrogate or bytes that are not UTF-8 is stored with
// U+FFFD in their place and handled; an update with a field of the wrong type is quarantined,
// logged, counted and acknowledged; the updates around them are handled.
func TestUndecodableUpdates(t *testing.T) {
	t.Parallel()
	e := newFakeEnv(t)
	e.api.push(
		message(1, 41, "before"),
		fakeUpdate{id: 2, raw: strings.Replace(message(2, 42, "a?b").raw, "?", `\u0000`, 1)},
		fakeUpdate{id: 3, raw: `{"update_id":3,"message":{"message_id":3,"date":1,` +
			`"from":{"id":43,"is_bot":false,"first_name":"U43"},"chat":{"id":"forty-three","type":"private"},"text":"typed"}}`},
		fakeUpdate{id: 4, raw: strings.Replace(message(4, 44, "c?d").raw, "?", `\ud800`, 1)},
		fakeUpdate{id: 5, raw: strings.Replace(message(5, 45, "e?f").raw, "?", "\xff", 1)},
		message(6, 46, "after"),
	)
	h := &recorder{}
	m := bot.NewMetrics()
	e.start(t, bot.Config{Handler: h.handle, Limits: &bot.NoLimits, Metrics: m})
	e.waitFor(t, "the decodable updates handled", func() bool { return len(h.updateIDs()) == 5 })
	// Their chats differ, so they may be handled in any order.
	got := h.updateIDs()
	slices.Sort(got)
	if !slices.Equal(got, []int{1, 2, 4, 5, 6}) {
		t.Errorf("handled %v, want 1 2 4 5 6", got)
	}
	for chat, want := range map[int64]string{42: "got a\uFFFDb", 44: "got c\uFFFDd", 45: "got e\uFFFDf", 46: "got after"} {
		e.waitFor(t, "the reply to "+want, func() bool { return slices.Equal(e.api.textsTo(chat), []string{want}) })
	}
	e.waitFor(t, "all acknowledged", func() bool { return slices.Contains(e.api.offsetsAsked(), 7) })
	if n := e.queryInt(t, `SELECT count(*) FROM inbox_quarantine WHERE update_id = 3 AND payload = $1`,
		[]byte(`{"update_id":3,"message":{"message_id":3,"date":1,"from":{"id":43,"is_bot":false,"first_name":"U43"},"chat":{"id":"forty-three","type":"private"},"text":"typed"}}`)); n != 1 {
		t.Errorf("%d quarantined copies of update 3 as received, want 1", n)
	}
	if n := e.queryInt(t, `SELECT count(*) FROM inbox_quarantine`); n != 1 {
		t.Errorf("%d quarantined updates, want 1", n)
	}
	if !strings.Contains(e.logs.String(), "Update quarantined") || !strings.Contains(e.logs.String(), "update_id=3") {
		t.Errorf("the quarantine is not logged:\n%s", e.logs)
	}
	if got := metricValue(t, m, "questbot_updates_quarantined_total"); got != 1 {
		t.Errorf("quarantine counter %v, want 1", got)
	}
}

// Ensure an update_id that leaves no next offset (2^63-1) neither wraps the offset nor makes the
// pending updates be handled again: the offsets asked never go down, the updates before it are
// handled once, and it is quarantined (an offset cannot acknowledge it).
func TestHugeUpdateID(t *testing.T) {
	t.Parallel()
	e := newFakeEnv(t)
	e.api.push(message(1, 41, "one"), message(2, 42, "two"), message(math.MaxInt64, 43, "last"))
	h := &recorder{}
	e.start(t, bot.Config{Handler: h.handle, Limits: &bot.NoLimits})
	e.waitFor(t, "the first two handled", func() bool { return len(h.updateIDs()) >= 2 })
	// The server delivers the last update again on every poll: a few more of them.
	n := e.api.polls()
	e.waitFor(t, "three more polls", func() bool { return e.api.polls() >= n+3 })
	// Their chats differ, so they may be handled in either order.
	got := h.updateIDs()
	slices.Sort(got)
	if !slices.Equal(got, []int{1, 2}) {
		t.Errorf("handled %v, want 1 2 once each", got)
	}
	offsets := e.api.offsetsAsked()
	for i, o := range offsets {
		if o < 0 || (i > 0 && o < offsets[i-1]) {
			t.Fatalf("offsets asked %v: negative or going back", offsets)
		}
	}
	if n := e.queryInt(t, `SELECT count(*) FROM inbox_quarantine WHERE update_id = $1`, int64(math.MaxInt64)); n != 1 {
		t.Errorf("%d quarantined copies of update 2^63-1, want 1", n)
	}
	if n := strings.Count(e.logs.String(), "Update quarantined"); n != 1 {
		t.Errorf("the quarantine is logged %d times, want once:\n%s", n, e.logs)
	}
}

// Ensure a server that answers getUpdates at once, without updates, is asked again only after
// the least interval between empty polls has passed on the transport's clock.
func TestEmptyPollsPaced(t *testing.T) {
	t.Parallel()
	e := newFakeEnv(t)
	e.api.instant = true
	start := time.Now()
	clock := bot.NewFakeClock(start)
	e.start(t, bot.Config{Limits: &bot.NoLimits, Clock: clock})
	for i := 1; i <= 3; i++ {
		clock.WaitPending(t, "the pause after an empty poll", func(at time.Time) bool { return at.After(clock.Now()) })
		if n := e.api.polls(); n != i {
			t.Fatalf("%d polls before the clock moved %d times, want %d", n, i-1, i)
		}
		clock.Advance(time.Second)
		e.waitFor(t, "the next poll", func() bool { return e.api.polls() == i+1 })
	}
	if n := strings.Count(e.logs.String(), "ignores the long-poll timeout"); n != 1 {
		t.Errorf("the server's haste is logged %d times, want once:\n%s", n, e.logs)
	}
}
