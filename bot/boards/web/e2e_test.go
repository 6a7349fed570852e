package web_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/questbot/questbot/bot/boards/web"
	"github.com/questbot/questbot/bot/emulator/tgemu"
	"github.com/questbot/questbot/bot/testkit/bottest"
	"github.com/questbot/questbot/bot/testkit/wait"
	"github.com/questbot/questbot/engine"
	"github.com/questbot/questbot/sessions/board"
)

// Ensure one game is played from both sides of the product: Ann in Telegram (typed moves in
// her chat), Bob on the game's web page in headless Chromium (clicks on the picture). Bob's
// moves reach Ann's board in her chat; Ann's moves reach Bob's open page through the event
// stream, with no reload and no polling; Bob, away from the page, is notified in Telegram once
// his delay has passed (a correspondence game: 15 minutes by default), and not at all when he
// saw the move on the page first.
func TestTelegramAndBrowser(t *testing.T) {
	t.Parallel()
	e := newEnv(t, web.Config{Pages: web.Pages()})
	ann := e.login(t, 1, "Ann")
	e.User(2, "Bob", "en")
	link := e.link(t, 2)

	// Ann opens a correspondence game; Bob joins it on its page.
	var created struct {
		ID int64 `json:"id"`
	}
	ann.must(t, "POST", "/api/v1/games", map[string]string{"variant": "russian", "control": "corr1d"}, http.StatusCreated, &created)
	id := created.ID
	ctx := pagesBrowser(t)
	if err := chromedp.Do(ctx, chromedp.Navigate(link)); err != nil {
		t.Fatalf("open the login link: %v", err)
	}
	pagesWaitLocation(ctx, t, e.srv.URL+"/games")
	page := fmt.Sprintf("%s/play/%d", e.srv.URL, id)
	if err := chromedp.Do(ctx, chromedp.Navigate(page), pagesUntil(`!document.getElementById("join").hidden`),
		chromedp.Click("#join")); err != nil {
		t.Fatalf("join on the page: %v (status %q)", err, pagesText(ctx, t, "#status"))
	}
	wait.For(t, wait.Hang, "the game started", func() bool { return e.board(t, id).Status == board.Active })
	bd := e.board(t, id)
	annSeat, err := bd.SeatOf(1)
	if err != nil {
		t.Fatal(err)
	}
	bobSeat := 1 - annSeat
	if err := chromedp.Do(ctx, pagesBoardReady); err != nil {
		t.Fatalf("the board on Bob's page: %v", err)
	}
	// The page must not fetch the state but on an event: count its fetches from here on.
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(() => { window.stateFetches = 0; const f = window.fetch;
		window.fetch = (u, o) => { if (typeof u === "string" && /\/api\/v1\/games\/\d+$/.test(u)) window.stateFetches++; return f(u, o); };
		return true; })()`)); err != nil {
		t.Fatal(err)
	}

	g, err := engine.NewGame("russian", engine.WithPosition(bd.Start))
	if err != nil {
		t.Fatal(err)
	}
	im := g.ImageMap(engine.Player(bobSeat))
	spot := func(name string) engine.SquareSpot { return pagesSpot(t, im, name) }
	// simple returns a legal move of two squares (no capture chain), for typing or clicking.
	simple := func() (engine.Move, []string) {
		for _, m := range g.LegalMoves() {
			if p, _ := g.Describe(m); len(p) == 2 {
				return m, p
			}
		}
		t.Fatalf("no simple move at ply %d", g.Ply())
		return engine.Move{}, nil
	}
	// annMoves types one of Ann's moves in her chat and waits until the board has it.
	annMoves := func() string {
		t.Helper()
		mv, _ := simple()
		e.Send(t, 1, mv.String())
		if _, err := g.Play(mv.String()); err != nil {
			t.Fatal(err)
		}
		wait.For(t, wait.Hang, "Ann's move "+mv.String(), func() bool { return e.board(t, id).Ply() == g.Ply() })
		return mv.String()
	}
	// onPage waits until Bob's page shows the move list up to the current ply.
	onPage := func(what string) {
		t.Helper()
		if err := chromedp.Do(ctx, pagesUntil(fmt.Sprintf(`document.querySelectorAll("#moves li").length === %d`, g.Ply()))); err != nil {
			t.Fatalf("%s on Bob's page: %v (status %q)", what, err, pagesText(ctx, t, "#status"))
		}
	}
	// bobMoves clicks one of Bob's moves on his page and waits until Ann's board in her chat
	// says it.
	bobMoves := func() {
		t.Helper()
		mv, path := simple()
		if err := chromedp.Do(ctx, pagesUntil(`document.querySelectorAll("#marks .mark.piece").length > 0`)); err != nil {
			t.Fatalf("Bob's turn on the page: %v", err)
		}
		pagesTapUntil(ctx, t, fmt.Sprintf("the target %s of %s", path[1], path[0]),
			func() { pagesTapSpot(ctx, t, spot(path[0]), im, false) },
			fmt.Sprintf(`document.querySelector('#marks .mark.target[data-square=%q]') !== null`, path[1]))
		pagesTapSpot(ctx, t, spot(path[1]), im, false)
		if _, err := g.Play(mv.String()); err != nil {
			t.Fatal(err)
		}
		e.WaitMessage(t, 1, 0, "Bob's move "+mv.String()+" on Ann's board", func(m tgemu.Message) bool {
			return m.Photo != "" && strings.Contains(m.Text, "Last move: ") && strings.Contains(m.Text, " "+mv.String()+" (Bob)")
		})
		onPage("Bob's move")
	}

	if annSeat == 0 {
		annMoves()
		onPage("Ann's first move")
	}
	for range 2 {
		bobMoves()
		fetches := evalInt(t, ctx, "window.stateFetches")
		delivered := testutil.ToFloat64(e.hub.Metrics().Delivered)
		mv := annMoves()
		committed := time.Now()
		onPage("Ann's move " + mv)
		t.Logf("Ann's move %s on Bob's page %v after the board had it", mv, time.Since(committed).Round(time.Millisecond))
		// It came by the page's event stream, the one open.
		if testutil.ToFloat64(e.hub.Metrics().Delivered) <= delivered || testutil.ToFloat64(e.hub.Metrics().Streams) != 1 {
			t.Errorf("Ann's move reached the page without an event: %v events delivered (were %v), %v streams open",
				testutil.ToFloat64(e.hub.Metrics().Delivered), delivered, testutil.ToFloat64(e.hub.Metrics().Streams))
		}
		// The page drew Ann's move from its event, and Bob's from the answer to his move: it
		// read no state.
		if n := evalInt(t, ctx, "window.stateFetches") - fetches; n != 0 {
			t.Errorf("%d state fetches for a move of Bob's and one of Ann's; the page should draw them from the events", n)
		}
		wait.For(t, wait.Hang, "Ann's move seen on the page", func() bool { return e.board(t, id).Seats[bobSeat].Seen >= g.Ply() })
	}
	// Bob saw every move on the page: nothing was notified to him in Telegram.
	e.clock.advance(20 * time.Minute)
	settle(t, e)
	if n := e.CountText(2, "🔔"); n != 0 {
		t.Errorf("Bob was notified %d times of moves he saw on the page", n)
	}

	// Bob goes away from the page; Ann moves; after the delay Bob is notified once, in Telegram,
	// with a link to the page.
	bobMoves()
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
		t.Fatal(err)
	}
	mv := annMoves()
	e.clock.advance(10 * time.Minute)
	settle(t, e)
	if n := e.CountText(2, "🔔"); n != 0 {
		t.Errorf("Bob was notified before his delay")
	}
	e.clock.advance(6 * time.Minute)
	note := e.WaitMessage(t, 2, 0, "Bob's notification", func(m tgemu.Message) bool { return strings.Contains(m.Text, "🔔") })
	if !strings.Contains(note.Text, "Ann") || !strings.Contains(note.Text, mv) || !strings.Contains(note.Text, page) || note.Photo == "" {
		t.Errorf("the notification says %q; want Ann, %s and %s, with the board", note.Text, mv, page)
	}
	settle(t, e)
	if n := e.CountText(2, "🔔"); n != 1 {
		t.Errorf("%d notifications, want 1", n)
	}

	// A visitor without a login: refused until a player lets anyone watch, then shown the game
	// read-only.
	visitor := bottest.Browser(t, wait.Hang, 400, 800)
	if err := chromedp.Do(visitor, chromedp.Navigate(page),
		pagesUntil(`document.getElementById("status").textContent.includes("/web")`)); err != nil {
		t.Fatalf("a visitor before spectators are allowed: %v (status %q)", err, pagesText(visitor, t, "#status"))
	}
	ann.must(t, "POST", fmt.Sprintf("/api/v1/games/%d/spectators", id), map[string]any{"allow": true}, http.StatusOK, nil)
	if err := chromedp.Do(visitor, chromedp.Reload(), pagesBoardReady, pagesUntil(fmt.Sprintf(
		`document.getElementById("turn").textContent.startsWith("You are watching this game.") &&
		document.querySelectorAll("#moves li").length === %d &&
		document.querySelectorAll("#marks .mark.piece").length === 0 && document.getElementById("resign").hidden`, g.Ply()))); err != nil {
		t.Fatalf("the spectator's view: %v (turn %q)", err, pagesText(visitor, t, "#turn"))
	}
}

// evalInt evaluates a JavaScript expression with an integer value in the page.
func evalInt(t *testing.T, ctx context.Context, expr string) int {
	t.Helper()
	n, err := chromedp.Run(ctx, chromedp.Evaluate[int](expr))
	if err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	return n
}

// settle runs the scheduled jobs once more, after what the test did, and waits until what they
// queued is sent.
func settle(t *testing.T, e *env) {
	t.Helper()
	e.WaitIdle(t)
	e.jobs.Settle(t)
	e.WaitIdle(t)
}
