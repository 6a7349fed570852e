package telegram_test

import (
	"strings"
	"testing"

	"github.com/questbot/questbot/bot/emulator/tgemu"
)

// Ensure a player whose board pictures the Bot API server refuses for good (Telegram itself,
// with a 400; or a proxy in front of it that takes no photo, with a 413 page) still sees the game
// and plays it: each board comes as text, the diagram under a line saying the picture could not
// be sent, with the caption and the buttons of the moves, and the buttons play; each change
// replaces the text board, so the chat keeps one. A refused picture is not tried again, so a
// text the player sends meanwhile is answered at once.
func TestPictureRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	// The refusals the test provokes: the pictures, and the edits of a text board's caption
	// (a press on it edits the message the button is under, which has no caption).
	e.allow("Telegram rejected a request")
	e.allow("The server refused the request itself")
	e.start(t)
	for i, c := range []struct {
		name  string
		fault tgemu.Fault
	}{
		{"by Telegram", tgemu.Fault{Code: 400}},
		{"by a proxy", tgemu.Fault{Code: 413, Page: true}},
	} {
		user := int64(20 + i)
		t.Run(c.name, func(t *testing.T) {
			e.user(t, user, "Ann", "en")
			for _, method := range []string{"sendPhoto", "editMessageMedia"} {
				f := c.fault
				f.Method, f.ChatID, f.Times = method, user, 1000
				e.Bot.InjectFault(f)
			}
			textBoard := func(after int, what string, ok func(m tgemu.Message) bool) tgemu.Message {
				t.Helper()
				return e.WaitMessage(t, user, after, what, func(m tgemu.Message) bool {
					return strings.Contains(m.Text, "The picture of the board could not be sent") && ok(m)
				})
			}
			e.seed.Store(7) // Ann plays Red, who moves first
			after := e.LastID(user)
			e.menu(t, user, "/games", "Chase", "🤖 Play the bot", "Easy")
			m := textBoard(after, "the board at the start", func(m tgemu.Message) bool { return m.Button("A3") != "" })
			if !strings.Contains(m.Text, "<pre>") || !strings.Contains(m.Text, "Your turn") {
				t.Errorf("the text board lacks the diagram or the caption: %q", m.Text)
			}
			id := e.lastBoard(t, user)

			// A text meanwhile is answered at once.
			n := e.LastID(user)
			e.Send(t, user, "/games")
			e.WaitMessage(t, user, n, "the menu of /games", func(m tgemu.Message) bool { return m.Button("Chase") != "" })

			// The buttons of the text board play: a piece, where it goes, which exchange.
			n = e.LastID(user)
			e.Press(t, user, m, "A3")
			m = textBoard(n, "the board after A3", func(m tgemu.Message) bool { return strings.Contains(m.Text, "Chosen: <b>A3</b>") })
			n = e.LastID(user)
			e.Press(t, user, m, "A2")
			m = textBoard(n, "the board after A2", func(m tgemu.Message) bool { return m.Button("A3>A2:2") != "" })
			n = e.LastID(user)
			e.Press(t, user, m, "A3>A2:2")
			if bd := e.waitPly(t, id, 1); bd.Moves[0].Text != "A3>A2:2" {
				t.Errorf("played %q", bd.Moves[0].Text)
			}
			// The bot's answer comes as a text board too.
			e.waitPly(t, id, 2)
			textBoard(n, "the board after the bot's move", func(m tgemu.Message) bool { return strings.Contains(m.Text, "Your turn") })

			e.WaitIdle(t)
			var boards int
			for _, m := range e.BotMessages(user) {
				if strings.Contains(m.Text, "could not be sent") {
					boards++
				}
			}
			if boards != 1 {
				t.Errorf("%d text boards in the chat, want one, replaced at each change", boards)
			}
			if got := e.QueryInt(t, `SELECT count(*) FROM outbox WHERE chat_id = $1 AND method IN ('sendPhoto', 'editMessageMedia')
				AND attempts > 1`, user); got != 0 {
				t.Errorf("%d refused pictures were tried again", got)
			}
			if got := e.QueryInt(t, `SELECT count(*) FROM outbox WHERE chat_id = $1 AND status = 'failed'
				AND method IN ('sendPhoto', 'editMessageMedia')`, user); got < 4 {
				t.Errorf("%d refused pictures recorded, want one for each board shown", got)
			}
		})
	}
}
