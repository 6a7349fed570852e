package texts

import (
	"fmt"
	"time"
)

// Quest is what the quest player says. Its texts are plain: the player escapes them.
type Quest struct {
	// Stale answers a stale or forged button of a quest.
	Stale string
	// NoGame answers /retry without a running game.
	NoGame string
	// NoQuest answers a launch of a quest whose file cannot be played.
	NoQuest string
	// BrokenNow: the quest failed while playing (a broken formula).
	BrokenNow string
	// Chosen follows a screen the player left: the choice made (the choice's text).
	Chosen string
	// Params is the button that shows all the quest's parameters on its screen.
	Params string
	// PlayAgain and Another are the buttons of an ending: the same quest again, the catalogue.
	PlayAgain, Another string
	// Catalogue heads the catalogue, Found a search's result (what was searched); Page tells
	// which page is shown (the page, the pages).
	Catalogue, Found, Page string
	// Finished follows a quest in the catalogue: how many players finished it.
	Finished string
	// NewMark marks a quest new to the player; Legend explains the catalogue (the new mark).
	NewMark, Legend string
	// Empty: the catalogue has no quest; NoMatch: none matches the search (what was searched).
	Empty, NoMatch string
	// Previous and Next are the catalogue's page buttons.
	Previous, Next string
	// Leave asks before a quest replaces the one played (the one played, the new one), and
	// LeaveShared when the one played is played with others; Yes and No are its buttons.
	Leave, LeaveShared, Yes, No string
	// Starting follows a catalogue's choice (the quest chosen); CarryOn answers a No.
	Starting, CarryOn string
	// SettingsHead heads /settings, the player's names in quests; SettingName, SettingPlanet,
	// SettingStar, SettingToPlanet and SettingToStar label its fields, SettingsDefaultMark
	// follows a default value, and SettingsUsage says how to change them.
	SettingsHead, SettingName, SettingPlanet, SettingStar, SettingToPlanet, SettingToStar string
	SettingsDefaultMark, SettingsUsage                                                    string
	// SettingSet: a field changed (the label, the value); SettingDefault: a field back to its
	// default (the label); SettingsReset: every field back; SettingsUnknown: no field has that
	// word (the word); SettingBad: a value refused (the most characters).
	SettingSet, SettingDefault, SettingsReset, SettingsUnknown, SettingBad string
	// Completed stands for a congratulation the quest's author left at the editor's default.
	Completed string
	// NoSuchChoice answers a typed number that no choice of the screen has.
	NoSuchChoice string
}

var questEN = Quest{
	Stale:     "This choice is no longer available.",
	NoGame:    "You are not playing any quest now. Send /quest to choose one.",
	NoQuest:   "Sorry, this quest cannot be played.",
	BrokenNow: "Sorry, this quest is broken at this point and cannot go on.",
	Chosen:    "➤ %s",
	Params:    "📊 Parameters",
	PlayAgain: "🔁 Play again",
	Another:   "📚 Another quest",
	Catalogue: "Choose a quest:",
	Found:     "Quests whose name holds «%s»:",
	Page:      "Page %d of %d.",
	Finished:  "finished by %d",
	NewMark:   "🆕",
	Legend:    "🆕 new to you. To find a quest by its name, send /quest and the name.",
	Empty:     "There are no quests yet.",
	NoMatch:   "No quest's name holds «%s». Send /quest to see them all.",
	Previous:  "‹ Back",
	Next:      "More ›",
	Leave:     "You are playing «%s». Leave it and start «%s»?",
	LeaveShared: "You are playing «%s» with other players: if you leave, they go on against the bot. " +
		"Leave it and start «%s»?",
	Yes:      "Yes",
	No:       "No",
	Starting: "▶ %s",
	CarryOn:  "Carry on! /retry shows where you are.",

	SettingsHead:        "Your names in quests:",
	SettingName:         "Your name",
	SettingPlanet:       "Home planet",
	SettingStar:         "Home star",
	SettingToPlanet:     "Destination planet",
	SettingToStar:       "Destination star",
	SettingsDefaultMark: "(default)",
	SettingsUsage: "To change one, send /settings, the field and the new value: /settings name Alex, " +
		"/settings planet Mars. The fields are name, planet and star (where you come from), toplanet and tostar " +
		"(where a quest sends you). /settings name - goes back to the default; /settings reset resets them all.",
	SettingSet:      "%s: «%s» from now on.",
	SettingDefault:  "%s: back to the default.",
	SettingsReset:   "Every name is back to its default.",
	SettingsUnknown: "There is no field «%s».",
	SettingBad:      "A name is one line of at most %d characters, without <>[]{}.",
	Completed:       "🏆 You have completed the quest!",
	NoSuchChoice:    "There is no choice of that number here: type the number of a choice of the list, or press its button.",
}

