package quest_test

import (
	"errors"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/questbot/questbot/qmm"
	"github.com/questbot/questbot/quest"
)

// develSource is a quest of three locations: from the dock (1) a jump into space (2) that needs
// at least 5 fuel, and one to wait (3); entering space burns a unit of fuel.
const develSource = `{
	"header": 1111111127,
	"strings": {"ToStar": "", "ToPlanet": "", "Date": "", "Money": "", "FromPlanet": "", "FromStar": "", "Ranger": ""},
	"taskText": "Fly.",
	"successText": "Done.",
	"params": [
		{"min": 0, "max": 10, "type": 0, "critType": 0, "active": true, "showWhenZero": true, "name": "Fuel",
		 "showingInfo": [{"from": 0, "to": 10, "str": "Fuel: <>"}], "starting": "[2]"}
	],
	"locations": [
		{"id": 1, "locX": 1, "locY": 1, "isStarting": true, "texts": [{"text": "Dock."}]},
		{"id": 2, "locX": 2, "locY": 1, "texts": [{"text": "Space."}],
		 "paramsChanges": [{"p": 0, "change": -1, "showingType": 0}]},
		{"id": 3, "locX": 3, "locY": 1, "texts": [{"text": "Waiting."}]}
	],
	"jumps": [
		{"id": 1, "fromLocationId": 1, "toLocationId": 2, "priority": 1, "showingOrder": 1, "text": "Fly", "description": "",
		 "paramsConditions": [{"p": 0, "mustFrom": 5, "mustTo": 10}]},
		{"id": 2, "fromLocationId": 1, "toLocationId": 3, "priority": 1, "showingOrder": 2, "text": "Wait", "description": ""},
		{"id": 3, "fromLocationId": 2, "toLocationId": 1, "priority": 1, "showingOrder": 1, "text": "Land", "description": ""},
		{"id": 4, "fromLocationId": 3, "toLocationId": 1, "priority": 1, "showingOrder": 1, "text": "Back", "description": ""}
	]
}`

func develQuest(t *testing.T) *quest.Quest {
	t.Helper()
	d, err := qmm.ReadJSON([]byte(develSource))
	if err != nil {
		t.Fatal(err)
	}
	q, err := quest.Compile(d)
	if err != nil {
		t.Fatal(err)
	}
	return q
}

// offered lists the ids of the jumps a state offers.
func offered(s quest.State) []int {
	var ids []int
	for _, o := range s.Jumps {
		ids = append(ids, o.ID)
	}
	return ids
}

// Ensure Reoffer offers the choices that a parameter set by hand opens (and closes), changing
// nothing else of the game, and leaves a screen that is not a location's as it is.
func TestReoffer(t *testing.T) {
	q := develQuest(t)
	task, err := q.Start("seed")
	if err != nil {
		t.Fatal(err)
	}
	if s, err := q.Reoffer(task, quest.Options{}); err != nil || !reflect.DeepEqual(s, task) {
		t.Errorf("Reoffer on the task: %v, changed %v", err, !reflect.DeepEqual(s, task))
	}
	dock, err := q.Perform(task, quest.JumpIAgree)
	if err != nil {
		t.Fatal(err)
	}
	if got := offered(dock); !slices.Equal(got, []int{2}) {
		t.Fatalf("the dock with 2 fuel offers %v, want [2]", got)
	}
	set := dock.Clone()
	set.Params[0] = 7
	again, err := q.Reoffer(set, quest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := offered(again); !slices.Equal(got, []int{1, 2}) {
		t.Errorf("the dock with 7 fuel offers %v, want [1 2]", got)
	}
	want := set.Clone()
	want.Jumps = again.Jumps
	if !reflect.DeepEqual(again, want) {
		t.Errorf("Reoffer changed more than the choices:\n%+v\nwant\n%+v", again, want)
	}
	if _, err := q.Perform(again, 1); err != nil {
		t.Errorf("the choice Reoffer offers cannot be taken: %v", err)
	}
	if _, err := q.Perform(set, 1); !errors.Is(err, quest.ErrNotAChoice) {
		t.Errorf("without Reoffer the jump is taken: %v", err)
	}
	set.Params[0] = 1
	if again, _ = q.Reoffer(set, quest.Options{}); !slices.Equal(offered(again), []int{2}) {
		t.Errorf("the dock with 1 fuel offers %v, want [2]", offered(again))
	}
}

// Ensure Goto enters a location as if arrived there (its changes made, its choices offered)
// from any screen, and refuses a location the quest does not have.
func TestGoto(t *testing.T) {
	q := develQuest(t)
	task, err := q.Start("seed")
	if err != nil {
		t.Fatal(err)
	}
	space, err := q.Goto(task, 2, quest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if space.Phase != quest.PhaseLocation || space.LocationID != 2 || space.Params[0] != 1 || !slices.Equal(offered(space), []int{3}) {
		t.Errorf("Goto 2: phase %v, location %d, fuel %d, choices %v", space.Phase, space.LocationID, space.Params[0], offered(space))
	}
	v, err := q.View(space, quest.DefaultPlayer(quest.English, time.Time{}))
	if err != nil || v.Text != "Space." {
		t.Errorf("the screen of location 2: %q, %v", v.Text, err)
	}
	back, err := q.Goto(space, 3, quest.Options{})
	if err != nil || back.LocationID != 3 || !slices.Equal(offered(back), []int{4}) {
		t.Errorf("Goto 3 from 2: location %d, choices %v, %v", back.LocationID, offered(back), err)
	}
	if s, err := q.Goto(space, 99, quest.Options{}); !errors.Is(err, quest.ErrNoLocation) || !reflect.DeepEqual(s, space) {
		t.Errorf("Goto 99: %v", err)
	}
}
