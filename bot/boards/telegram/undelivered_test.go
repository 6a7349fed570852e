package telegram_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/questbot/questbot/bot"
	"github.com/questbot/questbot/bot/boards/telegram"
	"github.com/questbot/questbot/bot/boards/web"
	"github.com/questbot/questbot/bot/emulator/tgemu"
)

// newAccessEnv starts a bot that revokes the credentials whose message failed (Undelivered).
func newAccessEnv(t *testing.T) *env {
	t.Helper()
	e := newEnv(t)
	e.jobs.undelivered = true
	e.start(t)
	return e
}

// greet adds a user who writes to the bot, so that it knows them, and waits for its answer.
func (e *env) greet(t *testing.T, user int64, name string) {
	t.Helper()
	e.User(user, name, "en")
	after := e.LastID(user)
	e.Send(t, user, "/start")
	e.WaitMessage(t, user, after, "an answer to /start", func(tgemu.Message) bool { return true })
	// Every message of the answer is sent before a test injects its fault, which would
	// otherwise hit one of them rather than the message the test means.
	e.WaitIdle(t)
}

// webAnswer is the web game server's answer, on the env's database, to a GET of path with an
// API token (none when empty): its status, and the code of the error it answers with.
func (e *env) webAnswer(t *testing.T, path, token string) (status int, code string) {
	t.Helper()
	srv := web.New(web.Config{Pool: e.Pool, Doer: e.proc.Transport, Boards: e.app.Boards, PublicURL: testPublicURL})
	req := httptest.NewRequest("GET", path, nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	w := httptest.NewRecorder()
	srv.Handler().ServeHTTP(w, req)
	var ae struct {
		Error struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if w.Code >= 400 && strings.HasPrefix(w.Header().Get("Content-Type"), "application/json") {
		if err := json.Unmarshal(w.Body.Bytes(), &ae); err != nil || ae.Error.Message == "" {
			t.Fatalf("GET %s: %d %s", path, w.Code, w.Body)
		}
	}
	return w.Code, ae.Error.Code
}

// tokenRE and ticketRE find an API token and a login ticket in a text.
var (
	tokenRE  = regexp.MustCompile(`qbt_[A-Za-z0-9_-]{43}`)
	ticketRE = regexp.MustCompile(`/login/([A-Za-z0-9_-]{22})`)
)

// sentTo records what the bot sends to a chat, as Telegram is sent it (refused or not).
func (e *env) sentTo(chat int64) func() []string {
	var mu sync.Mutex
	var texts []string
	f := func(row *bot.OutboxRow) {
		if row.Chat.Chat == chat {
			mu.Lock()
			texts = append(texts, row.Request.Params["text"])
			mu.Unlock()
		}
	}
	e.beforeSend.Store(&f)
	return func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), texts...)
	}
}

// contains reports whether s has every part.
func contains(s string, parts ...string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}

// find returns the first match of re in texts.
func find(re *regexp.Regexp, texts []string) string {
	for _, s := range texts {
		if m := re.FindString(s); m != "" {
			return m
		}
	}
	return ""
}

// Ensure an API token whose message Telegram refuses for good is revoked and its admin told:
// the token (as Telegram was sent it) opens nothing, the failed message is kept with the token
// withheld, no log line and no error recorded holds it, and the admin learns it in their chat
// and can ask again.
func TestUndeliveredToken(t *testing.T) {
	t.Parallel()
	e := newAccessEnv(t)
	e.greet(t, 1, "Ann")
	e.greet(t, 2, "Boris")
	e.Exec(t, `UPDATE users SET is_admin = true WHERE id = 1`)
	e.allow("Telegram rejected a request")
	e.allow("An API token could not be delivered; it is revoked and its issuer told")
	sent := e.sentTo(1)
	e.Bot.InjectFault(tgemu.Fault{Method: "sendMessage", ChatID: 1, Code: 400})
	after := e.LastID(1)
	e.Send(t, 1, "/token 2 arbiter")
	note := e.WaitTextAfter(t, 1, after, "could not be delivered")
	if !contains(note.Text, "#1", "«Boris» (2)", "/token 2") {
		t.Errorf("the notice: %q", note.Text)
	}
	tok := find(tokenRE, sent())
	if tok == "" {
		t.Fatalf("no token was sent: %q", sent())
	}
	if status, code := e.webAnswer(t, "/api/v1/me", tok); status != http.StatusUnauthorized || code != "unauthorized" {
		t.Errorf("the undelivered token: %d %s, want %d unauthorized", status, code, http.StatusUnauthorized)
	}
	if n := e.QueryInt(t, `SELECT count(*) FROM web_api_token WHERE id = 1 AND revoked_at IS NOT NULL`); n != 1 {
		t.Errorf("the token is not revoked")
	}
	if n := e.QueryInt(t, `SELECT count(*) FROM outbox WHERE status = 'failed' AND params->>'text' LIKE '%[withheld]%'
		AND params::text NOT LIKE '%qbt\_%' AND last_error NOT LIKE '%qbt\_%' AND secrets IS NULL`); n != 1 {
		t.Errorf("%d failed rows kept with the token withheld, want 1", n)
	}
	if n := e.QueryInt(t, `SELECT count(*) FROM outbox WHERE params::text LIKE '%qbt\_%' OR last_error LIKE '%qbt\_%'`); n != 0 {
		t.Errorf("%d outbox rows hold a token", n)
	}
	if n := e.QueryInt(t, `SELECT count(*) FROM outbox_secret_failure`); n != 0 {
		t.Errorf("%d records of failed credentials left", n)
	}
	if strings.Contains(e.Logs.String(), tok) || strings.Contains(e.Logs.String(), "qbt_") {
		t.Errorf("the token is in the logs:\n%s", e.Logs)
	}

	// Asked again, the token arrives and works.
	after = e.LastID(1)
	e.Send(t, 1, "/token 2 arbiter")
	tok = tokenRE.FindString(e.WaitTextAfter(t, 1, after, "API token #2").Text)
	if status, _ := e.webAnswer(t, "/api/v1/me", tok); status != http.StatusOK {
		t.Fatalf("the token delivered: %d, want %d", status, http.StatusOK)
	}
	e.WaitIdle(t)
	if n := e.QueryInt(t, `SELECT count(*) FROM outbox WHERE params::text LIKE '%qbt\_%'`); n != 0 {
		t.Errorf("the delivered token's row is kept")
	}
}

