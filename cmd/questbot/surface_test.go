package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/questbot/questbot/bot/boards/web"
	"github.com/questbot/questbot/bot/emulator/tgemu"
	"github.com/questbot/questbot/bot/testkit/wait"
	"github.com/questbot/questbot/bot/texts"
	"github.com/questbot/questbot/migrations/pgtest"
)

// # The whole product as a user reaches it
//
// TestServeSurfaces runs the server as `questbot serve` builds it (Server.Run, the built-in
// emulator, no BOT_TOKEN) and walks what a user can reach, as users reach it: Telegram's users of
// the emulator send every command of the bot's menu in both languages, type an inline query,
// play a game in a group by buttons, open a game's page as a Mini App, and play a tournament from
// its creation to the final standings; the web game server's pages and API calls are requested,
// each of them, with the login a user gets from /web and without one. It runs once with
// PUBLIC_URL empty and once with PUBLIC_URL set to the server's own loopback address (a local
// trial), each in a server of its own.
//
// The waits bound hangs only (surfaceWait); nothing in the walk asserts how fast anything is.

// surfaceWait bounds every wait of the walk: a hang's bound, for the race detector on a busy
// machine.
const surfaceWait = wait.Hang

// The walk's users: Ann is an admin (ADMINS), who creates the tournament; Ivan speaks Russian.
const (
	surfAnn   = 8101
	surfBob   = 8102
	surfIvan  = 8103
	surfGroup = -8100
)

// surface is one server of the walk.
type surface struct {
	t *testing.T
	r *running
	// base is where the test reaches the server; public is the address the bot gives users
	// (PUBLIC_URL, or the listener's).
	base, public string
	b            *tgemu.Bot
	pool         *pgxpool.Pool
}

func TestServeSurfaces(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"public-url-empty", "public-url-loopback"} {
		t.Run(mode, func(t *testing.T) {
			// Each walk has a server, a database and an emulator of its own.
			t.Parallel()
			cfg := testConfig(t)
			cfg.DatabaseURL = pgtest.ConnString(t)
			cfg.Admins = []int64{surfAnn}
			if mode == "public-url-loopback" {
				// PUBLIC_URL must be known before the start: a port free a moment ago.
				ln, err := net.Listen("tcp", "127.0.0.1:0")
				if err != nil {
					t.Fatal(err)
				}
				cfg.HTTPAddr = ln.Addr().String()
				ln.Close()
				cfg.PublicURL = "http://" + cfg.HTTPAddr
			}
			s := startSurface(t, cfg)
			s.walk()
		})
	}
}

// startSurface starts the server with cfg and waits until its bot runs.
func startSurface(t *testing.T, cfg Config) *surface {
	t.Helper()
	r := startServer(t, cfg)
	waitHealthy(t, r, surfaceWait)
	select {
	case <-r.srv.started:
	case <-time.After(surfaceWait):
		t.Fatalf("the transport did not start\n%s", r.logs)
	}
	pool, err := pgxpool.New(context.Background(), cfg.DatabaseURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	s := &surface{t: t, r: r, base: "http://" + r.addr, public: r.srv.publicURL, b: r.srv.emuBot, pool: pool}
	s.b.AddUser(tgbotapi.User{ID: surfAnn, FirstName: "Ann", LanguageCode: "en"})
	s.b.AddUser(tgbotapi.User{ID: surfBob, FirstName: "Bob", LanguageCode: "en"})
	s.b.AddUser(tgbotapi.User{ID: surfIvan, FirstName: "Иван", LanguageCode: "ru"})
	return s
}

// walk walks every surface in turn, in one server: each step uses what the ones before made (the
// logins, a game, a tournament).
func (s *surface) walk() {
	t := s.t
	t.Run("menu", s.menu)
	if t.Failed() {
		return
	}
	ann, bob := s.login(t, surfAnn), s.login(t, surfBob)
	t.Run("inline", func(t *testing.T) { s.inline(t) })
	t.Run("group", func(t *testing.T) { s.group(t) })
	game := s.game(t, ann, bob)
	t.Run("miniapp", func(t *testing.T) { s.miniApp(t, game) })
	var tournament int64
	t.Run("tournament", func(t *testing.T) { tournament = s.tournament(t, ann, bob) })
	if tournament == 0 {
		t.Fatal("the walk has no tournament for the routes")
	}
	t.Run("routes", func(t *testing.T) { s.routes(t, s.login(t, surfBob), game, tournament) })
	s.noFailures()
}

// waitFor waits for cond, failing with the server's log after surfaceWait.
func (s *surface) waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	wait.ForShowing(t, surfaceWait, what, cond, s.r.logs.String)
}

