package bot_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/questbot/questbot/bot"
	"github.com/questbot/questbot/bot/botpg"
	"github.com/questbot/questbot/bot/emulator/tgemu"
	"github.com/questbot/questbot/bot/testkit/bottest"
	"github.com/questbot/questbot/bot/testkit/wait"
)

// hookServer is this process's public address in a webhook test: a real listener in front of
// whichever transport's WebhookHandler is current (a restarted process is a new transport). It
// answers 503 while there is none, which Telegram retries, and notes the secret of the last
// delivery it passed on. While lose is set, the handler's answer is replaced by a 502, as when
// the connection breaks after the process committed: Telegram delivers the update again.
type hookServer struct {
	srv    *httptest.Server
	mu     sync.Mutex
	h      http.Handler
	secret string
	lose   bool
	passed int // deliveries passed on to a handler
}

func newHookServer(t *testing.T) *hookServer {
	hs := &hookServer{}
	hs.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hs.mu.Lock()
		h, lose := hs.h, hs.lose
		if h != nil {
			hs.secret = r.Header.Get("X-Telegram-Bot-Api-Secret-Token")
		}
		hs.mu.Unlock()
		if h == nil {
			http.Error(w, "starting", http.StatusServiceUnavailable)
			return
		}
		if lose {
			h.ServeHTTP(httptest.NewRecorder(), r)
			http.Error(w, "answer lost", http.StatusBadGateway)
		} else {
			h.ServeHTTP(w, r)
		}
		hs.mu.Lock()
		hs.passed++
		hs.mu.Unlock()
	}))
	t.Cleanup(hs.srv.Close)
	return hs
}

func (hs *hookServer) serve(h http.Handler) {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	hs.h = h
}

// loseAnswers sets whether the handler's answers are lost; it returns how many deliveries were
// passed on so far.
func (hs *hookServer) loseAnswers(lose bool) int {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	hs.lose = lose
	return hs.passed
}

func (hs *hookServer) deliveries() int {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	return hs.passed
}

func (hs *hookServer) lastSecret() string {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	return hs.secret
}

// startWebhook starts a process in webhook mode behind hs and waits until the emulator has its
// webhook.
func (e *env) startWebhook(t *testing.T, hs *hookServer, cfg bot.Config) *bottest.Process {
	t.Helper()
	cfg.Webhook = hs.srv.URL
	sets := e.Bot.Count("setWebhook")
	p := e.Start(t, cfg)
	hs.serve(p.Transport.WebhookHandler())
	want := hs.srv.URL + "/telegram/123456"
	// A restarted process sets the webhook again.
	wait.For(t, wait.Hang, "the webhook set", func() bool {
		return e.Bot.Count("setWebhook") > sets && e.Bot.WebhookInfo().URL == want
	})
	return p
}

