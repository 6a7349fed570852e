package texts

import (
	"errors"
	"fmt"
	"strings"

	"github.com/questbot/questbot/formula"
	"github.com/questbot/questbot/quest"
)

// Dev is the messages the tools send themselves, in one language: the answers to uploads
// and the reports of /show and /quests. The commands' own answers are texts of the command tree
// (migration 008). Every %s is filled with escaped HTML.
type Dev struct {
	Unsupported   string // file name
	NotDeveloper  string
	TooBig        string // file name, its size, the limit
	TooBigUnsized string // file name, the limit
	NoDownload    string // file name
	Received      string // file name
	BadQuest      string // file name, reason
	QuestStored   string // quest name, script id, version, script id
	QuestSame     string // file name, version, script id
	BadImage      string // file name, reason
	ImageStored   string // file name, version
	ImageSame     string // file name, version
	BadSave       string // file name, reason
	SaveNoQuest   string // file name
	SaveRestored  string // quest name
	SaveChanged   string // (no argument)
	Unplayable    string // reason
	NoNumber      string
	EndsEarly     string
	NotQuest      string
	Damaged       string // details
	NoCompile     string // details
	NoStart       string // details
	NotImage      string
	WrongFormat   string // the format found, the extension
	ImageTooLarge string // width, height
	ImageTooHeavy string // memory it takes decoded, the limit
	ImageDamaged  string // details
	SaveFormat    string
	SaveVersion   string // version
	SaveJSON      string // details
	SaveFits      string // details
	SaveQuestName string
	SaveCounts    string // count in the save, count in the quest
	SaveLocation  string // location id
	SaveValue     string // parameter, value, min, max
	SaveFlag      string // parameter
	SaveRandom    string

	// Quest sources (.qms) and /compile
	SourceStored   string // file name, version, source name
	SourceSame     string // file name, version, source name
	SourceErrors   string // source name, number of errors (the list follows)
	SourceBroken   string // source name, reason
	SourceWarnings string // number of warnings (the list follows)
	Compiled       string // source name, locations, jumps, quest number, version
	CompiledSame   string // source name, version, quest number
	NoSources      string
	YourSources    string // (the names follow)
	SourceGone     string // source name
	// SourceLimit: the source passed a limit of the compiler (source name, one of the Limit…
	// texts; the place follows); nothing is stored.
	SourceLimit string
	LimitSites  string // the limit
	LimitJumps  string // the limit
	LimitParams string // the limit
	LimitSteps  string // the limit
	LimitMemory string // the limit, in MB

	// Quarantined: an upload or a compilation tried Attempts times without an end is set aside
	// (file or source name, attempts).
	Quarantined string

	// /show
	ShowID        string // location, phase, step, kind of game, quest name, script id
	Sandbox       string
	Counted       string
	ShowParams    string // quest name
	ShowJumps     string // location
	JumpOffered   string
	JumpInactive  string
	JumpHidden    string
	NoJumpsHere   string // phase
	ShowLocation  string // location id, its kind
	LocationText  string // text number
	LocationMedia string // image name
	LocChanges    string
	ParamHidden   string
	ParamInactive string
	ParamMoney    string

	// Formulas (/calc) in words of the user's language: a syntax error's place (the position),
	// a parameter with no value (its number), an empty range, any other failure.
	FormulaSyntax, FormulaNoParam, FormulaEmptyRange, FormulaOther string

	// /quests
	QuestsHead string // count shown, count in all
	Listed     string
	Private    string
	By         string // owner
	DocCaption string // quest name, script id
	LogCaption string // the number of moves, quest name, file name

	// Files the bot sends: the caption of a save (after DocCaption), and what the user is told
	// when Telegram did not take a file.
	SaveCaption string
	FileNotSent string // file name

	// /goto and /replay: no sandbox game to work on (none, or a counted one).
	NoSandbox, NotSandbox string
	// /goto: its usage; a location the quest lacks (the quest's name, the location, the list of
	// its locations); the location entered (its id, the quest's name); one that cannot be
	// entered (its id, why).
	GotoUsage, GotoNoLocation, GotoDone, GotoBroken string
	// /replay: nothing recorded (a game begun before moves were kept); no move yet; no newer
	// version (the quest's name, its version); all moves replayed (their number, the quest's
	// name, the version, its number); stopped (the moves replayed, of how many, the name,
	// version and number, the move it stopped at, the location, the phase, the reason).
	ReplayIncomplete, ReplayNothing, ReplayNewest, ReplayDone, ReplayStopped string
	// Why a replay stopped: a jump (its id, its text in the run's version) that no longer
	// exists, that leaves another location now (its id), that is not offered here now, or is
	// offered but cannot be taken; a screen whose choices are others (a description, a critical
	// value's message, where the run had a location); a move that fails (why).
	ReplayGone, ReplayMoved, ReplayHidden, ReplayInactive, ReplayScreen, ReplayFailed string
	// ReplayHint follows the answer to the upload of a new version of the quest of the running
	// sandbox game (the number of the version played).
	ReplayHint string
}

