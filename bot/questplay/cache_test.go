package questplay

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// Ensure a quest is compiled once however often it is played, again when its file changes, and
// that the cache stays within its bound, least recently used first out.
func TestCache(t *testing.T) {
	dir := t.TempDir()
	src, err := os.ReadFile(filepath.Join(uploadsDir, "cargo-run_en.qmm"))
	if err != nil {
		t.Fatal(err)
	}
	a, b := filepath.Join(dir, "a.qmm"), filepath.Join(dir, "b.qmm")
	for _, f := range []string{a, b} {
		if err := os.WriteFile(f, src, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c := newCache(int64(len(src)) * costFactor * 3 / 2) // room for one quest
	first, err := c.get(a)
	if err != nil {
		t.Fatal(err)
	}
	for range 100 {
		if q, err := c.get(a); err != nil || q != first {
			t.Fatal("a second compilation", err)
		}
	}
	if c.compiles != 1 {
		t.Errorf("%d compilations, want 1", c.compiles)
	}
	if _, err := c.get(b); err != nil {
		t.Fatal(err)
	}
	if n, bytes := c.stats(); n != 1 || bytes > c.max {
		t.Errorf("%d quests of %d bytes cached, want 1 within %d", n, bytes, c.max)
	}
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(b, later, later); err != nil {
		t.Fatal(err)
	}
	if q, err := c.get(b); err != nil || c.compiles != 3 || q == first {
		t.Errorf("a changed file: %d compilations, %v", c.compiles, err)
	}
	if _, err := c.get(filepath.Join(dir, "missing.qmm")); err == nil {
		t.Error("a missing file compiled")
	}
	if err := os.WriteFile(a, []byte("not a quest"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := c.get(a); err == nil {
		t.Error("a broken file compiled")
	}
}
