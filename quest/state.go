package quest

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
)

// Phase is where a game stands: the reference player's GameState.state.
type Phase uint8

// The phases of a game, with the reference's names.
const (
	// PhaseStarting shows the quest's task; the only choice is "I agree".
	PhaseStarting Phase = iota
	// PhaseLocation shows a location and its jumps.
	PhaseLocation
	// PhaseJump shows the description of the jump just taken; "Next" enters its target.
	PhaseJump
	// PhaseJumpAndNextCrit shows the description of a jump that made a parameter critical;
	// "Next" shows the critical message.
	PhaseJumpAndNextCrit
	// PhaseCritOnLocation shows a location whose changes made a parameter critical; "Next"
	// shows the critical message.
	PhaseCritOnLocation
	// PhaseCritOnLocationLastMessage shows the critical message of a location.
	PhaseCritOnLocationLastMessage
	// PhaseCritOnJump shows the critical message of a jump.
	PhaseCritOnJump
	// PhaseReturnedEnding shows the quest's success text: the game is won.
	PhaseReturnedEnding
)

var phaseNames = [...]string{
	PhaseStarting:                  "starting",
	PhaseLocation:                  "location",
	PhaseJump:                      "jump",
	PhaseJumpAndNextCrit:           "jumpandnextcrit",
	PhaseCritOnLocation:            "critonlocation",
	PhaseCritOnLocationLastMessage: "critonlocationlastmessage",
	PhaseCritOnJump:                "critonjump",
	PhaseReturnedEnding:            "returnedending",
}

// String returns the reference's name of the phase, such as "critonlocation".
func (p Phase) String() string {
	if int(p) < len(phaseNames) {
		return phaseNames[p]
	}
	return "phase(" + strconv.Itoa(int(p)) + ")"
}

// ParsePhase returns the phase with the reference's name s.
func ParsePhase(s string) (Phase, error) {
	for i, n := range phaseNames {
		if n == s {
			return Phase(i), nil
		}
	}
	return 0, fmt.Errorf("quest: unknown phase %q", s)
}

// MarshalText encodes the phase as its name.
func (p Phase) MarshalText() ([]byte, error) {
	if int(p) >= len(phaseNames) {
		return nil, fmt.Errorf("quest: invalid phase %d", p)
	}
	return []byte(phaseNames[p]), nil
}

// UnmarshalText decodes a phase name.
func (p *Phase) UnmarshalText(b []byte) error {
	v, err := ParsePhase(string(b))
	if err != nil {
		return err
	}
	*p = v
	return nil
}

// NoCrit is the value of [State.CritParam] when no parameter is critical.
const NoCrit = -1

// State is a game in progress: plain data that the caller stores between actions. It
// serialises to compact JSON and restores exactly (the PRNG state included). A State is a value:
// [Quest.Perform] never modifies the State it is given, so old states stay valid.
type State struct {
	// Seed is the seed the game was started with; with the list of actions it rebuilds the game
	// (Quest.replay).
	Seed string `json:"seed"`
	// Phase is where the game stands.
	Phase Phase `json:"state"`
	// LocationID is the id of the current location (the starting one before the first action;
	// during PhaseJump the location the jump left).
	LocationID int `json:"loc"`
	// LastJumpID is the id of the last jump taken, valid when HasLastJump.
	LastJumpID  int  `json:"lastJump,omitempty"`
	HasLastJump bool `json:"hasLastJump,omitempty"`
	// CritParam is the 0-based index of the parameter that became critical, or NoCrit.
	CritParam int `json:"crit"`
	// Days is the number of days passed.
	Days int `json:"days,omitempty"`
	// Params are the parameter values, one per quest parameter.
	Params []int `json:"params"`
	// Shown tells for each parameter whether it is shown.
	Shown Flags `json:"shown"`
	// Jumps are the jumps the current location offers, in display order.
	Jumps []JumpOption `json:"jumps,omitempty"`
	// Jumped counts how often each jump (by id) was taken. Only jumps whose use is limited are
	// counted: no other count is ever read.
	Jumped Counts `json:"jumped,omitempty"`
	// Visits counts how often each location (by id) was entered. Only locations whose
	// behaviour depends on it are counted: those with a visit limit and those that cycle
	// through several texts. (The reference counts every location, from 0 on the first visit:
	// its count is one less than this one, and absent for a location never entered.)
	Visits Counts `json:"visits,omitempty"`
	// Image, Track and Sound are the current media names, "" for none.
	Image string `json:"img,omitempty"`
	Track string `json:"track,omitempty"`
	Sound string `json:"sound,omitempty"`
	// Alea is the state of the game's PRNG (formula/alea), [s0, s1, s2, c].
	Alea [4]float64 `json:"alea"`
}

