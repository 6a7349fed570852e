package tgemu

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"
)

// Limits Telegram applies to what a bot sends.
const (
	maxTextLen         = 4096 // characters of a message text, after entity parsing
	maxCaptionLen      = 1024
	maxCallbackData    = 64 // bytes of a button's callback_data
	maxButtonsPerRow   = 8
	maxButtons         = 100
	maxPollTimeout     = 50 * time.Second
	perChatMinInterval = 900 * time.Millisecond // one message a second per chat, less jitter
	perChatBurst       = 3                      // messages a chat takes at once before the pace applies
	globalPerSecond    = 33                     // about 30 a second overall, plus tolerance
	groupPerMinute     = 20                     // messages a minute to a group
	groupWindow        = 58 * time.Second       // the minute of groupPerMinute, less jitter
)

// Bot is one emulated bot account: its pending updates, its chats with the simulated users and
// the faults waiting to be injected into its requests.
type Bot struct {
	srv   *Server
	token string
	me    tgbotapi.User

	mu        sync.Mutex
	updates   []tgbotapi.Update // not yet acknowledged, in update_id order
	nextUpd   int
	wake      chan struct{} // closed and replaced when an update arrives
	users     map[int64]*tgbotapi.User
	chats     map[int64]*chat
	callbacks map[string]*callback
	cbSeq     int
	faults    []*Fault
	commands  map[commandsKey][]tgbotapi.BotCommand
	counts    map[string]int // requests by method, and "429", "5xx", "403"
	sends     []time.Time    // recent sends, for the global flood limit
	hook      *webhook       // the webhook set, nil while updates are polled (webhook.go)
	inline    *inlineState   // the inline queries (inline.go)
	// hookMu serializes the changes of the webhook, so that one's deliveries end before the
	// next one's begin.
	hookMu sync.Mutex
}

// commandsKey names a command list as setMyCommands scopes it: the scope's type ("default",
// "chat", "all_private_chats", ...), its chat for the chat scopes and its user for chat_member,
// and the language code ("" for every language).
type commandsKey struct {
	scope string
	chat  int64
	user  int64
	lang  string
}

// chat is the private chat of one user with the bot, or a group the bot is a member of.
type chat struct {
	// group is set for a group chat (see group.go); nil for a private chat.
	group    *group
	messages []*Message // in id order; deleted ones removed
	deleted  []int      // the ids of the deleted messages, in the order they were deleted
	nextID   int
	blocked  bool
	// paced is when the chat's flood allowance is whole again: each message moves it on by
	// perChatMinInterval from now or from where it was, whichever is later, and a message is
	// refused while it is more than perChatBurst-1 intervals ahead (a token bucket of
	// perChatBurst, refilled one a perChatMinInterval).
	paced time.Time
	// recent are the messages to a group in the last groupWindow.
	recent []time.Time
	subs   map[chan Event]struct{}
}

type callback struct {
	chatID   int64
	answered bool
	text     string // the answer's text
}

// Message is a message of a chat as a viewer shows it.
type Message struct {
	ID        int    `json:"id"`
	ChatID    int64  `json:"chat_id"`
	FromBot   bool   `json:"from_bot"`
	Text      string `json:"text,omitempty"` // as sent; HTML when ParseMode is "HTML"
	ParseMode string `json:"parse_mode,omitempty"`
	// Keyboard is the inline keyboard, row by row.
	Keyboard [][]Button `json:"keyboard,omitempty"`
	// Photo and Document are file_ids (see Server.FileData); FileName is the document's name.
	// The text of a message with either is its caption.
	Photo    string    `json:"photo,omitempty"`
	Document string    `json:"document,omitempty"`
	FileName string    `json:"file_name,omitempty"`
	Date     time.Time `json:"date"`
	Edited   bool      `json:"edited,omitempty"`
	// ReplyTo is the message of the same chat this one replies to, 0 for none.
	ReplyTo int `json:"reply_to,omitempty"`
	// Sticker is the emoji of a sticker the user sent.
	Sticker string `json:"sticker,omitempty"`
	// PhotoWidth and PhotoHeight are the photo's size in pixels.
	PhotoWidth  int `json:"photo_width,omitempty"`
	PhotoHeight int `json:"photo_height,omitempty"`
	// From is the member of a group who wrote a message that is not the bot's; 0 in private
	// chats, where it is the chat's user.
	From int64 `json:"from,omitempty"`
	// ViaBot marks a user's message posted from the bot's inline results; InlineID is its
	// inline_message_id, by which the bot edits it (inline.go).
	ViaBot   bool   `json:"via_bot,omitempty"`
	InlineID string `json:"inline_message_id,omitempty"`
	// PhotoURL is the URL the photo was fetched from, when it was given by one (fetch.go).
	PhotoURL string `json:"photo_url,omitempty"`
}

// Button returns the data of the message's button labelled label, "" when it has none.
func (m Message) Button(label string) string {
	for _, row := range m.Keyboard {
		for _, b := range row {
			if b.Text == label {
				return b.Data
			}
		}
	}
	return ""
}

// Button is an inline keyboard button.
type Button struct {
	Text string `json:"text"`
	Data string `json:"data,omitempty"`
	URL  string `json:"url,omitempty"`
	// WebApp is the URL of a Mini App the button opens (webapp.go).
	WebApp string `json:"web_app,omitempty"`
}

