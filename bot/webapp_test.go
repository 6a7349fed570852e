package bot

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The test's bot token and the instant its data is checked at.
const testWebAppToken = "123456:test-token-of-the-mini-app"

var webAppNow = time.Unix(1_800_000_000, 0)

// signWebApp builds initData of fields signed with token, straight from Telegram's documented
// rule, with crypto/hmac: the fields but hash sorted by key as key=value joined by "\n", signed
// with HMAC_SHA256(key "WebAppData", message token). Each field is written once, in the order
// given, escaped as a query string.
func signWebApp(token string, fields [][2]string) string {
	byKey := slices.Clone(fields)
	slices.SortFunc(byKey, func(a, b [2]string) int { return strings.Compare(a[0], b[0]) })
	sorted := make([]string, 0, len(byKey))
	for _, f := range byKey {
		sorted = append(sorted, f[0]+"="+f[1])
	}
	secret := hmac.New(sha256.New, []byte("WebAppData"))
	secret.Write([]byte(token))
	sig := hmac.New(sha256.New, secret.Sum(nil))
	sig.Write([]byte(strings.Join(sorted, "\n")))
	var parts []string
	for _, f := range fields {
		parts = append(parts, url.QueryEscape(f[0])+"="+url.QueryEscape(f[1]))
	}
	parts = append(parts, "hash="+hex.EncodeToString(sig.Sum(nil)))
	return strings.Join(parts, "&")
}

// webAppFields are the fields Telegram gives a Mini App opened from a keyboard button.
func webAppFields(authDate time.Time) [][2]string {
	user, _ := json.Marshal(map[string]any{"id": 100000001, "first_name": "Ann", "username": "ann", "language_code": "en",
		"allows_write_to_pm": true})
	return [][2]string{
		{"query_id", "AAHdF6IQAAAAAN0XohDhrOrc"},
		{"user", string(user)},
		{"auth_date", strconv.FormatInt(authDate.Unix(), 10)},
		{"signature", "c2lnbmF0dXJl"},
	}
}

// Ensure data signed by the documented rule is read and accepted, with its user, query id, date
// and hash.
func TestWebAppDataValid(t *testing.T) {
	t.Parallel()
	raw := signWebApp(testWebAppToken, webAppFields(webAppNow.Add(-time.Hour)))
	d, err := ParseWebAppData(raw)
	if err != nil {
		t.Fatal(err)
	}
	if !d.SignedBy(WebAppSecret(testWebAppToken)) {
		t.Fatal("data signed by the documented rule is refused")
	}
	if err := d.Fresh(webAppNow, 24*time.Hour, time.Minute); err != nil {
		t.Fatal(err)
	}
	if d.User.ID != 100000001 || d.User.FirstName != "Ann" || d.User.LanguageCode != "en" || d.QueryID != "AAHdF6IQAAAAAN0XohDhrOrc" ||
		!d.AuthDate.Equal(webAppNow.Add(-time.Hour)) || len(d.Hash) != 32 {
		t.Fatalf("read %+v", d)
	}
}

// Ensure a known vector: the key and the hash of fixed data, written out, so that a change of
// the rule on either side shows.
func TestWebAppDataKnownVector(t *testing.T) {
	t.Parallel()
	secret := hmac.New(sha256.New, []byte("WebAppData"))
	secret.Write([]byte("1:A"))
	if got, want := hex.EncodeToString(WebAppSecret("1:A")), hex.EncodeToString(secret.Sum(nil)); got != want {
		t.Fatalf("secret key %s, want %s", got, want)
	}
	check := "auth_date=1700000000\nquery_id=Q\nuser={\"id\":7,\"first_name\":\"A\"}"
	sig := hmac.New(sha256.New, secret.Sum(nil))
	sig.Write([]byte(check))
	raw := "user=" + url.QueryEscape(`{"id":7,"first_name":"A"}`) + "&query_id=Q&auth_date=1700000000&hash=" + hex.EncodeToString(sig.Sum(nil))
	d, err := ParseWebAppData(raw)
	if err != nil {
		t.Fatal(err)
	}
	if d.check != check || !d.SignedBy(WebAppSecret("1:A")) {
		t.Fatalf("data_check_string %q, want %q", d.check, check)
	}
}

