package texts

import "fmt"

// Tournament is what the board games' tournaments say in Telegram (bot/boards/telegram,
// tournament.go). Texts are HTML unless their comment says plain; every %s of an HTML text is
// filled with escaped HTML.
type Tournament struct {
	// Systems names the systems (plain).
	Systems map[string]string
	// List heads /tournaments; None says there is none; Entry is a tournament of the list: its
	// id, system, game, clock, players (n of max), state; Joined marks one the user is in.
	List, None, Entry, Joined string
	// States words the states (plain): created is "starts at %s".
	Open, Running string
	// Join and Leave are the buttons (plain); Deep is the line of a join link.
	Join, Leave, Deep string
	// JoinedOK, LeftOK answer a join and a leave (plain: a button's answer).
	JoinedOK, LeftOK string
	// Created answers the creation: its id, what it is, when it starts, and its join link.
	Created string
	// Usage is the syntax of /tournament (HTML).
	Usage string
	// SettingSaved: the creation setting now (allowed: yes/no, the limit).
	SettingSaved string
	// Yes and No (plain).
	Yes, No string
	// Standings heads a player's standings message: the id, system, game; Round the round (n of
	// m); ArenaLeft the time left of an arena; Final marks final standings.
	Standings, Round, ArenaLeft, Final string
	// Row is a line of the classic standings: rank, name, score, Buchholz, Sonneborn–Berger;
	// ArenaRow: rank, name, points, fire; You marks the player's own line.
	Row, ArenaRow, Fire, You string
	// Playing: the player's current game (a board id); Waiting: no game now.
	Playing, Waiting string
	// Place announces the final place: place, of n, score.
	Place string
	// Cancelled: the tournament was called off, too few players.
	Cancelled string
	// Game names, above a tournament's game (its board's caption, its web page), the
	// tournament and the round (id, round, of rounds); ArenaGame an arena's game (id). Plain.
	Game, ArenaGame string

	// The refusals (plain).
	ErrNotFound, ErrStarted, ErrFull, ErrEntered, ErrNotEntered, ErrMayNotCreate, ErrTooMany, ErrInvalid string
}

var tournamentEN = Tournament{
	Systems:  map[string]string{"roundrobin": "Round robin", "swiss": "Swiss", "arena": "Arena"},
	List:     "<b>Tournaments</b>",
	None:     "No tournament is open now.",
	Entry:    "#%d %s · %s · %s · %d/%d players · %s",
	Joined:   " ✅",
	Open:     "starts %s UTC",
	Running:  "running",
	Join:     "Join #%d",
	Leave:    "Leave #%d",
	Deep:     "Join link of #%d: %s",
	JoinedOK: "You are in the tournament. It starts %s UTC.",
	LeftOK:   "You left the tournament.",
	Created:  "Tournament #%d created: %s, %s, %s. It starts %s UTC.\nJoin link: %s",
	Usage: "<b>/tournament</b> (admins; users when allowed):\n" +
		"<code>/tournament new swiss ROUNDS GAME CLOCK [in MINUTES] [max N]</code>\n" +
		"<code>/tournament new roundrobin GAME CLOCK [in MINUTES] [max N]</code>\n" +
		"<code>/tournament new arena MINUTES GAME CLOCK [in MINUTES] [max N]</code>\n" +
		"CLOCK is M+S (minutes and seconds a move, e.g. 5+3) or a clock of /games.\n" +
		"<code>/tournament allow on|off</code>, <code>/tournament limit N</code>: whether users may create tournaments, and how many open at once each.",
	SettingSaved:    "Users may create tournaments: %s; open at once each: %d.",
	Yes:             "yes",
	No:              "no",
	Standings:       "<b>Tournament #%d</b> · %s · %s",
	Round:           "Round %d of %d",
	ArenaLeft:       "Ends in %s",
	Final:           "<b>Final standings</b>",
	Row:             "%d. %s — %s (Bh %s, SB %s)",
	ArenaRow:        "%d. %s — %d%s",
	Fire:            " 🔥",
	You:             " ◀",
	Playing:         "Your game: #%d (/mygames)",
	Waiting:         "Waiting for your next game.",
	Place:           "Tournament #%d is over: you placed %d of %d with %s.",
	Cancelled:       "Tournament #%d was called off: too few players joined.",
	Game:            "🏆 Tournament #%d, round %d of %d",
	ArenaGame:       "🏆 Arena tournament #%d",
	ErrNotFound:     "No such tournament.",
	ErrStarted:      "The tournament has started: players join and leave before the start.",
	ErrFull:         "The tournament is full.",
	ErrEntered:      "You are in this tournament already.",
	ErrNotEntered:   "You are not in this tournament.",
	ErrMayNotCreate: "Only admins create tournaments in this bot.",
	ErrTooMany:      "You have as many open tournaments as the bot allows.",
	ErrInvalid:      "This tournament cannot be created: %s.",
}

