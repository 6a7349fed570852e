package web_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/questbot/questbot/bot"
	"github.com/questbot/questbot/bot/app"
	"github.com/questbot/questbot/bot/boards"
	"github.com/questbot/questbot/bot/boards/web"
	"github.com/questbot/questbot/bot/emulator/tgemu"
	"github.com/questbot/questbot/bot/testkit/bottest"
	"github.com/questbot/questbot/migrations/pgtest"
	"github.com/questbot/questbot/sessions/board"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// clock is the server's and the games' clock: the real time plus an offset the test moves, or
// a fixed instant once frozen.
type clock struct {
	offset atomic.Int64
	frozen atomic.Int64
}

func (c *clock) now() time.Time {
	if f := c.frozen.Load(); f != 0 {
		return time.Unix(0, f)
	}
	return time.Now().Add(time.Duration(c.offset.Load()))
}
func (c *clock) advance(d time.Duration) { c.offset.Add(int64(d)) }

// env is the whole bot on the emulator (as bot/boards' tests run it) with the web game server
// on a real HTTP listener beside it, sharing its database and transport.
type env struct {
	*bottest.Env
	clock   *clock
	app     *app.Bot
	proc    *bottest.Process
	service int
	srv     *httptest.Server
	handler atomic.Pointer[http.Handler]
	// hub is the live updates' hub the server streams from.
	hub *web.Hub
	// cfg is the web server's configuration, opts the bot's.
	cfg  web.Config
	opts envOptions
	// jobs are the bot process's jobs (settle waits for them).
	jobs *bottest.Jobs
	// web is the web server serve made last.
	web *web.Server
}

// newEnv starts the bot and the web server; cfg tunes the server (its parts are filled in).
// Telegram's limits are off and the bot's jobs run every 50 ms.
func newEnv(t *testing.T, cfg web.Config) *env {
	return newEnvWith(t, cfg, envOptions{limits: &bot.NoLimits, think: true})
}

// envOptions tune the bot of an env.
type envOptions struct {
	// limits are the transport's send limits (bot.Config.Limits); nil: Telegram's.
	limits *bot.Limits
	// think runs the AI every 50 ms; without it the AI runs only when a commit wakes it.
	think bool
	// enforce makes the emulator refuse what breaks Telegram's limits (429).
	enforce bool
	// testEnv runs the bot as on Telegram's test environment (boards.Config.TestEnvironment):
	// its boards open the games' pages at the server's http loopback address as Mini Apps.
	testEnv bool
}

// newEnvWith is newEnv with the bot's limits and jobs as opts says.
func newEnvWith(t *testing.T, cfg web.Config, opts envOptions) *env {
	t.Helper()
	e := &env{Env: bottest.New(t, bottest.Options{Token: "123456:web-test-token", Username: "web_test_bot",
		Emulator: tgemu.Options{EnforceRateLimits: opts.enforce}}), clock: &clock{},
		opts: opts}
	e.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		(*e.handler.Load()).ServeHTTP(w, r)
	}))
	t.Cleanup(e.srv.Close)
	e.app = app.New(app.Config{UploadsDir: "../../../uploads", Log: e.Log(), Now: e.clock.now,
		Boards: boards.Config{Dir: t.TempDir(), Lease: 2 * time.Second, PublicURL: e.srv.URL,
			TestEnvironment: opts.testEnv}})
	e.startBot(t)
	if cfg.Events == nil {
		// The live updates, as serve runs them: a hub listening beside the bot.
		e.hub = web.NewHub(e.Pool, e.Log())
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() {
			defer close(done)
			e.hub.Run(ctx)
		}()
		t.Cleanup(func() { cancel(); <-done })
		cfg.Events = e.hub
	}
	if cfg.Now == nil {
		cfg.Now = e.clock.now
	}
	e.cfg = cfg
	e.serve()
	return e
}

// startBot starts a bot process on the env, with its jobs.
func (e *env) startBot(t *testing.T) {
	t.Helper()
	e.jobs = &bottest.Jobs{}
	jobs := []func(context.Context, *bot.Transport){
		e.jobs.Every(50*time.Millisecond, func(ctx context.Context, tr *bot.Transport) error {
			return e.app.Boards.Notify(ctx, boards.DoerOf(tr.Do))
		})}
	if e.opts.think {
		jobs = append(jobs, e.jobs.Every(50*time.Millisecond, func(ctx context.Context, tr *bot.Transport) error {
			return e.app.Boards.Think(ctx, boards.DoerOf(tr.Do))
		}))
	}
	e.proc = e.Start(t, bot.Config{Handler: e.app.Handle, Limits: e.opts.limits, Rescan: 50 * time.Millisecond}, jobs...)
	e.service = e.proc.Service
}

// serve makes the web server the env's handler, on the env's bot process.
func (e *env) serve() {
	cfg := e.cfg
	cfg.Pool, cfg.Doer, cfg.Boards, cfg.PublicURL, cfg.Log = e.Pool, e.proc.Transport, e.app.Boards, e.srv.URL, e.Log()
	if cfg.MiniApps == nil {
		cfg.MiniApps = e.proc.Transport
	}
	e.web = web.New(cfg)
	var h http.Handler = e.web.Handler()
	e.handler.Store(&h)
}

// restart stops the bot process and starts another on the same database and emulator; the web
// server goes on through the new one.
func (e *env) restart(t *testing.T) {
	t.Helper()
	e.proc.Stop()
	e.startBot(t)
	e.serve()
}

// client is a browser (a cookie) or a program (a token) calling the API.
type client struct {
	e      *env
	cookie string
	csrf   string
	token  string
	// header holds headers of its own sent with every call (a proxy's X-Forwarded-For).
	header http.Header
}

