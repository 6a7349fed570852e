package webchat_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"

	"github.com/questbot/questbot/bot/emulator/tgemu"
	"github.com/questbot/questbot/bot/emulator/webchat"
)

type user struct {
	ID       int64  `json:"id"`
	Name     string `json:"name"`
	Language string `json:"language"`
}

// post adds or brings back a user through the page's API.
func post(t *testing.T, h http.Handler, in user) (int, user) {
	t.Helper()
	body, _ := json.Marshal(in)
	rec := httptest.NewRecorder()
	req := httptest.NewRequest("POST", "http://127.0.0.1:8080/api/users", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	h.ServeHTTP(rec, req)
	var out user
	if rec.Code == 200 {
		json.Unmarshal(rec.Body.Bytes(), &out)
	}
	return rec.Code, out
}

// Ensure user ids are never given twice: new users get ids above those the emulator has and
// those KnownUsers reports (and none while it cannot answer), and users the page brings back
// keep their ids.
func TestUserIDs(t *testing.T) {
	t.Parallel()
	emu := tgemu.New(tgemu.Options{})
	b := emu.AddBot("1:T", "b")
	// Users the emulator already has: one of the web chat's, one from elsewhere.
	b.AddUser(tgbotapi.User{ID: webchat.FirstUserID + 4, FirstName: "Old"})
	b.AddUser(tgbotapi.User{ID: 5, FirstName: "Test"})
	h := webchat.New(emu, b)
	down := true
	h.KnownUsers = func(context.Context) (int64, error) {
		if down {
			return 0, errors.New("database starting")
		}
		return webchat.FirstUserID + 9, nil
	}
	if code, _ := post(t, h, user{Name: "Ann"}); code != http.StatusServiceUnavailable {
		t.Fatalf("while KnownUsers fails: %d, want 503", code)
	}
	down = false
	if _, ann := post(t, h, user{Name: "Ann", Language: "en"}); ann.ID != webchat.FirstUserID+10 {
		t.Errorf("Ann got %d, want %d", ann.ID, webchat.FirstUserID+10)
	}

	// A user the page remembers and the emulator lost comes back as they were, and the ids go on
	// above theirs.
	if code, back := post(t, h, user{ID: webchat.FirstUserID + 20, Name: "Dan", Language: "ru"}); code != 200 || back.ID != webchat.FirstUserID+20 {
		t.Errorf("bringing Dan back: %d %+v", code, back)
	}
	if _, bob := post(t, h, user{Name: "Bob"}); bob.ID != webchat.FirstUserID+21 {
		t.Errorf("Bob got %d, want %d", bob.ID, webchat.FirstUserID+21)
	}
	// One the emulator has keeps its name; an id outside the web chat's range is refused.
	if _, old := post(t, h, user{ID: webchat.FirstUserID + 4, Name: "Impostor"}); old.Name != "Old" {
		t.Errorf("bringing back a known user: %+v, want the emulator's", old)
	}
	if code, _ := post(t, h, user{ID: 5, Name: "Test"}); code != http.StatusBadRequest {
		t.Errorf("an id outside the range: %d, want 400", code)
	}
	users := b.Users()
	if len(users) != 5 {
		t.Errorf("the emulator has %d users, want 5: %+v", len(users), users)
	}
}
