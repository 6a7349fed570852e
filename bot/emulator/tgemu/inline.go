package tgemu

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"
)

// # Inline mode
//
// A simulated user types "@bot query" in a chat they are in (their private chat with the bot, or
// a group): InlineQuery sends the bot an inline_query update. The bot's answerInlineQuery is
// validated as Telegram does (the results' types, ids, texts, keyboards) and kept; InlineAnswer
// returns it. ChooseInlineResult is the user picking a result: its message is posted into the
// chat as the user's, via the bot (via_bot), with an inline_message_id when it has a keyboard,
// and the bot gets chosen_inline_result (Telegram sends it only with inline feedback enabled,
// which the emulator assumes). PressInline presses a button of such a message: the bot gets a
// callback_query with inline_message_id and chat_instance and no message. The editing methods
// take inline_message_id in place of chat_id and message_id, answer true, refuse uploads (media
// is a URL or a file_id) and answer "message is not modified" as for chat messages. Article and
// photo results are emulated: a photo by URL (InlineQueryResultPhoto, whose thumbnail_url is
// required) or by the file_id of a photo the bot has (InlineQueryResultCachedPhoto). A photo by
// URL is fetched when its result is posted, and the media of an edit when it is edited, as
// Telegram fetches them (fetch.go): the message carries the photo's file_id (Message.Photo), and
// the URL it came from (Message.PhotoURL).

// inlineQuery is an inline query the bot was sent, and its answer once given.
type inlineQuery struct {
	user     int64
	chat     int64
	query    string
	offset   string
	answered bool
	results  []InlineResult
	// next is the answer's next_offset: "" when the user's client asks for no more.
	next string
}

