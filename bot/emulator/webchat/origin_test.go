package webchat_test

import (
	"bytes"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/questbot/questbot/bot/emulator/webchat"
)

// Ensure the web chat's state-changing endpoints take requests from its own page only: a page of
// another site cannot type a command, press a button, upload a file or add a user in its name,
// whether it posts JSON with its Origin, a text/plain "simple" request, a form, or anything a
// browser says is cross-site; a program without a browser (no Origin) is served when it posts
// JSON, which no foreign page can send without a preflight the chat never grants. The page's own
// requests (the same origin) go through.
func TestCrossOriginRefused(t *testing.T) {
	t.Parallel()
	b, h := adminChat(t)
	const admin = webchat.FirstUserID
	// The chat is served under the name example.com (PUBLIC_URL's host, say).
	h.Hosts = []string{"example.com"}

	send := `{"user": 100000001, "text": "/token 100000001 stolen"}`
	var upload bytes.Buffer
	mw := multipart.NewWriter(&upload)
	mw.WriteField("user", "100000001")
	fw, _ := mw.CreateFormFile("file", "evil.qmm")
	fw.Write([]byte("x"))
	mw.Close()

	type req struct {
		name, path, body, ctype string
		header                  map[string]string
	}
	refused := []req{
		{"JSON from another site", "/api/send", send, "application/json", map[string]string{"Origin": "http://evil.example"}},
		{"text/plain from another site", "/api/send", send, "text/plain;charset=UTF-8", map[string]string{"Origin": "http://evil.example"}},
		{"text/plain without an origin", "/api/send", send, "text/plain", nil},
		{"a form without an origin", "/api/send", send, "application/x-www-form-urlencoded", nil},
		{"no content type, no origin", "/api/send", send, "", nil},
		{"an opaque origin", "/api/send", send, "application/json", map[string]string{"Origin": "null"}},
		{"another port of the same host", "/api/send", send, "application/json", map[string]string{"Origin": "http://example.com:8081"}},
		{"cross-site by the browser's word", "/api/send", send, "application/json", map[string]string{"Sec-Fetch-Site": "cross-site"}},
		{"same-site by the browser's word", "/api/send", send, "application/json",
			map[string]string{"Sec-Fetch-Site": "same-site", "Origin": "http://example.com"}},
		{"a press from another site", "/api/press", `{"user": 100000001, "message_id": 1, "data": "x"}`, "text/plain",
			map[string]string{"Origin": "http://evil.example"}},
		{"an upload from another site", "/api/upload", upload.String(), mw.FormDataContentType(),
			map[string]string{"Origin": "http://evil.example"}},
		{"an upload without an origin", "/api/upload", upload.String(), mw.FormDataContentType(), nil},
		{"a new user from another site", "/api/users", `{"name": "Mallory"}`, "text/plain",
			map[string]string{"Origin": "http://evil.example"}},
	}
	for _, r := range refused {
		rq := httptest.NewRequest("POST", "http://example.com"+r.path, strings.NewReader(r.body))
		if r.ctype != "" {
			rq.Header.Set("Content-Type", r.ctype)
		}
		for k, v := range r.header {
			rq.Header.Set(k, v)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, rq)
		if rec.Code != http.StatusForbidden || !strings.Contains(rec.Body.String(), "origin") {
			t.Errorf("%s: %d %q, want 403 naming the origin", r.name, rec.Code, rec.Body.String())
		}
	}
	if n := len(b.Messages(admin)); n != 0 {
		t.Fatalf("the refused requests reached the chat: %d messages", n)
	}
	if n := len(b.Users()); n != 1 {
		t.Fatalf("a refused request added a user: %d users", n)
	}

	accepted := []req{
		{"the page's own JSON", "/api/send", send, "application/json",
			map[string]string{"Origin": "http://example.com", "Sec-Fetch-Site": "same-origin"}},
		{"the page's own upload", "/api/upload", upload.String(), mw.FormDataContentType(),
			map[string]string{"Origin": "http://example.com", "Sec-Fetch-Site": "same-origin"}},
		{"a program's JSON (curl)", "/api/send", `{"user": 100000001, "text": "hello"}`, "application/json", nil},
	}
	for _, r := range accepted {
		rq := httptest.NewRequest("POST", "http://example.com"+r.path, strings.NewReader(r.body))
		rq.Header.Set("Content-Type", r.ctype)
		for k, v := range r.header {
			rq.Header.Set(k, v)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, rq)
		if rec.Code != http.StatusOK {
			t.Errorf("%s: %d %q, want 200", r.name, rec.Code, rec.Body.String())
		}
	}
	if n := len(b.Messages(admin)); n != 3 {
		t.Fatalf("the chat has %d messages after the accepted requests, want 3", n)
	}
}
