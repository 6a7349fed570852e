package telegram

import (
	"errors"
	"testing"

	"github.com/questbot/questbot/sessions/board"
)

// Ensure /notify's buttons change what they say and nothing else, and forged data is refused.
func TestNotifyPress(t *testing.T) {
	t.Parallel()
	base := board.NotifySetting{Delay: "1h", Quiet: true, From: 22, To: 7, Offset: 60}
	for _, c := range []struct {
		data string
		want board.NotifySetting
	}{
		{"g:n:dnow", board.NotifySetting{Delay: "now", Quiet: true, From: 22, To: 7, Offset: 60}},
		{"g:n:dnever", board.NotifySetting{Delay: "never", Quiet: true, From: 22, To: 7, Offset: 60}},
		{"g:n:d", board.NotifySetting{Quiet: true, From: 22, To: 7, Offset: 60}},
		{"g:n:q", board.NotifySetting{Delay: "1h", Offset: 60}},
		{"g:n:q23-8", board.NotifySetting{Delay: "1h", Quiet: true, From: 23, To: 8, Offset: 60}},
		{"g:n:o+", board.NotifySetting{Delay: "1h", Quiet: true, From: 22, To: 7, Offset: 120}},
		{"g:n:o-", board.NotifySetting{Delay: "1h", Quiet: true, From: 22, To: 7, Offset: 0}},
	} {
		got, err := parseNotifyPress(c.data, base)
		if err != nil || got != c.want {
			t.Errorf("%s: %+v, %v; want %+v", c.data, got, err, c.want)
		}
	}
	if got, _ := parseNotifyPress("g:n:o+", board.NotifySetting{Offset: maxOffset}); got.Offset != maxOffset {
		t.Errorf("the offset went past %d: %d", maxOffset, got.Offset)
	}
	for _, data := range []string{"g:n:", "g:n:d2h", "g:n:q1-2", "g:n:o", "g:n:x", "g:1:0:v"} {
		if got, err := parseNotifyPress(data, base); !errors.Is(err, errForged) || got != base {
			t.Errorf("%s: %+v, %v; want it refused, unchanged", data, got, err)
		}
	}
}