// Ensure forged, foreign, stale, future and malformed data are refused, each for its reason.
func TestWebAppDataRefused(t *testing.T) {
	t.Parallel()
	key := WebAppSecret(testWebAppToken)
	good := signWebApp(testWebAppToken, webAppFields(webAppNow))
	t.Run("ErrForgedHash", func(t *testing.T) {
		// The user changed after signing: the hash no longer fits.
		forged := strings.Replace(good, "Ann", "Bob", 1)
		d, err := ParseWebAppData(forged)
		if err != nil {
			t.Fatal(err)
		}
		if d.SignedBy(key) {
			t.Fatal("forged data accepted")
		}
		h := strings.LastIndex(good, "hash=")
		flipped := good[:h+5] + strings.Repeat("0", 64)
		if d, err := ParseWebAppData(flipped); err != nil || d.SignedBy(key) {
			t.Fatalf("a made-up hash: %v", err)
		}
	})
	t.Run("ErrWrongToken", func(t *testing.T) {
		other := signWebApp("654321:another-bot", webAppFields(webAppNow))
		d, err := ParseWebAppData(other)
		if err != nil {
			t.Fatal(err)
		}
		if d.SignedBy(key) {
			t.Fatal("another bot's data accepted")
		}
	})
	t.Run("ErrStale", func(t *testing.T) {
		d, err := ParseWebAppData(signWebApp(testWebAppToken, webAppFields(webAppNow.Add(-24*time.Hour-time.Second))))
		if err != nil || !d.SignedBy(key) {
			t.Fatal(err)
		}
		if err := d.Fresh(webAppNow, 24*time.Hour, time.Minute); !errors.Is(err, ErrWebAppStale) {
			t.Fatalf("a day and a second old: %v, want ErrWebAppStale", err)
		}
		if err := d.Fresh(webAppNow.Add(-time.Second), 24*time.Hour, time.Minute); err != nil {
			t.Fatalf("a day old: %v", err)
		}
	})
	t.Run("ErrFuture", func(t *testing.T) {
		d, err := ParseWebAppData(signWebApp(testWebAppToken, webAppFields(webAppNow.Add(2*time.Minute))))
		if err != nil || !d.SignedBy(key) {
			t.Fatal(err)
		}
		if err := d.Fresh(webAppNow, 24*time.Hour, time.Minute); !errors.Is(err, ErrWebAppStale) {
			t.Fatalf("two minutes ahead: %v, want ErrWebAppStale", err)
		}
		if err := d.Fresh(webAppNow.Add(time.Minute), 24*time.Hour, time.Minute); err != nil {
			t.Fatalf("a minute ahead: %v", err)
		}
	})
	user := `{"id":5,"first_name":"E"}`
	date := strconv.FormatInt(webAppNow.Unix(), 10)
	for name, raw := range map[string]string{
		"ErrEmpty":       "",
		"ErrNoHash":      "user=" + url.QueryEscape(user) + "&auth_date=" + date,
		"ErrShortHash":   "user=" + url.QueryEscape(user) + "&auth_date=" + date + "&hash=abcd",
		"ErrNoUser":      signWebApp(testWebAppToken, [][2]string{{"auth_date", date}, {"query_id", "Q"}}),
		"ErrUserNoID":    signWebApp(testWebAppToken, [][2]string{{"auth_date", date}, {"user", `{"first_name":"E"}`}}),
		"ErrUserNotJSON": signWebApp(testWebAppToken, [][2]string{{"auth_date", date}, {"user", "E"}}),
		"ErrNoAuthDate":  signWebApp(testWebAppToken, [][2]string{{"user", user}}),
		"ErrBadAuthDate": signWebApp(testWebAppToken, [][2]string{{"user", user}, {"auth_date", "yesterday"}}),
		// A second user after the signed one: which would count is ambiguous, so neither does.
		"ErrDuplicateKey":  signWebApp(testWebAppToken, [][2]string{{"user", user}, {"auth_date", date}}) + "&user=" + url.QueryEscape(`{"id":6}`),
		"ErrDuplicateHash": signWebApp(testWebAppToken, [][2]string{{"user", user}, {"auth_date", date}}) + "&hash=" + strings.Repeat("0", 64),
		"ErrNoValue":       "user&auth_date=1&hash=" + strings.Repeat("0", 64),
		"ErrBadEscape":     "user=%zz&auth_date=1&hash=" + strings.Repeat("0", 64),
		"ErrTooLong":       strings.Repeat("a=b&", 2000),
	} {
		t.Run(name, func(t *testing.T) {
			if d, err := ParseWebAppData(raw); !errors.Is(err, ErrWebAppData) {
				t.Fatalf("read %+v, %v; want ErrWebAppData", d, err)
			}
		})
	}
}

// Ensure the Mini App's addresses: https anywhere, http only on loopback in the test
// environment, nothing else.
func TestMiniAppURL(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		url     string
		testEnv bool
		want    bool
	}{
		{"https://games.example.org/play/1", false, true},
		{"https://games.example.org/play/1", true, true},
		{"http://127.0.0.1:8080/play/1", true, true},
		{"http://localhost:8080/play/1", true, true},
		{"http://[::1]:8080/play/1", true, true},
		{"http://127.0.0.1:8080/play/1", false, false},
		{"http://games.example.org/play/1", true, false},
		{"http://10.0.0.1/play/1", true, false},
		{"ftp://games.example.org/", true, false},
		{"https://user:pw@games.example.org/", false, false},
		{"/play/1", true, false},
		{"", true, false},
	} {
		if got := MiniAppURL(c.url, c.testEnv); got != c.want {
			t.Errorf("MiniAppURL(%q, %v) = %v, want %v", c.url, c.testEnv, got, c.want)
		}
	}
}

// Ensure a web_app button is marshalled as Telegram reads it, and that a button of two kinds is
// refused.
func TestWebAppButton(t *testing.T) {
	t.Parallel()
	got, err := Keyboard{{{Text: "Open", WebApp: "https://g.example/play/1"}, {Text: "Resign", Data: "g:1:0:r"}}}.markup()
	if err != nil {
		t.Fatal(err)
	}
	want := `{"inline_keyboard":[[{"text":"Open","web_app":{"url":"https://g.example/play/1"}},{"text":"Resign","callback_data":"g:1:0:r"}]]}`
	if got != want {
		t.Fatalf("markup %s, want %s", got, want)
	}
	for _, b := range []Button{
		{Text: "x", Data: "d", WebApp: "https://g.example/"},
		{Text: "x", URL: "https://g.example/", WebApp: "https://g.example/"},
		{Text: "x"},
		{Text: " ", WebApp: "https://g.example/"},
	} {
		if _, err := (Keyboard{{b}}).markup(); !errors.Is(err, ErrButton) {
			t.Errorf("%+v: %v, want ErrButton", b, err)
		}
	}
}
