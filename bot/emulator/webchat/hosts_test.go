package webchat_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"

	"github.com/questbot/questbot/bot/emulator/tgemu"
	"github.com/questbot/questbot/bot/emulator/webchat"
)

// Ensure the web chat answers only at a host it serves: a site whose name an attacker points at
// this machine (DNS rebinding: Origin and Host both the attacker's name, so the origin check
// alone passes) can neither send /token as the admin nor read the chats; the loopback names, IP
// addresses and the configured host are served.
func TestHostChecked(t *testing.T) {
	t.Parallel()
	b, h := adminChat(t)
	const admin = webchat.FirstUserID
	h.Hosts = []string{"games.example.org"}
	do := func(method, host, path, body string) *httptest.ResponseRecorder {
		rq := httptest.NewRequest(method, "http://"+host+path, strings.NewReader(body))
		rq.Header.Set("Content-Type", "application/json")
		if method == "POST" {
			rq.Header.Set("Origin", "http://"+host)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, rq)
		return rec
	}
	send := `{"user": 100000001, "text": "/token"}`
	for _, host := range []string{"evil.example", "evil.example:8080", "rebind.attacker.test.", "localhost.evil.example"} {
		if rec := do("POST", host, "/api/send", send); rec.Code != http.StatusMisdirectedRequest {
			t.Errorf("a send at %s: %d %q, want 421", host, rec.Code, rec.Body.String())
		}
		for _, path := range []string{"/", "/api/users", "/api/events?chats=100000001"} {
			if rec := do("GET", host, path, ""); rec.Code != http.StatusMisdirectedRequest {
				t.Errorf("GET %s at %s: %d, want 421", path, host, rec.Code)
			}
		}
	}
	if n := len(b.Messages(admin)); n != 0 {
		t.Fatalf("a request at a foreign host reached the chat: %d messages", n)
	}
	for _, host := range []string{"127.0.0.1:8080", "localhost:8080", "LOCALHOST", "[::1]:8080", "192.0.2.7", "games.example.org", "Games.Example.Org:443"} {
		if rec := do("POST", host, "/api/send", `{"user": 100000001, "text": "hi"}`); rec.Code != http.StatusOK {
			t.Errorf("a send at %s: %d %q, want 200", host, rec.Code, rec.Body.String())
		}
	}
}

// adminChat is a web chat, served by no server, of an emulated bot whose one user is the admin
// (webchat.FirstUserID).
func adminChat(t *testing.T) (*tgemu.Bot, *webchat.Handler) {
	t.Helper()
	emu := tgemu.New(tgemu.Options{})
	t.Cleanup(func() { emu.Close() })
	b := emu.AddBot("1:T", "b")
	b.AddUser(tgbotapi.User{ID: webchat.FirstUserID, FirstName: "Admin", LanguageCode: "en"})
	return b, webchat.New(emu, b)
}