// JumpOption is a jump offered by the current location and whether it can be taken.
type JumpOption struct {
	ID     int  `json:"id"`
	Active bool `json:"on,omitempty"`
}

// Clone returns a deep copy of s.
func (s State) Clone() State {
	s.Params = slices.Clone(s.Params)
	s.Shown = slices.Clone(s.Shown)
	s.Jumps = slices.Clone(s.Jumps)
	s.Jumped = slices.Clone(s.Jumped)
	s.Visits = slices.Clone(s.Visits)
	return s
}

// Flags is a list of booleans, encoded in JSON as a string of '0' and '1' to stay compact.
type Flags []bool

// MarshalJSON encodes the flags as a string such as "1101".
func (f Flags) MarshalJSON() ([]byte, error) {
	b := make([]byte, 0, len(f)+2)
	b = append(b, '"')
	for _, v := range f {
		if v {
			b = append(b, '1')
		} else {
			b = append(b, '0')
		}
	}
	return append(b, '"'), nil
}

// UnmarshalJSON decodes a string of '0' and '1'.
func (f *Flags) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	out := make(Flags, len(s))
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '0':
		case '1':
			out[i] = true
		default:
			return fmt.Errorf("quest: invalid flag %q", s[i])
		}
	}
	*f = out
	return nil
}

// Count is one entry of [Counts].
type Count struct {
	ID int // jump or location id
	N  int // the count
}

// Counts is a sparse map from ids to counts, sorted by id. An id that is absent has count 0.
// In JSON it is a flat array [id, n, id, n, ...].
type Counts []Count

// get returns the count of id.
func (c Counts) get(id int) int {
	if i, ok := c.find(id); ok {
		return c[i].N
	}
	return 0
}

// find returns where id is, or where it would be inserted, by binary search.
func (c Counts) find(id int) (int, bool) {
	return slices.BinarySearchFunc(c, id, func(e Count, id int) int { return cmp.Compare(e.ID, id) })
}

// inc adds one to the count of id, in place when id is present.
func (c Counts) inc(id int) Counts {
	lo, ok := c.find(id)
	if ok {
		c[lo].N++
		return c
	}
	return slices.Insert(c, lo, Count{ID: id, N: 1})
}

// MarshalJSON encodes the counts as [id, n, id, n, ...].
func (c Counts) MarshalJSON() ([]byte, error) {
	b := make([]byte, 0, 8*len(c)+2)
	b = append(b, '[')
	for i, e := range c {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(e.ID), 10)
		b = append(b, ',')
		b = strconv.AppendInt(b, int64(e.N), 10)
	}
	return append(b, ']'), nil
}

// UnmarshalJSON decodes [id, n, id, n, ...]; the ids must be increasing.
func (c *Counts) UnmarshalJSON(b []byte) error {
	var flat []int
	if err := json.Unmarshal(b, &flat); err != nil {
		return err
	}
	if len(flat)%2 != 0 {
		return fmt.Errorf("quest: counts: odd number of values")
	}
	out := make(Counts, len(flat)/2)
	for i := range out {
		out[i] = Count{ID: flat[2*i], N: flat[2*i+1]}
		if i > 0 && out[i].ID <= out[i-1].ID {
			return fmt.Errorf("quest: counts: ids not increasing")
		}
	}
	*c = out
	return nil
}
