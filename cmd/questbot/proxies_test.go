package main

import (
	"bytes"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/questbot/questbot/bot/boards/web"
	"github.com/questbot/questbot/bot/botpg"
	"github.com/questbot/questbot/bot/testkit/wait"
	"github.com/questbot/questbot/migrations/pgtest"
)

// Ensure TRUSTED_PROXIES is read (CIDRs and addresses, separated by commas), and that a malformed
// value stops serve before anything starts, with exit status 2 and one line naming the variable.
func TestTrustedProxiesSetting(t *testing.T) {
	t.Parallel()
	env := map[string]string{"TRUSTED_PROXIES": "10.0.0.0/8, 127.0.0.1"}
	cfg, err := ConfigFromEnv(func(k string) string { return env[k] })
	if err != nil || len(cfg.TrustedProxies) != 2 || cfg.TrustedProxies[1].String() != "127.0.0.1/32" {
		t.Fatalf("TRUSTED_PROXIES=%s: %v, %v", env["TRUSTED_PROXIES"], cfg.TrustedProxies, err)
	}
	if cfg, err := ConfigFromEnv(func(string) string { return "" }); err != nil || len(cfg.TrustedProxies) != 0 {
		t.Fatalf("no TRUSTED_PROXIES: %v, %v", cfg.TrustedProxies, err)
	}
	for _, bad := range []string{"10.0.0.0/33", "proxy.example.org", "10.0.0.1;10.0.0.2"} {
		cmd := exec.Command(os.Args[0])
		cmd.Env = []string{asQuestbotEnv + "=serve", "TRUSTED_PROXIES=" + bad, "DATA_DIR=" + t.TempDir(),
			"HTTP_ADDR=127.0.0.1:0", "PATH=" + os.Getenv("PATH")}
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		code := -1
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
		out := stderr.String()
		if code != 2 || strings.Count(out, "\n") != 1 || !strings.HasPrefix(out, "questbot: TRUSTED_PROXIES must be") ||
			!strings.Contains(out, bad) || stdout.Len() != 0 {
			t.Errorf("TRUSTED_PROXIES=%s: exit status %d, stderr %q, stdout %q", bad, code, out, stdout.String())
		}
	}
}

// Ensure serve gives TRUSTED_PROXIES to the web game server: behind a trusted proxy, one
// client's failed logins hold back that client only.
func TestServeTrustedProxies(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t)
	cfg.DatabaseURL = pgtest.ConnString(t)
	proxies, err := web.ParseProxies("127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	cfg.TrustedProxies = proxies
	r := startServer(t, cfg)
	waitHealthy(t, r, wait.Hang)
	<-r.srv.started
	call := func(client string) int {
		req, _ := http.NewRequest("GET", "http://"+r.addr+"/api/v1/me", nil)
		req.Header.Set("Authorization", "Bearer "+botpg.TokenPrefix+strings.Repeat("A", 43))
		req.Header.Set("X-Forwarded-For", client)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	for i := range web.DefaultAuthFailures {
		if code := call("203.0.113.5"); code != http.StatusUnauthorized {
			t.Fatalf("forged token %d: %d, want 401", i+1, code)
		}
	}
	if code := call("203.0.113.5"); code != http.StatusTooManyRequests {
		t.Fatalf("one more from the guesser: %d, want 429", code)
	}
	if code := call("198.51.100.7"); code != http.StatusUnauthorized {
		t.Fatalf("another client behind the proxy: %d, want 401 (not held back)", code)
	}
}