// Event is something that happened in a chat: a new message (from the user or the bot), an edit, a
// deletion, or the bot's answer to a button press.
type Event struct {
	// Type is "message", "edit", "delete" or "answer".
	Type    string   `json:"type"`
	ChatID  int64    `json:"chat_id"`
	Message *Message `json:"message,omitempty"` // message and edit
	// MessageID is the deleted message (delete).
	MessageID int `json:"message_id,omitempty"`
	// Text and ShowAlert are the answer to a button press (answer), QueryID the press's
	// callback query id (as Press returned it).
	Text      string `json:"text,omitempty"`
	ShowAlert bool   `json:"show_alert,omitempty"`
	QueryID   string `json:"query_id,omitempty"`
	At        time.Time
}

// Fault is an error or delay the emulator injects into the bot's requests.
type Fault struct {
	// Method is the Bot API method the fault applies to; empty means every method except getMe
	// and getUpdates.
	Method string
	// ChatID limits the fault to requests about this chat; 0 means any.
	ChatID int64
	// Code is the error to answer: 429 (with RetryAfter seconds), 500, 502, ... 0 answers normally,
	// after Delay.
	Code       int
	RetryAfter int
	// Delay holds the answer back this long (a slow server).
	Delay time.Duration
	// Page answers the error as a proxy in front of the server would: the HTTP status Code with
	// an HTML page, not the Bot API's JSON (say a 413 of a proxy that takes no upload as big as
	// a photo).
	Page bool
	// Times is how many matching requests the fault hits; 0 means once.
	Times int
}

// Token returns the bot's token.
func (b *Bot) Token() string { return b.token }

// Me returns the bot's own user, as getMe answers it.
func (b *Bot) Me() tgbotapi.User { return b.me }

// AddUser adds a simulated user (or updates their name and language). The user's id is also the
// id of their private chat with the bot. An emulator that keeps its state and cannot save the
// user logs the error and does not add them; PutUser returns the error instead.
func (b *Bot) AddUser(u tgbotapi.User) {
	if err := b.PutUser(u); err != nil {
		b.srv.log.Error("Emulated user not saved", slog.Int64("user_id", u.ID), slog.Any("error", err))
	}
}

// PutUser is AddUser that returns the error of saving the user (see Options.StateDir), in which
// case the user is not added.
func (b *Bot) PutUser(u tgbotapi.User) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	cp := u
	if err := b.saveLocked(record{User: &cp}); err != nil {
		return err
	}
	b.users[u.ID] = &cp
	b.chatLocked(u.ID)
	return nil
}

// Users returns the simulated users, by id.
func (b *Bot) Users() []tgbotapi.User {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []tgbotapi.User
	for _, u := range b.users {
		out = append(out, *u)
	}
	slices.SortFunc(out, func(x, y tgbotapi.User) int { return int(x.ID - y.ID) })
	return out
}

// Block makes the user block the bot (blocked true): the bot's requests about their chat answer
// 403 "Forbidden: bot was blocked by the user". The user unblocks it by writing again, or with
// blocked false.
func (b *Bot) Block(userID int64, blocked bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	c := b.chatLocked(userID)
	if c.blocked == blocked {
		return
	}
	rec := record{Chat: &chatRecord{ID: userID, NextID: c.nextID, Blocked: blocked}}
	// Telegram tells the bot with a my_chat_member update.
	if u := b.users[userID]; u != nil {
		old, next := "member", "kicked"
		if !blocked {
			old, next = next, old
		}
		me := b.me
		upd := b.numberLocked(tgbotapi.Update{MyChatMember: &tgbotapi.ChatMemberUpdated{
			Chat: *privateChat(u), From: *u, Date: int(b.srv.now().Unix()),
			OldChatMember: tgbotapi.ChatMember{User: &me, Status: old},
			NewChatMember: tgbotapi.ChatMember{User: &me, Status: next},
		}})
		rec.Update = &upd
	}
	if err := b.saveLocked(rec); err != nil {
		b.srv.log.Error("Emulated block not saved", slog.Int64("user_id", userID), slog.Any("error", err))
		return
	}
	c.blocked = blocked
	if rec.Update != nil {
		b.queueLocked(*rec.Update)
	}
}

// InjectFault adds a fault; faults are matched in the order they were added.
func (b *Bot) InjectFault(f Fault) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if f.Times <= 0 {
		f.Times = 1
	}
	b.faults = append(b.faults, &f)
}

// Count returns how many requests of a method the bot made (not counting those a fault
// answered), or for "429", "5xx", "403", "400" and any other error code ("413") how many answers
// of that kind it got.
func (b *Bot) Count(what string) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.counts[what]
}

// Commands returns the command list the bot set for a language ("" for the default) in the
// default scope.
func (b *Bot) Commands(lang string) []tgbotapi.BotCommand {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.commands[commandsKey{scope: "default", lang: lang}])
}

// ChatCommands returns the command list the bot set for one chat (scope "chat") and a language
// ("" for every language).
func (b *Bot) ChatCommands(chatID int64, lang string) []tgbotapi.BotCommand {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.commands[commandsKey{scope: "chat", chat: chatID, lang: lang}])
}

// Deleted returns the ids of the messages deleted from a chat, in the order they were deleted.
func (b *Bot) Deleted(chatID int64) []int {
	b.mu.Lock()
	defer b.mu.Unlock()
	if c := b.chats[chatID]; c != nil {
		return slices.Clone(c.deleted)
	}
	return nil
}

// Messages returns the messages of a chat, oldest first.
func (b *Bot) Messages(chatID int64) []Message {
	b.mu.Lock()
	defer b.mu.Unlock()
	c := b.chats[chatID]
	if c == nil {
		return nil
	}
	out := make([]Message, len(c.messages))
	for i, m := range c.messages {
		out[i] = *m
	}
	return out
}

