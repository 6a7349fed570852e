package web_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/questbot/questbot/bot/texts"
	"github.com/questbot/questbot/sessions/board"
)

// Ensure the game page names the bot once, with its level in the words of Telegram, numbers the
// moves by moves (1. c3-d4 f6-g5 2. …), and the lobby offers the levels in those words.
func TestPageBotLevelAndMoveNumbers(t *testing.T) {
	t.Parallel()
	a := newPagesAPI(t, "russian", "", "ru")
	for i, m := range []string{"c3-d4", "f6-g5", "g3-h4"} {
		if _, err := a.game.Play(m); err != nil {
			t.Fatal(err)
		}
		a.movers = append(a.movers, i%2)
	}
	a.unseen = []int{}
	url := a.serve(t)
	ctx := pagesBrowser(t)
	if err := chromedp.Do(ctx, chromedp.Navigate(fmt.Sprintf("%s/play/%d", url, pagesGameID)), pagesBoardReady,
		pagesUntil(`document.querySelectorAll("#moves li").length === 3`)); err != nil {
		t.Fatalf("open the game: %v", err)
	}
	if got := pagesText(ctx, t, "#players .player[data-seat='1'] .name"); got != "Бот (сильный)" {
		t.Errorf("the bot's seat: %q", got)
	}
	numbers, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#moves li")].map(li =>
		(li.dataset.number ? li.dataset.number + " " : "") + li.textContent)`))
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"1. c3-d4", "f6-g5", "2. g3-h4"}; !slices.Equal(numbers, want) {
		t.Errorf("the moves %q, want %q", numbers, want)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(url+"/games"),
		pagesUntil(`document.querySelectorAll("#variant option").length === 2`)); err != nil {
		t.Fatalf("open the lobby: %v", err)
	}
	levels, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#level option")].map(o => o.textContent)`))
	if err != nil {
		t.Fatal(err)
	}
	ru := texts.For("ru")
	want := []string{ru.Level("russian", board.BotEasy), ru.Level("russian", board.BotNormal), ru.Level("russian", board.BotStrong)}
	if !slices.Equal(levels, want) || !strings.HasPrefix(levels[0], "лёгкий") || !strings.HasPrefix(levels[2], "сильный") {
		t.Errorf("the levels offered %q, want %q", levels, want)
	}
	// Another game: its own levels, with their ratings, the level chosen kept.
	chess, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`(() => {
		document.getElementById("level").value = "strong";
		const v = document.getElementById("variant");
		v.value = "chess"; v.dispatchEvent(new Event("change"));
		return [...document.querySelectorAll("#level option")].map(o => o.textContent).concat(document.getElementById("level").value); })()`))
	if err != nil {
		t.Fatal(err)
	}
	want = []string{ru.Level("chess", board.BotEasy), ru.Level("chess", board.BotNormal), ru.Level("chess", board.BotStrong), "strong"}
	if !slices.Equal(chess, want) || !strings.Contains(chess[2], "сильный (≈") {
		t.Errorf("the chess levels offered %q, want %q", chess, want)
	}
}

// Ensure the game page shows the answer to the player's draw offer when it was declined (the
// bot's, at once), and offers no second draw that move.
func TestPageDrawDeclined(t *testing.T) {
	t.Parallel()
	a := newPagesAPI(t, "russian", "", "ru")
	a.declined = map[string]any{"seat": 1, "text": "Бот отказывается от ничьей."}
	url := a.serve(t)
	ctx := pagesBrowser(t)
	if err := chromedp.Do(ctx, chromedp.Navigate(fmt.Sprintf("%s/play/%d", url, pagesGameID)), pagesBoardReady,
		pagesUntil(`!document.getElementById("offer").hidden`)); err != nil {
		t.Fatalf("open the game: %v", err)
	}
	if got := pagesText(ctx, t, "#offer"); got != "Бот отказывается от ничьей." {
		t.Errorf("the answer shown: %q", got)
	}
	hidden, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.getElementById("draw-offer").hidden`))
	if err != nil || !hidden {
		t.Errorf("a second offer is offered: %v", err)
	}
}
