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

// Ensure the flood limits and the messages' dates follow the clock the emulator is given: two
// messages to a chat at one instant are one too many, the same a second apart are not, and
// the global limit counts the sends of the last second of that clock.
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
	srv := httptest.NewServer(emu)
	defer srv.Close()
	send := func(chat string) int {
		code, _ := call(t, srv, "1:T", "sendMessage", url.Values{"chat_id": {chat}, "text": {"hi"}})
		return code
	}
	if code := send("1"); code != 200 {
		t.Fatalf("first message: %d", code)
	}
	if code := send("1"); code != 429 {
		t.Errorf("second message at the same instant: %d, want 429", code)
	}
	advance(time.Second)
	if code := send("1"); code != 200 {
		t.Errorf("a second later: %d, want 200", code)
	}
	if got := b.Messages(1); len(got) != 2 || got[1].Date.Sub(got[0].Date) != time.Second {
		t.Errorf("messages %+v, want two dated a second apart by the clock", got)
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
