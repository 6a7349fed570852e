package bot

import (
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"strings"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"
)

// # Inline messages
//
// A message posted through the bot's inline mode (a user typed "@bot …" in any chat and chose a
// result) belongs to a chat the bot may not be in and never learns: Telegram names it by an
// inline_message_id alone, edits it by that id, and reports the presses of its buttons without
// a message. The outbox still needs a key to order and pace its requests by: InlineKey gives each
// inline message its own, from the id, in a range no Telegram chat uses (chat ids have at most 52
// significant bits; these keys have bit 62 set), so an inline message's edits never queue behind
// a user's or a group's, never pace a real chat, never mark a user blocked (a 403 about an inline
// message fails its request alone), and a state (Request.State) supersedes only the pending edits
// of the same inline message (the edit's inline_message_id is what supersedeSQL compares, as it
// compares a chat's message_id).

// inlineKeyBit is the bit every inline message's key has and no chat id has.
const inlineKeyBit = int64(1) << 62

// InlineKey is the outbox key (Request.ChatID) of the inline message id: the same for the same
// id, never a Telegram chat's id.
func InlineKey(inlineMessageID string) int64 {
	h := fnv.New64a()
	h.Write([]byte(inlineMessageID))
	return inlineKeyBit | int64(h.Sum64()&uint64(inlineKeyBit-1))
}

// IsInlineKey reports whether an outbox key is an inline message's (InlineKey), not a chat's.
func IsInlineKey(chat int64) bool { return chat&inlineKeyBit != 0 && chat > 0 }

// ErrInlineMedia is an inline message's media given as a local file: Telegram edits an inline
// message's media only from a URL or a file_id it has.
var ErrInlineMedia = errors.New("bot: an inline message's media is a URL or a file_id, not an upload")

// maxInlineResults is the most results an answer to an inline query may carry.
const maxInlineResults = 50

// InlineResult is one result of an answer to an inline query (InlineArticle, InlinePhoto).
type InlineResult interface {
	// result returns the result as Telegram reads it.
	result() (map[string]any, error)
}

// InlineArticle is a result that posts an HTML text with an optional keyboard. Title is what the
// list shows, Description the line under it, ThumbURL its picture (optional).
type InlineArticle struct {
	ID, Title, Description, ThumbURL string
	HTML                             string
	Keyboard                         Keyboard
}

func (a InlineArticle) result() (map[string]any, error) {
	if strings.TrimSpace(a.Title) == "" {
		return nil, fmt.Errorf("%w: article %q has no title", ErrEmpty, a.ID)
	}
	if strings.TrimSpace(a.HTML) == "" {
		return nil, fmt.Errorf("%w: article %q has no text", ErrEmpty, a.ID)
	}
	if utf16Len(a.HTML) > MaxTextLen {
		return nil, fmt.Errorf("%w: article %q", ErrTooLong, a.ID)
	}
	r := map[string]any{"type": "article", "id": a.ID, "title": a.Title,
		"input_message_content": map[string]any{"message_text": a.HTML, "parse_mode": tgbotapi.ModeHTML}}
	if a.Description != "" {
		r["description"] = a.Description
	}
	if a.ThumbURL != "" {
		r["thumbnail_url"] = a.ThumbURL
	}
	return r, withKeyboard(r, a.Keyboard)
}

// InlinePhoto is a result that posts a photo by its URL (a JPEG on a server Telegram can reach)
// with an HTML caption and an optional keyboard. Width and Height are the photo's size, when
// known: some of Telegram's clients list a photo only when they know its shape.
type InlinePhoto struct {
	ID, PhotoURL, ThumbURL, Title, Description string
	CaptionHTML                                string
	Keyboard                                   Keyboard
	Width, Height                              int
}

func (p InlinePhoto) result() (map[string]any, error) {
	if !strings.HasPrefix(p.PhotoURL, "https://") && !strings.HasPrefix(p.PhotoURL, "http://") {
		return nil, fmt.Errorf("%w: photo %q at %q", ErrInlineMedia, p.ID, p.PhotoURL)
	}
	if utf16Len(p.CaptionHTML) > MaxCaptionLen {
		return nil, fmt.Errorf("%w: caption of photo %q", ErrTooLong, p.ID)
	}
	thumb := p.ThumbURL
	if thumb == "" {
		thumb = p.PhotoURL
	}
	r := map[string]any{"type": "photo", "id": p.ID, "photo_url": p.PhotoURL, "thumbnail_url": thumb}
	if p.Title != "" {
		r["title"] = p.Title
	}
	if p.Description != "" {
		r["description"] = p.Description
	}
	if p.Width > 0 && p.Height > 0 {
		r["photo_width"], r["photo_height"] = p.Width, p.Height
	}
	if p.CaptionHTML != "" {
		r["caption"], r["parse_mode"] = p.CaptionHTML, tgbotapi.ModeHTML
	}
	return r, withKeyboard(r, p.Keyboard)
}

// withKeyboard sets the reply_markup of a result when it has a keyboard.
func withKeyboard(r map[string]any, kb Keyboard) error {
	if kb == nil {
		return nil
	}
	raw, err := kb.markup()
	if err != nil {
		return err
	}
	r["reply_markup"] = json.RawMessage(raw)
	return nil
}

// InlineAnswer is how an answer to an inline query is kept by Telegram's clients: CacheTime in
// seconds (0: Telegram's default of 300), Personal for results that depend on who asks;
// NextOffset, when set, is the offset the client sends in the same query for more results
// (the query's Offset) once the user scrolls to the end of these.
type InlineAnswer struct {
	CacheTime  int
	Personal   bool
	NextOffset string
}

