package board

import (
	"fmt"
	"time"
)

// ClockMode is how a time control measures the players' thinking time.
type ClockMode uint8

// The clock modes. Their rules are in the TimeControl documentation.
const (
	ClockNone ClockMode = iota
	ClockCorrespondence
	ClockFischer
	ClockByoyomi
	ClockSandglass
)

var clockModeNames = [...]string{"none", "correspondence", "fischer", "byoyomi", "sandglass"}

// String returns the mode's stable name, as stored ("none", "correspondence", "fischer",
// "byoyomi", "sandglass").
func (m ClockMode) String() string {
	if int(m) < len(clockModeNames) {
		return clockModeNames[m]
	}
	return fmt.Sprintf("ClockMode(%d)", m)
}

// ParseClockMode reads a mode by its stable name. Returns ErrInvalid for any other text.
func ParseClockMode(s string) (ClockMode, error) {
	for i, n := range clockModeNames {
		if n == s {
			return ClockMode(i), nil
		}
	}
	return 0, fmt.Errorf("%w: clock mode %q", ErrInvalid, s)
}

// maxClock bounds every duration of a time control, so that clock arithmetic never overflows
// and a typing slip in an operator's row cannot make a game last for years.
const maxClock = 30 * 24 * time.Hour

// ReminderLead is how long before a correspondence deadline the player to move is reminded
// (once per ply).
const ReminderLead = 2 * time.Hour

// ClockLead is how long before a clock of minutes runs out its player is reminded: a fifth of
// the main time, or a minute if that is more, but never more than a quarter of the main time,
// so that a game of a minute or two is not reminded from its start (a 1-minute game reminds
// at 15 s, a 3-minute one at 45 s, from 5 minutes on a minute, from 5 on a fifth). A reminder
// is for a player whose time runs low during a turn: it rings only when the turn began with
// more than the lead left (see NeedsClockReminder). boardpg's ClockLeadBoards writes the same
// rule in SQL.
func ClockLead(tc TimeControl) time.Duration {
	return max(tc.Main/5, min(time.Minute, tc.Main/4))
}

// NeedsClockReminder reports whether the player to move of b, a game with a clock of minutes,
// is due a reminder at now: less than ClockLead is left, some time is left, and the turn began
// with more than the lead (a player whose time was already low when the turn began was warned by
// the clock they saw, and is not rung every ply).
func (b *Board) NeedsClockReminder(now time.Time) bool {
	if b.Deadline.IsZero() {
		return false
	}
	lead, left := ClockLead(b.Control), b.Deadline.Sub(now)
	return left > 0 && left <= lead && b.Deadline.Sub(b.TurnStarted) > lead
}

// TimeControl is the time a player has to think, as the server enforces it. Clocks run in real
// time from the start of a player's turn (the start of the game, or the opponent's move),
// whether or not the player is looking; the deadline is a timestamp, and a move after it is a
// timeout. Per mode:
//
//   - ClockNone: no clock, no deadline.
//   - ClockCorrespondence: each move within PerMove of the turn's start.
//   - ClockFischer: each side starts with Main; the thinking time is taken from it, and
//     Extra (the increment) is added after every move made in time.
//   - ClockByoyomi: each side starts with Main; once it is used up, every move must be made
//     within Extra (the period). The deadline is the turn's start plus what is left of Main
//     plus Extra.
//   - ClockSandglass: each side starts with Main; the time a player thinks is taken from them
//     and given to the opponent.
type TimeControl struct {
	// Name is the catalogue name ("corr1d", ...), or empty for a control made up on the spot.
	Name string
	Mode ClockMode
	// Main is each side's initial time (Fischer, byo-yomi, sandglass).
	Main time.Duration
	// Extra is the Fischer increment or the byo-yomi period.
	Extra time.Duration
	// PerMove is the correspondence limit of one move.
	PerMove time.Duration
}

