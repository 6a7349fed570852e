package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"

	"github.com/questbot/questbot/bot/boards/web"
	"github.com/questbot/questbot/bot/emulator/tgemu"
	"github.com/questbot/questbot/bot/testkit/bottest"
	"github.com/questbot/questbot/bot/testkit/wait"
	"github.com/questbot/questbot/migrations/pgcluster"
	"github.com/questbot/questbot/migrations/pgtest"
	"github.com/questbot/questbot/qms"
)

type running struct {
	srv  *Server
	addr string
	logs *bottest.LogBuffer
	stop context.CancelFunc
	done chan error
}

// startServer runs a Server with cfg until the test ends or stop is called.
func startServer(t *testing.T, cfg Config) *running {
	t.Helper()
	return startServerWith(t, &Server{Config: cfg})
}

// startServerWith runs s, with a logger and Listening of its own, until the test ends or stop is
// called.
func startServerWith(t *testing.T, s *Server) *running {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	r := &running{logs: &bottest.LogBuffer{}, stop: cancel, done: make(chan error, 1)}
	addrc := make(chan string, 1)
	s.Log = slog.New(slog.NewTextHandler(r.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	s.Listening = func(a net.Addr) { addrc <- a.String() }
	r.srv = s
	go func() { r.done <- s.Run(ctx) }()
	select {
	case r.addr = <-addrc:
	case err := <-r.done:
		cancel()
		t.Fatalf("server stopped before listening: %v", err)
	}
	t.Cleanup(func() {
		cancel()
		select {
		case <-r.done:
		case <-time.After(wait.Hang):
			t.Error("server did not stop")
		}
	})
	return r
}

// waitHealthy polls /healthz until it answers 200 and returns how long that took.
func waitHealthy(t *testing.T, r *running, limit time.Duration) time.Duration {
	t.Helper()
	start := time.Now()
	wait.ForShowing(t, limit, "/healthz to answer 200", func() bool {
		select {
		case err := <-r.done:
			t.Fatalf("server stopped: %v\n%s", err, r.logs)
		default:
		}
		resp, err := http.Get("http://" + r.addr + "/healthz")
		if err != nil {
			return false
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		switch resp.StatusCode {
		case http.StatusOK:
			if strings.TrimSpace(string(body)) != "ok" {
				t.Fatalf("healthz body %q", body)
			}
			return true
		case http.StatusServiceUnavailable:
			return false
		}
		t.Fatalf("healthz status %d", resp.StatusCode)
		return false
	}, r.logs.String)
	return time.Since(start)
}

func testConfig(t *testing.T) Config {
	cfg, err := ConfigFromEnv(func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	cfg.HTTPAddr = "127.0.0.1:0"
	// The emulator keeps its chats in DATA_DIR: each test has its own.
	cfg.DataDir = t.TempDir()
	// The board pictures are drawn into UPLOADS_DIR: not into the source tree.
	cfg.UploadsDir = t.TempDir()
	return cfg
}

// Ensure serve with DATABASE_URL migrates the database and reports healthy, and stops on cancel.
func TestServeDatabaseURL(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t)
	cfg.DatabaseURL = pgtest.ConnString(t)
	r := startServer(t, cfg)
	waitHealthy(t, r, wait.Hang)
	wait.For(t, wait.Hang, "the emulator's bot to be registered", func() bool {
		return strings.Contains(r.logs.String(), "Bot registered")
	})
	if !strings.Contains(r.logs.String(), "serving the built-in Telegram emulator") {
		t.Errorf("the log does not say that the emulator is served:\n%s", r.logs)
	}
	r.stop()
	if err := <-r.done; err != nil {
		t.Fatalf("Run: %v", err)
	}
	r.done <- nil // for the cleanup
}

// Ensure the embedded database is created on the first run, reused on the next, locked against a
// second process, and stopped on exit.
func TestServeEmbedded(t *testing.T) {
	t.Parallel()
	// The PostgreSQL server may run as another user: the folder must be reachable by it.
	dir, err := os.MkdirTemp("", "qbdata")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := testConfig(t)
	cfg.DataDir = filepath.Join(dir, "data")
	cfg.PGBin = os.Getenv("PG_BIN")

	first := startServer(t, cfg)
	// The first run creates the cluster (initdb), which takes seconds and more on a busy machine.
	took := waitHealthy(t, first, wait.Hang)
	t.Logf("first run healthy after %v", took)

	// A second process on the same data folder refuses to start.
	second := &Server{Config: cfg, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	err = second.Run(context.Background())
	if !errors.Is(err, ErrDataDirBusy) {
		t.Fatalf("second server: got %v, want ErrDataDirBusy", err)
	}

	first.stop()
	if err := <-first.done; err != nil {
		t.Fatalf("Run: %v\n%s", err, first.logs)
	}
	first.done <- nil
	c, err := pgcluster.New(pgcluster.Options{Bin: cfg.PGBin, Root: filepath.Join(cfg.DataDir, "postgres")})
	if err != nil {
		t.Fatal(err)
	}
	if c.Running(context.Background()) {
		t.Fatal("PostgreSQL still running after the server stopped")
	}

	again := startServer(t, cfg)
	took = waitHealthy(t, again, wait.Hang)
	t.Logf("second run healthy after %v", took)
	again.stop()
	if err := <-again.done; err != nil {
		t.Fatalf("Run: %v", err)
	}
	again.done <- nil
	if c.Running(context.Background()) {
		t.Fatal("PostgreSQL still running after the second server stopped")
	}
}

func TestConfigFromEnv(t *testing.T) {
	t.Parallel()
	env := map[string]string{"LOG_LEVEL": "DEBUG", "LOG_FORMAT": "json", "HTTP_ADDR": "127.0.0.1:9999"}
	cfg, err := ConfigFromEnv(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	if cfg.LogLevel != "debug" || cfg.LogFormat != "json" || cfg.HTTPAddr != "127.0.0.1:9999" || cfg.DataDir != ".data" ||
		cfg.FailedRetention != 7*24*time.Hour || cfg.WebStreams != web.DefaultStreams {
		t.Fatalf("got %+v", cfg)
	}
	env["FAILED_RETENTION"] = "720h"
	if cfg, err := ConfigFromEnv(func(k string) string { return env[k] }); err != nil || cfg.FailedRetention != 30*24*time.Hour {
		t.Fatalf("FAILED_RETENTION=720h: %v, %v", cfg.FailedRetention, err)
	}
	if cfg.QMSLimits != qms.DefaultLimits {
		t.Fatalf("the .qms limits by default: %+v", cfg.QMSLimits)
	}
	env["QMS_MAX_SITES"], env["QMS_MAX_MEMORY_MB"] = "500", "8"
	if cfg, err := ConfigFromEnv(func(k string) string { return env[k] }); err != nil || cfg.QMSLimits.Sites != 500 || cfg.QMSLimits.Memory != 8<<20 {
		t.Fatalf("QMS_MAX_SITES=500 QMS_MAX_MEMORY_MB=8: %+v, %v", cfg.QMSLimits, err)
	}
	env["BOARD_BOT_GAMES"] = "12"
	if cfg, err := ConfigFromEnv(func(k string) string { return env[k] }); err != nil || cfg.BotGames != 12 {
		t.Fatalf("BOARD_BOT_GAMES=12: %v, %v", cfg.BotGames, err)
	}
	env["WEB_STREAMS_PER_USER"] = "1000"
	if cfg, err := ConfigFromEnv(func(k string) string { return env[k] }); err != nil || cfg.WebStreams != 1000 {
		t.Fatalf("WEB_STREAMS_PER_USER=1000: %v, %v", cfg.WebStreams, err)
	}
	for in, want := range map[string]string{"https://bot.example.org/": "https://bot.example.org",
		"https://bot.example.org/hooks": "https://bot.example.org/hooks", "http://127.0.0.1:8080": "http://127.0.0.1:8080",
		"http://localhost:8080/": "http://localhost:8080"} {
		env["WEBHOOK_URL"] = in
		if cfg, err := ConfigFromEnv(func(k string) string { return env[k] }); err != nil || cfg.WebhookURL != want {
			t.Errorf("WEBHOOK_URL=%s: %q, %v; want %q", in, cfg.WebhookURL, err, want)
		}
	}
	for _, bad := range []map[string]string{{"LOG_LEVEL": "loud"}, {"LOG_FORMAT": "xml"},
		{"FAILED_RETENTION": "a week"}, {"FAILED_RETENTION": "1m"}, {"WEB_STREAMS_PER_USER": "0"},
		{"BOARD_BOT_GAMES": "0"}, {"BOARD_BOT_GAMES": "ten"}, {"QMS_MAX_SITES": "0"}, {"QMS_MAX_STEPS": "many"},
		{"QMS_MAX_MEMORY_MB": "-1"},
		{"WEB_STREAMS_PER_USER": "many"}, {"WEBHOOK_URL": "bot.example.org"}, {"WEBHOOK_URL": "http://bot.example.org"},
		{"WEBHOOK_URL": "ftp://bot.example.org"}, {"WEBHOOK_URL": "https://bot.example.org/?a=1"},
		{"WEBHOOK_URL": "https://user@bot.example.org"}} {
		if _, err := ConfigFromEnv(func(k string) string { return bad[k] }); err == nil {
			t.Errorf("%v: no error", bad)
		}
	}
}

// get fetches a URL and returns the body of a 200 answer.
func get(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %s", url, resp.StatusCode, body)
	}
	return string(body)
}

// Ensure serve without BOT_TOKEN serves the web chat and the emulated Bot API, greets a user
// through the real transport, installs the command menu and exports metrics.
func TestServeEmulator(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t)
	cfg.DatabaseURL = pgtest.ConnString(t)
	r := startServer(t, cfg)
	waitHealthy(t, r, wait.Hang)
	if page := get(t, "http://"+r.addr+"/"); !strings.Contains(page, "Questbot web chat") {
		t.Fatalf("/ is not the web chat:\n%.200s", page)
	}
	<-r.srv.started
	b := r.srv.emuBot
	b.AddUser(tgbotapi.User{ID: 5, FirstName: "Ann", LanguageCode: "en"})
	if _, err := b.SendText(5, "/start"); err != nil {
		t.Fatal(err)
	}
	wait.For(t, wait.Hang, "the greeting", func() bool {
		msgs := b.Messages(5)
		return len(msgs) == 2 && strings.Contains(msgs[1].Text, "Hello, <b>Ann</b>")
	})
	wait.For(t, wait.Hang, "the command menus", func() bool {
		return len(b.Commands("")) > 0 && len(b.Commands("ru")) > 0
	})
	// The menus come from the command tree in the database.
	if en := b.Commands(""); en[0].Command != "quest" || en[0].Description != "Choose a quest" {
		t.Errorf("command menu %+v, want /quest first", en)
	}
	wants := []string{
		"questbot_updates_received_total 1",
		`questbot_updates_handled_total{result="ok"} 1`,
		`questbot_sends_total{method="sendMessage",outcome="sent"} 1`,
		"questbot_outbox_depth",
		"questbot_update_handle_seconds_bucket",
	}
	// The sender counts a send once Telegram's answer is back, a moment after the emulator
	// shows the message.
	missing := func() []string {
		metrics := get(t, "http://"+r.addr+"/metrics")
		var out []string
		for _, want := range wants {
			if !strings.Contains(metrics, want) {
				out = append(out, want)
			}
		}
		return out
	}
	var lacks []string
	wait.ForShowing(t, wait.Hang, "every metric", func() bool { lacks = missing(); return len(lacks) == 0 },
		func() string { return fmt.Sprintf("/metrics lacks %q", lacks) })
	if strings.Contains(r.logs.String(), b.Token()) {
		t.Error("the emulated bot's token appears in the logs")
	}
}

// Ensure serve with BOT_TOKEN and TELEGRAM_API_URL talks to that Bot API server, and serves no
// web chat.
func TestServeTelegram(t *testing.T) {
	t.Parallel()
	emu := tgemu.New(tgemu.Options{EnforceRateLimits: true})
	const token = "777:real-looking-token"
	b := emu.AddBot(token, "real_bot")
	api := httptest.NewServer(emu)
	t.Cleanup(api.Close) // after the server stops: its long poll holds a connection
	cfg := testConfig(t)
	cfg.DatabaseURL = pgtest.ConnString(t)
	cfg.BotToken = token
	cfg.TelegramAPIURL = api.URL
	r := startServer(t, cfg)
	waitHealthy(t, r, wait.Hang)
	b.AddUser(tgbotapi.User{ID: 9, FirstName: "Иван", LanguageCode: "ru"})
	if _, err := b.SendText(9, "/start"); err != nil {
		t.Fatal(err)
	}
	wait.For(t, wait.Hang, "the greeting", func() bool {
		msgs := b.Messages(9)
		return len(msgs) == 2 && strings.Contains(msgs[1].Text, "Привет")
	})
	resp, err := http.Get("http://" + r.addr + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("GET / with BOT_TOKEN: %d, want 404", resp.StatusCode)
	}
	if strings.Contains(r.logs.String(), "real-looking-token") {
		t.Error("the token appears in the logs")
	}
}

// Ensure serve with WEBHOOK_URL pointing at itself, with the built-in emulator, gets the
// updates by webhook: the emulator posts /start to /telegram/<bot id> and the greeting comes
// back, and getUpdates is never used.
func TestServeWebhook(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t)
	cfg.DatabaseURL = pgtest.ConnString(t)
	// The webhook's address must be known before the server starts: a port free a moment ago.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cfg.HTTPAddr = ln.Addr().String()
	ln.Close()
	cfg.WebhookURL = "http://" + cfg.HTTPAddr
	r := startServer(t, cfg)
	waitHealthy(t, r, wait.Hang)
	<-r.srv.started
	b := r.srv.emuBot
	want := fmt.Sprintf("http://%s/telegram/%d", cfg.HTTPAddr, b.Me().ID)
	wait.For(t, wait.Hang, "the webhook set", func() bool { return b.WebhookInfo().URL == want })
	b.AddUser(tgbotapi.User{ID: 5, FirstName: "Ann", LanguageCode: "en"})
	if _, err := b.SendText(5, "/start"); err != nil {
		t.Fatal(err)
	}
	wait.For(t, wait.Hang, "the greeting", func() bool {
		msgs := b.Messages(5)
		return len(msgs) == 2 && strings.Contains(msgs[1].Text, "Hello, <b>Ann</b>")
	})
	if n := b.Count("getUpdates"); n != 0 {
		t.Errorf("%d getUpdates in webhook mode, want none", n)
	}
	// Without the secret the route refuses.
	resp, err := http.Post(want, "application/json", strings.NewReader(`{"update_id":99}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("a post without the secret: %d, want 401", resp.StatusCode)
	}
}
