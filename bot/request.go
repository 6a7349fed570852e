package bot

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"
)

// Telegram's limits on what a bot sends.
const (
	// MaxTextLen is the longest message text, in UTF-16 code units. Longer texts are split.
	MaxTextLen = 4096
	// MaxCaptionLen is the longest photo or document caption.
	MaxCaptionLen = 1024
	// maxCallbackData is the longest callback_data of a button, in bytes.
	maxCallbackData = 64
)

// Errors of the request builders: programming errors of a handler, returned before anything is
// written to the outbox.
var (
	ErrCallbackData = errors.New("bot: callback_data is empty or longer than 64 bytes")
	ErrButton       = errors.New("bot: a button needs a text and exactly one of data, URL and WebApp")
	ErrTooLong      = errors.New("bot: text too long")
	ErrEmpty        = errors.New("bot: empty text")
)

// Request is one call of the Bot API waiting in the outbox: the method, the chat it is about (it
// decides the order and the rate limit; 0 for requests that concern no chat) and its parameters
// as Telegram reads them. Build requests with the functions of this file, which check Telegram's
// limits, rather than by hand.
type Request struct {
	Method string
	ChatID int64
	Params map[string]string
	// FilePath is the local file that sendPhoto and sendDocument upload (as the "photo" or
	// "document" parameter) unless Telegram already has it.
	FilePath string
	// Draw, when set, says how the file at FilePath is made: the sender has the drawer it names
	// draw it (see RegisterDrawer) when the request's turn comes, right before it is sent, and
	// sends the file then. So a request that shows a picture of an object (a board's, with a
	// State) costs nothing to queue, and a request superseded before it is sent is never drawn:
	// only the newest state's picture is. A file already there is not drawn again. A drawing
	// that fails is a failure of the request, retried as a transient one and, once given up,
	// replaced by its OnFailure; a drawer this process does not know fails it for good.
	Draw *Drawing
	// Ref names the message this request sends, so that a later request of the same chat can
	// target it by name (TargetRef) without knowing its message_id. When Telegram accepts the
	// request, the message_id it returns is recorded under (bot, chat, Ref) in the transaction
	// that removes the request from the outbox. The parts of a split text share their Ref. A
	// handler picks refs unique in the chat for as long as the messages may be targeted (see
	// WithRef).
	Ref string
	// TargetRef makes the request act on the messages sent under this ref in the same chat: the
	// sender fills in message_id when the request's turn comes (see DeleteRef and EditHTMLRef).
	// The chat's requests are sent in order, so a message sent by an earlier request of the chat
	// is known by then. When no message is known under the ref (its send failed, or it was never
	// sent, or its record expired) the request is dropped.
	TargetRef string
	// State names the object whose state the request carries in its chat, such as "board:42"
	// (the board message of a game): a request with a state may be superseded by a newer state
	// of the same object queued in the chat before it is sent (see the package doc), and the
	// requests of one state are sent in the order they were queued, whatever their lanes. Only
	// requests that merely show the present of an object carry one; words the user must read (a
	// reply, a quest screen, a notice) never do, and are never dropped. An edit that carries a
	// state drops only the pending edits of the same message (by ref, or by message_id) that it
	// covers (a photo's edit covers a caption's, which covers a keyboard's), so an object's edits
	// should carry its whole state.
	State string
	// Aside marks a request that follows what the chat's user did without being the answer to
	// it, such as the screen a player left, edited to show the choice made: it goes in
	// LaneUpdates even in answer to the chat's own update, so that it yields the chat's slots,
	// and the bot's, to the answers (see pacing) and never delays them. An aside that carries a
	// state is worth sending only while it is the latest of that state: it drops the pending
	// rows of its state when it is queued, whatever messages they are about.
	Aside bool
	// Secrets are the credentials the request carries (see Secret and KeepSecret): it is not
	// sent once one has expired, and once it has failed for good only a form with them withheld
	// is kept, and they are recorded for their feature to revoke.
	Secrets []Secret
	// OnFailure are requests queued in the same chat in place of this one when it fails for
	// good: Telegram refuses it, its file is gone, or it fails too often. They tell the user what
	// did not arrive. Nothing is queued when the user blocked the bot or the request was dropped
	// for its TargetRef. Only their methods, parameters, Ref and TargetRef are kept: they carry
	// no file or fallback of their own. A Ref names the message sent in place of the failed one,
	// so that what would have acted on it by ref acts on that message; a TargetRef acts on the
	// messages of a ref (such as deleting what the new message replaces).
	OnFailure []Request
}