var questRU = Quest{
	Stale:     "Этот выбор больше недоступен.",
	NoGame:    "Сейчас вы не играете ни в один квест. Отправьте /quest, чтобы выбрать.",
	NoQuest:   "Извините, этот квест не удаётся запустить.",
	BrokenNow: "Извините, в этом месте квест сломан и продолжить его нельзя.",
	Chosen:    "➤ %s",
	Params:    "📊 Параметры",
	PlayAgain: "🔁 Сыграть ещё раз",
	Another:   "📚 Другой квест",
	Catalogue: "Выберите квест:",
	Found:     "Квесты, в названии которых есть «%s»:",
	Page:      "Страница %d из %d.",
	Finished:  "прошли: %d",
	NewMark:   "🆕",
	Legend:    "🆕 — новый для вас. Чтобы найти квест по названию, отправьте /quest и название.",
	Empty:     "Квестов пока нет.",
	NoMatch:   "Квестов, в названии которых есть «%s», нет. Отправьте /quest, чтобы увидеть все.",
	Previous:  "‹ Назад",
	Next:      "Дальше ›",
	Leave:     "Вы играете в «%s». Прервать его и начать «%s»?",
	LeaveShared: "Вы играете в «%s» с другими игроками: если вы уйдёте, они продолжат с ботом. " +
		"Прервать игру и начать «%s»?",
	Yes:      "Да",
	No:       "Нет",
	Starting: "▶ %s",
	CarryOn:  "Продолжайте! /retry покажет, где вы остановились.",

	SettingsHead:        "Ваши имена в квестах:",
	SettingName:         "Ваше имя",
	SettingPlanet:       "Родная планета",
	SettingStar:         "Родная звезда",
	SettingToPlanet:     "Планета назначения",
	SettingToStar:       "Звезда назначения",
	SettingsDefaultMark: "(по умолчанию)",
	SettingsUsage: "Чтобы изменить, отправьте /settings, поле и новое значение: /settings имя Алекс, " +
		"/settings планета Марс. Поля: имя, планета и звезда (откуда вы), планета-цели и звезда-цели " +
		"(куда вас посылает квест). /settings имя - вернёт значение по умолчанию, /settings сброс — все значения.",
	SettingSet:      "%s: «%s» отныне.",
	SettingDefault:  "%s: снова по умолчанию.",
	SettingsReset:   "Все имена снова по умолчанию.",
	SettingsUnknown: "Поля «%s» нет.",
	SettingBad:      "Имя — одна строка не длиннее %d символов, без <>[]{}.",
	Completed:       "🏆 Вы прошли квест!",
	NoSuchChoice:    "Выбора с таким номером здесь нет: напишите номер выбора из списка или нажмите его кнопку.",
}

// Session is what the quest player says of multiplayer sessions. Its texts are plain.
type Session struct {
	// Bot is what <k> stands for when player k is the bot.
	Bot string
	// WaitOpponent: waiting for a second player, with the time left.
	WaitOpponent string
	// WaitPlayers: waiting for more players: who joined, how many of how many, the time left.
	WaitPlayers string
	// WaitFor: waiting for blocks: from whom, the time left.
	WaitFor string
	// AnswerJoin answers a press while waiting to start; AnswerFor one while waiting for blocks
	// (from whom).
	AnswerJoin, AnswerFor string
	// Button is the label of the waiting screen's button.
	Button string
	// Alone: nobody joined in time.
	Alone string
	// Timeout: a player missed the round (who); TimeoutSelf: the player did.
	Timeout, TimeoutSelf string
	// Left: a player left (who).
	Left string
	// Seconds, Minutes and Hours write a time left.
	Seconds, Minutes, Hours string
}

var sessionEN = Session{
	Bot:          "Bot",
	WaitOpponent: "⏳ Waiting for an opponent to join… If nobody joins within %s, you play against the bot.",
	WaitPlayers:  "⏳ Players joined: %s (%d of %d). Waiting up to %s for more; then the game starts, or with too few players you play against the bot.",
	WaitFor:      "⏳ Waiting for %s… (at most %s more; then you go on against the bot)",
	AnswerJoin:   "Waiting for other players to join…",
	AnswerFor:    "Waiting for %s…",
	Button:       "⏳ Who are we waiting for?",
	Alone:        "Nobody joined in time: you play against the bot.",
	Timeout:      "%s did not move in time: you go on against the bot.",
	TimeoutSelf:  "You did not move in time: you go on against the bot.",
	Left:         "%s has left the game: you go on against the bot.",
	Seconds:      "%d s",
	Minutes:      "%d min",
	Hours:        "%d h",
}

var sessionRU = Session{
	Bot:          "Бот",
	WaitOpponent: "⏳ Ждём соперника… Если за %s никто не присоединится, вы сыграете с ботом.",
	WaitPlayers:  "⏳ Присоединились: %s (%d из %d). Ждём ещё игроков до %s; потом игра начнётся, а если игроков мало, вы сыграете с ботом.",
	WaitFor:      "⏳ Ждём: %s… (не больше %s; потом вы продолжите с ботом)",
	AnswerJoin:   "Ждём, пока присоединятся другие игроки…",
	AnswerFor:    "Ждём: %s…",
	Button:       "⏳ Кого мы ждём?",
	Alone:        "Никто не присоединился вовремя: вы играете с ботом.",
	Timeout:      "Ход игрока %s не пришёл вовремя: вы продолжаете с ботом.",
	TimeoutSelf:  "Вы не сделали ход вовремя: вы продолжаете с ботом.",
	Left:         "Игрок %s вышел из игры: вы продолжаете с ботом.",
	Seconds:      "%d с",
	Minutes:      "%d мин",
	Hours:        "%d ч",
}

// Left writes a time left, rounded up: seconds under two minutes, minutes under two hours,
// hours beyond (plain).
func (c *Catalog) Left(d time.Duration) string {
	t := &c.Session
	secs := int((max(d, 0) + time.Second - 1) / time.Second)
	switch {
	case secs < 120:
		return fmt.Sprintf(t.Seconds, secs)
	case secs < 2*3600:
		return fmt.Sprintf(t.Minutes, (secs+59)/60)
	}
	return fmt.Sprintf(t.Hours, (secs+3599)/3600)
}
