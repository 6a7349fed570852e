package questpg

import (
	"encoding/json"
	"reflect"
	"strconv"
	"testing"

	"github.com/questbot/questbot/quest"
)

// Ensure the SQL bound of credits is maxCredits.
func TestMaxCreditsSQL(t *testing.T) {
	if strconv.Itoa(maxCredits) != maxCreditsSQL {
		t.Errorf("maxCreditsSQL %s, MaxCredits %d", maxCreditsSQL, maxCredits)
	}
}

// Ensure a state survives the stored form exactly, through the current document and through
// the older version 0 (the quest player's own encoding) that rows written before it still hold.
func TestStateVersions(t *testing.T) {
	st := quest.State{Seed: "abc", Phase: quest.PhaseCritOnJump, LocationID: 17, LastJumpID: 4, HasLastJump: true,
		CritParam: 2, Days: 3, Params: []int{5, -7, 0}, Shown: quest.Flags{true, false, true},
		Jumps: []quest.JumpOption{{ID: 4, Active: true}, {ID: 9}}, Jumped: quest.Counts{{ID: 4, N: 2}},
		Visits: quest.Counts{{ID: 1, N: 1}, {ID: 17, N: 3}}, Image: "ship.png", Track: "t", Sound: "s",
		Alea: [4]float64{0.1234567890123, 0.5, 0.75, 1}}
	phase, loc, doc, err := encodeState(&st)
	if err != nil {
		t.Fatal(err)
	}
	if phase != "critonjump" || loc != 17 {
		t.Errorf("columns %q %d", phase, loc)
	}
	got, err := decodeState(stateVersion, phase, loc, doc)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, st) {
		t.Errorf("v1 round trip:\n got %+v\nwant %+v", got, st)
	}
	legacy, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	got, err = decodeState(0, phase, loc, legacy)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, st) {
		t.Errorf("v0:\n got %+v\nwant %+v", got, st)
	}
	// A fresh game: no last jump, nothing counted.
	fresh := quest.State{Seed: "s", Phase: quest.PhaseStarting, CritParam: quest.NoCrit, Params: []int{}, Shown: quest.Flags{}}
	_, _, doc, _ = encodeState(&fresh)
	got, err = decodeState(stateVersion, "starting", 0, doc)
	if err != nil || !reflect.DeepEqual(got, fresh) {
		t.Errorf("fresh: %+v, %v", got, err)
	}
	for _, bad := range []struct {
		version int
		phase   string
		doc     string
	}{
		{2, "location", `{}`},
		{1, "nowhere", `{"params": []}`},
		{1, "location", `{"shown": "012"}`},
		{1, "location", `{"jumped": [1, 2, 3]}`},
		{1, "location", `{"visits": [5, 1, 4, 1]}`},
		{1, "location", `not json`},
		{0, "location", `{"state": "nowhere"}`},
	} {
		if _, err := decodeState(bad.version, bad.phase, 1, []byte(bad.doc)); err == nil {
			t.Errorf("version %d %q %s: decoded", bad.version, bad.phase, bad.doc)
		}
	}
}
