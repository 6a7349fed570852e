package devtools

// texts are the messages the tools send themselves, in one language: the answers to uploads
// and the reports of /show and /quests. The commands' own answers are texts of the command tree
// (migration 008). Every %s is filled with escaped HTML.
type texts struct {
	unsupported   string // file name
	notDeveloper  string
	tooBig        string // file name, its size, the limit
	tooBigUnsized string // file name, the limit
	noDownload    string // file name
	badQuest      string // file name, reason
	questStored   string // quest name, script id, version, script id
	questSame     string // file name, version, script id
	badImage      string // file name, reason
	imageStored   string // file name, version
	imageSame     string // file name, version
	badSave       string // file name, reason
	saveNoQuest   string // file name
	saveRestored  string // quest name
	saveChanged   string // (no argument)
	unplayable    string // reason
	noNumber      string
	endsEarly     string
	notQuest      string
	damaged       string // details
	noCompile     string // details
	noStart       string // details
	notImage      string
	wrongFormat   string // the format found, the extension
	imageTooLarge string // width, height
	imageDamaged  string // details
	saveFormat    string
	saveVersion   string // version
	saveJSON      string // details
	saveFits      string // details
	saveQuestName string
	saveCounts    string // count in the save, count in the quest
	saveLocation  string // location id
	saveValue     string // parameter, value, min, max
	saveFlag      string // parameter
	saveRandom    string

	// /show
	showID        string // location, phase, step, kind of game, quest name, script id
	sandbox       string
	counted       string
	showParams    string // quest name
	showJumps     string // location
	jumpOffered   string
	jumpInactive  string
	jumpHidden    string
	noJumpsHere   string // phase
	showLocation  string // location id, its kind
	locationText  string // text number
	locationMedia string // image name
	locChanges    string
	paramHidden   string
	paramInactive string
	paramMoney    string

	// /quests
	questsHead string // count shown, count in all
	listed     string
	private    string
	by         string // owner
	docCaption string // quest name, script id
}