// UnansweredCallbacks returns how many button presses the bot has not answered yet.
func (b *Bot) UnansweredCallbacks() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := 0
	for _, c := range b.callbacks {
		if !c.answered {
			n++
		}
	}
	return n
}

// Subscribe returns a channel of the events of a chat and a function that ends the
// subscription. Events are dropped when the channel's buffer (1024) is full.
func (b *Bot) Subscribe(chatID int64) (<-chan Event, func()) {
	ch := make(chan Event, 1024)
	b.mu.Lock()
	c := b.chatLocked(chatID)
	c.subs[ch] = struct{}{}
	b.mu.Unlock()
	var once sync.Once
	return ch, func() {
		once.Do(func() {
			b.mu.Lock()
			delete(c.subs, ch)
			b.mu.Unlock()
		})
	}
}

func (b *Bot) chatLocked(id int64) *chat {
	c := b.chats[id]
	if c == nil {
		c = &chat{nextID: 1, subs: map[chan Event]struct{}{}}
		b.chats[id] = c
	}
	return c
}

func (b *Bot) publishLocked(c *chat, e Event) {
	e.At = b.srv.now()
	for ch := range c.subs {
		select {
		case ch <- e:
		default:
		}
	}
}

// ---- the user side ----

func (b *Bot) userLocked(id int64) (*tgbotapi.User, error) {
	u := b.users[id]
	if u == nil {
		return nil, fmt.Errorf("tgemu: no user %d", id)
	}
	return u, nil
}

// userMessageLocked adds a message from the user to their chat and queues the update.
func (b *Bot) userMessageLocked(u *tgbotapi.User, m *Message, tm *tgbotapi.Message) error {
	return b.postLocked(u, u.ID, b.chatLocked(u.ID), privateChat(u), m, tm)
}

// postLocked adds a message from user u to chat c (id, as the Bot API shows it: apiChat), saves
// it with its update, and queues the update. In a private chat, writing to the bot unblocks it.
func (b *Bot) postLocked(u *tgbotapi.User, id int64, c *chat, apiChat *tgbotapi.Chat, m *Message, tm *tgbotapi.Message) error {
	m.ID, m.ChatID, m.Date = c.nextID, id, b.srv.now()
	if c.group != nil {
		m.From = u.ID
	}
	tm.MessageID = m.ID
	tm.From = u
	tm.Chat = apiChat
	tm.Date = int(m.Date.Unix())
	upd := b.numberLocked(tgbotapi.Update{Message: tm})
	if err := b.saveLocked(record{Msg: m, Update: &upd}); err != nil {
		return err
	}
	if c.group == nil {
		c.blocked = false
	}
	c.nextID++
	c.messages = append(c.messages, m)
	b.queueLocked(upd)
	b.publishLocked(c, Event{Type: "message", ChatID: id, Message: clone(m)})
	return nil
}

// SendText is the user typing text into their chat. A leading /command gets the bot_command
// entity, as Telegram's clients send it. It returns the message id.
func (b *Bot) SendText(userID int64, text string) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	u, err := b.userLocked(userID)
	if err != nil {
		return 0, err
	}
	tm := &tgbotapi.Message{Text: text, Entities: commandEntity(text)}
	m := &Message{Text: text}
	if err := b.userMessageLocked(u, m, tm); err != nil {
		return 0, err
	}
	return m.ID, nil
}

// commandEntity is the bot_command entity Telegram's clients mark a leading /command with (up
// to the first space or line break), or nil.
func commandEntity(text string) []tgbotapi.MessageEntity {
	if !strings.HasPrefix(text, "/") {
		return nil
	}
	n := strings.IndexAny(text, " \n")
	if n < 0 {
		n = len(text)
	}
	return []tgbotapi.MessageEntity{{Type: "bot_command", Offset: 0, Length: textLen(text[:n])}}
}

// SendReply is the user typing text as a reply to message replyTo of their chat (the bot's or
// their own). It returns the message id.
func (b *Bot) SendReply(userID int64, replyTo int, text string) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	u, err := b.userLocked(userID)
	if err != nil {
		return 0, err
	}
	orig := b.chatLocked(userID).find(replyTo)
	if orig == nil {
		return 0, fmt.Errorf("tgemu: chat %d has no message %d", userID, replyTo)
	}
	tm := &tgbotapi.Message{Text: text, ReplyToMessage: b.repliedLocked(orig)}
	m := &Message{Text: text, ReplyTo: replyTo}
	if err := b.userMessageLocked(u, m, tm); err != nil {
		return 0, err
	}
	return m.ID, nil
}

// SendSticker is the user sending a sticker (shown by its emoji). It returns the message id.
func (b *Bot) SendSticker(userID int64, emoji string) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	u, err := b.userLocked(userID)
	if err != nil {
		return 0, err
	}
	id := fmt.Sprintf("sticker-%d-%d", userID, b.chatLocked(userID).nextID)
	tm := &tgbotapi.Message{Sticker: &tgbotapi.Sticker{FileID: id, FileUniqueID: id, Width: 512, Height: 512, Emoji: emoji}}
	m := &Message{Sticker: emoji}
	if err := b.userMessageLocked(u, m, tm); err != nil {
		return 0, err
	}
	return m.ID, nil
}

// SendDocument is the user uploading a file into their chat. It returns the message id.
func (b *Bot) SendDocument(userID int64, name, mimeType string, data []byte) (int, error) {
	return b.SendDocumentCaption(userID, name, mimeType, data, "")
}

