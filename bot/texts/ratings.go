package texts

import "fmt"

// Ratings is what the board games say of ratings: the caption of /rating's chart, and /top's
// leaderboards (also the web's).
type Ratings struct {
	// ChartTitle is the title drawn on the chart (plain text, in the pictures' font: Latin
	// and Cyrillic letters, digits and a few signs), which is drawn in the player's language.
	ChartTitle string
	// Caption heads the chart's caption; CaptionLine is a game's line (Catalog.RatingLine): the
	// game, the rating, its deviation, the rated games counted (RatedGames) and all games
	// played; Provisional marks a provisional rating (after the line's numbers); CaptionNote
	// ends the caption.
	Caption, CaptionLine, Provisional, CaptionNote string
	// RatedGames counts the rated games, Games the games (plain).
	RatedGames, Games Plural
	// Top heads a leaderboard (the game); TopEmpty says nobody has a rating in the game yet;
	// TopEntry is a place (Catalog.TopEntry): the place, the player, the rating, its deviation,
	// the rated games counted (Games);
	// Program marks a program playing with an API token (after the name); TopProvisional heads
	// the provisional players.
	Top, TopEmpty, TopEntry, Program, TopProvisional string
	// TopMe is the asker's place among the established players (the place), TopMeProvisional
	// among the provisional ones (the place), TopNone says the asker has no rating in the game.
	TopMe, TopMeProvisional, TopNone string
	// UnknownGame answers /top with a name no game has (the name, plain), before the menu.
	UnknownGame string
}

var ratingsEN = Ratings{
	ChartTitle:       "Ratings (Glicko-2)",
	Caption:          "<b>Your ratings</b> (Glicko-2)",
	CaptionLine:      "%s: <b>%d</b> ± %d, %s of %d",
	RatedGames:       Plural{One: "%d rated game", Few: "%d rated games", Many: "%d rated games"},
	Games:            Plural{One: "%d game", Few: "%d games", Many: "%d games"},
	Provisional:      " (provisional)",
	CaptionNote:      "± is the rating's deviation: it narrows with every game and widens with time away. A rating is provisional while it is over 110. /top shows the best players.",
	Top:              "<b>%s: the best players</b>",
	TopEmpty:         "Nobody has a rating in %s yet: ratings come from games between players.",
	TopEntry:         "%d. %s — <b>%d</b> ± %d (%s)",
	Program:          " 🤖",
	TopProvisional:   "<b>Provisional ratings</b> (deviation over 110)",
	TopMe:            "Your place: <b>%d</b>.",
	TopMeProvisional: "Your rating is provisional: place %d among the provisional players.",
	TopNone:          "You have no rating in this game yet: play it against another player (/games).",
	UnknownGame:      "There is no game called “%s”.",
}

var ratingsRU = Ratings{
	ChartTitle:       "Рейтинги (Glicko-2)",
	Caption:          "<b>Ваши рейтинги</b> (Glicko-2)",
	CaptionLine:      "%s: <b>%d</b> ± %d, %s из %d",
	RatedGames:       Plural{One: "%d рейтинговая партия", Few: "%d рейтинговые партии", Many: "%d рейтинговых партий"},
	Games:            Plural{One: "%d партия", Few: "%d партии", Many: "%d партий"},
	Provisional:      " (предварительный)",
	CaptionNote:      "± — отклонение рейтинга: оно сужается с каждой партией и растёт, пока вы не играете. Рейтинг предварителен, пока отклонение больше 110. /top — лучшие игроки.",
	Top:              "<b>%s: лучшие игроки</b>",
	TopEmpty:         "В игре «%s» ещё ни у кого нет рейтинга: его дают партии между игроками.",
	TopEntry:         "%d. %s — <b>%d</b> ± %d (%s)",
	Program:          " 🤖",
	TopProvisional:   "<b>Предварительные рейтинги</b> (отклонение больше 110)",
	TopMe:            "Ваше место: <b>%d</b>.",
	TopMeProvisional: "Ваш рейтинг предварительный: место %d среди предварительных.",
	TopNone:          "У вас ещё нет рейтинга в этой игре: сыграйте в неё с другим игроком (/games).",
	UnknownGame:      "Игры «%s» нет.",
}

// RatingLine is a game's line of /rating's caption (CaptionLine): the game (HTML), the rating,
// its deviation, the rated games and all games played.
func (c *Catalog) RatingLine(game string, rating, rd, rated, played int) string {
	return fmt.Sprintf(c.Ratings.CaptionLine, game, rating, rd, c.Count(rated, c.Ratings.RatedGames), played)
}

// TopEntry is a place of a leaderboard (Ratings.TopEntry): the place, the player (HTML), the
// rating, its deviation and the rated games.
func (c *Catalog) TopEntry(place int, name string, rating, rd, games int) string {
	return fmt.Sprintf(c.Ratings.TopEntry, place, name, rating, rd, c.Count(games, c.Ratings.Games))
}
