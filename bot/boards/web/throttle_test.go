package web_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/questbot/questbot/bot/boards/web"
	"github.com/questbot/questbot/bot/botpg"
)

// from is a client that sends what a proxy adds: header k with value v.
func (c *client) from(k, v string) *client {
	d := *c
	d.header = http.Header{k: {v}}
	return &d
}

// open opens a login link with extra headers and returns the answer's status and Retry-After.
func open(t *testing.T, link string, header http.Header) (int, string) {
	t.Helper()
	resp := openLink(t, link, header)
	return resp.StatusCode, resp.Header.Get("Retry-After")
}

// throttled checks that a call is answered 429 rate_limited with Retry-After after.
func throttled(t *testing.T, c *client, method, path, after string) {
	t.Helper()
	code, hdr, body := c.call(t, method, path, nil)
	if code != http.StatusTooManyRequests || hdr.Get("Retry-After") != after || !strings.Contains(string(body), "rate_limited") {
		t.Fatalf("%s %s: %d %s, Retry-After %q; want 429 rate_limited, Retry-After %s", method, path, code, body,
			hdr.Get("Retry-After"), after)
	}
}

// Ensure guessing costs time: after AuthFailures forged tokens, cookies or login links from one
// address, its next credential is answered 429 with Retry-After without being looked up (a good
// one too, until the wait is over), one more guess is let through every AuthFailureEvery, and a
// visitor who presents nothing is not held back.
func TestFailedLoginsThrottled(t *testing.T) {
	t.Parallel()
	e := newEnv(t, web.Config{AuthFailures: 4, AuthFailureEvery: 10 * time.Second})
	e.clock.frozen.Store(e.clock.now().UnixNano())
	boris := e.login(t, 2, "Boris")
	e.User(3, "Carol", "en")
	link := e.link(t, 3)
	anon := &client{e: e}
	forged := &client{e: e, token: botpg.TokenPrefix + strings.Repeat("A", 43)}
	dead := &client{e: e, cookie: strings.Repeat("B", 43)}

	forged.refused(t, "GET", "/api/v1/me", nil, http.StatusUnauthorized, "unauthorized")
	dead.refused(t, "GET", "/api/v1/games", nil, http.StatusUnauthorized, "unauthorized")
	(&client{e: e, token: "not-a-token"}).refused(t, "GET", "/api/v1/me", nil, http.StatusUnauthorized, "unauthorized")
	if code, _ := open(t, e.srv.URL+"/login/"+strings.Repeat("C", 22), nil); code != http.StatusForbidden {
		t.Fatalf("a made-up login link: %d", code)
	}
	throttled(t, forged, "GET", "/api/v1/me", "10")
	throttled(t, dead, "POST", "/logout", "10")
	// Boris's session is good, but his address is the guesser's: it is not looked up.
	throttled(t, boris, "GET", "/api/v1/me", "10")
	if code, wait := open(t, link, nil); code != http.StatusTooManyRequests || wait != "10" {
		t.Fatalf("a good login link while throttled: %d, Retry-After %q", code, wait)
	}
	anon.must(t, "GET", "/api/v1/variants", nil, http.StatusOK, nil)

	e.clock.frozen.Add(int64(4 * time.Second))
	throttled(t, forged, "GET", "/api/v1/me", "6")
	e.clock.frozen.Add(int64(6 * time.Second))
	boris.must(t, "GET", "/api/v1/me", nil, http.StatusOK, nil)
	forged.refused(t, "GET", "/api/v1/me", nil, http.StatusUnauthorized, "unauthorized")
	throttled(t, boris, "GET", "/api/v1/me", "10")
	e.clock.frozen.Add(int64(10 * time.Second))
	if code, _ := open(t, link, nil); code != http.StatusSeeOther {
		t.Fatalf("the good link after the wait: %d", code)
	}
	if n := e.QueryInt(t, `SELECT count(*) FROM web_login_ticket WHERE used_at IS NOT NULL`); n != 2 {
		t.Fatalf("%d tickets used, want Boris's and the one opened after the wait", n)
	}
}

