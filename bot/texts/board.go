package texts

import (
	"fmt"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/questbot/questbot/sessions/board"
)

// Board is what the board games say (bot/boards) beside the texts of their commands, which are
// rows of the command tree (migration 015). Texts are HTML unless their comment says plain; every
// %s of an HTML text is filled with escaped HTML.
type Board struct {
	// Games names the games by engine variant (plain).
	Games map[string]string
	// Sides names the sides by the engine's English name of the side (plain).
	Sides map[string]string
	// Levels names the bot's levels (plain).
	Levels map[string]string
	// Controls names the time controls of the catalogue by name (plain).
	Controls map[string]string
	// Promotions are the buttons of the pieces a chess pawn may become, by the engine's letter
	// (Q, R, B, N): the piece drawn and named (plain).
	Promotions map[string]string
	// Reasons words the rules that end a game (by engine.Rule's name: "checkmate",
	// "few_dice", ...; "no_pieces": "no_moves" for a side left without pieces) and the other
	// ways a game ends ("resignation", "timeout", "agreement",
	// "timeout_draw": time ran out but the opponent could not have won), as the end of a
	// sentence (plain).
	Reasons map[string]string

	// Bot is the bot as a player: its level.
	Bot string
	// Title heads a board's caption: the game and the move number.
	Title string
	// Seat is a line of a player: the side, the name.
	Seat string
	// Clock follows a seat's line: the time left.
	Clock string
	// LastMove: the last move and who made it.
	LastMove string
	// YourTurn, TheirTurn (whose), BotThinking say who is to move.
	YourTurn, TheirTurn, BotThinking string
	// TimeLeft: the time left for the move in progress, under a clock of so long a move
	// (correspondence). ClockYours and ClockTheirs: the time left on the clock of the player to
	// move, under a clock of the whole game (10 min + 5 s per move): the reader's, or their
	// opponent's.
	TimeLeft, ClockYours, ClockTheirs string
	// Selected: the squares tapped so far; Paths: the whole moves they may still become;
	// ChooseMove: several moves end on the tapped squares.
	Selected, Paths, ChooseMove string
	// Offers: the opponent (who) offers a draw; Offered: the player did.
	Offers, Offered string
	// Declined: the player's offer was declined; YouDeclined: the player declined;
	// BotDeclines: the bot declined the player's offer.
	Declined, YouDeclined, BotDeclines string
	// UndoneYou: the player took back a move; UndoneThem: the opponent (who) did.
	UndoneYou, UndoneThem string
	// Joined: the opponent (who) joined and the game begins.
	Joined string
	// ResignAsk asks to confirm a resignation.
	ResignAsk string
	// Win (who, reason), YouWin (reason), YouLose (reason), Draw (reason): the result.
	Win, YouWin, YouLose, Draw string
	// Rating: a player's rating after a rated game, and its change.
	Rating string
	// Reminder: the time left before the deadline of a move (correspondence); ReminderClock: the
	// time left on the player's clock (a clock of the whole game).
	Reminder, ReminderClock string
	// NoPicture heads a board shown as text because its picture could not be sent.
	NoPicture string

	// The notes of a delayed notification: NotifyMoved (who, the move, the game), NotifyOffer
	// (who, the game), NotifyStart (who, the game), NotifyEnd (the game); WebLink (the address
	// of the game's web page).
	NotifyMoved, NotifyOffer, NotifyStart, NotifyEnd, WebLink string
	// TokenUndelivered tells the admin who asked for an API token (/token) that its message
	// could not be delivered, so it was revoked: the token's number, for whom, the user's id.
	TokenUndelivered string
	// NotifyMenu is /notify's message: the delay, the quiet hours, the user's time now and UTC
	// offset (all plain). NotifyByGame names the default delay and QuietNone the absence of
	// quiet hours (plain, also buttons). NotifyDefault is the button of the default delay,
	// NotifyOffset the buttons that move the UTC offset (the signed hours), NotifySaved the
	// answer to a press (plain).
	NotifyMenu, NotifyByGame, QuietNone, NotifyDefault, NotifyOffset, NotifySaved string

	// Delays name the notification delays ("now", "15m", "1h", "never") (plain, also the
	// buttons).
	Delays map[string]string

	// Buttons (plain).
	Back, Undo, OfferDraw, Resign, Accept, Decline, ResignYes, ResignNo, Cancel string
	// Open opens the game's page inside Telegram, as a Mini App (plain, a button).
	Open string
	// Pass labels the button of the pass point (engine square "pass": Othello, Atari Go).
	Pass string

	// Waiting: the game and the clock a player waits an opponent for. Invite: the game, the
	// clock, the link and how long it works.
	Waiting, Invite string
	// Cancelled: the player no longer waits. Expired: nobody joined the game (which) in time.
	Cancelled, Expired string

	// Mine heads the list of the player's games; MineTurn, MineWait, MineWaiting are the states
	// of a game in it, and MineEntry a button (plain): the game, the opponent, the state.
	Mine, MineTurn, MineWait, MineWaiting, MineEntry string
	// RatingHead names the six columns of /rating's table, separated by spaces (plain): the
	// game, played, won, lost, drawn, the rating. Unrated stands for the rating of a player
	// who has not played a rated game of it.
	RatingHead, Unrated string

	// Illegal (the text): no legal move reads so; Unreadable (the text): it is no move of the
	// game's notation; Ambiguous (the text, the moves): several moves read so.
	Illegal, Unreadable, Ambiguous string
	// From (the square, the moves): the legal moves of the piece the player named; Stuck (the
	// square): that piece cannot move now; NoPiece (the square): there is none there;
	// NotYourPiece (the square): it is the opponent's; MustCapture: a capture is compulsory;
	// Rested (the square): that king has made three moves in a row (Frisian draughts), another
	// piece must move; Moves (the moves): all the legal moves, when few.
	From, Stuck, NoPiece, NotYourPiece, MustCapture, Rested, Moves string
	// NotYourTurnIn: a move typed while the opponent is to move in the game (which).
	NotYourTurnIn string
	// TypedPlayed answers a typed move played: the move (numbered), the game, the opponent;
	// ToBoard is its button, which brings the board to the bottom of the chat (plain).
	TypedPlayed, ToBoard string

	// Days (days, hours) and Hours (hours, minutes) write a long time left, Seconds a short one
	// as a clock (minutes, seconds) (plain).
	Days, Hours, Seconds string

	// The answers to what cannot be done (plain; see Catalog.Error).
	MovedOn, NotYourTurn, Over, NotYours, NotStarted, Full, OwnGame, InviteUsed, InviteExpired,
	NoGame, CannotUndo, NoOffer, AlreadyOffered, BadMove, Unplayable string
	// TooManyBotGames answers a new game against the bot while the player has as many going as
	// the bot allows.
	TooManyBotGames string
}

