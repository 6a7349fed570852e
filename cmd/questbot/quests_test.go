package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/questbot/questbot/migrations/pgtest"
	"github.com/questbot/questbot/quest/questtrace/corpus"
)

// Ensure quests add lists a folder of quests in the catalogue: x and x_eng as the two languages of
// one quest, the images they name copied beside them, a broken file reported and skipped, and
// that running it again changes nothing; a later run with --dialect changes only that.
func TestQuestsAdd(t *testing.T) {
	t.Parallel()
	src, uploads := t.TempDir(), t.TempDir()
	for _, n := range []string{"driver.qmm", "driver_eng.qmm", "driver.png", "mancala.qmm"} {
		data, err := os.ReadFile(corpus.Path(t, "quests", "dagazbot", n))
		if err != nil {
			t.Fatalf("the shared quest corpus is missing: %v", err)
		}
		if err := os.WriteFile(filepath.Join(src, n), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(src, "broken.qmm"), []byte("no quest"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The operator's images folder holds one of Driver's pictures, named as the reference finds
	// it: in lower case, with .jpg added.
	art := t.TempDir()
	if err := os.WriteFile(filepath.Join(art, "penetrator_01.jpg"), []byte("art"), 0o644); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"DATABASE_URL": pgtest.ConnString(t), "UPLOADS_DIR": uploads, "IMAGES_DIR": art}
	run := func(args ...string) string {
		t.Helper()
		var out, errs bytes.Buffer
		if code := quests(context.Background(), append([]string{"add"}, args...), func(k string) string { return env[k] },
			&out, &errs); code != 0 {
			t.Fatalf("quests add %v: exit %d\n%s%s", args, code, out.String(), errs.String())
		}
		return out.String()
	}
	out := run("--listed", "--dialect", "dagazbot", src)
	for _, want := range []string{"skipped broken.qmm: it is not a .qm or .qmm file", "4 quest files: 3 added, 1 skipped",
		"driver.qmm: ⚠️ Warnings (", "images found nowhere (44): Gobsaur_03 (location 106), Borzukhan_02 (location 1)"} {
		if !strings.Contains(out, want) {
			t.Errorf("the table lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "Penetrator_01") {
		t.Errorf("an image of IMAGES_DIR is reported missing:\n%s", out)
	}

	conn, err := pgx.Connect(context.Background(), env["DATABASE_URL"])
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	type row struct {
		name, common, lang, file, dialect string
		listed                            bool
		bonus                             int
	}
	catalogue := func() []row {
		t.Helper()
		rows, err := conn.Query(context.Background(), `
			SELECT name, common_name, language, file, dialect, listed, win_bonus FROM script
			WHERE file LIKE 'imported/%' ORDER BY common_name, language`)
		if err != nil {
			t.Fatal(err)
		}
		list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (row, error) {
			var x row
			err := r.Scan(&x.name, &x.common, &x.lang, &x.file, &x.dialect, &x.listed, &x.bonus)
			return x, err
		})
		if err != nil {
			t.Fatal(err)
		}
		return list
	}
	first := catalogue()
	if len(first) != 3 {
		t.Fatalf("catalogue %+v, want 3 quests", first)
	}
	for i, want := range []struct{ common, lang string }{{"driver", "en"}, {"driver", "ru"}, {"mancala", "ru"}} {
		r := first[i]
		if r.common != want.common || r.lang != want.lang || !r.listed || r.dialect != "dagazbot" {
			t.Errorf("quest %d: %+v, want %v, listed, dagazbot", i, r, want)
		}
		if _, err := os.Stat(filepath.Join(uploads, r.file)); err != nil {
			t.Errorf("%s was not copied: %v", r.file, err)
		}
	}
	if first[2].bonus != 1000 {
		t.Errorf("mancala's win bonus %d, want its money string 1000", first[2].bonus)
	}
	if _, err := os.Stat(filepath.Join(uploads, filepath.Dir(first[0].file), "driver.png")); err != nil {
		t.Error("driver.png was not copied beside the quest")
	}

	out = run("--listed", "--dialect", "dagazbot", src)
	if !strings.Contains(out, "4 quest files: 3 unchanged, 1 skipped") {
		t.Errorf("a second run did something:\n%s", out)
	}
	if again := catalogue(); len(again) != len(first) || again[0] != first[0] || again[2] != first[2] {
		t.Errorf("a second run changed the catalogue: %+v", again)
	}
	out = run("--dialect", "reference", filepath.Join(src, "mancala.qmm"))
	if !strings.Contains(out, "1 quest file: 1 updated") {
		t.Errorf("a new dialect:\n%s", out)
	}
	if c := catalogue(); c[2].dialect != "reference" || !c[2].listed || c[0].dialect != "dagazbot" {
		t.Errorf("after --dialect reference on mancala: %+v", c)
	}

	var out2, errs bytes.Buffer
	if code := quests(context.Background(), []string{"add", "--dialect", "tge", src}, func(k string) string { return env[k] },
		&out2, &errs); code != 2 || errs.String() != "questbot quests add: --dialect must be reference or dagazbot, not \"tge\" (see questbot help quests)\n" {
		t.Errorf("a bad dialect: exit %d, %q", code, errs.String())
	}
}

// Ensure quests add takes the catalogue's words from a quests.json beside the files (titles and
// descriptions in both languages, a quest hidden by it), keeps test quests and stubs out of the
// players' catalogue even with --listed, and refuses a manifest that is not valid, naming it.
func TestQuestsAddManifest(t *testing.T) {
	t.Parallel()
	src, uploads := t.TempDir(), t.TempDir()
	for _, n := range []string{"prison.qmm", "test.qmm", "tetris.qmm", "perudo_debug.qmm", "gs.qmm"} {
		data, err := os.ReadFile(corpus.Path(t, "quests", "dagazbot", n))
		if err != nil {
			t.Fatalf("the shared quest corpus is missing: %v", err)
		}
		if err := os.WriteFile(filepath.Join(src, n), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	manifest := `{
		"prison": {"ru": {"title": "Тюрьма", "description": "Выбраться из тюрьмы."}, "en": {"title": "Prison"}},
		"GS": {"hidden": true}
	}`
	if err := os.WriteFile(filepath.Join(src, "quests.json"), []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"DATABASE_URL": pgtest.ConnString(t), "UPLOADS_DIR": uploads}
	var out, errs bytes.Buffer
	if code := quests(context.Background(), []string{"add", "--listed", src}, func(k string) string { return env[k] },
		&out, &errs); code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out.String(), errs.String())
	}
	for _, want := range []string{"no (test quest)", "no (stub: no choice at all)", "Тюрьма"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the table lacks %q:\n%s", want, out.String())
		}
	}
	conn, err := pgx.Connect(context.Background(), env["DATABASE_URL"])
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	rows, err := conn.Query(context.Background(), `SELECT common_name || ':' || name || ':' || listed FROM script
		WHERE file LIKE 'imported/%' ORDER BY common_name`)
	if err != nil {
		t.Fatal(err)
	}
	got, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"gs:Gs:false", "perudo_debug:Перудо (отладка):false", "prison:Тюрьма:true", "test:Test:false", "tetris:Tetris:false"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("catalogue %q, want %q", got, want)
	}
	var titles string
	if err := conn.QueryRow(context.Background(), `SELECT string_agg(lang || '=' || title || '/' || description, ' ' ORDER BY lang)
		FROM quest_title WHERE common_name = 'prison'`).Scan(&titles); err != nil || titles != "en=Prison/ ru=Тюрьма/Выбраться из тюрьмы." {
		t.Errorf("titles %q (%v)", titles, err)
	}

	if err := os.WriteFile(filepath.Join(src, "quests.json"), []byte(`{"prison": {"fr": {"title": "Prison"}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	errs.Reset()
	if code := quests(context.Background(), []string{"add", src}, func(k string) string { return env[k] }, &out, &errs); code != 1 ||
		!strings.Contains(errs.String(), "quests.json") || !strings.Contains(errs.String(), `unknown field "fr"`) {
		t.Errorf("a bad manifest: exit %d, %q", code, errs.String())
	}
}
