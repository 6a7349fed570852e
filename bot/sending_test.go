package bot_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/questbot/questbot/bot"
)

// sendTo queues one text to each chat, through the transport.
func sendTo(t *testing.T, tr *bot.Transport, service int, text string, chats ...int64) {
	t.Helper()
	var reqs []bot.Request
	for _, c := range chats {
		r, err := bot.SendHTML(c, text, nil)
		if err != nil {
			t.Fatal(err)
		}
		reqs = append(reqs, r...)
	}
	if err := tr.Send(context.Background(), service, reqs...); err != nil {
		t.Fatal(err)
	}
}

// Ensure answers that are not the Bot API's (a proxy's HTML error page, JSON of another shape)
// are logged with their HTTP status and a short excerpt of the body without the token, and are
// retried.
func TestUnexpectedAnswers(t *testing.T) {
	t.Parallel()
	e := newFakeEnv(t)
	page := "<html><head><title>502 Bad Gateway</title></head><body><h1>502 Bad Gateway</h1>" +
		"<p>upstream https://api.telegram.org/bot" + fakeToken + "/sendMessage failed</p>" +
		strings.Repeat("<p>padding padding padding</p>\n", 200) + "</body></html>"
	var mu sync.Mutex
	failed := map[string]bool{}
	e.api.setFault(func(w http.ResponseWriter, r *http.Request, method string, p url.Values) bool {
		mu.Lock()
		defer mu.Unlock()
		if method != "sendMessage" || failed[p.Get("chat_id")] {
			return false
		}
		failed[p.Get("chat_id")] = true
		switch p.Get("chat_id") {
		case "1":
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(http.StatusBadGateway)
			fmt.Fprint(w, page)
		case "2":
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusInternalServerError)
			fmt.Fprint(w, `{"error":"upstream timeout"}`)
		}
		return true
	})
	tr, service, _ := e.start(t, bot.Config{Senders: 1, Limits: &bot.NoLimits})
	sendTo(t, tr, service, "hi", 1)
	e.waitFor(t, "chat 1 served after the retry", func() bool { return len(e.api.textsTo(1)) == 2 })
	sendTo(t, tr, service, "hi", 2)
	e.waitFor(t, "chat 2 served after the retry", func() bool { return len(e.api.textsTo(2)) == 2 })
	var lines []string
	for _, l := range strings.Split(e.logs.String(), "\n") {
		if strings.Contains(l, "Sending failed") {
			lines = append(lines, l)
		}
	}
	if len(lines) != 2 {
		t.Fatalf("%d failures logged, want 2:\n%s", len(lines), e.logs)
	}
	for i, want := range []string{"HTTP 502", "HTTP 500"} {
		if !strings.Contains(lines[i], want) {
			t.Errorf("log line %q does not say %s", lines[i], want)
		}
		if strings.Contains(lines[i], "telegram: 0") {
			t.Errorf("log line %q reads as a Telegram error of code 0", lines[i])
		}
		if len(lines[i]) > 800 {
			t.Errorf("log line of %d bytes: the excerpt is not bounded", len(lines[i]))
		}
	}
	if !strings.Contains(lines[0], "502 Bad Gateway") || !strings.Contains(lines[1], "upstream timeout") {
		t.Errorf("the excerpts of the bodies are missing:\n%s", strings.Join(lines, "\n"))
	}
}

// Ensure a request that hangs holds neither the other chats sent with it nor the sender: their
// messages go out while it hangs, and when it ends its chat goes on in order, without a copy.
func TestHungSend(t *testing.T) {
	t.Parallel()
	e := newFakeEnv(t)
	release := make(chan struct{})
	e.api.setFault(func(w http.ResponseWriter, r *http.Request, method string, p url.Values) bool {
		if method != "sendMessage" || p.Get("chat_id") != "1" || p.Get("text") != "first" {
			return false
		}
		select {
		case <-release:
		case <-r.Context().Done():
		}
		return false // then answer normally
	})
	// One sender, so that everything would wait behind the hung request if it held its batch.
	tr, service, _ := e.start(t, bot.Config{Senders: 1, Limits: &bot.NoLimits})
	chats := []int64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}
	sendTo(t, tr, service, "first", chats...)
	sendTo(t, tr, service, "second", chats...)
	e.waitFor(t, "the other chats served while chat 1 hangs", func() bool {
		for _, c := range chats[1:] {
			if !slices.Equal(e.api.textsTo(c), []string{"first", "second"}) {
				return false
			}
		}
		return true
	})
	if got := e.api.textsTo(1); !slices.Equal(got, []string{"first"}) {
		t.Fatalf("chat 1 got %q while its first message hangs, want only that one", got)
	}
	close(release)
	e.waitFor(t, "chat 1 served in order", func() bool { return slices.Equal(e.api.textsTo(1), []string{"first", "second"}) })
	e.waitFor(t, "an empty outbox", func() bool { return e.queryInt(t, `SELECT count(*) FROM outbox`) == 0 })
	if got := e.api.textsTo(1); !slices.Equal(got, []string{"first", "second"}) {
		t.Errorf("chat 1 got %q, want first and second once each", got)
	}
}
