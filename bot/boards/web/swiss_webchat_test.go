package web_test

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"math"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/jackc/pgx/v5"

	"github.com/questbot/questbot/bot"
	"github.com/questbot/questbot/bot/boards"
	"github.com/questbot/questbot/bot/boards/web"
	"github.com/questbot/questbot/bot/emulator/tgemu"
	"github.com/questbot/questbot/bot/emulator/webchat"
	"github.com/questbot/questbot/bot/testkit/bottest"
	"github.com/questbot/questbot/bot/testkit/wait"
	"github.com/questbot/questbot/bot/texts"
	"github.com/questbot/questbot/engine"
	"github.com/questbot/questbot/sessions/board"
	"github.com/questbot/questbot/sessions/tournament"
)

// swissResults are the results the test plays, by round and board (the boards in the order the
// API lists the round's games): every kind of result in every round, so that the scores, the
// tie-breaks and the ratings all move.
var swissResults = [3][2]tournament.Result{
	{tournament.WhiteWins, tournament.Draw},
	{tournament.BlackWins, tournament.WhiteWins},
	{tournament.Draw, tournament.BlackWins},
}

// swissPlayer is a player of the Swiss as the test knows them.
type swissPlayer struct {
	id      int64
	name    string
	lang    string
	program bool
}

// swissPairing is a pairing of the API with its players' user ids.
type swissPairing struct {
	Round        int
	White, Black int64
	Bye          bool
	Game         int64
}

// byUsers gives the pairings of the API, which name the players by their numbers of the
// standings (the players' names are all different), the players' user ids.
func byUsers(ts web.TournamentState, players []swissPlayer) []swissPairing {
	byName := map[string]int64{}
	for _, p := range players {
		byName[p.name] = p.id
	}
	number := map[int]int64{}
	for _, s := range ts.Standings {
		number[s.Player] = byName[s.Name]
	}
	user := func(n int) int64 { return number[n] }
	out := make([]swissPairing, 0, len(ts.Pairings))
	for _, p := range ts.Pairings {
		out = append(out, swissPairing{Round: p.Round, White: user(p.White), Black: user(p.Black), Bye: p.Bye, Game: p.Game})
	}
	return out
}

// swissGame is a game the test played: its board, players, round and result, and when it ended.
type swissGame struct {
	round        int
	board        int64
	white, black int64
	result       tournament.Result
	ended        time.Time
}

