package bot

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// tokenForms are the ways a token can be written into a URL or a log line.
func tokenForms(token string) []string {
	return []string{token, url.PathEscape(token), url.QueryEscape(token), (&url.URL{Path: token}).EscapedPath(),
		strings.ReplaceAll(url.PathEscape(token), "%3A", ":")}
}

// Ensure redact takes a token out of a text in every form it takes in a URL: as it is, escaped
// as a path (the form of a request's URL in an error), escaped as a query value; escapes in
// lower case too.
func TestRedactEscapedForms(t *testing.T) {
	t.Parallel()
	for _, token := range []string{"123456:ABC def", "123456:ABC%def", "123456:ABC/def?x=é", "123456:ABC-def_g"} {
		lower := regexp.MustCompile(`%[0-9A-F]{2}`).ReplaceAllStringFunc(url.PathEscape(token), strings.ToLower)
		for _, form := range append(tokenForms(token), lower) {
			s := `Get "https://api.telegram.org/bot` + form + `/getMe": connection refused`
			got := redact(s, token)
			if !strings.Contains(got, "/bot<token>/getMe") {
				t.Errorf("token %q written as %q: %q", token, form, got)
			}
		}
	}
	if got := redact("nothing to hide", ""); got != "nothing to hide" {
		t.Errorf("Redact without a token: %q", got)
	}
}

// Ensure a getMe that fails (the server closes the connection) gives an error without the token
// in any form, whatever characters the token holds (a malformed one from the database).
func TestNewAPIErrorHidesToken(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if hj, ok := w.(http.Hijacker); ok {
			if c, _, err := hj.Hijack(); err == nil {
				c.Close()
			}
		}
	}))
	t.Cleanup(srv.Close)
	const token = "123456:ABC def"
	_, err := NewAPI(context.Background(), token, srv.URL+"/bot%s/%s", nil)
	if err == nil {
		t.Fatal("getMe succeeded against a server that answers nothing")
	}
	for _, form := range tokenForms(token) {
		if strings.Contains(err.Error(), form) {
			t.Errorf("the error holds the token as %q: %v", form, err)
		}
	}
	if strings.Contains(err.Error(), "ABC") {
		t.Errorf("the error holds a piece of the token: %v", err)
	}
}
