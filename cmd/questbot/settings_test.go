package main

import (
	"bytes"
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/questbot/questbot/bot/testkit/wait"
	"github.com/questbot/questbot/migrations/pgtest"
)

// Ensure a malformed BOT_TOKEN (a character no token has, an entry that is not a token, an
// empty entry of the list) is refused with an error that names the variable and never shows the
// token, and that well-formed tokens, alone or in a list, pass.
func TestBotTokenChecked(t *testing.T) {
	t.Parallel()
	for _, good := range []string{"123456:ABC-def_g", "777:real-looking-token", " 1:a , 2:b ", "1:a,2:b"} {
		cfg, err := ConfigFromEnv(func(k string) string { return map[string]string{"BOT_TOKEN": good}[k] })
		if err != nil {
			t.Errorf("BOT_TOKEN=%q refused: %v", good, err)
		} else if cfg.BotToken != strings.TrimSpace(good) {
			t.Errorf("BOT_TOKEN=%q read as %q", good, cfg.BotToken)
		}
	}
	for _, c := range []struct{ token, want string }{
		{"123456:ABC def", "BOT_TOKEN: token 1 of 1 is malformed: character 11 is a space"},
		{"123456:ABC\tdef", "BOT_TOKEN: token 1 of 1 is malformed: character 11 is a tab"},
		{"123456:ABC%20def", "BOT_TOKEN: token 1 of 1 is malformed: character 11 is '%'"},
		{"123456:ABCdéf", "BOT_TOKEN: token 1 of 1 is malformed: character 12 is 'é'"},
		{"1:a,123456ABCdef", "BOT_TOKEN: token 2 of 2 is malformed: it has no colon"},
		{"12x456:ABCdef", "BOT_TOKEN: token 1 of 1 is malformed: the bot's id before the colon is not a number"},
		{":ABCdef", "BOT_TOKEN: token 1 of 1 is malformed: the bot's id before the colon is not a number"},
		{"123456:", "BOT_TOKEN: token 1 of 1 is malformed: nothing follows the colon"},
		{"1:a,,2:b", "BOT_TOKEN: entry 2 of 3 is empty"},
		{"1:a,2:b,", "BOT_TOKEN: entry 3 of 3 is empty"},
		{",", "BOT_TOKEN: entry 1 of 2 is empty"},
	} {
		_, err := ConfigFromEnv(func(k string) string { return map[string]string{"BOT_TOKEN": c.token}[k] })
		if err == nil {
			t.Errorf("BOT_TOKEN=%q accepted", c.token)
			continue
		}
		if !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("BOT_TOKEN=%q: %q, want it to start with %q", c.token, err, c.want)
		}
		for _, secret := range []string{"ABC", "def", "ABCdef", "ABC%20def", "ABCd"} {
			if strings.Contains(err.Error(), secret) {
				t.Errorf("BOT_TOKEN=%q: the error %q shows the token", c.token, err)
			}
		}
	}
}

// Ensure HTTP_ADDR is checked as a listen address: a value that is none, or a port above 65535,
// is refused as malformed; the usual forms pass.
func TestHTTPAddrChecked(t *testing.T) {
	t.Parallel()
	for _, good := range []string{"127.0.0.1:8080", ":8080", "localhost:0", "[::1]:65535", "0.0.0.0:80", "bot.example.org:443", "[fe80::1%eth0]:8080"} {
		if _, err := ConfigFromEnv(func(k string) string { return map[string]string{"HTTP_ADDR": good}[k] }); err != nil {
			t.Errorf("HTTP_ADDR=%q refused: %v", good, err)
		}
	}
	for _, bad := range []string{"nonsense", "127.0.0.1:99999", "127.0.0.1:-1", "127.0.0.1:http", ":", "127.0.0.1",
		"bad host:80", "::1:80", "127.0.0.1:80:80", "http://127.0.0.1:8080"} {
		_, err := ConfigFromEnv(func(k string) string { return map[string]string{"HTTP_ADDR": bad}[k] })
		want := `HTTP_ADDR is malformed: it must be host:port with a port from 0 to 65535, such as 127.0.0.1:8080, not "` + bad + `"`
		if err == nil || err.Error() != want {
			t.Errorf("HTTP_ADDR=%q: %v, want %q", bad, err, want)
		}
	}
}

// runQuestbot runs this test binary as questbot with args and an environment of its own, and
// returns its exit status and standard error. A process still running after a minute (one that
// started rather than refuse its settings) is killed.
func runQuestbot(t *testing.T, args string, env ...string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0])
	cmd.Env = append([]string{asQuestbotEnv + "=" + args, "PATH=" + os.Getenv("PATH"), "TMPDIR=" + os.TempDir(),
		"DATA_DIR=" + t.TempDir()}, env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatal(err)
	}
	return cmd.ProcessState.ExitCode(), stderr.String()
}

