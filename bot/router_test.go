package bot

import (
	"testing"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"
)

// Ensure a command is read from a bot_command entity only when the entity fits the text: it
// covers exactly "/name" or "/name@bot" and ends where the command ends; anything else (a forged
// entity) makes the message no command.
func TestParseCommand(t *testing.T) {
	t.Parallel()
	entity := func(offset, length int) []tgbotapi.MessageEntity {
		return []tgbotapi.MessageEntity{{Type: "bot_command", Offset: offset, Length: length}}
	}
	for _, c := range []struct {
		name     string
		text     string
		entities []tgbotapi.MessageEntity
		ok       bool
		cmd, to  string
		args     string
	}{
		{"plain", "/help", entity(0, 5), true, "help", "", ""},
		{"arguments", "/quest Cargo run", entity(0, 6), true, "quest", "", "Cargo run"},
		{"arguments on the next line", "/news\nline two", entity(0, 5), true, "news", "", "line two"},
		{"addressed", "/help@Other_Bot", entity(0, 15), true, "help", "Other_Bot", ""},
		{"addressed with arguments", "/start@questbot 12", entity(0, 15), true, "start", "questbot", "12"},
		{"punctuation after the command", "/help, please", entity(0, 5), true, "help", "", ", please"},
		{"no entity", "/help", nil, false, "", "", ""},
		{"not at the start", "see /help", entity(4, 5), false, "", "", ""},
		{"another kind", "/help", []tgbotapi.MessageEntity{{Type: "bold", Length: 5}}, false, "", "", ""},
		{"entity longer than the text", "/help", entity(0, 40), false, "", "", ""},
		{"entity stops inside the name", "/help", entity(0, 3), false, "", "", ""},
		{"entity stops before the addressee", "/help@OtherBot", entity(0, 5), false, "", "", ""},
		{"entity covers a space", "/help me", entity(0, 8), false, "", "", ""},
		{"entity covers only the slash", "/help", entity(0, 1), false, "", "", ""},
		{"empty addressee", "/help@", entity(0, 6), false, "", "", ""},
		{"no slash", "help", entity(0, 4), false, "", "", ""},
		{"entity splits a surrogate pair", "/h😀", entity(0, 3), false, "", "", ""},
		{"not a command word", "/hé", entity(0, 3), false, "", "", ""},
		{"negative length", "/help", entity(0, -1), false, "", "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			name, to, args, ok := parseCommand(c.text, c.entities)
			if ok != c.ok || name != c.cmd || to != c.to || args != c.args {
				t.Errorf("parseCommand(%q) = %q, %q, %q, %v; want %q, %q, %q, %v", c.text, name, to, args, ok, c.cmd, c.to, c.args, c.ok)
			}
		})
	}
}
