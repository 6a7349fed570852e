package bot

import (
	"context"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"

	"github.com/questbot/questbot/bot/texts"
)

// MessageHandler may handle a message: it reports whether it did. Handlers are asked in the
// order they were added; the first that handles the message ends the search.
type MessageHandler func(ctx context.Context, tx Tx, u *Update) (handled bool, err error)

// Router is the bot's Handler: it routes each update to the feature that registered for it. The
// features are registered once, in bot/app (the composition root), before the transport runs;
// they never import each other, and no feature dispatches to another.
//
//   - An inline query goes to OnInlineQuery's handler, a chosen inline result to
//     OnChosenInlineResult's.
//   - A button press goes by the prefix of its callback data (the text before the first ':') to
//     the handler of that prefix (OnCallback). A press nobody owns (an old message, forged data)
//     is answered "no longer active" and changes nothing.
//   - A command goes to the handler registered for its name (OnCommand), else to the handler of
//     every other command (OnAnyCommand: the command tree).
//   - Any other message is offered to the message handlers in order (OnMessage) and, when none
//     takes it, given to the fallback (OnUnhandled).
//   - Middleware (Use) wraps everything, in the order added (the first is outermost).
//
// In groups the bot minds only what is meant for it: commands without an addressee or addressed
// to this bot ("/help@ThisBot"), button presses on its messages, and replies to its messages. A
// command addressed to another bot is ignored everywhere, in private chats too.
type Router struct {
	callbacks  map[string]Handler
	commands   map[string]Handler
	anyCommand Handler
	messages   []MessageHandler
	unhandled  Handler
	inline     Handler
	chosen     Handler
	middleware []func(Handler) Handler
	handler    Handler
}

// NewRouter returns a router with nothing registered.
func NewRouter() *Router {
	return &Router{callbacks: map[string]Handler{}, commands: map[string]Handler{}}
}

// OnCallback registers the handler of the button presses whose callback data starts with
// prefix + ":". A prefix is registered once: a second registration is a programming error and
// panics at start-up.
func (r *Router) OnCallback(prefix string, h Handler) {
	if prefix == "" || strings.Contains(prefix, ":") {
		panic(fmt.Sprintf("bot: bad callback prefix %q", prefix))
	}
	if _, ok := r.callbacks[prefix]; ok {
		panic(fmt.Sprintf("bot: callback prefix %q registered twice", prefix))
	}
	r.callbacks[prefix] = h
}

// OnCommand registers the handler of a command (its name without the slash, any case).
func (r *Router) OnCommand(name string, h Handler) {
	name = strings.ToLower(name)
	if _, ok := r.commands[name]; ok {
		panic(fmt.Sprintf("bot: command %q registered twice", name))
	}
	r.commands[name] = h
}

// OnAnyCommand registers the handler of the commands nobody registered by name.
func (r *Router) OnAnyCommand(h Handler) { r.anyCommand = h }

// OnMessage adds a handler that may take messages that are not commands.
func (r *Router) OnMessage(h MessageHandler) { r.messages = append(r.messages, h) }

// OnUnhandled registers the handler of the messages no message handler took.
func (r *Router) OnUnhandled(h Handler) { r.unhandled = h }

// OnInlineQuery registers the handler of the inline queries ("@bot …" typed in any chat); an
// inline query nobody handles gets no answer, and Telegram's client shows no results.
func (r *Router) OnInlineQuery(h Handler) { r.inline = h }

// OnChosenInlineResult registers the handler of the chosen inline results (the message a user
// posted from the bot's inline results, with its inline_message_id; Telegram sends them only
// with inline feedback enabled in BotFather).
func (r *Router) OnChosenInlineResult(h Handler) { r.chosen = h }

// Use adds middleware around every handler.
func (r *Router) Use(mw func(Handler) Handler) { r.middleware = append(r.middleware, mw) }

// Handle is the router as a Handler.
func (r *Router) Handle(ctx context.Context, tx Tx, u *Update) error {
	if r.handler == nil {
		h := Handler(r.route)
		for i := len(r.middleware) - 1; i >= 0; i-- {
			h = r.middleware[i](h)
		}
		r.handler = h
	}
	return r.handler(ctx, tx, u)
}