var allTexts = map[string]texts{
	"en": {
		unsupported:   "I cannot take «%s»: I take quests (.qm, .qmm), images (.png, .jpg, .gif) and saved games (.qsave, or .qms of the old bot). Nothing was stored.",
		notDeveloper:  "Only quest developers can upload quests and images; an admin can make you one. Nothing was stored.",
		tooBig:        "«%s» is too big: %s, and I take at most %s of this kind. Nothing was stored.",
		tooBigUnsized: "«%s» is too big: I take at most %s of this kind. Nothing was stored.",
		noDownload:    "I could not download «%s». Please send it again.",
		badQuest:      "«%s» is not a quest I can play: %s. Nothing was stored.",
		questStored:   "Quest «%s» is uploaded: number %s, version %s. It is private: only you (and the admins) see it, and /load %s runs it as a sandbox. An admin can list it in the catalogue.",
		questSame:     "«%s» is the same file as version %s, quest number %s: nothing changed.",
		badImage:      "«%s» is not an image I can show: %s. Nothing was stored.",
		imageStored:   "Image «%s» is uploaded (version %s): your quests that name it show it.",
		imageSame:     "«%s» is the same file as version %s: nothing changed.",
		badSave:       "«%s» is not a saved game I can restore: %s.",
		saveNoQuest:   "The quest of «%s» is not one you can open in this bot, so the game cannot be restored.",
		saveRestored:  "The saved game of «%s» goes on as a sandbox: it moves no credits and counts in no statistics.",
		saveChanged:   "The quest has changed since the game was saved; it goes on as far as it fits.",
		unplayable:    "This quest cannot start: %s",
		endsEarly:     "the file ends too early (is it complete?)",
		notQuest:      "it is not a .qm or .qmm file",
		damaged:       "it is damaged (%s)",
		noCompile:     "it cannot be compiled (%s)",
		noStart:       "it does not start (%s)",
		notImage:      "it is not a PNG, JPEG or GIF image",
		wrongFormat:   "it is a %s image, but its name ends in %s",
		imageTooLarge: "it is %s×%s pixels; at most 10000 a side and 16 megapixels in all",
		imageDamaged:  "it is damaged (%s)",
		saveFormat:    "it is not a save of this bot",
		saveVersion:   "it is a save of format %s, made by a newer version of the bot",
		saveJSON:      "it is damaged (%s)",
		saveFits:      "it does not fit the quest any more (%s)",
		saveQuestName: "it names no quest",
		saveCounts:    "it has %s parameters and the quest %s",
		saveLocation:  "the quest has no location %s",
		saveValue:     "parameter p%s is %s, outside its bounds %s..%s",
		saveFlag:      "parameter p%s has an invalid visibility flag",
		saveRandom:    "its random generator state is invalid",
		noNumber:      "not a number",

		showID:        "Location <b>%s</b> (phase %s, step %s) of «%s» (quest number %s), %s.",
		sandbox:       "a sandbox game",
		counted:       "a counted game",
		showParams:    "Parameters of «%s»:",
		showJumps:     "Jumps from location %s:",
		jumpOffered:   "offered",
		jumpInactive:  "offered, inactive",
		jumpHidden:    "not offered",
		noJumpsHere:   "The game shows a %s screen now: its only choice is the player's «Next» or the ending.",
		showLocation:  "Location <b>%s</b>, %s.",
		locationText:  "Text %s:",
		locationMedia: "image %s",
		locChanges:    "Changes on entering:",
		paramHidden:   "hidden",
		paramInactive: "inactive",
		paramMoney:    "money",

		questsHead: "Uploaded quests (%s of %s), newest first:",
		listed:     "listed",
		private:    "private",
		by:         "by %s",
		docCaption: "«%s», quest number %s",
	},
	"ru": {
		unsupported:   "Не могу принять «%s»: я принимаю квесты (.qm, .qmm), картинки (.png, .jpg, .gif) и сохранённые игры (.qsave или .qms старого бота). Ничего не сохранено.",
		notDeveloper:  "Загружать квесты и картинки могут только разработчики квестов; сделать вас разработчиком может администратор. Ничего не сохранено.",
		tooBig:        "«%s» слишком велик: %s, а файлов такого вида я принимаю не больше %s. Ничего не сохранено.",
		tooBigUnsized: "«%s» слишком велик: файлов такого вида я принимаю не больше %s. Ничего не сохранено.",
		noDownload:    "Не удалось скачать «%s». Пожалуйста, отправьте его ещё раз.",
		badQuest:      "«%s» — не квест, в который я могу играть: %s. Ничего не сохранено.",
		questStored:   "Квест «%s» загружен: номер %s, версия %s. Он виден только вам (и администраторам); /load %s запустит его в песочнице. Добавить его в каталог может администратор.",
		questSame:     "«%s» — тот же файл, что версия %s, квест номер %s: ничего не изменилось.",
		badImage:      "«%s» — не картинка, которую я могу показать: %s. Ничего не сохранено.",
		imageStored:   "Картинка «%s» загружена (версия %s): ваши квесты, которые её называют, показывают её.",
		imageSame:     "«%s» — тот же файл, что версия %s: ничего не изменилось.",
		badSave:       "«%s» — не сохранённая игра, которую я могу восстановить: %s.",
		saveNoQuest:   "Квест из «%s» вам в этом боте недоступен, поэтому игру восстановить нельзя.",
		saveRestored:  "Сохранённая игра «%s» продолжается в песочнице: кредиты не меняются, статистика не ведётся.",
		saveChanged:   "Квест изменился с тех пор, как игру сохранили; она продолжается, насколько это возможно.",
		unplayable:    "Этот квест не запускается: %s",
		endsEarly:     "файл обрывается (он целый?)",
		notQuest:      "это не файл .qm или .qmm",
		damaged:       "он повреждён (%s)",
		noCompile:     "его не удаётся собрать (%s)",
		noStart:       "он не запускается (%s)",
		notImage:      "это не картинка PNG, JPEG или GIF",
		wrongFormat:   "это картинка %s, а имя файла кончается на %s",
		imageTooLarge: "в ней %s×%s точек; можно не больше 10000 по стороне и 16 мегапикселей всего",
		imageDamaged:  "она повреждена (%s)",
		saveFormat:    "это не сохранение этого бота",
		saveVersion:   "это сохранение формата %s, сделанное более новой версией бота",
		saveJSON:      "оно повреждено (%s)",
		saveFits:      "оно больше не подходит к квесту (%s)",
		saveQuestName: "в нём не указан квест",
		saveCounts:    "в нём %s параметров, а в квесте %s",
		saveLocation:  "в квесте нет локации %s",
		saveValue:     "параметр p%s равен %s, вне своих границ %s..%s",
		saveFlag:      "у параметра p%s неверный признак видимости",
		saveRandom:    "состояние генератора случайных чисел в нём неверно",
		noNumber:      "не число",

		showID:        "Локация <b>%s</b> (фаза %s, шаг %s) квеста «%s» (номер %s), %s.",
		sandbox:       "игра в песочнице",
		counted:       "игра в зачёт",
		showParams:    "Параметры «%s»:",
		showJumps:     "Переходы из локации %s:",
		jumpOffered:   "предложен",
		jumpInactive:  "предложен, недоступен",
		jumpHidden:    "не предложен",
		noJumpsHere:   "Сейчас в игре экран «%s»: на нём только «Далее» игрока или конец игры.",
		showLocation:  "Локация <b>%s</b>, %s.",
		locationText:  "Текст %s:",
		locationMedia: "картинка %s",
		locChanges:    "Изменения при входе:",
		paramHidden:   "скрыт",
		paramInactive: "не активен",
		paramMoney:    "деньги",

		questsHead: "Загруженные квесты (%s из %s), сначала новые:",
		listed:     "в каталоге",
		private:    "скрыт",
		by:         "автор %s",
		docCaption: "«%s», квест номер %s",
	},
}

// textsFor returns the texts of a language ("ru", else English).
func textsFor(lang string) texts {
	if t, ok := allTexts[lang]; ok {
		return t
	}
	return allTexts["en"]
}
