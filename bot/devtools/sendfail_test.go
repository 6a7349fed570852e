package devtools_test

import (
	"strings"
	"testing"

	"github.com/questbot/questbot/bot/emulator/tgemu"
)

// Ensure /save tells the truth: what to do with the file travels as the file's caption, so it
// arrives with the file or not at all, and when Telegram refuses the file (here a 400 the
// emulator injects) the user is told that it was not sent, never asked to send back a file that
// never came. The refusal holds nothing else back: the next /save arrives.
func TestSaveRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	const player = 41
	e.user(player, "Pat", "pat", "en")
	e.hello(t, player)
	n := e.LastID(player)
	e.Send(t, player, "/quest cargo")
	e.screen(t, player, n)

	e.Bot.InjectFault(tgemu.Fault{Method: "sendDocument", ChatID: player, Code: 400})
	n = e.LastID(player)
	e.Send(t, player, "/save")
	notSent := e.WaitTextAfter(t, player, n, "was not sent")
	if !strings.Contains(notSent.Text, ".qsave") {
		t.Errorf("the notice does not name the file: %q", notSent.Text)
	}
	e.WaitIdle(t)
	for _, m := range e.BotMessages(player) {
		if m.ID > n && (m.Document != "" || strings.Contains(m.Text, "Send this file back")) {
			t.Errorf("after the refused /save the bot sent %+v", m)
		}
	}
	if got := e.Bot.Count("400"); got != 1 {
		t.Errorf("%d requests refused, want the one document", got)
	}

	n = e.LastID(player)
	e.Send(t, player, "/save")
	doc, _ := e.document(t, player, n, ".qsave")
	if !strings.Contains(doc.Text, "«Cargo run», quest number") || !strings.Contains(doc.Text, "Send this file back into this chat") {
		t.Errorf("the save's caption: %q", doc.Text)
	}
	e.WaitIdle(t)
	for _, m := range e.BotMessages(player) {
		if m.ID > n && m.ID != doc.ID {
			t.Errorf("besides the file, the bot sent %q", m.Text)
		}
	}
}
