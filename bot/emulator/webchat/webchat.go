// Package webchat is a web page on which simulated users talk to a bot through the Telegram Bot
// API emulator (bot/emulator/tgemu): choose a name and a language, add more users and see them side by
// side, type text, press inline buttons, upload files (with a caption), and watch the bot's
// messages, edits, deletions and photos arrive live. A group chat of the users can be made, in
// which each member writes and presses as themselves (groups.go), and any chat takes inline
// queries: a text that starts with "@" lists the bot's inline results, and a result picked is
// posted into the chat via the bot, as Telegram's clients do.
//
// The page is a client of the emulator's user side only; the bot reaches the users through the
// emulated Bot API, the same code path it takes to Telegram. The page's JSON endpoints live under
// /api/ and the events of all the chats it shows stream as server-sent events on one connection
// (a browser holds at most six to one host, so a stream per chat would freeze a page of seven).
// The endpoints that change anything take requests from the page's own origin only (origin.go):
// no other site's page can act as a simulated user, the admins included; and every request
// must name a host the chat serves (hosts.go), so that no other site's name can be pointed at
// it (DNS rebinding).
//
// Programs use the same endpoints with JSON bodies (a request without an Origin must be JSON):
// POST /api/send {user, text[, chat, reply_to]}, POST /api/press {user, message_id, data[, chat]}
// or {user, inline_message_id, data}, POST /api/upload {user, name, data (base64)[, mime_type,
// caption]} (the page posts a multipart form with the fields user, file and caption),
// POST /api/groups {title, by, members}, POST /api/inline {user, chat, query[, offset]},
// GET /api/inline/{id}, POST /api/inline/more {query_id}, POST /api/inline/choose {query_id,
// result_id}, and the stream
// GET /api/events?chats=ID,ID,… (a user's id is their private chat; a group's is negative).
//
// A user's id is their identity to the bot (their score, language, roles), so an id is never
// given twice: new users get ids above every user the emulator knows and, with KnownUsers, every
// user the bot's database knows. The page also remembers its users in the browser's storage and
// brings them back to an emulator that lost them.
package webchat

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"

	"github.com/questbot/questbot/bot/emulator/tgemu"
)

//go:embed index.html
var page []byte

// maxUpload is the largest file a simulated user may upload.
const maxUpload = 20 << 20

// The web chat's users have ids in [FirstUserID, LastUserID], apart from real Telegram accounts
// in a database that has seen both.
const (
	FirstUserID = 100_000_001
	LastUserID  = 199_999_999
)

// Handler serves the web chat of the emulated bot b of emu.
type Handler struct {
	// KnownUsers, if set, returns the highest id of the web chat's range that the bot already
	// knows (from its database), so that no new user gets the id, and with it the score and
	// language, of a user the emulator forgot. It is asked once, before the first new user;
	// while it fails, new users are refused (503). Set it before serving.
	KnownUsers func(ctx context.Context) (int64, error)
	// Hosts are the host names the chat serves besides localhost and IP addresses (the host of
	// PUBLIC_URL, say), compared without their port and case. Set it before serving.
	Hosts []string

	emu *tgemu.Server
	bot *tgemu.Bot
	mux *http.ServeMux

	mu     sync.Mutex
	nextID int64 // the next new user's id
	known  bool  // KnownUsers was asked
}

// New returns the web chat of bot b. New users get ids above the users b has.
func New(emu *tgemu.Server, b *tgemu.Bot) *Handler {
	h := &Handler{emu: emu, bot: b, mux: http.NewServeMux(), nextID: FirstUserID}
	for _, u := range b.Users() {
		if u.ID >= FirstUserID && u.ID <= LastUserID {
			h.nextID = max(h.nextID, u.ID+1)
		}
	}
	h.mux.HandleFunc("GET /{$}", h.index)
	h.mux.HandleFunc("GET /api/users", h.users)
	// Every change comes from the page itself (origin.go).
	h.mux.HandleFunc("POST /api/users", guard(h.addUser))
	h.mux.HandleFunc("POST /api/send", guard(h.send))
	h.mux.HandleFunc("POST /api/press", guard(h.press))
	h.mux.HandleFunc("POST /api/webapp", guard(h.openWebApp))
	h.mux.HandleFunc("POST /api/upload", guard(h.upload))
	h.mux.HandleFunc("GET /api/bot", h.botInfo)
	h.mux.HandleFunc("GET /api/groups", h.groups)
	h.mux.HandleFunc("POST /api/groups", guard(h.addGroup))
	h.mux.HandleFunc("POST /api/inline", guard(h.inlineQuery))
	h.mux.HandleFunc("GET /api/inline/{id}", h.inlineAnswer)
	h.mux.HandleFunc("POST /api/inline/choose", guard(h.chooseInline))
	h.mux.HandleFunc("POST /api/inline/more", guard(h.moreInline))
	h.mux.HandleFunc("GET /api/events", h.events)
	h.mux.HandleFunc("GET /api/file/{id}", h.file)
	return h
}

