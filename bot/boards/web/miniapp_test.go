package web_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/questbot/questbot/bot/boards/web"
	"github.com/questbot/questbot/bot/emulator/tgemu"
)

// miniAppData is the initData Telegram gives a Mini App opened by user at authDate, signed with
// token.
func miniAppData(token string, user int64, name string, authDate time.Time) string {
	u, _ := json.Marshal(map[string]any{"id": user, "first_name": name, "language_code": "en"})
	return tgemu.SignWebAppData(token, map[string]string{
		"query_id": "q" + strconv.FormatInt(authDate.UnixNano(), 36), "user": string(u),
		"auth_date": strconv.FormatInt(authDate.Unix(), 10)})
}

// miniAppLogin posts initData to the Mini App's login, as the page does (no cookie), and
// returns the status, a client with the session it opened (if any) and the answer.
func (e *env) miniAppLogin(t *testing.T, data string) (int, *client, []byte) {
	t.Helper()
	body, _ := json.Marshal(map[string]string{"init_data": data})
	resp, err := http.Post(e.srv.URL+"/api/v1/miniapp/login", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out bytes.Buffer
	out.ReadFrom(resp.Body)
	c := &client{e: e}
	for _, ck := range resp.Cookies() {
		if ck.Name == web.CookieName {
			c.cookie = ck.Value
			if !ck.HttpOnly || ck.SameSite != http.SameSiteLaxMode || ck.Path != "/" {
				t.Errorf("the session cookie: %+v", ck)
			}
		}
	}
	var me struct {
		CSRF string `json:"csrf"`
	}
	json.Unmarshal(out.Bytes(), &me)
	c.csrf = me.CSRF
	return resp.StatusCode, c, out.Bytes()
}

// Ensure a Mini App's user is logged in by the initData Telegram signed, and plays: Ann, who has
// talked to the bot, opens the page with her data and moves in a game against Bob. Data forged,
// signed by another bot, stale, dated in the future, replayed, malformed, or of a user the bot
// does not know is refused with 401 and its code, and opens no session.
func TestMiniAppLogin(t *testing.T) {
	t.Parallel()
	e := newEnv(t, web.Config{})
	token := e.Bot.Token()
	e.User(1, "Ann", "en")
	after := e.LastID(1)
	e.Send(t, 1, "/start")
	e.WaitMessage(t, 1, after, "the greeting", func(tgemu.Message) bool { return true })
	bob := e.login(t, 2, "Bob")
	e.User(3, "Cleo", "en") // in Telegram, but has never talked to the bot
	count := func(table string) int { return e.QueryInt(t, "SELECT count(*) FROM "+table) }

	now := e.clock.now()
	good := miniAppData(token, 1, "Ann", now.Add(-time.Hour))
	status, ann, body := e.miniAppLogin(t, good)
	if status != http.StatusOK || ann.cookie == "" || ann.csrf == "" {
		t.Fatalf("login: %d %s", status, body)
	}
	var me struct {
		User struct {
			ID   int64  `json:"id"`
			Name string `json:"name"`
		} `json:"user"`
		CSRF string `json:"csrf"`
	}
	ann.must(t, "GET", "/api/v1/me", nil, http.StatusOK, &me)
	if me.User.ID != 1 || me.User.Name != "Ann" || me.CSRF != ann.csrf {
		t.Fatalf("/api/v1/me: %+v (the login's CSRF %q)", me, ann.csrf)
	}

	// She plays: a game with Bob, a move through her session that reaches his board.
	var a, b struct{ ID int64 }
	ann.must(t, "POST", "/api/v1/games", map[string]string{"variant": "russian", "control": "corr1d"}, http.StatusCreated, &a)
	bob.must(t, "POST", "/api/v1/games", map[string]string{"variant": "russian", "control": "corr1d"}, http.StatusCreated, &b)
	if a.ID != b.ID {
		t.Fatalf("not paired: %d and %d", a.ID, b.ID)
	}
	move := func(c *client) {
		t.Helper()
		st := c.state(t, a.ID)
		c.must(t, "POST", fmt.Sprintf("/api/v1/games/%d/moves", a.ID), map[string]any{"move": st.Legal[0].Text, "ply": st.Ply}, http.StatusOK, nil)
	}
	if st := ann.state(t, a.ID); st.ToMove != st.Seat {
		move(bob)
	}
	move(ann)
	played := bob.state(t, a.ID)
	if played.Ply == 0 || played.ToMove != played.Seat {
		t.Fatalf("after Ann's move Bob sees %+v", played)
	}

	sessions, used := count("web_session"), count("web_app_data_used")
	cleo := miniAppData(token, 3, "Cleo", now)
	// Ann's data made Bob's: the user changed after signing.
	forged := strings.Replace(miniAppData(token, 1, "Ann", now.Add(-time.Minute)), "%22id%22%3A1%2C", "%22id%22%3A2%2C", 1)
	if !strings.Contains(forged, "%22id%22%3A2%2C") {
		t.Fatalf("the forgery did not take: %s", forged)
	}
	for _, c := range []struct {
		name, data, code string
	}{
		{"Replayed", good, "miniapp_replayed"},
		{"Forged", forged, "miniapp_forged"},
		{"OtherBot", miniAppData("654321:another-bot", 1, "Ann", now), "miniapp_forged"},
		{"Stale", miniAppData(token, 1, "Ann", now.Add(-web.MiniAppDataAge-time.Minute)), "miniapp_stale"},
		{"Future", miniAppData(token, 1, "Ann", now.Add(web.MiniAppSkew+time.Minute)), "miniapp_stale"},
		{"Missing", "", "miniapp_invalid"},
		{"Malformed", "user=1&user=2&hash=00", "miniapp_invalid"},
		{"UnknownUser", cleo, "miniapp_unknown_user"},
		{"NoSuchUser", miniAppData(token, 424242, "Nobody", now), "miniapp_unknown_user"},
	} {
		t.Run(c.name, func(t *testing.T) {
			status, got, body := e.miniAppLogin(t, c.data)
			var ae apiError
			json.Unmarshal(body, &ae)
			if status != http.StatusUnauthorized || ae.Error.Code != c.code || ae.Error.Message == "" || got.cookie != "" {
				t.Fatalf("got %d %s (cookie %q), want 401 %s", status, body, got.cookie, c.code)
			}
		})
	}
	if count("web_session") != sessions || count("web_app_data_used") != used {
		t.Errorf("the refusals changed the sessions (%d, was %d) or the data used (%d, was %d)",
			count("web_session"), sessions, count("web_app_data_used"), used)
	}
	if st := bob.state(t, a.ID); st.Ply != played.Ply {
		t.Errorf("the board moved on to ply %d, was %d", st.Ply, played.Ply)
	}
	// Cleo's data is good once she has talked to the bot.
	after = e.LastID(3)
	e.Send(t, 3, "/start")
	e.WaitMessage(t, 3, after, "the greeting", func(tgemu.Message) bool { return true })
	if status, _, body := e.miniAppLogin(t, cleo); status != http.StatusOK {
		t.Errorf("Cleo after /start: %d %s", status, body)
	}
}
