package web_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/questbot/questbot/bot"
	"github.com/questbot/questbot/bot/boards/web"
	"github.com/questbot/questbot/bot/emulator/tgemu"
	"github.com/questbot/questbot/bot/emulator/webchat"
	"github.com/questbot/questbot/bot/testkit/wait"
	"github.com/questbot/questbot/engine"
)

// withWebChat serves the emulator's web chat beside the web game server on the env's address, as
// questbot serve does without a token: the chat's page and its calls, the game server's pages
// and API, one origin.
func (e *env) withWebChat() {
	games := *e.handler.Load()
	chat := webchat.New(e.Emu, e.Bot)
	var h http.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := r.URL.Path
		if p == "/" || strings.HasPrefix(p, "/api/") && !strings.HasPrefix(p, "/api/v1/") {
			chat.ServeHTTP(w, r)
			return
		}
		games.ServeHTTP(w, r)
	})
	e.handler.Store(&h)
}

// annColumn is the web chat's column of Ann, the first user the page adds.
var annColumn = fmt.Sprintf(`.chat[data-user="%d"]`, webchat.FirstUserID)

// chatClick presses the newest button labelled label in Ann's column of the web chat.
func chatClick(label string) chromedp.Action[chromedp.Void] {
	return chromedp.Poll[chromedp.Void](fmt.Sprintf(`(() => {
  const b = [...document.querySelectorAll(%q)].filter(b => b.textContent === %q);
  if (!b.length) return false;
  b[b.length - 1].click();
  return true;
})()`, annColumn+" .msg.bot .keyboard button", label), chromedp.WithPollingTimeout(wait.Hang))
}

// frameJS runs expr, an expression of doc (the Mini App's document), in the frame the web chat
// shows the Mini App in.
func frameJS(expr string) string {
	return fmt.Sprintf(`(() => { const f = document.querySelector("#webapp iframe");
	const doc = f && f.contentDocument; if (!doc || doc.readyState !== "complete") return false;
	return (%s); })()`, expr)
}

