package questfs

import (
	"bytes"
	"slices"
	"testing"

	"github.com/questbot/questbot/qmm"
)

// lintSource is a quest with what the checker warns of: the editor's default task, a location
// no jump reaches (4), a dead end (3), a parameter nothing uses (Dust) beside one a condition
// reads (Fuel) and one a text reads (Gold).
const lintSource = `{
	"header": 1111111127,
	"strings": {"ToStar": "", "ToPlanet": "", "Date": "", "Money": "", "FromPlanet": "", "FromStar": "", "Ranger": ""},
	"taskText": "Описание задания",
	"successText": "Well done.",
	"params": [
		{"min": 0, "max": 10, "type": 0, "critType": 0, "active": true, "showWhenZero": true, "name": "Fuel",
		 "showingInfo": [{"from": 0, "to": 10, "str": "Fuel: <>"}], "starting": "[3]"},
		{"min": 0, "max": 10, "type": 0, "critType": 0, "active": true, "showWhenZero": true, "name": "Dust",
		 "showingInfo": [{"from": 0, "to": 10, "str": "Dust: <>"}], "starting": "[3]"},
		{"min": 0, "max": 10, "type": 0, "critType": 0, "active": true, "showWhenZero": true, "name": "Gold",
		 "showingInfo": [{"from": 0, "to": 10, "str": "Gold: <>"}], "starting": "[3]"}
	],
	"locations": [
		{"id": 1, "locX": 1, "locY": 1, "isStarting": true, "texts": [{"text": "Start. You have [p3] gold."}]},
		{"id": 2, "locX": 2, "locY": 1, "isSuccess": true, "texts": [{"text": "Won."}]},
		{"id": 3, "locX": 3, "locY": 1, "texts": [{"text": "Stuck."}]},
		{"id": 4, "locX": 4, "locY": 1, "isFaily": true, "texts": [{"text": "Never."}]}
	],
	"jumps": [
		{"id": 1, "fromLocationId": 1, "toLocationId": 2, "priority": 1, "showingOrder": 1, "text": "Win", "description": "",
		 "paramsConditions": [{"p": 0, "mustFrom": 1, "mustTo": 10}]},
		{"id": 2, "fromLocationId": 1, "toLocationId": 3, "priority": 1, "showingOrder": 2, "text": "Wander", "description": ""}
	]
}`

// Ensure the checker names each place: the default task, the unreachable location, the dead
// end and the unused parameter, and nothing else.
func TestLint(t *testing.T) {
	d, err := qmm.ReadJSON([]byte(lintSource))
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := qmm.Encode(&b, d); err != nil {
		t.Fatal(err)
	}
	q, err := Check(b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	got := Lint(q, func(string) bool { return true })
	want := []Warning{{Kind: WarnDefaultText, Place: "task"}, {Kind: WarnUnreachable, Place: "L4"},
		{Kind: WarnDeadEnd, Place: "L3"}, {Kind: WarnUnusedParam, Place: "P2", Name: "Dust"}}
	if !slices.Equal(got, want) {
		t.Errorf("warnings %+v, want %+v", got, want)
	}
	if IsStub(got) {
		t.Error("a quest with jumps is taken for a stub")
	}
}
