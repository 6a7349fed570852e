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

// formulaSource is a quest whose formulas can fail: a starting value that divides by zero (P1),
// a location's choice of text that reads a parameter the quest lacks (L2) and its change by
// formula that divides by a range taking in zero (of P2), a jump's condition that does not parse
// (J2) and its change that divides by a `to` that takes in zero (of P1). The formulas that cannot
// fail (P2's start, J1's condition) give no warning. The player meets none of them before the
// second location, so the quest passes the upload's check.
const formulaSource = `{
	"header": 1111111127,
	"strings": {"ToStar": "", "ToPlanet": "", "Date": "", "Money": "", "FromPlanet": "", "FromStar": "", "Ranger": ""},
	"taskText": "Go.",
	"successText": "Well done.",
	"params": [
		{"min": 0, "max": 10, "type": 0, "critType": 0, "active": true, "showWhenZero": true, "name": "Fuel",
		 "showingInfo": [{"from": 0, "to": 10, "str": "Fuel: <>"}], "starting": "10 div 0"},
		{"min": 0, "max": 10, "type": 0, "critType": 0, "active": true, "showWhenZero": true, "name": "Gold",
		 "showingInfo": [{"from": 0, "to": 10, "str": "Gold: <>"}], "starting": "[1h3]"}
	],
	"locations": [
		{"id": 1, "locX": 1, "locY": 1, "isStarting": true, "texts": [{"text": "Start."}]},
		{"id": 2, "locX": 2, "locY": 1, "isTextByFormula": true, "textSelectFormula": "[p7] + 1",
		 "texts": [{"text": "On the way."}],
		 "paramsChanges": [{"p": 1, "change": 0, "showingType": 0, "isChangeFormula": true, "changingFormula": "[p2] mod [-1..1]"}]},
		{"id": 3, "locX": 3, "locY": 1, "isSuccess": true, "texts": [{"text": "Won."}]}
	],
	"jumps": [
		{"id": 1, "fromLocationId": 1, "toLocationId": 2, "priority": 1, "showingOrder": 1, "text": "Go", "description": "",
		 "formulaToPass": "[p1] >= [p2]"},
		{"id": 2, "fromLocationId": 2, "toLocationId": 3, "priority": 1, "showingOrder": 1, "text": "Win", "description": "",
		 "formulaToPass": "[p1] >",
		 "paramsChanges": [{"p": 0, "change": 0, "showingType": 0, "isChangeFormula": true, "changingFormula": "[p1] / (0 to 2)"}]}
	]
}`

// Ensure the checker warns of the formulas that can fail, each with its place, which formula of
// the place it is and what is wrong with it.
func TestLintFormulas(t *testing.T) {
	d, err := qmm.ReadJSON([]byte(formulaSource))
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
	var got []Warning
	for _, w := range Lint(q, func(string) bool { return true }) {
		switch w.Kind {
		case WarnFormulaSyntax, WarnNoSuchParam, WarnDivisionByZero:
			got = append(got, w)
		}
	}
	want := []Warning{
		{Kind: WarnDivisionByZero, Place: "P1", Formula: FormulaStart, Name: "10 div 0", Detail: "0"},
		{Kind: WarnNoSuchParam, Place: "L2", Formula: FormulaSelect, Name: "[p7] + 1", Detail: "p7"},
		{Kind: WarnDivisionByZero, Place: "L2", Formula: "P2", Name: "[p2] mod [-1..1]", Detail: "[-1..1]"},
		{Kind: WarnFormulaSyntax, Place: "J2", Formula: FormulaPass, Name: "[p1] >", Detail: "Expected value at 6", At: 7},
		{Kind: WarnDivisionByZero, Place: "J2", Formula: "P1", Name: "[p1] / (0 to 2)", Detail: "0 to 2"},
	}
	if !slices.Equal(got, want) {
		t.Errorf("warnings\n%+v\nwant\n%+v", got, want)
	}
}
