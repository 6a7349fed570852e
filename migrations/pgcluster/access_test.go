package pgcluster

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// fakeBin makes a folder with the three server programs New looks for; they are never run.
func fakeBin(t *testing.T) string {
	t.Helper()
	bin := t.TempDir()
	for _, prog := range []string{"initdb", "pg_ctl", "postgres"} {
		if err := os.WriteFile(filepath.Join(bin, prog), []byte("#!/bin/sh\nexit 1\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return bin
}

// Ensure a cluster folder behind a folder the server's user may not enter is refused before any
// server program runs, with an error that names the folder and says what to do.
func TestUnreachableRoot(t *testing.T) {
	t.Parallel()
	// A folder as mktemp -d makes it: 0700, owned by whoever runs the tests.
	locked, err := os.MkdirTemp("", "pgreach")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(locked) })
	c, err := New(Options{Bin: fakeBin(t), Root: filepath.Join(locked, "data", "postgres")})
	if err != nil {
		t.Fatal(err)
	}
	// The server runs as some other user, as it does when the caller is root.
	c.cred = &syscall.Credential{Uid: 54321, Gid: 54321}
	c.userName = "postgres"
	err = c.Init(context.Background())
	var ae *AccessError
	if !errors.Is(err, ErrUnreachable) || !errors.As(err, &ae) {
		t.Fatalf("Init: got %v, want an *AccessError", err)
	}
	if ae.Dir != locked {
		t.Errorf("blocked at %s, want %s", ae.Dir, locked)
	}
	for _, want := range []string{"postgres user", locked, "mode -rwx------", "chmod o+x " + locked} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error lacks %q: %v", want, err)
		}
	}
	if strings.Contains(err.Error(), "fork/exec") {
		t.Errorf("the error is the bare exec failure: %v", err)
	}

	// Letting others through the locked folder is enough: the rest is the user's own.
	if err := os.Chmod(locked, 0o711); err != nil {
		t.Fatal(err)
	}
	if err := c.checkReach(); err != nil {
		t.Fatalf("after chmod o+x: %v", err)
	}
}

// Ensure the search permission is read as the kernel reads it: the owner's bits for the owner,
// the group's for members, the others' for everybody else.
func TestMayEnter(t *testing.T) {
	t.Parallel()
	c := &Cluster{cred: &syscall.Credential{Uid: 100, Gid: 200, Groups: []uint32{300}}}
	for _, tc := range []struct {
		mode     os.FileMode
		uid, gid uint32
		want     bool
	}{
		{0o700, 100, 0, true},
		{0o070, 100, 200, false}, // the owner's bits decide for the owner
		{0o710, 0, 200, true},
		{0o710, 0, 300, true},
		{0o701, 0, 200, false}, // the group's bits decide for members
		{0o701, 0, 0, true},
		{0o700, 0, 0, false},
		{0o755, 0, 0, true},
	} {
		if got := c.mayEnter(tc.mode, tc.uid, tc.gid); got != tc.want {
			t.Errorf("mode %o owner %d:%d: got %v, want %v", tc.mode, tc.uid, tc.gid, got, tc.want)
		}
	}
}

// Ensure TestUnreachableRoot holds for a caller who is not root, who may not give folders to
// another user: run as root, it runs that test again in a copy of this test binary as the nobody
// user (65534), so both cases are tested wherever the tests run.
func TestUnreachableRootNotRoot(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("not root: TestUnreachableRoot itself runs as a user who is not root")
	}
	t.Parallel()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	// A folder the nobody user may enter, holding a copy of the binary it may run.
	dir, err := os.MkdirTemp("", "pgnotroot")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	bin := filepath.Join(dir, "pgcluster.test")
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-test.run", "^TestUnreachableRoot$", "-test.v")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+dir, "TMPDIR="+os.TempDir())
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestUnreachableRoot") {
		t.Fatalf("TestUnreachableRoot as the nobody user: %v\n%s", err, out)
	}
}
