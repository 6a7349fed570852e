package relay

// texts are the relay's own strings in one language, HTML. The admin commands' texts are rows of
// the command tree (migration 009).
type texts struct {
	// To the author of a relayed message.
	sent      string // a user's text went to the admins
	replied   string // a reply went to the one it answers; %s: their name
	noAdmins  string
	onlyText  string
	tooMany   string
	notCopy   string // an admin's reply to something that is not a relayed message
	blocked   string // the one a reply answers has blocked the bot; %s: their name
	noOneElse string // nobody to broadcast to; %s: the language

	// The header of a copy shown to an admin: who wrote and where they are.
	noQuest    string
	inQuest    string // %s: the quest, %s: the location, %d: the step
	toEveryone string // a broadcast; %s: the language

	// A broadcast's confirmation and progress, in its author's chat.
	confirm    string // %s: the number of users, %s: the language
	send       string
	cancel     string
	stop       string
	cancelled  string
	progress   string // %s: the language, %s sent, %s of
	done       string // %s sent, %s of
	stopped    string // %s sent, %s of
	unreached  string // appended to done and stopped; %s: how many
	starting   string // the answer to the Send button
	stoppedAck string // the answer to the Stop button
	stale      string // a button of a broadcast that no longer waits for it
	adminsOnly string

	language map[string]string // the languages' names
}

var allTexts = map[string]texts{
	"en": {
		sent:      "Your message went to the admins. Their answer will come here, as a reply to it.",
		replied:   "Sent to %s.",
		noAdmins:  "Sorry, nobody reads messages here at the moment. Send /help to see what I can do.",
		onlyText:  "Only text messages reach the admins.",
		tooMany:   "You have written a lot in a short time. Please wait a minute, then write again.",
		notCopy:   "This is a reply to a message that did not come from a user, so it went nowhere. To write to every user, send your text without replying to anything.",
		blocked:   "%s has blocked the bot: your reply cannot reach them.",
		noOneElse: "Nobody else here speaks %s, so there is nobody to send this to.",

		noQuest:    "not in a quest",
		inQuest:    "«%s», location %s, step %d",
		toEveryone: "📢 to everyone who speaks %s",

		confirm:    "You did not reply to a message, so this goes to <b>every user who speaks %[2]s: %[1]s</b>. Send it?",
		send:       "Send",
		cancel:     "Cancel",
		stop:       "Stop",
		cancelled:  "Not sent.",
		progress:   "Broadcast to everyone who speaks %s: sent %s of %s…",
		done:       "Broadcast finished: sent to %s of %s users.",
		stopped:    "Broadcast stopped: sent to %s of %s users.",
		unreached:  " %s could not be reached (they blocked the bot).",
		starting:   "Sending…",
		stoppedAck: "Stopped.",
		stale:      "This broadcast is no longer waiting for that.",
		adminsOnly: "Only admins can do this.",

		language: map[string]string{"en": "English", "ru": "Russian"},
	},
	"ru": {
		sent:      "Ваше сообщение отправлено администраторам. Ответ придёт сюда, ответом на него.",
		replied:   "Отправлено: %s.",
		noAdmins:  "Извините, сейчас здесь некому читать сообщения. Отправьте /help, чтобы узнать, что я умею.",
		onlyText:  "До администраторов доходят только текстовые сообщения.",
		tooMany:   "Вы написали слишком много за короткое время. Подождите минуту и напишите снова.",
		notCopy:   "Это ответ на сообщение, пришедшее не от пользователя, поэтому он никуда не отправлен. Чтобы написать всем пользователям, отправьте текст, не отвечая ни на что.",
		blocked:   "%s заблокировал(а) бота: ваш ответ до него не дойдёт.",
		noOneElse: "Больше никто здесь не говорит на языке «%s», так что отправлять некому.",

		noQuest:    "не в квесте",
		inQuest:    "«%s», локация %s, шаг %d",
		toEveryone: "📢 всем, кто говорит на языке «%s»",

		confirm:    "Вы не ответили на сообщение, поэтому это получат <b>все, кто говорит на языке «%[2]s»: %[1]s</b>. Отправить?",
		send:       "Отправить",
		cancel:     "Отмена",
		stop:       "Остановить",
		cancelled:  "Не отправлено.",
		progress:   "Рассылка всем, кто говорит на языке «%s»: отправлено %s из %s…",
		done:       "Рассылка закончена: отправлено %s из %s.",
		stopped:    "Рассылка остановлена: отправлено %s из %s.",
		unreached:  " Не дошло до %s (заблокировали бота).",
		starting:   "Отправляю…",
		stoppedAck: "Остановлено.",
		stale:      "Эта рассылка этого уже не ждёт.",
		adminsOnly: "Это могут только администраторы.",

		language: map[string]string{"en": "английский", "ru": "русский"},
	},
}

// textsFor returns the strings of a language, English when there are none in it.
func textsFor(lang string) texts {
	if t, ok := allTexts[lang]; ok {
		return t
	}
	return allTexts["en"]
}
