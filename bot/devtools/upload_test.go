package devtools_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image/color"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/questbot/questbot/bot/devtools"
)

// Ensure an uploaded quest is checked, stored under a name made from its content, registered to
// its owner and versioned by name; it stays private (others can neither /load nor /start it) and
// runs only as a sandbox that moves no credits and counts nothing, until an admin lists it and
// sets its name, language, common name, bonus and penalty; then it is a quest like the others.
func TestQuestUpload(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	ctx := context.Background()
	const dana, other, player, admin = 10, 11, 12, 13
	e.user(dana, "Dana", "dana", "en")
	e.user(other, "Olga", "olga", "en")
	e.user(player, "Pat", "pat", "en")
	e.user(admin, "Ada", "ada", "en")
	for _, u := range []int64{dana, other, player, admin} {
		e.hello(t, u)
	}
	e.makeDeveloper(t, dana)
	e.makeDeveloper(t, other)
	e.makeAdmin(t, admin)

	v1 := probe(t, "one")
	m := e.put(t, dana, "../../etc/Probe.qmm", v1, "Quest «Probe» is uploaded")
	first := number(t, m.Text)
	if !strings.Contains(m.Text, "version 1") {
		t.Errorf("first upload: %q", m.Text)
	}
	var file, name, common string
	var listed, uploaded bool
	var owner int64
	err := e.Pool.QueryRow(ctx, `SELECT file, name, common_name, listed, uploaded, owner_id FROM script WHERE id = $1`, first).
		Scan(&file, &name, &common, &listed, &uploaded, &owner)
	if err != nil {
		t.Fatal(err)
	}
	if want := "dev/quests/" + sha(v1) + ".qmm"; file != want || name != "Probe" || listed || !uploaded || owner != dana {
		t.Errorf("script row: file %q (want %q), name %q, listed %v, uploaded %v, owner %d", file, want, name, listed, uploaded, owner)
	}
	if data, err := os.ReadFile(filepath.Join(e.root, file)); err != nil || !bytes.Equal(data, v1) {
		t.Errorf("stored file: %v", err)
	}
	if got := e.files(t); !slices.Equal(got, []string{file}) {
		t.Errorf("files under dev/: %q, want only %q (nothing named by the sender)", got, file)
	}

	// The same file again changes nothing; another file of the same name is version 2.
	e.put(t, dana, "probe.QMM", v1, fmt.Sprintf("is the same file as version 1, quest number %d", first))
	v2 := probe(t, "two")
	m = e.put(t, dana, "probe.qmm", v2, "version 2")
	second := number(t, m.Text)
	if second == first || e.QueryInt(t, `SELECT count(*) FROM dev_upload WHERE owner_id = $1`, dana) != 2 {
		t.Errorf("version 2 is quest %d (version 1 is %d)", second, first)
	}
	list := e.ask(t, dana, "/load", "Your quests:")
	if !strings.Contains(list.Text, fmt.Sprintf("%d — probe (v2)", second)) || strings.Contains(list.Text, fmt.Sprintf("%d —", first)) {
		t.Errorf("own quests: %q", list.Text)
	}

	// Private: nobody else opens it, by number or by name.
	e.ask(t, other, fmt.Sprintf("/load %d", second), "There is no quest")
	e.ask(t, other, "/load probe", "There is no quest «probe» you can open.")
	e.ask(t, player, fmt.Sprintf("/start %d", second), "There is no quest with this number.")

	// The owner plays it as a sandbox to its won end: no credits move, nothing counts.
	n := e.LastID(dana)
	e.Send(t, dana, "/load probe")
	e.WaitTextAfter(t, dana, n, fmt.Sprintf("«probe» (#%d) runs as a sandbox", second))
	for _, label := range []string{"I agree", "Go on", "Arrive", "Go back to ship"} {
		screen := e.screen(t, dana, n)
		n = e.LastID(dana)
		e.Press(t, dana, screen, label)
	}
	e.WaitTextAfter(t, dana, n, "Probe done, <b>Dana</b>.")
	e.WaitIdle(t)
	if got := e.Games(t, e.service); got != 0 {
		t.Errorf("%d games left after the ending", got)
	}
	if got := e.QueryInt(t, `SELECT count(*) FROM user_stats WHERE user_id = $1`, dana) +
		e.QueryInt(t, `SELECT count(*) FROM user_script_stats WHERE user_id = $1`, dana); got != 0 {
		t.Errorf("the sandbox game counted: %d statistics rows", got)
	}

	// The admin's catalogue commands.
	quests := e.ask(t, admin, "/quests", "Uploaded quests (2 of 2)")
	if !strings.Contains(quests.Text, "private") || !strings.Contains(quests.Text, "Dana (@dana, 10)") {
		t.Errorf("/quests: %q", quests.Text)
	}
	e.ask(t, admin, "/quests olga", "No uploaded quest matches.")
	e.ask(t, admin, fmt.Sprintf("/setquest %d listed yes", second), "listed is now yes")
	e.ask(t, admin, fmt.Sprintf("/setquest %d name Probe <Run>", second), "name is now Probe &lt;Run&gt;")
	e.ask(t, admin, fmt.Sprintf("/setquest %d bonus 250", second), "bonus is now 250")
	e.ask(t, admin, fmt.Sprintf("/setquest %d penalty 100", second), "penalty is now 100")
	e.ask(t, admin, fmt.Sprintf("/setquest %d penalty lots", second), "«lots» is not a valid penalty")
	e.ask(t, admin, fmt.Sprintf("/setquest %d lang de", second), "«de» is not a valid lang")
	e.ask(t, admin, fmt.Sprintf("/setquest %d listed maybe", second), "«maybe» is not a valid listed")
	e.ask(t, admin, fmt.Sprintf("/setquest %d common Probe Run", second), "is not a valid common")
	e.ask(t, admin, fmt.Sprintf("/setquest %d lang ru", second), "lang is now ru")
	e.ask(t, admin, fmt.Sprintf("/setquest %d lang en", second), "lang is now en")
	e.ask(t, admin, fmt.Sprintf("/setquest %d common probe", second), "common is now probe")
	e.ask(t, admin, fmt.Sprintf("/setquest %d dialect DagazBot", second), "dialect is now dagazbot")
	e.ask(t, admin, fmt.Sprintf("/setquest %d dialect tge", second), "«tge» is not a valid dialect")
	e.ask(t, admin, fmt.Sprintf("/setquest %d colour red", second), "Usage: /setquest")
	e.ask(t, admin, "/setquest 999999 name X", "This bot has no quest #999999.")
	e.ask(t, admin, "/setquest", "Usage: /setquest")
	var bonus, penalty int
	var dialect string
	e.Pool.QueryRow(ctx, `SELECT name, common_name, listed, win_bonus, death_penalty, dialect FROM script WHERE id = $1`, second).
		Scan(&name, &common, &listed, &bonus, &penalty, &dialect)
	if name != "Probe <Run>" || common != "probe" || !listed || bonus != 250 || penalty != 100 || dialect != "dagazbot" {
		t.Errorf("after /setquest: %q %q %v %d %d %q", name, common, listed, bonus, penalty, dialect)
	}

	// Listed, it is in the catalogue and /start plays it as a counted game.
	menu := e.ask(t, player, "/quest", "Choose a quest:")
	var labels []string
	for _, row := range menu.Keyboard {
		for _, b := range row {
			labels = append(labels, b.Text)
		}
	}
	if !slices.Contains(labels, "Probe <Run>") {
		t.Errorf("catalogue %q lacks the listed upload", labels)
	}
	n = e.LastID(player)
	e.Send(t, player, fmt.Sprintf("/start %d", second))
	e.screen(t, player, n)
	e.WaitIdle(t)
	if got := e.QueryInt(t, `SELECT launches FROM user_stats WHERE user_id = $1`, player); got != 1 {
		t.Errorf("the listed quest's launch counted %d times", got)
	}
	// Version 1 stays private.
	e.ask(t, player, fmt.Sprintf("/start %d", first), "There is no quest with this number.")
}

