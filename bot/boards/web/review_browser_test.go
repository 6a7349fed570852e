package web_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/questbot/questbot/bot/boards/web"
)

// Ensure, in headless Chromium, the review of a finished game: the arrow keys and the buttons
// step the picture and the move list's mark through the plies, the page says it looks back
// and goes back to the game; the flip shows the other seat's picture; the analysis of the
// position before the mate finds it.
func TestReviewPage(t *testing.T) {
	t.Parallel()
	e := newEnv(t, web.Config{Pages: web.Pages()})
	ann := e.login(t, 1, "Ann")
	bob := e.login(t, 2, "Bob")
	id, _, _ := foolsMate(t, ann, bob, "corr1d")
	seat := bob.state(t, id).Seat
	ctx := pagesBrowser(t)
	if err := chromedp.Do(ctx, chromedp.Navigate(e.link(t, 2))); err != nil {
		t.Fatalf("open the login link: %v", err)
	}
	pagesWaitLocation(ctx, t, e.srv.URL+"/games")
	if err := chromedp.Do(ctx, chromedp.Navigate(fmt.Sprintf("%s/play/%d", e.srv.URL, id)),
		pagesUntil(`document.querySelectorAll("#moves .move").length === 4 && document.getElementById("picture").complete`)); err != nil {
		t.Fatalf("the finished game's page: %v (status %q)", err, pagesText(ctx, t, "#status"))
	}
	// shows waits until the page shows the position after ply from seat's side, the picture
	// drawn, and the list marks that ply (none when the page follows the game).
	shows := func(what string, ply, seat int, back bool) {
		t.Helper()
		cond := fmt.Sprintf(`(() => { const img = document.getElementById("picture"); const u = new URL(img.src);
			const cur = document.querySelector("#moves .move.current");
			return img.complete && img.naturalWidth > 0 && u.searchParams.get("ply") === "%d" && u.searchParams.get("seat") === "%d" &&
				(%t ? !!cur && cur.dataset.ply === "%d" || %d === 0 && !cur : !cur) && document.getElementById("reviewing").hidden === %t; })()`,
			ply, seat, back, ply, ply, !back)
		if err := chromedp.Do(ctx, pagesUntil(cond)); err != nil {
			src, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("picture").src`))
			t.Fatalf("%s: %v (picture %s, status %q)", what, err, src, pagesText(ctx, t, "#status"))
		}
	}
	key := func(k string) {
		t.Helper()
		if err := chromedp.Do(ctx, chromedp.KeyEvent(k)); err != nil {
			t.Fatal(err)
		}
	}
	click := func(sel string) {
		t.Helper()
		if err := chromedp.Do(ctx, chromedp.Click(sel)); err != nil {
			t.Fatal(err)
		}
	}
	shows("the game", 4, seat, false)
	key(kb.ArrowLeft)
	shows("← once", 3, seat, true)
	if got := pagesText(ctx, t, "#reviewing-text"); !strings.Contains(got, "g4") || !strings.Contains(got, "3 of 4") {
		t.Errorf("looking back says %q", got)
	}
	key(kb.ArrowLeft)
	shows("← twice", 2, seat, true)
	key(kb.Home)
	shows("Home", 0, seat, true)
	key(kb.ArrowRight)
	shows("→", 1, seat, true)
	key(kb.End)
	shows("End", 4, seat, false)
	click("#first")
	shows("the first button", 0, seat, true)
	click("#forward")
	click("#forward")
	shows("the forward button twice", 2, seat, true)
	click("#live-view")
	shows("back to the game", 4, seat, false)
	click("#back")
	shows("the back button", 3, seat, true)
	click("#flip")
	shows("flipped", 3, 1-seat, true)
	click("#analyse")
	if err := chromedp.Do(ctx, pagesUntil(`document.getElementById("analysis").textContent.includes("Best line")`)); err != nil {
		t.Fatalf("the analysis: %v (%q)", err, pagesText(ctx, t, "#analysis"))
	}
	if got := pagesText(ctx, t, "#analysis"); !strings.Contains(got, "Evaluation: mate in 1") || !strings.Contains(got, "Best line: Qh4#") {
		t.Errorf("the analysis says %q", got)
	}
	click("#last")
	shows("the last button, flipped", 4, 1-seat, false)
	if !pagesHidden(ctx, t, "#analysis") {
		t.Error("the analysis of ply 3 stays shown at ply 4")
	}
}

// pagesHidden reports whether the element of the selector is hidden.
func pagesHidden(ctx context.Context, t *testing.T, sel string) bool {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[bool](fmt.Sprintf(`document.querySelector(%q).hidden`, sel)))
	if err != nil {
		t.Fatalf("%s hidden: %v", sel, err)
	}
	return v
}