// answerTo sends text in user's private chat and returns the bot's first message after it.
func (s *surface) answerTo(t *testing.T, user int64, text string) tgemu.Message {
	t.Helper()
	sent, err := s.b.SendText(user, text)
	if err != nil {
		t.Fatalf("%s: %v", text, err)
	}
	var answer tgemu.Message
	s.waitFor(t, "the answer to "+text, func() bool {
		for _, m := range s.b.Messages(user) {
			if m.FromBot && m.ID > sent {
				answer = m
				return true
			}
		}
		return false
	})
	return answer
}

// failed reports whether a bot's text is one that says a command failed or is not there.
func failed(text string) bool {
	for _, lang := range []string{"en", "ru"} {
		c := texts.For(lang)
		for _, bad := range []string{c.Bot.Failure, c.Tree.Unknown, c.Tree.Unavailable} {
			if strings.Contains(text, bad) {
				return true
			}
		}
	}
	return false
}

// promisedCommands are the commands of the menu that docs/players.md documents.
var promisedCommands = []string{"quest", "games", "mygames", "rating", "top", "tournaments", "notify", "web", "lang", "help"}

// menu sends every command of the bot's menu, as Telegram shows it in English and in Russian,
// in a private chat: each is answered, never with the failure apology nor as an unknown or
// unavailable command. An admin's menu (a chat's own) is walked by the admin too.
func (s *surface) menu(t *testing.T) {
	s.waitFor(t, "the command menus", func() bool {
		return len(s.b.Commands("")) > 0 && len(s.b.Commands("ru")) > 0
	})
	for _, c := range []struct {
		user int64
		menu []tgbotapi.BotCommand
	}{
		{surfBob, s.b.Commands("")},
		{surfIvan, s.b.Commands("ru")},
		{surfAnn, s.b.ChatCommands(surfAnn, "")},
	} {
		for _, cmd := range c.menu {
			m := s.answerTo(t, c.user, "/"+cmd.Command)
			if failed(m.Text) {
				t.Errorf("user %d's /%s (%q): %q", c.user, cmd.Command, cmd.Description, m.Text)
			}
		}
	}
	// The commands docs/players.md promises are in both menus.
	for _, lang := range []string{"", "ru"} {
		var names []string
		for _, c := range s.b.Commands(lang) {
			names = append(names, c.Command)
		}
		for _, want := range promisedCommands {
			if !slices.Contains(names, want) {
				t.Errorf("the menu (%q) has no /%s: %v", lang, want, names)
			}
		}
	}
}

// noFailures checks every chat of the walk for a message that says something failed.
func (s *surface) noFailures() {
	for _, chat := range []int64{surfAnn, surfBob, surfIvan, surfGroup} {
		for _, m := range s.b.Messages(chat) {
			if m.FromBot && failed(m.Text) {
				s.t.Errorf("chat %d: %q", chat, m.Text)
			}
		}
	}
}

// webUser is a user logged in to the web game server, as a browser is: the session cookie and
// the session's CSRF token.
type webUser struct {
	s      *surface
	cookie *http.Cookie
	csrf   string
}

// noRedirect is a client that shows redirects as they are.
var noRedirect = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// loginLink sends /web as user and returns the login link the bot gives.
func (s *surface) loginLink(t *testing.T, user int64) string {
	t.Helper()
	linkRE := regexp.MustCompile(regexp.QuoteMeta(s.public) + `/login/[A-Za-z0-9_-]{16,}`)
	sent, err := s.b.SendText(user, "/web")
	if err != nil {
		t.Fatal(err)
	}
	var link string
	s.waitFor(t, "the login link", func() bool {
		for _, m := range s.b.Messages(user) {
			if m.FromBot && m.ID > sent && linkRE.MatchString(m.Text) {
				link = linkRE.FindString(m.Text)
				return true
			}
		}
		return false
	})
	// The test reaches the server at its listener, which PUBLIC_URL names or not.
	return s.base + strings.TrimPrefix(link, s.public)
}

