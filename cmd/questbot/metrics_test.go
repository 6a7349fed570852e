package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/questbot/questbot/bot/testkit/wait"
	"github.com/questbot/questbot/migrations/pgtest"
)

// metricsStatus asks the server for /metrics with the headers given (name, value, …) and
// returns the status and the body.
func metricsStatus(t *testing.T, r *running, headers ...string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, "http://"+r.addr+"/metrics", nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// Ensure /metrics answers this machine only by default (not a request a proxy forwarded), and
// with METRICS_TOKEN set only a request that carries the token.
func TestServeMetricsAccess(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t)
	cfg.DatabaseURL = pgtest.ConnString(t)
	r := startServer(t, cfg)
	waitHealthy(t, r, wait.Hang)
	if code, body := metricsStatus(t, r); code != http.StatusOK || !strings.Contains(body, "questbot_http_connections_open") {
		t.Errorf("/metrics from this machine: %d %.200q", code, body)
	}
	for _, h := range []string{"X-Forwarded-For", "Forwarded", "X-Real-IP"} {
		if code, body := metricsStatus(t, r, h, "for=203.0.113.7"); code != http.StatusForbidden || !strings.Contains(body, "METRICS_TOKEN") {
			t.Errorf("/metrics forwarded with %s: %d %q, want 403 naming METRICS_TOKEN", h, code, body)
		}
	}
	// From another machine (the handler as the server runs it, the peer elsewhere).
	h := r.srv.routes()
	for peer, want := range map[string]int{"203.0.113.7:4000": http.StatusForbidden, "[2001:db8::1]:4000": http.StatusForbidden,
		"[::1]:4000": http.StatusOK, "127.0.0.2:4000": http.StatusOK} {
		req := httptest.NewRequest(http.MethodGet, "/metrics", nil)
		req.RemoteAddr = peer
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != want {
			t.Errorf("/metrics from %s: %d, want %d", peer, rec.Code, want)
		}
	}

	cfg = testConfig(t)
	cfg.DatabaseURL = pgtest.ConnString(t)
	cfg.MetricsToken = "s3cret-metrics-token"
	r = startServer(t, cfg)
	waitHealthy(t, r, wait.Hang)
	for _, auth := range []string{"", "Bearer wrong-token-of-length", "Basic s3cret-metrics-token", "Bearer s3cret-metrics-toke"} {
		if code, _ := metricsStatus(t, r, "Authorization", auth); code != http.StatusUnauthorized {
			t.Errorf("/metrics with Authorization %q: %d, want 401", auth, code)
		}
	}
	if code, body := metricsStatus(t, r, "Authorization", "Bearer s3cret-metrics-token", "X-Forwarded-For", "203.0.113.7"); code != http.StatusOK ||
		!strings.Contains(body, "questbot_http_connections_open") {
		t.Errorf("/metrics with the token: %d %.200q", code, body)
	}
}
