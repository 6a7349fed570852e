package web_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"

	"github.com/questbot/questbot/bot"
	"github.com/questbot/questbot/bot/boards"
	"github.com/questbot/questbot/bot/boards/web"
	"github.com/questbot/questbot/bot/emulator/tgemu"
	"github.com/questbot/questbot/bot/texts"
	"github.com/questbot/questbot/sessions/tournament"
)

// A program joins a tournament with its API token, sees its pairing once the tournament starts,
// and plays its game with the games' calls; the tournament's page and its live updates follow.
func TestTournamentAPI(t *testing.T) {
	t.Parallel()
	e := newEnv(t, web.Config{})
	hub := web.NewTournamentHub(e.Pool, e.Log())
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		hub.Run(ctx)
	}()
	t.Cleanup(func() { cancel(); <-done })
	e.cfg.Tournaments, e.cfg.TournamentEvents = e.app.Tournaments, hub
	e.serve()

	// The admin gives user 2 a token for a program; user 3 is a person.
	const admin, prog, person int64 = 1, 2, 3
	e.User(admin, "Ann", "en")
	e.User(prog, "Robo", "en")
	e.User(person, "Petra", "en")
	for _, u := range []int64{admin, prog, person} {
		after := e.LastID(u)
		e.Send(t, u, "/web")
		e.text(t, u, after, "/login/")
	}
	e.Exec(t, `UPDATE users SET is_admin = true WHERE id = 1`)
	after := e.LastID(admin)
	e.Send(t, admin, "/token 2 robo")
	tok := regexp.MustCompile(`qbt_[A-Za-z0-9_-]{43}`).FindString(e.text(t, admin, after, "API token #").Text)
	if tok == "" {
		t.Fatal("no token")
	}
	p := &client{e: e, token: tok}

	do := func(fn func(ctx context.Context, tx bot.Tx) error) { t.Helper(); e.do(t, fn) }
	var tt *tournament.Tournament
	do(func(ctx context.Context, tx bot.Tx) error {
		var err error
		tt, err = e.app.Tournaments.Create(ctx, tx, boards.Player{Service: e.service, User: admin}, true,
			boards.TournamentSpec{Variant: "russian", Control: "5+3", System: tournament.RoundRobinSystem,
				StartsAt: e.clock.now().Add(time.Minute)})
		return err
	})
	do(func(ctx context.Context, tx bot.Tx) error {
		return e.app.Tournaments.Join(ctx, tx, boards.Player{Service: e.service, User: person}, tt.ID, false)
	})

	var list struct {
		Tournaments []web.TournamentState `json:"tournaments"`
	}
	p.must(t, "GET", "/api/v1/tournaments", nil, http.StatusOK, &list)
	if len(list.Tournaments) != 1 || list.Tournaments[0].ID != tt.ID || list.Tournaments[0].Joined || list.Tournaments[0].Players != 1 {
		t.Fatalf("tournaments: %+v", list.Tournaments)
	}
	path := fmt.Sprintf("/api/v1/tournaments/%d", tt.ID)
	var ts web.TournamentState
	p.must(t, "POST", path+"/join", nil, http.StatusOK, &ts)
	if !ts.Joined || ts.Players != 2 {
		t.Fatalf("after the join: %+v", ts)
	}
	p.refused(t, "POST", path+"/join", nil, http.StatusConflict, "conflict")
	p.refused(t, "POST", "/api/v1/tournaments/999999/join", nil, http.StatusNotFound, "not_found")

	// The live updates: the first event asks for a fetch (a reset); the start is an event of the
	// record.
	req, err := http.NewRequest("GET", e.srv.URL+path+"/events", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+tok)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	events := make(chan string, 100)
	go func() {
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if line := sc.Text(); strings.HasPrefix(line, "data:") {
				events <- line
			}
		}
		close(events)
	}()
	first := <-events
	if !strings.Contains(first, fmt.Sprintf(`"id":%d`, tt.ID)) {
		t.Fatalf("first event %q", first)
	}

	e.clock.advance(2 * time.Minute)
	if err := e.app.Tournaments.Tournaments(context.Background(), boards.DoerOf(e.proc.Transport.Do)); err != nil {
		t.Fatal(err)
	}
	e.WaitFor(t, "an event of the start", func() bool {
		select {
		case ev := <-events:
			return strings.Contains(ev, fmt.Sprintf(`"tournament":%d,"kind":"started"`, tt.ID))
		default:
			return false
		}
	})

	p.must(t, "GET", path, nil, http.StatusOK, &ts)
	if ts.State != "running" || len(ts.Pairings) != 1 || ts.Pairings[0].Game == 0 || len(ts.Standings) != 2 {
		t.Fatalf("after the start: %+v", ts)
	}
	// The pairings name the players as the standings do, and the tournament's system, game
	// and clock are named in the language asked.
	if pr := ts.Pairings[0]; !(pr.WhiteName == "Petra" && pr.BlackName == "Robo" || pr.WhiteName == "Robo" && pr.BlackName == "Petra") {
		t.Errorf("the pairing's names: %+v", pr)
	}
	en := texts.For("en")
	if ts.SystemTitle != "Round robin" || ts.VariantTitle != en.Game("russian") || ts.ControlTitle != en.Control("5+3") {
		t.Errorf("the titles in English: %q %q %q", ts.SystemTitle, ts.VariantTitle, ts.ControlTitle)
	}
	var ru web.TournamentState
	(&client{e: e, header: http.Header{"Accept-Language": {"ru-RU,ru;q=0.9"}}}).must(t, "GET", path, nil, http.StatusOK, &ru)
	if ru.SystemTitle != texts.For("ru").Tournament().Systems["roundrobin"] || ru.VariantTitle != texts.For("ru").Game("russian") ||
		ru.ControlTitle != texts.For("ru").Control("5+3") || ru.VariantTitle == ts.VariantTitle {
		t.Errorf("the titles in Russian: %q %q %q", ru.SystemTitle, ru.VariantTitle, ru.ControlTitle)
	}
	game := ts.Pairings[0].Game
	for _, s := range ts.Standings {
		if s.Game != game || s.Program != s.Me {
			t.Fatalf("standing %+v, want game %d", s, game)
		}
	}
	// The program plays its game: the person moves first when they have white. The game names
	// its tournament and round.
	st := p.state(t, game)
	if st.Seat < 0 {
		t.Fatalf("the program has no seat in game %d", game)
	}
	if tg := st.Tournament; tg == nil || tg.ID != tt.ID || tg.System != "roundrobin" || tg.Round != 1 || tg.Rounds != 1 ||
		tg.Title != fmt.Sprintf("🏆 Tournament #%d, round 1 of 1", tt.ID) {
		t.Errorf("game %d's tournament: %+v", game, st.Tournament)
	}
	if st.ToMove != st.Seat {
		do(func(ctx context.Context, tx bot.Tx) error {
			h, err := e.app.Boards.Take(ctx, tx, boards.Player{Service: e.service, User: person}, game)
			if err != nil {
				return err
			}
			g, err := h.Board.Game()
			if err != nil {
				return err
			}
			return h.Act(ctx, boards.Action{Op: boards.OpMove, Move: g.LegalMoves()[0].String(), Ply: h.Board.Ply()})
		})
		st = p.state(t, game)
	}
	ply := st.Ply
	p.must(t, "POST", fmt.Sprintf("/api/v1/games/%d/moves", game), map[string]any{"move": st.Legal[0].Text, "ply": ply}, http.StatusOK, &st)
	if st.Ply != ply+1 {
		t.Fatalf("after the program's move: ply %d, want %d", st.Ply, ply+1)
	}
	// It resigns: the tournament is over, and anyone may read it.
	p.must(t, "POST", fmt.Sprintf("/api/v1/games/%d/resign", game), map[string]any{"ply": st.Ply}, http.StatusOK, nil)
	var final web.TournamentState
	(&client{e: e}).must(t, "GET", path, nil, http.StatusOK, &final)
	if final.State != "finished" || final.Standings[0].Name != "Petra" || final.Standings[0].Me || final.Standings[0].Score != 1 || final.Pairings[0].Result == "" {
		t.Fatalf("final: %+v", final)
	}

	// The page.
	code, h, body := (&client{e: e}).call(t, "GET", fmt.Sprintf("/tournaments/%d", tt.ID), nil)
	if code != http.StatusOK || !strings.Contains(string(body), "/static/tournament.js?v=") || !strings.Contains(string(body), "/static/words.js?v=") ||
		h.Get("Content-Security-Policy") == "" {
		t.Fatalf("page: %d %v %s", code, h, body)
	}
}

