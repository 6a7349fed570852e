package devtools_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/questbot/questbot/bot/emulator/tgemu"
	"github.com/questbot/questbot/qmm"
	"github.com/questbot/questbot/quest"
)

// dockSource is a quest of three locations: from the dock (1) a jump into space (2) that needs at
// least 5 fuel (the player starts with 2), and one to wait (3); entering space burns a unit of
// fuel.
const dockSource = `{
	"header": 1111111127,
	"strings": {"ToStar": "", "ToPlanet": "", "Date": "", "Money": "", "FromPlanet": "", "FromStar": "", "Ranger": ""},
	"taskText": "Fly to the stars.",
	"successText": "Done.",
	"params": [
		{"min": 0, "max": 10, "type": 0, "critType": 0, "active": true, "showWhenZero": true, "name": "Fuel",
		 "showingInfo": [{"from": 0, "to": 10, "str": "Fuel: <>"}], "starting": "[2]"}
	],
	"locations": [
		{"id": 1, "locX": 1, "locY": 1, "isStarting": true, "texts": [{"text": "At the dock."}]},
		{"id": 2, "locX": 2, "locY": 1, "texts": [{"text": "In open space."}],
		 "paramsChanges": [{"p": 0, "change": -1, "showingType": 0}]},
		{"id": 3, "locX": 3, "locY": 1, "texts": [{"text": "Waiting at the dock."}]}
	],
	"jumps": [
		{"id": 1, "fromLocationId": 1, "toLocationId": 2, "priority": 1, "showingOrder": 1, "text": "Fly", "description": "",
		 "paramsConditions": [{"p": 0, "mustFrom": 5, "mustTo": 10}]},
		{"id": 2, "fromLocationId": 1, "toLocationId": 3, "priority": 1, "showingOrder": 2, "text": "Wait", "description": ""},
		{"id": 3, "fromLocationId": 2, "toLocationId": 1, "priority": 1, "showingOrder": 1, "text": "Land", "description": ""},
		{"id": 4, "fromLocationId": 3, "toLocationId": 1, "priority": 1, "showingOrder": 1, "text": "Back", "description": ""}
	]
}`

