package scriptbot

// texts are the handler's own player-facing strings in one language; everything else the bot
// says comes from the command tree.
type texts struct {
	hint        string
	unknown     string
	unavailable string
	stale       string
	noQuests    string
}

var allTexts = map[string]texts{
	"en": {
		hint:        "Send /quest to choose a quest, or /help to see what I can do.",
		unknown:     "I don't know this command. Send /help to see what I can do.",
		unavailable: "Sorry, this command is unavailable at the moment.",
		stale:       "This menu is no longer active.",
		noQuests:    "Quests are unavailable at the moment.",
	},
	"ru": {
		hint:        "Отправьте /quest, чтобы выбрать квест, или /help, чтобы узнать, что я умею.",
		unknown:     "Я не знаю такой команды. Отправьте /help, чтобы узнать, что я умею.",
		unavailable: "Извините, эта команда сейчас недоступна.",
		stale:       "Это меню уже неактивно.",
		noQuests:    "Квесты сейчас недоступны.",
	},
}

// textsFor returns the strings of a language, English when there are none in it.
func textsFor(lang string) texts {
	if t, ok := allTexts[lang]; ok {
		return t
	}
	return allTexts["en"]
}
