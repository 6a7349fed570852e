package questplay_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"github.com/questbot/questbot/quest/questfs"
	"github.com/questbot/questbot/quest/questpg"
)

// importCorpus lists the quests of the shared corpus (its dagazbot and srq-tests folders) in
// the catalogue as questbot quests add --listed does, the files where they are, and returns what
// it found and the script id of each file by its base name (the first of the folders that has it).
func (e *env) importCorpus(t *testing.T) ([]questfs.Found, map[string]int64) {
	t.Helper()
	dirs := []string{filepath.Join(sharedDir(t), "quests", "dagazbot"), filepath.Join(sharedDir(t), "quests", "srq-tests")}
	found, err := questfs.Find(dirs, "")
	if err != nil {
		t.Fatal(err)
	}
	store := questpg.New()
	ids := map[string]int64{}
	for _, f := range found {
		if f.Err != nil {
			t.Fatalf("%s: %v", f.Path, f.Err)
		}
		listed := f.Hidden == ""
		titles := map[string]questpg.Title{}
		for lang, w := range f.Titles {
			titles[lang] = questpg.Title{Title: w.Title, Description: w.Description}
		}
		err := pgx.BeginFunc(context.Background(), e.Pool, func(tx pgx.Tx) error {
			done, err := store.Import(context.Background(), tx, questpg.ImportedQuest{File: f.Path, Name: f.Name,
				CommonName: f.CommonName, Lang: f.Lang, WinBonus: f.Bonus, Listed: &listed})
			if _, seen := ids[filepath.Base(f.Path)]; !seen {
				ids[filepath.Base(f.Path)] = done.ID
			}
			if err != nil {
				return err
			}
			return store.SetTitles(context.Background(), tx, f.CommonName, titles)
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return found, ids
}

// catalogueLabels sends /quest and pages through the whole catalogue in place, returning the
// quests' buttons.
func (e *env) catalogueLabels(t *testing.T, user int64, header, next, page string) []string {
	t.Helper()
	before := e.LastID(user)
	e.Send(t, user, "/quest")
	m := e.WaitTextAfter(t, user, before, header)
	var out []string
	for n := 1; ; n++ {
		hasNext := false
		for _, row := range labels(m) {
			for _, l := range row {
				switch {
				case l == next:
					hasNext = true
				case !strings.HasPrefix(l, "‹"):
					out = append(out, l)
				}
			}
		}
		if !hasNext {
			return out
		}
		e.Press(t, user, m, next)
		want := fmt.Sprintf(page, n+1)
		e.WaitFor(t, want, func() bool { return strings.Contains(e.message(t, user, m.ID).Text, want) })
		m = e.message(t, user, m.ID)
	}
}

// fileTitle is the title a quest had from its file's name alone: underscores as spaces, a capital.
func fileTitle(path string) string {
	base := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	base = strings.ReplaceAll(strings.TrimSuffix(base, "_eng"), "_", " ")
	r, size := utf8.DecodeRuneInString(base)
	return string(unicode.ToUpper(r)) + base[size:]
}

// Ensure the catalogue of the imported corpus as players meet it: in Russian no quest is listed
// under its file's name (Gs, Ht, Mm, 15, Perudo debug), in English each under its English title;
// the test quests and stubs are not listed; /quest тюрьма finds Prison, and an English player
// finds Pizza by its Russian title.
func TestCorpusCatalogue(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.product = true
	e.start(t)
	found, ids := e.importCorpus(t)
	e.User(61, "Рита", "ru")
	e.User(62, "Ann", "en")

	fileNames := map[string]bool{}
	english := map[string]bool{"Cargo run": true, "Orbital duel": true} // the shipped quests
	hidden := map[string]bool{}
	commons, inEnglish := map[string]bool{}, map[string]bool{}
	for _, f := range found {
		fileNames[fileTitle(f.Path)] = true
		if f.Hidden != "" {
			hidden[f.Name] = true
			continue
		}
		commons[f.CommonName] = true
		if f.Lang == "en" {
			inEnglish[f.CommonName] = true
		}
		english[f.Titles["en"].Title] = true
	}
	ru := e.catalogueLabels(t, 61, "Выберите квест:", "Дальше ›", "Страница %d из")
	if len(ru) != len(commons)+2 {
		t.Errorf("%d quests in the Russian catalogue, want %d: %q", len(ru), len(commons)+2, ru)
	}
	for _, l := range ru {
		if fileNames[l] {
			t.Errorf("the Russian catalogue lists %q, its file's name", l)
		}
		if hidden[l] {
			t.Errorf("the Russian catalogue lists %q, a test quest or a stub", l)
		}
	}
	for _, name := range []string{"Кубок Четырёх", "Орлянка", "Магический штурм", "Пятнашки коронации", "Тюрьма",
		"Тестирование"} {
		if !slices.Contains(ru, name) {
			t.Errorf("the Russian catalogue lacks %q", name)
		}
	}
	en := e.catalogueLabels(t, 62, "Choose a quest:", "More ›", "Page %d of")
	for _, l := range en {
		if !english[l] || hidden[l] {
			t.Errorf("the English catalogue lists %q", l)
		}
	}
	// An English player's catalogue has the quests with an English version.
	if len(en) != len(inEnglish)+2 {
		t.Errorf("%d quests in English, want %d: %q", len(en), len(inEnglish)+2, en)
	}

	// A search finds a quest by its title in either language.
	e.Send(t, 61, "/quest тюрьма")
	e.WaitFor(t, "Prison", func() bool { g, ok := e.game(t, 61); return ok && g.script == ids["prison.qmm"] })
	e.Send(t, 62, "/quest пицца")
	e.WaitFor(t, "Pizza in English", func() bool { g, ok := e.game(t, 62); return ok && g.script == ids["pizza_eng.qmm"] })
}
