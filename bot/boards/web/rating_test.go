package web_test

import (
	"bytes"
	"fmt"
	"image/png"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/questbot/questbot/bot/boards/web"
	"github.com/questbot/questbot/engine"
)

// top is the answer of GET /api/v1/top/{game}.
type top struct {
	Game        string     `json:"game"`
	Title       string     `json:"title"`
	Established []standing `json:"established"`
	Provisional []standing `json:"provisional"`
	Me          *standing  `json:"me"`
	Texts       map[string]string
}

type standing struct {
	Place       int     `json:"place"`
	Name        string  `json:"name"`
	Rating      float64 `json:"rating"`
	RD          float64 `json:"rd"`
	Games       int     `json:"games"`
	Program     bool    `json:"program"`
	Provisional bool    `json:"provisional"`
	Me          bool    `json:"me"`
}

// Ensure the leaderboard's JSON lists the established players in order (rating, then
// deviation, then id), the provisional ones apart, programs marked, and the caller's place, in
// the caller's words; it is the logged-in users' only, of a game the bot offers; and the page
// /top/<game> is served.
func TestTopAPI(t *testing.T) {
	t.Parallel()
	e := newEnv(t, web.Config{Pages: web.Pages()})
	ann := e.login(t, 1, "Ann")
	now := time.Now()
	for _, p := range []struct {
		id         int64
		name       string
		rating, rd float64
	}{
		{1, "Ann", 1550, 60}, {11, "Zed", 1700, 60}, {12, "Yan", 1700, 50}, {13, "Xia", 1800, 100},
		{14, "Wes", 2000, 200}, {15, "Robo", 1600, 70}, {16, "Vic", 1400, 300},
	} {
		e.Exec(t, `INSERT INTO users (id, chat_id, first_name) VALUES ($1, $1, $2) ON CONFLICT DO NOTHING`, p.id, p.name)
		e.Exec(t, `INSERT INTO board_stats (service_id, user_id, variant, played, won, rated, rating, deviation, rated_at, updated_at)
			VALUES ($1, $2, 'chess', 5, 5, 5, $3, $4, $5, $5)`, e.service, p.id, p.rating, p.rd, now)
	}
	e.Exec(t, `INSERT INTO web_api_token (hash, service_id, user_id, created_by, created_at) VALUES (sha256('robo'), $1, 15, 1, $2)`, e.service, now)

	var got top
	ann.must(t, "GET", "/api/v1/top/chess", nil, http.StatusOK, &got)
	names := func(list []standing) string {
		var out []string
		for i, s := range list {
			if s.Place != i+1 {
				t.Errorf("%s at place %d, listed %d", s.Name, s.Place, i+1)
			}
			out = append(out, s.Name)
		}
		return strings.Join(out, " ")
	}
	if n := names(got.Established); n != "Xia Yan Zed Robo Ann" {
		t.Errorf("established: %s", n)
	}
	if n := names(got.Provisional); n != "Wes Vic" {
		t.Errorf("provisional: %s", n)
	}
	if r := got.Established[3]; !r.Program || r.Rating != 1600 || r.RD < 70 || r.RD > 70.1 || r.Games != 5 || r.Provisional {
		t.Errorf("the program: %+v", r)
	}
	if got.Established[0].Program || !got.Provisional[0].Provisional {
		t.Errorf("marks: %+v, %+v", got.Established[0], got.Provisional[0])
	}
	if got.Me == nil || got.Me.Place != 5 || !got.Me.Me || got.Texts["place"] != "Your place: 5." ||
		got.Texts["heading"] != "Chess: the best players" || got.Title != "Chess" {
		t.Errorf("the caller: %+v, texts %v", got.Me, got.Texts)
	}
	ann.refused(t, "GET", "/api/v1/top/checkers", nil, http.StatusNotFound, "not_found")
	(&client{e: e}).refused(t, "GET", "/api/v1/top/chess", nil, http.StatusUnauthorized, "unauthorized")
	// A game nobody has a rating in.
	ann.must(t, "GET", "/api/v1/top/chase", nil, http.StatusOK, &got)
	if len(got.Established)+len(got.Provisional) != 0 || got.Me != nil || !strings.Contains(got.Texts["empty"], "Nobody") {
		t.Errorf("an empty leaderboard: %+v", got)
	}
	for _, path := range []string{"/top", "/top/chess"} {
		resp, err := http.Get(e.srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "/static/top.js?v=") {
			t.Errorf("%s: %s %.80s", path, resp.Status, body)
		}
	}
}

// Ensure the rating chart of the logged-in player is 404 before a rated game, and after one
// (played over the API) a PNG of the chart's size, revalidated by its ETag.
func TestRatingChartAPI(t *testing.T) {
	t.Parallel()
	e := newEnv(t, web.Config{})
	ann := e.login(t, 1, "Ann")
	boris := e.login(t, 2, "Boris")
	ann.refused(t, "GET", "/api/v1/me/rating.png", nil, http.StatusNotFound, "not_found")
	var created struct{ ID int64 }
	ann.must(t, "POST", "/api/v1/games", map[string]string{"variant": "chess", "control": "corr1d"}, http.StatusCreated, &created)
	boris.must(t, "POST", "/api/v1/games", map[string]string{"variant": "chess", "control": "corr1d"}, http.StatusCreated, &created)
	ann.must(t, "POST", fmt.Sprintf("/api/v1/games/%d/resign", created.ID), map[string]any{"ply": 0}, http.StatusOK, nil)
	code, hdr, data := ann.call(t, "GET", "/api/v1/me/rating.png", nil)
	if code != http.StatusOK || hdr.Get("Content-Type") != "image/png" || hdr.Get("ETag") == "" {
		t.Fatalf("the chart: %d %v", code, hdr)
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	f, err := engine.Chart{Series: []engine.Series{{Points: []engine.ChartPoint{{At: time.Now(), Value: 1500}}}}}.Frame()
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != engine.ChartWidth || b.Dy() != f.Height {
		t.Errorf("the chart is %v", b)
	}
	ann.header = http.Header{"If-None-Match": {hdr.Get("ETag")}}
	if code, _, _ := ann.call(t, "GET", "/api/v1/me/rating.png", nil); code != http.StatusNotModified {
		t.Errorf("revalidated: %d, want 304", code)
	}
	if n := e.QueryInt(t, `SELECT count(*) FROM board_rating_history WHERE board_id = $1`, created.ID); n != 2 {
		t.Errorf("%d rows of history", n)
	}
}