// Duration writes a time left for a board's caption: days and hours from a day, hours and minutes
// from an hour, minutes and seconds below (plain).
func (c *Catalog) Duration(d time.Duration) string {
	b := &c.Board
	secs := int64((max(d, 0) + time.Second - 1) / time.Second)
	switch {
	case secs >= 24*3600:
		return fmt.Sprintf(b.Days, secs/(24*3600), secs%(24*3600)/3600)
	case secs >= 3600:
		return fmt.Sprintf(b.Hours, secs/3600, secs%3600/60)
	}
	return fmt.Sprintf(b.Seconds, secs/60, secs%60)
}

// Game names a game by its engine variant; an unknown variant is named as it is.
func (c *Catalog) Game(variant string) string {
	if n, ok := c.Board.Games[variant]; ok {
		return n
	}
	return variant
}

// Level names the bot's level l in a game, with the level's measured rating in that game when
// there is one (board.BotLevel.Rating): "strong (≈2000)", or "strong" alone.
func (c *Catalog) Level(variant string, l board.BotLevel) string {
	name := c.Board.Levels[l.String()]
	if r, ok := l.Rating(variant); ok {
		return fmt.Sprintf("%s (≈%d)", name, r)
	}
	return name
}

// LevelChoice labels the button that chooses the bot's level l in a game (plain): the level's
// word with a capital, and its measured rating in that game when there is one: "Strong ≈2000",
// or "Strong" alone.
func (c *Catalog) LevelChoice(variant string, l board.BotLevel) string {
	name := c.Board.Levels[l.String()]
	if first, size := utf8.DecodeRuneInString(name); first != utf8.RuneError {
		name = string(unicode.ToUpper(first)) + name[size:]
	}
	if r, ok := l.Rating(variant); ok {
		return fmt.Sprintf("%s ≈%d", name, r)
	}
	return name
}