var devEN = Dev{
	Unsupported:   "I cannot take «%s»: I take quests (.qm, .qmm), images (.png, .jpg, .gif) and saved games (.qsave, or .qms of the old bot). Nothing was stored.",
	NotDeveloper:  "Only quest developers can upload quests and images; an admin can make you one. Nothing was stored.",
	TooBig:        "«%s» is too big: %s, and I take at most %s of this kind. Nothing was stored.",
	TooBigUnsized: "«%s» is too big: I take at most %s of this kind. Nothing was stored.",
	NoDownload:    "I could not download «%s». Please send it again.",
	Received:      "«%s» has come; I am checking it and will tell you how it went.",
	BadQuest:      "«%s» is not a quest I can play: %s. Nothing was stored.",
	QuestStored:   "Quest «%s» is uploaded: number %s, version %s. It is private: only you (and the admins) see it, and /load %s runs it as a sandbox. An admin can list it in the catalogue.",
	QuestSame:     "«%s» is the same file as version %s, quest number %s: nothing changed.",
	BadImage:      "«%s» is not an image I can show: %s. Nothing was stored.",
	ImageStored:   "Image «%s» is uploaded (version %s): your quests that name it show it.",
	ImageSame:     "«%s» is the same file as version %s: nothing changed.",
	BadSave:       "«%s» is not a saved game I can restore: %s.",
	SaveNoQuest:   "The quest of «%s» is not one you can open in this bot, so the game cannot be restored.",
	SaveRestored:  "The saved game of «%s» goes on as a sandbox: it moves no credits and counts in no statistics.",
	SaveChanged:   "The quest has changed since the game was saved; it goes on as far as it fits.",
	Unplayable:    "This quest cannot start: %s",
	EndsEarly:     "the file ends too early (is it complete?)",
	NotQuest:      "it is not a .qm or .qmm file",
	Damaged:       "it is damaged (%s)",
	NoCompile:     "it cannot be compiled (%s)",
	NoStart:       "it does not start (%s)",
	NotImage:      "it is not a PNG, JPEG or GIF image",
	WrongFormat:   "it is a %s image, but its name ends in %s",
	ImageTooLarge: "it is %s×%s pixels; at most 10000 a side and 16 megapixels in all",
	ImageTooHeavy: "decoded it would take %s of memory, more than the %s an image may take (fewer pixels, or 8-bit colour, fit)",
	ImageDamaged:  "it is damaged (%s)",
	SaveFormat:    "it is not a save of this bot",
	SaveVersion:   "it is a save of format %s, made by a newer version of the bot",
	SaveJSON:      "it is damaged (%s)",
	SaveFits:      "it does not fit the quest any more (%s)",
	SaveQuestName: "it names no quest",
	SaveCounts:    "it has %s parameters and the quest %s",
	SaveLocation:  "the quest has no location %s",
	SaveValue:     "parameter p%s is %s, outside its bounds %s..%s",
	SaveFlag:      "parameter p%s has an invalid visibility flag",
	SaveRandom:    "its random generator state is invalid",

	SourceStored:   "Source «%s» is uploaded (version %s). /compile %s builds it and runs the quest as a sandbox.",
	SourceSame:     "«%s» is the same file as version %s: nothing changed. /compile %s builds it.",
	SourceErrors:   "«%s» does not compile: %s error(s).",
	SourceBroken:   "«%s» compiles, but not into a quest I can play: %s. Nothing was stored.",
	SourceWarnings: "Warnings (what the compiler ignored): %s.",
	Compiled:       "«%s» is compiled: %s locations, %s jumps; quest number %s, version %s. It runs as a sandbox:",
	CompiledSame:   "«%s» compiles into the same quest as version %s (quest number %s). It runs as a sandbox:",
	NoSources:      "You have not uploaded a source yet.",
	YourSources:    "Your sources:",
	SourceGone:     "You have no source «%s» any more: nothing was compiled.",
	SourceLimit:    "«%s» is too large to compile: %s. Nothing was stored.",
	LimitSites:     "it makes more than %s sites, the limit",
	LimitJumps:     "it makes more than %s cases, the limit",
	LimitParams:    "it declares more than %s variables, the limit",
	LimitSteps:     "its loops and macros take more than %s steps of compilation, the limit",
	LimitMemory:    "its text grows beyond %s MB, the limit",
	Quarantined:    "I gave up on «%s»: it was tried %s times and could not be handled. It is set aside; please check the file, or tell the admins.",
	NoNumber:       "not a number",

	ShowID:        "Location <b>%s</b> (phase %s, step %s) of «%s» (quest number %s), %s.",
	Sandbox:       "a sandbox game",
	Counted:       "a counted game",
	ShowParams:    "Parameters of «%s»:",
	ShowJumps:     "Jumps from location %s:",
	JumpOffered:   "offered",
	JumpInactive:  "offered, inactive",
	JumpHidden:    "not offered",
	NoJumpsHere:   "The game shows a %s screen now: its only choice is the player's «Next» or the ending.",
	ShowLocation:  "Location <b>%s</b>, %s.",
	LocationText:  "Text %s:",
	LocationMedia: "image %s",
	LocChanges:    "Changes on entering:",
	ParamHidden:   "hidden",
	ParamInactive: "inactive",
	ParamMoney:    "money",

	FormulaSyntax:     "%[1]s",
	FormulaNoParam:    "Parameter p%d is not defined",
	FormulaEmptyRange: "no value to pick in an empty range list",
	FormulaOther:      "%s",
	QuestsHead:        "Uploaded quests (%s of %s), newest first:",
	Listed:            "listed",
	Private:           "private",
	By:                "by %s",
	DocCaption:        "«%s», quest number %s",
	LogCaption:        "%s moves of «%s» (%s). <code>questbot replay --quests DIR FILE.log</code> plays them again.",

	SaveCaption: "Send this file back into this chat to go on from here. A restored game is a sandbox: it moves no credits and counts in no statistics.",
	FileNotSent: "Telegram did not take the file «%s», so it was not sent. Please try again later.",

	NoSandbox:        "No quest is running. /load <i>quest</i> starts one as a sandbox.",
	NotSandbox:       "Only a sandbox game is changed by hand, so that nothing done by hand counts. /load the quest to run it as a sandbox.",
	GotoUsage:        "Usage: /goto <i>location</i>, its number as the quest shows it: <code>/goto 12</code> or <code>/goto L12</code>.",
	GotoNoLocation:   "«%s» has no location %s. Its locations: %s.",
	GotoDone:         "➡️ Location %s of «%s»:",
	GotoBroken:       "Location %s cannot be entered: %s",
	ReplayIncomplete: "This game began before its moves were kept: there is no path to replay.",
	ReplayNothing:    "Your game has no move to replay yet.",
	ReplayNewest:     "«%s» v%s is the newest version. Upload a new one, then /replay plays your path on it.",
	ReplayDone:       "🔁 All %s moves of your last run are replayed on «%s» v%s (number %s).",
	ReplayStopped:    "🔁 %s of %s moves of your last run are replayed on «%s» v%s (number %s). Stopped at move %s, at location %s (%s): %s",
	ReplayGone:       "jump %s «%s» no longer exists.",
	ReplayMoved:      "jump %s «%s» now leaves location %s, not this one.",
	ReplayHidden:     "jump %s «%s» is not offered here now (its conditions, priority or limit).",
	ReplayInactive:   "jump %s «%s» is shown but cannot be taken now.",
	ReplayScreen:     "this screen is not the one of your run here: its choices differ.",
	ReplayFailed:     "the move fails: %s",
	ReplayHint:       "You were playing an older version of this quest (number %s): /replay plays your last path on this version.",
}

