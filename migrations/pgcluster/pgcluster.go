// Package pgcluster runs a private PostgreSQL cluster from the server binaries installed on the
// machine: the embedded database of `questbot serve` when no DATABASE_URL is given, and the
// throwaway database of the tests.
//
// A cluster lives in one root folder: the data directory (data/), the server log (server.log) and,
// when the path is short enough, the Unix socket. The server listens on that Unix socket only, never
// on TCP, so any number of clusters can run side by side without port clashes.
//
// PostgreSQL refuses to run as root. When the calling process is root, every server program is run
// as the existing "postgres" system user, and the root folder is handed over to that user.
package pgcluster

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// DefaultBin is where Debian installs the PostgreSQL 15 server programs.
const DefaultBin = "/usr/lib/postgresql/15/bin"

// maxSocketPath is the longest socket path the kernel accepts (sun_path is 108 bytes with the
// terminating NUL), less a margin.
const maxSocketPath = 100

// ErrNoBinaries is returned when the PostgreSQL server programs are not where they are expected.
var ErrNoBinaries = errors.New("PostgreSQL server binaries not found")

// Options says how a cluster is set up.
type Options struct {
	// Bin is the folder holding initdb, pg_ctl and postgres. Empty means DefaultBin.
	Bin string
	// Root is the cluster's folder. It is created if missing.
	Root string
	// Durable keeps PostgreSQL's crash safety (fsync and friends). Test clusters turn it off for
	// speed: their data is thrown away anyway.
	Durable bool
}

// Cluster is one private PostgreSQL cluster.
type Cluster struct {
	bin     string
	root    string
	durable bool
	sockDir string
	// cred is nil unless the server runs as another user, userName.
	cred     *syscall.Credential
	userName string

	// started is the server process the last Start of this Cluster left running.
	mu      sync.Mutex
	started serverProcess
}

// serverProcess names one process: its id and its start time (from /proc, empty without it),
// so that a later process given the same id is not taken for it.
type serverProcess struct {
	pid   int
	since string
}

// New checks the binaries and prepares a cluster description; it neither creates nor starts
// anything.
func New(opts Options) (*Cluster, error) {
	bin := opts.Bin
	if bin == "" {
		bin = DefaultBin
	}
	for _, prog := range []string{"initdb", "pg_ctl", "postgres"} {
		if _, err := os.Stat(filepath.Join(bin, prog)); err != nil {
			return nil, fmt.Errorf("%w in %s (%s is missing; install PostgreSQL 15 or set PG_BIN)", ErrNoBinaries, bin, prog)
		}
	}
	root, err := filepath.Abs(opts.Root)
	if err != nil {
		return nil, fmt.Errorf("pgcluster: %w", err)
	}
	c := &Cluster{bin: bin, root: root, durable: opts.Durable}
	c.sockDir = root
	if len(filepath.Join(root, ".s.PGSQL.5432")) > maxSocketPath {
		// A deep project path would make the socket path too long: use a short folder in the
		// temporary directory, named after the root so the same cluster always gets the same one.
		sum := sha256.Sum256([]byte(root))
		c.sockDir = filepath.Join(os.TempDir(), "questbot-pg-"+hex.EncodeToString(sum[:6]))
	}
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			return nil, fmt.Errorf("pgcluster: running as root needs the postgres system user: %w", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		c.cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
		c.userName = u.Username
		// The supplementary groups, so the server may use what they let it reach.
		if ids, err := u.GroupIds(); err == nil {
			for _, id := range ids {
				if g, err := strconv.Atoi(id); err == nil && uint32(g) != c.cred.Gid {
					c.cred.Groups = append(c.cred.Groups, uint32(g))
				}
			}
		}
	}
	return c, nil
}

// Root returns the cluster's folder.
func (c *Cluster) Root() string { return c.root }

// DataDir returns the PostgreSQL data directory.
func (c *Cluster) DataDir() string { return filepath.Join(c.root, "data") }