// BotName names the bot at level l as a player of a game (plain): "Bot (strong, ≈2000)", or
// "Bot (strong)" where the level has no measured rating in that game.
func (c *Catalog) BotName(variant string, l board.BotLevel) string {
	name := c.Board.Levels[l.String()]
	if r, ok := l.Rating(variant); ok {
		name = fmt.Sprintf("%s, ≈%d", name, r)
	}
	return fmt.Sprintf(c.Board.Bot, name)
}

// Control names a time control of the catalogue; an operator's control without a text is named
// as it is.
func (c *Catalog) Control(name string) string {
	if n, ok := c.Board.Controls[name]; ok {
		return n
	}
	return name
}

// Reason words the end of a game (see Board.Reasons); an unknown reason is given as it is.
func (c *Catalog) Reason(key string) string {
	if n, ok := c.Board.Reasons[key]; ok {
		return n
	}
	return key
}

var boardEN = Board{
	Games: map[string]string{
		"russian": "Russian draughts", "turkish": "Turkish draughts", "international": "International draughts",
		"brazilian": "Brazilian draughts", "english": "English draughts", "chase": "Chase",
		"foxgeese13": "Fox and Geese (13 geese)", "foxgeese15": "Fox and Geese (15 geese)",
		"foxgeese17": "Fox and Geese (17 geese)", "chess": "Chess",
		"othello": "Othello", "breakthrough": "Breakthrough", "canadian": "Canadian draughts",
		"pool": "Pool checkers", "czech": "Czech draughts", "spanish": "Spanish draughts",
		"italian": "Italian draughts", "thai": "Thai draughts", "armenian": "Armenian draughts (tama)",
		"atarigo": "Atari Go", "gardner": "Gardner's minichess (5×5)",
		"chess960": "Chess960", "frisian": "Frisian draughts",
	},
	Sides:      map[string]string{"White": "White", "Black": "Black", "Red": "Red", "Geese": "Geese", "Fox": "Fox"},
	Levels:     map[string]string{"easy": "easy", "normal": "normal", "strong": "strong"},
	Promotions: map[string]string{"Q": "♕ Queen", "R": "♖ Rook", "B": "♗ Bishop", "N": "♘ Knight"},
	Controls:   map[string]string{"none": "no clock", "corr1d": "1 day a move", "corr3d": "3 days a move", "blitz10+5": "10 min + 5 s per move"},
	Reasons: map[string]string{
		"no_moves": "no moves left", "no_pieces": "no pieces left", "checkmate": "checkmate", "stalemate": "stalemate",
		"repetition": "threefold repetition", "fifty_moves": "the fifty-move rule",
		"dead_position": "neither side can checkmate", "king_moves": "only kings moved, without a capture, for too long",
		"sixteen_moves": "16 moves each in a small ending", "five_moves": "5 moves each in a small ending",
		"three_kings": "three kings did not take the lone king in 15 moves", "balance": "the balance of forces did not change",
		"lone_kings": "one king against one king", "few_dice": "fewer than five dice left",
		"fox_trapped": "the fox is trapped", "geese_blocked": "the geese cannot move",
		"few_geese": "too few geese left to trap the fox", "ply_limit": "the move limit",
		"goal": "a piece reached the far rank", "more_discs": "no one can place a disc: the discs are counted",
		"first_capture": "the first capture", "seven_moves": "two kings did not take the lone king in 7 moves",
		"resignation": "resignation", "timeout": "time ran out", "agreement": "agreement",
		"timeout_draw": "time ran out, but the opponent could not have won",
	},
	Bot:            "Bot (%s)",
	Title:          "<b>%s</b> · move %d",
	Seat:           "%s: %s",
	Clock:          " · %s",
	LastMove:       "Last move: %s (%s)",
	YourTurn:       "<b>Your turn.</b>",
	TheirTurn:      "%s to move.",
	BotThinking:    "The bot is thinking…",
	TimeLeft:       "⏳ %s left for the move.",
	ClockYours:     "⏳ %s left on your clock.",
	ClockTheirs:    "⏳ %s left on the opponent's clock.",
	Selected:       "Chosen: <b>%s</b>. Tap where to go.",
	Paths:          "Possible: %s",
	ChooseMove:     "Choose the move:",
	Offers:         "🤝 %s offers a draw.",
	Offered:        "🤝 You offered a draw.",
	Declined:       "Your draw offer was declined.",
	YouDeclined:    "You declined the draw.",
	BotDeclines:    "The bot declines the draw.",
	UndoneYou:      "You took back your move.",
	UndoneThem:     "%s took back their move.",
	Joined:         "%s joined: the game begins!",
	ResignAsk:      "<b>Resign this game?</b>",
	Win:            "🏁 <b>%s wins</b>: %s.",
	YouWin:         "🏆 <b>You win</b>: %s.",
	YouLose:        "🏁 <b>You lose</b>: %s.",
	Draw:           "🤝 <b>Draw</b>: %s.",
	Rating:         "Your rating: %d (%s).",
	Reminder:       "⏰ <b>%s left for your move!</b>",
	ReminderClock:  "⏰ <b>%s left on your clock!</b>",
	NoPicture:      "🖼 The picture of the board could not be sent; here is the board as text.",
	Back:           "↩ Back",
	Pass:           "⏭ Pass",
	Undo:           "⟲ Take back",
	OfferDraw:      "½ Offer a draw",
	Resign:         "🏳 Resign",
	Accept:         "✔ Accept the draw",
	Decline:        "✖ Decline",
	ResignYes:      "Yes, I resign",
	ResignNo:       "No, play on",
	Cancel:         "✖ Stop waiting",
	Open:           "📱 Open",
	Waiting:        "⏳ Waiting for an opponent: %s, %s. The board comes here when someone joins; /games finds you another game meanwhile.",
	Invite:         "Send this link to a friend to play %s (%s) with you:\n%s\nIt works once, for %s. The board comes here when your friend joins.",
	Cancelled:      "You no longer wait for an opponent.",
	Expired:        "Nobody joined your game of %s within a week, so it is closed. /games starts another.",
	Mine:           "Your games, those where it is your turn first:",
	MineTurn:       "your turn",
	MineWait:       "their turn",
	MineWaiting:    "waiting for an opponent",
	MineEntry:      "%s · %s · %s",
	RatingHead:     "Game Pld W L D Elo",
	Unrated:        "—",
	Illegal:        "«%s» is not a legal move here.",
	Unreadable:     "«%s» is not a move I can read.",
	Ambiguous:      "«%s» could be several moves: %s. Write it in full.",
	From:           "Moves of the piece on %s: %s.",
	Stuck:          "The piece on %s cannot move now.",
	NoPiece:        "There is no piece on %s.",
	NotYourPiece:   "The piece on %s is not yours.",
	MustCapture:    "A capture is compulsory.",
	Rested:         "The king on %s has made three moves in a row: move another piece.",
	Moves:          "Your moves: %s.",
	NotYourTurnIn:  "It is not your turn in %s.",
	TypedPlayed:    "✅ You played <b>%s</b> in %s against %s.",
	ToBoard:        "♟ To the board",
	Days:           "%d d %d h",
	Hours:          "%d h %d min",
	Seconds:        "%d:%02d",
	MovedOn:        "The board has moved on.",
	NotYourTurn:    "It is not your turn.",
	Over:           "This game is over.",
	NotYours:       "This is not your game.",
	NotStarted:     "This game has not started yet: it waits for an opponent.",
	Full:           "Someone else has joined this game already.",
	OwnGame:        "This is your own game: send the link to a friend.",
	InviteUsed:     "This invite link has been used already.",
	InviteExpired:  "This invite link has expired.",
	NoGame:         "There is no such game or invite.",
	CannotUndo:     "You cannot take back a move now: the last move is not yours, or your opponent has seen it.",
	NoOffer:        "There is no draw offer to answer.",
	AlreadyOffered: "You have offered a draw this move already.",
	TooManyBotGames: "You already play as many games against the bot as one player may at once. " +
		"Finish or resign one of them (/mygames) to start another.",
	BadMove:    "This move is not legal.",
	Unplayable: "This game cannot be played with these settings.",

	NotifyMoved: "🔔 %s played <b>%s</b> in %s.",
	NotifyOffer: "🔔 %s offers a draw in %s.",
	NotifyStart: "🔔 %s joined your game of %s.",
	NotifyEnd:   "🔔 Your game of %s is over.",
	WebLink:     `🌐 <a href="%s">Open the game on the web</a>`,
	TokenUndelivered: "⚠️ API token #%d for %s could not be delivered to you, so it is revoked and opens nothing. " +
		"Send /token %d again for a new one.",
	NotifyMenu: "🔔 <b>Notifications of your board games</b>\n" +
		"When your opponent moves: <b>%s</b>\nQuiet hours: <b>%s</b>\nYour time: <b>%s</b> (UTC%s)\n\n" +
		"A move you have not seen within the delay brings the board to the bottom of the chat with a sound; " +
		"until then the board changes in place, silently. During the quiet hours notifications wait for their end. " +
		"Set your UTC offset so that the quiet hours are yours.",
	NotifyByGame:  "by the game's clock (at once; in 15 minutes for correspondence)",
	QuietNone:     "none",
	NotifyDefault: "By the game's clock",
	NotifyOffset:  "UTC %s h",
	NotifySaved:   "Saved.",
	Delays:        map[string]string{"now": "At once", "15m": "In 15 minutes", "1h": "In an hour", "never": "Never"},
}