// ServeHTTP serves the page and its API to requests that name a host it serves (hosts.go).
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !h.hostAllowed(r.Host) {
		http.Error(w, "refused: the web chat does not serve the host "+strconv.Quote(r.Host)+
			"; open it at its own address (localhost, an IP address, or PUBLIC_URL's host)", http.StatusMisdirectedRequest)
		return
	}
	h.mux.ServeHTTP(w, r)
}

func (h *Handler) index(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Write(page)
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

type userView struct {
	ID       int64  `json:"id"`
	Name     string `json:"name"`
	Language string `json:"language"`
}

func (h *Handler) users(w http.ResponseWriter, r *http.Request) {
	out := []userView{}
	for _, u := range h.bot.Users() {
		out = append(out, userView{ID: u.ID, Name: u.FirstName, Language: u.LanguageCode})
	}
	writeJSON(w, out)
}

// addUser adds a new user, or with an id, brings back a user the page remembers: one the
// emulator has keeps its name and language; one it lost comes back as the page knew them.
func (h *Handler) addUser(w http.ResponseWriter, r *http.Request) {
	var in struct {
		ID       int64  `json:"id"`
		Name     string `json:"name"`
		Language string `json:"language"`
	}
	if err := json.NewDecoder(io.LimitReader(r.Body, 4096)).Decode(&in); err != nil || in.Name == "" || len(in.Name) > 64 {
		http.Error(w, "a name (up to 64 bytes) is needed", http.StatusBadRequest)
		return
	}
	if in.ID != 0 && (in.ID < FirstUserID || in.ID > LastUserID) {
		http.Error(w, fmt.Sprintf("a web chat user's id is between %d and %d", FirstUserID, LastUserID), http.StatusBadRequest)
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if in.ID != 0 {
		for _, u := range h.bot.Users() {
			if u.ID == in.ID {
				writeJSON(w, userView{ID: u.ID, Name: u.FirstName, Language: u.LanguageCode})
				return
			}
		}
	} else {
		if err := h.askKnownLocked(r.Context()); err != nil {
			http.Error(w, "the bot is starting; try again in a moment ("+err.Error()+")", http.StatusServiceUnavailable)
			return
		}
		in.ID = h.nextID
	}
	if err := h.bot.PutUser(tgbotapi.User{ID: in.ID, FirstName: in.Name, LanguageCode: in.Language}); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	h.nextID = max(h.nextID, in.ID+1)
	writeJSON(w, userView{ID: in.ID, Name: in.Name, Language: in.Language})
}

// askKnownLocked asks KnownUsers, once it answers, for the highest id the bot knows.
func (h *Handler) askKnownLocked(ctx context.Context) error {
	if h.known || h.KnownUsers == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	id, err := h.KnownUsers(ctx)
	if err != nil {
		return err
	}
	h.nextID = max(h.nextID, id+1)
	h.known = true
	return nil
}

func userParam(r *http.Request, v string) (int64, error) {
	id, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("bad user id %q", v)
	}
	return id, nil
}

func (h *Handler) send(w http.ResponseWriter, r *http.Request) {
	var in struct {
		User int64  `json:"user"`
		Text string `json:"text"`
		// Chat is a group the user writes in; 0 (or the user's id) is their private chat.
		Chat int64 `json:"chat"`
		// ReplyTo, when set, makes the text a reply to that message of the chat.
		ReplyTo int `json:"reply_to"`
	}
	if err := json.NewDecoder(io.LimitReader(r.Body, 64<<10)).Decode(&in); err != nil || in.Text == "" {
		http.Error(w, "user and text are needed", http.StatusBadRequest)
		return
	}
	var id int
	var err error
	group := in.Chat != 0 && in.Chat != in.User
	switch {
	case group && in.ReplyTo > 0:
		id, err = h.bot.SendGroupReply(in.Chat, in.User, in.ReplyTo, in.Text)
	case group:
		id, err = h.bot.SendGroupText(in.Chat, in.User, in.Text)
	case in.ReplyTo > 0:
		id, err = h.bot.SendReply(in.User, in.ReplyTo, in.Text)
	default:
		id, err = h.bot.SendText(in.User, in.Text)
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusNotFound)
		return
	}
	writeJSON(w, map[string]int{"message_id": id})
}

func (h *Handler) press(w http.ResponseWriter, r *http.Request) {
	var in struct {
		User      int64  `json:"user"`
		MessageID int    `json:"message_id"`
		Data      string `json:"data"`
		// Chat is the group of the message; 0 (or the user's id) is the user's private chat.
		Chat int64 `json:"chat"`
		// InlineMessageID names a message posted via the bot (from its inline results) instead.
		InlineMessageID string `json:"inline_message_id"`
	}
	if err := json.NewDecoder(io.LimitReader(r.Body, 4096)).Decode(&in); err != nil {
		http.Error(w, "user, message_id and data are needed", http.StatusBadRequest)
		return
	}
	var id string
	var err error
	switch {
	case in.InlineMessageID != "":
		id, err = h.bot.PressInline(in.User, in.InlineMessageID, in.Data)
	case in.Chat != 0 && in.Chat != in.User:
		id, err = h.bot.PressGroup(in.Chat, in.User, in.MessageID, in.Data)
	default:
		id, err = h.bot.Press(in.User, in.MessageID, in.Data)
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusNotFound)
		return
	}
	writeJSON(w, map[string]any{"ok": true, "query_id": id})
}