// inboxRows counts the updates in the inbox (handled ones are removed).
func (e *env) inboxRows(t *testing.T) int {
	t.Helper()
	var n int
	if err := e.Pool.QueryRow(context.Background(), `SELECT count(*) FROM inbox`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// Ensure updates delivered by webhook are handled and answered, in order in each chat, and that
// getUpdates is not used meanwhile.
func TestWebhookMode(t *testing.T) {
	t.Parallel()
	e := newEnv(t, tgemu.Options{})
	hs := newHookServer(t)
	e.startWebhook(t, hs, bot.Config{Handler: numbered, Limits: &bot.NoLimits})
	polls := e.Bot.Count("getUpdates")
	e.numberedChats(t, 2000, 5, 10)
	if n := e.Bot.Count("getUpdates"); n != polls {
		t.Errorf("%d getUpdates in webhook mode, want none", n-polls)
	}
	if s := hs.lastSecret(); len(s) < 43 || strings.Trim(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-") != "" {
		t.Errorf("secret %q: want at least 43 characters of A-Z a-z 0-9 _ -", s)
	}
}

// post sends a webhook request to the process behind hs.
func post(t *testing.T, hs *hookServer, path, secret, body string) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, hs.srv.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if secret != "" {
		req.Header.Set("X-Telegram-Bot-Api-Secret-Token", secret)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// Ensure a webhook request without the secret, or with a wrong one, is refused with 401 and
// stores nothing; an unknown bot gets 404 and a body that is not an update 400. The process
// handles nothing, so that the inbox keeps every update it stored.
func TestWebhookSecret(t *testing.T) {
	t.Parallel()
	e := newEnv(t, tgemu.Options{})
	hs := newHookServer(t)
	m := bot.NewMetrics()
	e.startWebhook(t, hs, bot.Config{Handler: numbered, Limits: &bot.NoLimits, Metrics: m,
		Hooks: bot.Hooks{BeforeHandle: func(*bot.Update) bool { return true }}})
	e.User(1, "Ann", "en")
	e.Send(t, 1, "first")
	wait.For(t, wait.Hang, "the update stored", func() bool {
		return e.Bot.WebhookInfo().PendingUpdateCount == 0 && e.inboxRows(t) == 1
	})
	secret := hs.lastSecret()
	wrong := "x" + secret[1:]
	if wrong == secret {
		wrong = "y" + secret[1:]
	}
	update := `{"update_id":900,"message":{"message_id":90,"date":1,"chat":{"id":1,"type":"private"},"from":{"id":1,"is_bot":false,"first_name":"Ann"},"text":"forged"}}`
	for _, c := range []struct {
		name, path, secret, body string
		want                     int
	}{
		{"no secret", "/telegram/123456", "", update, http.StatusUnauthorized},
		{"wrong secret", "/telegram/123456", wrong, update, http.StatusUnauthorized},
		{"short secret", "/telegram/123456", secret[:10], update, http.StatusUnauthorized},
		{"unknown bot", "/telegram/654321", secret, update, http.StatusNotFound},
		{"not a bot id", "/telegram/abc", secret, update, http.StatusNotFound},
		{"not JSON", "/telegram/123456", secret, "update_id=900", http.StatusBadRequest},
		{"not an object", "/telegram/123456", secret, "[1,2]", http.StatusBadRequest},
	} {
		if got := post(t, hs, c.path, c.secret, c.body); got != c.want {
			t.Errorf("%s: status %d, want %d", c.name, got, c.want)
		}
	}
	if n := e.inboxRows(t); n != 1 {
		t.Errorf("%d inbox rows after the refused requests, want 1 (the first message)", n)
	}
	if got := testutil.ToFloat64(m.WebhookRefused); got != 3 {
		t.Errorf("%v refusals counted, want 3", got)
	}
	// With the right secret the same update is stored, and counted as received.
	if got := post(t, hs, "/telegram/123456", secret, update); got != http.StatusOK {
		t.Fatalf("the right secret: status %d, want 200", got)
	}
	var stored int
	if err := e.Pool.QueryRow(context.Background(), `SELECT count(*) FROM inbox WHERE update_id = 900`).Scan(&stored); err != nil || stored != 1 {
		t.Errorf("update 900 stored %d times (%v), want once, before the 200", stored, err)
	}
	if got := testutil.ToFloat64(m.UpdatesReceived); got != 2 {
		t.Errorf("%v updates received, want 2", got)
	}
}

// Ensure an update stored from a webhook but not handled when the process stops is handled by
// the next process, and that a process started without webhook mode deletes the webhook and
// polls.
func TestWebhookRestartAndBackToPolling(t *testing.T) {
	t.Parallel()
	e := newEnv(t, tgemu.Options{})
	hs := newHookServer(t)
	// The first process stores what it receives but dies before handling anything.
	first := e.startWebhook(t, hs, bot.Config{Handler: numbered, Limits: &bot.NoLimits,
		Hooks: bot.Hooks{BeforeHandle: func(*bot.Update) bool { return true }}})
	e.User(1, "Ann", "en")
	e.Send(t, 1, "a")
	e.Send(t, 1, "b")
	wait.For(t, wait.Hang, "both updates delivered", func() bool {
		return e.Bot.WebhookInfo().PendingUpdateCount == 0 && e.inboxRows(t) == 2
	})
	first.Stop()
	hs.serve(nil)
	if n := len(e.botTexts(1)); n != 0 {
		t.Fatalf("%d replies before the restart, want none", n)
	}
	second := e.startWebhook(t, hs, bot.Config{Handler: numbered, Limits: &bot.NoLimits})
	e.Send(t, 1, "c")
	wait.For(t, wait.Hang, "the replies", func() bool { return len(e.botTexts(1)) == 3 })
	if got := strings.Join(e.botTexts(1), ","); got != "got a,got b,got c" {
		t.Errorf("replies %s, want got a,got b,got c", got)
	}
	second.Stop()
	hs.serve(nil)

	e.Start(t, bot.Config{Handler: numbered, Limits: &bot.NoLimits})
	wait.For(t, wait.Hang, "the webhook deleted", func() bool { return e.Bot.WebhookInfo().URL == "" })
	e.Send(t, 1, "d")
	wait.For(t, wait.Hang, "the polled reply", func() bool { return len(e.botTexts(1)) == 4 })
	if got := e.botTexts(1)[3]; got != "got d" {
		t.Errorf("reply %q, want got d", got)
	}
}

// Ensure an update delivered again after it was stored (its 200 was lost on the way) is handled
// once: when the webhook delivers it again, and when a process that went back to long polling
// gets it from getUpdates, since Telegram never learned it was delivered.
func TestWebhookSecondDelivery(t *testing.T) {
	t.Parallel()
	e := newEnv(t, tgemu.Options{})
	hs := newHookServer(t)
	first := e.startWebhook(t, hs, bot.Config{Handler: numbered, Limits: &bot.NoLimits})
	e.User(1, "Ann", "en")

	// "a" is stored, handled and answered, and delivered again until its answer gets through.
	before := hs.loseAnswers(true)
	e.Send(t, 1, "a")
	wait.For(t, wait.Hang, "a second delivery of a", func() bool { return hs.deliveries() >= before+2 })
	hs.loseAnswers(false)
	wait.For(t, wait.Hang, "a acknowledged", func() bool { return e.Bot.WebhookInfo().PendingUpdateCount == 0 })
	e.Send(t, 1, "b")
	wait.For(t, wait.Hang, "the reply to b", func() bool { return len(e.botTexts(1)) >= 2 })
	if got := strings.Join(e.botTexts(1), ","); got != "got a,got b" {
		t.Fatalf("replies %s, want got a,got b", got)
	}

	// "c" is stored and handled, but Telegram still holds it when the process stops; the next
	// process polls and gets it again.
	before = hs.loseAnswers(true)
	e.Send(t, 1, "c")
	wait.For(t, wait.Hang, "c stored and answered", func() bool {
		return hs.deliveries() > before && len(e.botTexts(1)) == 3
	})
	first.Stop()
	hs.serve(nil)
	if n := e.Bot.WebhookInfo().PendingUpdateCount; n != 1 {
		t.Fatalf("%d updates pending after the lost answer, want 1 (c)", n)
	}
	e.Start(t, bot.Config{Handler: numbered, Limits: &bot.NoLimits})
	wait.For(t, wait.Hang, "c polled again", func() bool {
		info := e.Bot.WebhookInfo()
		return info.URL == "" && info.PendingUpdateCount == 0
	})
	e.Send(t, 1, "d")
	wait.For(t, wait.Hang, "the reply to d", func() bool { return len(e.botTexts(1)) >= 4 })
	if got := strings.Join(e.botTexts(1), ","); got != "got a,got b,got c,got d" {
		t.Errorf("replies %s, want got a,got b,got c,got d", got)
	}

	// The ids are kept for a day: the cleanup removes older ones only.
	ctx := context.Background()
	if _, err := e.Pool.Exec(ctx, `UPDATE inbox_seen SET received_at = now() - interval '25 hours' WHERE update_id = (SELECT min(update_id) FROM inbox_seen)`); err != nil {
		t.Fatal(err)
	}
	if err := botpg.New(e.Pool).Cleanup(ctx, 48*time.Hour); err != nil {
		t.Fatal(err)
	}
	var kept int
	if err := e.Pool.QueryRow(ctx, `SELECT count(*) FROM inbox_seen`).Scan(&kept); err != nil || kept != 2 {
		t.Errorf("%d update ids kept after the cleanup (%v), want 2 (b and c)", kept, err)
	}
}

// balancer passes requests to its backends in turn, as a reverse proxy in front of several
// processes does, and counts the answers each gave by status.
type balancer struct {
	mu       sync.Mutex
	backends []http.Handler
	next     int
	answers  []map[int]int
}

func newBalancer(backends ...http.Handler) *balancer {
	b := &balancer{backends: backends}
	for range backends {
		b.answers = append(b.answers, map[int]int{})
	}
	return b
}

func (b *balancer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b.mu.Lock()
	i := b.next
	b.next = (b.next + 1) % len(b.backends)
	h := b.backends[i]
	b.mu.Unlock()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, r)
	b.mu.Lock()
	b.answers[i][rec.Code]++
	b.mu.Unlock()
	w.WriteHeader(rec.Code)
	w.Write(rec.Body.Bytes())
}

// set replaces backend i.
func (b *balancer) set(i int, h http.Handler) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.backends[i] = h
}

// count returns how many answers of status code backend i gave.
func (b *balancer) count(i, code int) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.answers[i][code]
}