// WithRef tags requests (such as the parts of SendHTML) with ref and returns them.
func WithRef(ref string, reqs ...Request) []Request {
	for i := range reqs {
		reqs[i].Ref = ref
	}
	return reqs
}

// WithState marks requests as carrying the state of an object (Request.State) and returns them.
func WithState(state string, reqs ...Request) []Request {
	for i := range reqs {
		reqs[i].State = state
	}
	return reqs
}

// Button is an inline keyboard button: a text, and one of callback data (at most 64 bytes), a
// URL, or a Mini App's URL (WebApp: a web_app button, which opens the page inside Telegram;
// private chats only, see webapp.go).
type Button struct {
	Text   string
	Data   string
	URL    string
	WebApp string
}

// Keyboard is an inline keyboard, row by row.
type Keyboard [][]Button

// markup is the keyboard as a reply_markup parameter.
func (k Keyboard) markup() (string, error) {
	kb := inlineKeyboard{InlineKeyboard: make([][]inlineButton, 0, len(k))}
	for _, row := range k {
		r := make([]inlineButton, 0, len(row))
		for _, b := range row {
			kinds := 0
			for _, s := range []string{b.Data, b.URL, b.WebApp} {
				if s != "" {
					kinds++
				}
			}
			if strings.TrimSpace(b.Text) == "" || kinds != 1 {
				return "", fmt.Errorf("%w: %+v", ErrButton, b)
			}
			btn := inlineButton{InlineKeyboardButton: tgbotapi.InlineKeyboardButton{Text: b.Text}}
			switch {
			case b.URL != "":
				btn.URL = &b.URL
			case b.WebApp != "":
				btn.WebApp = &webAppInfo{URL: b.WebApp}
			default:
				if len(b.Data) > maxCallbackData {
					return "", fmt.Errorf("%w: %q", ErrCallbackData, b.Data)
				}
				btn.CallbackData = &b.Data
			}
			r = append(r, btn)
		}
		kb.InlineKeyboard = append(kb.InlineKeyboard, r)
	}
	raw, err := json.Marshal(kb)
	return string(raw), err
}

func chatParams(chatID int64) map[string]string {
	return map[string]string{"chat_id": strconv.FormatInt(chatID, 10)}
}

// SendHTML returns the sendMessage requests of an HTML text with an optional keyboard. A text
// longer than Telegram allows is split at line boundaries (a single longer line at a space, or
// anywhere as a last resort), and formatting tags open at a split are closed and reopened; the
// keyboard goes under the last part.
func SendHTML(chatID int64, html string, kb Keyboard) ([]Request, error) {
	if strings.TrimSpace(html) == "" {
		return nil, ErrEmpty
	}
	var markup string
	if kb != nil {
		var err error
		if markup, err = kb.markup(); err != nil {
			return nil, err
		}
	}
	parts := SplitHTML(html, MaxTextLen)
	reqs := make([]Request, len(parts))
	for i, p := range parts {
		params := chatParams(chatID)
		params["text"] = p
		params["parse_mode"] = tgbotapi.ModeHTML
		if i == len(parts)-1 && markup != "" {
			params["reply_markup"] = markup
		}
		reqs[i] = Request{Method: "sendMessage", ChatID: chatID, Params: params}
	}
	return reqs, nil
}

// EditHTML returns an editMessageText request. An edit cannot be split: a text that is too long
// is ErrTooLong.
func EditHTML(chatID int64, messageID int, html string, kb Keyboard) (Request, error) {
	if strings.TrimSpace(html) == "" {
		return Request{}, ErrEmpty
	}
	if utf16Len(html) > MaxTextLen {
		return Request{}, fmt.Errorf("%w: %d characters", ErrTooLong, utf16Len(html))
	}
	params := chatParams(chatID)
	params["message_id"] = strconv.Itoa(messageID)
	params["text"] = html
	params["parse_mode"] = tgbotapi.ModeHTML
	if kb != nil {
		markup, err := kb.markup()
		if err != nil {
			return Request{}, err
		}
		params["reply_markup"] = markup
	}
	return Request{Method: "editMessageText", ChatID: chatID, Params: params}, nil
}