// dock returns the dock quest as a .qmm file.
func dock(t *testing.T) []byte {
	t.Helper()
	q, err := qmm.ReadJSON([]byte(dockSource))
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := qmm.Encode(&b, q); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// buttons lists the texts of a message's buttons.
func buttons(m tgemu.Message) []string {
	var out []string
	for _, row := range m.Keyboard {
		for _, b := range row {
			out = append(out, b.Text)
		}
	}
	return out
}

// loadDock uploads the dock quest for a developer, runs it as a sandbox and accepts the task,
// and returns the dock's screen.
func (e *env) loadDock(t *testing.T, dev int64) tgemu.Message {
	t.Helper()
	// The answer names the quest's number: "number 5" in English, "номер 5" in Russian.
	text := e.put(t, dev, "dock.qmm", dock(t), "«dock»").Text
	id := number(t, strings.Replace(text, "номер ", "number ", 1))
	n := e.LastID(dev)
	e.Send(t, dev, fmt.Sprintf("/load %d", id))
	task := e.screen(t, dev, n)
	n = e.LastID(dev)
	e.Press(t, dev, task, "I agree")
	return e.screen(t, dev, n)
}

// Ensure /goto enters a location of the sandbox game by its number (12 or L12), shows its screen
// with the location's changes made, refuses a location the quest lacks with the list of those it
// has, and works for developers on sandbox games only.
func TestGoto(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	const dev, player, ru = 60, 61, 62
	e.user(dev, "Dev", "dev", "en")
	e.user(player, "Pat", "pat", "en")
	e.user(ru, "Дима", "dima", "ru")
	for _, u := range []int64{dev, player, ru} {
		e.hello(t, u)
	}
	e.makeDeveloper(t, dev)
	e.makeDeveloper(t, ru)
	e.ask(t, player, "/goto 2", "This command is for quest developers.")
	e.ask(t, dev, "/goto 2", "No quest is running.")
	e.loadDock(t, dev)

	n := e.LastID(dev)
	e.Send(t, dev, "/goto 2")
	e.WaitTextAfter(t, dev, n, "➡️ Location 2 of «dock»:")
	if m := e.screen(t, dev, n); !strings.Contains(m.Text, "In open space.") || !slices.Equal(buttons(m), []string{"Land"}) {
		t.Errorf("/goto 2 shows %q with %v", m.Text, buttons(m))
	}
	if st, _, _ := e.gameRow(t, dev); st.LocationID != 2 || st.Phase != quest.PhaseLocation || st.Params[0] != 1 {
		t.Errorf("after /goto 2: location %d, phase %v, fuel %d", st.LocationID, st.Phase, st.Params[0])
	}
	n = e.LastID(dev)
	e.Send(t, dev, "/goto L3")
	if m := e.screen(t, dev, n); !strings.Contains(m.Text, "Waiting at the dock.") {
		t.Errorf("/goto L3 shows %q", m.Text)
	}
	e.ask(t, dev, "/goto 99", "«dock» has no location 99. Its locations: 1–3.")
	e.ask(t, dev, "/goto", "Usage: /goto <i>location</i>")
	e.ask(t, dev, "/goto there", "Usage: /goto <i>location</i>")
	// The log holds the moves: /positions replays them.
	if m := e.ask(t, dev, "/positions", "L3"); !strings.Contains(m.Text, "L2") {
		t.Errorf("/positions after /goto: %q", m.Text)
	}

	e.Exec(t, `UPDATE game SET sandbox = false WHERE user_id = $1`, dev)
	e.ask(t, dev, "/goto 1", "Only a sandbox game is changed by hand")

	e.loadDock(t, ru)
	if m := e.ask(t, ru, "/goto 7", "В «dock» нет локации 7. Её локации: 1–3."); strings.Contains(m.Text, "location") {
		t.Errorf("English in %q", m.Text)
	}
	e.ask(t, ru, "/goto", "Использование: /goto")
	e.ask(t, ru, "/devhelp", "/goto <i>локация</i> — игра в песочнице переходит в локацию")
	e.ask(t, dev, "/devhelp", "/goto <i>location</i> — the sandbox game enters a location")
}

// Ensure /set offers the screen's choices again: a jump whose condition the new value meets
// appears on the screen shown after /set, and can be taken.
func TestSetRefreshesChoices(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	const dev = 63
	e.user(dev, "Dev", "dev", "en")
	e.hello(t, dev)
	e.makeDeveloper(t, dev)
	at := e.loadDock(t, dev)
	if got := buttons(at); !slices.Equal(got, []string{"Wait"}) {
		t.Fatalf("the dock with 2 fuel offers %v, want [Wait]", got)
	}
	n := e.LastID(dev)
	e.Send(t, dev, "/set p1 7")
	e.WaitTextAfter(t, dev, n, "p1 (Fuel) is now 7.")
	again := e.screen(t, dev, n)
	if got := buttons(again); !slices.Equal(got, []string{"Fly", "Wait"}) {
		t.Fatalf("after /set p1 7 the dock offers %v, want [Fly Wait]", got)
	}
	n = e.LastID(dev)
	e.Press(t, dev, again, "Fly")
	if m := e.screen(t, dev, n); !strings.Contains(m.Text, "In open space.") {
		t.Errorf("Fly led to %q", m.Text)
	}
	// The log replays the same path: /positions counts the location Fly led to.
	e.ask(t, dev, "/positions", "L2")
}

// activeChoice is the first button of a quest screen that the game's state offers as active (a
// built-in choice, or a jump that can be taken), and its action.
func (e *env) activeChoice(t *testing.T, user int64, m tgemu.Message) (string, int) {
	t.Helper()
	st, _, _ := e.gameRow(t, user)
	active := map[int]bool{quest.JumpIAgree: true, quest.JumpNext: true}
	for _, o := range st.Jumps {
		active[o.ID] = o.Active
	}
	for _, row := range m.Keyboard {
		for _, b := range row {
			parts := strings.Split(b.Data, ":")
			if len(parts) != 4 || parts[0] != "q" {
				continue
			}
			if a, err := strconv.Atoi(parts[3]); err == nil && active[a] {
				return b.Text, a
			}
		}
	}
	t.Fatalf("no active choice on %q: %+v", m.Text, m.Keyboard)
	return "", 0
}

// Ensure /replay plays the path of the running sandbox game on the newest version of its quest:
// after a real quest is played for a few steps and a new version without the last jump taken is
// uploaded (whose answer points to /replay), the replay stops at that move, saying where and why,
// and the game goes on in the new version just before it; on a version that has the jump again,
// the whole path replays.
func TestReplayOnNewVersion(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	const dev = 64
	e.user(dev, "Dev", "dev", "en")
	e.hello(t, dev)
	e.makeDeveloper(t, dev)
	orig, err := os.ReadFile(filepath.Join("..", "..", "..", "shared", "quests", "dagazbot", "pizza_eng.qmm"))
	if err != nil {
		t.Fatal(err)
	}
	e.ask(t, dev, "/replay", "No quest is running.")
	v1 := number(t, e.put(t, dev, "pizza_eng.qmm", orig, "is uploaded").Text)
	n := e.LastID(dev)
	e.Send(t, dev, fmt.Sprintf("/load %d", v1))
	m := e.screen(t, dev, n)
	e.ask(t, dev, "/replay", "Your game has no move to replay yet.")

	// Play until at least three choices are made and the last one is a jump of the quest.
	var actions []int
	for len(actions) < 3 || actions[len(actions)-1] < 0 {
		if len(actions) == 12 {
			t.Fatalf("no jump of the quest among the choices %v", actions)
		}
		label, a := e.activeChoice(t, dev, m)
		n = e.LastID(dev)
		e.Press(t, dev, m, label)
		m = e.screen(t, dev, n)
		actions = append(actions, a)
	}
	last := actions[len(actions)-1]
	before, _, _ := e.gameRow(t, dev)
	e.ask(t, dev, "/replay", "«pizza_eng» v1 is the newest version.")

	// The new version lacks the last jump taken.
	d, err := qmm.Decode(bytes.NewReader(orig))
	if err != nil {
		t.Fatal(err)
	}
	d.Jumps = slices.DeleteFunc(d.Jumps, func(j qmm.Jump) bool { return int(j.ID) == last })
	var b bytes.Buffer
	if err := qmm.Encode(&b, d); err != nil {
		t.Fatal(err)
	}
	stored := e.put(t, dev, "pizza_eng.qmm", b.Bytes(), "is uploaded")
	v2 := number(t, stored.Text)
	if !strings.Contains(stored.Text, fmt.Sprintf("You were playing an older version of this quest (number %d): /replay plays your last path on this version.", v1)) {
		t.Errorf("the upload of v2 does not point to /replay: %q", stored.Text)
	}
	n = e.LastID(dev)
	e.Send(t, dev, "/replay")
	k := len(actions)
	want := fmt.Sprintf("🔁 %d of %d moves of your last run are replayed on «pizza_eng» v2 (number %d). Stopped at move %d, at location",
		k-1, k, v2, k)
	report := e.WaitTextAfter(t, dev, n, want)
	if !strings.Contains(report.Text, fmt.Sprintf("jump %d «", last)) || !strings.Contains(report.Text, "» no longer exists.") {
		t.Errorf("the replay's report: %q", report.Text)
	}
	e.screen(t, dev, n)
	st, sandbox, script := e.gameRow(t, dev)
	if !sandbox || script != v2 || st.Seed != before.Seed {
		t.Errorf("after /replay: sandbox %v, quest %d (want %d), seed %q (want %q)", sandbox, script, v2, st.Seed, before.Seed)
	}
	if !strings.Contains(report.Text, fmt.Sprintf("at location %d (", st.LocationID)) {
		t.Errorf("the report does not name location %d: %q", st.LocationID, report.Text)
	}

	// The original again, as v3: the path replayed so far, and the jump is there.
	n = e.LastID(dev)
	e.upload(t, dev, "pizza_eng.qmm", orig)
	v3 := number(t, e.WaitTextAfter(t, dev, n, "is uploaded").Text)
	n = e.LastID(dev)
	e.Send(t, dev, "/replay")
	e.WaitTextAfter(t, dev, n, fmt.Sprintf("🔁 All %d moves of your last run are replayed on «pizza_eng» v3 (number %d).", k-1, v3))
	e.screen(t, dev, n)
	if st, _, script := e.gameRow(t, dev); script != v3 || st.LocationID != before.LocationID && len(actions) == k-1 {
		t.Errorf("after the whole replay: quest %d, location %d", script, st.LocationID)
	}
}