// Ensure a tournament's standings show public names and no Telegram id: read by someone not
// logged in (who may guess a tournament's id), the answer holds none of the players' ids,
// names them by first name, else @username, else their number, and its pairings refer to the
// players by their numbers of the standings; a player logged in has their own line marked.
func TestTournamentStandingsPrivate(t *testing.T) {
	t.Parallel()
	e := newEnv(t, web.Config{})
	e.cfg.Tournaments = e.app.Tournaments
	e.serve()
	const ann, bob, nameless int64 = 731000111, 731000222, 731000333
	e.User(ann, "Ann", "en")
	e.Bot.AddUser(tgbotapi.User{ID: bob, UserName: "bobby", LanguageCode: "en"})
	e.User(nameless, "", "en")
	for _, u := range []int64{ann, bob, nameless} {
		after := e.LastID(u)
		e.Send(t, u, "/start")
		e.WaitMessage(t, u, after, "the greeting", func(tgemu.Message) bool { return true })
	}
	do := func(fn func(ctx context.Context, tx bot.Tx) error) { t.Helper(); e.do(t, fn) }
	var tt *tournament.Tournament
	do(func(ctx context.Context, tx bot.Tx) error {
		var err error
		tt, err = e.app.Tournaments.Create(ctx, tx, boards.Player{Service: e.service, User: ann}, true,
			boards.TournamentSpec{Variant: "russian", Control: "5+3", System: tournament.RoundRobinSystem,
				StartsAt: e.clock.now().Add(time.Minute)})
		return err
	})
	for _, u := range []int64{ann, bob, nameless} {
		do(func(ctx context.Context, tx bot.Tx) error {
			return e.app.Tournaments.Join(ctx, tx, boards.Player{Service: e.service, User: u}, tt.ID, false)
		})
	}
	e.clock.advance(2 * time.Minute)
	if err := e.app.Tournaments.Tournaments(context.Background(), boards.DoerOf(e.proc.Transport.Do)); err != nil {
		t.Fatal(err)
	}
	path := fmt.Sprintf("/api/v1/tournaments/%d", tt.ID)
	code, _, body := (&client{e: e}).call(t, "GET", path, nil)
	if code != http.StatusOK {
		t.Fatalf("GET %s: %d %s", path, code, body)
	}
	for _, u := range []int64{ann, bob, nameless} {
		if strings.Contains(string(body), strconv.FormatInt(u, 10)) {
			t.Errorf("the standings hold user %d's Telegram id:\n%s", u, body)
		}
	}
	if strings.Contains(string(body), `"user"`) {
		t.Errorf("the standings have a user field:\n%s", body)
	}
	var ts web.TournamentState
	if err := json.Unmarshal(body, &ts); err != nil {
		t.Fatal(err)
	}
	if ts.State != "running" || len(ts.Standings) != 3 || len(ts.Pairings) == 0 {
		t.Fatalf("the tournament: %+v", ts)
	}
	names := map[int]string{}
	for _, s := range ts.Standings {
		names[s.Player] = s.Name
		if s.Me {
			t.Errorf("someone not logged in has a line of their own: %+v", s)
		}
	}
	// Numbered in the order they joined.
	if want := map[int]string{1: "Ann", 2: "@bobby", 3: "#3"}; !maps.Equal(names, want) {
		t.Errorf("the players' names by number: %v, want %v", names, want)
	}
	for _, p := range ts.Pairings {
		if names[p.White] == "" || !p.Bye && names[p.Black] == "" {
			t.Errorf("a pairing names a player the standings do not: %+v", p)
		}
		if p.Bye || p.Game == 0 {
			continue
		}
		joined := []int64{ann, bob, nameless}
		if bd := e.board(t, p.Game); bd.Seats[0].User != joined[p.White-1] || bd.Seats[1].User != joined[p.Black-1] {
			t.Errorf("pairing %+v is not game %d's seats %+v", p, p.Game, bd.Seats)
		}
	}
	// Bob, logged in, finds his own line.
	resp := redeem(t, e.link(t, bob))
	bobby := &client{e: e}
	for _, ck := range resp.Cookies() {
		if ck.Name == web.CookieName {
			bobby.cookie = ck.Value
		}
	}
	bobby.must(t, "GET", path, nil, http.StatusOK, &ts)
	for _, s := range ts.Standings {
		if s.Me != (s.Name == "@bobby") {
			t.Errorf("Bob's view of the standings: %+v", s)
		}
	}
}

// do runs fn in a transaction of the env's bot, which must succeed.
func (e *env) do(t *testing.T, fn func(ctx context.Context, tx bot.Tx) error) {
	t.Helper()
	if err := e.proc.Transport.Do(context.Background(), e.service, fn); err != nil {
		t.Fatal(err)
	}
}
