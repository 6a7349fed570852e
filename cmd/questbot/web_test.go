package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"

	"github.com/questbot/questbot/bot/testkit/wait"
	"github.com/questbot/questbot/migrations/pgtest"
)

// Ensure serve mounts the web game server beside the web chat: /web in the emulated bot gives a
// link to the listener's address whose ticket logs in, and the session cookie opens
// /api/v1/me; without a cookie the API is 401, and the pages' routes are the server's.
func TestServeWebGameServer(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t)
	cfg.DatabaseURL = pgtest.ConnString(t)
	r := startServer(t, cfg)
	waitHealthy(t, r, 30*time.Second)
	<-r.srv.started
	base := "http://" + r.addr

	resp, err := http.Get(base + "/api/v1/me")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("/api/v1/me without a cookie: %s", resp.Status)
	}

	const ann = 424242
	r.srv.emuBot.AddUser(tgbotapi.User{ID: ann, FirstName: "Ann", LanguageCode: "en"})
	if _, err := r.srv.emuBot.SendText(ann, "/web"); err != nil {
		t.Fatal(err)
	}
	linkRE := regexp.MustCompile(regexp.QuoteMeta(base) + `/login/[A-Za-z0-9_-]{22}`)
	var link string
	wait.For(t, 20*time.Second, "the login link", func() bool {
		for _, m := range r.srv.emuBot.Messages(ann) {
			if m.FromBot && linkRE.MatchString(m.Text) {
				link = linkRE.FindString(m.Text)
				return true
			}
		}
		return false
	})
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err = client.Get(link)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || len(resp.Cookies()) != 1 {
		t.Fatalf("the login link: %s, cookies %v", resp.Status, resp.Cookies())
	}
	req, _ := http.NewRequest("GET", base+"/api/v1/me", nil)
	req.AddCookie(resp.Cookies()[0])
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var me struct {
		User struct {
			ID   int64  `json:"id"`
			Name string `json:"name"`
		} `json:"user"`
		CSRF string `json:"csrf"`
	}
	err = json.NewDecoder(resp.Body).Decode(&me)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK || me.User.ID != ann || me.User.Name != "Ann" || me.CSRF == "" {
		t.Fatalf("/api/v1/me: %s %+v %v", resp.Status, me, err)
	}
	// The web chat stays at /; the pages are the game server's.
	for path, want := range map[string]int{"/": http.StatusOK, "/games": http.StatusOK, "/play/1": http.StatusOK, "/play/x": http.StatusNotFound} {
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("GET %s: %s %.100s", path, resp.Status, body)
		}
	}
}

// Ensure the web game server's routes answer 503 until it runs.
func TestServeWebStarting(t *testing.T) {
	t.Parallel()
	s := &Server{}
	w := httptest.NewRecorder()
	s.serveWeb(w, httptest.NewRequest("GET", "/api/v1/me", nil))
	if w.Code != http.StatusServiceUnavailable || !strings.Contains(w.Body.String(), "starting") {
		t.Fatalf("before the start: %d %q", w.Code, w.Body)
	}
}

// Ensure PUBLIC_URL is empty by default (serve then uses the listener's address), loses its trailing slash, and must be an
// absolute http(s) address.
func TestConfigPublicURL(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"": "", "https://games.example.org/": "https://games.example.org",
		"http://10.0.0.1:9000/qb": "http://10.0.0.1:9000/qb"} {
		cfg, err := ConfigFromEnv(func(k string) string { return map[string]string{"PUBLIC_URL": in}[k] })
		if err != nil || cfg.PublicURL != want {
			t.Errorf("PUBLIC_URL %q: %q, %v; want %q", in, cfg.PublicURL, err, want)
		}
	}
	for _, bad := range []string{"games.example.org", "ftp://x.org", "https://", "/relative", "https://x.org/?a=1", "http://u:p@x.org"} {
		if _, err := ConfigFromEnv(func(k string) string { return map[string]string{"PUBLIC_URL": bad}[k] }); err == nil ||
			!strings.Contains(err.Error(), "PUBLIC_URL") {
			t.Errorf("PUBLIC_URL %q: %v", bad, err)
		}
	}
}