// Validate checks that the control's durations fit its mode: a positive PerMove for
// correspondence and nothing else; a positive Main for Fischer (with any Extra) and sandglass
// (without); a positive Extra for byo-yomi; none at all without a clock; all within maxClock.
// Returns ErrInvalid with the reason.
func (tc TimeControl) Validate() error {
	bad := func(why string) error { return fmt.Errorf("%w: time control %q: %s", ErrInvalid, tc.Name, why) }
	for _, d := range []time.Duration{tc.Main, tc.Extra, tc.PerMove} {
		if d < 0 || d > maxClock {
			return bad(fmt.Sprintf("duration %v outside 0..%v", d, maxClock))
		}
	}
	if len(tc.Name) > 32 {
		return bad("name longer than 32 bytes")
	}
	switch tc.Mode {
	case ClockNone:
		if tc.Main != 0 || tc.Extra != 0 || tc.PerMove != 0 {
			return bad("no durations without a clock")
		}
	case ClockCorrespondence:
		if tc.PerMove <= 0 || tc.Main != 0 || tc.Extra != 0 {
			return bad("correspondence needs only a time per move")
		}
	case ClockFischer:
		if tc.Main <= 0 || tc.PerMove != 0 {
			return bad("fischer needs a main time and an increment")
		}
	case ClockByoyomi:
		if tc.Extra <= 0 || tc.PerMove != 0 {
			return bad("byo-yomi needs a period")
		}
	case ClockSandglass:
		if tc.Main <= 0 || tc.Extra != 0 || tc.PerMove != 0 {
			return bad("sandglass needs only a main time")
		}
	default:
		return bad("unknown mode " + tc.Mode.String())
	}
	return nil
}

// budget returns how long the side to move may think from the start of its turn, given what
// is left of its main time; ok is false when the control sets no limit.
func (tc TimeControl) budget(clock time.Duration) (d time.Duration, ok bool) {
	switch tc.Mode {
	case ClockCorrespondence:
		return tc.PerMove, true
	case ClockFischer, ClockSandglass:
		return clock, true
	case ClockByoyomi:
		return clock + tc.Extra, true
	}
	return 0, false
}

// charge returns the main times of the mover and of its opponent after a move made in time
// that took spent.
func (tc TimeControl) charge(mover, other, spent time.Duration) (time.Duration, time.Duration) {
	switch tc.Mode {
	case ClockFischer:
		return mover - spent + tc.Extra, other
	case ClockByoyomi:
		return max(mover-spent, 0), other
	case ClockSandglass:
		return mover - spent, other + spent
	}
	return mover, other
}

// stop returns the main times of the side to move and of its opponent when the game ends
// during its turn, after thinking for spent: charged as a move would be, but without the
// Fischer increment (no move earned it), and never below zero.
func (tc TimeControl) stop(mover, other, spent time.Duration) (time.Duration, time.Duration) {
	switch tc.Mode {
	case ClockFischer, ClockByoyomi:
		return max(mover-spent, 0), other
	case ClockSandglass:
		spent = min(spent, mover)
		return mover - spent, other + spent
	}
	return mover, other
}

// running returns what is left of a main time after thinking for elapsed, as a clock shows
// it while the turn goes on.
func (tc TimeControl) running(clock, elapsed time.Duration) time.Duration {
	switch tc.Mode {
	case ClockFischer, ClockByoyomi, ClockSandglass:
		return max(clock-elapsed, 0)
	}
	return clock
}

// Controls returns the catalogue of standard time controls, by stable name, in menu order:
// "none" (no clock), "corr1d" and "corr3d" (correspondence, a day or three days a move) and
// "blitz10+5" (Fischer, 10 minutes and 5 seconds a move). Migration 012_board_games.sql seeds
// the same rows into the board_time_control table.
func Controls() []TimeControl {
	return []TimeControl{
		{Name: "none", Mode: ClockNone},
		{Name: "corr1d", Mode: ClockCorrespondence, PerMove: 24 * time.Hour},
		{Name: "corr3d", Mode: ClockCorrespondence, PerMove: 72 * time.Hour},
		{Name: "blitz10+5", Mode: ClockFischer, Main: 10 * time.Minute, Extra: 5 * time.Second},
	}
}

// ControlByName returns the standard control of that name. Returns ErrNotFound for any other
// name.
func ControlByName(name string) (TimeControl, error) {
	for _, tc := range Controls() {
		if tc.Name == name {
			return tc, nil
		}
	}
	return TimeControl{}, fmt.Errorf("%w: time control %q", ErrNotFound, name)
}
