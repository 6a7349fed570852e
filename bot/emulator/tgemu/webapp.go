package tgemu

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"net/url"
	"sort"
	"strconv"
	"strings"
)

// # Mini Apps
//
// A bot's inline keyboard may hold web_app buttons ({"text": ..., "web_app": {"url": ...}}),
// which open a web page inside Telegram. The emulator checks them as Telegram does: the URL is
// https, or, as in Telegram's test environment, http on a loopback host (localhost,
// 127.0.0.0/8, ::1), so that a bot run on one machine can open its own pages; and a group gets
// none (BUTTON_TYPE_INVALID), for Telegram allows them in private chats only.
//
// OpenWebApp is a user pressing such a button: it returns the address Telegram's client opens,
// the button's URL with Telegram's launch parameters in the fragment, #tgWebAppData=<initData>
// (and tgWebAppVersion, tgWebAppPlatform), initData being query_id, user (JSON), auth_date and
// hash, signed with the bot's token by Telegram's rule
// (https://core.telegram.org/bots/webapps, "Validating data received via the Mini App").
// Telegram's own script, telegram-web-app.js, reads the same fragment into
// window.Telegram.WebApp.initData. Pressing it sends the bot no update, as in Telegram.

// webAppVersion is the version of the Mini Apps' API the emulated client announces.
const webAppVersion = "7.10"

// webAppInfo is the web_app field of a button.
type webAppInfo struct {
	URL string `json:"url"`
}

// parseWebApp checks the web_app field of a button: an object with an https URL, or an http
// one on a loopback host.
func parseWebApp(raw json.RawMessage) (string, *apiError) {
	var w webAppInfo
	if err := json.Unmarshal(raw, &w); err != nil || w.URL == "" {
		return "", badRequest("can't parse inline keyboard button: Field \"web_app\" must be of type Object with a field \"url\"")
	}
	u, err := url.Parse(w.URL)
	if err != nil || u.Host == "" {
		return "", badRequest("inline keyboard button Web App URL '%s' is invalid: Wrong HTTP URL", w.URL)
	}
	switch {
	case u.Scheme == "https":
	case u.Scheme == "http" && loopback(u.Hostname()):
	default:
		return "", badRequest("inline keyboard button Web App URL '%s' is invalid: Only HTTPS links are allowed", w.URL)
	}
	return w.URL, nil
}

// loopback reports whether host is this machine's loopback.
func loopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// hasWebApp reports whether a reply_markup holds a web_app button.
func hasWebApp(markup string) bool {
	kb, e := parseKeyboard(markup)
	if e != nil {
		return false
	}
	for _, row := range kb {
		for _, b := range row {
			if b.WebApp != "" {
				return true
			}
		}
	}
	return false
}

// OpenWebApp is the user pressing the web_app button labelled label under a message of the bot
// in their private chat: it returns the address the client opens, with the initData signed for
// the user in its fragment (see above).
func (b *Bot) OpenWebApp(userID int64, messageID int, label string) (string, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	u, err := b.userLocked(userID)
	if err != nil {
		return "", err
	}
	c := b.chatLocked(userID)
	m := c.find(messageID)
	if m == nil || !m.FromBot {
		return "", fmt.Errorf("tgemu: chat %d has no bot message %d", userID, messageID)
	}
	target := ""
	for _, row := range m.Keyboard {
		for _, btn := range row {
			if btn.Text == label && btn.WebApp != "" {
				target = btn.WebApp
			}
		}
	}
	if target == "" {
		return "", fmt.Errorf("tgemu: message %d has no web_app button %q", messageID, label)
	}
	user, err := json.Marshal(webAppUser{ID: u.ID, FirstName: u.FirstName, LastName: u.LastName, Username: u.UserName,
		LanguageCode: u.LanguageCode, AllowsWriteToPM: true})
	if err != nil {
		return "", err
	}
	q := make([]byte, 16)
	rand.Read(q)
	data := SignWebAppData(b.token, map[string]string{
		"query_id":  base64.RawURLEncoding.EncodeToString(q),
		"user":      string(user),
		"auth_date": strconv.FormatInt(b.srv.now().Unix(), 10),
	})
	target, _, _ = strings.Cut(target, "#")
	return target + "#tgWebAppData=" + url.QueryEscape(data) + "&tgWebAppVersion=" + webAppVersion + "&tgWebAppPlatform=weba", nil
}

// webAppUser is the user of initData, as Telegram writes it.
type webAppUser struct {
	ID              int64  `json:"id"`
	FirstName       string `json:"first_name"`
	LastName        string `json:"last_name,omitempty"`
	Username        string `json:"username,omitempty"`
	LanguageCode    string `json:"language_code,omitempty"`
	AllowsWriteToPM bool   `json:"allows_write_to_pm,omitempty"`
}

// SignWebAppData returns the initData of fields signed with a bot's token as Telegram signs it:
// the fields as a query string, and hash, the hex HMAC-SHA-256 of the fields sorted by key as
// key=value lines, keyed by the HMAC-SHA-256 of the token keyed by "WebAppData". Tests use it to
// make initData, good or forged.
func SignWebAppData(token string, fields map[string]string) string {
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	lines := make([]string, len(keys))
	q := make([]string, len(keys))
	for i, k := range keys {
		lines[i] = k + "=" + fields[k]
		q[i] = url.QueryEscape(k) + "=" + url.QueryEscape(fields[k])
	}
	secret := hmac.New(sha256.New, []byte("WebAppData"))
	secret.Write([]byte(token))
	sig := hmac.New(sha256.New, secret.Sum(nil))
	sig.Write([]byte(strings.Join(lines, "\n")))
	return strings.Join(q, "&") + "&hash=" + hex.EncodeToString(sig.Sum(nil))
}