var devRU = Dev{
	Unsupported:   "Не могу принять «%s»: я принимаю квесты (.qm, .qmm), картинки (.png, .jpg, .gif) и сохранённые игры (.qsave или .qms старого бота). Ничего не сохранено.",
	NotDeveloper:  "Загружать квесты и картинки могут только разработчики квестов; сделать вас разработчиком может администратор. Ничего не сохранено.",
	TooBig:        "«%s» слишком велик: %s, а файлов такого вида я принимаю не больше %s. Ничего не сохранено.",
	TooBigUnsized: "«%s» слишком велик: файлов такого вида я принимаю не больше %s. Ничего не сохранено.",
	NoDownload:    "Не удалось скачать «%s». Пожалуйста, отправьте его ещё раз.",
	Received:      "«%s» получен; проверяю его и сообщу, что вышло.",
	BadQuest:      "«%s» — не квест, в который я могу играть: %s. Ничего не сохранено.",
	QuestStored:   "Квест «%s» загружен: номер %s, версия %s. Он виден только вам (и администраторам); /load %s запустит его в песочнице. Добавить его в каталог может администратор.",
	QuestSame:     "«%s» — тот же файл, что версия %s, квест номер %s: ничего не изменилось.",
	BadImage:      "«%s» — не картинка, которую я могу показать: %s. Ничего не сохранено.",
	ImageStored:   "Картинка «%s» загружена (версия %s): ваши квесты, которые её называют, показывают её.",
	ImageSame:     "«%s» — тот же файл, что версия %s: ничего не изменилось.",
	BadSave:       "«%s» — не сохранённая игра, которую я могу восстановить: %s.",
	SaveNoQuest:   "Квест из «%s» вам в этом боте недоступен, поэтому игру восстановить нельзя.",
	SaveRestored:  "Сохранённая игра «%s» продолжается в песочнице: кредиты не меняются, статистика не ведётся.",
	SaveChanged:   "Квест изменился с тех пор, как игру сохранили; она продолжается, насколько это возможно.",
	Unplayable:    "Этот квест не запускается: %s",
	EndsEarly:     "файл обрывается (он целый?)",
	NotQuest:      "это не файл .qm или .qmm",
	Damaged:       "он повреждён (%s)",
	NoCompile:     "его не удаётся собрать (%s)",
	NoStart:       "он не запускается (%s)",
	NotImage:      "это не картинка PNG, JPEG или GIF",
	WrongFormat:   "это картинка %s, а имя файла кончается на %s",
	ImageTooLarge: "в ней %s×%s точек; можно не больше 10000 по стороне и 16 мегапикселей всего",
	ImageTooHeavy: "в распакованном виде она заняла бы %s памяти, а картинке можно не больше %s (подойдёт меньше точек или 8-битный цвет)",
	ImageDamaged:  "она повреждена (%s)",
	SaveFormat:    "это не сохранение этого бота",
	SaveVersion:   "это сохранение формата %s, сделанное более новой версией бота",
	SaveJSON:      "оно повреждено (%s)",
	SaveFits:      "оно больше не подходит к квесту (%s)",
	SaveQuestName: "в нём не указан квест",
	SaveCounts:    "в нём %s параметров, а в квесте %s",
	SaveLocation:  "в квесте нет локации %s",
	SaveValue:     "параметр p%s равен %s, вне своих границ %s..%s",
	SaveFlag:      "у параметра p%s неверный признак видимости",
	SaveRandom:    "состояние генератора случайных чисел в нём неверно",

	SourceStored:   "Исходник «%s» загружен (версия %s). /compile %s соберёт его и запустит квест в песочнице.",
	SourceSame:     "«%s» — тот же файл, что версия %s: ничего не изменилось. /compile %s соберёт его.",
	SourceErrors:   "«%s» не собирается: ошибок — %s.",
	SourceBroken:   "«%s» собирается, но не в квест, который я могу играть: %s. Ничего не сохранено.",
	SourceWarnings: "Предупреждения (что компилятор пропустил): %s.",
	Compiled:       "«%s» собран: локаций — %s, переходов — %s; квест номер %s, версия %s. Он запущен в песочнице:",
	CompiledSame:   "«%s» собирается в тот же квест, что версия %s (квест номер %s). Он запущен в песочнице:",
	NoSources:      "Вы ещё не загрузили ни одного исходника.",
	YourSources:    "Ваши исходники:",
	SourceGone:     "Исходника «%s» у вас больше нет: ничего не собрано.",
	SourceLimit:    "«%s» слишком велик, чтобы его собрать: %s. Ничего не сохранено.",
	LimitSites:     "в нём больше %s локаций (#site), а это предел",
	LimitJumps:     "в нём больше %s переходов (#case), а это предел",
	LimitParams:    "в нём больше %s переменных (#var), а это предел",
	LimitSteps:     "его циклы и макросы требуют больше %s шагов сборки, а это предел",
	LimitMemory:    "его текст разрастается больше чем на %s МБ, а это предел",
	Quarantined:    "Я отступился от «%s»: за %s попытки его так и не удалось обработать. Он отложен; проверьте файл или напишите администраторам.",
	NoNumber:       "не число",

	ShowID:        "Локация <b>%s</b> (фаза %s, шаг %s) квеста «%s» (номер %s), %s.",
	Sandbox:       "игра в песочнице",
	Counted:       "игра в зачёт",
	ShowParams:    "Параметры «%s»:",
	ShowJumps:     "Переходы из локации %s:",
	JumpOffered:   "предложен",
	JumpInactive:  "предложен, недоступен",
	JumpHidden:    "не предложен",
	NoJumpsHere:   "Сейчас в игре экран «%s»: на нём только «Далее» игрока или конец игры.",
	ShowLocation:  "Локация <b>%s</b>, %s.",
	LocationText:  "Текст %s:",
	LocationMedia: "картинка %s",
	LocChanges:    "Изменения при входе:",
	ParamHidden:   "скрыт",
	ParamInactive: "не активен",
	ParamMoney:    "деньги",

	FormulaSyntax:     "ошибка в позиции %[2]d",
	FormulaNoParam:    "параметра p%d нет",
	FormulaEmptyRange: "в пустом диапазоне нечего выбрать",
	FormulaOther:      "формулу нельзя вычислить (%s)",
	QuestsHead:        "Загруженные квесты (%s из %s), сначала новые:",
	Listed:            "в каталоге",
	Private:           "скрыт",
	By:                "автор %s",
	DocCaption:        "«%s», квест номер %s",
	LogCaption:        "Ходов: %s, «%s» (%s). <code>questbot replay --quests ПАПКА ФАЙЛ.log</code> повторит их.",

	SaveCaption: "Отправьте этот файл обратно в чат, чтобы продолжить с этого места. Восстановленная игра идёт в песочнице: кредиты не меняются, статистика не ведётся.",
	FileNotSent: "Telegram не принял файл «%s», поэтому он не отправлен. Пожалуйста, попробуйте позже.",

	NoSandbox:        "Квест не запущен. /load <i>квест</i> запустит его в песочнице.",
	NotSandbox:       "Вручную меняется только игра в песочнице, чтобы ничего сделанное вручную не засчитывалось. Запустите квест в песочнице командой /load.",
	GotoUsage:        "Использование: /goto <i>локация</i> — её номер, как его показывает квест: <code>/goto 12</code> или <code>/goto L12</code>.",
	GotoNoLocation:   "В «%s» нет локации %s. Её локации: %s.",
	GotoDone:         "➡️ Локация %s квеста «%s»:",
	GotoBroken:       "В локацию %s не войти: %s",
	ReplayIncomplete: "Эта игра началась, когда ходы ещё не записывались: повторять нечего.",
	ReplayNothing:    "В вашей игре ещё нет ходов, которые можно повторить.",
	ReplayNewest:     "«%s» v%s — самая новая версия. Загрузите новую, и /replay повторит на ней ваш путь.",
	ReplayDone:       "🔁 Все ходы (%s) вашей последней игры повторены на «%s» v%s (номер %s).",
	ReplayStopped:    "🔁 Повторено ходов: %s из %s вашей последней игры на «%s» v%s (номер %s). Остановка на ходе %s, в локации %s (%s): %s",
	ReplayGone:       "перехода %s «%s» больше нет.",
	ReplayMoved:      "переход %s «%s» теперь ведёт из локации %s, а не из этой.",
	ReplayHidden:     "переход %s «%s» здесь сейчас не предлагается (его условия, приоритет или лимит).",
	ReplayInactive:   "переход %s «%s» показан, но сейчас недоступен.",
	ReplayScreen:     "экран здесь не тот, что был в вашей игре: выбор на нём другой.",
	ReplayFailed:     "ход не удался: %s",
	ReplayHint:       "Вы играли в старую версию этого квеста (номер %s): /replay повторит ваш последний путь на этой версии.",
}