// SocketDir returns the folder holding the server's Unix socket.
func (c *Cluster) SocketDir() string { return c.sockDir }

// ConnString returns a connection string for database db on this cluster.
func (c *Cluster) ConnString(db string) string {
	return fmt.Sprintf("host=%s port=5432 user=postgres dbname=%s sslmode=disable", c.sockDir, db)
}

// Initialized reports whether the data directory already holds a cluster.
func (c *Cluster) Initialized() bool {
	_, err := os.Stat(filepath.Join(c.DataDir(), "PG_VERSION"))
	return err == nil
}

// Init creates the cluster with initdb unless it exists already.
func (c *Cluster) Init(ctx context.Context) error {
	if c.Initialized() {
		return nil
	}
	// Check the way to the root before making the root: that gives it to the server's user,
	// which only root may do, so a caller who is not root would otherwise get a bare chown
	// failure instead of the folder that blocks the way. The root itself is the server's once
	// made, whoever owned it before.
	if err := c.checkReachOf(filepath.Dir(c.root)); err != nil {
		return err
	}
	if err := c.mkdir(c.root); err != nil {
		return err
	}
	args := []string{"-D", c.DataDir(), "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C.UTF-8"}
	if !c.durable {
		args = append(args, "--no-sync")
	}
	if err := c.run(ctx, "initdb", args...); err != nil {
		// Leave no half-made cluster behind: the next attempt starts afresh.
		os.RemoveAll(c.DataDir())
		return err
	}
	return nil
}

// Running reports whether a server is running on the data directory.
func (c *Cluster) Running(ctx context.Context) bool {
	return c.run(ctx, "pg_ctl", "status", "-D", c.DataDir()) == nil
}

// Start starts the server and waits until it accepts connections. The server settings are
// rewritten on every start, so a moved project folder or a changed durability setting takes effect.
func (c *Cluster) Start(ctx context.Context) error {
	if err := c.mkdir(c.sockDir); err != nil {
		return err
	}
	if err := c.writeSettings(); err != nil {
		return err
	}
	logFile := filepath.Join(c.root, "server.log")
	err := c.run(ctx, "pg_ctl", "start", "-w", "-t", "60", "-D", c.DataDir(), "-l", logFile)
	if err != nil && !errors.Is(err, ErrUnreachable) {
		// pg_ctl only says to examine the log: quote its end.
		if tail := lastLines(logFile, 3); tail != "" {
			err = fmt.Errorf("%w; %s ends with: %s", err, logFile, tail)
		}
	}
	if err == nil {
		c.adopt()
	}
	return err
}

// adopt records the server just started as the one Status asks. Without its process id,
// Status falls back on the lock file.
func (c *Cluster) adopt() {
	if ok, err := c.Adopt(); !ok || err != nil {
		c.mu.Lock()
		c.started = serverProcess{}
		c.mu.Unlock()
	}
}

// Adopt reports whether a server runs on the data directory, from its lock file (PID), and if
// one does, makes it the one Status asks: a server that runs although Status lost sight of it
// is watched, not started a second time. An error says the lock file could not be read.
func (c *Cluster) Adopt() (bool, error) {
	pid, err := c.PID()
	switch {
	case errors.Is(err, ErrNotRunning):
		return false, nil
	case err != nil:
		return false, err
	}
	c.mu.Lock()
	c.started = serverProcess{pid: pid, since: processStart(pid)}
	c.mu.Unlock()
	return true, nil
}

// Status is what is known of a cluster's server.
type Status int

const (
	// StatusRunning: the server's process exists.
	StatusRunning Status = iota
	// StatusStopped: the server's process is gone (or a zombie).
	StatusStopped
	// StatusUnknown: the check itself failed (out of file descriptors, say); the server may
	// well run. Status returns the error with it.
	StatusUnknown
)

