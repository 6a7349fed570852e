package telegram_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/questbot/questbot/bot/emulator/webchat"
	"github.com/questbot/questbot/bot/testkit/bottest"
	"github.com/questbot/questbot/bot/testkit/wait"
	"github.com/questbot/questbot/bot/texts"
	"github.com/questbot/questbot/sessions/board"
)

// browser starts a headless Chromium for the test.
func browser(t *testing.T) context.Context {
	t.Helper()
	return bottest.Browser(t, wait.Hang, 0, 0)
}

// pageBoard is what the page shows of the newest board picture of the first column.
type pageBoard struct {
	ID      string   `json:"id"`
	Src     string   `json:"src"`
	Width   int      `json:"width"` // of the picture as loaded
	Caption string   `json:"caption"`
	Buttons []string `json:"buttons"`
}

const pageBoardJS = `(() => {
  const all = [...document.querySelectorAll(".chat:nth-of-type(1) .msg.bot.has-photo")];
  const m = all[all.length - 1];
  if (!m) return {};
  const img = m.querySelector("img"), cap = m.querySelector(".caption");
  return {id: m.dataset.id, src: img.src, width: img.complete ? img.naturalWidth : 0, caption: cap ? cap.textContent : "",
    buttons: [...m.querySelectorAll(".keyboard button")].map(b => b.textContent)};
})()`

// waitPage polls the page until its board passes ok.
func waitPage(t *testing.T, ctx context.Context, what string, ok func(pageBoard) bool) pageBoard {
	t.Helper()
	var last pageBoard
	deadline := time.Now().Add(wait.Hang)
	for {
		got, err := chromedp.Run(ctx, chromedp.Evaluate[pageBoard](pageBoardJS))
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if ok(got) {
			return got
		}
		last = got
		if time.Now().After(deadline) {
			t.Fatalf("%s: the page shows %+v", what, last)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// click presses the button labelled label on the newest message of the first column that has
// one, once it is there.
func click(label string) chromedp.Action[chromedp.Void] {
	return chromedp.Poll[chromedp.Void](fmt.Sprintf(`(() => {
  const buttons = [...document.querySelectorAll(".chat:nth-of-type(1) .msg.bot .keyboard button")].filter(b => b.textContent === %q);
  if (!buttons.length) return false;
  buttons[buttons.length - 1].click();
  return true;
})()`, label), chromedp.WithPollingTimeout(wait.Hang))
}

// Ensure the web chat shows the board pictures with their captions and buttons: a user starts a
// game of chess against the bot from /games in the page, taps a pawn and its square, and sees
// the picture, caption and buttons follow, the bot's answer included.
func TestWebChatBoard(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	chat := webchat.New(e.Emu, e.Bot)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/bot") || strings.HasPrefix(r.URL.Path, "/file/bot") {
			e.Emu.ServeHTTP(w, r)
			return
		}
		chat.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	e.Srv = srv
	e.seed.Store(7) // the player has White
	e.start(t)
	ctx := browser(t)
	err := chromedp.Do(ctx,
		chromedp.Navigate(srv.URL+"/"),
		chromedp.WaitVisible("#add-user"),
		chromedp.SendKeys("#new-name", "Ann"),
		chromedp.SetValue("#new-lang", "en"),
		chromedp.Click("#add-user"),
		chromedp.Poll[chromedp.Void](`document.querySelectorAll(".chat").length >= 1`),
		chromedp.SendKeys(".chat:nth-of-type(1) input.text", "/games"),
		chromedp.Click(".chat:nth-of-type(1) button.send"),
		click("Chess"),
		click("🤖 Play the bot"),
		click(texts.For("en").LevelChoice("chess", board.BotEasy)),
	)
	if err != nil {
		t.Fatal(err)
	}
	first := waitPage(t, ctx, "the board", func(b pageBoard) bool { return b.Width > 0 && slices.Contains(b.Buttons, "e2") })
	if first.Width < 640 || !strings.Contains(first.Caption, "Chess · move 1") || !strings.Contains(first.Caption, "Your turn.") ||
		!slices.Contains(first.Buttons, "🏳 Resign") {
		t.Fatalf("the board: %+v", first)
	}
	if err := chromedp.Do(ctx, click("e2")); err != nil {
		t.Fatal(err)
	}
	chosen := waitPage(t, ctx, "e2 chosen", func(b pageBoard) bool { return strings.Contains(b.Caption, "Chosen: e2") && b.Width > 0 })
	if chosen.ID != first.ID || chosen.Src == first.Src || !slices.Contains(chosen.Buttons, "e4") ||
		!slices.Contains(chosen.Buttons, "↩ Back") {
		t.Fatalf("after e2: %+v (before %+v)", chosen, first)
	}
	if err := chromedp.Do(ctx, click("e4")); err != nil {
		t.Fatal(err)
	}
	answered := waitPage(t, ctx, "the bot's answer", func(b pageBoard) bool {
		return strings.Contains(b.Caption, "Your turn.") && strings.Contains(b.Caption, "("+texts.For("en").BotName("chess", board.BotEasy)+")") && b.Width > 0
	})
	if answered.ID != first.ID || len(answered.Buttons) < 3 {
		t.Errorf("after the bot's answer: %+v", answered)
	}
	if bd := e.board(t, int64(e.QueryInt(t, `SELECT max(id) FROM board_session`))); bd.Ply() != 2 || bd.Moves[0].Text != "e2e4" {
		t.Errorf("the game: %d plies, %+v", bd.Ply(), bd.Moves)
	}
}