// Ensure every malformed upload is answered with a message saying why and leaves nothing behind:
// a truncated quest, random bytes, a header claiming huge counts, wrong extensions and contents,
// files over the size limits, damaged and oversized images, broken, foreign and future saves,
// and a save of another user's private quest.
func TestMalformedUploads(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *devtools.Config) { c.MaxQuest, c.MaxImage, c.MaxSave = 64<<10, 64<<10, 16<<10 })
	const dev, other = 20, 21
	e.user(dev, "Dev", "dev", "en")
	e.user(other, "Olga", "olga", "en")
	e.hello(t, dev)
	e.hello(t, other)
	e.makeDeveloper(t, dev)
	e.makeDeveloper(t, other)

	// Another developer's private quest, and a save of it.
	secret := number(t, e.put(t, other, "secret.qmm", probe(t, "secret"), "is uploaded").Text)
	n := e.LastID(other)
	e.Send(t, other, fmt.Sprintf("/load %d", secret))
	e.screen(t, other, n)
	n = e.LastID(other)
	e.Send(t, other, "/save")
	_, foreignSave := e.document(t, other, n, ".qsave")
	e.WaitIdle(t)
	before := e.stored(t)

	quest := probe(t, "ok")
	qms := devtools.EncodeQMS(&devtools.QMS{Quest: "cargo-run_en.qmm", Location: 1, Params: []devtools.QMSParam{
		{Title: "Fuel", Max: 10, Value: 3}, {Title: "Money", Max: 5000}, {Title: "Belt roll", Max: 6}}})
	hugeQMS := devtools.EncodeQMS(&devtools.QMS{Quest: "cargo-run_en.qmm", Location: 1})
	copy(hugeQMS[len(hugeQMS)-4:], []byte{0xFF, 0xFF, 0xFF, 0x7F}) // the parameter count
	secretQMS := devtools.EncodeQMS(&devtools.QMS{Quest: "secret.qmm", Location: 1, Params: []devtools.QMSParam{
		{Title: "Fuel", Max: 10, Value: 3}, {Title: "Money", Max: 5000}}})
	cases := []struct {
		name string
		data []byte
		want string
	}{
		{"truncated.qmm", quest[:len(quest)/2], "«truncated.qmm» is not a quest I can play: the file ends too early"},
		{"random.qmm", randomBytes(4096), "it is not a .qm or .qmm file. Nothing was stored."},
		{"huge.qmm", hugeCounts(), "the file ends too early"},
		{"empty.qm", []byte{}, "ends too early"},
		{"notes.txt", []byte("hello"), "I cannot take «notes.txt»: I take quests (.qm, .qmm)"},
		{"quest", quest, "I cannot take «quest»"},
		{"picture.qmm", pngOf(t, 4, 4, color.White), "it is not a .qm or .qmm file"},
		{"quest.png", quest, "«quest.png» is not an image I can show: it is not a PNG, JPEG or GIF image"},
		{"photo.png", jpegOf(t), "it is a JPEG image, but its name ends in .png"},
		{"photo.gif", pngOf(t, 4, 4, color.White), "it is a PNG image, but its name ends in .gif"},
		{"huge.png", hugePNG(t, 20000, 20000), "it is 20000×20000 pixels"},
		{"wide.png", hugePNG(t, 5000, 5000), "it is 5000×5000 pixels"},
		{"broken.png", pngOf(t, 64, 64, color.Black)[:60], "«broken.png» is not an image I can show: it is damaged"},
		{"big.qmm", append(bytes.Clone(quest), make([]byte, 70<<10)...), "and I take at most 64 KB of this kind. Nothing was stored."},
		{"big.png", make([]byte, 65<<10), "is too big"},
		{"big.qsave", make([]byte, 17<<10), "is too big"},
		{"random.qsave", randomBytes(100), "«random.qsave» is not a saved game I can restore: it is not a save of this bot"},
		{"future.qsave", []byte(`{"format": "questbot-save", "version": 2}`), "it is a save of format 2, made by a newer version"},
		{"broken.qsave", []byte(`{"format": "questbot-save", "version": 1, "quest": {"id": 1}, "state": {"params": "x"}}`), "it is damaged"},
		{"extra.qsave", []byte(`{"format": "questbot-save", "version": 1, "quest": {"id": 1}, "cheat": true}`), "it is damaged"},
		{"noquest.qsave", []byte(`{"format": "questbot-save", "version": 1, "state": {}}`), "it names no quest"},
		{"dice.qsave", bytes.Replace(foreignSave, []byte(`"alea": [`), []byte(`"alea": [7, `), 1), "its random generator state is invalid"},
		{"foreign.qsave", foreignSave, "The quest of «foreign.qsave» is not one you can open in this bot"},
		{"truncated.qms", qms[:10], "«truncated.qms» is not a saved game I can restore: it is damaged (the file ends too early)"},
		{"huge.qms", hugeQMS, "2147483647 parameters do not fit"},
		{"trailing.qms", append(bytes.Clone(qms), 1), "trailing data"},
		{"secret.qms", secretQMS, "The quest of «secret.qms» is not one you can open"},
		{"unknown.qms", devtools.EncodeQMS(&devtools.QMS{Quest: "nowhere.qmm"}), "is not one you can open"},
	}
	for _, c := range cases {
		e.put(t, dev, c.name, c.data, c.want)
	}
	e.WaitIdle(t)
	after := e.stored(t)
	if after.uploads != before.uploads || after.scripts != before.scripts || after.games != before.games ||
		!slices.Equal(after.files, before.files) {
		t.Errorf("malformed uploads left something: %+v, before %+v", after, before)
	}
	if g := e.Game(t, e.service, dev); g != nil {
		t.Errorf("a refused save started a game: %+v", g)
	}
	var failed int
	e.Pool.QueryRow(context.Background(), `SELECT count(*) FROM outbox WHERE status = 'failed'`).Scan(&failed)
	if failed != 0 {
		t.Errorf("%d messages failed to send", failed)
	}
	var st map[string]any
	if err := json.Unmarshal(foreignSave, &st); err != nil || st["format"] != devtools.SaveFormat {
		t.Errorf("the save is not the documented JSON: %v", err)
	}
}