// SendDocumentCaption is the user uploading a file with a caption into their chat. It returns
// the message id.
func (b *Bot) SendDocumentCaption(userID int64, name, mimeType string, data []byte, caption string) (int, error) {
	if utf8.RuneCountInString(caption) > maxCaptionLen {
		return 0, fmt.Errorf("tgemu: a caption of at most %d characters", maxCaptionLen)
	}
	b.mu.Lock()
	u, err := b.userLocked(userID)
	b.mu.Unlock()
	if err != nil {
		return 0, err
	}
	f, err := b.srv.addFile(b, name, mimeType, data, "documents")
	if err != nil {
		return 0, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	tm := &tgbotapi.Message{Caption: caption, Document: &tgbotapi.Document{
		FileID: f.id, FileUniqueID: f.uniqueID, FileName: name, MimeType: mimeType, FileSize: len(data),
	}}
	m := &Message{Document: f.id, FileName: name, Text: caption}
	if err := b.userMessageLocked(u, m, tm); err != nil {
		return 0, err
	}
	return m.ID, nil
}

// Press is the user pressing the inline button with this callback data under a message of the
// bot. It returns the callback query id.
func (b *Bot) Press(userID int64, messageID int, data string) (string, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	u, err := b.userLocked(userID)
	if err != nil {
		return "", err
	}
	c := b.chatLocked(userID)
	m := c.find(messageID)
	if m == nil || !m.FromBot {
		return "", fmt.Errorf("tgemu: chat %d has no bot message %d", userID, messageID)
	}
	found := false
	for _, row := range m.Keyboard {
		for _, btn := range row {
			found = found || (btn.Data == data && btn.URL == "" && btn.WebApp == "")
		}
	}
	if !found {
		return "", fmt.Errorf("tgemu: message %d has no button with data %q", messageID, data)
	}
	seq := b.cbSeq + 1
	id := fmt.Sprintf("%d%06d", b.me.ID, seq)
	upd := b.numberLocked(tgbotapi.Update{CallbackQuery: &tgbotapi.CallbackQuery{
		ID: id, From: u, Message: b.toAPILocked(m), ChatInstance: strconv.FormatInt(userID, 10), Data: data,
	}})
	if err := b.saveLocked(record{Callback: &callbackRecord{ID: id, Chat: userID, Seq: seq}, Update: &upd}); err != nil {
		return "", err
	}
	b.cbSeq = seq
	b.callbacks[id] = &callback{chatID: userID}
	b.queueLocked(upd)
	return id, nil
}

func (c *chat) find(id int) *Message {
	for _, m := range c.messages {
		if m.ID == id {
			return m
		}
	}
	return nil
}

// numberLocked gives an update the next update_id; queueLocked then queues it.
func (b *Bot) numberLocked(u tgbotapi.Update) tgbotapi.Update {
	u.UpdateID = b.nextUpd
	return u
}

// queueLocked queues a numbered update and wakes the long polls.
func (b *Bot) queueLocked(u tgbotapi.Update) {
	b.nextUpd = max(b.nextUpd, u.UpdateID+1)
	b.updates = append(b.updates, u)
	b.wakeLocked()
}

func privateChat(u *tgbotapi.User) *tgbotapi.Chat {
	return &tgbotapi.Chat{ID: u.ID, Type: "private", UserName: u.UserName, FirstName: u.FirstName, LastName: u.LastName}
}

func clone(m *Message) *Message {
	cp := *m
	cp.Keyboard = slices.Clone(m.Keyboard)
	return &cp
}

// toAPILocked is a chat message as the Bot API shows it.
func (b *Bot) toAPILocked(m *Message) *tgbotapi.Message {
	tm := &tgbotapi.Message{MessageID: m.ID, Date: int(m.Date.Unix()), Text: m.Text}
	if c := b.chats[m.ChatID]; c != nil && c.group != nil {
		tm.Chat = c.group.apiChat(m.ChatID)
		if u := b.users[m.From]; u != nil && !m.FromBot {
			tm.From = u
		}
	} else if u := b.users[m.ChatID]; u != nil {
		tm.Chat = privateChat(u)
		if !m.FromBot {
			tm.From = u
		}
	} else {
		tm.Chat = &tgbotapi.Chat{ID: m.ChatID, Type: "private"}
	}
	if m.FromBot {
		me := b.me
		tm.From = &me
	}
	if m.ViaBot {
		me := b.me
		tm.ViaBot = &me
	}
	if m.ParseMode == tgbotapi.ModeHTML {
		tm.Text, _ = parseHTML(m.Text)
	}
	if len(m.Keyboard) > 0 {
		kb := tgbotapi.InlineKeyboardMarkup{InlineKeyboard: [][]tgbotapi.InlineKeyboardButton{}}
		for _, row := range m.Keyboard {
			var r []tgbotapi.InlineKeyboardButton
			for _, btn := range row {
				tb := tgbotapi.InlineKeyboardButton{Text: btn.Text}
				if btn.URL != "" {
					tb.URL = &btn.URL
				} else if btn.WebApp == "" {
					tb.CallbackData = &btn.Data
				}
				r = append(r, tb)
			}
			kb.InlineKeyboard = append(kb.InlineKeyboard, r)
		}
		tm.ReplyMarkup = &kb
	}
	if sizes := b.srv.photoSizes(m.Photo); sizes != nil {
		tm.Photo = sizes
		tm.Caption, tm.Text = tm.Text, ""
	}
	if f := b.srv.file(m.Document); f != nil {
		tm.Document = &tgbotapi.Document{FileID: f.id, FileUniqueID: f.uniqueID, FileName: f.name, MimeType: f.mime, FileSize: f.size}
		tm.Caption, tm.Text = tm.Text, ""
	}
	if m.ReplyTo != 0 {
		if c := b.chats[m.ChatID]; c != nil {
			if orig := c.find(m.ReplyTo); orig != nil {
				tm.ReplyToMessage = b.repliedLocked(orig)
			}
		}
	}
	return tm
}

// repliedLocked is a message as the reply_to_message of another: like Telegram, without the
// message it replies to in turn.
func (b *Bot) repliedLocked(m *Message) *tgbotapi.Message {
	cp := *m
	cp.ReplyTo = 0
	return b.toAPILocked(&cp)
}

// replyToLocked reads the reply parameters of a sending method (reply_parameters, or the older
// reply_to_message_id and allow_sending_without_reply) and returns the message of chat c replied
// to, 0 for none.
func replyToLocked(c *chat, p params) (int, *apiError) {
	var rp struct {
		MessageID                int   `json:"message_id"`
		ChatID                   int64 `json:"chat_id"`
		AllowSendingWithoutReply bool  `json:"allow_sending_without_reply"`
	}
	if raw := p.get("reply_parameters"); raw != "" {
		if err := json.Unmarshal([]byte(raw), &rp); err != nil || rp.MessageID == 0 {
			return 0, badRequest("can't parse reply parameters JSON object")
		}
		if rp.ChatID != 0 {
			return 0, badRequest("replies to other chats are not emulated")
		}
	} else if raw := p.get("reply_to_message_id"); raw != "" {
		id, err := strconv.Atoi(raw)
		if err != nil {
			return 0, badRequest("reply_to_message_id is invalid")
		}
		rp.MessageID, rp.AllowSendingWithoutReply = id, p.get("allow_sending_without_reply") == "true"
	} else {
		return 0, nil
	}
	if c.find(rp.MessageID) == nil {
		if rp.AllowSendingWithoutReply {
			return 0, nil
		}
		return 0, badRequest("message to be replied not found")
	}
	return rp.MessageID, nil
}

// ---- the Bot API side ----

// call runs one Bot API method.
func (b *Bot) call(r *http.Request, method string, p params) (any, *apiError) {
	chatID, _ := strconv.ParseInt(p.get("chat_id"), 10, 64)
	if f := b.takeFault(method, chatID); f != nil {
		if f.Delay > 0 {
			select {
			case <-time.After(f.Delay):
			case <-r.Context().Done():
				return nil, &apiError{code: 499, description: "client went away"}
			}
		}
		if f.Code != 0 {
			e := &apiError{code: f.Code, retryAfter: f.RetryAfter, page: f.Page}
			switch {
			case f.Code == 429:
				e.description = fmt.Sprintf("Too Many Requests: retry after %d", f.RetryAfter)
			case f.Code >= 500:
				e.description = http.StatusText(f.Code)
			default:
				e.description = fmt.Sprintf("Error %d", f.Code)
			}
			b.count(e)
			return nil, e
		}
	}
	var res any
	var err *apiError
	// The edits of an inline message (inline_message_id in place of chat_id and message_id).
	dispatch := method
	if strings.HasPrefix(method, "editMessage") && p.get("inline_message_id") != "" {
		dispatch = "inline edit"
	}
	switch dispatch {
	case "inline edit":
		res, err = b.editInline(method, p)
	case "answerInlineQuery":
		res, err = b.answerInlineQuery(p)
	case "getMe":
		res = b.me
	case "getUpdates":
		res, err = b.getUpdates(r, p)
	case "sendMessage":
		res, err = b.sendMessage(p)
	case "editMessageText":
		res, err = b.editMessage(p, true)
	case "editMessageReplyMarkup":
		res, err = b.editMessage(p, false)
	case "editMessageCaption":
		res, err = b.editMessageCaption(p)
	case "editMessageMedia":
		res, err = b.editMessageMedia(p)
	case "deleteMessage":
		res, err = b.deleteMessage(p)
	case "deleteMessages":
		res, err = b.deleteMessages(p)
	case "answerCallbackQuery":
		res, err = b.answerCallback(p)
	case "sendPhoto":
		res, err = b.sendFile(p, "photo")
	case "sendDocument":
		res, err = b.sendFile(p, "document")
	case "setMyCommands":
		res, err = b.setMyCommands(p)
	case "getMyCommands":
		res, err = b.getMyCommands(p)
	case "getFile":
		res, err = b.getFile(p)
	case "setWebhook":
		res, err = b.setWebhook(p)
	case "deleteWebhook":
		res, err = b.deleteWebhook(p)
	case "getWebhookInfo":
		b.mu.Lock()
		res = b.webhookInfoLocked()
		b.mu.Unlock()
	default:
		err = &apiError{code: 404, description: "Not Found: method not found"}
	}
	b.mu.Lock()
	b.counts[method]++
	b.mu.Unlock()
	if err != nil {
		b.count(err)
	}
	return res, err
}

func (b *Bot) count(e *apiError) {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch {
	case e.code == 429:
		b.counts["429"]++
	case e.code >= 500:
		b.counts["5xx"]++
	case e.code == 403:
		b.counts["403"]++
	case e.code == 400:
		b.counts["400"]++
	default:
		b.counts[strconv.Itoa(e.code)]++
	}
}

func (b *Bot) takeFault(method string, chatID int64) *Fault {
	b.mu.Lock()
	defer b.mu.Unlock()
	for i, f := range b.faults {
		if f.Method == "" && (method == "getMe" || method == "getUpdates") {
			continue
		}
		if (f.Method != "" && f.Method != method) || (f.ChatID != 0 && f.ChatID != chatID) {
			continue
		}
		f.Times--
		if f.Times <= 0 {
			b.faults = slices.Delete(b.faults, i, i+1)
		}
		cp := *f
		return &cp
	}
	return nil
}

func (b *Bot) getUpdates(r *http.Request, p params) (any, *apiError) {
	offset, _ := strconv.Atoi(p.get("offset"))
	limit, _ := strconv.Atoi(p.get("limit"))
	if limit <= 0 || limit > 100 {
		limit = 100
	}
	timeout, _ := strconv.Atoi(p.get("timeout"))
	deadline := time.NewTimer(min(time.Duration(timeout)*time.Second, maxPollTimeout))
	defer deadline.Stop()
	for {
		b.mu.Lock()
		if b.hook != nil {
			b.mu.Unlock()
			return nil, &apiError{code: 409, description: "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first"}
		}
		if e := b.acknowledgeLocked(offset); e != nil {
			b.mu.Unlock()
			return nil, e
		}
		if len(b.updates) > 0 || timeout <= 0 {
			out := slices.Clone(b.updates[:min(limit, len(b.updates))])
			b.mu.Unlock()
			return out, nil
		}
		wake := b.wake
		b.mu.Unlock()
		select {
		case <-wake:
		case <-deadline.C:
			return []tgbotapi.Update{}, nil
		case <-r.Context().Done():
			return []tgbotapi.Update{}, nil
		}
	}
}

// target finds the chat a sending method is about and applies the per-chat checks: the chat
// exists, the user has not blocked the bot, and the flood limits.
func (b *Bot) targetLocked(p params, flood bool) (int64, *chat, *apiError) {
	id, err := p.int64("chat_id")
	if err != nil {
		return 0, nil, badRequest("chat_id is empty")
	}
	c := b.chats[id]
	if c == nil || (c.group == nil && b.users[id] == nil) {
		return 0, nil, badRequest("chat not found")
	}
	if c.group != nil && c.group.left {
		return 0, nil, &apiError{code: 403, description: "Forbidden: bot was kicked from the group chat"}
	}
	if c.group != nil && hasWebApp(p.get("reply_markup")) {
		return 0, nil, badRequest("BUTTON_TYPE_INVALID")
	}
	if c.blocked {
		return 0, nil, &apiError{code: 403, description: "Forbidden: bot was blocked by the user"}
	}
	if flood && b.srv.opts.EnforceRateLimits {
		t := b.srv.now()
		if ahead := c.paced.Sub(t); ahead > (perChatBurst-1)*perChatMinInterval {
			return 0, nil, tooMany(ahead - (perChatBurst-1)*perChatMinInterval)
		}
		if c.group != nil {
			n := 0
			for _, s := range c.recent {
				if t.Sub(s) < groupWindow {
					n++
				}
			}
			if n >= groupPerMinute {
				return 0, nil, tooMany(groupWindow - t.Sub(c.recent[len(c.recent)-groupPerMinute]))
			}
		}
		recent := 0
		for _, s := range b.sends {
			if t.Sub(s) < time.Second {
				recent++
			}
		}
		if recent >= globalPerSecond {
			return 0, nil, tooMany(time.Second)
		}
	}
	return id, c, nil
}

func (b *Bot) noteSendLocked(c *chat) {
	t := b.srv.now()
	if !b.srv.opts.EnforceRateLimits {
		return
	}
	if c.paced.Before(t) {
		c.paced = t
	}
	c.paced = c.paced.Add(perChatMinInterval)
	if c.group != nil {
		i := 0
		for i < len(c.recent) && t.Sub(c.recent[i]) >= groupWindow {
			i++
		}
		c.recent = append(c.recent[i:], t)
	}
	i := 0
	for i < len(b.sends) && t.Sub(b.sends[i]) > time.Second {
		i++
	}
	b.sends = append(b.sends[i:], t)
}

// tooMany is the flood error, its retry_after the wait rounded up to whole seconds.
func tooMany(wait time.Duration) *apiError {
	secs := max(1, int((wait+time.Second-1)/time.Second))
	return &apiError{code: 429, description: fmt.Sprintf("Too Many Requests: retry after %d", secs), retryAfter: secs}
}

// checkText validates a text (or caption) and its parse mode.
func checkText(text, parseMode string, max int, required bool) *apiError {
	plain := text
	switch parseMode {
	case "":
	case tgbotapi.ModeHTML:
		var err error
		if plain, err = parseHTML(text); err != nil {
			return badRequest("%v", err)
		}
	default:
		return badRequest("unsupported parse_mode")
	}
	if required && strings.TrimSpace(plain) == "" {
		return badRequest("message text is empty")
	}
	if textLen(plain) > max {
		if max == maxCaptionLen {
			return badRequest("message caption is too long")
		}
		return badRequest("message is too long")
	}
	return nil
}

// parseKeyboard checks a reply_markup. Only inline keyboards are kept; other markups (reply
// keyboards, remove_keyboard) are accepted and not shown.
func parseKeyboard(raw string) ([][]Button, *apiError) {
	if raw == "" {
		return nil, nil
	}
	var m struct {
		InlineKeyboard *[][]map[string]json.RawMessage `json:"inline_keyboard"`
	}
	if err := json.Unmarshal([]byte(raw), &m); err != nil {
		return nil, badRequest("can't parse reply keyboard markup JSON object")
	}
	if m.InlineKeyboard == nil {
		return nil, nil
	}
	var kb [][]Button
	total := 0
	for _, row := range *m.InlineKeyboard {
		if len(row) > maxButtonsPerRow {
			return nil, badRequest("too many inline keyboard buttons in a row")
		}
		var r []Button
		for _, raw := range row {
			var btn Button
			var text, data, url, webApp *string
			for k, v := range raw {
				if k == "web_app" {
					u, e := parseWebApp(v)
					if e != nil {
						return nil, e
					}
					webApp = &u
					continue
				}
				var s string
				if err := json.Unmarshal(v, &s); err != nil {
					return nil, badRequest("can't parse inline keyboard button: field \"%s\" must be of type String", k)
				}
				switch k {
				case "text":
					text = &s
				case "callback_data":
					data = &s
				case "url":
					url = &s
				default:
					return nil, badRequest("can't parse inline keyboard button: unsupported field \"%s\"", k)
				}
			}
			if text == nil {
				return nil, badRequest("can't parse inline keyboard button: Field \"text\" must be of type String")
			}
			btn.Text = *text
			switch {
			case webApp != nil && data == nil && url == nil:
				btn.WebApp = *webApp
			case data != nil && url == nil && webApp == nil:
				if len(*data) == 0 || len(*data) > maxCallbackData {
					return nil, badRequest("BUTTON_DATA_INVALID")
				}
				btn.Data = *data
			case url != nil && data == nil && webApp == nil:
				if !strings.HasPrefix(*url, "http://") && !strings.HasPrefix(*url, "https://") && !strings.HasPrefix(*url, "tg://") {
					return nil, badRequest("inline keyboard button URL '%s' is invalid: Unsupported URL protocol", *url)
				}
				btn.URL = *url
			default:
				return nil, badRequest("can't parse inline keyboard button: Text buttons are unallowed in the inline keyboard")
			}
			if strings.TrimSpace(btn.Text) == "" {
				return nil, badRequest("can't parse inline keyboard button: Text must be non-empty")
			}
			r = append(r, btn)
			total++
		}
		if len(r) > 0 {
			kb = append(kb, r)
		}
	}
	if total > maxButtons {
		return nil, badRequest("reply markup is too long")
	}
	return kb, nil
}

func (b *Bot) sendMessage(p params) (any, *apiError) {
	if e := checkText(p.get("text"), p.get("parse_mode"), maxTextLen, true); e != nil {
		return nil, e
	}
	kb, e := parseKeyboard(p.get("reply_markup"))
	if e != nil {
		return nil, e
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	id, c, e := b.targetLocked(p, true)
	if e != nil {
		return nil, e
	}
	replyTo, e := replyToLocked(c, p)
	if e != nil {
		return nil, e
	}
	m := &Message{ID: c.nextID, ChatID: id, FromBot: true, Text: p.get("text"), ParseMode: p.get("parse_mode"), Keyboard: kb, Date: b.srv.now(),
		ReplyTo: replyTo}
	if e := b.saveAPILocked(record{Msg: m}); e != nil {
		return nil, e
	}
	c.nextID++
	c.messages = append(c.messages, m)
	b.noteSendLocked(c)
	b.publishLocked(c, Event{Type: "message", ChatID: id, Message: clone(m)})
	return b.toAPILocked(m), nil
}

func (b *Bot) editMessage(p params, withText bool) (any, *apiError) {
	if withText {
		if e := checkText(p.get("text"), p.get("parse_mode"), maxTextLen, true); e != nil {
			return nil, e
		}
	}
	kb, e := parseKeyboard(p.get("reply_markup"))
	if e != nil {
		return nil, e
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	id, c, e := b.targetLocked(p, true)
	if e != nil {
		return nil, e
	}
	msgID, _ := strconv.Atoi(p.get("message_id"))
	m := c.find(msgID)
	if m == nil || !m.FromBot {
		return nil, badRequest("message to edit not found")
	}
	if withText && m.isMedia() {
		return nil, badRequest("there is no text in the message to edit")
	}
	next := *m
	next.Keyboard = kb
	if withText {
		next.Text, next.ParseMode = p.get("text"), p.get("parse_mode")
	}
	if next.Text == m.Text && next.ParseMode == m.ParseMode && keyboardsEqual(next.Keyboard, m.Keyboard) {
		return nil, badRequest("message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message")
	}
	next.Edited = true
	if e := b.saveAPILocked(record{Msg: &next}); e != nil {
		return nil, e
	}
	*m = next
	b.noteSendLocked(c)
	b.publishLocked(c, Event{Type: "edit", ChatID: id, Message: clone(m)})
	return b.toAPILocked(m), nil
}

func keyboardsEqual(a, b [][]Button) bool {
	return slices.EqualFunc(a, b, func(x, y []Button) bool { return slices.Equal(x, y) })
}

func (b *Bot) deleteMessage(p params) (any, *apiError) {
	b.mu.Lock()
	defer b.mu.Unlock()
	id, c, e := b.targetLocked(p, false)
	if e != nil {
		return nil, e
	}
	msgID, _ := strconv.Atoi(p.get("message_id"))
	deleted, e := b.deleteLocked(id, c, msgID)
	if e != nil {
		return nil, e
	}
	if !deleted {
		return nil, badRequest("message to delete not found")
	}
	return true, nil
}

// deleteMessages deletes several messages of a chat (1 to 100); like Telegram, it skips the ones
// it cannot find and fails only when none could be deleted.
func (b *Bot) deleteMessages(p params) (any, *apiError) {
	var ids []int
	if err := json.Unmarshal([]byte(p.get("message_ids")), &ids); err != nil || len(ids) == 0 || len(ids) > 100 {
		return nil, badRequest("message_ids must be a JSON array of 1-100 message identifiers")
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	id, c, e := b.targetLocked(p, false)
	if e != nil {
		return nil, e
	}
	n := 0
	for _, m := range ids {
		deleted, e := b.deleteLocked(id, c, m)
		if e != nil {
			return nil, e
		}
		if deleted {
			n++
		}
	}
	if n == 0 {
		return nil, badRequest("message to delete not found")
	}
	return true, nil
}

// deleteLocked removes message msgID of chat c (id) and reports whether it was there.
func (b *Bot) deleteLocked(id int64, c *chat, msgID int) (bool, *apiError) {
	i := slices.IndexFunc(c.messages, func(m *Message) bool { return m.ID == msgID })
	if i < 0 {
		return false, nil
	}
	if e := b.saveAPILocked(record{Del: &messageKey{Chat: id, ID: msgID}}); e != nil {
		return false, e
	}
	c.messages = slices.Delete(c.messages, i, i+1)
	c.deleted = append(c.deleted, msgID)
	b.publishLocked(c, Event{Type: "delete", ChatID: id, MessageID: msgID})
	return true, nil
}

func (b *Bot) answerCallback(p params) (any, *apiError) {
	b.mu.Lock()
	defer b.mu.Unlock()
	cb := b.callbacks[p.get("callback_query_id")]
	if cb == nil || cb.answered {
		return nil, badRequest("query is too old and response timeout expired or query ID is invalid")
	}
	if len(p.get("text")) > 200 {
		return nil, badRequest("MESSAGE_TOO_LONG")
	}
	answered := &callbackRecord{ID: p.get("callback_query_id"), Chat: cb.chatID, Answered: true}
	if e := b.saveAPILocked(record{Callback: answered}); e != nil {
		return nil, e
	}
	cb.answered, cb.text = true, p.get("text")
	b.publishLocked(b.chatLocked(cb.chatID), Event{Type: "answer", ChatID: cb.chatID, Text: p.get("text"),
		ShowAlert: p.get("show_alert") == "true", QueryID: p.get("callback_query_id")})
	return true, nil
}

func (b *Bot) setMyCommands(p params) (any, *apiError) {
	var cmds []tgbotapi.BotCommand
	if err := json.Unmarshal([]byte(p.get("commands")), &cmds); err != nil {
		return nil, badRequest("can't parse commands JSON object")
	}
	if len(cmds) > 100 {
		return nil, badRequest("too many commands")
	}
	for _, c := range cmds {
		if len(c.Command) == 0 || len(c.Command) > 32 || strings.ToLower(c.Command) != c.Command {
			return nil, badRequest("BOT_COMMAND_INVALID")
		}
		if len(c.Description) == 0 || len(c.Description) > 256 {
			return nil, badRequest("BOT_COMMAND_DESCRIPTION_INVALID")
		}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	key, e := b.commandsKeyLocked(p)
	if e != nil {
		return nil, e
	}
	list := &commandsRecord{Scope: key.scope, Chat: key.chat, User: key.user, Lang: key.lang, List: cmds}
	if e := b.saveAPILocked(record{Commands: list}); e != nil {
		return nil, e
	}
	b.commands[key] = cmds
	return true, nil
}

// getMyCommands answers the list set for exactly the scope and language asked (an empty list when
// none was), as Telegram does.
func (b *Bot) getMyCommands(p params) (any, *apiError) {
	b.mu.Lock()
	defer b.mu.Unlock()
	key, e := b.commandsKeyLocked(p)
	if e != nil {
		return nil, e
	}
	cmds := b.commands[key]
	if cmds == nil {
		cmds = []tgbotapi.BotCommand{}
	}
	return slices.Clone(cmds), nil
}

// commandsKeyLocked reads the scope (a BotCommandScope as JSON; the default scope when absent)
// and language_code of setMyCommands and getMyCommands.
func (b *Bot) commandsKeyLocked(p params) (commandsKey, *apiError) {
	key := commandsKey{scope: "default", lang: p.get("language_code")}
	raw := p.get("scope")
	if raw == "" {
		return key, nil
	}
	var scope struct {
		Type   string          `json:"type"`
		ChatID json.RawMessage `json:"chat_id"`
		UserID int64           `json:"user_id"`
	}
	if err := json.Unmarshal([]byte(raw), &scope); err != nil {
		return key, badRequest("can't parse BotCommandScope JSON object")
	}
	key.scope = scope.Type
	switch scope.Type {
	case "default", "all_private_chats", "all_group_chats", "all_chat_administrators":
	case "chat", "chat_administrators", "chat_member":
		id, err := strconv.ParseInt(strings.Trim(string(scope.ChatID), `"`), 10, 64)
		if err != nil || b.chats[id] == nil {
			return key, badRequest("chat not found")
		}
		key.chat = id
		if scope.Type == "chat_member" {
			if b.users[scope.UserID] == nil {
				return key, badRequest("user not found")
			}
			key.user = scope.UserID
		}
	default:
		return key, badRequest("wrong BotCommandScope type specified")
	}
	return key, nil
}

func (b *Bot) getFile(p params) (any, *apiError) {
	f := b.srv.file(p.get("file_id"))
	if f == nil {
		return nil, badRequest("invalid file_id")
	}
	size := f.size
	if f.parent != "" {
		// A smaller copy of a photo is made when first asked for; its size is known then.
		data, err := b.srv.content(f)
		if err != nil {
			b.srv.log.Error("Emulated file unreadable", slog.String("file_id", f.id), slog.Any("error", err))
			return nil, &apiError{code: 500, description: "Internal Server Error: the file cannot be read"}
		}
		size = len(data)
	}
	return tgbotapi.File{FileID: f.id, FileUniqueID: f.uniqueID, FileSize: size, FilePath: f.path}, nil
}
