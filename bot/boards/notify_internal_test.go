package boards

import (
	"testing"
	"time"

	"github.com/questbot/questbot/sessions/board"
)

// Ensure the delay of a notification is the user's choice, and by default the game's clock's:
// at once without a clock and with a clock of minutes, 15 minutes for correspondence.
func TestNotifyDelay(t *testing.T) {
	t.Parallel()
	controls := map[string]board.TimeControl{}
	for _, tc := range board.Controls() {
		controls[tc.Name] = tc
	}
	for _, c := range []struct {
		delay, control string
		want           time.Duration
		never          bool
	}{
		{"", "none", 0, false},
		{"", "blitz10+5", 0, false},
		{"", "corr1d", 15 * time.Minute, false},
		{"", "corr3d", 15 * time.Minute, false},
		{"now", "corr3d", 0, false},
		{"15m", "none", 15 * time.Minute, false},
		{"1h", "blitz10+5", time.Hour, false},
		{"never", "corr1d", 0, true},
	} {
		tc, ok := controls[c.control]
		if !ok {
			t.Fatalf("no control %q", c.control)
		}
		got, never := after(board.NotifySetting{Delay: c.delay}, tc)
		if got != c.want || never != c.never {
			t.Errorf("delay %q, %s: got %v never %v, want %v never %v", c.delay, c.control, got, never, c.want, c.never)
		}
	}
}

// Ensure quiet hours hold a notification until their end, in the user's UTC offset, across
// midnight too, and let it through outside them.
func TestQuietUntil(t *testing.T) {
	t.Parallel()
	at := func(s string) time.Time {
		v, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	for _, c := range []struct {
		name    string
		set     board.NotifySetting
		t, want string
	}{
		{"none", board.NotifySetting{}, "2026-11-25T23:30:00Z", "2026-11-25T23:30:00Z"},
		{"before midnight", board.NotifySetting{Quiet: true, From: 23, To: 8}, "2026-11-25T23:30:00Z", "2026-11-26T08:00:00Z"},
		{"after midnight", board.NotifySetting{Quiet: true, From: 23, To: 8}, "2026-11-26T03:10:00Z", "2026-11-26T08:00:00Z"},
		{"the end itself", board.NotifySetting{Quiet: true, From: 23, To: 8}, "2026-11-26T08:00:00Z", "2026-11-26T08:00:00Z"},
		{"outside", board.NotifySetting{Quiet: true, From: 23, To: 8}, "2026-11-26T12:00:00Z", "2026-11-26T12:00:00Z"},
		{"same day", board.NotifySetting{Quiet: true, From: 1, To: 6}, "2026-11-26T05:59:00Z", "2026-11-26T06:00:00Z"},
		// UTC+3: 21:30 UTC is 00:30 local, quiet until 08:00 local, 05:00 UTC.
		{"offset east", board.NotifySetting{Quiet: true, From: 23, To: 8, Offset: 180}, "2026-11-25T21:30:00Z", "2026-11-26T05:00:00Z"},
		// UTC-5: 23:30 UTC is 18:30 local, not quiet.
		{"offset west", board.NotifySetting{Quiet: true, From: 23, To: 8, Offset: -300}, "2026-11-25T23:30:00Z", "2026-11-25T23:30:00Z"},
	} {
		if got := quietUntil(c.set, at(c.t)); !got.Equal(at(c.want)) {
			t.Errorf("%s: %s → %s, want %s", c.name, c.t, got.UTC().Format(time.RFC3339), c.want)
		}
	}
}
