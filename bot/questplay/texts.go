package questplay

// msgs are the player-facing texts of this package in one language.
type msgs struct {
	stale     string // answer to a stale or forged button
	noGame    string // /retry without a running game
	noQuest   string // a launch of a quest whose file cannot be played
	brokenNow string // the quest failed while playing (a broken formula)
}

var allMsgs = map[string]msgs{
	"en": {
		stale:     "This choice is no longer available.",
		noGame:    "You are not playing any quest now. Send /quest to choose one.",
		noQuest:   "Sorry, this quest cannot be played.",
		brokenNow: "Sorry, this quest is broken at this point and cannot go on.",
	},
	"ru": {
		stale:     "Этот выбор больше недоступен.",
		noGame:    "Сейчас вы не играете ни в один квест. Отправьте /quest, чтобы выбрать.",
		noQuest:   "Извините, этот квест не удаётся запустить.",
		brokenNow: "Извините, в этом месте квест сломан и продолжить его нельзя.",
	},
}

// msgsFor returns the texts of a language ("ru" or anything else for English).
func msgsFor(lang string) msgs {
	if m, ok := allMsgs[lang]; ok {
		return m
	}
	return allMsgs["en"]
}
