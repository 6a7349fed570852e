package bot

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"
)

// # Mini Apps
//
// A button of kind web_app (Button.WebApp) opens a web page inside Telegram, a Mini App, in
// private chats only. Telegram hands the page the data of the user who opened it, initData: a
// query string of query_id, user (JSON), auth_date, hash and a few more fields, signed with a
// key derived from the bot's token, so that the page's server can trust it
// (https://core.telegram.org/bots/webapps, "Validating data received via the Mini App"):
//
//	data_check_string = every field but hash, sorted by key, as key=value joined by "\n"
//	secret_key        = HMAC_SHA256(key "WebAppData", message bot_token)
//	hash              = hex(HMAC_SHA256(key secret_key, message data_check_string))
//
// The token itself never leaves the transport: Transport.WebAppKeys gives each bot's
// secret_key, and ParseWebAppData and WebAppData.SignedBy check a page's initData with it.
// Telegram also sends a field signature (an Ed25519 signature for third parties); it is part of
// the data_check_string like any other field but hash, and is not checked here.

// webAppInfo is the web_app field of an inline keyboard button.
type webAppInfo struct {
	URL string `json:"url"`
}

// inlineButton is an inline keyboard button as the Bot API reads it: tgbotapi's, which has no
// web_app field, and that field.
type inlineButton struct {
	tgbotapi.InlineKeyboardButton
	WebApp *webAppInfo `json:"web_app,omitempty"`
}

// inlineKeyboard is an inline keyboard's reply_markup.
type inlineKeyboard struct {
	InlineKeyboard [][]inlineButton `json:"inline_keyboard"`
}

// MiniAppURL reports whether Telegram opens a page at u as a Mini App: an https address, or,
// in Telegram's test environment (which the built-in emulator is), an http address on a
// loopback host (localhost, 127.0.0.0/8, ::1).
func MiniAppURL(u string, testEnv bool) bool {
	p, err := url.Parse(u)
	if err != nil || p.Host == "" || p.User != nil {
		return false
	}
	switch p.Scheme {
	case "https":
		return true
	case "http":
		return testEnv && LoopbackHost(p.Hostname())
	}
	return false
}

// LoopbackHost reports whether host (a name or an address, without a port) is this machine's
// loopback: localhost, 127.0.0.0/8 or ::1.
func LoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// WebAppSecret is the key that signs the initData Telegram gives the Mini Apps of the bot whose
// token is token (secret_key above).
func WebAppSecret(token string) []byte {
	m := hmac.New(sha256.New, []byte("WebAppData"))
	m.Write([]byte(token))
	return m.Sum(nil)
}

// WebAppKeys returns the key that signs the Mini Apps' initData (WebAppSecret) of every bot the
// transport runs, by service id (none for a nil transport). The web game server checks a page's
// initData with them.
func (t *Transport) WebAppKeys() map[int][]byte {
	if t == nil {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	keys := make(map[int][]byte, len(t.apis))
	for id, api := range t.apis {
		keys[id] = WebAppSecret(api.token)
	}
	return keys
}

// Errors of ParseWebAppData and WebAppData.Fresh.
var (
	// ErrWebAppData: the initData is malformed or lacks a field it needs.
	ErrWebAppData = errors.New("bot: the Mini App's data is malformed")
	// ErrWebAppStale: the initData was signed too long ago, or in the future.
	ErrWebAppStale = errors.New("bot: the Mini App's data is too old, or dated in the future")
)

// WebAppUser is the user of a Mini App's initData (Telegram's WebAppUser).
type WebAppUser struct {
	ID           int64  `json:"id"`
	FirstName    string `json:"first_name"`
	LastName     string `json:"last_name,omitempty"`
	Username     string `json:"username,omitempty"`
	LanguageCode string `json:"language_code,omitempty"`
}

// WebAppData is a Mini App's initData, read but not yet checked: see SignedBy and Fresh.
type WebAppData struct {
	// User is who opened the Mini App.
	User WebAppUser
	// QueryID is the query_id, empty when Telegram gave none (a button of a keyboard gives one,
	// an attachment menu too; a link to the app may not).
	QueryID string
	// AuthDate is when Telegram signed the data.
	AuthDate time.Time
	// Hash is the signature, decoded.
	Hash []byte
	// check is the data_check_string.
	check string
}

// maxWebAppData bounds the initData read; Telegram's are well under 1 KiB.
const maxWebAppData = 4096

// ParseWebAppData reads a Mini App's initData (the query string Telegram gives the page, as
// Telegram.WebApp.initData or tgWebAppData of the URL's fragment). Returns ErrWebAppData for
// data that is malformed: not a query string, a key given twice, no hash or a hash that is not
// 64 hex digits, no auth_date, no user or a user without an id.
func ParseWebAppData(raw string) (*WebAppData, error) {
	if raw == "" || len(raw) > maxWebAppData {
		return nil, fmt.Errorf("%w: empty or longer than %d bytes", ErrWebAppData, maxWebAppData)
	}
	fields := map[string]string{}
	for part := range strings.SplitSeq(raw, "&") {
		k, v, ok := strings.Cut(part, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("%w: %q is no key=value", ErrWebAppData, part)
		}
		key, err1 := url.QueryUnescape(k)
		val, err2 := url.QueryUnescape(v)
		if err := errors.Join(err1, err2); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrWebAppData, err)
		}
		if _, dup := fields[key]; dup {
			return nil, fmt.Errorf("%w: %s is given twice", ErrWebAppData, key)
		}
		fields[key] = val
	}
	d := &WebAppData{QueryID: fields["query_id"]}
	hash, err := hex.DecodeString(fields["hash"])
	if err != nil || len(hash) != sha256.Size {
		return nil, fmt.Errorf("%w: no hash of 64 hex digits", ErrWebAppData)
	}
	d.Hash = hash
	at, err := strconv.ParseInt(fields["auth_date"], 10, 64)
	if err != nil || at <= 0 {
		return nil, fmt.Errorf("%w: no auth_date", ErrWebAppData)
	}
	d.AuthDate = time.Unix(at, 0)
	if err := json.Unmarshal([]byte(fields["user"]), &d.User); err != nil || d.User.ID <= 0 {
		return nil, fmt.Errorf("%w: no user with an id", ErrWebAppData)
	}
	keys := make([]string, 0, len(fields))
	for k := range fields {
		if k != "hash" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	lines := make([]string, len(keys))
	for i, k := range keys {
		lines[i] = k + "=" + fields[k]
	}
	d.check = strings.Join(lines, "\n")
	return d, nil
}

// SignedBy reports whether the data was signed with key (WebAppSecret of a bot's token).
func (d *WebAppData) SignedBy(key []byte) bool {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(d.check))
	return hmac.Equal(m.Sum(nil), d.Hash)
}

// Fresh checks the data's age at now: signed at most maxAge ago, and at most skew in the
// future (the clocks of Telegram and of the server differ a little). Returns ErrWebAppStale
// otherwise.
func (d *WebAppData) Fresh(now time.Time, maxAge, skew time.Duration) error {
	switch age := now.Sub(d.AuthDate); {
	case age > maxAge:
		return fmt.Errorf("%w: signed %s ago", ErrWebAppStale, age.Round(time.Second))
	case -age > skew:
		return fmt.Errorf("%w: signed %s in the future", ErrWebAppStale, (-age).Round(time.Second))
	}
	return nil
}
