package devtools_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/questbot/questbot/bot/devtools"
	"github.com/questbot/questbot/qmm"
	"github.com/questbot/questbot/quest"
)

// gameRow reads a user's game: its state, whether it is a sandbox, its script.
func (e *env) gameRow(t *testing.T, user int64) (st quest.State, sandbox bool, script int64) {
	t.Helper()
	g := e.Game(t, e.service, user)
	if g == nil {
		t.Fatalf("user %d plays no game", user)
	}
	return g.State, g.Sandbox, g.Script.ID
}

// Ensure the developer commands on a running game: /load runs a quest of the catalogue as a
// sandbox; /show answers in the chat; /set changes the sandbox game within bounds (and refuses
// a counted one); /calc evaluates with the game's parameters; /dump, /write and /save send
// documents that decode; a save uploaded back restores the game exactly, and a save of the
// original bot's binary format enters its location with its values.
func TestDeveloperCommands(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	ctx := context.Background()
	const dev = 40
	e.user(dev, "Dev", "dev", "en")
	e.hello(t, dev)
	e.makeDeveloper(t, dev)
	var cargo int64
	e.Pool.QueryRow(ctx, `SELECT id FROM script WHERE file = 'cargo-run_en.qmm'`).Scan(&cargo)

	e.ask(t, dev, "/show id", "No quest is running.")
	e.ask(t, dev, "/set p1 1", "No quest is running.")
	e.ask(t, dev, "/dump", "No quest is running.")
	e.ask(t, dev, "/save", "there is nothing to save")
	e.ask(t, dev, "/calc [p1]", "The formula fails: Parameter p1 is not defined")
	e.ask(t, dev, "/calc 2 + 3 * 4", "<code>2 + 3 * 4</code> = <b>14</b>")
	e.ask(t, dev, "/load nothing-like-this", "There is no quest «nothing-like-this» you can open.")

	// A quest whose file is gone is named, not started, and its path is not told.
	e.Exec(t, `INSERT INTO script (name, common_name, file, language) VALUES ('Lost', 'lost', 'lost.qmm', 'en')`)
	lost := e.ask(t, dev, "/load lost", "«Lost»")
	if !strings.Contains(lost.Text, "cannot start: its file cannot be read") || strings.Contains(lost.Text, e.root) {
		t.Errorf("/load of a missing file: %q", lost.Text)
	}

	n := e.LastID(dev)
	e.Send(t, dev, "/load Cargo run")
	e.WaitTextAfter(t, dev, n, fmt.Sprintf("«Cargo run» (#%d) runs as a sandbox", cargo))
	task := e.screen(t, dev, n)
	e.ask(t, dev, "/show id", "Location <b>1</b> (phase starting, step 0) of «Cargo run»")
	n = e.LastID(dev)
	e.Press(t, dev, task, "I agree")
	e.screen(t, dev, n)
	e.ask(t, dev, "/show id", "a sandbox game")
	params := e.ask(t, dev, "/show params", "Parameters of «Cargo run»:")
	for _, want := range []string{"<pre>", "Fuel", "[0..10]", "p2", "money", "Belt roll"} {
		if !strings.Contains(params.Text, want) {
			t.Errorf("/show params lacks %q:\n%s", want, params.Text)
		}
	}
	jumps := e.ask(t, dev, "/show jumps", "Jumps from location 1:")
	for _, want := range []string{"#1 → 1 (offered", "#2 → 2 (offered): Undock and set off"} {
		if !strings.Contains(jumps.Text, want) {
			t.Errorf("/show jumps lacks %q:\n%s", want, jumps.Text)
		}
	}
	e.ask(t, dev, "/show location", "Location <b>1</b>, starting.\n\n<b>Text 1:</b>\nYou are docked at the station.")
	e.ask(t, dev, "/show everything", "/show id — the location")
	e.ask(t, dev, "/show", "/show id — the location")

	// /set, within bounds, and the screen shown again.
	before := e.lastScreen(t, dev)
	n = e.LastID(dev)
	e.Send(t, dev, "/set p1 7")
	e.WaitTextAfter(t, dev, n, "p1 (Fuel) is now 7.")
	e.WaitTextAfter(t, dev, n, "Fuel: <b>7</b> units")
	e.ask(t, dev, "/set p1 11", "p1 (Fuel) must be between 0 and 10.")
	e.ask(t, dev, "/set p9 1", "This quest has no parameter p9.")
	e.ask(t, dev, "/set p1 seven", "«seven» is not a whole number.")
	e.ask(t, dev, "/set Money 1234", "Money, p2 (Money) is now 1234.")
	e.ask(t, dev, "/set Ranger Zed", "Ranger is now Zed.")
	e.ask(t, dev, "/set Ranger "+strings.Repeat("z", 40), "A name is 1 to 32 characters")
	e.ask(t, dev, "/set p1", "Usage: /set")
	e.ask(t, dev, "/set colour red", "Usage: /set")
	st, sandbox, _ := e.gameRow(t, dev)
	if !sandbox || st.Params[0] != 7 || st.Params[1] != 1234 {
		t.Errorf("after /set: sandbox %v, params %v", sandbox, st.Params)
	}
	// The buttons shown before the change are stale.
	e.Press(t, dev, before, "Undock and set off")
	e.WaitIdle(t)
	if st, _, _ := e.gameRow(t, dev); st.LocationID != 1 {
		t.Errorf("a button of the screen before /set moved the game to location %d", st.LocationID)
	}
	e.ask(t, dev, "/calc [p1] * 2 + [p2]", "= <b>1248</b>")
	e.ask(t, dev, "/calc [p1] +", "The formula does not parse:\n<pre>[p1] +\n      ^")
	e.ask(t, dev, "/calc [p7]", "Parameter p7 is not defined")
	e.ask(t, dev, "/calc", "Usage: /calc")

	// Documents.
	n = e.LastID(dev)
	e.Send(t, dev, "/dump")
	_, dump := e.document(t, dev, n, fmt.Sprintf("quest-%d.json", cargo))
	var dq qmm.Quest
	if err := json.Unmarshal(dump, &dq); err != nil || len(dq.Params) != 3 || len(dq.Locations) != 6 {
		t.Errorf("/dump: %v, %d params, %d locations", err, len(dq.Params), len(dq.Locations))
	}
	n = e.LastID(dev)
	e.Send(t, dev, "/write")
	_, written := e.document(t, dev, n, fmt.Sprintf("quest-%d.qmm", cargo))
	if wq, err := qmm.DecodeBytes(written); err != nil || len(wq.Jumps) != 8 || wq.Params[0].Name != "Fuel" {
		t.Errorf("/write: %v", err)
	}
	n = e.LastID(dev)
	e.Send(t, dev, "/save")
	e.WaitTextAfter(t, dev, n, "Send this file back into this chat to go on from here.")
	doc, saved := e.document(t, dev, n, ".qsave")
	if !strings.HasPrefix(doc.FileName, fmt.Sprintf("save-%d-", cargo)) {
		t.Errorf("save file name %q", doc.FileName)
	}
	s, err := devtools.ParseSave(saved)
	if err != nil || s.Quest.ID != cargo || s.Ranger != "Zed" || s.State.Params[0] != 7 {
		t.Fatalf("the save: %v %+v", err, s)
	}

	// Play on, then restore the save: the game is back where it was, as a sandbox.
	screen := e.lastScreen(t, dev)
	n = e.LastID(dev)
	e.Press(t, dev, screen, "Undock and set off")
	e.screen(t, dev, n)
	if st, _, _ := e.gameRow(t, dev); st.LocationID != 2 {
		t.Fatalf("after the jump the game is at location %d", st.LocationID)
	}
	n = e.LastID(dev)
	e.upload(t, dev, "my game.qsave", saved)
	e.WaitTextAfter(t, dev, n, "The saved game of «Cargo run» goes on as a sandbox")
	e.WaitTextAfter(t, dev, n, "Fuel: <b>7</b> units")
	got, sandbox, _ := e.gameRow(t, dev)
	want := s.State
	if gj, _ := json.Marshal(got); !sandbox || string(gj) != mustJSON(t, want) {
		t.Errorf("restored state %s, want %s", gj, mustJSON(t, want))
	}
	e.ask(t, dev, "/show id", "Location <b>1</b>")

	// A save of the original bot's binary format: the location entered with the saved values.
	old := devtools.EncodeQMS(&devtools.QMS{Quest: "CARGO-RUN_EN.qmm", Location: 2, Params: []devtools.QMSParam{
		{Title: "Fuel", Max: 10, Value: 4}, {Title: "Money", Max: 5000, Value: 500}, {Title: "Belt roll", Max: 6, Hidden: true}}})
	n = e.LastID(dev)
	e.upload(t, dev, "old.qms", old)
	e.WaitTextAfter(t, dev, n, "The saved game of «Cargo run» goes on as a sandbox")
	e.screen(t, dev, n)
	got, sandbox, _ = e.gameRow(t, dev)
	if !sandbox || got.LocationID != 2 || got.Params[0] != 4 || got.Params[1] != 500 || got.Shown[2] {
		t.Errorf("restored .qms: sandbox %v, location %d, params %v, shown %v", sandbox, got.LocationID, got.Params, got.Shown)
	}
	for name, bad := range map[string]devtools.QMS{
		"parameter p1 is 99, outside its bounds 0..10": {Quest: "cargo-run_en.qmm", Location: 2, Params: []devtools.QMSParam{
			{Max: 10, Value: 99}, {Max: 5000}, {Max: 6}}},
		"the quest has no location 77": {Quest: "cargo-run_en.qmm", Location: 77, Params: []devtools.QMSParam{
			{Max: 10}, {Max: 5000}, {Max: 6}}},
		"it has 2 parameters and the quest 3": {Quest: "cargo-run_en.qmm", Location: 2, Params: []devtools.QMSParam{
			{Max: 10}, {Max: 5000}}},
	} {
		e.put(t, dev, "bad.qms", devtools.EncodeQMS(&bad), name)
	}

	// A counted game cannot be changed by hand; it can be inspected and saved.
	n = e.LastID(dev)
	e.Send(t, dev, fmt.Sprintf("/start %d", cargo))
	leave := e.WaitTextAfter(t, dev, n, "Leave it and start «Cargo run»?") // the sandbox game is left only on Yes
	e.Press(t, dev, leave, "Yes")
	e.screen(t, dev, leave.ID)
	e.ask(t, dev, "/set p1 9", "Only a sandbox game can be changed")
	e.ask(t, dev, "/show id", "a counted game")
	if st, sandbox, _ := e.gameRow(t, dev); sandbox || st.Phase != quest.PhaseStarting {
		t.Errorf("the counted game: sandbox %v, phase %v", sandbox, st.Phase)
	}
	e.WaitIdle(t)
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
