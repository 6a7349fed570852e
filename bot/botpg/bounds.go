package botpg

import (
	"fmt"
	"unicode/utf16"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"
)

// # What Telegram never sends
//
// Telegram bounds what its users send: a message's text at 4096 characters (UTF-16 code units,
// as it counts them), a caption at 4096 (the longest a subscriber may write), an inline query
// at 256, a button's data at 64 bytes. An update beyond those bounds comes from a Bot API
// server that is not Telegram's, or that misbehaves, and a feature would multiply it (the
// relay copies a text to every admin, split into as many messages as it takes), so it is not
// handled: it is quarantined at intake, as received, with the bound it breaks.

// The bounds of the users' texts, as Telegram counts them.
const (
	maxUserText    = 4096
	maxUserCaption = 4096
	maxInlineQuery = 256
	maxCallback    = 64
)

// beyondTelegram returns why u could not have come from Telegram (a text past its bounds), ""
// when it could.
func beyondTelegram(u *tgbotapi.Update) string {
	for _, m := range []*tgbotapi.Message{u.Message, u.EditedMessage, u.ChannelPost, u.EditedChannelPost} {
		if m == nil {
			continue
		}
		if n := utf16Len(m.Text); n > maxUserText {
			return fmt.Sprintf("a text of %d characters: Telegram sends at most %d", n, maxUserText)
		}
		if n := utf16Len(m.Caption); n > maxUserCaption {
			return fmt.Sprintf("a caption of %d characters: Telegram sends at most %d", n, maxUserCaption)
		}
	}
	if q := u.InlineQuery; q != nil {
		if n := utf16Len(q.Query); n > maxInlineQuery {
			return fmt.Sprintf("an inline query of %d characters: Telegram sends at most %d", n, maxInlineQuery)
		}
	}
	if c := u.CallbackQuery; c != nil && len(c.Data) > maxCallback {
		return fmt.Sprintf("button data of %d bytes: Telegram sends at most %d", len(c.Data), maxCallback)
	}
	return ""
}

// utf16Len counts s in UTF-16 code units, as Telegram counts characters.
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return n
}
