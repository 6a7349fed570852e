package web_test

import (
	"bytes"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/questbot/questbot/bot/boards/web"
)

// Ensure every answer of the API, the export and the errors included, tells the browser not to
// sniff its type and runs under a policy that allows nothing (no script, no frame, no form).
func TestAPIHeaders(t *testing.T) {
	t.Parallel()
	e := newEnv(t, web.Config{})
	ann := e.login(t, 1, "Ann")
	var g struct{ ID int64 }
	ann.must(t, "POST", "/api/v1/games", map[string]string{"variant": "russian", "bot": "easy"}, http.StatusCreated, &g)
	anon := &client{e: e}
	for _, c := range []struct {
		who    *client
		method string
		path   string
		status int
	}{
		{ann, "GET", "/api/v1/me", http.StatusOK},
		{ann, "GET", fmt.Sprintf("/api/v1/games/%d", g.ID), http.StatusOK},
		{ann, "GET", fmt.Sprintf("/api/v1/games/%d/export", g.ID), http.StatusOK},
		{ann, "GET", fmt.Sprintf("/api/v1/games/%d/picture.png", g.ID), http.StatusOK},
		{anon, "GET", "/api/v1/me", http.StatusUnauthorized},
		{anon, "GET", "/api/v1/games/999999/export", http.StatusNotFound},
		{anon, "GET", "/api/v1/nothing", http.StatusNotFound},
		{anon, "POST", "/logout", http.StatusUnauthorized},
	} {
		code, hdr, _ := c.who.call(t, c.method, c.path, nil)
		csp := hdr.Get("Content-Security-Policy")
		if code != c.status || hdr.Get("X-Content-Type-Options") != "nosniff" ||
			!strings.Contains(csp, "default-src 'none'") || !strings.Contains(csp, "frame-ancestors 'none'") {
			t.Errorf("%s %s: %d, nosniff %q, CSP %q", c.method, c.path, code, hdr.Get("X-Content-Type-Options"), csp)
		}
	}
	resp := redeem(t, e.srv.URL+"/login/forged")
	if resp.StatusCode != http.StatusForbidden || resp.Header.Get("X-Content-Type-Options") != "nosniff" ||
		!strings.Contains(resp.Header.Get("Content-Security-Policy"), "default-src 'none'") ||
		resp.Header.Get("Referrer-Policy") != "no-referrer" {
		t.Errorf("a refused login link: %s %v", resp.Status, resp.Header)
	}
}

// hostile is a name that would forge a PGN tag, a line of the list export, and turn text around.
const hostile = "Eve\n[Result \"1-0\"]\r\u202eevil\u2066\u2028x\tq\x00"

// tagLine is a well-formed PGN tag line.
var tagLine = regexp.MustCompile(`^\[[A-Za-z]+ "(?:[^"\\]|\\.)*"\]$`)

// bad reports a newline, control, line separator or bidi control character in s, other than
// the line feeds that separate lines.
func bad(s string) rune {
	for _, r := range s {
		switch {
		case r == '\n':
		case unicode.IsControl(r), r == '\u2028', r == '\u2029', r == '\u061c', r == '\u200e', r == '\u200f',
			r >= '\u202a' && r <= '\u202e', r >= '\u2066' && r <= '\u2069':
			return r
		}
	}
	return 0
}

// Ensure the export of a game is safe to read whatever the players are called: a name with
// newlines, quotes, control and bidi characters makes no tag of its own and turns no text
// around, in PGN (chess), PDN (draughts) and the list of moves (the other games).
func TestExportNames(t *testing.T) {
	t.Parallel()
	e := newEnv(t, web.Config{})
	e.User(5, hostile, "en")
	resp := redeem(t, e.link(t, 5))
	var cookie string
	for _, ck := range resp.Cookies() {
		if ck.Name == web.CookieName {
			cookie = ck.Value
		}
	}
	eve := &client{e: e, cookie: cookie}
	var me struct {
		CSRF string `json:"csrf"`
	}
	eve.must(t, "GET", "/api/v1/me", nil, http.StatusOK, &me)
	eve.csrf = me.CSRF
	for _, variant := range []string{"chess", "russian", "chase"} {
		var g struct{ ID int64 }
		eve.must(t, "POST", "/api/v1/games", map[string]string{"variant": variant, "bot": "easy"}, http.StatusCreated, &g)
		_, _, body := eve.call(t, "GET", fmt.Sprintf("/api/v1/games/%d/export", g.ID), nil)
		text := string(body)
		if r := bad(text); r != 0 {
			t.Errorf("%s: the export holds %U:\n%q", variant, r, text)
		}
		if !strings.Contains(text, "Eve") || !strings.Contains(text, "evil") {
			t.Errorf("%s: the name is gone from the export:\n%s", variant, text)
		}
		if variant == "chase" {
			if lines := strings.Split(strings.TrimSpace(text), "\n"); len(lines) != 2 {
				t.Errorf("%s: the list export has %d lines, want the title and the players:\n%s", variant, len(lines), text)
			}
			continue
		}
		head, _, _ := strings.Cut(text, "\n\n")
		lines := strings.Split(head, "\n")
		want := 7
		if variant != "chess" {
			want = 8 // GameType
		}
		if len(lines) != want {
			t.Errorf("%s: %d tag lines, want %d:\n%s", variant, len(lines), want, head)
		}
		for _, l := range lines {
			if !tagLine.MatchString(l) {
				t.Errorf("%s: a malformed tag line %q", variant, l)
			}
		}
		if n := len(regexp.MustCompile(`(?m)^\[Result `).FindAllString(text, -1)); n != 1 {
			t.Errorf("%s: the name forged a tag:\n%s", variant, text)
		}
	}
}