// Ensure the per-address counts (failed logins, the streams and requests of someone not logged
// in) count the client a trusted proxy names, not the proxy, so that one visitor's failures
// hold nobody else back; that a chain of trusted proxies is walked, a client cannot pass for
// another by writing the header itself, and Forwarded is read when X-Forwarded-For is absent;
// and that without a trusted proxy the headers are ignored.
func TestTrustedProxies(t *testing.T) {
	t.Parallel()
	proxies, err := web.ParseProxies("127.0.0.1, 10.0.0.0/8")
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, web.Config{AuthFailures: 3, AuthFailureEvery: time.Minute, TrustedProxies: proxies,
		Streams: 1, Rate: 1, Burst: 6})
	e.clock.frozen.Store(e.clock.now().UnixNano())
	ann := e.login(t, 1, "Ann")
	boris := e.login(t, 2, "Boris")
	var g struct{ ID int64 }
	ann.must(t, "POST", "/api/v1/games", map[string]string{"variant": "russian", "bot": "easy"}, http.StatusCreated, &g)
	ann.must(t, "POST", fmt.Sprintf("/api/v1/games/%d/spectators", g.ID), map[string]any{"allow": true}, http.StatusOK, nil)

	const xff = "X-Forwarded-For"
	guesser := (&client{e: e, token: botpg.TokenPrefix + strings.Repeat("A", 43)}).from(xff, "203.0.113.5")
	for range 3 {
		guesser.refused(t, "GET", "/api/v1/me", nil, http.StatusUnauthorized, "unauthorized")
	}
	throttled(t, guesser, "GET", "/api/v1/me", "60")
	throttled(t, guesser.from(xff, "203.0.113.5, 10.1.2.3"), "GET", "/api/v1/me", "60")
	throttled(t, guesser.from(xff, "198.51.100.7, 203.0.113.5"), "GET", "/api/v1/me", "60")
	throttled(t, guesser.from("Forwarded", `for=203.0.113.5;proto=https`), "GET", "/api/v1/me", "60")
	// Boris is another client behind the same proxy, or behind two.
	boris.from(xff, "198.51.100.7").must(t, "GET", "/api/v1/me", nil, http.StatusOK, nil)
	boris.from(xff, "198.51.100.7, 10.1.2.3").must(t, "GET", "/api/v1/me", nil, http.StatusOK, nil)
	boris.from("Forwarded", `for="[2001:db8::1]:4711", for=10.9.9.9`).must(t, "GET", "/api/v1/me", nil, http.StatusOK, nil)
	// Another address of the guesser's IPv6 network is the same client.
	v6 := guesser.from(xff, "2001:db8:1:2::5")
	for range 3 {
		v6.refused(t, "GET", "/api/v1/me", nil, http.StatusUnauthorized, "unauthorized")
	}
	throttled(t, guesser.from(xff, "2001:db8:1:2::ffff"), "GET", "/api/v1/me", "60")
	boris.from(xff, "2001:db8:1:3::5").must(t, "GET", "/api/v1/me", nil, http.StatusOK, nil)

	// The streams and the requests of visitors not logged in are counted per visitor.
	anon := &client{e: e}
	one, two := anon.from(xff, "192.0.2.10"), anon.from(xff, "192.0.2.11")
	one.mustStream(t, g.ID)
	two.mustStream(t, g.ID)
	if status, code, _ := one.stream(t, g.ID); status != http.StatusTooManyRequests || code != "too_many_streams" {
		t.Fatalf("a visitor's second stream: %d %s", status, code)
	}
	for range 6 {
		one.must(t, "GET", "/api/v1/variants", nil, http.StatusOK, nil)
	}
	one.refused(t, "GET", "/api/v1/variants", nil, http.StatusTooManyRequests, "rate_limited")
	two.must(t, "GET", "/api/v1/variants", nil, http.StatusOK, nil)
}

// Ensure the forwarding headers of a client that is not a trusted proxy are not believed: a
// guesser who writes a new X-Forwarded-For each time is still one address.
func TestUntrustedForwardingIgnored(t *testing.T) {
	t.Parallel()
	e := newEnv(t, web.Config{AuthFailures: 3, AuthFailureEvery: time.Minute})
	e.clock.frozen.Store(e.clock.now().UnixNano())
	guesser := &client{e: e, token: botpg.TokenPrefix + strings.Repeat("A", 43)}
	for i := range 3 {
		guesser.from("X-Forwarded-For", fmt.Sprintf("203.0.113.%d", i)).refused(t, "GET", "/api/v1/me", nil,
			http.StatusUnauthorized, "unauthorized")
	}
	throttled(t, guesser.from("X-Forwarded-For", "203.0.113.99"), "GET", "/api/v1/me", "60")
	throttled(t, guesser.from("Forwarded", "for=203.0.113.98"), "GET", "/api/v1/me", "60")
}

// Ensure TRUSTED_PROXIES' syntax: addresses and CIDR ranges, separated by commas or spaces.
func TestParseProxies(t *testing.T) {
	t.Parallel()
	got, err := web.ParseProxies(" 10.0.0.0/8,192.168.1.10  fd00::/8, ::ffff:172.16.0.1")
	if err != nil || len(got) != 4 || got[0].String() != "10.0.0.0/8" || got[1].String() != "192.168.1.10/32" ||
		got[2].String() != "fd00::/8" || got[3].String() != "172.16.0.1/32" {
		t.Fatalf("%v, %v", got, err)
	}
	if got, err := web.ParseProxies(""); err != nil || len(got) != 0 {
		t.Fatalf("empty: %v, %v", got, err)
	}
	for _, bad := range []string{"10.0.0.0/33", "proxy.example.org", "10.0.0.1-10.0.0.9", "10.0.0.0/8;"} {
		if _, err := web.ParseProxies(bad); err == nil || !strings.Contains(err.Error(), bad) {
			t.Errorf("%q: %v", bad, err)
		}
	}
}