// linkRE finds a login link in the bot's answer to /web.
var linkRE = regexp.MustCompile(`http://[^\s"<]+/login/[A-Za-z0-9_-]+`)

// link sends /web as a user and returns the login link the bot answers with.
func (e *env) link(t *testing.T, user int64) string {
	t.Helper()
	after := e.LastID(user)
	e.Send(t, user, "/web")
	m := e.WaitMessage(t, user, after, "a login link", func(m tgemu.Message) bool { return linkRE.MatchString(m.Text) })
	return linkRE.FindString(m.Text)
}

// noRedirect is an HTTP client that reports redirects instead of following them.
var noRedirect = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// redeem opens a login link and returns the answer.
func redeem(t *testing.T, link string) *http.Response {
	t.Helper()
	return openLink(t, link, nil)
}

// loginForm is the form of a login link's page: it posts to the link itself.
var loginForm = regexp.MustCompile(`<form method="post">`)

// openLink opens a login link as a browser does, with header: the link's page, then, when it
// offers to log in, the post of its form to the same address with the page's Origin. It returns
// the answer of the post, or of the page when it offers none.
func openLink(t *testing.T, link string, header http.Header) *http.Response {
	t.Helper()
	do := func(method string) (*http.Response, []byte) {
		req, err := http.NewRequest(method, link, nil)
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range header {
			req.Header[k] = v
		}
		if method == "POST" {
			u, _ := url.Parse(link)
			req.Header.Set("Origin", u.Scheme+"://"+u.Host)
			req.Header.Set("Sec-Fetch-Site", "same-origin")
		}
		resp, err := noRedirect.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp, body
	}
	resp, body := do("GET")
	if resp.StatusCode != http.StatusOK {
		return resp
	}
	if !loginForm.Match(body) || resp.Header.Get("Cache-Control") != "no-store" {
		t.Fatalf("the page of a login link: %s %v\n%s", resp.Status, resp.Header, body)
	}
	resp, _ = do("POST")
	return resp
}

// login adds a user (who greets the bot with /web) and logs them in through the link: a
// browser with the session cookie and the CSRF token.
func (e *env) login(t *testing.T, user int64, name string) *client {
	t.Helper()
	e.User(user, name, "en")
	resp := redeem(t, e.link(t, user))
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/games" {
		t.Fatalf("login: %s to %q", resp.Status, resp.Header.Get("Location"))
	}
	c := &client{e: e}
	for _, ck := range resp.Cookies() {
		if ck.Name == web.CookieName {
			c.cookie = ck.Value
			if !ck.HttpOnly || ck.SameSite != http.SameSiteLaxMode || ck.Path != "/" || ck.Secure {
				t.Errorf("the session cookie: %+v", ck)
			}
		}
	}
	if c.cookie == "" {
		t.Fatalf("login set no session cookie: %v", resp.Header)
	}
	var me struct {
		User struct {
			ID   int64  `json:"id"`
			Name string `json:"name"`
		} `json:"user"`
		CSRF string `json:"csrf"`
	}
	c.must(t, "GET", "/api/v1/me", nil, http.StatusOK, &me)
	if me.User.ID != user || me.User.Name != name || me.CSRF == "" {
		t.Fatalf("/api/v1/me: %+v", me)
	}
	c.csrf = me.CSRF
	return c
}

// call makes an API call with the client's credentials (a JSON body when body is not nil)
// and returns the status, the headers and the body.
func (c *client) call(t *testing.T, method, path string, body any) (int, http.Header, []byte) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		raw, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, c.e.srv.URL+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.cookie != "" {
		req.AddCookie(&http.Cookie{Name: web.CookieName, Value: c.cookie})
	}
	if c.csrf != "" && method == "POST" {
		req.Header.Set("X-CSRF-Token", c.csrf)
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	for k, v := range c.header {
		req.Header[k] = v
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header, data
}

// must makes a call that must answer status, and decodes its JSON answer into out (when not
// nil).
func (c *client) must(t *testing.T, method, path string, body any, status int, out any) {
	t.Helper()
	got, _, data := c.call(t, method, path, body)
	if got != status {
		t.Fatalf("%s %s: %d %s, want %d", method, path, got, data, status)
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			t.Fatalf("%s %s: %v in %s", method, path, err, data)
		}
	}
}

// apiError is the error answer of the API.
type apiError struct {
	Error struct {
		Code    string   `json:"code"`
		Message string   `json:"message"`
		Legal   []string `json:"legal"`
	} `json:"error"`
}

// refused makes a call that must fail with status and code, and returns the error.
func (c *client) refused(t *testing.T, method, path string, body any, status int, code string) apiError {
	t.Helper()
	var ae apiError
	c.must(t, method, path, body, status, &ae)
	if ae.Error.Code != code || ae.Error.Message == "" {
		t.Fatalf("%s %s: error %+v, want code %s", method, path, ae.Error, code)
	}
	return ae
}

// state reads a game.
func (c *client) state(t *testing.T, id int64) web.GameState {
	t.Helper()
	var st web.GameState
	c.must(t, "GET", fmt.Sprintf("/api/v1/games/%d", id), nil, http.StatusOK, &st)
	return st
}

// text waits for a bot message with want after after in a user's chat.
func (e *env) text(t *testing.T, user int64, after int, want string) tgemu.Message {
	t.Helper()
	return e.WaitTextAfter(t, user, after, want)
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

// board reads a board as the store has it.
func (e *env) board(t *testing.T, id int64) *board.Board {
	t.Helper()
	var bd *board.Board
	err := pgx.BeginTxFunc(context.Background(), e.Pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead}, func(tx pgx.Tx) error {
		var err error
		bd, err = e.app.Boards.Store(tx).Get(context.Background(), id)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return bd
}
