package webchat

import (
	"encoding/json"
	"io"
	"net/http"
)

// openWebApp is a user pressing a web_app button (POST /api/webapp {user, message_id, text}):
// it answers {"url": ...}, the address to open with the Mini App's initData signed for the user
// (tgemu.Bot.OpenWebApp), which the page opens over the chats as Telegram's web client does, in
// a frame. The page closes the frame when the Mini App asks to (web_app_close).
func (h *Handler) openWebApp(w http.ResponseWriter, r *http.Request) {
	var in struct {
		User      int64  `json:"user"`
		MessageID int    `json:"message_id"`
		Text      string `json:"text"`
	}
	if err := json.NewDecoder(io.LimitReader(r.Body, 4096)).Decode(&in); err != nil {
		http.Error(w, "user, message_id and text are needed", http.StatusBadRequest)
		return
	}
	u, err := h.bot.OpenWebApp(in.User, in.MessageID, in.Text)
	if err != nil {
		http.Error(w, err.Error(), http.StatusNotFound)
		return
	}
	writeJSON(w, map[string]string{"url": u})
}
