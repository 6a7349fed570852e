package questfs

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// Ensure an image is found as the reference finds the art of Space Rangers' quests: a name
// without an extension stands for the name with .jpg (then .png) added, case is ignored, and the
// quest's folders come before the operator's images folder; a path never leaves the folders.
func TestImageLookup(t *testing.T) {
	quest, art := t.TempDir(), t.TempDir()
	for _, f := range []string{filepath.Join(quest, "driver_02.jpg"), filepath.Join(quest, "Maze.PNG"),
		filepath.Join(quest, "images", "x.gif"), filepath.Join(art, "driver_02.jpg"), filepath.Join(art, "Bank_01.jpg"),
		filepath.Join(art, "plain")} {
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, []byte(f), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	dirs := []string{quest, filepath.Join(quest, "images"), art}
	for _, c := range []struct{ name, want string }{
		{"Driver_02", filepath.Join(quest, "driver_02.jpg")},
		{"driver_02.JPG", filepath.Join(quest, "driver_02.jpg")},
		{"maze", filepath.Join(quest, "Maze.PNG")},
		{"X.GIF", filepath.Join(quest, "images", "x.gif")},
		{"bank_01", filepath.Join(art, "Bank_01.jpg")},
		{"plain", filepath.Join(art, "plain")},
		{"../" + filepath.Base(art) + "/Bank_01", filepath.Join(art, "Bank_01.jpg")}, // reduced to its base name
		{"Gobsaur_03", ""},
		{"..", ""},
		{"", ""},
	} {
		if got := LookupImage(c.name, dirs...); got != c.want {
			t.Errorf("%q: %q, want %q", c.name, got, c.want)
		}
	}
	if got := ImageCandidates("Driver_02"); !slices.Equal(got, []string{"Driver_02", "Driver_02.jpg", "Driver_02.png"}) {
		t.Errorf("candidates %q", got)
	}
	if got := ImageCandidates("a.png"); !slices.Equal(got, []string{"a.png"}) {
		t.Errorf("candidates of a file name %q", got)
	}

	// A quest opened through Files looks in the operator's folder after its own.
	copyTo(t, quest, "driver.qmm")
	files := New(quest, 0)
	files.SetImagesDir(art)
	q, err := files.Open("driver.qmm")
	if err != nil {
		t.Fatal(err)
	}
	if got := q.Image("Driver_02"); got != filepath.Join(quest, "driver_02.jpg") {
		t.Errorf("the quest's own picture: %q", got)
	}
	if got := q.Image("BANK_01"); got != filepath.Join(art, "Bank_01.jpg") {
		t.Errorf("the operator's picture: %q", got)
	}
	var missing []string
	for _, w := range Lint(q, nil) {
		if w.Kind == WarnMissingImage {
			missing = append(missing, w.Name)
		}
	}
	if slices.Contains(missing, "Driver_02") || !slices.Contains(missing, "Gobsaur_03") {
		t.Errorf("missing images %q", missing)
	}
}