// phaseNames are the words of a game's phases, by language (the English ones are the player's
// own names).
var phaseNames = map[string]map[quest.Phase]string{
	"ru": {quest.PhaseStarting: "начало", quest.PhaseLocation: "локация", quest.PhaseJump: "переход",
		quest.PhaseJumpAndNextCrit: "переход перед критическим значением", quest.PhaseCritOnLocation: "критическое значение в локации",
		quest.PhaseCritOnLocationLastMessage: "последнее сообщение критического значения",
		quest.PhaseCritOnJump:                "критическое значение на переходе", quest.PhaseReturnedEnding: "поздравление"},
}

// Phase names a game's phase for a developer.
func (c *Catalog) Phase(p quest.Phase) string {
	if n, ok := phaseNames[c.Lang][p]; ok {
		return n
	}
	return p.String()
}

// FormulaSyntaxError words a formula's syntax error for a developer: the reference's message in
// English (as the quest editor shows it), its place in other languages.
func (c *Catalog) FormulaSyntaxError(e *formula.SyntaxError) string {
	return fmt.Sprintf(c.Dev.FormulaSyntax, e.Msg, e.Pos+1)
}

// FormulaFailure words why a formula could not be evaluated, for a developer.
func (c *Catalog) FormulaFailure(err error) string {
	var up *formula.UndefinedParamError
	switch {
	case errors.As(err, &up):
		return fmt.Sprintf(c.Dev.FormulaNoParam, up.Index+1)
	case errors.Is(err, formula.ErrEmptyRange):
		return c.Dev.FormulaEmptyRange
	}
	return fmt.Sprintf(c.Dev.FormulaOther, strings.TrimPrefix(err.Error(), "formula: "))
}
