package texts

import "maps"

// The words of the archive's page (a player's finished games) and of the end of a game on its
// page (the rating change, the rematch, a new opponent): entries of Web.Page, kept apart and
// added to the pages' words when the package starts.
var archivePageEN = map[string]string{
	"archive.title":        "Game archive",
	"archive.of":           "Games of {name}",
	"archive.link":         "Game archive",
	"archive.game":         "Game",
	"archive.any":          "any",
	"archive.result":       "Result",
	"archive.win":          "won",
	"archive.loss":         "lost",
	"archive.draw":         "drawn",
	"archive.opponent":     "Opponent",
	"archive.bot":          "the bot",
	"archive.control":      "Clock",
	"archive.from":         "Ended from",
	"archive.to":           "to",
	"archive.apply":        "Show",
	"archive.more":         "More games",
	"archive.empty":        "No finished games found.",
	"archive.exportAll":    "Download these games",
	"archive.export":       "Download",
	"archive.rating":       "{after} ({change})",
	"after.rating":         "{name}: rating {after} ({change})",
	"after.rematch":        "Rematch",
	"after.rematchWaiting": "Rematch offered: waiting for the answer.",
	"after.rematchOffer":   "{name} offers a rematch.",
	"after.accept":         "Accept the rematch",
	"after.decline":        "Decline",
	"after.withdraw":       "Withdraw the offer",
	"after.declined":       "The rematch was declined.",
	"after.open":           "Go to the rematch",
	"after.newOpponent":    "New opponent",
	"err.rematchNotOver":   "The game is not over yet.",
	"err.noRematch":        "No rematch waits for your answer.",
	"err.rematched":        "The rematch of this game has been answered already.",
	"err.archiveFilter":    "The filter is not one the archive knows.",
}

var archivePageRU = map[string]string{
	"archive.title":        "Архив партий",
	"archive.of":           "Партии игрока {name}",
	"archive.link":         "Архив партий",
	"archive.game":         "Игра",
	"archive.any":          "любая",
	"archive.result":       "Результат",
	"archive.win":          "победа",
	"archive.loss":         "поражение",
	"archive.draw":         "ничья",
	"archive.opponent":     "Соперник",
	"archive.bot":          "бот",
	"archive.control":      "Контроль времени",
	"archive.from":         "Окончена с",
	"archive.to":           "по",
	"archive.apply":        "Показать",
	"archive.more":         "Ещё партии",
	"archive.empty":        "Оконченных партий не найдено.",
	"archive.exportAll":    "Скачать эти партии",
	"archive.export":       "Скачать",
	"archive.rating":       "{after} ({change})",
	"after.rating":         "{name}: рейтинг {after} ({change})",
	"after.rematch":        "Реванш",
	"after.rematchWaiting": "Реванш предложен: ждём ответа.",
	"after.rematchOffer":   "{name} предлагает реванш.",
	"after.accept":         "Принять реванш",
	"after.decline":        "Отказаться",
	"after.withdraw":       "Отозвать предложение",
	"after.declined":       "От реванша отказались.",
	"after.open":           "Перейти к реваншу",
	"after.newOpponent":    "Новый соперник",
	"err.rematchNotOver":   "Партия ещё не окончена.",
	"err.noRematch":        "Реванша, ждущего вашего ответа, нет.",
	"err.rematched":        "На реванш этой партии уже ответили.",
	"err.archiveFilter":    "Такого фильтра архив не знает.",
}

func init() {
	maps.Copy(pageEN, archivePageEN)
	maps.Copy(pageRU, archivePageRU)
}
