package tgemu

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
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