// login logs user in as a browser does: /web's link, its page, and the page's POST (a server
// whose link logs in at once answers the GET with the cookie).
func (s *surface) login(t *testing.T, user int64) *webUser {
	t.Helper()
	link := s.loginLink(t, user)
	resp, err := noRedirect.Get(link)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode == http.StatusOK {
		req, _ := http.NewRequest("POST", link, nil)
		req.Header.Set("Origin", s.base)
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		if resp, err = noRedirect.Do(req); err != nil {
			t.Fatal(err)
		}
		body, _ = io.ReadAll(resp.Body)
		resp.Body.Close()
	}
	if resp.StatusCode != http.StatusSeeOther || len(resp.Cookies()) != 1 {
		t.Fatalf("the login link of user %d: %s %v %.300s", user, resp.Status, resp.Cookies(), body)
	}
	u := &webUser{s: s, cookie: resp.Cookies()[0]}
	var me struct {
		User struct {
			ID int64 `json:"id"`
		} `json:"user"`
		CSRF string `json:"csrf"`
	}
	u.must(t, "GET", "/api/v1/me", "", http.StatusOK, &me)
	if me.User.ID != user || me.CSRF == "" {
		t.Fatalf("/api/v1/me of user %d: %+v", user, me)
	}
	u.csrf = me.CSRF
	return u
}

// request sends a request as u (nil: nobody logged in) and returns its status, its body (not read
// for an event stream, which never ends) and its content type.
func (s *surface) request(t *testing.T, u *webUser, method, path, body string) (int, []byte, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), surfaceWait)
	defer cancel()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, s.base+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if u != nil {
		req.AddCookie(u.cookie)
		req.Header.Set("X-CSRF-Token", u.csrf)
	}
	resp, err := noRedirect.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	ct := resp.Header.Get("Content-Type")
	if strings.HasPrefix(ct, "text/event-stream") {
		return resp.StatusCode, nil, ct
	}
	data, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, data, ct
}

// must sends a request as u, checks its status and decodes its JSON answer into out (if set).
func (u *webUser) must(t *testing.T, method, path, body string, want int, out any) {
	t.Helper()
	code, data, _ := u.s.request(t, u, method, path, body)
	if code != want {
		t.Fatalf("%s %s: %d %.300s; want %d", method, path, code, data, want)
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			t.Fatalf("%s %s: %v in %.300s", method, path, err, data)
		}
	}
}

// surfGame is what the walk reads of a game's state.
type surfGame struct {
	ID     int64  `json:"id"`
	Status string `json:"status"`
	Seat   int    `json:"seat"`
	ToMove int    `json:"to_move"`
	Ply    int    `json:"ply"`
	Legal  []struct {
		Text string `json:"text"`
	} `json:"legal"`
}

// state is a game as u sees it.
func (u *webUser) state(t *testing.T, id int64) surfGame {
	t.Helper()
	var g surfGame
	u.must(t, "GET", fmt.Sprintf("/api/v1/games/%d", id), "", http.StatusOK, &g)
	return g
}

// inline types "@bot chess" in the group and picks the first result: the results are ones the
// emulator accepts (text boards, or photos it could fetch), and the chosen one is posted. With
// PUBLIC_URL empty, no result is a photo at an address only this machine reaches.
func (s *surface) inline(t *testing.T) {
	if err := s.b.AddGroup(surfGroup, "Club", surfAnn, surfBob); err != nil {
		t.Fatal(err)
	}
	qid, err := s.b.InlineQuery(surfAnn, surfGroup, "chess")
	if err != nil {
		t.Fatal(err)
	}
	var results []tgemu.InlineResult
	s.waitFor(t, "the answer to the inline query", func() bool {
		var ok bool
		results, ok = s.b.InlineAnswer(qid)
		return ok
	})
	if len(results) == 0 {
		t.Fatal("no inline results for chess")
	}
	for _, r := range results {
		if r.Type != "article" && r.Type != "photo" {
			t.Errorf("inline result %s is a %s", r.ID, r.Type)
		}
		if s.r.srv.Config.PublicURL == "" && r.PhotoURL != "" {
			t.Errorf("with PUBLIC_URL empty, inline result %s is a photo at %s", r.ID, r.PhotoURL)
		}
	}
	inlineID, _, err := s.b.ChooseInlineResult(qid, results[0].ID)
	if err != nil {
		t.Fatalf("choosing %s: %v", results[0].ID, err)
	}
	m, ok := s.b.InlineMessage(inlineID)
	if !ok || !m.ViaBot || !strings.Contains(m.Text, "Ann") {
		t.Fatalf("the chosen result: %v %+v", ok, m)
	}
	s.localPhotos(t, inlineID)
}