var tournamentRU = Tournament{
	Systems:  map[string]string{"roundrobin": "Круговой", "swiss": "Швейцарская система", "arena": "Арена"},
	List:     "<b>Турниры</b>",
	None:     "Сейчас открытых турниров нет.",
	Entry:    "#%d %s · %s · %s · игроков %d/%d · %s",
	Joined:   " ✅",
	Open:     "начало %s UTC",
	Running:  "идёт",
	Join:     "Войти в #%d",
	Leave:    "Выйти из #%d",
	Deep:     "Ссылка для входа в #%d: %s",
	JoinedOK: "Вы участвуете в турнире. Начало %s UTC.",
	LeftOK:   "Вы вышли из турнира.",
	Created:  "Турнир #%d создан: %s, %s, %s. Начало %s UTC.\nСсылка для входа: %s",
	Usage: "<b>/tournament</b> (админы; пользователи, если разрешено):\n" +
		"<code>/tournament new swiss ТУРЫ ИГРА КОНТРОЛЬ [in МИНУТЫ] [max N]</code>\n" +
		"<code>/tournament new roundrobin ИГРА КОНТРОЛЬ [in МИНУТЫ] [max N]</code>\n" +
		"<code>/tournament new arena МИНУТЫ ИГРА КОНТРОЛЬ [in МИНУТЫ] [max N]</code>\n" +
		"КОНТРОЛЬ — M+S (минуты и секунды на ход, например 5+3) или контроль из /games.\n" +
		"<code>/tournament allow on|off</code>, <code>/tournament limit N</code>: могут ли пользователи создавать турниры и сколько открытых сразу у каждого.",
	SettingSaved:    "Пользователи могут создавать турниры: %s; открытых сразу у каждого: %d.",
	Yes:             "да",
	No:              "нет",
	Standings:       "<b>Турнир #%d</b> · %s · %s",
	Round:           "Тур %d из %d",
	ArenaLeft:       "До конца %s",
	Final:           "<b>Итоговая таблица</b>",
	Row:             "%d. %s — %s (Бх %s, ЗБ %s)",
	ArenaRow:        "%d. %s — %d%s",
	Fire:            " 🔥",
	You:             " ◀",
	Playing:         "Ваша партия: #%d (/mygames)",
	Waiting:         "Ждём вашу следующую партию.",
	Place:           "Турнир #%d окончен: ваше место %d из %d, очков %s.",
	Cancelled:       "Турнир #%d отменён: слишком мало игроков.",
	Game:            "🏆 Турнир #%d, тур %d из %d",
	ArenaGame:       "🏆 Турнир-арена #%d",
	ErrNotFound:     "Такого турнира нет.",
	ErrStarted:      "Турнир уже начался: войти и выйти можно только до начала.",
	ErrFull:         "В турнире нет мест.",
	ErrEntered:      "Вы уже участвуете в этом турнире.",
	ErrNotEntered:   "Вы не участвуете в этом турнире.",
	ErrMayNotCreate: "В этом боте турниры создают только админы.",
	ErrTooMany:      "У вас уже столько открытых турниров, сколько разрешено.",
	ErrInvalid:      "Такой турнир создать нельзя: %s.",
}

// Tournament returns what the tournaments say in the catalogue's language.
func (c *Catalog) Tournament() *Tournament {
	if c.Lang == "ru" {
		return &tournamentRU
	}
	return &tournamentEN
}

// Heading names a tournament above one of its games (plain): Game with the round, or ArenaGame
// for an arena (arena set), whose games have no rounds.
func (t *Tournament) Heading(id int64, arena bool, round, rounds int) string {
	if arena {
		return fmt.Sprintf(t.ArenaGame, id)
	}
	return fmt.Sprintf(t.Game, id, round, rounds)
}
