package web_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/questbot/questbot/bot"
	"github.com/questbot/questbot/bot/boards"
	"github.com/questbot/questbot/bot/boards/web"
	"github.com/questbot/questbot/sessions/tournament"
)

// Ensure a browser holds one live connection whatever the number of its tabs: eight tabs of
// Ann's games and one of a tournament, all in one browser (over HTTP/1.1, which allows six
// connections to a host), each show their game live; a move of each opponent then shows on
// every game's tab, and a change of the tournament on its tab, while the server holds at most
// one stream open for that browser (its hub's gauge of open streams).
func TestOneConnectionForEightTabs(t *testing.T) {
	t.Parallel()
	oneConnection(t, false)
}

// Ensure the same where the browser has no SharedWorker (Chrome on Android): the tab that
// holds the leader's Web Lock holds the stream for the others.
func TestOneConnectionTabsWithoutSharedWorker(t *testing.T) {
	t.Parallel()
	oneConnection(t, true)
}

// oneConnection opens the tabs of TestOneConnectionForEightTabs; noWorker takes SharedWorker
// away from every page before its scripts run.
func oneConnection(t *testing.T, noWorker bool) {
	// Ann's own calls share her rate limit with her pages: it is out of the way here.
	e := newEnv(t, web.Config{Pages: web.Pages(), Rate: 1000, Burst: 1000})
	e.startTournamentHub(t)
	// The streams the browser opens, counted by the server as it serves them.
	var mu sync.Mutex
	open, most := 0, 0
	inner := *e.handler.Load()
	var counting http.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasSuffix(r.URL.Path, "/events") || !strings.Contains(r.UserAgent(), "Chrome") {
			inner.ServeHTTP(w, r)
			return
		}
		mu.Lock()
		open++
		most = max(most, open)
		mu.Unlock()
		defer func() {
			mu.Lock()
			open--
			mu.Unlock()
		}()
		inner.ServeHTTP(w, r)
	})
	e.handler.Store(&counting)

	e.User(1, "Ann", "en")
	link := e.link(t, 1)
	ann := e.login(t, 1, "Ann")
	const tabs = 8
	type game struct {
		id int64
		by [2]*client
	}
	var games []game
	for i := range tabs {
		id, by := e.gameOf(t, ann, e.login(t, int64(10+i), fmt.Sprintf("Opponent %d", i)))
		games = append(games, game{id, by})
	}
	e.login(t, 2, "Boris")
	e.Exec(t, `UPDATE users SET is_admin = true WHERE id = 2`)
	var tt *tournament.Tournament
	if err := e.proc.Transport.Do(context.Background(), e.service, func(ctx context.Context, tx bot.Tx) error {
		var err error
		tt, err = e.app.Tournaments.Create(ctx, tx, boards.Player{Service: e.service, User: 2}, true,
			boards.TournamentSpec{Variant: "russian", Control: "5+3", System: tournament.RoundRobinSystem,
				StartsAt: e.clock.now().Add(time.Hour)})
		return err
	}); err != nil {
		t.Fatal(err)
	}

	// prepare readies a tab: without SharedWorker when noWorker says so.
	prepare := func(ctx context.Context) {
		t.Helper()
		if !noWorker {
			return
		}
		_, err := chromedp.Run(ctx, func(ctx context.Context, tg *chromedp.Target) (page.AddScriptToEvaluateOnNewDocumentResult, error) {
			return cdp.Call(ctx, tg, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: "delete window.SharedWorker;"})
		})
		if err != nil {
			t.Fatalf("take SharedWorker away: %v", err)
		}
	}
	ctx := pagesBrowser(t)
	prepare(ctx)
	if err := chromedp.Do(ctx, chromedp.Navigate(link)); err != nil {
		t.Fatalf("open the login link: %v", err)
	}
	pagesWaitLocation(ctx, t, e.srv.URL+"/games")
	if noWorker {
		if has, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`typeof SharedWorker === "function"`)); err != nil || has {
			t.Fatalf("SharedWorker is still there: %v %v", has, err)
		}
	}
	// Each page in a tab of its own, in the same browser; the first is the login's.
	pages, closers := []context.Context{ctx}, []func(){func() {}}
	for range tabs {
		tab, closeTab := chromedp.NewContext(ctx)
		t.Cleanup(closeTab)
		prepare(tab)
		pages, closers = append(pages, tab), append(closers, closeTab)
	}
	for i, g := range games {
		if err := chromedp.Do(pages[i+1], chromedp.Navigate(fmt.Sprintf("%s/play/%d", e.srv.URL, g.id)), pagesBoardReady,
			pagesUntil(`document.getElementById("live").classList.contains("on")`)); err != nil {
			t.Fatalf("tab %d, game %d: %v (status %q)", i+1, g.id, err, pagesText(pages[i+1], t, "#status"))
		}
	}
	// The tournament's tab says it is live as the games' do.
	on := pagesText(pages[1], t, "#live")
	if err := chromedp.Do(ctx, chromedp.Navigate(fmt.Sprintf("%s/tournaments/%d", e.srv.URL, tt.ID)),
		pagesUntil(fmt.Sprintf(`document.getElementById("live").textContent === %q`, on))); err != nil {
		t.Fatalf("the tournament's tab: %v", err)
	}

	// Each opponent moves (after Ann, where she has the first move), in the games from the
	// first one on; every tab of those shows the move.
	opponentsMove := func(from int) {
		t.Helper()
		for _, g := range games[from:] {
			st := ann.state(t, g.id)
			if st.ToMove == st.Seat {
				playFirst(t, g.id, g.by)
			}
			playFirst(t, g.id, g.by)
		}
		for i, g := range games[from:] {
			tab := pages[from+i+1]
			st := ann.state(t, g.id)
			last := st.Moves[len(st.Moves)-1].Text
			if err := chromedp.Do(tab, pagesUntil(fmt.Sprintf(`document.querySelectorAll("#moves li").length === %d &&
				document.querySelector("#moves li:last-child").textContent === %q`, st.Ply, last))); err != nil {
				t.Fatalf("tab %d: the opponent's move %s in game %d: %v", from+i+1, last, g.id, err)
			}
		}
	}
	opponentsMove(0)
	// A player joins the tournament: its tab shows them.
	if err := e.proc.Transport.Do(context.Background(), e.service, func(ctx context.Context, tx bot.Tx) error {
		return e.app.Tournaments.Join(ctx, tx, boards.Player{Service: e.service, User: 2}, tt.ID, false)
	}); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, pagesUntil(`document.getElementById("standings").textContent.includes("Boris")`)); err != nil {
		t.Fatalf("the tournament's tab: Boris who joined: %v", err)
	}
	mu.Lock()
	n := most
	mu.Unlock()
	streams := testutil.ToFloat64(e.hub.Metrics().Streams)
	t.Logf("%d tabs: at most %d streams open at once, %v open now", tabs+1, n, streams)
	if n > 2 || streams > 1 {
		t.Errorf("%d tabs: at most %d streams open at once and %v now, want one (two while it is opened anew)", tabs+1, n, streams)
	}

	// The first game's tab, the first to follow (without SharedWorker, the one that holds the
	// stream), is closed: the other tabs still show their opponents' moves, on one stream.
	closers[1]()
	opponentsMove(1)
	mu.Lock()
	n = most
	mu.Unlock()
	streams = testutil.ToFloat64(e.hub.Metrics().Streams)
	t.Logf("a tab closed: at most %d streams open at once, %v open now", n, streams)
	if n > 2 || streams > 1 {
		t.Errorf("a tab closed: at most %d streams open at once and %v now, want one (two while it is opened anew)", n, streams)
	}
}