// localPhotos checks that the emulator refuses, as Telegram does, a photo at an address only
// this machine or a private network reaches, unless the operator set it as PUBLIC_URL: the bot
// edits the media of its inline message (the Bot API's editMessageMedia) with such URLs.
func (s *surface) localPhotos(t *testing.T, inlineID string) {
	const picture = "/api/v1/variants/chess/picture.png"
	edit := func(photo string) (bool, string) {
		t.Helper()
		media, _ := json.Marshal(map[string]string{"type": "photo", "media": photo})
		resp, err := http.PostForm(s.base+"/bot"+s.b.Token()+"/editMessageMedia",
			url.Values{"inline_message_id": {inlineID}, "media": {string(media)}})
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var answer struct {
			OK          bool   `json:"ok"`
			Description string `json:"description"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&answer); err != nil {
			t.Fatal(err)
		}
		return answer.OK, answer.Description
	}
	refused := []string{"http://10.1.2.3/board.png", "http://127.0.0.1:1/board.png", "http://localhost:1/board.png"}
	if s.r.srv.Config.PublicURL == "" {
		// The server's own address, which it gives users when PUBLIC_URL is empty: Telegram
		// could not fetch it.
		refused = append(refused, s.base+picture)
	} else if ok, why := edit(s.r.srv.Config.PublicURL + picture); !ok {
		t.Errorf("a photo under PUBLIC_URL (%s) refused: %s", s.r.srv.Config.PublicURL, why)
	}
	for _, photo := range refused {
		if ok, why := edit(photo); ok || !strings.Contains(why, "HTTP URL") {
			t.Errorf("a photo at %s: ok %v, %q; want it refused as Telegram refuses it", photo, ok, why)
		}
	}
}

// groupMessage returns the group's message id as the group shows it.
func (s *surface) groupMessage(t *testing.T, id int) tgemu.Message {
	t.Helper()
	for _, m := range s.b.Messages(surfGroup) {
		if m.ID == id {
			return m
		}
	}
	t.Fatalf("the group has no message %d", id)
	return tgemu.Message{}
}

// tapGroup presses the button labelled label of the group's message id as user and waits until
// the message changes.
func (s *surface) tapGroup(t *testing.T, user int64, id int, label string) tgemu.Message {
	t.Helper()
	before := s.groupMessage(t, id)
	data := before.Button(label)
	if data == "" {
		t.Fatalf("the group's message has no button %q:\n%s\n%v", label, before.Text, before.Keyboard)
	}
	if _, err := s.b.PressGroup(surfGroup, user, id, data); err != nil {
		t.Fatal(err)
	}
	var m tgemu.Message
	s.waitFor(t, "the group's message after "+label, func() bool {
		m = s.groupMessage(t, id)
		return m.Text != before.Text || fmt.Sprint(m.Keyboard) != fmt.Sprint(before.Keyboard) || m.Photo != before.Photo
	})
	return m
}

// group plays a game in a group: /games chess there, a clock chosen, the challenge accepted by
// the other member, and a move of each by the buttons of the one message.
func (s *surface) group(t *testing.T) {
	sent, err := s.b.SendGroupText(surfGroup, surfAnn, "/games chess")
	if err != nil {
		t.Fatal(err)
	}
	var question tgemu.Message
	s.waitFor(t, "the choice of a clock", func() bool {
		for _, m := range s.b.Messages(surfGroup) {
			if m.FromBot && m.ID > sent && m.Button("no clock") != "" {
				question = m
				return true
			}
		}
		return false
	})
	id := question.ID
	if m := s.tapGroup(t, surfAnn, id, "no clock"); m.Button("✅ Join") == "" {
		t.Fatalf("the challenge:\n%s\n%v", m.Text, m.Keyboard)
	}
	m := s.tapGroup(t, surfBob, id, "✅ Join")
	name := map[int64]string{surfAnn: "Ann", surfBob: "Bob"}
	white, black := int64(surfAnn), int64(surfBob)
	if strings.Contains(m.Text, "Bob to move") {
		white, black = black, white
	}
	if !strings.Contains(m.Text, name[white]+" to move") {
		t.Fatalf("the board at the start:\n%s", m.Text)
	}
	for _, mv := range []struct {
		who      int64
		from, to string
	}{{white, "e2", "e4"}, {black, "e7", "e5"}} {
		s.tapGroup(t, mv.who, id, mv.from)
		m = s.tapGroup(t, mv.who, id, mv.to)
		next := black
		if mv.who == black {
			next = white
		}
		if !strings.Contains(m.Text, name[next]+" to move") {
			t.Fatalf("after %s-%s:\n%s", mv.from, mv.to, m.Text)
		}
	}
}

// game makes a game of Ann and Bob through the API, open to spectators, and returns it.
func (s *surface) game(t *testing.T, ann, bob *webUser) int64 {
	var created struct {
		ID int64 `json:"id"`
	}
	ann.must(t, "POST", "/api/v1/games", `{"variant":"chess","control":"corr1d"}`, http.StatusCreated, &created)
	bob.must(t, "POST", fmt.Sprintf("/api/v1/games/%d/join", created.ID), "{}", http.StatusOK, nil)
	if g := bob.state(t, created.ID); g.Status != "active" {
		t.Fatalf("the game after Bob's join: %+v", g)
	}
	// Open to spectators: the routes' walk without a login reads it.
	bob.must(t, "POST", fmt.Sprintf("/api/v1/games/%d/spectators", created.ID), `{"allow":true}`, http.StatusOK, nil)
	return created.ID
}

// miniApp opens the page of game from Bob's board in Telegram as a Mini App: the page's address
// answers, and its signed data logs Bob in.
func (s *surface) miniApp(t *testing.T, game int64) {
	label := texts.For("en").Board.Open
	var board tgemu.Message
	s.waitFor(t, "Bob's board with its Mini App button", func() bool {
		for _, m := range s.b.Messages(surfBob) {
			if m.FromBot && hasWebApp(m, label) {
				board = m
				return true
			}
		}
		return false
	})
	opened, err := s.b.OpenWebApp(surfBob, board.ID, label)
	if err != nil {
		t.Fatal(err)
	}
	page, frag, _ := strings.Cut(opened, "#")
	params, err := url.ParseQuery(frag)
	if err != nil || params.Get("tgWebAppData") == "" {
		t.Fatalf("the Mini App's address %q: %v", opened, err)
	}
	if !strings.HasPrefix(page, s.public+"/") || !strings.Contains(page, strconv.FormatInt(game, 10)) {
		t.Errorf("the Mini App opens %s, not the game's page at %s", page, s.public)
	}
	if code, body, _ := s.request(t, nil, "GET", strings.TrimPrefix(page, s.public), ""); code != http.StatusOK {
		t.Errorf("the Mini App's page %s: %d %.200s", page, code, body)
	}
	login, _ := json.Marshal(map[string]string{"init_data": params.Get("tgWebAppData")})
	resp, err := http.Post(s.base+"/api/v1/miniapp/login", "application/json", bytes.NewReader(login))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || len(resp.Cookies()) != 1 {
		t.Fatalf("the Mini App's login: %s %v %.300s", resp.Status, resp.Cookies(), body)
	}
	var me struct {
		User struct {
			ID int64 `json:"id"`
		} `json:"user"`
		CSRF string `json:"csrf"`
	}
	app := &webUser{s: s, cookie: resp.Cookies()[0]}
	app.must(t, "GET", "/api/v1/me", "", http.StatusOK, &me)
	if me.User.ID != surfBob {
		t.Errorf("the Mini App logged in user %d, want Bob", me.User.ID)
	}
}

// hasWebApp reports whether m has a Mini App button labelled label.
func hasWebApp(m tgemu.Message, label string) bool {
	for _, row := range m.Keyboard {
		for _, b := range row {
			if b.Text == label && b.WebApp != "" {
				return true
			}
		}
	}
	return false
}

// surfTournament is what the walk reads of a tournament.
type surfTournament struct {
	State     string `json:"state"`
	Standings []struct {
		Rank   int     `json:"rank"`
		Player int     `json:"player"`
		Name   string  `json:"name"`
		Score  float64 `json:"score"`
	} `json:"standings"`
	Pairings []struct {
		Game  int64 `json:"game"`
		White int   `json:"white"`
		Black int   `json:"black"`
	} `json:"pairings"`
}

// tournament has Ann (an admin) create a round robin of chess with /tournament, Ann and Bob join
// through the API, and plays its one game to the end (a move, then a resignation): the final
// standings rank the winner first, and each player is told the end in Telegram. The start,
// a minute after the creation at the soonest, is moved to now in the database, so that the walk
// does not wait for it. It returns the tournament.
func (s *surface) tournament(t *testing.T, ann, bob *webUser) int64 {
	// Other messages may come meanwhile (the boards of Ann's games): the answer is the one that
	// says the tournament was created.
	const create = "/tournament new roundrobin chess 5+0 in 1"
	sent, err := s.b.SendText(surfAnn, create)
	if err != nil {
		t.Fatal(err)
	}
	createdRE := regexp.MustCompile(`Tournament #(\d+) created`)
	var match []string
	s.waitFor(t, "the answer to "+create, func() bool {
		for _, m := range s.b.Messages(surfAnn) {
			if m.FromBot && m.ID > sent {
				if match = createdRE.FindStringSubmatch(m.Text); match != nil {
					return true
				}
			}
		}
		return false
	})
	id, _ := strconv.ParseInt(match[1], 10, 64)
	path := fmt.Sprintf("/api/v1/tournaments/%d", id)
	ann.must(t, "POST", path+"/join", "{}", http.StatusOK, nil)
	bob.must(t, "POST", path+"/join", "{}", http.StatusOK, nil)
	if _, err := s.pool.Exec(context.Background(), `UPDATE tournament SET starts_at = now() WHERE id = $1`, id); err != nil {
		t.Fatal(err)
	}
	// The database is polled, not the API, which limits the rate of a user's calls.
	s.waitFor(t, "the tournament's start", func() bool { return s.tournamentState(t, id) == "running" })
	var tt surfTournament
	ann.must(t, "GET", path, "", http.StatusOK, &tt)
	if tt.State != "running" || len(tt.Pairings) != 1 || tt.Pairings[0].Game == 0 {
		t.Fatalf("the tournament at its start: %+v", tt)
	}
	game := tt.Pairings[0].Game
	// The pairings name the players by their numbers of the standings.
	names := map[int]string{}
	for _, st := range tt.Standings {
		names[st.Player] = st.Name
	}
	whiteName, blackName := names[tt.Pairings[0].White], names[tt.Pairings[0].Black]
	players := map[string]*webUser{"Ann": ann, "Bob": bob}
	white, black := players[whiteName], players[blackName]
	if white == nil || black == nil || white == black {
		t.Fatalf("the pairing %+v of the standings %+v", tt.Pairings, tt.Standings)
	}
	g := white.state(t, game)
	if g.Status != "active" || g.Seat != g.ToMove || len(g.Legal) == 0 {
		t.Fatalf("the tournament's game as White sees it: %+v", g)
	}
	white.must(t, "POST", fmt.Sprintf("/api/v1/games/%d/moves", game), fmt.Sprintf(`{"move":%q,"ply":0}`, g.Legal[0].Text), http.StatusOK, nil)
	black.must(t, "POST", fmt.Sprintf("/api/v1/games/%d/resign", game), `{"ply":1}`, http.StatusOK, nil)
	s.waitFor(t, "the tournament's end", func() bool { return s.tournamentState(t, id) == "finished" })
	ann.must(t, "GET", path, "", http.StatusOK, &tt)
	if tt.State != "finished" {
		t.Fatalf("the tournament at its end: %+v", tt)
	}
	if len(tt.Standings) != 2 || tt.Standings[0].Rank != 1 || tt.Standings[0].Name != whiteName ||
		tt.Standings[0].Score != 1 || tt.Standings[1].Name != blackName || tt.Standings[1].Score != 0 {
		t.Errorf("the final standings: %+v", tt.Standings)
	}
	// Each player is told the end in Telegram (the standings message, final).
	for _, u := range []int64{surfAnn, surfBob} {
		s.waitFor(t, fmt.Sprintf("user %d told of the tournament's end", u), func() bool {
			for _, m := range s.b.Messages(u) {
				if m.FromBot && strings.Contains(m.Text, fmt.Sprintf("#%d", id)) && strings.Contains(strings.ToLower(m.Text), "final") {
					return true
				}
			}
			return false
		})
	}
	return id
}

// tournamentState is the state of tournament id in the database.
func (s *surface) tournamentState(t *testing.T, id int64) string {
	t.Helper()
	var state string
	if err := s.pool.QueryRow(context.Background(), `SELECT state FROM tournament WHERE id = $1`, id).Scan(&state); err != nil {
		t.Fatal(err)
	}
	return state
}

// promisedRoutes are the web game server's pages and calls that docs/web-api.md documents and the
// pages use.
var promisedRoutes = []string{
	"GET /login/{ticket}",
	"POST /login/{ticket}",
	"POST /api/v1/miniapp/login",
	"POST /logout",
	"POST /logout/all",
	"GET /api/v1/me",
	"GET /api/v1/variants",
	"GET /api/v1/games",
	"GET /api/v1/games/waiting",
	"POST /api/v1/games",
	"GET /api/v1/games/{id}",
	"POST /api/v1/games/{id}/join",
	"POST /api/v1/games/{id}/moves",
	"POST /api/v1/games/{id}/undo",
	"POST /api/v1/games/{id}/resign",
	"POST /api/v1/games/{id}/draw",
	"POST /api/v1/games/{id}/seen",
	"POST /api/v1/games/{id}/spectators",
	"GET /api/v1/games/{id}/export",
	"GET /api/v1/games/{id}/events",
	"GET /api/v1/events",
	"GET /api/v1/games/{id}/picture.png",
	"GET /api/v1/games/{id}/picture.jpg",
	"GET /api/v1/variants/{variant}/picture.png",
	"GET /api/v1/variants/{variant}/picture.jpg",
	"GET /api/v1/top/{game}",
	"GET /api/v1/me/rating.png",
	"GET /api/v1/tournaments",
	"GET /api/v1/tournaments/{id}",
	"POST /api/v1/tournaments/{id}/join",
	"POST /api/v1/tournaments/{id}/leave",
	"GET /api/v1/tournaments/{id}/events",
	"GET /tournaments/{id}",
	"GET /games",
	"GET /top",
	"GET /static/",
}

// routes requests every route of the web game server, its wildcards filled with what the walk
// made (the game, the tournament, the game's name, a static file the lobby uses, a fresh login
// link): first without a login, where a call that needs one answers 401 or 403; then as u, where
// every page answers 200 and no route 404, 405 or a server error. The logouts come last, as a
// user's would.
func (s *surface) routes(t *testing.T, u *webUser, game, tournament int64) {
	_, lobby, _ := s.request(t, u, "GET", "/games", "")
	static := regexp.MustCompile(`/static/([A-Za-z0-9_.-]+)`).FindSubmatch(lobby)
	if static == nil {
		t.Fatalf("the lobby links no static file:\n%.500s", lobby)
	}
	// The web view's own list: a route added there is walked here too; and the routes the
	// docs/web-api.md promises must be in it.
	patterns := web.Patterns()
	for _, p := range promisedRoutes {
		if !slices.Contains(patterns, p) {
			t.Errorf("the web game server has no route %s", p)
		}
	}
	// The logouts end the session: last.
	slices.SortStableFunc(patterns, func(a, b string) int {
		return strings.Count(a, "/logout") - strings.Count(b, "/logout")
	})
	fill := func(p string) (method, path string) {
		method, path, ok := strings.Cut(p, " ")
		if !ok {
			method, path = "GET", p
		}
		id := game
		if strings.Contains(path, "/tournaments/") {
			id = tournament
		}
		if strings.Contains(path, "{ticket}") {
			path = strings.TrimPrefix(s.loginLink(t, surfIvan), s.base)
		}
		path = strings.NewReplacer("{id}", strconv.FormatInt(id, 10), "{game}", "chess", "{variant}", "chess",
			"{file...}", string(static[1])).Replace(path)
		switch path { // a prefix pattern: the page under it
		case "/play/":
			path += strconv.FormatInt(game, 10)
		case "/top/":
			path += "chess"
		case "/static/":
			path += string(static[1])
		case "/api/v1/events": // the stream of what it names: the game and the tournament
			path += fmt.Sprintf("?game=%d&tournament=%d", game, tournament)
		}
		return method, path
	}
	body := func(method string) string {
		if method == "POST" {
			return "{}"
		}
		return ""
	}
	// A catch-all (a pattern that ends in "/" and is no page) answers what it does not know as
	// the game server, not as the web chat beside it.
	catchAll := func(t *testing.T, p, path string, u *webUser) bool {
		if !strings.HasSuffix(path, "/") {
			return false
		}
		code, data, _ := s.request(t, u, "GET", path+"nothing", "")
		if code != http.StatusNotFound || !strings.Contains(string(data), `"not_found"`) {
			t.Errorf("%s (GET %snothing): %d %.200s; want the game server's 404", p, path, code, data)
		}
		return true
	}
	// Without a login: the API's calls that need one refuse, the rest answer.
	for _, p := range patterns {
		method, path := fill(p)
		if catchAll(t, p, path, nil) {
			continue
		}
		code, data, _ := s.request(t, nil, method, path, body(method))
		switch {
		case code == http.StatusNotFound || code == http.StatusMethodNotAllowed || code >= 500:
			t.Errorf("%s (%s %s) without a login: %d %.200s", p, method, path, code, data)
		case strings.HasPrefix(path, "/api/") && code != http.StatusUnauthorized && code != http.StatusForbidden &&
			code != http.StatusOK && code != http.StatusBadRequest:
			t.Errorf("%s (%s %s) without a login: %d %.200s", p, method, path, code, data)
		}
	}
	for _, p := range []string{"GET /api/v1/me", "GET /api/v1/games", "POST /api/v1/games", "POST /api/v1/games/{id}/resign",
		"POST /api/v1/tournaments/{id}/join"} {
		method, path := fill(p)
		if code, data, _ := s.request(t, nil, method, path, body(method)); code != http.StatusUnauthorized && code != http.StatusForbidden {
			t.Errorf("%s without a login: %d %.200s; want 401 or 403", p, code, data)
		}
	}
	// As u. Each logout ends the session: it comes last, with a session of its own.
	for _, p := range patterns {
		method, path := fill(p)
		if catchAll(t, p, path, u) {
			continue
		}
		if strings.Contains(path, "/logout") {
			u = s.login(t, surfBob)
		}
		code, data, ct := s.request(t, u, method, path, body(method))
		switch {
		case path == "/api/v1/miniapp/login":
			// Without Telegram's data the login is refused as such (the miniapp step logs in).
			if code != http.StatusUnauthorized || !strings.Contains(string(data), "miniapp_invalid") {
				t.Errorf("%s with no data: %d %.200s", p, code, data)
			}
		case code == http.StatusNotFound || code == http.StatusMethodNotAllowed || code >= 500 ||
			code == http.StatusUnauthorized:
			t.Errorf("%s (%s %s): %d %.200s", p, method, path, code, data)
		case method == "GET" && !strings.HasPrefix(path, "/login/") && code != http.StatusOK:
			t.Errorf("%s (%s %s): %d %.200s; want 200", p, method, path, code, data)
		case method == "GET" && !strings.HasPrefix(path, "/api/") && !strings.HasPrefix(path, "/static/") &&
			!strings.Contains(ct, "text/html"):
			t.Errorf("%s (%s %s): %s, want a page", p, method, path, ct)
		}
	}
	// The session ended with the logouts.
	if code, _, _ := s.request(t, u, "GET", "/api/v1/me", ""); code != http.StatusUnauthorized {
		t.Errorf("/api/v1/me after the logouts: %d", code)
	}
}
