package questfs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/questbot/questbot/quest/questtrace/corpus"
)

// Ensure every quest of the shared corpus is found with real catalogue words: each quest listed
// for players has a title and a description in both languages, and its title is not the name of
// its file in Russian; the test quests and stubs are hidden (the reference player's test quests, test,
// perudo_debug, tetris) and testing, a real quest, is not.
func TestCorpusWords(t *testing.T) {
	t.Parallel()
	found, err := Find([]string{corpus.Path(t, "quests", "dagazbot"), corpus.Path(t, "quests", "srq-tests")}, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(found) < 100 {
		t.Fatalf("%d quest files found in the corpus", len(found))
	}
	for _, f := range found {
		file := filepath.Base(f.Path)
		base := strings.TrimSuffix(strings.TrimSuffix(file, filepath.Ext(file)), "_eng")
		if f.Err != nil {
			t.Errorf("%s: %v", file, f.Err)
			continue
		}
		hide := strings.Contains(f.Path, "srq-tests") || base == "test" || base == "tetris" || base == "perudo_debug"
		if (f.Hidden != "") != hide {
			t.Errorf("%s: hidden %q", file, f.Hidden)
		}
		if hide {
			continue
		}
		for _, lang := range []string{"en", "ru"} {
			if w := f.Titles[lang]; w.Title == "" || w.Description == "" {
				t.Errorf("%s: no %s title and description: %+v", file, lang, w)
			}
		}
		// In English the file's name may be the real title (Pizza); never in Russian.
		if f.Name != f.Titles[f.Lang].Title || f.Titles["ru"].Title == displayName(base) {
			t.Errorf("%s: listed as %q", file, f.Name)
		}
	}
}

// Ensure the corpus words go by a file's content: a file named as a corpus quest with other
// content gets nothing from them, and the manifest beside a corpus file comes first.
func TestCorpusWordsByContent(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	copyTo(t, dir, "prison.qmm", "bank.qmm")
	data, err := os.ReadFile(corpus.Path(t, "quests", "dagazbot", "pizza.qmm"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "driver.qmm"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ManifestName), []byte(`{"bank": {"ru": {"title": "Ограбление"}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	found, err := Find([]string{dir}, "")
	if err != nil || len(found) != 3 {
		t.Fatalf("%v %v", found, err)
	}
	// bank: the manifest's; driver (pizza's content): pizza's words under driver's name; prison.
	for i, want := range []string{"Ограбление", "Пицца", "Тюрьма"} {
		if found[i].Name != want {
			t.Errorf("%s: %q, want %q", filepath.Base(found[i].Path), found[i].Name, want)
		}
	}
	if _, ok := found[0].Titles["en"]; ok {
		t.Errorf("bank: the corpus words mixed into the manifest's: %+v", found[0].Titles)
	}
}

// Ensure a corpus manifest that is not valid is refused with what is wrong.
func TestReadCorpus(t *testing.T) {
	t.Parallel()
	for data, want := range map[string]string{
		`{"x": {"files": ["abc"]}}`: `"abc" is not a SHA-256 digest`,
		`{"x": {"hidden": true}}`:   `no files`,
		`{"x": {"en": {"title": " "}, "files": ["` + strings.Repeat("a", 64) + `"]}}`:                                `the en title is empty`,
		`{"x": {"files": ["` + strings.Repeat("a", 64) + `"]}, "y": {"files": ["` + strings.Repeat("a", 64) + `"]}}`: `named twice`,
		`{"x": {"fr": {}}}`: `unknown field "fr"`,
	} {
		if _, err := readCorpus([]byte(data)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", data, err, want)
		}
	}
	if _, err := readCorpus(corpusJSON); err != nil {
		t.Errorf("corpus.json: %v", err)
	}
}
