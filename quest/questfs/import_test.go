package questfs

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/questbot/questbot/qmm"
	"github.com/questbot/questbot/quest/questtrace/corpus"
)

// copyTo copies files of the corpus into dir.
func copyTo(t *testing.T, dir string, names ...string) {
	t.Helper()
	for _, n := range names {
		data, err := os.ReadFile(corpus.Path(t, "quests", "dagazbot", n))
		if err != nil {
			t.Fatalf("the shared quest corpus is missing: %v", err)
		}
		if err := os.WriteFile(filepath.Join(dir, n), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// Ensure Check refuses what does not play, each for its reason, and passes a quest.
func TestCheck(t *testing.T) {
	good, err := os.ReadFile(shipped)
	if err != nil {
		t.Fatal(err)
	}
	if q, err := Check(good); err != nil || q.Doc == nil || q.SHA256 == "" {
		t.Fatalf("a shipped quest: %v", err)
	}
	noStart, err := qmm.DecodeBytes(good)
	if err != nil {
		t.Fatal(err)
	}
	for i := range noStart.Locations {
		noStart.Locations[i].IsStarting = false
	}
	var buf bytes.Buffer
	if err := qmm.Encode(&buf, noStart); err != nil {
		t.Fatal(err)
	}
	noStartData := buf.Bytes()
	for _, c := range []struct {
		name string
		data []byte
		want error
	}{
		{"text", []byte("hello, this is no quest"), ErrNotQuest},
		{"cut", good[:len(good)/2], ErrEndsEarly},
		{"no start", noStartData, ErrNoStart},
	} {
		_, err := Check(c.data)
		var ce *CheckError
		if !errors.Is(err, c.want) || !errors.As(err, &ce) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
}

// Ensure Find pairs x and x_eng as the Russian and English versions of one quest, tells a
// quest's language from its texts, finds the images a quest names beside it, reports a file that
// does not play, and ignores other files.
func TestFind(t *testing.T) {
	dir := t.TempDir()
	copyTo(t, dir, "driver.qmm", "driver_eng.qmm", "driver.png", "KnashHunting.qmm", "space_lines.qmm")
	if err := os.WriteFile(filepath.Join(dir, "broken.qmm"), []byte("not a quest"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("notes"), 0o644); err != nil {
		t.Fatal(err)
	}
	found, err := Find([]string{dir, filepath.Join(dir, "driver.qmm")}, "")
	if err != nil {
		t.Fatal(err)
	}
	type row struct{ file, name, common, lang string }
	var got []row
	for _, f := range found {
		got = append(got, row{filepath.Base(f.Path), f.Name, f.CommonName, f.Lang})
	}
	// The corpus files are named by corpus.json; a file it does not know, by its file name.
	want := []row{
		{"KnashHunting.qmm", "Охота на кнашей", "knashhunting", "ru"},
		{"broken.qmm", "Broken", "broken", "ru"},
		{"driver.qmm", "Водитель", "driver", "ru"},
		{"driver_eng.qmm", "The Driver", "driver", "en"},
		{"space_lines.qmm", "Космические линии", "space_lines", "ru"},
	}
	if !slices.Equal(got, want) {
		t.Fatalf("found %v, want %v", got, want)
	}
	if !errors.Is(found[1].Err, ErrNotQuest) || found[1].Quest != nil {
		t.Errorf("broken.qmm: %v", found[1].Err)
	}
	for _, i := range []int{2, 3} {
		if found[i].Err != nil || len(found[i].Images) != 1 || filepath.Base(found[i].Images[0]) != "driver.png" {
			t.Errorf("%s: images %v, %v", found[i].Path, found[i].Images, found[i].Err)
		}
	}
	if found[0].Bonus != 1000 || found[2].Bonus != 0 {
		t.Errorf("bonuses %d and %d, want the money strings 1000 and none", found[0].Bonus, found[2].Bonus)
	}
	if _, err := Find([]string{filepath.Join(dir, "missing")}, ""); err == nil {
		t.Error("a missing path is no error")
	}
}

// Ensure the language of a quest is that of most letters of its texts, markup and tags aside.
func TestLanguage(t *testing.T) {
	for _, c := range []struct {
		task, want string
	}{
		{"Hello, ranger. Привет.", "en"},
		{"Привет, рейнджер! <clr>Hello<clrEnd> [d12][d13][d14] {[p1]+[p2]}", "ru"},
		{"", "ru"},
	} {
		if got := Language(&qmm.Quest{TaskText: c.task}); got != c.want {
			t.Errorf("%q: %s, want %s", c.task, got, c.want)
		}
	}
}

// Ensure Store copies a quest and its images into a folder named after its content, and that
// storing again writes nothing; an image changed beside the quest is written anew.
func TestStore(t *testing.T) {
	src, root := t.TempDir(), t.TempDir()
	copyTo(t, src, "driver.qmm", "driver.png")
	found, err := Find([]string{filepath.Join(src, "driver.qmm")}, "")
	if err != nil || len(found) != 1 {
		t.Fatal(found, err)
	}
	file, wrote, err := Store(root, found[0])
	if err != nil || wrote != 2 {
		t.Fatalf("stored %q, %d files, %v", file, wrote, err)
	}
	if want := "imported/" + found[0].Quest.SHA256[:16] + "/driver.qmm"; file != want {
		t.Errorf("file %q, want %q", file, want)
	}
	if _, err := os.Stat(filepath.Join(root, filepath.Dir(file), "driver.png")); err != nil {
		t.Error("the image was not stored beside the quest")
	}
	if again, wrote, err := Store(root, found[0]); err != nil || again != file || wrote != 0 {
		t.Errorf("stored again: %q, %d files, %v", again, wrote, err)
	}
	if err := os.WriteFile(filepath.Join(src, "driver.png"), []byte("another picture"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, wrote, err := Store(root, found[0]); err != nil || wrote != 1 {
		t.Errorf("a changed image: %d files, %v", wrote, err)
	}
	if _, _, err := Store(root, Found{Path: "x.qmm"}); err == nil {
		t.Error("an unchecked quest was stored")
	}
}
