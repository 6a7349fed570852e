package botpg

import (
	"slices"
	"testing"

	"github.com/questbot/questbot/bot"
)

// Ensure the edits of an inline message are queued under its own key, and a newer edit of it
// drops only the pending edits of the same inline message: not another inline message's sharing
// its state, nor a chat's.
func TestSupersedeInline(t *testing.T) {
	t.Parallel()
	s, pool, service := newStore(t)
	edit := func(id, label string) bot.Request {
		t.Helper()
		r, err := bot.EditInlineHTML(id, label, bot.Keyboard{{{Text: "Join", Data: "gi:j"}}})
		if err != nil {
			t.Fatal(err)
		}
		r.State = boardState
		return r
	}
	u := bot.LaneUpdates
	queue(t, s, service, edit("im1", "a1"))
	queue(t, s, service, edit("im2", "b1"))
	queue(t, s, service, boardEdit(t, 9, "chat"))
	queue(t, s, service, edit("im1", "a2"))
	if got, want := pending(t, pool, bot.InlineKey("im1")), []pendingRow{{u, "editMessageText", "a2", false}}; !slices.Equal(got, want) {
		t.Errorf("im1: %+v, want %+v", got, want)
	}
	if got, want := pending(t, pool, bot.InlineKey("im2")), []pendingRow{{u, "editMessageText", "b1", false}}; !slices.Equal(got, want) {
		t.Errorf("im2: %+v, want %+v", got, want)
	}
	if got := pending(t, pool, 9); len(got) != 1 {
		t.Errorf("the chat's edit: %+v", got)
	}
	// Two edits of one message in one transaction: the later covers the earlier.
	queue(t, s, service, edit("im5", "e1"), edit("im5", "e2"))
	if got, want := pending(t, pool, bot.InlineKey("im5")), []pendingRow{{u, "editMessageText", "e2", false}}; !slices.Equal(got, want) {
		t.Errorf("two edits in one transaction: %+v, want %+v", got, want)
	}
	// Two inline messages under one key (a collision of the hash) keep their own edits.
	a, b := edit("im3", "c1"), edit("im4", "d1")
	b.ChatID = a.ChatID
	queue(t, s, service, a)
	queue(t, s, service, b)
	if got := pending(t, pool, a.ChatID); len(got) != 2 {
		t.Errorf("two inline messages under one key: %+v, want both edits", got)
	}
}