// Status tells whether the server runs, from its process itself: the one the last Start left
// running is asked by its process id (signal 0, and /proc for a zombie or a process that took
// over the id); it reads no file of the data directory, so a process short of file descriptors
// does not take a running server for a dead one. A Cluster that started no server asks the
// lock file (PID). A check that fails in a way that says nothing of the server (EMFILE, say) is
// StatusUnknown with its error: never a reason to start a second server.
func (c *Cluster) Status() (Status, error) {
	c.mu.Lock()
	p := c.started
	c.mu.Unlock()
	if p.pid == 0 {
		_, err := c.PID()
		switch {
		case err == nil:
			return StatusRunning, nil
		case errors.Is(err, ErrNotRunning):
			return StatusStopped, nil
		}
		return StatusUnknown, err
	}
	return processStatus(p)
}

// processStatus tells whether process p runs.
func processStatus(p serverProcess) (Status, error) {
	err := syscall.Kill(p.pid, 0)
	switch {
	case errors.Is(err, syscall.ESRCH):
		return StatusStopped, nil
	case err != nil && !errors.Is(err, syscall.EPERM):
		return StatusUnknown, fmt.Errorf("pgcluster: signal 0 to the server (pid %d): %w", p.pid, err)
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p.pid))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if _, serr := os.Stat("/proc/self"); serr != nil {
			return StatusRunning, nil // no /proc: signal 0 has to do
		}
		return StatusStopped, nil // gone since the signal
	case err != nil:
		return StatusUnknown, fmt.Errorf("pgcluster: reading the state of the server (pid %d): %w", p.pid, err)
	}
	state, since, ok := parseStat(stat)
	switch {
	case !ok:
		return StatusUnknown, fmt.Errorf("pgcluster: the state of process %d cannot be read: %q", p.pid, stat)
	case state == 'Z' || state == 'X':
		return StatusStopped, nil
	case p.since != "" && since != p.since:
		return StatusStopped, nil // another process has the id now
	}
	return StatusRunning, nil
}

// processStart returns the start time of process pid as /proc says it, or "" without it.
func processStart(pid int) string {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return ""
	}
	_, since, _ := parseStat(stat)
	return since
}

// parseStat reads the state and the start time (fields 3 and 22) of a /proc/<pid>/stat. The
// fields follow the command name, which is in parentheses and may hold anything.
func parseStat(stat []byte) (state byte, since string, ok bool) {
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, "", false
	}
	f := strings.Fields(string(stat[i+1:]))
	if len(f) < 20 || len(f[0]) != 1 {
		return 0, "", false
	}
	return f[0][0], f[19], true
}

// lastLines returns the last n lines of a file (from its last 4 KB), joined with " | ", or ""
// when it cannot be read.
func lastLines(path string, n int) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Size() > 4096 {
		f.Seek(st.Size()-4096, io.SeekStart)
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return ""
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], " | ")
}

// ErrNotRunning is returned by PID when no server runs on the data directory.
var ErrNotRunning = errors.New("pgcluster: the server is not running")

// PID returns the process id of the running server (the postmaster), from the lock file the
// server keeps in its data directory. It returns ErrNotRunning when there is no lock file or its
// process is gone.
func (c *Cluster) PID() (int, error) {
	data, err := os.ReadFile(filepath.Join(c.DataDir(), "postmaster.pid"))
	if errors.Is(err, fs.ErrNotExist) {
		return 0, ErrNotRunning
	}
	if err != nil {
		return 0, fmt.Errorf("pgcluster: %w", err)
	}
	first, _, _ := strings.Cut(string(data), "\n")
	pid, err := strconv.Atoi(strings.TrimSpace(first))
	if err != nil || pid <= 0 {
		return 0, fmt.Errorf("pgcluster: postmaster.pid holds no process id: %q", first)
	}
	if !processAlive(pid) {
		return 0, ErrNotRunning
	}
	return pid, nil
}

