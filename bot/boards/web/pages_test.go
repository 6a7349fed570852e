package web_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/questbot/questbot/bot/boards/web"
)

// pagesGet requests path from srv with method and headers (name, value, ...) and returns the
// answer with its body read.
func pagesGet(t *testing.T, srv *httptest.Server, method, path string, headers ...string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, srv.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: read: %v", method, path, err)
	}
	return resp, string(body)
}

// Ensure each route answers with its status and content type, and every answer, errors
// included, carries the security headers.
func TestPagesRoutes(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(web.Pages())
	t.Cleanup(srv.Close)
	for _, tc := range []struct {
		method, path string
		status       int
		ctype        string // prefix of the Content-Type; "" for any
	}{
		{"GET", "/games", 200, "text/html; charset=utf-8"},
		{"HEAD", "/games", 200, "text/html; charset=utf-8"},
		{"GET", "/play/7", 200, "text/html; charset=utf-8"},
		{"GET", "/play/9223372036854775807", 200, "text/html; charset=utf-8"},
		{"GET", "/static/play.js", 200, "text/javascript; charset=utf-8"},
		{"GET", "/static/games.js", 200, "text/javascript; charset=utf-8"},
		{"GET", "/static/common.js", 200, "text/javascript; charset=utf-8"},
		{"GET", "/static/style.css", 200, "text/css; charset=utf-8"},
		{"GET", "/static/icon.svg", 200, "image/svg+xml"},
		{"GET", "/play/0", 404, ""},
		{"GET", "/play/-3", 404, ""},
		{"GET", "/play/007", 404, ""},
		{"GET", "/play/abc", 404, ""},
		{"GET", "/play/99999999999999999999", 404, ""},
		{"GET", "/play/7/extra", 404, ""},
		{"GET", "/play/", 404, ""},
		{"GET", "/games/", 404, ""},
		{"GET", "/static/missing.js", 404, ""},
		{"GET", "/static/play.html", 404, ""},
		{"GET", "/static/../pages.go", 404, ""},
		{"GET", "/", 404, ""},
		{"POST", "/games", 405, ""},
		{"DELETE", "/static/play.js", 405, ""},
	} {
		resp, body := pagesGet(t, srv, tc.method, tc.path)
		if resp.StatusCode != tc.status {
			t.Errorf("%s %s: status %d, want %d (%q)", tc.method, tc.path, resp.StatusCode, tc.status, body)
			continue
		}
		if got := resp.Header.Get("Content-Type"); tc.ctype != "" && got != tc.ctype {
			t.Errorf("%s %s: Content-Type %q, want %q", tc.method, tc.path, got, tc.ctype)
		}
		if tc.status == 200 && tc.method == "GET" && body == "" {
			t.Errorf("%s %s: empty body", tc.method, tc.path)
		}
		if tc.method == "HEAD" && body != "" {
			t.Errorf("HEAD %s: a body of %d bytes", tc.path, len(body))
		}
		h := resp.Header
		csp := h.Get("Content-Security-Policy")
		for _, want := range []string{"default-src 'self'", "script-src 'self'", "frame-ancestors 'self'", "object-src 'none'"} {
			if !strings.Contains(csp, want) {
				t.Errorf("%s %s: Content-Security-Policy %q lacks %q", tc.method, tc.path, csp, want)
			}
		}
		if strings.Contains(csp, "unsafe-inline") || strings.Contains(csp, "unsafe-eval") || strings.Contains(csp, "*") {
			t.Errorf("%s %s: Content-Security-Policy %q allows more than self", tc.method, tc.path, csp)
		}
		for name, want := range map[string]string{
			"X-Content-Type-Options": "nosniff",
			"Referrer-Policy":        "same-origin",
			"X-Frame-Options":        "SAMEORIGIN",
		} {
			if got := h.Get(name); got != want {
				t.Errorf("%s %s: %s %q, want %q", tc.method, tc.path, name, got, want)
			}
		}
		if tc.status == 405 && h.Get("Allow") == "" {
			t.Errorf("%s %s: 405 without Allow", tc.method, tc.path)
		}
	}
}

