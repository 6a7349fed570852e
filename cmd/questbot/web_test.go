package main

import (
	"cmp"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"

	"github.com/questbot/questbot/bot/boards/web"
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
	waitHealthy(t, r, wait.Hang)
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
	wait.For(t, wait.Hang, "the login link", func() bool {
		for _, m := range r.srv.emuBot.Messages(ann) {
			if m.FromBot && linkRE.MatchString(m.Text) {
				link = linkRE.FindString(m.Text)
				return true
			}
		}
		return false
	})
	resp = openLoginLink(t, base, link)
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

// Ensure serve mounts every route the web game server registers: with a game and a tournament
// made as a user would, a request of each of web.Patterns (its wildcards filled with them, its
// method, the session's cookie and CSRF token) reaches the game server, none answered 404 (or
// 405) by serve's own routes. The catch-all of the API, whose answer is the game server's 404
// for an unknown call, is checked to be that answer.
func TestServeMountsEveryWebRoute(t *testing.T) {
	t.Parallel()
	const ann = 424243
	cfg := testConfig(t)
	cfg.DatabaseURL = pgtest.ConnString(t)
	cfg.Admins = []int64{ann}
	r := startServer(t, cfg)
	waitHealthy(t, r, wait.Hang)
	<-r.srv.started
	base := "http://" + r.addr
	emu := r.srv.emuBot
	emu.AddUser(tgbotapi.User{ID: ann, FirstName: "Ann", LanguageCode: "en"})

	// A session of Ann's.
	if _, err := emu.SendText(ann, "/web"); err != nil {
		t.Fatal(err)
	}
	linkRE := regexp.MustCompile(regexp.QuoteMeta(base) + `/login/[A-Za-z0-9_-]{22}`)
	var link string
	wait.For(t, wait.Hang, "the login link", func() bool {
		for _, m := range emu.Messages(ann) {
			if m.FromBot && linkRE.MatchString(m.Text) {
				link = linkRE.FindString(m.Text)
				return true
			}
		}
		return false
	})
	jar := newSession(t, base, link)

	// A game against the bot and a tournament.
	var created struct {
		ID int64 `json:"id"`
	}
	if code, body := jar.call(t, "POST", "/api/v1/games", `{"variant": "russian", "bot": "easy"}`); code != http.StatusCreated ||
		json.Unmarshal(body, &created) != nil || created.ID == 0 {
		t.Fatalf("a game: %d %s", code, body)
	}
	// One rated game of Ann's in her history, so that her rating chart exists.
	if _, err := r.srv.pool.Load().Exec(context.Background(), `
		WITH g AS (SELECT service_id, variant, id FROM board_session WHERE id = $1),
		s AS (INSERT INTO board_stats (service_id, user_id, variant, played, won, rated, rating, deviation, rated_at, updated_at)
			SELECT service_id, $2, variant, 1, 1, 1, 1550, 200, now(), now() FROM g)
		INSERT INTO board_rating_history (service_id, user_id, variant, board_id, rated_at, rating, deviation, volatility)
		SELECT service_id, $2, variant, id, now(), 1550, 200, 0.06 FROM g`, created.ID, ann); err != nil {
		t.Fatal(err)
	}
	if _, err := emu.SendText(ann, "/tournament new roundrobin russian 5+3 in 30"); err != nil {
		t.Fatal(err)
	}
	var tournament int64
	wait.For(t, wait.Hang, "the tournament", func() bool {
		var list struct {
			Tournaments []struct {
				ID int64 `json:"id"`
			} `json:"tournaments"`
		}
		code, body := jar.call(t, "GET", "/api/v1/tournaments", "")
		if code != http.StatusOK || json.Unmarshal(body, &list) != nil || len(list.Tournaments) == 0 {
			return false
		}
		tournament = list.Tournaments[0].ID
		return true
	})

	fill := strings.NewReplacer("{ticket}", "unknownticket000000000", "{variant}", "russian", "{game}", "russian",
		"{file...}", "play.js")
	patterns := web.Patterns()
	if len(patterns) < 30 {
		t.Fatalf("web.Patterns: %d patterns: %q", len(patterns), patterns)
	}
	// The logouts end the session: last.
	last := func(p string) int {
		if strings.Contains(p, "/logout") {
			return 1
		}
		return 0
	}
	slices.SortStableFunc(patterns, func(a, b string) int { return cmp.Compare(last(a), last(b)) })
	for _, p := range patterns {
		method, path, ok := strings.Cut(p, " ")
		if !ok {
			method, path = "GET", p
		}
		id := created.ID
		if strings.Contains(path, "/tournaments/") {
			id = tournament
		}
		path = strings.ReplaceAll(path, "{id}", strconv.FormatInt(id, 10))
		path = fill.Replace(path)
		switch path {
		case "/play/":
			path += strconv.FormatInt(created.ID, 10)
		case "/top/":
			path += "russian"
		case "/static/":
			path += "style.css"
		}
		catchAll := strings.HasSuffix(path, "/") && !strings.Contains(p, "{")
		if catchAll {
			path += "nothing"
		}
		body := ""
		if method == "POST" {
			body = "{}"
		}
		code, answer := jar.call(t, method, path, body)
		switch {
		case catchAll && (code != http.StatusNotFound || !strings.Contains(string(answer), `"not_found"`)):
			t.Errorf("%s (%s %s): %d %.200s; want the game server's 404", p, method, path, code, answer)
		case !catchAll && (code == http.StatusNotFound || code == http.StatusMethodNotAllowed || code == http.StatusServiceUnavailable):
			t.Errorf("%s (%s %s): %d %.200s", p, method, path, code, answer)
		}
	}
}

// openLoginLink opens a login link as a browser does: its page, whose form posts to the link
// with the page's Origin; the answer of the post, a redirect to the lobby with the cookie.
func openLoginLink(t *testing.T, base, link string) *http.Response {
	t.Helper()
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Get(link)
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || len(resp.Cookies()) != 0 || !strings.Contains(string(page), `<form method="post">`) {
		t.Fatalf("the login link's page: %s, cookies %v\n%s", resp.Status, resp.Cookies(), page)
	}
	req, _ := http.NewRequest("POST", link, nil)
	req.Header.Set("Origin", base)
	if resp, err = client.Do(req); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/games" || len(resp.Cookies()) != 1 {
		t.Fatalf("the login: %s, cookies %v", resp.Status, resp.Cookies())
	}
	return resp
}

// session is a browser's session with the web game server: its cookie and CSRF token.
type session struct {
	base   string
	cookie *http.Cookie
	csrf   string
}

// newSession opens a login link and reads the session's CSRF token.
func newSession(t *testing.T, base, link string) *session {
	t.Helper()
	resp := openLoginLink(t, base, link)
	s := &session{base: base, cookie: resp.Cookies()[0]}
	var me struct {
		CSRF string `json:"csrf"`
	}
	if code, body := s.call(t, "GET", "/api/v1/me", ""); code != http.StatusOK || json.Unmarshal(body, &me) != nil || me.CSRF == "" {
		t.Fatalf("/api/v1/me: %d %s", code, body)
	}
	s.csrf = me.CSRF
	return s
}

// call makes a request with the session and returns its status and body.
func (s *session) call(t *testing.T, method, path, body string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, s.base+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.AddCookie(s.cookie)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if s.csrf != "" {
		req.Header.Set("X-CSRF-Token", s.csrf)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	resp, err := http.DefaultClient.Do(req.WithContext(ctx))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		return resp.StatusCode, nil // a live stream: its status is the answer
	}
	answer, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, answer
}
