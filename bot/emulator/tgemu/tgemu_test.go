package tgemu

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"
)

// call posts a form to the emulator and decodes Telegram's answer.
func call(t *testing.T, srv *httptest.Server, token, method string, form url.Values) (int, tgbotapi.APIResponse) {
	t.Helper()
	resp, err := http.PostForm(srv.URL+"/bot"+token+"/"+method, form)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out tgbotapi.APIResponse
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, out
}

// Ensure the emulator rejects what Telegram rejects, with Telegram's codes and descriptions.
func TestLimits(t *testing.T) {
	t.Parallel()
	emu := New(Options{})
	b := emu.AddBot("1:T", "b")
	b.AddUser(tgbotapi.User{ID: 7, FirstName: "Ann"})
	srv := httptest.NewServer(emu)
	defer srv.Close()
	long65 := strings.Repeat("x", 65)
	for _, c := range []struct {
		name string
		form url.Values
		code int
		desc string
	}{
		{"OK", url.Values{"chat_id": {"7"}, "text": {"<b>hi</b> &amp; bye"}, "parse_mode": {"HTML"}}, 200, ""},
		{"Empty", url.Values{"chat_id": {"7"}, "text": {""}}, 400, "Bad Request: message text is empty"},
		{"TooLong", url.Values{"chat_id": {"7"}, "text": {strings.Repeat("я", 4097)}}, 400, "Bad Request: message is too long"},
		{"LongMarkupFits", url.Values{"chat_id": {"7"}, "text": {"<b>" + strings.Repeat("a", 4096) + "</b>"}, "parse_mode": {"HTML"}}, 200, ""},
		{"Unclosed", url.Values{"chat_id": {"7"}, "text": {"<b>hi"}, "parse_mode": {"HTML"}}, 400, "can't find end tag"},
		{"BadTag", url.Values{"chat_id": {"7"}, "text": {"<div>hi</div>"}, "parse_mode": {"HTML"}}, 400, "Unsupported start tag \"div\""},
		{"NoChat", url.Values{"chat_id": {"8"}, "text": {"hi"}}, 400, "Bad Request: chat not found"},
		{"CallbackData", url.Values{"chat_id": {"7"}, "text": {"hi"}, "reply_markup": {`{"inline_keyboard":[[{"text":"a","callback_data":"` + long65 + `"}]]}`}}, 400, "BUTTON_DATA_INVALID"},
		{"TextButton", url.Values{"chat_id": {"7"}, "text": {"hi"}, "reply_markup": {`{"inline_keyboard":[[{"text":"a"}]]}`}}, 400, "Text buttons are unallowed"},
		{"BadMarkup", url.Values{"chat_id": {"7"}, "text": {"hi"}, "reply_markup": {`[`}}, 400, "can't parse reply keyboard markup"},
		{"Keyboard", url.Values{"chat_id": {"7"}, "text": {"hi"}, "reply_markup": {`{"inline_keyboard":[[{"text":"a","callback_data":"1"},{"text":"b","url":"https://example.org"}]]}`}}, 200, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, resp := call(t, srv, "1:T", "sendMessage", c.form)
			if code != c.code || resp.ErrorCode != map[bool]int{true: 0, false: c.code}[c.code == 200] {
				t.Fatalf("got %d %+v, want %d", code, resp, c.code)
			}
			if !strings.Contains(strings.ToLower(resp.Description), strings.ToLower(c.desc)) {
				t.Fatalf("description %q, want %q in it", resp.Description, c.desc)
			}
		})
	}
	if code, _ := call(t, srv, "2:unknown", "getMe", nil); code != 401 {
		t.Errorf("unknown token: %d, want 401", code)
	}
}

// Ensure faults are injected as asked: 429 with retry_after, 5xx, and 403 for a blocked user.
func TestFaults(t *testing.T) {
	t.Parallel()
	emu := New(Options{})
	b := emu.AddBot("1:T", "b")
	b.AddUser(tgbotapi.User{ID: 7, FirstName: "Ann"})
	srv := httptest.NewServer(emu)
	defer srv.Close()
	form := url.Values{"chat_id": {"7"}, "text": {"hi"}}
	b.InjectFault(Fault{Method: "sendMessage", Code: 429, RetryAfter: 3})
	b.InjectFault(Fault{Method: "sendMessage", Code: 502})
	if code, resp := call(t, srv, "1:T", "sendMessage", form); code != 429 || resp.Parameters == nil || resp.Parameters.RetryAfter != 3 {
		t.Errorf("got %d %+v, want 429 with retry_after 3", code, resp)
	}
	if code, _ := call(t, srv, "1:T", "sendMessage", form); code != 502 {
		t.Errorf("got %d, want 502", code)
	}
	b.Block(7, true)
	if code, resp := call(t, srv, "1:T", "sendMessage", form); code != 403 || resp.Description != "Forbidden: bot was blocked by the user" {
		t.Errorf("got %d %+v, want 403", code, resp)
	}
	if _, err := b.SendText(7, "hello again"); err != nil {
		t.Fatal(err)
	}
	if code, _ := call(t, srv, "1:T", "sendMessage", form); code != 200 {
		t.Errorf("after the user wrote again: %d, want 200", code)
	}
}

