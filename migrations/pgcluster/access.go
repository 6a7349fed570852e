package pgcluster

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"
)

// ErrUnreachable is returned, wrapped in an *AccessError, when the cluster's folder lies behind a
// folder that the server's user may not enter.
var ErrUnreachable = errors.New("the PostgreSQL server's user cannot reach the cluster folder")

// AccessError says which folder on the way to the cluster stops the server's user. It happens
// when questbot runs as root (so the server runs as the postgres user) from a folder that only
// root may enter, such as one made by mktemp -d.
type AccessError struct {
	// Root is the cluster's folder.
	Root string
	// Dir is the first folder on the way to Root that the user cannot enter (no search
	// permission), with its mode and owner.
	Dir   string
	Mode  fs.FileMode
	Owner uint32
	// User is the name of the server's user.
	User string
}

func (e *AccessError) Error() string {
	owner := strconv.FormatUint(uint64(e.Owner), 10)
	if e.Owner == 0 {
		owner = "root"
	}
	return fmt.Sprintf("pgcluster: %v: PostgreSQL runs as the %s user when started by root, and %s may not enter %s "+
		"(mode %v, owner %s), which leads to %s; use a cluster folder %s can reach, or let it through with: chmod o+x %s",
		ErrUnreachable, e.User, e.User, e.Dir, e.Mode.Perm(), owner, e.Root, e.User, e.Dir)
}

// Unwrap returns ErrUnreachable.
func (e *AccessError) Unwrap() error { return ErrUnreachable }

// checkReach makes sure the server's user may enter every folder from / down to the cluster's
// root (those that exist). Without this check the server programs fail with nothing better than
// "fork/exec …: permission denied", since the kernel refuses to change into their working folder.
// It only looks at the mode bits; access control lists are not consulted.
func (c *Cluster) checkReach() error { return c.checkReachOf(c.root) }

// checkReachOf is checkReach for the way from / down to to.
func (c *Cluster) checkReachOf(to string) error {
	if c.cred == nil {
		return nil
	}
	var dirs []string
	for dir := to; ; dir = filepath.Dir(dir) {
		dirs = append(dirs, dir)
		if dir == filepath.Dir(dir) {
			break
		}
	}
	slices.Reverse(dirs)
	for _, dir := range dirs {
		st, err := os.Stat(dir)
		if errors.Is(err, fs.ErrNotExist) {
			return nil // made later, by and for the server's user
		}
		if err != nil {
			return fmt.Errorf("pgcluster: %w", err)
		}
		sys, ok := st.Sys().(*syscall.Stat_t)
		if !ok {
			return nil
		}
		if !c.mayEnter(st.Mode(), sys.Uid, sys.Gid) {
			return &AccessError{Root: c.root, Dir: dir, Mode: st.Mode(), Owner: sys.Uid, User: c.userName}
		}
	}
	return nil
}

// mayEnter applies the search permission bits of a folder to the server's user: the owner's bits
// when the user owns it, else the group's when the user is in its group, else the others'.
func (c *Cluster) mayEnter(mode fs.FileMode, uid, gid uint32) bool {
	switch {
	case uid == c.cred.Uid:
		return mode&0o100 != 0
	case gid == c.cred.Gid || slices.Contains(c.cred.Groups, gid):
		return mode&0o010 != 0
	}
	return mode&0o001 != 0
}
