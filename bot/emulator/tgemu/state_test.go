package tgemu

import (
	"encoding/json"
	"errors"
	"image/color"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"
)

// openServed opens an emulator on dir with one bot and serves it until the test ends.
func openServed(t *testing.T, dir, token string) (*Server, *Bot, *httptest.Server) {
	t.Helper()
	emu, err := Open(Options{StateDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	b := emu.AddBot(token, "questbot")
	srv := httptest.NewServer(emu)
	t.Cleanup(func() { srv.Close(); emu.Close() })
	return emu, b, srv
}

// updates long-polls once from offset and decodes the updates.
func updates(t *testing.T, srv *httptest.Server, token string, offset int) []tgbotapi.Update {
	t.Helper()
	code, resp := call(t, srv, token, "getUpdates", url.Values{"offset": {strconv.Itoa(offset)}})
	var us []tgbotapi.Update
	if code != 200 || json.Unmarshal(resp.Result, &us) != nil {
		t.Fatalf("getUpdates: %d %+v", code, resp)
	}
	return us
}

// Ensure an emulator opened again on its folder has everything a restarted Telegram would: users,
// chats with their messages and photos, the updates not acknowledged, the numbering of updates,
// messages and callbacks, command lists and file_ids; the bot is the same account under a new
// token.
func TestStateSurvivesRestart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	emu, b, srv := openServed(t, dir, "7000000001:first")
	if emu.Restored() {
		t.Error("a new folder reports a restored state")
	}
	b.AddUser(tgbotapi.User{ID: 7, FirstName: "Ann", LanguageCode: "ru"})
	if _, err := b.SendText(7, "/start"); err != nil {
		t.Fatal(err)
	}
	if us := updates(t, srv, "7000000001:first", 0); len(us) != 1 || us[0].UpdateID != 1 {
		t.Fatalf("first update: %+v", us)
	}
	photo := message(t)(multipartCall(t, srv, "7000000001:first", "sendPhoto",
		map[string]string{"chat_id": "7", "caption": "board", "reply_markup": keyboard},
		map[string][]byte{"photo": pngOf(t, 400, 400, color.White)}))
	gone := message(t)(call(t, srv, "7000000001:first", "sendMessage", url.Values{"chat_id": {"7"}, "text": {"soon gone"}}))
	call(t, srv, "7000000001:first", "deleteMessage", url.Values{"chat_id": {"7"}, "message_id": {strconv.Itoa(gone.MessageID)}})
	call(t, srv, "7000000001:first", "setMyCommands", url.Values{"commands": {`[{"command":"quest","description":"Quests"}]`}})
	// Acknowledged: the first update. Pending: a text and a button press.
	updates(t, srv, "7000000001:first", 2)
	if _, err := b.SendText(7, "second"); err != nil {
		t.Fatal(err)
	}
	cbID, err := b.Press(7, photo.MessageID, "move")
	if err != nil {
		t.Fatal(err)
	}
	before := b.Messages(7)
	if err := emu.Close(); err != nil {
		t.Fatal(err)
	}
	srv.Close()

	emu2, b2, srv2 := openServed(t, dir, "7000000001:second")
	if !emu2.Restored() {
		t.Error("the state is not reported restored")
	}
	if us := b2.Users(); len(us) != 1 || us[0].FirstName != "Ann" || us[0].LanguageCode != "ru" {
		t.Errorf("users %+v", us)
	}
	// Compared as the page gets them: as JSON.
	after, _ := json.Marshal(b2.Messages(7))
	if want, _ := json.Marshal(before); string(after) != string(want) {
		t.Errorf("messages after the restart:\n%s\nwant\n%s", after, want)
	}
	us := updates(t, srv2, "7000000001:second", 2)
	if len(us) != 2 || us[0].UpdateID != 2 || us[0].Message.Text != "second" || us[1].CallbackQuery == nil || us[1].CallbackQuery.ID != cbID {
		t.Fatalf("pending updates after the restart: %+v", us)
	}
	if _, err := b2.SendText(7, "third"); err != nil {
		t.Fatal(err)
	}
	us = updates(t, srv2, "7000000001:second", 4)
	if len(us) != 1 || us[0].UpdateID != 4 || us[0].Message.MessageID <= gone.MessageID {
		t.Errorf("the numbering did not go on: %+v (the deleted message was %d)", us, gone.MessageID)
	}
	if cmds := b2.Commands(""); len(cmds) != 1 || cmds[0].Command != "quest" {
		t.Errorf("commands %+v", cmds)
	}
	if code, resp := call(t, srv2, "7000000001:second", "answerCallbackQuery", url.Values{"callback_query_id": {cbID}}); code != 200 {
		t.Errorf("answering the press of before the restart: %d %s", code, resp.Description)
	}
	// The photo's file_ids still work: to send it again, and to download it with the new token.
	again := message(t)(call(t, srv2, "7000000001:second", "sendPhoto", url.Values{"chat_id": {"7"}, "photo": {largest(photo)}}))
	if largest(again) != largest(photo) || len(again.Photo) != len(photo.Photo) {
		t.Errorf("the photo sent again by file_id: %+v, want %+v", again.Photo, photo.Photo)
	}
	_, resp := call(t, srv2, "7000000001:second", "getFile", url.Values{"file_id": {photo.Photo[0].FileID}})
	var f tgbotapi.File
	json.Unmarshal(resp.Result, &f)
	got, err := http.Get(srv2.URL + "/file/bot7000000001:second/" + f.FilePath)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := io.ReadAll(got.Body)
	got.Body.Close()
	if got.StatusCode != 200 || len(data) == 0 || len(data) != f.FileSize {
		t.Errorf("download after the restart: %d, %d bytes, want %d", got.StatusCode, len(data), f.FileSize)
	}
	if _, err := Open(Options{StateDir: dir}); !errors.Is(err, ErrStateBusy) {
		t.Errorf("a second emulator on the folder: got %v, want ErrStateBusy", err)
	}
}

// Ensure a getUpdates offset beyond every update the emulator gave out (its state was lost, the
// bot's database kept its offset) does not swallow what users send: the numbering goes on from
// the offset, the updates waiting included.
func TestOffsetBeyondUpdates(t *testing.T) {
	t.Parallel()
	emu := New(Options{})
	b := emu.AddBot("1:T", "b")
	b.AddUser(tgbotapi.User{ID: 7, FirstName: "Ann"})
	srv := httptest.NewServer(emu)
	defer srv.Close()
	if _, err := b.SendText(7, "/start"); err != nil {
		t.Fatal(err)
	}
	us := updates(t, srv, "1:T", 58)
	if len(us) != 1 || us[0].UpdateID != 58 || us[0].Message.Text != "/start" {
		t.Fatalf("offset 58: %+v, want the waiting /start as update 58", us)
	}
	b.SendText(7, "next")
	if us := updates(t, srv, "1:T", 59); len(us) != 1 || us[0].UpdateID != 59 || us[0].Message.Text != "next" {
		t.Fatalf("offset 59: %+v", us)
	}
	// An offset at the end acknowledges and renumbers nothing.
	if us := updates(t, srv, "1:T", 60); len(us) != 0 {
		t.Fatalf("offset 60: %+v", us)
	}
}

// Ensure a journal cut short by a crash loses only the unfinished line, a damaged line elsewhere
// is reported with its place, and a change that cannot be saved is refused, not half made.
func TestStateDamage(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	emu, b, _ := openServed(t, dir, "1:T")
	b.AddUser(tgbotapi.User{ID: 7, FirstName: "Ann"})
	b.SendText(7, "kept")
	emu.Close()
	journal := filepath.Join(dir, journalName)
	f, err := os.OpenFile(journal, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"bot":1,"msg":{"id":9,"chat_i`)
	f.Close()

	emu2, b2, srv2 := openServed(t, dir, "1:T")
	if msgs := b2.Messages(7); len(msgs) != 1 || msgs[0].Text != "kept" {
		t.Fatalf("after a cut last line: %+v", msgs)
	}
	// The state cannot be written any more: the change is refused and not made.
	emu2.state.f.Close()
	code, resp := call(t, srv2, "1:T", "sendMessage", url.Values{"chat_id": {"7"}, "text": {"lost?"}})
	if code != 500 || !strings.Contains(resp.Description, "could not save") {
		t.Errorf("send with the state unwritable: %d %q, want 500", code, resp.Description)
	}
	if _, err := b2.SendText(7, "lost?"); err == nil {
		t.Error("a user's message was taken with the state unwritable")
	}
	if msgs := b2.Messages(7); len(msgs) != 1 {
		t.Errorf("%d messages after refused changes, want 1", len(msgs))
	}
	emu2.state.lock.Close()

	data, err := os.ReadFile(journal)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	lines[1] = "{not json\n"
	if err := os.WriteFile(journal, []byte(strings.Join(lines, "")), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(Options{StateDir: dir}); err == nil || !strings.Contains(err.Error(), journal+" line 2") {
		t.Errorf("a damaged line: got %v, want an error naming line 2", err)
	}
}

// BenchmarkSendMessage measures a sendMessage through HTTP, with the state in memory and kept in
// a folder (each change synced to disk before the answer).
func BenchmarkSendMessage(b *testing.B) {
	for _, kept := range []bool{false, true} {
		name := "memory"
		if kept {
			name = "state"
		}
		b.Run(name, func(b *testing.B) {
			opts := Options{}
			if kept {
				opts.StateDir = b.TempDir()
			}
			emu, err := Open(opts)
			if err != nil {
				b.Fatal(err)
			}
			defer emu.Close()
			bot := emu.AddBot("1:T", "b")
			bot.AddUser(tgbotapi.User{ID: 7, FirstName: "Ann"})
			srv := httptest.NewServer(emu)
			defer srv.Close()
			form := url.Values{"chat_id": {"7"}, "text": {"<b>White</b> to move"}, "parse_mode": {"HTML"}}
			for b.Loop() {
				resp, err := http.PostForm(srv.URL+"/bot1:T/sendMessage", form)
				if err != nil {
					b.Fatal(err)
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != 200 {
					b.Fatalf("status %d", resp.StatusCode)
				}
			}
		})
	}
}
