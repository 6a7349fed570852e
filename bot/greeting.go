package bot

import (
	"context"
	"html"
	"strings"

	"github.com/questbot/questbot/bot/texts"
)

// Language picks the language the bot speaks to a user from their language code: Russian for
// ru (and its regional variants), English otherwise.
func Language(code string) string { return texts.Language(code) }

// Greeter is the behaviour the transport has on its own: /start gets a greeting in the user's
// language, any other text a short hint. Other updates (button presses are answered by the
// dispatcher) get nothing.
func Greeter(ctx context.Context, tx Tx, u *Update) error {
	m := u.Message
	if m == nil || u.User == nil || m.Chat == nil {
		return nil
	}
	t := texts.For(u.User.Language).Bot
	var text string
	switch {
	case m.IsCommand() && m.Command() == "start":
		name := u.User.FirstName
		if name == "" {
			name = u.User.Username
		}
		text = strings.ReplaceAll(t.Greeting, "{name}", html.EscapeString(name))
	case m.Text != "" || m.Document != nil:
		text = t.Hint
	default:
		return nil
	}
	reqs, err := SendHTML(m.Chat.ID, text, nil)
	if err != nil {
		return err
	}
	return tx.Send(ctx, reqs...)
}