// Ensure a login link whose message cannot be delivered (the user blocked the bot) is used up:
// the link, as Telegram was sent it, opens no session, and the failed message keeps no ticket.
func TestUndeliveredLink(t *testing.T) {
	t.Parallel()
	e := newAccessEnv(t)
	e.greet(t, 1, "Ann")
	sent := e.sentTo(1)
	e.Bot.InjectFault(tgemu.Fault{Method: "sendMessage", ChatID: 1, Code: 403})
	e.Send(t, 1, "/web")
	e.WaitFor(t, "the link used up", func() bool {
		return e.QueryInt(t, `SELECT count(*) FROM web_login_ticket WHERE used_at IS NOT NULL`) == 1 &&
			e.QueryInt(t, `SELECT count(*) FROM web_login_ticket WHERE used_at IS NULL`) == 0 &&
			e.QueryInt(t, `SELECT count(*) FROM outbox_secret_failure`) == 0 &&
			e.QueryInt(t, `SELECT count(*) FROM outbox WHERE status = 'failed'`) == 1
	})
	m := ticketRE.FindStringSubmatch(strings.Join(sent(), "\n"))
	if m == nil {
		t.Fatalf("no link was sent: %q", sent())
	}
	if status, _ := e.webAnswer(t, "/login/"+m[1], ""); status != http.StatusForbidden {
		t.Fatalf("the undelivered link: %d", status)
	}
	if n := e.QueryInt(t, `SELECT count(*) FROM outbox WHERE strpos(params::text, $1) > 0`, m[1]); n != 0 {
		t.Errorf("the ticket is kept in the outbox")
	}
	if strings.Contains(e.Logs.String(), m[1]) {
		t.Errorf("the ticket is in the logs:\n%s", e.Logs)
	}
}

// Ensure a login link that could not be delivered within its life is not sent late: the link's
// message waited in the outbox past the ticket's ten minutes (here: made by a clock that is
// behind), so it is never sent, its ticket is used up and nothing of it is kept.
func TestLateLinkNotSent(t *testing.T) {
	t.Parallel()
	e := newAccessEnv(t)
	e.greet(t, 1, "Ann")
	e.allow("The request carries a secret that expired before it could be sent")
	sent := e.sentTo(1)
	after := e.LastID(1)
	e.clock.advance(-(telegram.TicketTTL + time.Minute))
	e.Send(t, 1, "/web")
	e.WaitFor(t, "the link used up", func() bool {
		return e.QueryInt(t, `SELECT count(*) FROM web_login_ticket WHERE used_at IS NOT NULL`) == 1 &&
			e.QueryInt(t, `SELECT count(*) FROM web_login_ticket WHERE used_at IS NULL`) == 0 &&
			e.QueryInt(t, `SELECT count(*) FROM outbox_secret_failure`) == 0 &&
			e.QueryInt(t, `SELECT count(*) FROM outbox WHERE status = 'failed' AND last_error LIKE '%expired%'`) == 1
	})
	e.WaitIdle(t)
	if s := sent(); find(ticketRE, s) != "" {
		t.Errorf("the late link was sent: %q", s)
	}
	for _, m := range e.BotMessages(1) {
		if m.ID > after && strings.Contains(m.Text, "/login/") {
			t.Errorf("the chat got the late link: %q", m.Text)
		}
	}
	if n := e.QueryInt(t, `SELECT count(*) FROM outbox WHERE params::text LIKE '%/login/%' AND params::text NOT LIKE '%/login/[withheld]%'`); n != 0 {
		t.Errorf("the ticket is kept in the outbox")
	}
}
