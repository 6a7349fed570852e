package tgemu

import (
	"net/http/httptest"
	"net/url"
	"strconv"
	"sync"
	"testing"
	"time"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"
)

// Ensure the flood limits and the messages' dates follow the clock the emulator is given: a chat
// takes a burst of three messages at one instant and refuses the fourth, then one more each
// second of that clock; edits count as messages; a group takes 20 messages a minute; and the
// global limit counts the sends of the last second of that clock.
func TestInjectedClock(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	now := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	clock := func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		return now
	}
	advance := func(d time.Duration) {
		mu.Lock()
		defer mu.Unlock()
		now = now.Add(d)
	}
	emu := New(Options{EnforceRateLimits: true, Now: clock})
	b := emu.AddBot("1:T", "b")
	for id := int64(1); id <= 40; id++ {
		b.AddUser(tgbotapi.User{ID: id, FirstName: "U"})
	}
	if err := b.AddGroup(-50, "Club", 1); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(emu)
	defer srv.Close()
	send := func(chat string) int {
		code, _ := call(t, srv, "1:T", "sendMessage", url.Values{"chat_id": {chat}, "text": {"hi"}})
		return code
	}
	edit := func(chat string, msg int, text string) int {
		code, _ := call(t, srv, "1:T", "editMessageText", url.Values{"chat_id": {chat}, "message_id": {strconv.Itoa(msg)}, "text": {text}})
		return code
	}
	for i := range 3 {
		if code := send("1"); code != 200 {
			t.Fatalf("message %d of a burst: %d", i+1, code)
		}
	}
	if code := send("1"); code != 429 {
		t.Errorf("a fourth message at the same instant: %d, want 429", code)
	}
	if code := edit("1", 1, "edited"); code != 429 {
		t.Errorf("an edit at the same instant: %d, want 429 (edits count)", code)
	}
	advance(time.Second)
	if code := send("1"); code != 200 {
		t.Errorf("a second later: %d, want 200", code)
	}
	if code := edit("1", 1, "edited"); code != 429 {
		t.Errorf("an edit in the same second: %d, want 429", code)
	}
	advance(time.Second)
	if code := edit("1", 1, "edited"); code != 200 {
		t.Errorf("an edit a second later: %d, want 200", code)
	}
	if got := b.Messages(1); len(got) != 4 || got[3].Date.Sub(got[0].Date) != time.Second {
		t.Errorf("messages %+v, want four, the last dated a second after the first by the clock", got)
	}
	// A group: 20 messages a minute, one every 2 s, then the 21st is refused until the minute
	// of the first has passed.
	for i := range 20 {
		if code := send("-50"); code != 200 {
			t.Fatalf("group message %d: %d", i+1, code)
		}
		advance(2 * time.Second)
	}
	if code, resp := call(t, srv, "1:T", "sendMessage", url.Values{"chat_id": {"-50"}, "text": {"hi"}}); code != 429 ||
		resp.Parameters == nil || resp.Parameters.RetryAfter < 1 {
		t.Errorf("a 21st group message within the minute: %d %+v, want 429 with retry_after", code, resp.Parameters)
	}
	advance(20 * time.Second)
	if code := send("-50"); code != 200 {
		t.Errorf("a group message a minute after the first of the 20: %d, want 200", code)
	}
	// The global limit: 33 a second (30 and some tolerance), by the clock, however fast the
	// requests come.
	advance(time.Second)
	codes := map[int]int{}
	for id := 2; id <= 40; id++ {
		codes[send(strconv.Itoa(id))]++
	}
	if codes[200] != 33 || codes[429] != 6 {
		t.Errorf("39 chats at one instant: %v, want 33 sent and 6 refused", codes)
	}
	advance(time.Second)
	if code := send("40"); code != 200 {
		t.Errorf("a second later: %d, want 200", code)
	}
}
