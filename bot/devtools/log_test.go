package devtools_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/questbot/questbot/qmm"
	"github.com/questbot/questbot/quest"
	"github.com/questbot/questbot/quest/questlog"
	"github.com/questbot/questbot/quest/questpg"
)

// pressFirst presses the first button of the last quest screen and waits for the step and the
// next screen.
func (e *env) pressFirst(t *testing.T, user int64) {
	t.Helper()
	e.WaitIdle(t)
	m := e.lastScreen(t, user)
	step := e.Game(t, e.service, user).Step
	n := e.LastID(user)
	if _, err := e.Bot.Press(user, m.ID, m.Keyboard[0][0].Data); err != nil {
		t.Fatal(err)
	}
	e.WaitFor(t, "the step", func() bool { g := e.Game(t, e.service, user); return g == nil || g.Step != step })
	e.screen(t, user, n)
}

// Ensure /log gives the moves of a sandbox game, a developer's /set among them, as a file that
// replays to the game's very state; /positions lists the locations it entered with their counts;
// and a developer deletes an upload of theirs, but not one that is listed, not one another player
// plays, not another's.
func TestLogPositionsDelete(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	const dev, other = 30, 31
	e.user(dev, "Dev", "dev", "en")
	e.user(other, "Oz", "oz", "en")
	e.hello(t, dev)
	e.hello(t, other)
	e.makeDeveloper(t, dev)
	e.makeDeveloper(t, other)
	data, err := os.ReadFile(filepath.Join(e.root, "cargo-run_en.qmm"))
	if err != nil {
		t.Fatal(err)
	}
	id := number(t, e.put(t, dev, "Cargo.qmm", data, "is uploaded").Text)
	e.ask(t, dev, "/log", "No quest is running.")
	e.ask(t, dev, fmt.Sprintf("/load %d", id), "runs as a sandbox")
	e.screen(t, dev, 0)
	for range 3 { // I agree, then two choices
		e.pressFirst(t, dev)
	}
	set := e.ask(t, dev, "/set p1 3", "is now 3")
	e.screen(t, dev, set.ID) // the game shown again
	e.pressFirst(t, dev)

	n := e.LastID(dev)
	e.Send(t, dev, "/log")
	msg, file := e.document(t, dev, n, ".log")
	if !strings.Contains(msg.FileName, "Cargo") {
		t.Errorf("log file name %q", msg.FileName)
	}
	l, err := questlog.Read(bytes.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	sets := 0
	for _, m := range l.Moves {
		if m.Set != nil {
			sets++
		}
	}
	// I agree, two choices, the /set and the choices offered again, one more choice.
	if len(l.Moves) != 6 || sets != 1 || !l.Moves[4].Offer || l.Header.SHA256 != sha(data) || l.Header.Quest != "Cargo.qmm" {
		t.Errorf("log %+v with %d moves (%d set), want 6 with one set and its offer", l.Header, len(l.Moves), sets)
	}
	d, err := qmm.DecodeBytes(data)
	if err != nil {
		t.Fatal(err)
	}
	q, err := quest.Compile(d)
	if err != nil {
		t.Fatal(err)
	}
	replayed, err := questlog.Replay(q, l, quest.Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	g := e.Game(t, e.service, dev)
	a, _ := json.Marshal(replayed)
	b, _ := json.Marshal(g.State)
	if !bytes.Equal(a, b) {
		t.Errorf("the log replays to\n%s\nthe game is\n%s", a, b)
	}

	visits, err := questlog.Positions(q, l)
	if err != nil || len(visits) == 0 {
		t.Fatal(visits, err)
	}
	pos := e.ask(t, dev, "/positions", "<pre>")
	if want := fmt.Sprintf("L%-5d %5d×", visits[0].Location, visits[0].Count); !strings.Contains(pos.Text, want) {
		t.Errorf("/positions lacks %q:\n%s", want, pos.Text)
	}

	// Deleting: another's upload is not theirs; another player's game keeps it; listed, it stays.
	e.ask(t, other, fmt.Sprintf("/delete %d", id), fmt.Sprintf("You have no upload #%d.", id))
	e.ask(t, dev, "/delete x", "Usage: /delete")
	e.Exec(t, `UPDATE script SET listed = true WHERE id = $1`, id)
	e.ask(t, dev, fmt.Sprintf("/delete %d", id), "an admin must take it out")
	e.Send(t, other, fmt.Sprintf("/start %d", id))
	e.WaitFor(t, "the other's game", func() bool { return e.Game(t, e.service, other) != nil })
	e.Exec(t, `UPDATE script SET listed = false WHERE id = $1`, id)
	e.ask(t, dev, fmt.Sprintf("/delete %d", id), "Someone is playing «Cargo» now")
	// The other player gives the game up.
	if err := pgx.BeginFunc(context.Background(), e.Pool, func(tx pgx.Tx) error {
		return questpg.New().Abandon(context.Background(), tx, e.service, other)
	}); err != nil {
		t.Fatal(err)
	}
	e.ask(t, dev, fmt.Sprintf("/delete %d", id), "Deleted: «Cargo», version 1.")
	if s := e.stored(t); s.uploads != 0 || s.scripts != 0 || s.games != 0 {
		t.Errorf("after the deletion: %+v", s)
	}
	// Its buttons are stale now.
	m := e.lastScreen(t, dev)
	events, cancel := e.Bot.Subscribe(dev)
	defer cancel()
	query, err := e.Bot.Press(dev, m.ID, m.Keyboard[0][0].Data)
	if err != nil {
		t.Fatal(err)
	}
	for ev := range events {
		if ev.Type == "answer" && ev.QueryID == query {
			if !strings.Contains(ev.Text, "no longer available") {
				t.Errorf("a press of the deleted quest: %q", ev.Text)
			}
			break
		}
	}
}