// AnswerInline returns the answerInlineQuery request of an inline query from the user whose
// private chat is chat (the query's ordering key: its answer goes in that chat's answers lane).
// The results' ids must be distinct, 1 to 64 bytes; at most 50 results.
func AnswerInline(chat int64, queryID string, results []InlineResult, o InlineAnswer) (Request, error) {
	if len(results) > maxInlineResults {
		return Request{}, fmt.Errorf("bot: %d inline results, at most %d", len(results), maxInlineResults)
	}
	list := make([]map[string]any, 0, len(results))
	seen := map[string]bool{}
	for _, res := range results {
		r, err := res.result()
		if err != nil {
			return Request{}, err
		}
		id, _ := r["id"].(string)
		if id == "" || len(id) > 64 || seen[id] {
			return Request{}, fmt.Errorf("bot: inline result id %q is empty, longer than 64 bytes or repeated", id)
		}
		seen[id] = true
		list = append(list, r)
	}
	raw, err := json.Marshal(list)
	if err != nil {
		return Request{}, err
	}
	params := map[string]string{"inline_query_id": queryID, "results": string(raw)}
	if o.CacheTime > 0 {
		params["cache_time"] = fmt.Sprint(o.CacheTime)
	}
	if o.Personal {
		params["is_personal"] = "true"
	}
	if o.NextOffset != "" {
		params["next_offset"] = o.NextOffset
	}
	return Request{Method: "answerInlineQuery", ChatID: chat, Params: params}, nil
}

// inlineParams are the parameters that name an inline message.
func inlineParams(id string) (map[string]string, error) {
	if id == "" {
		return nil, errors.New("bot: empty inline_message_id")
	}
	return map[string]string{"inline_message_id": id}, nil
}

// EditInlineHTML returns the editMessageText request of an inline message (a nil keyboard
// removes it), queued under the message's own key (InlineKey).
func EditInlineHTML(inlineMessageID, html string, kb Keyboard) (Request, error) {
	if strings.TrimSpace(html) == "" {
		return Request{}, ErrEmpty
	}
	if utf16Len(html) > MaxTextLen {
		return Request{}, fmt.Errorf("%w: %d characters", ErrTooLong, utf16Len(html))
	}
	params, err := inlineParams(inlineMessageID)
	if err != nil {
		return Request{}, err
	}
	params["text"], params["parse_mode"] = html, tgbotapi.ModeHTML
	if err := setMarkup(params, kb); err != nil {
		return Request{}, err
	}
	return Request{Method: "editMessageText", ChatID: InlineKey(inlineMessageID), Params: params}, nil
}

// EditInlineCaption returns the editMessageCaption request of an inline message's photo.
func EditInlineCaption(inlineMessageID, captionHTML string, kb Keyboard) (Request, error) {
	if utf16Len(captionHTML) > MaxCaptionLen {
		return Request{}, fmt.Errorf("%w: caption of %d characters", ErrTooLong, utf16Len(captionHTML))
	}
	params, err := inlineParams(inlineMessageID)
	if err != nil {
		return Request{}, err
	}
	params["caption"] = captionHTML
	if captionHTML != "" {
		params["parse_mode"] = tgbotapi.ModeHTML
	}
	if err := setMarkup(params, kb); err != nil {
		return Request{}, err
	}
	return Request{Method: "editMessageCaption", ChatID: InlineKey(inlineMessageID), Params: params}, nil
}

// EditInlinePhoto returns the editMessageMedia request that replaces an inline message's photo
// by media, a URL (http or https) or the file_id of a photo Telegram has, with a caption and
// keyboard. ErrInlineMedia for anything else: an inline message takes no upload.
func EditInlinePhoto(inlineMessageID, media, captionHTML string, kb Keyboard) (Request, error) {
	if media == "" || strings.HasPrefix(media, "attach://") || strings.HasPrefix(media, "/") ||
		strings.HasPrefix(media, "file:") {
		return Request{}, fmt.Errorf("%w: %q", ErrInlineMedia, media)
	}
	if utf16Len(captionHTML) > MaxCaptionLen {
		return Request{}, fmt.Errorf("%w: caption of %d characters", ErrTooLong, utf16Len(captionHTML))
	}
	m := map[string]string{"type": "photo", "media": media}
	if captionHTML != "" {
		m["caption"], m["parse_mode"] = captionHTML, tgbotapi.ModeHTML
	}
	raw, err := json.Marshal(m)
	if err != nil {
		return Request{}, err
	}
	params, err := inlineParams(inlineMessageID)
	if err != nil {
		return Request{}, err
	}
	params["media"] = string(raw)
	if err := setMarkup(params, kb); err != nil {
		return Request{}, err
	}
	return Request{Method: "editMessageMedia", ChatID: InlineKey(inlineMessageID), Params: params}, nil
}

// EditInlineKeyboard returns the editMessageReplyMarkup request of an inline message; a nil
// keyboard removes it.
func EditInlineKeyboard(inlineMessageID string, kb Keyboard) (Request, error) {
	params, err := inlineParams(inlineMessageID)
	if err != nil {
		return Request{}, err
	}
	if err := setMarkup(params, kb); err != nil {
		return Request{}, err
	}
	return Request{Method: "editMessageReplyMarkup", ChatID: InlineKey(inlineMessageID), Params: params}, nil
}