// maxCaption is the longest caption of a file, in characters, as Telegram allows.
const maxCaption = 1024

// upload is a user sending a file, with a caption or none: the page posts a multipart form
// (user, file, caption); a program posts JSON {user, name, data (base64), mime_type, caption},
// since a request without an Origin must be JSON (origin.go).
func (h *Handler) upload(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, maxUpload*4/3+1<<20)
	var user int64
	var name, mimeType, caption string
	var data []byte
	if ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); ct == "application/json" {
		var in struct {
			User     int64  `json:"user"`
			Name     string `json:"name"`
			MimeType string `json:"mime_type"`
			Data     []byte `json:"data"`
			Caption  string `json:"caption"`
		}
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil || in.Name == "" || len(in.Data) == 0 {
			http.Error(w, "user, name and data (the file in base64) are needed", http.StatusBadRequest)
			return
		}
		user, name, mimeType, caption, data = in.User, in.Name, in.MimeType, in.Caption, in.Data
	} else {
		if err := r.ParseMultipartForm(maxUpload); err != nil {
			http.Error(w, "file too large or malformed", http.StatusBadRequest)
			return
		}
		var err error
		if user, err = userParam(r, r.FormValue("user")); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		f, fh, err := r.FormFile("file")
		if err != nil {
			http.Error(w, "no file", http.StatusBadRequest)
			return
		}
		defer f.Close()
		if data, err = io.ReadAll(f); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		name, mimeType, caption = fh.Filename, fh.Header.Get("Content-Type"), r.FormValue("caption")
	}
	if len(data) > maxUpload {
		http.Error(w, fmt.Sprintf("the file is larger than %d MB", maxUpload>>20), http.StatusBadRequest)
		return
	}
	if n := utf8.RuneCountInString(caption); n > maxCaption {
		http.Error(w, fmt.Sprintf("the caption has %d characters; at most %d", n, maxCaption), http.StatusBadRequest)
		return
	}
	if mimeType == "" {
		mimeType = http.DetectContentType(data)
	}
	id, err := h.bot.SendDocumentCaption(user, name, mimeType, data, caption)
	if err != nil {
		http.Error(w, err.Error(), http.StatusNotFound)
		return
	}
	writeJSON(w, map[string]int{"message_id": id})
}

// maxStreamChats bounds the chats one event stream follows.
const maxStreamChats = 100

// events streams the chats of ?chats=ID,ID,… (or the one chat of ?user=ID) on one connection:
// for each chat first every message it holds (a "snapshot" with its chat_id), then each event of
// any of them, as it comes (each event names its chat).
func (h *Handler) events(w http.ResponseWriter, r *http.Request) {
	list := r.URL.Query().Get("chats")
	if list == "" {
		list = r.URL.Query().Get("user")
	}
	var chats []int64
	for _, f := range strings.Split(list, ",") {
		id, err := userParam(r, strings.TrimSpace(f))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if !slices.Contains(chats, id) {
			chats = append(chats, id)
		}
	}
	if len(chats) > maxStreamChats {
		http.Error(w, fmt.Sprintf("one stream follows at most %d chats", maxStreamChats), http.StatusBadRequest)
		return
	}
	flusher, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming unsupported", http.StatusInternalServerError)
		return
	}
	// The chats' events, merged: each chat's subscription is read by a goroutine of its own
	// until the request ends.
	events := make(chan tgemu.Event, 64)
	for _, id := range chats {
		ch, cancel := h.bot.Subscribe(id)
		defer cancel()
		go func() {
			for {
				select {
				case ev := <-ch:
					select {
					case events <- ev:
					case <-r.Context().Done():
						return
					}
				case <-r.Context().Done():
					return
				}
			}
		}()
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	emit := func(v any) error {
		raw, _ := json.Marshal(v)
		if _, err := fmt.Fprintf(w, "data: %s\n\n", raw); err != nil {
			return err
		}
		flusher.Flush()
		return nil
	}
	for _, id := range chats {
		msgs := h.bot.Messages(id)
		if msgs == nil {
			msgs = []tgemu.Message{}
		}
		if emit(map[string]any{"type": "snapshot", "chat_id": id, "messages": msgs}) != nil {
			return
		}
	}
	ping := time.NewTicker(20 * time.Second)
	defer ping.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case ev := <-events:
			if emit(ev) != nil {
				return
			}
		case <-ping.C:
			if _, err := io.WriteString(w, ": ping\n\n"); err != nil {
				return
			}
			flusher.Flush()
		}
	}
}

func (h *Handler) file(w http.ResponseWriter, r *http.Request) {
	data, name, mimeType, ok := h.emu.FileData(r.PathValue("id"))
	if !ok {
		http.NotFound(w, r)
		return
	}
	if mimeType != "" {
		w.Header().Set("Content-Type", mimeType)
	}
	w.Header().Set("Content-Disposition", fmt.Sprintf("inline; filename=%q", name))
	w.Write(data)
}
