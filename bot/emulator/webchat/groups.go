package webchat

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/questbot/questbot/bot/emulator/tgemu"
)

// # Groups and inline mode
//
// A group chat is made of users the page shows (POST /api/groups {title, by, members}): the
// bot is added to it by the user by, as on Telegram, and the group gets a negative id below every
// group the emulator has. Groups live in the emulator's memory only: a restart of the emulator
// forgets them (Telegram's group is gone for the bot then, as if it had been removed).
//
// Inline mode is tried from any chat: POST /api/inline {user, chat, query} is the user typing
// "@bot query" there and answers the query's id; GET /api/inline/{id} answers {answered,
// results, more} once the bot has answered, and POST /api/inline/more {query_id} asks for the
// next page of an answer that offers more (its next_offset), answering the new query's id; POST /api/inline/choose {query_id, result_id} posts the
// result into the chat via the bot, with a photo fetched from its URL as Telegram fetches it.

// firstGroupID is the id of the first group the web chat makes; the next ones go down from it.
const firstGroupID = -1001

// botInfo answers the bot's username, which an inline query starts with ("@name query").
func (h *Handler) botInfo(w http.ResponseWriter, r *http.Request) {
	me := h.bot.Me()
	writeJSON(w, map[string]any{"id": me.ID, "username": me.UserName})
}

// groups lists the group chats.
func (h *Handler) groups(w http.ResponseWriter, r *http.Request) {
	gs := h.bot.Groups()
	if gs == nil {
		gs = []tgemu.GroupInfo{}
	}
	writeJSON(w, gs)
}

// addGroup makes a group chat of users: the bot is added to it by the user by.
func (h *Handler) addGroup(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Title   string  `json:"title"`
		By      int64   `json:"by"`
		Members []int64 `json:"members"`
	}
	if err := json.NewDecoder(io.LimitReader(r.Body, 16<<10)).Decode(&in); err != nil {
		http.Error(w, "title, by and members are needed", http.StatusBadRequest)
		return
	}
	in.Title = strings.TrimSpace(in.Title)
	if in.Title == "" || utf8.RuneCountInString(in.Title) > 128 {
		http.Error(w, "a group needs a title of 1 to 128 characters", http.StatusBadRequest)
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	id := int64(firstGroupID)
	for _, g := range h.bot.Groups() {
		id = min(id, g.ID-1)
	}
	if err := h.bot.AddGroup(id, in.Title, in.By, in.Members...); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	for _, g := range h.bot.Groups() {
		if g.ID == id {
			writeJSON(w, g)
			return
		}
	}
	http.Error(w, "the group is gone", http.StatusInternalServerError)
}

// inlineQuery is a user typing "@bot query" into a chat (their private chat: chat is their id or
// 0; or a group they are a member of).
func (h *Handler) inlineQuery(w http.ResponseWriter, r *http.Request) {
	var in struct {
		User  int64  `json:"user"`
		Chat  int64  `json:"chat"`
		Query string `json:"query"`
	}
	if err := json.NewDecoder(io.LimitReader(r.Body, 4096)).Decode(&in); err != nil || utf8.RuneCountInString(in.Query) > 256 {
		http.Error(w, "user, chat and a query of up to 256 characters are needed", http.StatusBadRequest)
		return
	}
	if in.Chat == 0 {
		in.Chat = in.User
	}
	id, err := h.bot.InlineQuery(in.User, in.Chat, in.Query)
	if err != nil {
		http.Error(w, err.Error(), http.StatusNotFound)
		return
	}
	writeJSON(w, map[string]string{"query_id": id})
}

// inlineAnswer answers the bot's results for an inline query, once it has answered, and
// whether it offers more (more: its next_offset is set).
func (h *Handler) inlineAnswer(w http.ResponseWriter, r *http.Request) {
	results, ok := h.bot.InlineAnswer(r.PathValue("id"))
	if results == nil {
		results = []tgemu.InlineResult{}
	}
	next, _ := h.bot.InlineNextOffset(r.PathValue("id"))
	writeJSON(w, map[string]any{"answered": ok, "results": results, "more": next != ""})
}

// moreInline is the user scrolling to the end of an inline query's results that offer more:
// the bot is asked the same query from its next_offset; it answers the new query's id.
func (h *Handler) moreInline(w http.ResponseWriter, r *http.Request) {
	var in struct {
		QueryID string `json:"query_id"`
	}
	if err := json.NewDecoder(io.LimitReader(r.Body, 4096)).Decode(&in); err != nil {
		http.Error(w, "query_id is needed", http.StatusBadRequest)
		return
	}
	id, err := h.bot.MoreInlineResults(in.QueryID)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	writeJSON(w, map[string]string{"query_id": id})
}

// chooseInline is the user picking a result of their inline query.
func (h *Handler) chooseInline(w http.ResponseWriter, r *http.Request) {
	var in struct {
		QueryID  string `json:"query_id"`
		ResultID string `json:"result_id"`
	}
	if err := json.NewDecoder(io.LimitReader(r.Body, 4096)).Decode(&in); err != nil {
		http.Error(w, "query_id and result_id are needed", http.StatusBadRequest)
		return
	}
	inlineID, msg, err := h.bot.ChooseInlineResult(in.QueryID, in.ResultID)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	writeJSON(w, map[string]any{"message_id": msg, "inline_message_id": inlineID})
}