// route finds the handler of an update.
func (r *Router) route(ctx context.Context, tx Tx, u *Update) error {
	if u.User == nil {
		return nil
	}
	switch {
	case u.InlineQuery != nil:
		if r.inline != nil {
			return r.inline(ctx, tx, u)
		}
		return nil
	case u.ChosenInlineResult != nil:
		if r.chosen != nil {
			return r.chosen(ctx, tx, u)
		}
		return nil
	}
	// A press under an inline message (no message, an inline_message_id) goes by its prefix too.
	if cq := u.CallbackQuery; cq != nil {
		prefix, _, _ := strings.Cut(cq.Data, ":")
		if h := r.callbacks[prefix]; h != nil && strings.Contains(cq.Data, ":") {
			return h(ctx, tx, u)
		}
		return tx.Send(ctx, AnswerCallback(u.Chat, cq.ID, texts.For(u.User.Language).Bot.Stale))
	}
	m := u.Message
	if m == nil || m.Chat == nil {
		return nil
	}
	if m.ViaBot != nil && strings.EqualFold(m.ViaBot.UserName, u.Bot) {
		return nil // posted from the bot's own inline results: the chosen result tells of it
	}
	if name, addressee, args, ok := parseCommand(m.Text, m.Entities); ok {
		if addressee != "" && !strings.EqualFold(addressee, u.Bot) {
			return nil // for another bot
		}
		u.Command, u.Args = strings.ToLower(name), args
		if h := r.commands[u.Command]; h != nil {
			return h(ctx, tx, u)
		}
		if r.anyCommand != nil {
			return r.anyCommand(ctx, tx, u)
		}
		return nil
	}
	if group(m.Chat.Type) && !r.repliesToBot(u) {
		return nil // talk between the members of a group
	}
	for _, h := range r.messages {
		if handled, err := h(ctx, tx, u); err != nil || handled {
			return err
		}
	}
	if r.unhandled != nil {
		return r.unhandled(ctx, tx, u)
	}
	return nil
}

// group reports whether a chat type is a group.
func group(chatType string) bool { return chatType == "group" || chatType == "supergroup" }

// repliesToBot reports whether a message answers one of the bot's own messages.
func (r *Router) repliesToBot(u *Update) bool {
	re := u.Message.ReplyToMessage
	return re != nil && re.From != nil && re.From.IsBot && strings.EqualFold(re.From.UserName, u.Bot)
}

// parseCommand reads the command a message starts with: "/name@bot args" gives name, bot and
// args. Telegram marks a command with a bot_command entity at offset 0, whose length (in UTF-16
// units) covers "/name@bot". An entity that does not fit the text (a forged update) makes the
// message no command: it must end on a character boundary, cover a slash, a name and an optional
// "@bot" of letters, digits and underscores, and end where such characters end.
func parseCommand(text string, entities []tgbotapi.MessageEntity) (name, addressee, args string, ok bool) {
	if len(entities) == 0 || entities[0].Offset != 0 || !entities[0].IsCommand() || !strings.HasPrefix(text, "/") {
		return "", "", "", false
	}
	cmd, fits := utf16Prefix(text, entities[0].Length)
	if !fits || len(cmd) < 2 {
		return "", "", "", false
	}
	name, addressee, addressed := strings.Cut(cmd[1:], "@")
	if !commandWord(name) || (addressed && !commandWord(addressee)) {
		return "", "", "", false
	}
	rest := text[len(cmd):]
	next, w := utf8.DecodeRuneInString(rest)
	if w > 0 && (next == '@' || wordChar(next)) {
		return "", "", "", false // the entity stops inside the command
	}
	// The arguments follow the space (or line break) after the command, as Telegram's clients
	// send them.
	if w > 0 && unicode.IsSpace(next) {
		rest = rest[w:]
	}
	return name, addressee, rest, true
}

// commandWord reports whether s is a command's name or a bot's username: 1 to 64 ASCII letters,
// digits and underscores.
func commandWord(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for _, r := range s {
		if !wordChar(r) {
			return false
		}
	}
	return true
}

func wordChar(r rune) bool {
	return r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'
}

// utf16Prefix returns the first n UTF-16 code units of s, and whether s has that many on a
// character boundary.
func utf16Prefix(s string, n int) (string, bool) {
	units := 0
	for i, r := range s {
		if units == n {
			return s[:i], true
		}
		w := 1
		if r >= 0x10000 {
			w = 2
		}
		if units+w > n {
			return s[:i], false
		}
		units += w
	}
	return s, units == n
}
