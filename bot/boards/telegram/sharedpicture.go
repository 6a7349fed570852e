package telegram

import (
	"context"
	"fmt"
	"html"
	"strings"

	"github.com/questbot/questbot/bot"
	"github.com/questbot/questbot/bot/boards"
	"github.com/questbot/questbot/bot/boards/telegram/tgstore"
	"github.com/questbot/questbot/bot/texts"
)

// # The picture of a board a whole chat sees
//
// A shared message (inline.go) shows the board as its picture, captioned, where Telegram lets the
// bot change the picture:
//
//   - A group's message is the bot's own message in a chat, which takes uploads: it is always a
//     photo, the picture uploaded as in a private chat (White's or the first side's view, the
//     squares of a move being entered marked), sent once and reused by its file_id. The member's
//     choice of the clock under the bot's question turns that text message into the photo
//     (editMessageMedia adds media to a text message).
//   - An inline message takes no upload: its photo changes only to a URL Telegram fetches or a
//     file_id it has. So it is a photo when the web game server has an address Telegram can
//     reach (PUBLIC_URL): the results offered are photos of the game's start position
//     (boards.Boards.StartPictureURL), and every later state edits the message's photo to the
//     address of the board's picture (boards.Boards.SharedPictureURL), which names the position,
//     so Telegram, which keeps what it fetched by URL, never shows an old one. Without
//     PUBLIC_URL there is no address to give, and uploading a picture per move into some chat
//     of the bot's only to take its file_id would fill that chat with pictures nobody reads:
//     the inline message is then the board as text (the engine's diagram), as before.
//
// Telegram changes neither kind of message into the other by the edits that keep the board
// (editMessageText refuses a photo), so the kind is chosen when the message is posted and
// recorded with it (tgstore.Shared.Picture): a challenge posted as a photo stays a photo, a
// text stays a text (the boards posted before pictures, and those of a bot without PUBLIC_URL),
// whatever the configuration says later. An inline photo whose address is gone (PUBLIC_URL
// removed since) keeps its last picture and has its caption edited. An edit of the picture that
// Telegram refuses for good (it could not fetch the address, it takes no upload) is replaced by
// the edit of the caption and the keyboard alone, so the game goes on; in a group, whose
// question may still be the text it was when the first picture failed, also by the board as
// text, edited into that text (of the two edits, the one that fits the message succeeds), which
// a later picture turns into the photo again.

// pictureResult ends the id of an inline result that posts a photo ("chess.blitz10+5.pic"), so
// that the chosen result says which kind of message it posted.
const pictureResult = ".pic"

// startPicture is the picture of a game's start position that its inline results show: its
// address on the web game server ("" without one) and its size.
type startPicture struct {
	url           string
	width, height int
}

// startPicture returns the picture of a game's start position for its inline results.
func (v *View) startPicture(variant string) (startPicture, error) {
	u, w, h, err := v.svc.StartPictureURL(variant)
	return startPicture{url: u, width: w, height: h}, err
}

// inlineChallenge is the inline result of a challenge to variant under the clock control: a
// photo of the start position, pic, when the web game server has an address, else the challenge
// as text.
func inlineChallenge(c *texts.Catalog, variant, control, who string, kb bot.Keyboard, pic startPicture) bot.InlineResult {
	id := variant + "." + control
	title := c.Game(variant) + " · " + c.Control(control)
	challenge := fmt.Sprintf(c.Shared.Challenge, who, html.EscapeString(gameAndClock(c, variant, control)))
	if pic.url == "" {
		return bot.InlineArticle{ID: id, Title: title, Description: c.Shared.About[variant], HTML: challenge, Keyboard: kb}
	}
	return bot.InlinePhoto{ID: id + pictureResult, PhotoURL: pic.url, ThumbURL: pic.url, Title: title,
		Description: c.Shared.About[variant], CaptionHTML: challenge, Keyboard: kb, Width: pic.width, Height: pic.height}
}

// chosenResult reads the id of a chosen inline result: the game, the clock, and whether the
// message posted is a photo.
func chosenResult(id string) (variant, control string, picture bool) {
	id, picture = strings.CutSuffix(id, pictureResult)
	variant, control, _ = strings.Cut(id, ".")
	return variant, control, picture
}

// showSharedPicture edits a shared board's photo message to show the board: an inline message's
// photo by the address of the board's picture, a group's by the picture uploaded (by its
// message_id, or by its ref until a press told the message_id).
func (v *View) showSharedPicture(ctx context.Context, tx bot.Tx, sc *boards.Scene, sh tgstore.Shared, l sharedLook) error {
	caption, kb := v.sharedText(sc, sh, l)
	state := sharedState(sh.Board)
	if sh.InlineMessageID != "" {
		u, err := v.svc.SharedPictureURL(sc.Board, sh.Invite)
		if err != nil {
			return err
		}
		fallback, err := bot.EditInlineCaption(sh.InlineMessageID, caption, kb)
		if err != nil {
			return err
		}
		if u == "" {
			// No address any more: the picture stays as it is.
			fallback.State = state
			return tx.Send(ctx, fallback)
		}
		req, err := bot.EditInlinePhoto(sh.InlineMessageID, u, caption, kb)
		if err != nil {
			return err
		}
		req.State, req.OnFailure = state, []bot.Request{fallback}
		return tx.Send(ctx, req)
	}
	path, draw, err := v.picture(sc, 0, l.ent)
	if err != nil {
		return err
	}
	asText := sh
	asText.Picture = false
	text, _ := v.sharedText(sc, asText, l)
	var req, captionEdit, textEdit bot.Request
	if sh.MessageID != 0 {
		req, err = bot.EditPhoto(sh.Chat, sh.MessageID, path, caption, kb)
		if err == nil {
			captionEdit, err = bot.EditCaption(sh.Chat, sh.MessageID, caption, kb)
		}
		if err == nil {
			textEdit, err = bot.EditHTML(sh.Chat, sh.MessageID, text, kb)
		}
	} else {
		req, err = bot.EditPhotoRef(sh.Chat, state, path, caption, kb)
		if err == nil {
			captionEdit, err = bot.EditCaptionRef(sh.Chat, state, caption, kb)
		}
		if err == nil {
			textEdit, err = bot.EditHTMLRef(sh.Chat, state, text, kb)
		}
	}
	if err != nil {
		return err
	}
	if kb == nil {
		textEdit.Params["reply_markup"] = `{"inline_keyboard":[]}`
	}
	req.State, req.OnFailure, req.Draw = state, []bot.Request{captionEdit, textEdit}, draw
	return tx.Send(ctx, req)
}