// EditKeyboard returns an editMessageReplyMarkup request; a nil keyboard removes it.
func EditKeyboard(chatID int64, messageID int, kb Keyboard) (Request, error) {
	params := chatParams(chatID)
	params["message_id"] = strconv.Itoa(messageID)
	if kb == nil {
		kb = Keyboard{}
	}
	markup, err := kb.markup()
	if err != nil {
		return Request{}, err
	}
	params["reply_markup"] = markup
	return Request{Method: "editMessageReplyMarkup", ChatID: chatID, Params: params}, nil
}

// Delete returns a deleteMessage request.
func Delete(chatID int64, messageID int) Request {
	params := chatParams(chatID)
	params["message_id"] = strconv.Itoa(messageID)
	return Request{Method: "deleteMessage", ChatID: chatID, Params: params}
}

// DeleteRef returns the request that deletes the messages sent under ref in a chat (all the parts
// of a split text). It is sent as deleteMessage, or deleteMessages for several messages, and the
// record of the ref is removed once Telegram accepts it.
func DeleteRef(chatID int64, ref string) Request {
	return Request{Method: "deleteMessage", ChatID: chatID, Params: chatParams(chatID), TargetRef: ref}
}

// EditHTMLRef is EditHTML for the message sent under ref: the last part, the one that carries the
// keyboard, of a split text.
func EditHTMLRef(chatID int64, ref, html string, kb Keyboard) (Request, error) {
	r, err := EditHTML(chatID, 0, html, kb)
	if err != nil {
		return Request{}, err
	}
	delete(r.Params, "message_id")
	r.TargetRef = ref
	return r, nil
}

// AnswerCallback returns the answerCallbackQuery request for a button press in a chat; text may
// be empty (the button just stops spinning).
func AnswerCallback(chatID int64, queryID, text string) Request {
	params := map[string]string{"callback_query_id": queryID}
	if text != "" {
		params["text"] = text
	}
	return Request{Method: "answerCallbackQuery", ChatID: chatID, Params: params}
}

// SendPhoto returns a sendPhoto request for a local image file, with an optional HTML caption and
// keyboard. The file is uploaded the first time and sent by its file_id afterwards.
func SendPhoto(chatID int64, path, captionHTML string, kb Keyboard) (Request, error) {
	return sendFile("sendPhoto", chatID, path, captionHTML, kb)
}

// SendDocument returns a sendDocument request for a local file, like SendPhoto.
func SendDocument(chatID int64, path, captionHTML string, kb Keyboard) (Request, error) {
	return sendFile("sendDocument", chatID, path, captionHTML, kb)
}

func sendFile(method string, chatID int64, path, caption string, kb Keyboard) (Request, error) {
	if utf16Len(caption) > MaxCaptionLen {
		return Request{}, fmt.Errorf("%w: caption of %d characters", ErrTooLong, utf16Len(caption))
	}
	params := chatParams(chatID)
	if caption != "" {
		params["caption"] = caption
		params["parse_mode"] = tgbotapi.ModeHTML
	}
	if kb != nil {
		markup, err := kb.markup()
		if err != nil {
			return Request{}, err
		}
		params["reply_markup"] = markup
	}
	return Request{Method: method, ChatID: chatID, Params: params, FilePath: path}, nil
}

// EditPhoto returns the editMessageMedia request that replaces the photo of a message with a
// local image file, with a new HTML caption and keyboard (a nil keyboard removes it). Like
// SendPhoto, the file is uploaded the first time and sent by its file_id afterwards: the sender
// fills in the InputMedia's "media" field when the request's turn comes (see API.do).
func EditPhoto(chatID int64, messageID int, path, captionHTML string, kb Keyboard) (Request, error) {
	r, err := EditPhotoRef(chatID, "", path, captionHTML, kb)
	if err != nil {
		return Request{}, err
	}
	r.Params["message_id"] = strconv.Itoa(messageID)
	return r, nil
}

