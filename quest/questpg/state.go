package questpg

import (
	"encoding/json"
	"fmt"

	"github.com/questbot/questbot/quest"
)

// # The stored state
//
// A game's quest.State is kept in three parts: its phase and location in columns (what other
// code may ask about: where a player is), and everything else in a JSON document whose shape is
// this file's, not the quest player's. The document carries a version (the state_version
// column): a change of its shape is a new version, and decode keeps reading the older ones, so a
// game saved before the change plays on after it.
//
//   - Version 0: the quest player's own JSON encoding of quest.State, as rows were written
//     before the document existed (they are rewritten as the current version at their next step).
//   - Version 1: stateDocV1.

// stateVersion is the version of the documents encode writes.
const stateVersion = 1

// stateDocV1 is version 1 of the document: the state less its phase and location.
type stateDocV1 struct {
	Seed string `json:"seed"`
	// LastJump is the id of the last jump taken, absent before the first.
	LastJump *int `json:"last_jump,omitempty"`
	// Crit is the 0-based index of the parameter that became critical, -1 for none.
	Crit   int   `json:"crit"`
	Days   int   `json:"days,omitempty"`
	Params []int `json:"params"`
	// Shown has a '1' for each shown parameter, a '0' for each hidden one.
	Shown string `json:"shown"`
	// Jumps are the jumps the location offers, in order: [id, 1 when it can be taken].
	Jumps [][2]int `json:"jumps,omitempty"`
	// Jumped and Visits are counts by id, flat: [id, n, id, n, …].
	Jumped []int      `json:"jumped,omitempty"`
	Visits []int      `json:"visits,omitempty"`
	Image  string     `json:"image,omitempty"`
	Track  string     `json:"track,omitempty"`
	Sound  string     `json:"sound,omitempty"`
	Alea   [4]float64 `json:"alea"`
}

// encodeState returns the columns and the document of a state.
func encodeState(st *quest.State) (phase string, location int, doc []byte, err error) {
	d := stateDocV1{Seed: st.Seed, Crit: st.CritParam, Days: st.Days, Params: st.Params, Image: st.Image,
		Track: st.Track, Sound: st.Sound, Alea: st.Alea}
	if d.Params == nil {
		d.Params = []int{}
	}
	if st.HasLastJump {
		j := st.LastJumpID
		d.LastJump = &j
	}
	shown := make([]byte, len(st.Shown))
	for i, v := range st.Shown {
		shown[i] = '0'
		if v {
			shown[i] = '1'
		}
	}
	d.Shown = string(shown)
	for _, j := range st.Jumps {
		on := 0
		if j.Active {
			on = 1
		}
		d.Jumps = append(d.Jumps, [2]int{j.ID, on})
	}
	d.Jumped, d.Visits = flatCounts(st.Jumped), flatCounts(st.Visits)
	doc, err = json.Marshal(d)
	if err != nil {
		return "", 0, nil, fmt.Errorf("encode state: %w", err)
	}
	return st.Phase.String(), st.LocationID, doc, nil
}

func flatCounts(c quest.Counts) []int {
	if len(c) == 0 {
		return nil
	}
	out := make([]int, 0, 2*len(c))
	for _, e := range c {
		out = append(out, e.ID, e.N)
	}
	return out
}

func countsOf(flat []int) (quest.Counts, error) {
	if len(flat)%2 != 0 {
		return nil, fmt.Errorf("counts: odd number of values")
	}
	if len(flat) == 0 {
		return nil, nil
	}
	out := make(quest.Counts, len(flat)/2)
	for i := range out {
		out[i] = quest.Count{ID: flat[2*i], N: flat[2*i+1]}
		if i > 0 && out[i].ID <= out[i-1].ID {
			return nil, fmt.Errorf("counts: ids not increasing")
		}
	}
	return out, nil
}

// decodeState rebuilds a state from its columns and its document of the given version.
func decodeState(version int, phase string, location int, doc []byte) (quest.State, error) {
	var st quest.State
	switch version {
	case 0:
		if err := json.Unmarshal(doc, &st); err != nil {
			return st, fmt.Errorf("decode state v0: %w", err)
		}
		return st, nil
	case 1:
	default:
		return st, fmt.Errorf("decode state: unknown version %d", version)
	}
	var d stateDocV1
	if err := json.Unmarshal(doc, &d); err != nil {
		return st, fmt.Errorf("decode state v1: %w", err)
	}
	p, err := quest.ParsePhase(phase)
	if err != nil {
		return st, fmt.Errorf("decode state v1: %w", err)
	}
	st = quest.State{Seed: d.Seed, Phase: p, LocationID: location, CritParam: d.Crit, Days: d.Days, Params: d.Params,
		Image: d.Image, Track: d.Track, Sound: d.Sound, Alea: d.Alea}
	if d.LastJump != nil {
		st.LastJumpID, st.HasLastJump = *d.LastJump, true
	}
	st.Shown = make(quest.Flags, len(d.Shown))
	for i := 0; i < len(d.Shown); i++ {
		switch d.Shown[i] {
		case '0':
		case '1':
			st.Shown[i] = true
		default:
			return st, fmt.Errorf("decode state v1: shown: invalid flag %q", d.Shown[i])
		}
	}
	for _, j := range d.Jumps {
		st.Jumps = append(st.Jumps, quest.JumpOption{ID: j[0], Active: j[1] != 0})
	}
	if st.Jumped, err = countsOf(d.Jumped); err != nil {
		return st, fmt.Errorf("decode state v1: jumped: %w", err)
	}
	if st.Visits, err = countsOf(d.Visits); err != nil {
		return st, fmt.Errorf("decode state v1: visits: %w", err)
	}
	return st, nil
}