// InlineResult is a result of the bot's answer to an inline query, as the user's client lists it.
type InlineResult struct {
	Type        string `json:"type"` // "article" or "photo"
	ID          string `json:"id"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	// Text and ParseMode are what the chosen result posts (a photo's caption).
	Text      string `json:"text,omitempty"`
	ParseMode string `json:"parse_mode,omitempty"`
	PhotoURL  string `json:"photo_url,omitempty"`
	// PhotoFileID is the photo of a cached photo result: a file_id of the bot's.
	PhotoFileID string     `json:"photo_file_id,omitempty"`
	Keyboard    [][]Button `json:"keyboard,omitempty"`
}

// inlineState is a bot's inline queries by id.
type inlineState struct {
	queries map[string]*inlineQuery
	seq     int
	// fetched are the photos fetched by URL: the file_id of each URL's (fetch.go).
	fetched map[string]string
}

func (b *Bot) inlineLocked() *inlineState {
	if b.inline == nil {
		b.inline = &inlineState{queries: map[string]*inlineQuery{}}
	}
	return b.inline
}

// chatOfLocked returns the chat a user types into: their private chat with the bot (chat is
// their id) or a group they are a member of, with its type and the chat as the Bot API shows it.
func (b *Bot) chatOfLocked(user, chat int64) (*tgbotapi.User, *chat, *tgbotapi.Chat, error) {
	u, err := b.userLocked(user)
	if err != nil {
		return nil, nil, nil, err
	}
	if chat == user {
		return u, b.chatLocked(user), privateChat(u), nil
	}
	g, _, err := b.memberLocked(chat, user)
	if err != nil {
		return nil, nil, nil, err
	}
	return u, b.chats[chat], g.apiChat(chat), nil
}

// InlineQuery is the user typing "@bot query" into a chat (their private chat with the bot: chat
// is their id; or a group they are a member of): the bot gets an inline_query update. It returns
// the query's id.
func (b *Bot) InlineQuery(user, chat int64, query string) (string, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.inlineQueryLocked(user, chat, query, "")
}

// MoreInlineResults is the user scrolling to the end of the results of an inline query whose
// answer gave a next_offset: the bot gets the same query again with that offset (its Offset).
// It returns the new query's id, or an error when the answer offered no more.
func (b *Bot) MoreInlineResults(queryID string) (string, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	q := b.inlineLocked().queries[queryID]
	switch {
	case q == nil:
		return "", fmt.Errorf("tgemu: no inline query %q", queryID)
	case !q.answered || q.next == "":
		return "", fmt.Errorf("tgemu: the answer to inline query %q offers no more results", queryID)
	}
	return b.inlineQueryLocked(q.user, q.chat, q.query, q.next)
}

// InlineNextOffset returns the next_offset of the bot's answer to an inline query ("" for none)
// and whether it answered.
func (b *Bot) InlineNextOffset(queryID string) (string, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	q := b.inlineLocked().queries[queryID]
	if q == nil || !q.answered {
		return "", false
	}
	return q.next, true
}

func (b *Bot) inlineQueryLocked(user, chat int64, query, offset string) (string, error) {
	u, _, apiChat, err := b.chatOfLocked(user, chat)
	if err != nil {
		return "", err
	}
	st := b.inlineLocked()
	st.seq++
	id := fmt.Sprintf("%d%07d", b.me.ID, st.seq)
	chatType := "sender"
	if apiChat.Type != "private" {
		chatType = apiChat.Type
	}
	b.queueSavedLocked(tgbotapi.Update{InlineQuery: &tgbotapi.InlineQuery{ID: id, From: u, Query: query, Offset: offset, ChatType: chatType}})
	st.queries[id] = &inlineQuery{user: user, chat: chat, query: query, offset: offset}
	return id, nil
}

// InlineAnswer returns the results the bot answered an inline query with, and whether it answered.
func (b *Bot) InlineAnswer(queryID string) ([]InlineResult, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	q := b.inlineLocked().queries[queryID]
	if q == nil || !q.answered {
		return nil, false
	}
	return append([]InlineResult(nil), q.results...), true
}

// answerInlineQuery keeps the bot's answer to an inline query, validated as Telegram does.
func (b *Bot) answerInlineQuery(p params) (any, *apiError) {
	var raw []map[string]json.RawMessage
	if err := json.Unmarshal([]byte(p.get("results")), &raw); err != nil {
		return nil, badRequest("can't parse inline query results JSON object")
	}
	if len(raw) > 50 {
		return nil, badRequest("RESULTS_TOO_MUCH")
	}
	if len(p.get("next_offset")) > 64 {
		return nil, badRequest("NEXT_OFFSET_INVALID")
	}
	results := make([]InlineResult, 0, len(raw))
	seen := map[string]bool{}
	for _, r := range raw {
		res, e := b.parseInlineResult(r)
		if e != nil {
			return nil, e
		}
		if seen[res.ID] {
			return nil, badRequest("RESULT_ID_DUPLICATE")
		}
		seen[res.ID] = true
		results = append(results, res)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	q := b.inlineLocked().queries[p.get("inline_query_id")]
	if q == nil || q.answered {
		return nil, badRequest("query is too old and response timeout expired or query ID is invalid")
	}
	q.answered, q.results, q.next = true, results, p.get("next_offset")
	return true, nil
}

// parseInlineResult reads and checks one InlineQueryResult.
func (b *Bot) parseInlineResult(r map[string]json.RawMessage) (InlineResult, *apiError) {
	str := func(k string) string {
		var s string
		json.Unmarshal(r[k], &s) // a missing or mistyped field reads as empty, which the checks refuse
		return s
	}
	res := InlineResult{Type: str("type"), ID: str("id"), Title: str("title"), Description: str("description")}
	if res.ID == "" || len(res.ID) > 64 {
		return res, badRequest("RESULT_ID_INVALID")
	}
	if raw := r["reply_markup"]; raw != nil {
		kb, e := parseKeyboard(string(raw))
		if e != nil {
			return res, e
		}
		res.Keyboard = kb
	}
	switch res.Type {
	case "article":
		if strings.TrimSpace(res.Title) == "" {
			return res, badRequest("RESULT_TITLE_EMPTY")
		}
		var content struct {
			Text      string `json:"message_text"`
			ParseMode string `json:"parse_mode"`
		}
		if err := json.Unmarshal(r["input_message_content"], &content); err != nil {
			return res, badRequest("can't parse InputMessageContent")
		}
		if e := checkText(content.Text, content.ParseMode, maxTextLen, true); e != nil {
			return res, badRequest("MESSAGE_EMPTY")
		}
		res.Text, res.ParseMode = content.Text, content.ParseMode
	case "photo":
		if id := str("photo_file_id"); id != "" {
			// A cached photo: a photo the bot has.
			_, f, e := b.inputFile(params{}, "", id, "photo")
			if e != nil {
				return res, e
			}
			res.PhotoFileID = f.id
		} else {
			res.PhotoURL = str("photo_url")
			if !webURL(res.PhotoURL) {
				return res, badRequest("PHOTO_INVALID")
			}
			if !webURL(str("thumbnail_url")) && !webURL(str("thumb_url")) {
				return res, badRequest("THUMB_URL_INVALID")
			}
			if b.srv.unreachable(res.PhotoURL) || b.srv.unreachable(str("thumbnail_url")+str("thumb_url")) {
				return res, badRequest("WEBDOCUMENT_URL_INVALID")
			}
		}
		res.Text, res.ParseMode = str("caption"), str("parse_mode")
		if e := checkText(res.Text, res.ParseMode, maxCaptionLen, false); e != nil {
			return res, e
		}
	case "":
		return res, badRequest("RESULT_TYPE_INVALID")
	default:
		return res, badRequest("inline result type %q is not emulated (article and photo are)", res.Type)
	}
	return res, nil
}

func webURL(s string) bool {
	return strings.HasPrefix(s, "https://") || strings.HasPrefix(s, "http://")
}

// ChooseInlineResult is the user choosing a result of the bot's answer to their inline query: its
// message is posted into the query's chat as theirs, via the bot, and the bot gets
// chosen_inline_result with the message's inline_message_id ("" when the result has no keyboard:
// Telegram gives one only then). It returns the inline_message_id and the message's id in the
// chat. A photo by URL is fetched first; when the fetch is refused (fetch.go), nothing is posted
// and the error says why, as the user's client would.
func (b *Bot) ChooseInlineResult(queryID, resultID string) (string, int, error) {
	res, err := b.inlineResult(queryID, resultID)
	if err != nil {
		return "", 0, err
	}
	var photo *file
	switch {
	case res.PhotoURL != "":
		var e *apiError
		if photo, e = b.photoFromURL(res.PhotoURL); e != nil {
			return "", 0, fmt.Errorf("tgemu: the photo of inline result %q: %s", resultID, e.description)
		}
	case res.PhotoFileID != "":
		if photo = b.srv.file(res.PhotoFileID); photo == nil {
			return "", 0, fmt.Errorf("tgemu: the photo of inline result %q is gone", resultID)
		}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	q := b.inlineLocked().queries[queryID]
	if q == nil {
		return "", 0, fmt.Errorf("tgemu: inline query %q is gone", queryID)
	}
	u, c, apiChat, err := b.chatOfLocked(q.user, q.chat)
	if err != nil {
		return "", 0, err
	}
	inlineID := ""
	if len(res.Keyboard) > 0 {
		sum := sha256.Sum256(fmt.Appendf(nil, "%d:%d:%d", b.me.ID, q.chat, c.nextID))
		inlineID = base64.RawURLEncoding.EncodeToString(sum[:18])
	}
	me := b.me
	m := &Message{Text: res.Text, ParseMode: res.ParseMode, Keyboard: res.Keyboard, ViaBot: true, InlineID: inlineID}
	tm := &tgbotapi.Message{ViaBot: &me}
	text := res.Text
	if res.ParseMode == tgbotapi.ModeHTML {
		text, _ = parseHTML(res.Text)
	}
	if photo != nil {
		setMedia(m, photo)
		m.PhotoURL = res.PhotoURL
		tm.Photo, tm.Caption = b.srv.photoSizes(photo.id), text
	} else {
		tm.Text = text
	}
	if err := b.postLocked(u, q.chat, c, apiChat, m, tm); err != nil {
		return "", 0, err
	}
	b.queueSavedLocked(tgbotapi.Update{ChosenInlineResult: &tgbotapi.ChosenInlineResult{
		ResultID: resultID, From: u, InlineMessageID: inlineID, Query: q.query}})
	return inlineID, m.ID, nil
}

// inlineResult returns a result of the bot's answer to an inline query.
func (b *Bot) inlineResult(queryID, resultID string) (InlineResult, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	q := b.inlineLocked().queries[queryID]
	if q == nil || !q.answered {
		return InlineResult{}, fmt.Errorf("tgemu: inline query %q has no answer", queryID)
	}
	for _, res := range q.results {
		if res.ID == resultID {
			return res, nil
		}
	}
	return InlineResult{}, fmt.Errorf("tgemu: inline query %q has no result %q", queryID, resultID)
}

// inlineMessageLocked finds a message posted via the bot by its inline_message_id.
func (b *Bot) inlineMessageLocked(id string) (int64, *chat, *Message) {
	if id == "" {
		return 0, nil, nil
	}
	for chatID, c := range b.chats {
		for _, m := range c.messages {
			if m.InlineID == id {
				return chatID, c, m
			}
		}
	}
	return 0, nil, nil
}

// InlineMessage returns the message of an inline_message_id as the chat shows it.
func (b *Bot) InlineMessage(id string) (Message, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	_, _, m := b.inlineMessageLocked(id)
	if m == nil {
		return Message{}, false
	}
	return *clone(m), true
}

// PressInline is the user pressing the button with this callback data under an inline message
// of a chat they are in: the bot gets a callback_query with the inline_message_id, the chat's
// chat_instance and no message. It returns the callback query id.
func (b *Bot) PressInline(user int64, inlineID, data string) (string, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	chatID, _, m := b.inlineMessageLocked(inlineID)
	if m == nil {
		return "", fmt.Errorf("tgemu: no inline message %q", inlineID)
	}
	u, _, _, err := b.chatOfLocked(user, chatID)
	if err != nil {
		return "", err
	}
	if !hasData(m, data) {
		return "", fmt.Errorf("tgemu: inline message %q has no button with data %q", inlineID, data)
	}
	seq := b.cbSeq + 1
	id := fmt.Sprintf("%d%06d", b.me.ID, seq)
	upd := b.numberLocked(tgbotapi.Update{CallbackQuery: &tgbotapi.CallbackQuery{
		ID: id, From: u, InlineMessageID: inlineID, ChatInstance: chatInstance(b.me.ID, chatID), Data: data,
	}})
	if err := b.saveLocked(record{Callback: &callbackRecord{ID: id, Chat: chatID, Seq: seq}, Update: &upd}); err != nil {
		return "", err
	}
	b.cbSeq = seq
	b.callbacks[id] = &callback{chatID: chatID}
	b.queueLocked(upd)
	return id, nil
}

// hasData reports whether a message has a callback button with data.
func hasData(m *Message, data string) bool {
	for _, row := range m.Keyboard {
		for _, btn := range row {
			if btn.Data == data && btn.URL == "" {
				return true
			}
		}
	}
	return false
}

// chatInstance is the chat_instance of a chat as a bot sees it: the same for every press in the
// chat, telling nothing of its id.
func chatInstance(bot, chat int64) string {
	sum := sha256.Sum256(fmt.Appendf(nil, "%d/%d", bot, chat))
	return strconv.FormatInt(int64(sum[0]&0x7f)<<56|int64(sum[1])<<48|int64(sum[2])<<40|int64(sum[3])<<32|
		int64(sum[4])<<24|int64(sum[5])<<16|int64(sum[6])<<8|int64(sum[7]), 10)
}

// editInline runs an editing method on an inline message (inline_message_id).
func (b *Bot) editInline(method string, p params) (any, *apiError) {
	if p.get("chat_id") != "" || p.get("message_id") != "" {
		return nil, badRequest("inline_message_id and chat_id/message_id are exclusive")
	}
	kb, e := parseKeyboard(p.get("reply_markup"))
	if e != nil {
		return nil, e
	}
	var text, mode string
	var photo *file // the new photo of editMessageMedia
	var photoURL string
	switch method {
	case "editMessageText":
		text, mode = p.get("text"), p.get("parse_mode")
		if e := checkText(text, mode, maxTextLen, true); e != nil {
			return nil, e
		}
	case "editMessageCaption":
		text, mode = p.get("caption"), p.get("parse_mode")
		if e := checkText(text, mode, maxCaptionLen, false); e != nil {
			return nil, e
		}
	case "editMessageMedia":
		var in inputMedia
		if err := json.Unmarshal([]byte(p.get("media")), &in); err != nil || in.Type == nil {
			return nil, badRequest("can't parse input media JSON object")
		}
		if *in.Type != "photo" {
			return nil, badRequest("can't parse InputMedia: type \"%s\" is not emulated in inline messages (photo is)", *in.Type)
		}
		if strings.HasPrefix(in.Media, "attach://") || len(p.files) > 0 {
			return nil, badRequest("can't upload files to inline messages: use a URL or a file_id")
		}
		if in.Media == "" {
			return nil, badRequest("can't parse InputMedia: media not found")
		}
		if e := checkText(in.Caption, in.ParseMode, maxCaptionLen, false); e != nil {
			return nil, e
		}
		if webURL(in.Media) {
			photo, e = b.photoFromURL(in.Media)
			photoURL = in.Media
		} else {
			_, photo, e = b.inputFile(params{}, "", in.Media, "photo")
		}
		if e != nil {
			return nil, e
		}
		text, mode = in.Caption, in.ParseMode
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	chatID, c, m := b.inlineMessageLocked(p.get("inline_message_id"))
	if m == nil {
		return nil, badRequest("MESSAGE_ID_INVALID")
	}
	next := *m
	next.Keyboard = kb
	switch method {
	case "editMessageText":
		if m.isMedia() {
			return nil, badRequest("there is no text in the message to edit")
		}
		next.Text, next.ParseMode = text, mode
	case "editMessageCaption":
		if !m.isMedia() {
			return nil, badRequest("there is no caption in the message to edit")
		}
		next.Text, next.ParseMode = text, mode
	case "editMessageMedia":
		// A text message takes media too: it becomes a photo captioned.
		setMedia(&next, photo)
		next.PhotoURL, next.Text, next.ParseMode = photoURL, text, mode
	}
	if next.Text == m.Text && next.ParseMode == m.ParseMode && next.Photo == m.Photo && keyboardsEqual(next.Keyboard, m.Keyboard) {
		return nil, notModified()
	}
	next.Edited = true
	if e := b.saveAPILocked(record{Msg: &next}); e != nil {
		return nil, e
	}
	*m = next
	b.publishLocked(c, Event{Type: "edit", ChatID: chatID, Message: clone(m)})
	return true, nil
}

// PressGroup is a member of a group pressing the button with this callback data under the bot's
// message messageID of the group. It returns the callback query id.
func (b *Bot) PressGroup(chat, user int64, messageID int, data string) (string, error) {
	return b.pressGroup(chat, user, messageID, data, false)
}

// ForgeGroupPress is a member of a group whose client sends a press of the bot's message
// messageID with any callback data, which Telegram's API lets a client do (its own apps send
// only the data of the message's buttons): the bot gets the data as sent, with the message as
// Telegram has it. It returns the callback query id.
func (b *Bot) ForgeGroupPress(chat, user int64, messageID int, data string) (string, error) {
	return b.pressGroup(chat, user, messageID, data, true)
}

func (b *Bot) pressGroup(chat, user int64, messageID int, data string, anyData bool) (string, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	_, u, err := b.memberLocked(chat, user)
	if err != nil {
		return "", err
	}
	m := b.chats[chat].find(messageID)
	if m == nil || !m.FromBot {
		return "", fmt.Errorf("tgemu: chat %d has no bot message %d", chat, messageID)
	}
	if !anyData && !hasData(m, data) {
		return "", fmt.Errorf("tgemu: message %d has no button with data %q", messageID, data)
	}
	if len(data) == 0 || len(data) > 64 {
		return "", fmt.Errorf("tgemu: callback data of %d bytes: Telegram takes 1 to 64", len(data))
	}
	seq := b.cbSeq + 1
	id := fmt.Sprintf("%d%06d", b.me.ID, seq)
	upd := b.numberLocked(tgbotapi.Update{CallbackQuery: &tgbotapi.CallbackQuery{
		ID: id, From: u, Message: b.toAPILocked(m), ChatInstance: chatInstance(b.me.ID, chat), Data: data,
	}})
	if err := b.saveLocked(record{Callback: &callbackRecord{ID: id, Chat: chat, Seq: seq}, Update: &upd}); err != nil {
		return "", err
	}
	b.cbSeq = seq
	b.callbacks[id] = &callback{chatID: chat}
	b.queueLocked(upd)
	return id, nil
}

// CallbackAnswer returns the text the bot answered a button press with, and whether it answered.
func (b *Bot) CallbackAnswer(queryID string) (string, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	cb := b.callbacks[queryID]
	if cb == nil || !cb.answered {
		return "", false
	}
	return cb.text, true
}
