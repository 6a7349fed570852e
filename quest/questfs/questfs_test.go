package questfs

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const shipped = "../../uploads/cargo-run_en.qmm"

// Ensure a quest is compiled once however often it is opened, again when its file changes, and
// that the cache stays within its bound, least recently used first out.
func TestCache(t *testing.T) {
	dir := t.TempDir()
	src, err := os.ReadFile(shipped)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"a.qmm", "b.qmm"} {
		if err := os.WriteFile(filepath.Join(dir, name), src, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f := New(dir, int64(len(src))*costFactor*3/2) // room for one quest
	first, err := f.Open("a.qmm")
	if err != nil {
		t.Fatal(err)
	}
	for range 100 {
		if q, err := f.Open("a.qmm"); err != nil || q != first {
			t.Fatal("a second compilation", err)
		}
	}
	if f.compiles != 1 {
		t.Errorf("%d compilations, want 1", f.compiles)
	}
	if first.Dir != dir || first.SHA256 == "" || first.Doc == nil {
		t.Errorf("quest: dir %q, sha %q, doc %v", first.Dir, first.SHA256, first.Doc != nil)
	}
	if _, err := f.Open(filepath.Join(dir, "b.qmm")); err != nil {
		t.Fatal(err)
	}
	if n, bytes := f.stats(); n != 1 || bytes > f.max {
		t.Errorf("%d quests of %d bytes kept, want 1 within %d", n, bytes, f.max)
	}
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(filepath.Join(dir, "b.qmm"), later, later); err != nil {
		t.Fatal(err)
	}
	if q, err := f.Open("b.qmm"); err != nil || f.compiles != 3 || q == first {
		t.Errorf("a changed file: %d compilations, %v", f.compiles, err)
	}
}

// Ensure every failure matches ErrUnplayable and never names the file's path.
func TestUnplayable(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "broken.qmm"), []byte("not a quest"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "folder.qmm"), 0o755); err != nil {
		t.Fatal(err)
	}
	f := New(dir, 0)
	for _, name := range []string{"missing.qmm", "broken.qmm", "folder.qmm"} {
		_, err := f.Open(name)
		if !errors.Is(err, ErrUnplayable) {
			t.Errorf("%s: %v, want ErrUnplayable", name, err)
			continue
		}
		if strings.Contains(err.Error(), dir) {
			t.Errorf("%s: the error names the path: %v", name, err)
		}
	}
}

// Ensure derived values are built once per quest and images are found only inside the quest's
// folders.
func TestDerivedAndImages(t *testing.T) {
	dir := t.TempDir()
	src, err := os.ReadFile(shipped)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "q.qmm"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "images"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "images", "ship.png"), []byte("png"), 0o644); err != nil {
		t.Fatal(err)
	}
	q, err := New(dir, 0).Open("q.qmm")
	if err != nil {
		t.Fatal(err)
	}
	type k struct{}
	builds := 0
	for range 3 {
		if v := q.Derived(k{}, func(*Quest) any { builds++; return 42 }); v != 42 {
			t.Fatalf("derived %v", v)
		}
	}
	if builds != 1 {
		t.Errorf("%d builds, want 1", builds)
	}
	if got := q.Image("ship.png"); got != filepath.Join(dir, "images", "ship.png") {
		t.Errorf("image: %q", got)
	}
	for _, name := range []string{"../q.qmm", "..", "", "missing.png"} {
		if name == "../q.qmm" {
			// Reduced to its base name, this is the quest file itself: found, but only inside
			// the quest's folder.
			if got := q.Image(name); got != filepath.Join(dir, "q.qmm") {
				t.Errorf("image %q: %q", name, got)
			}
			continue
		}
		if got := q.Image(name); got != "" {
			t.Errorf("image %q: %q, want none", name, got)
		}
	}
}