// Ensure a game the caller may not see answers exactly as a game that does not exist: the same
// status and the same body, for a user who plays no seat and for someone not logged in, for the
// state, the export, the picture, the event stream and every operation; once the players let
// spectators in, the game is there for them, and an operation of someone who plays no seat is
// refused as such (403).
func TestHiddenGameIsMissing(t *testing.T) {
	t.Parallel()
	e := newEnv(t, web.Config{})
	ann := e.login(t, 1, "Ann")
	carol := e.login(t, 3, "Carol")
	anon := &client{e: e}
	var g, w struct{ ID int64 }
	ann.must(t, "POST", "/api/v1/games", map[string]string{"variant": "russian", "bot": "easy"}, http.StatusCreated, &g)
	// A private game waiting for its invited opponent is hidden too.
	ann.must(t, "POST", "/api/v1/games", map[string]string{"variant": "chess", "control": "corr3d"}, http.StatusCreated, &w)
	e.Exec(t, `UPDATE board_session SET private = true WHERE id = $1`, w.ID)
	const missing = 999999
	calls := []struct{ method, path string }{
		{"GET", "/api/v1/games/%d"},
		{"GET", "/api/v1/games/%d/export"},
		{"GET", "/api/v1/games/%d/picture.png"},
		{"GET", "/api/v1/games/%d/events"},
		{"POST", "/api/v1/games/%d/join"},
		{"POST", "/api/v1/games/%d/resign"},
		{"POST", "/api/v1/games/%d/undo"},
		{"POST", "/api/v1/games/%d/spectators"},
		{"POST", "/api/v1/games/%d/moves"},
		{"POST", "/api/v1/games/%d/seen"},
		{"POST", "/api/v1/games/%d/draw"},
	}
	bodies := map[string]any{"/spectators": map[string]any{"allow": true}, "/moves": map[string]any{"move": "c3-d4", "ply": 0},
		"/seen": map[string]any{"ply": 0}, "/draw": map[string]any{"action": "offer", "ply": 0},
		"/resign": map[string]any{"ply": 0}, "/undo": map[string]any{"ply": 0}}
	body := func(path string) any {
		for suffix, b := range bodies {
			if strings.HasSuffix(path, suffix) {
				return b
			}
		}
		return nil
	}
	for _, c := range calls {
		for _, who := range []struct {
			name string
			c    *client
		}{{"Carol", carol}, {"someone not logged in", anon}} {
			if c.method == "POST" && who.c == anon {
				continue // every POST wants a login first, whatever the game
			}
			wantCode, _, wantBody := who.c.call(t, c.method, fmt.Sprintf(c.path, missing), body(c.path))
			if wantCode != http.StatusNotFound {
				t.Fatalf("%s %s of a missing game for %s: %d %s", c.method, c.path, who.name, wantCode, wantBody)
			}
			for _, id := range []int64{g.ID, w.ID} {
				code, _, got := who.c.call(t, c.method, fmt.Sprintf(c.path, id), body(c.path))
				if code != wantCode || !bytes.Equal(got, wantBody) {
					t.Errorf("%s %s of hidden game %d for %s: %d %s; a missing one: %d %s", c.method, c.path, id, who.name,
						code, got, wantCode, wantBody)
				}
			}
		}
	}
	if n := e.QueryInt(t, `SELECT count(*) FROM board_session WHERE status = 'finished'`); n != 0 {
		t.Fatalf("a refused call finished %d games", n)
	}

	ann.must(t, "POST", fmt.Sprintf("/api/v1/games/%d/spectators", g.ID), map[string]any{"allow": true}, http.StatusOK, nil)
	carol.must(t, "GET", fmt.Sprintf("/api/v1/games/%d", g.ID), nil, http.StatusOK, nil)
	anon.must(t, "GET", fmt.Sprintf("/api/v1/games/%d", g.ID), nil, http.StatusOK, nil)
	carol.refused(t, "POST", fmt.Sprintf("/api/v1/games/%d/resign", g.ID), map[string]any{"ply": 0}, http.StatusForbidden, "forbidden")
}
