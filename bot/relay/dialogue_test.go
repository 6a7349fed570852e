package relay_test

import (
	"strings"
	"testing"
)

// Ensure a text an admin types where /news waits for a button (who gets the news) ends the
// dialogue with a message saying so, instead of becoming a broadcast to confirm; nothing is
// published, relayed or broadcast, and a press of the old menu is then stale.
func TestNewsTextWhereAButtonIsAwaited(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.cast(t)
	e.Send(t, alice, "/news")
	e.WaitText(t, alice, 0, "Write the news in English")
	e.Send(t, alice, "Big update tonight")
	e.WaitText(t, alice, 0, "Now the same in Russian")
	e.Send(t, alice, "Большое обновление вечером")
	menu := e.WaitText(t, alice, 0, "Who gets it?")
	e.Send(t, alice, "everybody")
	stopped := e.WaitText(t, alice, 0, "/news was waiting for you to press a button")
	if !strings.Contains(stopped.Text, "Send /news to start it again.") {
		t.Errorf("the message: %q", stopped.Text)
	}
	e.waitIdle(t)
	if n := e.CountText(alice, "Send it?"); n != 0 {
		t.Error("the text became a broadcast to confirm")
	}
	if n := e.QueryInt(t, `SELECT count(*) FROM news`) + e.QueryInt(t, `SELECT count(*) FROM broadcast`) +
		e.QueryInt(t, `SELECT count(*) FROM relay_message`); n != 0 {
		t.Errorf("%d rows of news, broadcasts or relayed messages, want none", n)
	}
	e.Press(t, alice, menu, "Everybody (mandatory)")
	e.waitIdle(t)
	if e.QueryInt(t, `SELECT count(*) FROM news`) != 0 || e.CountText(alice, "For how long") != 0 {
		t.Error("the old menu went on with the ended dialogue")
	}
	// The next text is an admin's text again: a broadcast to confirm.
	e.Send(t, alice, "Hello everyone")
	e.WaitText(t, alice, 0, "Send it?")
}