// Ensure the Done-when of the Mini App: Ann plays chess in the emulator's web chat against Bob,
// who is on Telegram; she presses "Open" under her board, the game's page opens over the chat
// identified as Ann without any /web link, she plays her move on it, and the move reaches Bob's
// board in his Telegram chat.
func TestMiniAppInWebChat(t *testing.T) {
	t.Parallel()
	e := newEnvWith(t, web.Config{Pages: web.Pages()}, envOptions{limits: &bot.NoLimits, think: true, testEnv: true})
	e.withWebChat()
	const bob = 2
	e.User(bob, "Bob", "en")
	after := e.LastID(bob)
	e.Send(t, bob, "/games")
	for _, label := range []string{"Chess", "🔎 Find an opponent", "1 day a move"} {
		m := e.WaitMessage(t, bob, after, "a menu with "+label, func(m tgemu.Message) bool { return m.Button(label) != "" })
		after = m.ID
		e.Press(t, bob, m, label)
	}
	e.WaitTextAfter(t, bob, after, "Waiting for an opponent")

	ctx := pagesBrowser(t)
	err := chromedp.Do(ctx,
		chromedp.Navigate(e.srv.URL+"/"),
		chromedp.WaitVisible("#add-user"),
		chromedp.SendKeys("#new-name", "Ann"),
		chromedp.SetValue("#new-lang", "en"),
		chromedp.Click("#add-user"),
		chromedp.Poll[chromedp.Void](fmt.Sprintf(`document.querySelector(%q) !== null`, annColumn)),
		chromedp.SendKeys(annColumn+" input.text", "/games"),
		chromedp.Click(annColumn+" button.send"),
		chatClick("Chess"),
		chatClick("🔎 Find an opponent"),
		chatClick("1 day a move"),
	)
	if err != nil {
		t.Fatal(err)
	}
	const ann = webchat.FirstUserID
	id := int64(e.QueryInt(t, `SELECT max(id) FROM board_session`))
	wait.For(t, wait.Hang, "the game between Ann and Bob", func() bool {
		bd := e.board(t, id)
		return bd.Seats[0].User != 0 && bd.Seats[1].User != 0
	})
	bd := e.board(t, id)
	annSeat := 0
	if bd.Seats[1].User == ann {
		annSeat = 1
	}
	if bd.Seats[annSeat].User != ann || bd.Seats[1-annSeat].User != bob {
		t.Fatalf("the seats: %+v", bd.Seats)
	}
	g, err := engine.NewGame("chess")
	if err != nil {
		t.Fatal(err)
	}
	if int(g.ToMove()) != annSeat {
		// Bob has White: he types his first move in Telegram.
		e.Send(t, bob, "e2e4")
		if _, err := g.Play("e2e4"); err != nil {
			t.Fatal(err)
		}
		wait.For(t, wait.Hang, "Bob's move", func() bool { return e.board(t, id).Ply() == 1 })
	}

	// Ann's board in the web chat has the Mini App's button; pressing it opens the game's page.
	if err := chromedp.Do(ctx, chatClick("📱 Open")); err != nil {
		t.Fatal(err)
	}
	err = chromedp.Do(ctx, pagesUntil(`!document.getElementById("webapp").hidden`),
		pagesUntil(frameJS(fmt.Sprintf(`doc.location.pathname === "/play/%d" && doc.location.hash.includes("tgWebAppData=")`, id))),
		pagesUntil(frameJS(fmt.Sprintf(`doc.querySelectorAll("#moves li").length === %d && doc.querySelectorAll("#marks .mark.piece").length > 0`, g.Ply()))))
	if err != nil {
		t.Fatalf("the Mini App: %v (status %q)", err, frameText(ctx, t, "#status"))
	}
	type who struct {
		ID   int64  `json:"id"`
		Name string `json:"name"`
	}
	me, err := chromedp.Run(ctx, chromedp.Evaluate[who](frameJS(
		`doc.defaultView.fetch("/api/v1/me").then(r => r.json()).then(d => ({id: d.user.id, name: d.user.name}))`), chromedp.EvalAwaitPromise))
	if err != nil || me.ID != ann || me.Name != "Ann" {
		t.Fatalf("the Mini App is logged in as %+v (%v), want Ann %d", me, err, ann)
	}
	if n := e.QueryInt(t, `SELECT count(*) FROM web_login_ticket`); n != 0 {
		t.Errorf("%d login tickets were issued: the Mini App needs no /web", n)
	}

	// Ann plays her move on the page, by the picture, in the frame.
	var mv engine.Move
	var path []string
	for _, m := range g.LegalMoves() {
		if p, _ := g.Describe(m); len(p) == 2 {
			mv, path = m, p
			break
		}
	}
	im := g.ImageMap(engine.Player(annSeat))
	target := frameJS(fmt.Sprintf(`doc.querySelector('#marks .mark.target[data-square=%q]') !== null`, path[1]))
	pagesTapUntil(ctx, t, fmt.Sprintf("the target %s of %s", path[1], path[0]),
		func() { tapFrame(ctx, t, pagesSpot(t, im, path[0]), im) }, target)
	tapFrame(ctx, t, pagesSpot(t, im, path[1]), im)
	if _, err := g.Play(mv.String()); err != nil {
		t.Fatal(err)
	}
	wait.For(t, wait.Hang, "Ann's move on the board", func() bool { return e.board(t, id).Ply() == g.Ply() })
	// It reaches Bob's board in Telegram: his turn, Ann's move the last.
	e.WaitFor(t, "Ann's move on Bob's board in Telegram", func() bool {
		msgs := e.BotMessages(bob)
		for i := len(msgs) - 1; i >= 0; i-- {
			if m := msgs[i]; m.Photo != "" {
				return strings.Contains(m.Text, "Your turn.") && strings.Contains(m.Text, "Last move:") && strings.Contains(m.Text, "(Ann)")
			}
		}
		return false
	})
}

// frameText is the text of the element of the selector in the Mini App's frame.
func frameText(ctx context.Context, t *testing.T, sel string) string {
	t.Helper()
	s, err := chromedp.Run(ctx, chromedp.Evaluate[string](frameJS(fmt.Sprintf(`(doc.querySelector(%q) || {}).textContent || ""`, sel))))
	if err != nil {
		return err.Error()
	}
	return s
}

// tapFrame clicks the centre of a square of the picture in the Mini App's frame, laid out as im.
func tapFrame(ctx context.Context, t *testing.T, s engine.SquareSpot, im engine.ImageMap) {
	t.Helper()
	r, err := chromedp.Run(ctx, chromedp.Evaluate[pagesRect](`(() => {
		const f = document.querySelector("#webapp iframe").getBoundingClientRect();
		const r = document.querySelector("#webapp iframe").contentDocument.getElementById("picture").getBoundingClientRect();
		return {Left: f.left + r.left, Top: f.top + r.top, Width: r.width, Height: r.height}; })()`))
	if err != nil {
		t.Fatalf("measure the picture: %v", err)
	}
	x := r.Left + float64(s.X)/float64(im.Width)*r.Width
	y := r.Top + float64(s.Y)/float64(im.Height)*r.Height
	if err := chromedp.Do(ctx, chromedp.MouseClickXY(x, y)); err != nil {
		t.Fatalf("tap %s: %v", s.Name, err)
	}
}
