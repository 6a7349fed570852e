package atomicfile

import (
	"os"
	"path/filepath"
	"testing"
)

// Ensure Write creates the folder, replaces an existing file whole and leaves no temporary file,
// and that a failed write leaves neither the file nor a temporary one.
func TestWrite(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a", "b.png")
	for _, data := range []string{"first", "second, longer"} {
		if err := Write(path, []byte(data), ".b-*"); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(path)
		if err != nil || string(got) != data {
			t.Fatalf("read %q, %v; want %q", got, err, data)
		}
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o644 {
		t.Fatalf("mode %v, %v; want 0644", fi.Mode(), err)
	}
	left, _ := filepath.Glob(filepath.Join(dir, "a", ".b-*"))
	if len(left) != 0 {
		t.Fatalf("temporary files left: %v", left)
	}
	// A folder where the file should be: the rename fails.
	bad := filepath.Join(dir, "c")
	if err := os.MkdirAll(filepath.Join(bad, "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := Write(bad, []byte("x"), ".c-*"); err == nil {
		t.Fatal("writing over a folder: no error")
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".c-*")); len(left) != 0 {
		t.Fatalf("temporary files left after a failure: %v", left)
	}
}