// Ensure two processes behind one public address both accept a bot's deliveries (they share its
// secret through the database), each update handled once and in order; and that when the secret
// is replaced (cleared, and a receiving process restarted), the process still holding the old one
// reads the new one and accepts again.
func TestWebhookSeveralProcesses(t *testing.T) {
	t.Parallel()
	e := newEnv(t, tgemu.Options{})
	hs := newHookServer(t)
	cfg := bot.Config{Handler: numbered, Limits: &bot.NoLimits, Webhook: hs.srv.URL}
	a := e.startWebhook(t, hs, cfg)
	b := e.Start(t, cfg)
	lb := newBalancer(a.Transport.WebhookHandler(), b.Transport.WebhookHandler())
	hs.serve(lb)
	e.User(1, "Ann", "en")
	const n = 10
	for i := range n {
		e.Send(t, 1, fmt.Sprint(i))
	}
	wait.For(t, wait.Hang, "every reply", func() bool { return len(e.botTexts(1)) >= n })
	for i, m := range e.botTexts(1) {
		if want := fmt.Sprint("got ", i); m != want {
			t.Fatalf("reply %d: %q, want %q", i, m, want)
		}
	}
	if lb.count(0, http.StatusOK) == 0 || lb.count(1, http.StatusOK) == 0 || lb.count(0, http.StatusUnauthorized)+lb.count(1, http.StatusUnauthorized) != 0 {
		t.Fatalf("answers of the two processes: %v", lb.answers)
	}
	old, aBefore := hs.lastSecret(), lb.count(0, http.StatusOK)

	// The secret is replaced: cleared, and process b restarted as c, which sets a new one.
	b.Stop()
	e.Exec(t, `UPDATE service SET webhook_secret = NULL`)
	c := e.startWebhook(t, hs, cfg)
	hs.serve(lb)
	lb.set(1, c.Transport.WebhookHandler())
	// Process a refuses the new secret until it reads it again (at most once a second), and
	// Telegram delivers the refused updates again: messages are sent until a has taken one.
	sent := n
	for lb.count(0, http.StatusOK) == aBefore {
		if sent == 10*n {
			t.Fatalf("process a never took the new secret: answers %v", lb.answers)
		}
		e.Send(t, 1, fmt.Sprint(sent))
		sent++
		want := sent
		wait.For(t, wait.Hang, "the reply", func() bool { return len(e.botTexts(1)) >= want })
	}
	for i, m := range e.botTexts(1) {
		if want := fmt.Sprint("got ", i); m != want {
			t.Fatalf("reply %d: %q, want %q", i, m, want)
		}
	}
	if s := hs.lastSecret(); s == old {
		t.Error("the secret was not replaced")
	}
}
