package texts

// Relay is the relay's own strings in one language, HTML. The admin commands' texts are rows of
// the command tree (migration 009).
type Relay struct {
	// To the author of a relayed message.
	Sent      string // a user's text went to the admins
	Replied   string // a reply went to the one it answers; %s: their name
	NoAdmins  string
	OnlyText  string
	TooMany   string
	NotCopy   string // an admin's reply to something that is not a relayed message
	Blocked   string // the one a reply answers has blocked the bot; %s: their name
	NoOneElse string // nobody to broadcast to; %s: the language

	// The header of a copy shown to an admin: who wrote and where they are.
	NoQuest    string
	InQuest    string // %s: the quest, %s: the location, %d: the step
	ToEveryone string // a broadcast; %s: the language

	// A broadcast's confirmation and progress, in its author's chat.
	Confirm    string // %s: the number of users, %s: the language
	Send       string
	Cancel     string
	Stop       string
	Cancelled  string
	Progress   string // %s: the language, %s sent, %s of
	Done       string // %s sent, %s of
	Stopped    string // %s sent, %s of
	Unreached  string // appended to done and stopped; %s: how many
	Starting   string // the answer to the Send button
	StoppedAck string // the answer to the Stop button
	Stale      string // a button of a broadcast that no longer waits for it
	AdminsOnly string

	Language map[string]string // the languages' names
}

var relayEN = Relay{
	Sent:      "Your message went to the admins. Their answer will come here, as a reply to it.",
	Replied:   "Sent to %s.",
	NoAdmins:  "Sorry, nobody reads messages here at the moment. Send /help to see what I can do.",
	OnlyText:  "Only text messages reach the admins.",
	TooMany:   "You have written a lot in a short time. Please wait a minute, then write again.",
	NotCopy:   "This is a reply to a message that did not come from a user, so it went nowhere. To write to every user, send your text without replying to anything.",
	Blocked:   "%s has blocked the bot: your reply cannot reach them.",
	NoOneElse: "Nobody else here speaks %s, so there is nobody to send this to.",

	NoQuest:    "not in a quest",
	InQuest:    "«%s», location %s, step %d",
	ToEveryone: "📢 to everyone who speaks %s",

	Confirm:    "You did not reply to a message, so this goes to <b>every user who speaks %[2]s: %[1]s</b>. Send it?",
	Send:       "Send",
	Cancel:     "Cancel",
	Stop:       "Stop",
	Cancelled:  "Not sent.",
	Progress:   "Broadcast to everyone who speaks %s: sent %s of %s…",
	Done:       "Broadcast finished: sent to %s of %s users.",
	Stopped:    "Broadcast stopped: sent to %s of %s users.",
	Unreached:  " %s could not be reached (they blocked the bot).",
	Starting:   "Sending…",
	StoppedAck: "Stopped.",
	Stale:      "This broadcast is no longer waiting for that.",
	AdminsOnly: "Only admins can do this.",

	Language: map[string]string{"en": "English", "ru": "Russian"},
}

var relayRU = Relay{
	Sent:      "Ваше сообщение отправлено администраторам. Ответ придёт сюда, ответом на него.",
	Replied:   "Отправлено: %s.",
	NoAdmins:  "Извините, сейчас здесь некому читать сообщения. Отправьте /help, чтобы узнать, что я умею.",
	OnlyText:  "До администраторов доходят только текстовые сообщения.",
	TooMany:   "Вы написали слишком много за короткое время. Подождите минуту и напишите снова.",
	NotCopy:   "Это ответ на сообщение, пришедшее не от пользователя, поэтому он никуда не отправлен. Чтобы написать всем пользователям, отправьте текст, не отвечая ни на что.",
	Blocked:   "%s заблокировал(а) бота: ваш ответ до него не дойдёт.",
	NoOneElse: "Больше никто здесь не говорит на языке «%s», так что отправлять некому.",

	NoQuest:    "не в квесте",
	InQuest:    "«%s», локация %s, шаг %d",
	ToEveryone: "📢 всем, кто говорит на языке «%s»",

	Confirm:    "Вы не ответили на сообщение, поэтому это получат <b>все, кто говорит на языке «%[2]s»: %[1]s</b>. Отправить?",
	Send:       "Отправить",
	Cancel:     "Отмена",
	Stop:       "Остановить",
	Cancelled:  "Не отправлено.",
	Progress:   "Рассылка всем, кто говорит на языке «%s»: отправлено %s из %s…",
	Done:       "Рассылка закончена: отправлено %s из %s.",
	Stopped:    "Рассылка остановлена: отправлено %s из %s.",
	Unreached:  " Не дошло до %s (заблокировали бота).",
	Starting:   "Отправляю…",
	StoppedAck: "Остановлено.",
	Stale:      "Эта рассылка этого уже не ждёт.",
	AdminsOnly: "Это могут только администраторы.",

	Language: map[string]string{"en": "английский", "ru": "русский"},
}
