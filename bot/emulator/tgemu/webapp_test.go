package tgemu

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"
)

// webAppMarkup is a keyboard of one web_app button to url, beside a callback button.
func webAppMarkup(u string) string {
	return `{"inline_keyboard":[[{"text":"Open","web_app":{"url":"` + u + `"}},{"text":"Go","callback_data":"go"}]]}`
}

// Ensure web_app buttons are checked as Telegram checks them: https, or http on loopback (the
// test environment), one kind of button at a time, and never in a group.
func TestWebAppButtons(t *testing.T) {
	t.Parallel()
	emu := New(Options{})
	b := emu.AddBot("1:T", "b")
	b.AddUser(tgbotapi.User{ID: 7, FirstName: "Ann"})
	b.AddUser(tgbotapi.User{ID: 8, FirstName: "Bob"})
	if err := b.AddGroup(-100, "Club", 7, 8); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(emu)
	defer srv.Close()
	for _, c := range []struct {
		name   string
		chat   string
		markup string
		code   int
		desc   string
	}{
		{"HTTPS", "7", webAppMarkup("https://games.example.org/play/1"), 200, ""},
		{"Loopback", "7", webAppMarkup("http://127.0.0.1:8080/play/1"), 200, ""},
		{"Localhost", "7", webAppMarkup("http://localhost:8080/play/1"), 200, ""},
		{"HTTP", "7", webAppMarkup("http://games.example.org/play/1"), 400, "Only HTTPS links are allowed"},
		{"NoURL", "7", `{"inline_keyboard":[[{"text":"Open","web_app":{}}]]}`, 400, `Field "web_app" must be of type Object`},
		{"NotObject", "7", `{"inline_keyboard":[[{"text":"Open","web_app":"https://g.example/"}]]}`, 400, `Field "web_app" must be of type Object`},
		{"TwoKinds", "7", `{"inline_keyboard":[[{"text":"Open","web_app":{"url":"https://g.example/"},"callback_data":"x"}]]}`, 400, "unallowed"},
		{"Group", "-100", webAppMarkup("https://games.example.org/play/1"), 400, "BUTTON_TYPE_INVALID"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, resp := call(t, srv, "1:T", "sendMessage", url.Values{"chat_id": {c.chat}, "text": {"board"}, "reply_markup": {c.markup}})
			if code != c.code || !strings.Contains(resp.Description, c.desc) {
				t.Fatalf("got %d %q, want %d with %q", code, resp.Description, c.code, c.desc)
			}
		})
	}
	// The accepted button is shown as it came, and a press of callback data "" finds nothing.
	msgs := b.Messages(7)
	last := msgs[len(msgs)-1]
	want := [][]Button{{{Text: "Open", WebApp: "http://localhost:8080/play/1"}, {Text: "Go", Data: "go"}}}
	if !keyboardsEqual(last.Keyboard, want) {
		t.Fatalf("keyboard %+v, want %+v", last.Keyboard, want)
	}
	if _, err := b.Press(7, last.ID, ""); err == nil {
		t.Error("a press of a web_app button as callback data went through")
	}
}

// Ensure pressing a web_app button gives the page's address with initData in its fragment,
// signed with the bot's token by Telegram's documented rule (checked here with crypto/hmac),
// for the user who pressed, dated by the emulator's clock.
func TestOpenWebApp(t *testing.T) {
	t.Parallel()
	now := time.Unix(1_800_000_000, 0)
	emu := New(Options{Now: func() time.Time { return now }})
	b := emu.AddBot("42:secret-token", "b")
	b.AddUser(tgbotapi.User{ID: 7, FirstName: "Ann", UserName: "ann", LanguageCode: "ru"})
	srv := httptest.NewServer(emu)
	defer srv.Close()
	if code, resp := call(t, srv, "42:secret-token", "sendMessage", url.Values{"chat_id": {"7"}, "text": {"board"},
		"reply_markup": {webAppMarkup("https://games.example.org/play/5#old")}}); code != 200 {
		t.Fatalf("send: %d %s", code, resp.Description)
	}
	msg := b.Messages(7)[0]
	if _, err := b.OpenWebApp(7, msg.ID, "Go"); err == nil {
		t.Error("a callback button opened as a Mini App")
	}
	if _, err := b.OpenWebApp(8, msg.ID, "Open"); err == nil {
		t.Error("an unknown user opened a Mini App")
	}
	got, err := b.OpenWebApp(7, msg.ID, "Open")
	if err != nil {
		t.Fatal(err)
	}
	page, frag, ok := strings.Cut(got, "#")
	if !ok || page != "https://games.example.org/play/5" {
		t.Fatalf("opened %q", got)
	}
	launch, err := url.ParseQuery(frag)
	if err != nil {
		t.Fatal(err)
	}
	if launch.Get("tgWebAppVersion") == "" || launch.Get("tgWebAppPlatform") == "" {
		t.Errorf("launch parameters %v", launch)
	}
	data := launch.Get("tgWebAppData")
	fields, err := url.ParseQuery(data)
	if err != nil {
		t.Fatal(err)
	}
	var keys, lines []string
	for k, v := range fields {
		if len(v) != 1 {
			t.Fatalf("%s given %d times", k, len(v))
		}
		if k != "hash" {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		lines = append(lines, k+"="+fields.Get(k))
	}
	secret := hmac.New(sha256.New, []byte("WebAppData"))
	secret.Write([]byte("42:secret-token"))
	sig := hmac.New(sha256.New, secret.Sum(nil))
	sig.Write([]byte(strings.Join(lines, "\n")))
	if want := hex.EncodeToString(sig.Sum(nil)); fields.Get("hash") != want {
		t.Fatalf("hash %s, want %s", fields.Get("hash"), want)
	}
	if !slices.Equal(keys, []string{"auth_date", "query_id", "user"}) || fields.Get("query_id") == "" {
		t.Errorf("fields %v", keys)
	}
	if fields.Get("auth_date") != strconv.FormatInt(now.Unix(), 10) {
		t.Errorf("auth_date %s, want %d", fields.Get("auth_date"), now.Unix())
	}
	var user struct {
		ID           int64  `json:"id"`
		FirstName    string `json:"first_name"`
		Username     string `json:"username"`
		LanguageCode string `json:"language_code"`
	}
	if err := json.Unmarshal([]byte(fields.Get("user")), &user); err != nil || user.ID != 7 || user.FirstName != "Ann" ||
		user.Username != "ann" || user.LanguageCode != "ru" {
		t.Errorf("user %s (%v)", fields.Get("user"), err)
	}
	// Each opening is a new query: a new query_id, a new signature.
	again, err := b.OpenWebApp(7, msg.ID, "Open")
	if err != nil || again == got {
		t.Errorf("opened again: %q, %v", again, err)
	}
	if sent := SignWebAppData("42:secret-token", map[string]string{"auth_date": fields.Get("auth_date"),
		"query_id": fields.Get("query_id"), "user": fields.Get("user")}); sent != data {
		t.Errorf("SignWebAppData %q, want the data opened %q", sent, data)
	}
}
