// Package webchat is a web page on which simulated users talk to a bot through the Telegram Bot
// API emulator (bot/emulator/tgemu): choose a name and a language, add more users and see them side by
// side, type text, press inline buttons, upload files, and watch the bot's messages, edits,
// deletions and photos arrive live.
//
// The page is a client of the emulator's user side only; the bot reaches the users through the
// emulated Bot API, the same code path it takes to Telegram. The page's JSON endpoints live under
// /api/ and the chat events stream as server-sent events. The endpoints that change anything
// take requests from the page's own origin only (origin.go): no other site's page can act as a
// simulated user, the admins included.
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
	"net/http"
	"strconv"
	"sync"
	"time"

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
	h.mux.HandleFunc("GET /api/events", h.events)
	h.mux.HandleFunc("GET /api/file/{id}", h.file)
	return h
}

// ServeHTTP serves the page and its API.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.mux.ServeHTTP(w, r) }

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
		// ReplyTo, when set, makes the text a reply to that message of the user's chat.
		ReplyTo int `json:"reply_to"`
	}
	if err := json.NewDecoder(io.LimitReader(r.Body, 64<<10)).Decode(&in); err != nil || in.Text == "" {
		http.Error(w, "user and text are needed", http.StatusBadRequest)
		return
	}
	var id int
	var err error
	if in.ReplyTo > 0 {
		id, err = h.bot.SendReply(in.User, in.ReplyTo, in.Text)
	} else {
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
	}
	if err := json.NewDecoder(io.LimitReader(r.Body, 4096)).Decode(&in); err != nil {
		http.Error(w, "user, message_id and data are needed", http.StatusBadRequest)
		return
	}
	if _, err := h.bot.Press(in.User, in.MessageID, in.Data); err != nil {
		http.Error(w, err.Error(), http.StatusNotFound)
		return
	}
	writeJSON(w, map[string]bool{"ok": true})
}

func (h *Handler) upload(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, maxUpload+1<<20)
	if err := r.ParseMultipartForm(maxUpload); err != nil {
		http.Error(w, "file too large or malformed", http.StatusBadRequest)
		return
	}
	user, err := userParam(r, r.FormValue("user"))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	f, fh, err := r.FormFile("file")
	if err != nil {
		http.Error(w, "no file", http.StatusBadRequest)
		return
	}
	defer f.Close()
	data, err := io.ReadAll(f)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	mimeType := fh.Header.Get("Content-Type")
	if mimeType == "" {
		mimeType = http.DetectContentType(data)
	}
	id, err := h.bot.SendDocument(user, fh.Filename, mimeType, data)
	if err != nil {
		http.Error(w, err.Error(), http.StatusNotFound)
		return
	}
	writeJSON(w, map[string]int{"message_id": id})
}

// events streams a user's chat: first every message it holds ("snapshot"), then each event.
func (h *Handler) events(w http.ResponseWriter, r *http.Request) {
	user, err := userParam(r, r.URL.Query().Get("user"))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	flusher, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming unsupported", http.StatusInternalServerError)
		return
	}
	events, cancel := h.bot.Subscribe(user)
	defer cancel()
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
	msgs := h.bot.Messages(user)
	if msgs == nil {
		msgs = []tgemu.Message{}
	}
	if emit(map[string]any{"type": "snapshot", "messages": msgs}) != nil {
		return
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
