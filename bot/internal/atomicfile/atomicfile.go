// Package atomicfile writes files that are either whole under their final name or absent: the
// data goes to a temporary file in the same folder, which is renamed into place. A reader never
// sees half a file, and a crash leaves at most a temporary file, named by the caller's pattern so
// that the caller's sweep can recognise and remove it.
package atomicfile

import (
	"fmt"
	"os"
	"path/filepath"
)

// Write writes data to path, creating its folder if needed, through a temporary file named by
// pattern (as os.CreateTemp takes it: "*" is replaced by a random string) in path's folder. The
// file is readable by everyone (0644), as the files a bot serves must be.
func Write(path string, data []byte, pattern string) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, pattern)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(f.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("write %s: %w", filepath.Base(path), err)
	}
	return nil
}
