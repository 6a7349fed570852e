package web_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/questbot/questbot/bot/boards/web"
	"github.com/questbot/questbot/bot/emulator/tgemu"
)

// post posts body to path with the headers, as a page of some site would, and returns the
// answer's status, its session cookie (if any) and its body.
func (e *env) post(t *testing.T, path, body string, header map[string]string) (int, string, string) {
	t.Helper()
	req, err := http.NewRequest("POST", e.srv.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := noRedirect.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	answer, _ := io.ReadAll(resp.Body)
	cookie := ""
	for _, ck := range resp.Cookies() {
		if ck.Name == web.CookieName && ck.MaxAge > 0 {
			cookie = ck.Value
		}
	}
	return resp.StatusCode, cookie, string(answer)
}

// Ensure no page of another site can log a visitor in (login CSRF): a login link's GET uses
// nothing and answers a page that logs in by a POST to the link (sent by its one script,
// allowed by its hash, or its button); that POST from another site's page (by Origin or by
// Sec-Fetch-Site) is refused and leaves the ticket unused, from the link's page it logs in;
// the Mini App's login takes JSON only, and from this server's pages only.
func TestLoginCSRF(t *testing.T) {
	t.Parallel()
	e := newEnv(t, web.Config{})
	e.User(1, "Ann", "en")
	link := e.link(t, 1)
	path := strings.TrimPrefix(link, e.srv.URL)
	unused := func() int { return e.QueryInt(t, `SELECT count(*) FROM web_login_ticket WHERE used_at IS NULL`) }

	// The link's page, fetched twice (as a preview would): nothing used.
	for range 2 {
		resp, err := noRedirect.Get(link)
		if err != nil {
			t.Fatal(err)
		}
		page, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		csp := resp.Header.Get("Content-Security-Policy")
		if resp.StatusCode != http.StatusOK || len(resp.Cookies()) != 0 || !strings.Contains(string(page), `<form method="post">`) ||
			!strings.Contains(string(page), "<script>document.forms[0].submit();</script>") ||
			!strings.Contains(csp, "script-src 'sha256-") || !strings.Contains(csp, "form-action 'self'") ||
			resp.Header.Get("Referrer-Policy") != "same-origin" || resp.Header.Get("Cache-Control") != "no-store" {
			t.Fatalf("the link's page: %s %v\n%s", resp.Status, resp.Header, page)
		}
	}
	if n := unused(); n != 1 {
		t.Fatalf("%d tickets unused after the page, want 1", n)
	}

	// Posted from another site's page.
	for _, h := range []map[string]string{
		{"Origin": "https://evil.example", "Content-Type": "application/x-www-form-urlencoded"},
		{"Origin": "null"},
		{"Sec-Fetch-Site": "cross-site"},
		{"Sec-Fetch-Site": "same-site", "Origin": "http://sub." + strings.TrimPrefix(e.srv.URL, "http://")},
	} {
		if code, cookie, body := e.post(t, path, "", h); code != http.StatusForbidden || cookie != "" ||
			!strings.Contains(body, "did not come from this server") {
			t.Errorf("the login posted with %v: %d, cookie %q\n%s", h, code, cookie, body)
		}
	}
	if n := unused(); n != 1 {
		t.Fatalf("%d tickets unused after the cross-site posts, want 1", n)
	}
	// Posted by the link's page: logged in, and the link is used.
	code, cookie, _ := e.post(t, path, "", map[string]string{"Origin": e.srv.URL, "Sec-Fetch-Site": "same-origin"})
	if code != http.StatusSeeOther || cookie == "" {
		t.Fatalf("the login posted by its page: %d, cookie %q", code, cookie)
	}
	if n := unused(); n != 0 {
		t.Fatalf("%d tickets unused after the login", n)
	}
	if resp, err := noRedirect.Get(link); err != nil || resp.StatusCode != http.StatusForbidden {
		t.Fatalf("the used link: %v %v", resp, err)
	}

	// The Mini App's login: signed data that would log Bob in, sent as a cross-site form can.
	e.User(2, "Bob", "en")
	after := e.LastID(2)
	e.Send(t, 2, "/start")
	e.WaitMessage(t, 2, after, "the greeting", func(tgemu.Message) bool { return true })
	body, _ := json.Marshal(map[string]string{"init_data": miniAppData(e.Bot.Token(), 2, "Bob", e.clock.now().Add(-time.Minute))})
	for _, c := range []struct {
		header map[string]string
		status int
		code   string
	}{
		{map[string]string{"Content-Type": "text/plain"}, http.StatusBadRequest, `"bad_request"`},
		{map[string]string{"Content-Type": "application/x-www-form-urlencoded", "Origin": "https://evil.example"}, http.StatusForbidden, `"csrf"`},
		{map[string]string{"Content-Type": "application/json", "Origin": "https://evil.example"}, http.StatusForbidden, `"csrf"`},
		{map[string]string{"Content-Type": "application/json", "Sec-Fetch-Site": "cross-site"}, http.StatusForbidden, `"csrf"`},
	} {
		if code, cookie, answer := e.post(t, "/api/v1/miniapp/login", string(body), c.header); code != c.status || cookie != "" ||
			!strings.Contains(answer, c.code) {
			t.Errorf("the Mini App's login with %v: %d, cookie %q %s; want %d %s", c.header, code, cookie, answer, c.status, c.code)
		}
	}
	// The same data from the server's own page logs in.
	if code, cookie, answer := e.post(t, "/api/v1/miniapp/login", string(body),
		map[string]string{"Content-Type": "application/json; charset=utf-8", "Origin": e.srv.URL, "Sec-Fetch-Site": "same-origin"}); code != http.StatusOK || cookie == "" {
		t.Fatalf("the Mini App's login from its page: %d %s", code, answer)
	}
}
