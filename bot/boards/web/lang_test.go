package web_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/questbot/questbot/bot/boards/web"
	"github.com/questbot/questbot/bot/texts"
)

// Ensure a page whose Mini App login was refused as forged reads the API's refusals in its own
// language: the page asks in it (Accept-Language), and the game it cannot see, the call that
// needs a login and the rate limit are worded in Russian for a Russian page, in English by
// default; a program that says nothing reads English.
func TestRefusalsInThePagesLanguage(t *testing.T) {
	t.Parallel()
	e := newEnv(t, web.Config{Rate: 1, Burst: 10, Pages: web.Pages()})
	e.clock.frozen.Store(e.clock.now().UnixNano())
	ann := e.login(t, 1, "Ann")
	var g struct{ ID int64 }
	ann.must(t, "POST", "/api/v1/games", map[string]string{"variant": "russian", "bot": "easy"}, http.StatusCreated, &g)
	ru, en := texts.For("ru").Web, texts.For("en").Web

	// The page's script asks in the page's language.
	code, _, script := (&client{e: e}).call(t, "GET", "/static/common.js", nil)
	if code != http.StatusOK || !strings.Contains(string(script), `"Accept-Language": lang`) {
		t.Fatalf("common.js: %d, does not send the page's language", code)
	}

	// Boris's Mini App data, forged: refused; his page is Russian.
	forged := miniAppData("999:not-this-bot", 2, "Борис", e.clock.now().Add(-time.Minute))
	call := func(method, path, lang string, body any) (int, string, string) {
		t.Helper()
		c := (&client{e: e})
		if lang != "" {
			c = c.from("Accept-Language", lang)
		}
		code, _, answer := c.call(t, method, path, body)
		var out struct {
			Error struct{ Code, Message string } `json:"error"`
		}
		if err := json.Unmarshal(answer, &out); err != nil {
			t.Fatalf("%s %s: %d %s", method, path, code, answer)
		}
		return code, out.Error.Code, out.Error.Message
	}
	if code, kind, _ := call("POST", "/api/v1/miniapp/login", "ru", map[string]string{"init_data": forged}); code != http.StatusUnauthorized || kind != "miniapp_forged" {
		t.Fatalf("the forged login: %d %s", code, kind)
	}
	for _, c := range []struct {
		method, path, lang string
		status             int
		want               string
	}{
		{"GET", fmt.Sprintf("/api/v1/games/%d", g.ID), "ru", http.StatusNotFound, ru.NotFound},
		{"GET", fmt.Sprintf("/api/v1/games/%d/events", g.ID), "ru-RU", http.StatusNotFound, ru.NotFound},
		{"GET", "/api/v1/games", "ru", http.StatusUnauthorized, ru.LogIn},
		{"GET", "/api/v1/nothing", "ru", http.StatusNotFound, ru.NoCall},
		{"GET", fmt.Sprintf("/api/v1/games/%d", g.ID), "en-GB,en;q=0.8", http.StatusNotFound, en.NotFound},
		{"GET", fmt.Sprintf("/api/v1/games/%d", g.ID), "", http.StatusNotFound, en.NotFound},
	} {
		code, _, msg := call(c.method, c.path, c.lang, nil)
		if code != c.status || msg != c.want {
			t.Errorf("%s %s in %q: %d %q, want %d %q", c.method, c.path, c.lang, code, msg, c.status, c.want)
		}
	}
	// Past the rate limit (one address, frozen clock), in Russian too.
	russian := (&client{e: e}).from("Accept-Language", "ru")
	for {
		code, _, answer := russian.call(t, "GET", "/api/v1/variants", nil)
		if code == http.StatusTooManyRequests {
			if msg := string(answer); !strings.Contains(msg, ru.RateLimited) {
				t.Errorf("the rate limit in Russian: %s", msg)
			}
			break
		}
		if code != http.StatusOK {
			t.Fatalf("variants: %d %s", code, answer)
		}
	}
}