// Ensure getUpdates keeps updates until an offset acknowledges them, and long-polls.
func TestGetUpdates(t *testing.T) {
	t.Parallel()
	emu := New(Options{})
	b := emu.AddBot("1:T", "b")
	b.AddUser(tgbotapi.User{ID: 7, FirstName: "Ann"})
	srv := httptest.NewServer(emu)
	defer srv.Close()
	b.SendText(7, "/start now")
	b.SendText(7, "two")
	updates := func(offset string) []tgbotapi.Update {
		_, resp := call(t, srv, "1:T", "getUpdates", url.Values{"offset": {offset}, "timeout": {"1"}})
		var us []tgbotapi.Update
		json.Unmarshal(resp.Result, &us)
		return us
	}
	us := updates("0")
	if len(us) != 2 || !us[0].Message.IsCommand() || us[0].Message.Command() != "start" {
		t.Fatalf("got %+v", us)
	}
	if again := updates("0"); len(again) != 2 {
		t.Fatalf("unacknowledged updates: got %d again, want 2", len(again))
	}
	if rest := updates("2"); len(rest) != 1 || rest[0].Message.Text != "two" {
		t.Fatalf("after offset 2: %+v", rest)
	}
	if none := updates("3"); len(none) != 0 {
		t.Fatalf("after offset 3: %+v", none)
	}
}

// Ensure command lists are kept by scope and language, as setMyCommands sets them and
// getMyCommands reads them, and bad scopes are refused.
func TestCommandScopes(t *testing.T) {
	t.Parallel()
	emu := New(Options{})
	b := emu.AddBot("1:T", "b")
	b.AddUser(tgbotapi.User{ID: 7, FirstName: "Ann"})
	srv := httptest.NewServer(emu)
	defer srv.Close()
	chat7 := `{"type":"chat","chat_id":7}`
	for _, c := range []struct {
		form url.Values
		code int
	}{
		{url.Values{"commands": {`[{"command":"a","description":"default"}]`}}, 200},
		{url.Values{"commands": {`[{"command":"a","description":"ru"}]`}, "language_code": {"ru"}}, 200},
		{url.Values{"commands": {`[{"command":"a","description":"chat"}]`}, "scope": {chat7}}, 200},
		{url.Values{"commands": {`[{"command":"a","description":"x"}]`}, "scope": {`{"type":"chat","chat_id":8}`}}, 400},
		{url.Values{"commands": {`[{"command":"a","description":"x"}]`}, "scope": {`{"type":"nowhere"}`}}, 400},
		{url.Values{"commands": {`[{"command":"a","description":"x"}]`}, "scope": {`{`}}, 400},
	} {
		if code, resp := call(t, srv, "1:T", "setMyCommands", c.form); code != c.code {
			t.Errorf("setMyCommands %v: %d %+v, want %d", c.form, code, resp, c.code)
		}
	}
	get := func(form url.Values) string {
		code, resp := call(t, srv, "1:T", "getMyCommands", form)
		var cmds []tgbotapi.BotCommand
		if code != 200 || json.Unmarshal(resp.Result, &cmds) != nil || len(cmds) > 1 {
			t.Fatalf("getMyCommands %v: %d %+v", form, code, resp)
		}
		if len(cmds) == 0 {
			return ""
		}
		return cmds[0].Description
	}
	for _, c := range []struct {
		form url.Values
		want string
	}{
		{nil, "default"},
		{url.Values{"language_code": {"ru"}}, "ru"},
		{url.Values{"scope": {chat7}}, "chat"},
		{url.Values{"scope": {`{"type":"chat","chat_id":"7"}`}}, "chat"},
		{url.Values{"scope": {chat7}, "language_code": {"ru"}}, ""},
		{url.Values{"scope": {`{"type":"all_private_chats"}`}}, ""},
	} {
		if got := get(c.form); got != c.want {
			t.Errorf("getMyCommands %v: %q, want %q", c.form, got, c.want)
		}
	}
	if got := b.ChatCommands(7, ""); len(got) != 1 || got[0].Description != "chat" {
		t.Errorf("ChatCommands: %+v", got)
	}
}

// Ensure deleteMessage and deleteMessages remove messages and record the deletions.
func TestDeletions(t *testing.T) {
	t.Parallel()
	emu := New(Options{})
	b := emu.AddBot("1:T", "b")
	b.AddUser(tgbotapi.User{ID: 7, FirstName: "Ann"})
	srv := httptest.NewServer(emu)
	defer srv.Close()
	var ids []int
	for range 4 {
		_, resp := call(t, srv, "1:T", "sendMessage", url.Values{"chat_id": {"7"}, "text": {"hi"}})
		var m tgbotapi.Message
		json.Unmarshal(resp.Result, &m)
		ids = append(ids, m.MessageID)
	}
	del := func(method string, form url.Values) int {
		form.Set("chat_id", "7")
		code, _ := call(t, srv, "1:T", method, form)
		return code
	}
	if code := del("deleteMessage", url.Values{"message_id": {strconv.Itoa(ids[1])}}); code != 200 {
		t.Errorf("deleteMessage: %d", code)
	}
	if code := del("deleteMessage", url.Values{"message_id": {strconv.Itoa(ids[1])}}); code != 400 {
		t.Errorf("deleteMessage of a deleted message: %d, want 400", code)
	}
	// Missing messages are skipped.
	list := fmt.Sprintf("[%d,%d,%d]", ids[3], ids[1], ids[0])
	if code := del("deleteMessages", url.Values{"message_ids": {list}}); code != 200 {
		t.Errorf("deleteMessages: %d", code)
	}
	if code := del("deleteMessages", url.Values{"message_ids": {"[]"}}); code != 400 {
		t.Errorf("deleteMessages of nothing: %d, want 400", code)
	}
	if got, want := b.Deleted(7), []int{ids[1], ids[3], ids[0]}; !slices.Equal(got, want) {
		t.Errorf("deleted %v, want %v", got, want)
	}
	if msgs := b.Messages(7); len(msgs) != 1 || msgs[0].ID != ids[2] {
		t.Errorf("left %+v, want message %d", msgs, ids[2])
	}
}