var boardRU = Board{
	Games: map[string]string{
		"russian": "Русские шашки", "turkish": "Турецкие шашки", "international": "Международные шашки",
		"brazilian": "Бразильские шашки", "english": "Английские шашки", "chase": "Погоня",
		"foxgeese13": "Лиса и гуси (13 гусей)", "foxgeese15": "Лиса и гуси (15 гусей)",
		"foxgeese17": "Лиса и гуси (17 гусей)", "chess": "Шахматы",
		"othello": "Реверси (отелло)", "breakthrough": "Прорыв", "canadian": "Канадские шашки",
		"pool": "Американские шашки (пул)", "czech": "Чешские шашки", "spanish": "Испанские шашки",
		"italian": "Итальянские шашки", "thai": "Тайские шашки", "armenian": "Армянские шашки (тама)",
		"atarigo": "Атари-го", "gardner": "Миништахматы Гарднера (5×5)",
		"chess960": "Шахматы Фишера (960)", "frisian": "Фризские шашки",
	},
	Sides:      map[string]string{"White": "Белые", "Black": "Чёрные", "Red": "Красные", "Geese": "Гуси", "Fox": "Лиса"},
	Levels:     map[string]string{"easy": "лёгкий", "normal": "средний", "strong": "сильный"},
	Promotions: map[string]string{"Q": "♕ Ферзь", "R": "♖ Ладья", "B": "♗ Слон", "N": "♘ Конь"},
	Controls:   map[string]string{"none": "без часов", "corr1d": "1 день на ход", "corr3d": "3 дня на ход", "blitz10+5": "10 мин на партию + 5 с за ход"},
	Reasons: map[string]string{
		"no_moves": "ходов не осталось", "no_pieces": "фигур не осталось", "checkmate": "мат", "stalemate": "пат",
		"repetition": "троекратное повторение", "fifty_moves": "правило 50 ходов",
		"dead_position": "мат невозможен", "king_moves": "слишком долго ходили только дамки без взятий",
		"sixteen_moves": "16 ходов в малом окончании", "five_moves": "5 ходов в малом окончании",
		"three_kings": "три дамки не поймали одинокую за 15 ходов", "balance": "соотношение сил не менялось",
		"lone_kings": "дамка против дамки", "few_dice": "осталось меньше пяти кубиков",
		"fox_trapped": "лиса заперта", "geese_blocked": "гусям некуда ходить",
		"few_geese": "гусей слишком мало, чтобы запереть лису", "ply_limit": "лимит ходов",
		"goal": "фишка дошла до последнего ряда", "more_discs": "никто не может поставить фишку: фишки подсчитаны",
		"first_capture": "первое взятие", "seven_moves": "две дамки не взяли одинокую за 7 ходов",
		"resignation": "сдача", "timeout": "истекло время", "agreement": "по согласию",
		"timeout_draw": "время истекло, но соперник не мог выиграть",
	},
	Bot:            "Бот (%s)",
	Title:          "<b>%s</b> · ход %d",
	Seat:           "%s: %s",
	Clock:          " · %s",
	LastMove:       "Последний ход: %s (%s)",
	YourTurn:       "<b>Ваш ход.</b>",
	TheirTurn:      "Ходит %s.",
	BotThinking:    "Бот думает…",
	TimeLeft:       "⏳ На ход осталось %s.",
	ClockYours:     "⏳ На ваших часах осталось %s.",
	ClockTheirs:    "⏳ На часах соперника осталось %s.",
	Selected:       "Выбрано: <b>%s</b>. Нажмите, куда пойти.",
	Paths:          "Возможно: %s",
	ChooseMove:     "Выберите ход:",
	Offers:         "🤝 %s предлагает ничью.",
	Offered:        "🤝 Вы предложили ничью.",
	Declined:       "Ваше предложение ничьей отклонено.",
	YouDeclined:    "Вы отказались от ничьей.",
	BotDeclines:    "Бот отказывается от ничьей.",
	UndoneYou:      "Вы взяли ход назад.",
	UndoneThem:     "%s берёт ход назад.",
	Joined:         "%s в игре: партия начинается!",
	ResignAsk:      "<b>Сдаться в этой партии?</b>",
	Win:            "🏁 <b>Победа: %s</b> — %s.",
	YouWin:         "🏆 <b>Вы выиграли</b>: %s.",
	YouLose:        "🏁 <b>Вы проиграли</b>: %s.",
	Draw:           "🤝 <b>Ничья</b>: %s.",
	Rating:         "Ваш рейтинг: %d (%s).",
	Reminder:       "⏰ <b>На ход осталось %s!</b>",
	ReminderClock:  "⏰ <b>На ваших часах осталось %s!</b>",
	NoPicture:      "🖼 Картинку доски отправить не удалось; вот доска текстом.",
	Back:           "↩ Назад",
	Pass:           "⏭ Пас",
	Undo:           "⟲ Вернуть ход",
	OfferDraw:      "½ Предложить ничью",
	Resign:         "🏳 Сдаться",
	Accept:         "✔ Согласиться на ничью",
	Decline:        "✖ Отказаться",
	ResignYes:      "Да, сдаюсь",
	ResignNo:       "Нет, играем дальше",
	Cancel:         "✖ Не ждать",
	Open:           "📱 Открыть",
	Waiting:        "⏳ Ждём соперника: %s, %s. Доска придёт сюда, когда кто-нибудь присоединится; /games тем временем найдёт другую партию.",
	Invite:         "Отправьте эту ссылку другу, чтобы сыграть с ним: %s (%s)\n%s\nОна действует один раз, %s. Доска придёт сюда, когда друг присоединится.",
	Cancelled:      "Вы больше не ждёте соперника.",
	Expired:        "За неделю никто не присоединился к вашей партии (%s), и она закрыта. /games начнёт новую.",
	Mine:           "Ваши партии, сначала те, где ваш ход:",
	MineTurn:       "ваш ход",
	MineWait:       "ход соперника",
	MineWaiting:    "ждём соперника",
	MineEntry:      "%s · %s · %s",
	RatingHead:     "Игра Игр В П Н Рейт",
	Unrated:        "—",
	Illegal:        "«%s» — здесь такого хода нет.",
	Unreadable:     "«%s» — не понимаю такой записи хода.",
	Ambiguous:      "«%s» — это может быть несколько ходов: %s. Напишите ход полностью.",
	From:           "Ходы фигуры с %s: %s.",
	Stuck:          "Фигура на %s сейчас не может ходить.",
	NoPiece:        "На %s нет фигуры.",
	NotYourPiece:   "Фигура на %s — не ваша.",
	MustCapture:    "Бить обязательно.",
	Rested:         "Дамка на %s сделала три хода подряд: ходите другой шашкой.",
	Moves:          "Ваши ходы: %s.",
	NotYourTurnIn:  "В партии «%s» сейчас не ваш ход.",
	TypedPlayed:    "✅ Ваш ход <b>%s</b> в партии «%s» (соперник: %s).",
	ToBoard:        "♟ К доске",
	Days:           "%d д %d ч",
	Hours:          "%d ч %d мин",
	Seconds:        "%d:%02d",
	MovedOn:        "Доска уже изменилась.",
	NotYourTurn:    "Сейчас не ваш ход.",
	Over:           "Эта партия окончена.",
	NotYours:       "Это не ваша партия.",
	NotStarted:     "Партия ещё не началась: она ждёт соперника.",
	Full:           "К этой партии уже присоединился кто-то другой.",
	OwnGame:        "Это ваша собственная партия: отправьте ссылку другу.",
	InviteUsed:     "Эта ссылка-приглашение уже использована.",
	InviteExpired:  "Срок этой ссылки-приглашения истёк.",
	NoGame:         "Такой партии или приглашения нет.",
	CannotUndo:     "Сейчас ход не вернуть: последний ход не ваш или соперник его уже видел.",
	NoOffer:        "Предложения ничьей, на которое можно ответить, нет.",
	AlreadyOffered: "Вы уже предлагали ничью на этом ходу.",
	TooManyBotGames: "У вас уже столько партий с ботом, сколько можно играть одновременно. " +
		"Доиграйте или сдайте одну из них (/mygames), чтобы начать новую.",
	BadMove:    "Такой ход невозможен.",
	Unplayable: "В эту игру с такими настройками играть нельзя.",

	NotifyMoved: "🔔 %s: ход <b>%s</b> в партии «%s».",
	NotifyOffer: "🔔 %s предлагает ничью в партии «%s».",
	NotifyStart: "🔔 %s в вашей партии «%s».",
	NotifyEnd:   "🔔 Ваша партия «%s» окончена.",
	WebLink:     `🌐 <a href="%s">Открыть партию в браузере</a>`,
	TokenUndelivered: "⚠️ API-токен #%d для %s не удалось вам доставить, поэтому он отозван и ничего не открывает. " +
		"Отправьте /token %d ещё раз, чтобы получить новый.",
	NotifyMenu: "🔔 <b>Уведомления о ваших партиях</b>\n" +
		"Когда соперник сходил: <b>%s</b>\nТихие часы: <b>%s</b>\nВаше время: <b>%s</b> (UTC%s)\n\n" +
		"Если вы не посмотрели ход за это время, доска придёт вниз чата со звуком; " +
		"до того она меняется на месте, без звука. В тихие часы уведомления ждут их окончания. " +
		"Укажите свой часовой пояс, чтобы тихие часы были вашими.",
	NotifyByGame:  "по контролю времени (сразу; через 15 минут при игре по переписке)",
	QuietNone:     "нет",
	NotifyDefault: "По контролю времени",
	NotifyOffset:  "UTC %s ч",
	NotifySaved:   "Сохранено.",
	Delays:        map[string]string{"now": "Сразу", "15m": "Через 15 минут", "1h": "Через час", "never": "Никогда"},
}