// EditPhotoRef is EditPhoto for the message sent under ref (SendPhoto with a Ref).
func EditPhotoRef(chatID int64, ref, path, captionHTML string, kb Keyboard) (Request, error) {
	if utf16Len(captionHTML) > MaxCaptionLen {
		return Request{}, fmt.Errorf("%w: caption of %d characters", ErrTooLong, utf16Len(captionHTML))
	}
	media := map[string]string{"type": "photo"}
	if captionHTML != "" {
		media["caption"] = captionHTML
		media["parse_mode"] = tgbotapi.ModeHTML
	}
	raw, err := json.Marshal(media)
	if err != nil {
		return Request{}, err
	}
	params := chatParams(chatID)
	params["media"] = string(raw)
	if err := setMarkup(params, kb); err != nil {
		return Request{}, err
	}
	return Request{Method: "editMessageMedia", ChatID: chatID, Params: params, FilePath: path, TargetRef: ref}, nil
}

// EditCaption returns an editMessageCaption request: a new HTML caption and keyboard for a photo
// or document (a nil keyboard removes it).
func EditCaption(chatID int64, messageID int, captionHTML string, kb Keyboard) (Request, error) {
	if utf16Len(captionHTML) > MaxCaptionLen {
		return Request{}, fmt.Errorf("%w: caption of %d characters", ErrTooLong, utf16Len(captionHTML))
	}
	params := chatParams(chatID)
	params["message_id"] = strconv.Itoa(messageID)
	params["caption"] = captionHTML
	if captionHTML != "" {
		params["parse_mode"] = tgbotapi.ModeHTML
	}
	if err := setMarkup(params, kb); err != nil {
		return Request{}, err
	}
	return Request{Method: "editMessageCaption", ChatID: chatID, Params: params}, nil
}

// EditCaptionRef is EditCaption for the message sent under ref.
func EditCaptionRef(chatID int64, ref, captionHTML string, kb Keyboard) (Request, error) {
	r, err := EditCaption(chatID, 0, captionHTML, kb)
	if err != nil {
		return Request{}, err
	}
	delete(r.Params, "message_id")
	r.TargetRef = ref
	return r, nil
}

// setMarkup sets the reply_markup parameter of an edit: the keyboard, or an empty one (which
// removes the message's keyboard) for nil.
func setMarkup(params map[string]string, kb Keyboard) error {
	if kb == nil {
		kb = Keyboard{}
	}
	markup, err := kb.markup()
	if err != nil {
		return err
	}
	params["reply_markup"] = markup
	return nil
}

// Command is an entry of the bot's command menu.
type Command struct {
	Command     string `json:"command"`
	Description string `json:"description"`
}

// SetCommands returns the setMyCommands request of the command menu for users whose language is
// lang ("" for everybody else).
func SetCommands(lang string, cmds []Command) (Request, error) {
	raw, err := json.Marshal(cmds)
	if err != nil {
		return Request{}, err
	}
	params := map[string]string{"commands": string(raw)}
	if lang != "" {
		params["language_code"] = lang
	}
	return Request{Method: "setMyCommands", Params: params}, nil
}

// SetChatCommands returns the setMyCommands request of the command menu of one chat (scope
// "chat"), which Telegram shows in that chat instead of the menus by language. It is queued in the
// chat, after the chat's earlier requests.
func SetChatCommands(chatID int64, cmds []Command) (Request, error) {
	raw, err := json.Marshal(cmds)
	if err != nil {
		return Request{}, err
	}
	scope, err := json.Marshal(map[string]any{"type": "chat", "chat_id": chatID})
	if err != nil {
		return Request{}, err
	}
	params := map[string]string{"commands": string(raw), "scope": string(scope)}
	return Request{Method: "setMyCommands", ChatID: chatID, Params: params}, nil
}

// fileField is the parameter that carries the file of a file-sending method. The file of
// editMessageMedia is the upload the InputMedia names (attach://photo), or its file_id.
func fileField(method string) string {
	switch method {
	case "sendPhoto", "editMessageMedia":
		return "photo"
	case "sendDocument":
		return "document"
	}
	return ""
}

// withMedia returns the media parameter of an editMessageMedia request with its "media" field
// set: the file_id of a file Telegram has, or else the upload of field ("attach://photo").
func withMedia(media, field, fileID string) (string, error) {
	var m map[string]any
	if err := json.Unmarshal([]byte(media), &m); err != nil {
		return "", fmt.Errorf("bot: editMessageMedia: media %q: %w", media, err)
	}
	m["media"] = "attach://" + field
	if fileID != "" {
		m["media"] = fileID
	}
	raw, err := json.Marshal(m)
	return string(raw), err
}

func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return n
}
