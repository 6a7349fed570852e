package webchat_test

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"strconv"
	"testing"

	"github.com/chromedp/chromedp"
	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"

	"github.com/questbot/questbot/bot/emulator/tgemu"
	"github.com/questbot/questbot/bot/testkit/wait"
)

// boardPNG is a w×h picture in one colour, standing in for a rendered board.
func boardPNG(t *testing.T, w, h int, c color.Color) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, c)
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// shown is what the page shows of the bot's photo message in the first column.
type shown struct {
	ID      string   `json:"id"`
	Count   int      `json:"count"` // bot messages with a photo
	Width   int      `json:"width"` // of the picture as loaded
	Height  int      `json:"height"`
	Caption string   `json:"caption"`
	Bold    string   `json:"bold"`
	Buttons []string `json:"buttons"`
	Edited  bool     `json:"edited"`
}

const shownJS = `(() => {
  const all = [...document.querySelectorAll(".chat:nth-of-type(1) .msg.bot")].filter(m => m.querySelector("img"));
  const m = all[all.length - 1];
  if (!m) return {count: 0};
  const img = m.querySelector("img"), cap = m.querySelector(".caption"), b = m.querySelector(".caption b");
  return {id: m.dataset.id, count: all.length, width: img.complete ? img.naturalWidth : 0, height: img.complete ? img.naturalHeight : 0,
    caption: cap ? cap.textContent : "", bold: b ? b.textContent : "",
    buttons: [...m.querySelectorAll(".keyboard button")].map(b => b.textContent), edited: !!m.querySelector(".edited")};
})()`

// waitShown polls the page until what it shows of the photo message passes ok.
func waitShown(t *testing.T, ctx context.Context, what string, ok func(shown) bool) shown {
	t.Helper()
	var last shown
	wait.ForShowing(t, wait.Hang, what, func() bool {
		var err error
		if last, err = chromedp.Run(ctx, chromedp.Evaluate[shown](shownJS)); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		return ok(last)
	}, func() string { return fmt.Sprintf("the page shows %+v", last) })
	return last
}

// Ensure the page shows a photo the bot sends, with its caption and buttons, replaces it in
// place when the bot edits the media or the caption, and that the photo's buttons work.
func TestWebChatPhotos(t *testing.T) {
	url := startStack(t)
	ctx := browser(t)
	if err := chromedp.Do(ctx, chromedp.Navigate(url+"/"), chromedp.WaitVisible("#add-user"), addUser("Ann", "en", 1)); err != nil {
		t.Fatal(err)
	}
	user, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector(".chat").dataset.user`))
	if err != nil {
		t.Fatal(err)
	}
	chatID, _ := strconv.ParseInt(user, 10, 64)
	// The bot's side, through the Telegram library as a bot talks to the Bot API.
	api, err := tgbotapi.NewBotAPIWithClient(stackToken, tgemu.Endpoint(url), http.DefaultClient)
	if err != nil {
		t.Fatal(err)
	}

	photo := tgbotapi.NewPhoto(chatID, tgbotapi.FileBytes{Name: "board.png", Bytes: boardPNG(t, 300, 200, color.RGBA{0, 128, 0, 255})})
	photo.Caption = "<b>White</b> to move · move 1"
	photo.ParseMode = tgbotapi.ModeHTML
	photo.ReplyMarkup = tgbotapi.NewInlineKeyboardMarkup(tgbotapi.NewInlineKeyboardRow(
		tgbotapi.NewInlineKeyboardButtonData("e2-e4", "move e2e4"), tgbotapi.NewInlineKeyboardButtonData("Resign", "resign")))
	sent, err := api.Send(photo)
	if err != nil {
		t.Fatal(err)
	}
	first := waitShown(t, ctx, "the photo", func(s shown) bool { return s.Count == 1 && s.Width > 0 })
	if first.Width != 300 || first.Height != 200 || first.Caption != "White to move · move 1" || first.Bold != "White" ||
		fmt.Sprint(first.Buttons) != "[e2-e4 Resign]" || first.Edited {
		t.Fatalf("the page shows %+v", first)
	}

	// The next position replaces the picture, caption and buttons of the same message.
	next := tgbotapi.NewInputMediaPhoto(tgbotapi.FileBytes{Name: "board.png", Bytes: boardPNG(t, 200, 300, color.Black)})
	next.Caption = "<b>Black</b> to move · move 2"
	next.ParseMode = tgbotapi.ModeHTML
	kb := tgbotapi.NewInlineKeyboardMarkup(tgbotapi.NewInlineKeyboardRow(tgbotapi.NewInlineKeyboardButtonData("Delete", "delete")))
	edit := tgbotapi.EditMessageMediaConfig{BaseEdit: tgbotapi.BaseEdit{ChatID: chatID, MessageID: sent.MessageID, ReplyMarkup: &kb}, Media: next}
	if _, err := api.Request(edit); err != nil {
		t.Fatal(err)
	}
	second := waitShown(t, ctx, "the edited photo", func(s shown) bool { return s.Width == 200 })
	if second.ID != first.ID || second.Count != 1 || second.Height != 300 || second.Caption != "Black to move · move 2" ||
		fmt.Sprint(second.Buttons) != "[Delete]" || !second.Edited {
		t.Fatalf("after editMessageMedia the page shows %+v (before: %+v)", second, first)
	}

	// A new caption alone keeps the picture.
	capt := tgbotapi.NewEditMessageCaption(chatID, sent.MessageID, "Black resigned")
	capt.ReplyMarkup = &kb
	if _, err := api.Request(capt); err != nil {
		t.Fatal(err)
	}
	third := waitShown(t, ctx, "the new caption", func(s shown) bool { return s.Caption == "Black resigned" })
	if third.ID != first.ID || third.Width != 200 || fmt.Sprint(third.Buttons) != "[Delete]" {
		t.Fatalf("after editMessageCaption the page shows %+v", third)
	}

	// The photo's button reaches the bot, which deletes the message.
	err = chromedp.Do(ctx,
		chromedp.Click(col(1, `.msg.has-photo .keyboard button[data-data="delete"]`)),
		chromedp.Poll[chromedp.Void](`document.querySelectorAll(".chat:nth-of-type(1) .msg.has-photo").length === 0`,
			chromedp.WithPollingTimeout(wait.Hang)),
	)
	if err != nil {
		t.Fatalf("the photo's button: %v", err)
	}
}