// Ensure the pages name their static files by version, those files are embedded and cached for
// good under that name, and every file is revalidated by its ETag otherwise.
func TestPagesCaching(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(web.Pages())
	t.Cleanup(srv.Close)
	ref := regexp.MustCompile(`(?:src|href)="(/static/[^"]+)"`)
	seen := map[string]bool{}
	for _, page := range []string{"/games", "/play/12"} {
		resp, body := pagesGet(t, srv, "GET", page)
		if resp.StatusCode != 200 {
			t.Fatalf("GET %s: %d", page, resp.StatusCode)
		}
		if got := resp.Header.Get("Cache-Control"); got != "no-cache" {
			t.Errorf("GET %s: Cache-Control %q, want no-cache", page, got)
		}
		if !strings.Contains(body, `<meta name="viewport" content="width=device-width, initial-scale=1">`) {
			t.Errorf("GET %s: no viewport meta", page)
		}
		etag := resp.Header.Get("ETag")
		if etag == "" {
			t.Fatalf("GET %s: no ETag", page)
		}
		again, rest := pagesGet(t, srv, "GET", page, "If-None-Match", etag)
		if again.StatusCode != http.StatusNotModified || rest != "" {
			t.Errorf("GET %s with its ETag: %d %q, want 304 and no body", page, again.StatusCode, rest)
		}
		refs := ref.FindAllStringSubmatch(body, -1)
		if len(refs) < 4 { // the icon, the style sheet, common.js and the page's script
			t.Fatalf("GET %s names %d static files: %q", page, len(refs), refs)
		}
		for _, m := range refs {
			url := m[1]
			if !regexp.MustCompile(`\?v=[0-9a-f]{16}$`).MatchString(url) {
				t.Errorf("GET %s: %s carries no version", page, url)
				continue
			}
			if seen[url] {
				continue
			}
			seen[url] = true
			resp, body := pagesGet(t, srv, "GET", url)
			if resp.StatusCode != 200 || body == "" {
				t.Errorf("GET %s (from %s): %d, %d bytes", url, page, resp.StatusCode, len(body))
				continue
			}
			if got := resp.Header.Get("Cache-Control"); got != "public, max-age=31536000, immutable" {
				t.Errorf("GET %s: Cache-Control %q, want a year", url, got)
			}
			plain := url[:strings.Index(url, "?")]
			resp, _ = pagesGet(t, srv, "GET", plain)
			if got := resp.Header.Get("Cache-Control"); got != "no-cache" {
				t.Errorf("GET %s: Cache-Control %q, want no-cache", plain, got)
			}
			resp, _ = pagesGet(t, srv, "GET", plain+"?v=0000000000000000")
			if got := resp.Header.Get("Cache-Control"); got != "no-cache" {
				t.Errorf("GET %s with an old version: Cache-Control %q, want no-cache", plain, got)
			}
			again, rest := pagesGet(t, srv, "GET", plain, "If-None-Match", resp.Header.Get("ETag"))
			if again.StatusCode != http.StatusNotModified || rest != "" {
				t.Errorf("GET %s with its ETag: %d, want 304", plain, again.StatusCode)
			}
		}
	}
	for _, want := range []string{"/static/common.js", "/static/play.js", "/static/games.js", "/static/style.css", "/static/icon.svg"} {
		found := false
		for url := range seen {
			found = found || strings.HasPrefix(url, want+"?")
		}
		if !found {
			t.Errorf("no page names %s", want)
		}
	}
}

// Ensure the pages load nothing from elsewhere: no external scripts, styles or fonts, and no
// inline scripts or styles, which the Content-Security-Policy would refuse.
func TestPagesSelfContained(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(web.Pages())
	t.Cleanup(srv.Close)
	external := regexp.MustCompile(`(?i)(src|href|action)\s*=\s*["']?\s*(https?:)?//|url\(\s*["']?(https?:)?//|@import|fetch\(\s*["'](https?:)?//`)
	inline := regexp.MustCompile(`(?i)<script(?:\s[^>]*)?>\s*[^<\s]|<style|\sstyle\s*=|\son[a-z]+\s*=`)
	for _, path := range []string{"/games", "/play/1", "/static/common.js", "/static/play.js", "/static/games.js", "/static/style.css"} {
		resp, body := pagesGet(t, srv, "GET", path)
		if resp.StatusCode != 200 {
			t.Fatalf("GET %s: %d", path, resp.StatusCode)
		}
		if m := external.FindString(body); m != "" {
			t.Errorf("GET %s refers elsewhere: %q", path, m)
		}
		if strings.HasSuffix(resp.Header.Get("Content-Type"), "html; charset=utf-8") {
			if m := inline.FindString(body); m != "" {
				t.Errorf("GET %s has inline code or style: %q", path, m)
			}
		}
	}
}