// Alive reports whether the server's process exists. Unlike Running it runs no program, so it is
// cheap enough to ask every second.
func (c *Cluster) Alive() bool {
	_, err := c.PID()
	return err == nil
}

// processAlive reports whether process pid exists and is not a zombie (a dead server whose
// parent has not collected it yet, as when the caller is the reaper of orphans).
func processAlive(pid int) bool {
	if err := syscall.Kill(pid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true // no /proc: signal 0 has to do
	}
	if state, _, ok := parseStat(stat); ok {
		return state != 'Z' && state != 'X'
	}
	return true
}

// Stop stops the server. Fast mode rolls back open transactions and shuts down cleanly; immediate
// mode (for throwaway clusters) just ends the processes.
func (c *Cluster) Stop(ctx context.Context, immediate bool) error {
	mode := "fast"
	if immediate {
		mode = "immediate"
	}
	return c.run(ctx, "pg_ctl", "stop", "-w", "-m", mode, "-D", c.DataDir())
}

// settingsFile is included from postgresql.conf and rewritten on every start.
const settingsFile = "questbot.conf"

func (c *Cluster) writeSettings() error {
	var b strings.Builder
	b.WriteString("# Written by questbot on every start; edit postgresql.conf for your own settings.\n")
	b.WriteString("listen_addresses = ''\n")
	fmt.Fprintf(&b, "unix_socket_directories = '%s'\n", strings.ReplaceAll(c.sockDir, "'", "''"))
	if !c.durable {
		// Test clusters also serve many databases at once, each with a transport's pool.
		b.WriteString("fsync = off\nsynchronous_commit = off\nfull_page_writes = off\nmax_connections = 400\n")
	}
	path := filepath.Join(c.DataDir(), settingsFile)
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		return fmt.Errorf("pgcluster: %w", err)
	}
	if err := c.chown(path); err != nil {
		return err
	}
	conf := filepath.Join(c.DataDir(), "postgresql.conf")
	data, err := os.ReadFile(conf)
	if err != nil {
		return fmt.Errorf("pgcluster: %w", err)
	}
	include := "include_if_exists = '" + settingsFile + "'\n"
	if bytes.Contains(data, []byte(include)) {
		return nil
	}
	f, err := os.OpenFile(conf, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("pgcluster: %w", err)
	}
	_, err = f.WriteString("\n" + include)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("pgcluster: %w", err)
	}
	return nil
}

// mkdir creates dir, owned by the server's user. Missing folders on the way are made enterable
// by everybody (0755), so the server's user can pass through them.
func (c *Cluster) mkdir(dir string) error {
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return fmt.Errorf("pgcluster: %w", err)
	}
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("pgcluster: %w", err)
	}
	return c.chown(dir)
}

func (c *Cluster) chown(path string) error {
	if c.cred == nil {
		return nil
	}
	if err := os.Chown(path, int(c.cred.Uid), int(c.cred.Gid)); err != nil {
		return fmt.Errorf("pgcluster: %w", err)
	}
	return nil
}

// run runs one of the server programs, as the server's user, and turns a failure into an error
// that carries the program's own words.
func (c *Cluster) run(ctx context.Context, prog string, args ...string) error {
	if err := c.checkReach(); err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, filepath.Join(c.bin, prog), args...)
	cmd.Dir = c.root
	if c.cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: c.cred}
		cmd.Env = append(os.Environ(), "HOME="+c.root)
	}
	// The server started by pg_ctl inherits these pipes unless they are plain files; pg_ctl -l
	// redirects the server's output, so capturing pg_ctl's own output here is safe.
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(out.String())
		if c.cred != nil && strings.Contains(msg, "ermission denied") {
			msg += fmt.Sprintf(" (the %s user must be able to reach %s)", c.userName, c.root)
		}
		return fmt.Errorf("pgcluster: %s: %w: %s", prog, err, msg)
	}
	return nil
}
