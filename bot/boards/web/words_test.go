package web_test

import (
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/chromedp/chromedp"

	"github.com/questbot/questbot/bot/boards/web"
	"github.com/questbot/questbot/bot/texts"
)

// pagesWordKeys are the keys of the words the pages' scripts and HTML ask for: every literal
// t("…") of the scripts and data-t="…" of the pages, and the keys the scripts make of a prefix
// and a value the API sends (the statuses of a board, the codes of a refused Mini App login).
func pagesWordKeys(t *testing.T) map[string]bool {
	t.Helper()
	literal := regexp.MustCompile(`\bt\("([^"]+)"`)
	attr := regexp.MustCompile(`data-t="([^"]+)"`)
	keys := map[string]bool{}
	files, err := filepath.Glob("static/*")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range files {
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, re := range []*regexp.Regexp{literal, attr} {
			for _, m := range re.FindAllStringSubmatch(string(src), -1) {
				if !strings.HasSuffix(m[1], ".") {
					keys[m[1]] = true
				}
			}
		}
		if strings.HasSuffix(name, ".js") && strings.ContainsFunc(string(src), func(r rune) bool { return unicode.Is(unicode.Cyrillic, r) }) {
			t.Errorf("%s has Russian words of its own", name)
		}
	}
	for _, s := range []string{"waiting", "active", "finished", "aborted"} {
		keys["status."+s] = true
	}
	for _, s := range []string{"created", "running", "finished"} {
		keys["tn.state."+s] = true
	}
	for _, c := range []string{"invalid", "forged", "stale", "replayed", "unknown_user"} {
		keys["err.miniapp_"+c] = true
	}
	if len(keys) < 40 {
		t.Fatalf("only %d keys found in the pages: %v", len(keys), keys)
	}
	return keys
}

// Ensure every word the pages' scripts ask for is in the bot's catalogue in every language, and
// that each page carries the catalogue's words as they are there.
func TestPagesWords(t *testing.T) {
	t.Parallel()
	keys := pagesWordKeys(t)
	for _, lang := range texts.Languages() {
		page := texts.For(lang).Web.Page
		for k := range keys {
			if page[k] == "" {
				t.Errorf("%s: no word for %q", lang, k)
			}
		}
	}

	srv := httptest.NewServer(web.Pages())
	t.Cleanup(srv.Close)
	// Each page loads the words (in their current version) before the script that uses them.
	script := regexp.MustCompile(`<script src="(/static/words\.js\?v=[0-9a-f]+)" defer></script>\s*<script src="/static/common\.js`)
	var src string
	for _, path := range []string{"/games", "/play/7", "/top", "/top/chess"} {
		resp, body := pagesGet(t, srv, "GET", path)
		m := script.FindStringSubmatch(body)
		if resp.StatusCode != 200 || m == nil {
			t.Fatalf("%s: status %d, the words are not loaded before common.js", path, resp.StatusCode)
		}
		if src != "" && m[1] != src {
			t.Errorf("%s loads %s, another page %s", path, m[1], src)
		}
		src = m[1]
	}
	resp, body := pagesGet(t, srv, "GET", src)
	if ct := resp.Header.Get("Content-Type"); resp.StatusCode != 200 || ct != "text/javascript; charset=utf-8" {
		t.Fatalf("GET %s: status %d, %s", src, resp.StatusCode, ct)
	}
	js, ok := strings.CutPrefix(body, "\"use strict\";\n// The words of the pages, made by the server from the bot's catalogue.\nconst QB_WORDS = ")
	if !ok || !strings.HasSuffix(js, ";\n") {
		t.Fatalf("GET %s: %q", src, body)
	}
	var words map[string]map[string]string
	if err := json.Unmarshal([]byte(strings.TrimSuffix(js, ";\n")), &words); err != nil {
		t.Fatalf("GET %s: the words: %v", src, err)
	}
	for _, lang := range texts.Languages() {
		for k, want := range texts.For(lang).Web.Page {
			if got := words[lang][k]; got != want {
				t.Errorf("%s %q is %q, want %q", lang, k, got, want)
			}
		}
	}
}

// Ensure a Russian player's lobby is in Russian, in the words of the catalogue.
func TestLobbyPageInRussian(t *testing.T) {
	t.Parallel()
	a := newPagesAPI(t, "russian", "", "ru")
	url := a.serve(t)
	ctx := pagesBrowser(t)
	err := chromedp.Do(ctx, chromedp.Navigate(url+"/games"),
		pagesUntil(`document.documentElement.lang === "ru" && document.querySelectorAll("#my-games li").length === 2`))
	if err != nil {
		t.Fatalf("open the lobby: %v", err)
	}
	ru := texts.For("ru").Web.Page
	for sel, key := range map[string]string{
		"h1": "lobby.title", "#logout": "lobby.logout", "#create": "lobby.start",
		"#my-games li.my-turn .badge": "lobby.yourTurn",
	} {
		if got, want := pagesText(ctx, t, sel), ru[key]; got != want {
			t.Errorf("%s says %q, want %q", sel, got, want)
		}
	}
}
