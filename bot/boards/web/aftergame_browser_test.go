package web_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/questbot/questbot/bot/boards/web"
	"github.com/questbot/questbot/bot/testkit/wait"
	"github.com/questbot/questbot/sessions/board"
)

// Ensure, in headless Chromium, that a finished game's page shows the rating changes and a
// rematch button; Bob's press offers the rematch, Ann accepts it over the API, and Bob's page
// goes on to the new game by itself; his archive's page lists the finished game against Ann,
// and its filter of the bot's games finds none.
func TestAfterGameAndArchivePages(t *testing.T) {
	t.Parallel()
	e := newEnv(t, web.Config{Pages: web.Pages()})
	ann := e.login(t, 1, "Ann")
	bob := e.login(t, 2, "Bob")
	id, _, _ := foolsMate(t, ann, bob, "corr1d")
	link := e.link(t, 2)
	ctx := pagesBrowser(t)
	if err := chromedp.Do(ctx, chromedp.Navigate(link)); err != nil {
		t.Fatalf("open the login link: %v", err)
	}
	pagesWaitLocation(ctx, t, e.srv.URL+"/games")
	if err := chromedp.Do(ctx, chromedp.Navigate(fmt.Sprintf("%s/play/%d", e.srv.URL, id)),
		pagesUntil(`document.querySelectorAll("#after .rating-change").length === 2 && !!document.querySelector("#after button.primary")`)); err != nil {
		t.Fatalf("the finished game's page: %v (status %q)", err, pagesText(ctx, t, "#status"))
	}
	if got := pagesText(ctx, t, "#after"); !strings.Contains(got, "Ann: rating ") || !strings.Contains(got, "Bob: rating ") {
		t.Errorf("after the game: %q", got)
	}
	if err := chromedp.Do(ctx, chromedp.Click("#after button.primary"),
		pagesUntil(`document.getElementById("after").textContent.includes("waiting for the answer")`)); err != nil {
		t.Fatalf("offer the rematch: %v (status %q)", err, pagesText(ctx, t, "#status"))
	}
	var st web.GameState
	ann.must(t, "POST", fmt.Sprintf("/api/v1/games/%d/rematch/accept", id), map[string]any{}, 200, &st)
	next := st.After.Rematch.ID
	pagesWaitLocation(ctx, t, fmt.Sprintf("%s/play/%d", e.srv.URL, next))
	if bd := e.board(t, next); bd.Status != board.Active {
		t.Fatalf("the rematch is %s", bd.Status)
	}

	if err := chromedp.Do(ctx, chromedp.Navigate(e.srv.URL+"/players/me/games"),
		pagesUntil(`document.querySelectorAll("#games li").length === 1`)); err != nil {
		t.Fatalf("the archive's page: %v (status %q)", err, pagesText(ctx, t, "#status"))
	}
	if got := pagesText(ctx, t, "#games li"); !strings.Contains(got, "Ann") || !strings.Contains(got, "Chess") {
		t.Errorf("the archive lists %q", got)
	}
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(() => { const o = document.getElementById("opponent"); o.value = "bot";
		document.querySelector("#filters button[type=submit]").click(); return true; })()`)); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, pagesUntil(`!document.getElementById("empty").hidden && document.querySelectorAll("#games li").length === 0`)); err != nil {
		t.Fatalf("filter the archive: %v", err)
	}
	wait.For(t, wait.Hang, "the address to keep the filter", func() bool {
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`location.search === "?opponent=bot"`))
		return err == nil && ok
	})
}