// Ensure issue 31's Done-when: in the emulator's web chat, driven through Chromium, four people
// and one program playing through the API play a Swiss tournament of 3 rounds, which an admin
// created in Telegram, to the end. Two people join with the button of /tournaments, two with the
// join link; each game is begun with the board's buttons (the program by the API) and ended by a
// resignation or an agreed draw, pressed on the board in the chat (the program by the API), as
// the test scripts (swissResults); the injected clock starts the tournament and times every
// result. After each round the test checks that the pairings avoid rematches and balance colours
// with one bye a round, scored; that the standings (points, Buchholz, Sonneborn–Berger) are
// those it computes from the results, in the API and in each person's standings message,
// edited in place; and that the tournament's page, open in a tab from before the start, shows
// them by its event stream. At the end every rating is the one the test computes with the pure
// Glicko-2 functions from the games, and the rating charts (the program's and a Russian
// person's rating.png, and /rating's picture in Telegram) are the charts of those ratings.
func TestSwissInWebChat(t *testing.T) {
	t.Parallel()
	e := newEnvWith(t, web.Config{Pages: web.Pages()}, envOptions{limits: &bot.NoLimits, think: true})
	hub := web.NewTournamentHub(e.Pool, e.Log())
	hubCtx, stopHub := context.WithCancel(context.Background())
	hubDone := make(chan struct{})
	go func() {
		defer close(hubDone)
		hub.Run(hubCtx)
	}()
	t.Cleanup(func() { stopHub(); <-hubDone })
	e.cfg.Tournaments, e.cfg.TournamentEvents = e.app.Tournaments, hub
	e.serve()
	e.withWebChat()

	// The clock stands still but for the test's steps: whole seconds, ahead of the wall clock.
	now := time.Now().Add(time.Minute).Truncate(time.Second)
	e.clock.frozen.Store(now.UnixNano())
	tick := func(d time.Duration) {
		now = now.Add(d)
		e.clock.frozen.Store(now.UnixNano())
	}

	// The web chat, in a browser of its own, with four people, opened before the admin and the
	// program's user talk to the bot: the page shows the emulator's users it finds when it loads,
	// each with its event stream, and a browser keeps six connections to a server at most.
	ctx := bottest.Browser(t, 8*time.Minute, 1700, 1000)
	err := chromedp.Do(ctx, chromedp.Navigate(e.srv.URL+"/"), chromedp.WaitVisible("#add-user"))
	if err != nil {
		t.Fatal(err)
	}
	people := []swissPlayer{{name: "Ann", lang: "en"}, {name: "Boris", lang: "ru"}, {name: "Cleo", lang: "en"}, {name: "Dasha", lang: "ru"}}
	for i := range people {
		name := people[i].name
		find := fmt.Sprintf(`[...document.querySelectorAll(".chat")].filter(c => c.querySelector("h2").textContent.startsWith(%q + " "))`, name)
		err := chromedp.Do(ctx,
			chromedp.SendKeys("#new-name", name),
			chromedp.SetValue("#new-lang", people[i].lang),
			chromedp.Click("#add-user"),
			chromedp.Poll[chromedp.Void](find+".length === 1", chromedp.WithPollingTimeout(wait.Hang)))
		if err != nil {
			t.Fatalf("add %s: %v", name, err)
		}
		user, err := chromedp.Run(ctx, chromedp.Evaluate[string](find+"[0].dataset.user"))
		if err != nil {
			t.Fatal(err)
		}
		if people[i].id, err = strconv.ParseInt(user, 10, 64); err != nil || people[i].id < webchat.FirstUserID {
			t.Fatalf("%s's column is user %q (%v)", name, user, err)
		}
	}
	// The admin (in Telegram) and the program's user, who gets an API token.
	const admin, robo int64 = 1, 2
	e.User(admin, "Ada", "en")
	e.User(robo, "Robo", "en")
	e.Send(t, robo, "/web")
	e.text(t, robo, 0, "/login/")
	e.Send(t, admin, "/web")
	e.text(t, admin, 0, "/login/")
	e.Exec(t, `UPDATE users SET is_admin = true WHERE id = $1`, admin)
	after := e.LastID(admin)
	e.Send(t, admin, "/token 2 robo")
	tok := regexp.MustCompile(`qbt_[A-Za-z0-9_-]{43}`).FindString(e.text(t, admin, after, "API token #").Text)
	if tok == "" {
		t.Fatal("no token")
	}
	prog := &client{e: e, token: tok}
	anyone := &client{e: e}

	after = e.LastID(admin)
	e.Send(t, admin, "/tournament new swiss 3 chess 5+3 in 1")
	created := e.WaitMessage(t, admin, after, "the tournament created", func(m tgemu.Message) bool {
		return strings.Contains(m.Text, "created")
	})
	var id int64
	if _, err := fmt.Sscanf(created.Text[strings.Index(created.Text, "#"):], "#%d", &id); err != nil {
		t.Fatalf("%q: %v", created.Text, err)
	}
	path := fmt.Sprintf("/api/v1/tournaments/%d", id)

	// The tournament's page, open from before the start, in another browser (a tab behind
	// would not be drawn).
	page := bottest.Browser(t, 8*time.Minute, 1200, 900)
	err = chromedp.Do(page, chromedp.Navigate(fmt.Sprintf("%s/tournaments/%d", e.srv.URL, id)),
		pagesUntil(fmt.Sprintf(`document.getElementById("summary").textContent.startsWith(%q)`, texts.For("en").Web.Page["tn.state.created"])))
	if err != nil {
		t.Fatalf("the tournament's page: %v", err)
	}
	// A mark the page keeps until it is loaded again: what it shows later came by its stream.
	if _, err := chromedp.Run(page, chromedp.Evaluate[bool](`window.loadedOnce = true`)); err != nil {
		t.Fatal(err)
	}

	column := func(u int64) string { return fmt.Sprintf(`.chat[data-user="%d"]`, u) }
	say := func(u int64, text string) {
		t.Helper()
		if err := chromedp.Do(ctx, chromedp.SendKeys(column(u)+" input.text", text), chromedp.Click(column(u)+" button.send")); err != nil {
			t.Fatalf("user %d says %q: %v", u, text, err)
		}
	}
	// press presses, in a user's column, the button labelled label of the newest bot message
	// whose text (a picture's caption) says every part of has and that has the button. (A board
	// is pressed once its caption shows the move last made, so that the press is not on the
	// keyboard of a position gone, which the bot would refuse as stale.)
	press := func(u int64, has []string, label string) {
		t.Helper()
		js := fmt.Sprintf(`(() => {
  const has = %s;
  const ms = [...document.querySelectorAll(%q)].filter(m => {
    const text = (m.querySelector(".caption") || m).textContent;
    return has.every(h => text.includes(h)) && [...m.querySelectorAll(".keyboard button")].some(b => b.textContent === %q);
  });
  if (!ms.length) return false;
  [...ms[ms.length - 1].querySelectorAll(".keyboard button")].filter(b => b.textContent === %q)[0].click();
  return true;
})()`, mustJSON(t, has), column(u)+" .msg.bot", label, label)
		if err := chromedp.Do(ctx, chromedp.Poll[chromedp.Void](js, chromedp.WithPollingTimeout(wait.Hang))); err != nil {
			shown, _ := chromedp.Run(ctx, chromedp.Evaluate[string](fmt.Sprintf(`document.querySelector(%q).innerText`, column(u))))
			t.Fatalf("user %d presses %q under %q: %v; the column shows\n%s", u, label, has, err, shown)
		}
	}
	entrants := func() int {
		var ts web.TournamentState
		anyone.must(t, "GET", path, nil, http.StatusOK, &ts)
		return ts.Players
	}

	// Ann and Boris join with the button of /tournaments, Cleo and Dasha with the join link, the
	// program with the API.
	for i, p := range people {
		c := texts.For(p.lang)
		if i < 2 {
			say(p.id, "/tournaments")
			press(p.id, []string{fmt.Sprintf("#%d", id)}, fmt.Sprintf(c.Tournament().Join, id))
		} else {
			say(p.id, fmt.Sprintf("/start t%d", id))
		}
		wait.For(t, wait.Hang, p.name+" in the tournament", func() bool { return entrants() == i+1 })
	}
	prog.must(t, "POST", path+"/join", nil, http.StatusOK, nil)
	players := append(slices.Clone(people), swissPlayer{id: robo, name: "Robo", lang: "en", program: true})
	byID := map[int64]swissPlayer{}
	for _, p := range players {
		byID[p.id] = p
	}
	if n := entrants(); n != 5 {
		t.Fatalf("%d players, want 5", n)
	}

	// The clock starts it.
	tick(2 * time.Minute)
	if err := e.app.Tournaments.Tournaments(context.Background(), boards.DoerOf(e.proc.Transport.Do)); err != nil {
		t.Fatal(err)
	}

	var played []swissGame
	byes := map[int64]int{}
	standingsMsg := map[int64]int{} // each person's standings message
	state := func() web.TournamentState {
		var ts web.TournamentState
		anyone.must(t, "GET", path, nil, http.StatusOK, &ts)
		return ts
	}
	for round := 1; round <= 3; round++ {
		var ts web.TournamentState
		wait.For(t, wait.Hang, fmt.Sprintf("round %d paired", round), func() bool {
			ts = state()
			return ts.State == "running" && ts.Round == round
		})
		var games []swissPairing
		var bye []int64
		for _, p := range byUsers(ts, players) {
			switch {
			case p.Round != round:
			case p.Bye:
				bye = append(bye, p.White)
			default:
				games = append(games, p)
			}
		}
		// Two games and a bye, to a player who has not had one, with no rematch.
		if len(games) != 2 || len(bye) != 1 || byes[bye[0]] != 0 {
			t.Fatalf("round %d: games %+v, bye %v (byes before %v)", round, games, bye, byes)
		}
		byes[bye[0]]++
		for _, g := range games {
			for _, old := range played {
				if old.white == g.White && old.black == g.Black || old.white == g.Black && old.black == g.White {
					t.Errorf("round %d: %d and %d meet again (round %d)", round, g.White, g.Black, old.round)
				}
			}
		}

		for i, g := range games {
			res := swissResults[round-1][i]
			played = append(played, swissGame{round: round, board: g.Game, white: g.White, black: g.Black, result: res})
			e.playSwissGame(t, swissMoves{prog: prog, byID: byID, press: press, tick: tick}, round, id, g, res)
			played[len(played)-1].ended = e.board(t, g.Game).Ended
		}

		// The standings after the round, as the test reckons them (the next round's bye
		// scores at its pairing), in the API, in every person's message and on the page.
		if round < 3 {
			wait.For(t, wait.Hang, fmt.Sprintf("round %d paired", round+1), func() bool { return state().Round == round+1 })
		} else {
			wait.For(t, wait.Hang, "the tournament over", func() bool { return state().State == "finished" })
		}
		ts = state()
		var allByes []swissPairing
		for _, p := range byUsers(ts, players) {
			if p.Bye {
				allByes = append(allByes, p)
			}
		}
		want := reckonSwiss(players, played, allByes)
		if len(ts.Standings) != len(want) {
			t.Fatalf("after round %d: standings %+v, want %+v", round, ts.Standings, want)
		}
		for i, s := range ts.Standings {
			w := want[i]
			if s.Player < 1 || s.Player > len(players) || s.Rank != w.rank ||
				s.Score != float64(w.score)/2 || s.Buchholz != float64(w.buchholz)/2 ||
				s.SB != float64(w.sb)/4 || s.Program != byID[w.user].program || s.Name != byID[w.user].name {
				t.Errorf("after round %d, line %d: %+v, want %+v", round, i+1, s, w)
			}
		}
		for _, p := range people {
			c := texts.For(p.lang)
			tn := c.Tournament()
			lines := make([]string, len(want))
			for i, w := range want {
				lines[i] = plainText(fmt.Sprintf(tn.Row, w.rank, byID[w.user].name, tournament.Score(w.score), tournament.Score(w.buchholz), quarterText(w.sb)))
			}
			status := fmt.Sprintf(tn.Round, round+1, 3)
			if round == 3 {
				status = plainText(tn.Final)
			}
			head := plainText(fmt.Sprintf(tn.Standings, id, "", ""))
			head = head[:strings.Index(head, "·")+len("·")]
			var msg tgemu.Message
			e.WaitFor(t, fmt.Sprintf("%s's standings after round %d", p.name, round), func() bool {
				var found []tgemu.Message
				for _, m := range e.BotMessages(p.id) {
					if strings.HasPrefix(plainText(m.Text), head) {
						found = append(found, m)
					}
				}
				if len(found) != 1 {
					return false
				}
				msg = found[0]
				text := plainText(msg.Text)
				for _, l := range lines {
					if !strings.Contains(text, l) {
						return false
					}
				}
				return strings.Contains(text, status)
			})
			if first, ok := standingsMsg[p.id]; ok && first != msg.ID || !msg.Edited {
				t.Errorf("%s's standings message: %d (edited %v), first %d", p.name, msg.ID, msg.Edited, first)
			}
			standingsMsg[p.id] = msg.ID
		}
		rows := make([][]string, len(want))
		for i, w := range want {
			name := byID[w.user].name
			if byID[w.user].program {
				name += " (program)"
			}
			rows[i] = []string{strconv.Itoa(w.rank), name, num(float64(w.score) / 2), num(float64(w.buchholz)/2) + " / " + num(float64(w.sb)/4)}
		}
		if err := chromedp.Do(page, pagesUntil(fmt.Sprintf(`window.loadedOnce === true && JSON.stringify([...document.querySelectorAll("#standings tbody tr")].map(tr => [...tr.cells].slice(0, 4).map(c => c.textContent))) === %q`, mustJSON(t, rows)))); err != nil {
			got, _ := chromedp.Run(page, chromedp.Evaluate[string](`document.getElementById("standings").innerText`))
			t.Fatalf("the tournament's page after round %d: %v; it shows\n%s\nwant %v", round, err, got, rows)
		}
	}
	if fetched, err := chromedp.Run(page, chromedp.Evaluate[int](fmt.Sprintf(
		`performance.getEntriesByType("resource").filter(r => r.name.endsWith("/api/v1/tournaments/%d")).length`, id))); err != nil || fetched < 4 {
		t.Errorf("the tournament's page fetched its state %d times (%v): not by its events", fetched, err)
	}
	if summary, err := chromedp.Run(page, chromedp.Evaluate[string](`document.getElementById("summary").textContent`)); err != nil ||
		!strings.HasPrefix(summary, "finished") {
		t.Errorf("the page's summary: %q (%v)", summary, err)
	}

	// A game's page names its tournament and round in its header, in the viewer's language,
	// linked to the tournament's page: Boris's last game, Boris logged in by his /web link.
	boris := people[1]
	var lastGame swissGame
	for _, g := range played {
		if g.white == boris.id || g.black == boris.id {
			lastGame = g
		}
	}
	heading := texts.For("ru").Tournament().Heading(id, false, lastGame.round, 3)
	err = chromedp.Do(page, chromedp.Navigate(e.link(t, boris.id)), pagesUntil(`location.pathname === "/games"`),
		chromedp.Navigate(fmt.Sprintf("%s/play/%d", e.srv.URL, lastGame.board)),
		pagesUntil(fmt.Sprintf(`(() => { const a = document.getElementById("tournament");
			return !a.hidden && a.textContent === %q && a.getAttribute("href") === "/tournaments/%d"; })()`, heading, id)))
	if err != nil {
		got, _ := chromedp.Run(page, chromedp.Evaluate[string](`document.querySelector("header").innerText`))
		t.Errorf("the header of game %d's page: %v; it shows %q, want %q", lastGame.board, err, got, heading)
	}

	// Colours: nobody has the same colour three times running, nor two more of one than of the
	// other.
	for _, p := range players {
		var colours []int
		for _, g := range played {
			switch p.id {
			case g.white:
				colours = append(colours, 1)
			case g.black:
				colours = append(colours, -1)
			}
		}
		sum := 0
		for i, c := range colours {
			sum += c
			if i >= 2 && colours[i-2] == c && colours[i-1] == c {
				t.Errorf("%s plays the same colour three times: %v", p.name, colours)
			}
		}
		if sum > 1 || sum < -1 || len(colours)+byes[p.id] != 3 {
			t.Errorf("%s: colours %v, byes %d", p.name, colours, byes[p.id])
		}
	}

	// The ratings: every game rated by Glicko-2 in the order the games ended, each player's
	// deviation first aged to the game's end.
	history := reckonGlicko(played)
	for _, p := range players {
		var stats []board.Stats
		err := pgx.BeginTxFunc(context.Background(), e.Pool, pgx.TxOptions{AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
			var err error
			stats, err = e.app.Boards.Store(tx).UserStats(context.Background(), e.service, p.id)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		h := history[p.id]
		last := h[len(h)-1]
		if len(stats) != 1 || stats[0].Variant != "chess" || stats[0].Rated != len(h) || !sameGlicko(stats[0].Rating, last.Glicko) {
			t.Errorf("%s's rating: %+v, want %+v after %d games", p.name, stats, last.Glicko, len(h))
		}
	}

	// The charts are the charts of those ratings: the program's and Boris's (in Russian) from
	// the API, Dasha's from /rating in the web chat.
	chart := func(u int64) []byte {
		c := texts.For(byID[u].lang)
		s := engine.Series{Name: c.Game("chess")}
		for _, r := range history[u] {
			s.Points = append(s.Points, engine.ChartPoint{At: r.at, Value: r.Rating, Band: r.RD})
		}
		var buf bytes.Buffer
		if err := engine.WriteChartPNG(&buf, engine.Chart{Title: c.Ratings.ChartTitle, Series: []engine.Series{s}}); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	code, hdr, png := prog.call(t, "GET", "/api/v1/me/rating.png", nil)
	if code != http.StatusOK || hdr.Get("Content-Type") != "image/png" || !bytes.Equal(png, chart(robo)) {
		t.Errorf("the program's chart: %d %v, %d bytes, not the chart of its %d ratings", code, hdr, len(png), len(history[robo]))
	}
	code, _, png = e.loginAs(t, boris.id).call(t, "GET", "/api/v1/me/rating.png", nil)
	if code != http.StatusOK || !bytes.Equal(png, chart(boris.id)) {
		t.Errorf("Boris's chart (in Russian): %d, %d bytes, not the chart of his %d ratings", code, len(png), len(history[boris.id]))
	}
	dasha := people[3]
	after = e.LastID(dasha.id)
	say(dasha.id, "/rating")
	caption := texts.For("ru").Ratings.Caption
	pic := e.WaitMessage(t, dasha.id, after, "Dasha's /rating", func(m tgemu.Message) bool {
		return m.Photo != "" && strings.HasPrefix(m.Text, caption)
	})
	last := history[dasha.id][len(history[dasha.id])-1]
	line := texts.For("ru").RatingLine("Шахматы", int(math.Round(last.Rating)), int(math.Round(last.RD)), len(history[dasha.id]), len(history[dasha.id]))
	if data, _, _, ok := e.Emu.FileData(pic.Photo); !ok || !bytes.Equal(data, chart(dasha.id)) || !strings.Contains(pic.Text, line) {
		t.Errorf("Dasha's /rating: %q (the picture %d bytes, found %v), want %q and the chart of her ratings", pic.Text, len(data), ok, line)
	}
}

// swissMoves are the means of the players of TestSwissInWebChat: the program's client, who is
// who, a press in the web chat, and the clock's step.
type swissMoves struct {
	prog  *client
	byID  map[int64]swissPlayer
	press func(u int64, has []string, label string)
	tick  func(time.Duration)
}

// playSwissGame plays a game of a round to the result res: white opens with e2-e4 (a person
// with the board's buttons, the program by the API); then the loser resigns, or black offers a
// draw and white accepts, each a minute later on the clock.
func (e *env) playSwissGame(t *testing.T, m swissMoves, round int, id int64, g swissPairing, res tournament.Result) {
	t.Helper()
	heading := func(u int64) string {
		return texts.For(m.byID[u].lang).Tournament().Heading(id, false, round, 3)
	}
	game := fmt.Sprintf("/api/v1/games/%d", g.Game)
	// act does what a player does: the program by the API, a person by the buttons (labels from
	// the board's texts, in order) of their board once its caption says the move last made.
	lastMove := ""
	act := func(u int64, api string, body any, labels func(c *texts.Catalog) []string) {
		t.Helper()
		if m.byID[u].program {
			m.prog.must(t, "POST", game+api, body, http.StatusOK, nil)
			return
		}
		for _, l := range labels(texts.For(m.byID[u].lang)) {
			m.press(u, []string{heading(u), lastMove}, l)
		}
	}
	act(g.White, "/moves", map[string]any{"move": "e2e4", "ply": 0}, func(*texts.Catalog) []string { return []string{"e2", "e4"} })
	lastMove = "1. e4"
	wait.For(t, wait.Hang, "white's first move", func() bool { return e.board(t, g.Game).Ply() == 1 })
	m.tick(time.Minute)
	resign := func(u int64) {
		act(u, "/resign", map[string]any{"ply": 1}, func(c *texts.Catalog) []string { return []string{c.Board.Resign, c.Board.ResignYes} })
	}
	switch res {
	case tournament.WhiteWins:
		resign(g.Black)
	case tournament.BlackWins:
		resign(g.White)
	case tournament.Draw:
		act(g.Black, "/draw", map[string]any{"action": "offer", "ply": 1}, func(c *texts.Catalog) []string { return []string{c.Board.OfferDraw} })
		wait.For(t, wait.Hang, "black's offer of a draw", func() bool { return e.board(t, g.Game).Offer != nil })
		act(g.White, "/draw", map[string]any{"action": "accept", "ply": 1}, func(c *texts.Catalog) []string { return []string{c.Board.Accept} })
	}
	wait.For(t, wait.Hang, fmt.Sprintf("game %d over", g.Game), func() bool {
		return e.board(t, g.Game).Status == board.Finished
	})
	bd := e.board(t, g.Game)
	got := tournament.Draw
	if !bd.Outcome.Draw {
		got = tournament.WhiteWins
		if bd.Outcome.Winner == 1 {
			got = tournament.BlackWins
		}
	}
	if got != res || bd.Seats[0].User != g.White || bd.Seats[1].User != g.Black {
		t.Fatalf("game %d: result %v, seats %+v; want %v between %d and %d", g.Game, got, bd.Seats, res, g.White, g.Black)
	}
}

// swissLine is a line of the standings as the test reckons it: score and Buchholz in half
// points, Sonneborn–Berger in quarter points.
type swissLine struct {
	user                int64
	rank                int
	score, buchholz, sb int
	wins                int
}

// reckonSwiss computes the standings of a Swiss from the games played and the byes paired: a
// win is 2 half points, a draw 1, a bye 2; Buchholz sums the scores of the opponents met,
// Sonneborn–Berger those of the opponents beaten and half those drawn. The order is by score,
// Buchholz, Sonneborn–Berger and wins (then the seed: every player is rated alike, so by id),
// and players equal on all four share the rank.
func reckonSwiss(players []swissPlayer, games []swissGame, byes []swissPairing) []swissLine {
	score := map[int64]int{}
	for _, b := range byes {
		score[b.White] += 2
	}
	points := func(g swissGame) (int, int) {
		switch g.result {
		case tournament.WhiteWins:
			return 2, 0
		case tournament.BlackWins:
			return 0, 2
		}
		return 1, 1
	}
	for _, g := range games {
		w, b := points(g)
		score[g.white] += w
		score[g.black] += b
	}
	lines := map[int64]*swissLine{}
	for _, p := range players {
		lines[p.id] = &swissLine{user: p.id, score: score[p.id]}
	}
	for _, g := range games {
		w, b := points(g)
		for _, side := range []struct {
			me, opp int64
			got     int
		}{{g.white, g.black, w}, {g.black, g.white, b}} {
			l := lines[side.me]
			l.buchholz += score[side.opp]
			switch side.got {
			case 2:
				l.wins++
				l.sb += 2 * score[side.opp]
			case 1:
				l.sb += score[side.opp]
			}
		}
	}
	out := make([]swissLine, 0, len(players))
	for _, p := range players {
		out = append(out, *lines[p.id])
	}
	keys := func(l swissLine) []int { return []int{l.score, l.buchholz, l.sb, l.wins} }
	slices.SortFunc(out, func(a, b swissLine) int { return cmp.Or(slices.Compare(keys(b), keys(a)), cmp.Compare(a.user, b.user)) })
	for i := range out {
		out[i].rank = i + 1
		if i > 0 && slices.Equal(keys(out[i]), keys(out[i-1])) {
			out[i].rank = out[i-1].rank
		}
	}
	return out
}

// ratedAt is a rating after a game, and when.
type ratedAt struct {
	board.Glicko
	at time.Time
}

// reckonGlicko rates the games in the order they ended, each its own rating period
// (board.RateGame), every player starting at board.NewGlicko and their deviation aged to each
// game's end from their last (board.Glicko.Age); it returns each player's ratings in order.
func reckonGlicko(games []swissGame) map[int64][]ratedAt {
	order := slices.Clone(games)
	slices.SortStableFunc(order, func(a, b swissGame) int { return a.ended.Compare(b.ended) })
	history := map[int64][]ratedAt{}
	current := func(u int64, at time.Time) board.Glicko {
		h := history[u]
		if len(h) == 0 {
			return board.NewGlicko()
		}
		return h[len(h)-1].Age(at.Sub(h[len(h)-1].at))
	}
	for _, g := range order {
		score := 0.5
		switch g.result {
		case tournament.WhiteWins:
			score = 1
		case tournament.BlackWins:
			score = 0
		}
		w, b := board.RateGame(current(g.white, g.ended), current(g.black, g.ended), score)
		history[g.white] = append(history[g.white], ratedAt{w, g.ended})
		history[g.black] = append(history[g.black], ratedAt{b, g.ended})
	}
	return history
}

// sameGlicko reports whether two ratings agree to a millionth.
func sameGlicko(a, b board.Glicko) bool {
	return math.Abs(a.Rating-b.Rating) < 1e-6 && math.Abs(a.RD-b.RD) < 1e-6 && math.Abs(a.Vol-b.Vol) < 1e-9
}

// plainText is a message's HTML as the reader sees it.
func plainText(s string) string { return html.UnescapeString(tagRE.ReplaceAllString(s, "")) }

var tagRE = regexp.MustCompile(`<[^>]*>`)

// quarterText writes quarter points as the standings do: "3¼", "½", "0".
func quarterText(n int) string {
	frac := [...]string{"", "¼", "½", "¾"}[n%4]
	if n/4 == 0 && frac != "" {
		return frac
	}
	return strconv.Itoa(n/4) + frac
}

// mustJSON is v in JSON.
func mustJSON(t *testing.T, v any) string {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}

// num writes a number as JavaScript does.
func num(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }

// loginAs logs a user who has talked to the bot in by the link of /web, without renaming them:
// a browser's cookie and CSRF token.
func (e *env) loginAs(t *testing.T, user int64) *client {
	t.Helper()
	resp := redeem(t, e.link(t, user))
	c := &client{e: e}
	for _, ck := range resp.Cookies() {
		if ck.Name == web.CookieName {
			c.cookie = ck.Value
		}
	}
	if c.cookie == "" {
		t.Fatalf("no session for user %d: %s", user, resp.Status)
	}
	var me struct {
		CSRF string `json:"csrf"`
	}
	c.must(t, "GET", "/api/v1/me", nil, http.StatusOK, &me)
	c.csrf = me.CSRF
	return c
}
