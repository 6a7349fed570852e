package texts

// Bot is what the transport and the router say on their own.
type Bot struct {
	// Greeting welcomes a user of a bot without a command tree; {name} is their first name.
	Greeting string
	// Hint answers any other text there.
	Hint string
	// Failure is the apology for an update that could not be handled.
	Failure string
	// Stale answers a press of a button nothing knows any more (plain).
	Stale string
	// And joins the last two names of a list (plain).
	And string
}

var botEN = Bot{
	Greeting: "Hello, <b>{name}</b>! I am Questbot: I play Space Rangers text quests and board games with you.",
	Hint:     "Send /start to begin.",
	Failure:  "Sorry, something went wrong on our side. Please try again later.",
	Stale:    "This button is no longer active.",
	And:      " and ",
}

var botRU = Bot{
	Greeting: "Привет, <b>{name}</b>! Я Questbot: играю с тобой в текстовые квесты «Космических рейнджеров» и настольные игры.",
	Hint:     "Отправьте /start, чтобы начать.",
	Failure:  "Извините, у нас что-то сломалось. Попробуйте ещё раз позже.",
	Stale:    "Эта кнопка больше не действует.",
	And:      " и ",
}

// Tree is what the command tree's handler says beside the tree's own texts.
type Tree struct {
	// Hint answers a text that is neither a command nor an answer.
	Hint string
	// Unknown answers a command the tree does not have; Unavailable one it refused.
	Unknown, Unavailable string
	// Stale answers a press of a menu that is no longer the one waited on (plain).
	Stale string
	// NoQuests answers a quest action when the bot plays no quests.
	NoQuests string
	// Abandoned answers a text sent while a dialogue waited for a button press, which ends the
	// dialogue (the command's name, twice).
	Abandoned string
}

var treeEN = Tree{
	Hint:        "Send /quest to choose a quest, or /help to see what I can do.",
	Unknown:     "I don't know this command. Send /help to see what I can do.",
	Unavailable: "Sorry, this command is unavailable at the moment.",
	Stale:       "This menu is no longer active.",
	NoQuests:    "Quests are unavailable at the moment.",
	Abandoned:   "/%s was waiting for you to press a button, so it has stopped here, and your message was not sent anywhere. Send /%s to start it again.",
}

var treeRU = Tree{
	Hint:        "Отправьте /quest, чтобы выбрать квест, или /help, чтобы узнать, что я умею.",
	Unknown:     "Я не знаю такой команды. Отправьте /help, чтобы узнать, что я умею.",
	Unavailable: "Извините, эта команда сейчас недоступна.",
	Stale:       "Это меню уже неактивно.",
	NoQuests:    "Квесты сейчас недоступны.",
	Abandoned:   "/%s ждала нажатия кнопки, поэтому она остановлена, а ваше сообщение никуда не отправлено. Отправьте /%s, чтобы начать заново.",
}
