package texts

// Shared is what a board game played in a message a whole chat sees says: one posted from the
// bot's inline results in any chat, or the bot's own message in a group (bot/boards/telegram,
// inline.go). Texts are HTML unless their comment says plain.
type Shared struct {
	// About describes each game in a line under its name in the inline results (plain).
	About map[string]string
	// Challenge: who wants to play which game; anyone else in the chat may join.
	Challenge string
	// Choose: who wants to play a board game in the group, and is to choose it. ChooseClock: who
	// wants to play which game, and is to choose its clock.
	Choose, ChooseClock string
	// Withdrawn: who withdrew the challenge to play which game. Expired: nobody joined who's
	// challenge to play which game in time.
	Withdrawn, Expired string
	// Turn: who is to move.
	Turn string
	// ResignAsk asks who to confirm their resignation.
	ResignAsk string
	// DeclinedBy: who declined the draw offer (the whole chat reads it).
	DeclinedBy string
	// Buttons (plain): join the game, withdraw the challenge.
	Join, Withdraw string
	// Answers to presses (plain): Between (the players): the game is theirs; OnlyCreator (who):
	// only the challenger may withdraw or choose; OwnChallenge: the challenger cannot join their
	// own game; NotReady: the challenge is not recorded yet (the bot has not heard of the
	// posted message); Joined: the game begins; TooLate: nobody joined in time; OnlyAnswerer
	// (who): the question (a resignation to confirm, a draw offer) is for who, and only they
	// may answer it.
	Between, OnlyCreator, OwnChallenge, NotReady, Joined, TooLate, OnlyAnswerer string
}

var sharedEN = Shared{
	About: map[string]string{
		"russian": "8×8, men capture backwards, flying kings", "turkish": "8×8, orthogonal moves and captures",
		"international": "10×10, the world's draughts", "brazilian": "8×8 with international rules",
		"chess": "the classic", "chase": "a dice game on a hexagonal board",
		"foxgeese13": "one fox against 13 geese", "foxgeese15": "one fox against 15 geese",
		"foxgeese17": "one fox against 17 geese",
		"othello":    "8×8, discs flipped between your own", "breakthrough": "8×8, the first to reach the far rank wins",
		"canadian": "12×12 with international rules", "pool": "8×8 American, flying kings, free choice of capture",
		"czech": "8×8, men capture forwards, kings capture first", "spanish": "8×8, most pieces, then most kings",
		"italian": "8×8, men may not take kings", "thai": "8×8, two ranks of men, kings land behind their victim",
		"armenian": "8×8 tama, orthogonal captures, kings move as queens", "atarigo": "9×9 Go, the first capture wins",
		"gardner": "chess on a 5×5 board", "chess960": "chess from a shuffled first rank",
		"frisian": "10×10, captures along files and ranks too, a king counts almost two men",
	},
	Challenge:    "🎲 <b>%s</b> wants to play <b>%s</b>. Who joins?",
	Choose:       "🎲 <b>%s</b> wants to play a board game. Which one?",
	ChooseClock:  "🎲 <b>%s</b> wants to play <b>%s</b>. With which clock?",
	Withdrawn:    "%s withdrew the challenge to play %s.",
	Expired:      "⌛ Nobody joined %s's game of %s in time.",
	Turn:         "▶️ %s to move.",
	ResignAsk:    "<b>%s, resign this game?</b>",
	DeclinedBy:   "%s declined the draw offer.",
	Join:         "✅ Join",
	Withdraw:     "✖ Withdraw",
	Between:      "This game is between %s and %s.",
	OnlyCreator:  "Only %s can do that.",
	OwnChallenge: "This is your own challenge: wait for someone to join.",
	NotReady:     "This challenge is not ready yet; try again in a moment.",
	Joined:       "The game begins!",
	TooLate:      "This challenge has expired.",
	OnlyAnswerer: "Only %s can answer this question.",
}

var sharedRU = Shared{
	About: map[string]string{
		"russian": "8×8, простые бьют назад, дамки дальнобойные", "turkish": "8×8, ходы и взятия по прямой",
		"international": "10×10, всемирные шашки", "brazilian": "8×8 по международным правилам",
		"chess": "классика", "chase": "игра с кубиками на шестиугольной доске",
		"foxgeese13": "лиса против 13 гусей", "foxgeese15": "лиса против 15 гусей",
		"foxgeese17": "лиса против 17 гусей",
		"othello":    "8×8, фишки переворачиваются между своими", "breakthrough": "8×8, выигрывает первый дошедший до последнего ряда",
		"canadian": "12×12 по международным правилам", "pool": "8×8, американские, дамки дальнобойные, взятие на выбор",
		"czech": "8×8, простые бьют вперёд, дамка бьёт первой", "spanish": "8×8, больше шашек, затем больше дамок",
		"italian": "8×8, простые не бьют дамок", "thai": "8×8, два ряда шашек, дамка встаёт сразу за взятой",
		"armenian": "8×8, тама, взятия по прямой, дамка ходит как ферзь", "atarigo": "го 9×9, выигрывает первое взятие",
		"gardner": "шахматы на доске 5×5", "chess960": "шахматы с перемешанным первым рядом",
		"frisian": "10×10, бьют и по вертикали и горизонтали, дамка стоит почти две шашки",
	},
	Challenge:    "🎲 <b>%s</b> хочет сыграть: <b>%s</b>. Кто присоединится?",
	Choose:       "🎲 <b>%s</b> хочет сыграть в настольную игру. В какую?",
	ChooseClock:  "🎲 <b>%s</b> хочет сыграть: <b>%s</b>. С какими часами?",
	Withdrawn:    "%s отозвал(а) вызов (%s).",
	Expired:      "⌛ К игре %s (%s) никто не присоединился вовремя.",
	Turn:         "▶️ Ходит %s.",
	ResignAsk:    "<b>%s, сдаться в этой партии?</b>",
	DeclinedBy:   "%s отклоняет предложение ничьей.",
	Join:         "✅ Играть",
	Withdraw:     "✖ Отозвать",
	Between:      "Эта партия между %s и %s.",
	OnlyCreator:  "Это может сделать только %s.",
	OwnChallenge: "Это ваш вызов: дождитесь, пока кто-нибудь присоединится.",
	NotReady:     "Вызов ещё не готов; попробуйте через мгновение.",
	Joined:       "Игра начинается!",
	TooLate:      "Этот вызов истёк.",
	OnlyAnswerer: "Ответить на этот вопрос может только %s.",
}
