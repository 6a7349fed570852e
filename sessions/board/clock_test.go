package board

import (
	"errors"
	"testing"
	"time"
)

func TestTimeControlValidate(t *testing.T) {
	tests := []struct {
		tc TimeControl
		ok bool
	}{
		{TimeControl{}, true},
		{TimeControl{Mode: ClockNone, Main: time.Minute}, false},
		{TimeControl{Mode: ClockCorrespondence, PerMove: time.Hour}, true},
		{TimeControl{Mode: ClockCorrespondence}, false},
		{TimeControl{Mode: ClockCorrespondence, PerMove: time.Hour, Main: time.Hour}, false},
		{TimeControl{Mode: ClockFischer, Main: time.Minute}, true},
		{TimeControl{Mode: ClockFischer, Main: time.Minute, Extra: time.Second}, true},
		{TimeControl{Mode: ClockFischer, Extra: time.Second}, false},
		{TimeControl{Mode: ClockFischer, Main: -time.Minute}, false},
		{TimeControl{Mode: ClockByoyomi, Extra: 20 * time.Second}, true},
		{TimeControl{Mode: ClockByoyomi, Main: 30 * time.Minute, Extra: 20 * time.Second}, true},
		{TimeControl{Mode: ClockByoyomi, Main: 30 * time.Minute}, false},
		{TimeControl{Mode: ClockSandglass, Main: 5 * time.Minute}, true},
		{TimeControl{Mode: ClockSandglass, Main: 5 * time.Minute, Extra: time.Second}, false},
		{TimeControl{Mode: ClockSandglass, Main: maxClock + 1}, false},
		{TimeControl{Mode: 42, Main: time.Minute}, false},
		{TimeControl{Name: "a name far too long to be a time control's name", Mode: ClockNone}, false},
	}
	for _, tt := range tests {
		err := tt.tc.Validate()
		if tt.ok && err != nil {
			t.Errorf("%+v: %v", tt.tc, err)
		}
		if !tt.ok && !errors.Is(err, ErrInvalid) {
			t.Errorf("%+v: %v, want ErrInvalid", tt.tc, err)
		}
	}
}

func TestControls(t *testing.T) {
	names := map[string]bool{}
	for _, tc := range Controls() {
		if err := tc.Validate(); err != nil {
			t.Errorf("%s: %v", tc.Name, err)
		}
		if names[tc.Name] {
			t.Errorf("%s twice", tc.Name)
		}
		names[tc.Name] = true
		got, err := ControlByName(tc.Name)
		if err != nil || got != tc {
			t.Errorf("ControlByName(%q) = %+v, %v", tc.Name, got, err)
		}
	}
	for _, n := range []string{"none", "corr1d", "corr3d", "blitz10+5"} {
		if !names[n] {
			t.Errorf("no %s in the catalogue", n)
		}
	}
	if _, err := ControlByName("bullet"); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown control: %v, want ErrNotFound", err)
	}
	for m := ClockNone; m <= ClockSandglass; m++ {
		if got, err := ParseClockMode(m.String()); err != nil || got != m {
			t.Errorf("mode %v: parsed %v, %v", m, got, err)
		}
	}
}

func TestClockArithmetic(t *testing.T) {
	const s = time.Second
	tests := []struct {
		tc                 TimeControl
		clock, spent, opp  time.Duration
		budget             time.Duration
		limited            bool
		wantMover, wantOpp time.Duration
	}{
		{TimeControl{}, 0, 10 * s, 0, 0, false, 0, 0},
		{TimeControl{Mode: ClockCorrespondence, PerMove: 100 * s}, 0, 10 * s, 0, 100 * s, true, 0, 0},
		{TimeControl{Mode: ClockFischer, Main: 60 * s, Extra: 2 * s}, 60 * s, 10 * s, 60 * s, 60 * s, true, 52 * s, 60 * s},
		{TimeControl{Mode: ClockByoyomi, Main: 60 * s, Extra: 5 * s}, 3 * s, 7 * s, 60 * s, 8 * s, true, 0, 60 * s},
		{TimeControl{Mode: ClockByoyomi, Main: 60 * s, Extra: 5 * s}, 30 * s, 7 * s, 60 * s, 35 * s, true, 23 * s, 60 * s},
		{TimeControl{Mode: ClockSandglass, Main: 60 * s}, 40 * s, 10 * s, 80 * s, 40 * s, true, 30 * s, 90 * s},
	}
	for _, tt := range tests {
		d, ok := tt.tc.budget(tt.clock)
		if d != tt.budget || ok != tt.limited {
			t.Errorf("%v: budget %v %v, want %v %v", tt.tc.Mode, d, ok, tt.budget, tt.limited)
		}
		m, o := tt.tc.charge(tt.clock, tt.opp, tt.spent)
		if m != tt.wantMover || o != tt.wantOpp {
			t.Errorf("%v: charge %v %v, want %v %v", tt.tc.Mode, m, o, tt.wantMover, tt.wantOpp)
		}
	}
}

// A clock of minutes reminds its player when the time falls under the lead during a turn: a
// 1-minute game at 15 s (not from its start, as a lead of a minute would), a 10-minute one at 2
// minutes; a turn that began under the lead rings nothing.
func TestNeedsClockReminder(t *testing.T) {
	const s = time.Second
	start := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		main, atStart, left time.Duration
		want                bool
	}{
		{60 * s, 60 * s, 59 * s, false},
		{60 * s, 60 * s, 52 * s, false},
		{60 * s, 60 * s, 15 * s, true},
		{60 * s, 60 * s, 16 * s, false},
		{60 * s, 14 * s, 5 * s, false},
		{60 * s, 60 * s, 0, false},
		{3 * 60 * s, 3 * 60 * s, 45 * s, true},
		{3 * 60 * s, 3 * 60 * s, 50 * s, false},
		{5 * 60 * s, 4 * 60 * s, 60 * s, true},
		{10 * 60 * s, 10 * 60 * s, 121 * s, false},
		{10 * 60 * s, 10 * 60 * s, 120 * s, true},
		{10 * 60 * s, 100 * s, 50 * s, false},
	}
	for _, tt := range tests {
		b := &Board{Control: TimeControl{Mode: ClockFischer, Main: tt.main}, TurnStarted: start, Deadline: start.Add(tt.atStart)}
		now := b.Deadline.Add(-tt.left)
		if got := b.NeedsClockReminder(now); got != tt.want {
			t.Errorf("main %v, %v at the turn's start, %v left: %v, want %v", tt.main, tt.atStart, tt.left, got, tt.want)
		}
	}
}