// Ensure the process refuses a bad setting at once, in one line and with exit status 2: a
// malformed BOT_TOKEN (without showing it), a malformed HTTP_ADDR, and a poller or a worker
// without BOT_TOKEN (each would run an emulator of its own that the others never reach). A
// port that is taken is a failure of the start instead (exit status 1), which says so.
func TestServeRefusesBadSettings(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args string
		env  []string
		want string
	}{
		{"serve", []string{"BOT_TOKEN=123456:ABC def"}, `questbot: BOT_TOKEN: token 1 of 1 is malformed: character 11 is a space; ` +
			`a token is the bot's id, a colon, then letters, digits, "_" and "-", as @BotFather gives it`},
		{"serve", []string{"BOT_TOKEN=1:a,,2:b"}, "questbot: BOT_TOKEN: entry 2 of 3 is empty: separate the tokens with single commas"},
		{"serve", []string{"HTTP_ADDR=nonsense"}, `questbot: HTTP_ADDR is malformed: it must be host:port with a port from 0 to 65535, such as 127.0.0.1:8080, not "nonsense"`},
		{"serve", []string{"HTTP_ADDR=127.0.0.1:99999"}, `questbot: HTTP_ADDR is malformed: it must be host:port with a port from 0 to 65535, such as 127.0.0.1:8080, not "127.0.0.1:99999"`},
		{"serve", []string{"DATABASE_URL=nonsense"}, `questbot: DATABASE_URL is not a PostgreSQL connection string (invalid keyword/value): it must be a URL ` +
			`such as postgres://user:password@host:5432/questbot or keyword=value pairs such as "host=/run/postgresql dbname=questbot"`},
		{"serve", []string{"DATABASE_URL=postgres://bot:hunter2@db:port/x"}, `questbot: DATABASE_URL is not a PostgreSQL connection string: it must be a URL ` +
			`such as postgres://user:password@host:5432/questbot or keyword=value pairs such as "host=/run/postgresql dbname=questbot"`},
		{"serve", []string{"PG_BIN=/nonexistent"}, "questbot: PG_BIN: PostgreSQL server binaries not found in /nonexistent " +
			"(initdb is missing; install PostgreSQL 15 or set PG_BIN); or set DATABASE_URL to a PostgreSQL server of your own"},
		{"serve --role poller", nil, "questbot: --role poller needs BOT_TOKEN: without it every process runs an emulator of its own, which the other processes never reach; run one process (--role all) with the emulator"},
		{"serve --role worker", nil, "questbot: --role worker needs BOT_TOKEN: without it every process runs an emulator of its own, which the other processes never reach; run one process (--role all) with the emulator"},
	} {
		t.Run(c.args+" "+strings.Join(c.env, " "), func(t *testing.T) {
			t.Parallel()
			code, stderr := runQuestbot(t, c.args, c.env...)
			if code != 2 || stderr != c.want+"\n" {
				t.Errorf("exit status %d, stderr %q; want 2 and %q", code, stderr, c.want)
			}
			if strings.Contains(stderr, "ABC") || strings.Contains(stderr, "hunter2") {
				t.Error("the secret is shown")
			}
		})
	}
	// A server that cannot be reached is a failure of the start (exit status 1); the data
	// folder it made for the emulator is one the embedded database can use next time (the
	// postgres user must enter it when root runs questbot).
	t.Run("database unreachable", func(t *testing.T) {
		t.Parallel()
		dataDir := filepath.Join(t.TempDir(), "fresh")
		code, stderr := runQuestbot(t, "serve", "DATABASE_URL=postgres://questbot@127.0.0.1:1/questbot?connect_timeout=5",
			"HTTP_ADDR=127.0.0.1:0", "DATA_DIR="+dataDir)
		if code != 1 || !strings.Contains(stderr, "Stopped with an error") {
			t.Errorf("exit status %d, stderr %q; want 1 and the error", code, stderr)
		}
		st, err := os.Stat(dataDir)
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm() != 0o755 {
			t.Errorf("DATA_DIR is left at mode %v, want 0755", st.Mode().Perm())
		}
	})
	t.Run("port taken", func(t *testing.T) {
		t.Parallel()
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		code, stderr := runQuestbot(t, "serve", "HTTP_ADDR="+ln.Addr().String())
		if code != 1 || !strings.Contains(stderr, "is another program using HTTP_ADDR="+ln.Addr().String()) {
			t.Errorf("exit status %d, stderr %q; want 1 and the question", code, stderr)
		}
	})
}

// Ensure a bot whose Bot API server cannot be reached logs its retries without its token in any
// form: as it is, URL-escaped, or in the getMe URL of the error.
func TestUnreachableBotAPIKeepsTokenOut(t *testing.T) {
	t.Parallel()
	// A server that answers nothing the Bot API would: its connections are closed at once.
	dead := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if hj, ok := w.(http.Hijacker); ok {
			if c, _, err := hj.Hijack(); err == nil {
				c.Close()
			}
		}
	}))
	t.Cleanup(dead.Close)
	const token = "900003:unreachable-SECRET_token"
	cfg := testConfig(t)
	cfg.DatabaseURL = pgtest.ConnString(t)
	cfg.BotToken = token
	cfg.TelegramAPIURL = dead.URL
	r := startServer(t, cfg)
	wait.For(t, wait.Hang, "a failed connection logged", func() bool {
		return strings.Contains(r.logs.String(), "Unable to connect a bot")
	})
	logs := r.logs.String()
	for _, form := range []string{token, url.PathEscape(token), url.QueryEscape(token), "unreachable-SECRET"} {
		if strings.Contains(logs, form) {
			t.Errorf("the logs hold the token as %q:\n%s", form, logs)
		}
	}
	if !strings.Contains(logs, "<token>") {
		t.Errorf("the failed getMe is not logged with its URL redacted:\n%s", logs)
	}
}
