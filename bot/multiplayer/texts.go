package multiplayer

import (
	"fmt"
	"strings"
	"time"
)

// msgs are the player-facing texts of this package in one language. They are plain text; the
// quest player escapes them.
type msgs struct {
	bot          string // what <k> stands for when player k is the bot
	waitOpponent string // waiting for a second player: the time left
	waitPlayers  string // waiting for more players: who joined, how many of how many, time left
	waitFor      string // waiting for blocks: whom, the time left
	answerJoin   string // a press while waiting to start
	answerFor    string // a press while waiting for blocks: whom
	button       string // the waiting screen's button
	alone        string // nobody joined in time
	timeout      string // a player missed the round: who
	timeoutSelf  string // the player missed the round
	left         string // a player left: who
	and          string // joins the last two names of a list
	seconds      string
	minutes      string
	hours        string
}

var allMsgs = map[string]msgs{
	"en": {
		bot:          "Bot",
		waitOpponent: "⏳ Waiting for an opponent to join… If nobody joins within %s, you play against the bot.",
		waitPlayers:  "⏳ Players joined: %s (%d of %d). Waiting up to %s for more; then the game starts, or with too few players you play against the bot.",
		waitFor:      "⏳ Waiting for %s… (at most %s more; then you go on against the bot)",
		answerJoin:   "Waiting for other players to join…",
		answerFor:    "Waiting for %s…",
		button:       "⏳ Who are we waiting for?",
		alone:        "Nobody joined in time: you play against the bot.",
		timeout:      "%s did not move in time: you go on against the bot.",
		timeoutSelf:  "You did not move in time: you go on against the bot.",
		left:         "%s has left the game: you go on against the bot.",
		and:          " and ",
		seconds:      "%d s",
		minutes:      "%d min",
		hours:        "%d h",
	},
	"ru": {
		bot:          "Бот",
		waitOpponent: "⏳ Ждём соперника… Если за %s никто не присоединится, вы сыграете с ботом.",
		waitPlayers:  "⏳ Присоединились: %s (%d из %d). Ждём ещё игроков до %s; потом игра начнётся, а если игроков мало, вы сыграете с ботом.",
		waitFor:      "⏳ Ждём: %s… (не больше %s; потом вы продолжите с ботом)",
		answerJoin:   "Ждём, пока присоединятся другие игроки…",
		answerFor:    "Ждём: %s…",
		button:       "⏳ Кого мы ждём?",
		alone:        "Никто не присоединился вовремя: вы играете с ботом.",
		timeout:      "Ход игрока %s не пришёл вовремя: вы продолжаете с ботом.",
		timeoutSelf:  "Вы не сделали ход вовремя: вы продолжаете с ботом.",
		left:         "Игрок %s вышел из игры: вы продолжаете с ботом.",
		and:          " и ",
		seconds:      "%d с",
		minutes:      "%d мин",
		hours:        "%d ч",
	},
}

// msgsFor returns the texts of a language ("ru" or anything else for English).
func msgsFor(lang string) msgs {
	if m, ok := allMsgs[lang]; ok {
		return m
	}
	return allMsgs["en"]
}

// BotName is what <k> stands for, in lang, when player k is the bot.
func BotName(lang string) string { return msgsFor(lang).bot }

// Text is the line of a waiting screen, in lang, at now.
func (w *Waiting) Text(lang string, now time.Time) string {
	t := msgsFor(lang)
	left := duration(t, w.Deadline.Sub(now))
	switch {
	case w.Kind == Barrier:
		return fmt.Sprintf(t.waitFor, list(t, w.For), left)
	case w.Need <= 2:
		return fmt.Sprintf(t.waitOpponent, left)
	}
	return fmt.Sprintf(t.waitPlayers, list(t, w.Joined), len(w.Joined), w.Need, left)
}

// Answer is the short answer, in lang, to a button pressed while waiting.
func (w *Waiting) Answer(lang string) string {
	t := msgsFor(lang)
	if w.Kind == Barrier {
		return fmt.Sprintf(t.answerFor, list(t, w.For))
	}
	return t.answerJoin
}

// Button is the label, in lang, of the waiting screen's button, which answers what the player
// waits for.
func (w *Waiting) Button(lang string) string { return msgsFor(lang).button }

// notice is what a player who now plays the bot is told, in lang: why the session ended
// (reason), who caused it (by) and whether it was the player themself.
func notice(lang, reason, by string, self bool) string {
	t := msgsFor(lang)
	switch {
	case reason == reasonAlone:
		return t.alone
	case reason == reasonTimeout && self:
		return t.timeoutSelf
	case reason == reasonTimeout:
		return fmt.Sprintf(t.timeout, by)
	case reason == reasonLeft:
		return fmt.Sprintf(t.left, by)
	}
	return ""
}

// list joins names: "A", "A and B", "A, B and C".
func list(t msgs, names []string) string {
	switch len(names) {
	case 0:
		return "…"
	case 1:
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + t.and + names[len(names)-1]
}

// duration writes a time left, rounded up: seconds under two minutes, minutes under two hours.
func duration(t msgs, d time.Duration) string {
	secs := int((max(d, 0) + time.Second - 1) / time.Second)
	switch {
	case secs < 120:
		return fmt.Sprintf(t.seconds, secs)
	case secs < 2*3600:
		return fmt.Sprintf(t.minutes, (secs+59)/60)
	}
	return fmt.Sprintf(t.hours, (secs+3599)/3600)
}
