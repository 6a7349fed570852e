package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"net/http"
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/questbot/questbot/bot/boards"
	"github.com/questbot/questbot/bot/boards/web"
	"github.com/questbot/questbot/bot/botpg"
	"github.com/questbot/questbot/engine"
	"github.com/questbot/questbot/sessions/board/boardpg"
)

// runWebload is the `webload` command: the load check of the web game server's live updates.
func runWebload(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return webload(ctx, args, os.Getenv, stdout, stderr)
}

// webloadOptions are the settings of a load check.
type webloadOptions struct {
	streams  int
	boards   int
	rate     int
	duration time.Duration
	settle   time.Duration
	url      string
	token    string
	user     int64
	// service is the bot the boards belong to: the token's with -url, else one the check makes.
	service int
}

// webloadUser holds seat 0 of the boards of a load check in this process, unless -user names
// one; webloadOpponent holds seat 1 in both modes. A person, not the bot, sits there, so that a
// running server's bot never plays on the boards the check moves.
const (
	webloadUser     = 9_000_000_001
	webloadOpponent = 9_000_000_002
)

// The game of the load check's boards, and its seed.
const (
	webloadVariant = "russian"
	webloadSeed    = 1
)

// webload opens SSE streams of boards, makes moves in the database at a steady rate, and reports
// how long each move took from its commit to its event at the clients, whether every client
// ended at the last revision of its board, and the memory used.
//
// The streams are served by a Hub and ServeEvents in this process (the server's side and the
// clients' share the memory figures), or by a running questbot (-url, with DATABASE_URL naming
// its database and -token an API token of the user whose boards they are: the boards are made
// in the token's bot, the streams go through the server's authentication and its checks of the
// seat, and the server's memory is read from its /metrics; the boards are deleted at the end).
// A move is a change as the board service commits one, without the rules of a game, each in a
// transaction of its own: the board's revision moves on (boardpg.TouchBoard, as a save does) and
// an event of its record says so (boardpg's AppendEvents, announced on boardpg.EventChannel at
// the commit), the path every change takes to the streams. A move leaves the position as it is,
// so the boards stay ones a server can read (it replays and checks a board's moves when a stream
// opens); its event is a seat's board seen (boards.EventKindSeen) at the new revision. A move's
// delay is measured from the moment its transaction begins (the commit's flush to disk is inside
// the figure) to the moment a client has read its event: an upper bound of the time from the
// commit. A client reads the record's events by their numbers and revisions: a revision it never
// got is skipped, an event it got twice repeated.
func webload(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("webload", flag.ContinueOnError)
	var o webloadOptions
	fs.IntVar(&o.streams, "streams", 1000, "SSE connections open at once")
	fs.IntVar(&o.boards, "boards", 100, "boards the streams watch (streams are spread evenly over them)")
	fs.IntVar(&o.rate, "rate", 100, "moves per second, over all boards")
	fs.DurationVar(&o.duration, "duration", 20*time.Second, "how long to make moves")
	fs.DurationVar(&o.settle, "settle", 10*time.Second, "how long the clients may take to reach the last revisions")
	fs.StringVar(&o.url, "url", "", "a running questbot to load (its DATABASE_URL must be set); empty: an in-process server")
	fs.StringVar(&o.token, "token", "", "with -url: an API token (qbt_...) of the server, sent as Authorization: Bearer; its user holds seat 0 of the boards")
	fs.Int64Var(&o.user, "user", 0, "the user who holds seat 0 of the boards; with -url it must be the token's user, which it is when unset")
	help := func(w io.Writer) {
		fmt.Fprintln(w, "usage: questbot webload [-streams N] [-boards N] [-rate N] [-duration D] [-settle D] [-url URL -token T [-user ID]]")
		fmt.Fprintln(w, "Opens SSE streams of boards, makes moves at a steady rate and reports the delay from each move's")
		fmt.Fprintln(w, "commit to its event at the clients, the events lost and the memory. The database is DATABASE_URL,")
		fmt.Fprintln(w, "or a private PostgreSQL with fsync on.")
	}
	operands, code, ok := parseOperands(fs, args, help, stdout, stderr)
	if !ok {
		return code
	}
	if len(operands) > 0 {
		return usageError(stderr, "webload", "unexpected argument %q", operands[0])
	}
	if o.streams < 1 || o.boards < 1 || o.rate < 1 || o.duration <= 0 || o.settle <= 0 {
		fmt.Fprintln(stderr, "questbot webload: -streams, -boards, -rate, -duration and -settle must be positive")
		return 2
	}
	if o.boards > o.streams {
		o.boards = o.streams
	}
	cfg, err := ConfigFromEnv(getenv)
	if err != nil {
		fmt.Fprintf(stderr, "questbot: %v\n", err)
		return 2
	}
	if o.url != "" && cfg.DatabaseURL == "" {
		fmt.Fprintln(stderr, "questbot webload: -url needs DATABASE_URL, the database of the server it loads")
		return 2
	}
	if o.url != "" && o.token == "" {
		fmt.Fprintln(stderr, "questbot webload: -url needs -token, an API token of the server (an admin's /token <user id> in the bot)")
		return 2
	}
	if o.url == "" && o.token != "" {
		fmt.Fprintln(stderr, "questbot webload: -token is for a running server (-url)")
		return 2
	}
	if o.url == "" && o.user == 0 {
		o.user = webloadUser
	}
	if o.user == webloadOpponent {
		fmt.Fprintf(stderr, "questbot webload: user %d is the load check's opponent in seat 1; choose another\n", webloadOpponent)
		return 2
	}
	rep, err := webloadRun(ctx, o, cfg, stdout, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "questbot webload: %v\n", err)
		return 1
	}
	fmt.Fprint(stdout, rep)
	if rep.lost > 0 || rep.opened < o.streams {
		return 1
	}
	return 0
}

// raiseFileLimit raises the soft limit of open files to the hard limit when need exceeds it: each
// stream is two sockets here (the client's and the server's), or one with -url. It says what it
// did.
func raiseFileLimit(need uint64) (string, error) {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return "", fmt.Errorf("open-file limit: %w", err)
	}
	if lim.Cur >= need {
		return fmt.Sprintf("open-file limit %d (enough)", lim.Cur), nil
	}
	if lim.Max < need {
		return "", fmt.Errorf("open-file limit: %d files are needed, the hard limit is %d", need, lim.Max)
	}
	old := lim.Cur
	lim.Cur = lim.Max
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return "", fmt.Errorf("open-file limit: %w", err)
	}
	return fmt.Sprintf("open-file limit raised from %d to %d", old, lim.Cur), nil
}

// webloadReport is what a load check measured.
type webloadReport struct {
	opts     webloadOptions
	files    string
	opened   int
	moves    int
	elapsed  time.Duration
	events   int64
	skipped  int64
	repeated int64
	lost     int
	delays   []time.Duration
	commits  []time.Duration
	memIdle  memFigures
	memOpen  memFigures
	memEnd   memFigures
	// srvIdle, srvOpen and srvEnd are the running server's figures (with -url).
	srvIdle, srvOpen, srvEnd serverFigures
	openTime                 time.Duration
}

type memFigures struct {
	heap       uint64 // bytes of heap in use
	sys        uint64 // bytes obtained from the system by the Go runtime
	rss        uint64 // resident set of the process, from /proc (0 when unknown)
	goroutines int
}

func readMem() memFigures {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return memFigures{heap: ms.HeapInuse, sys: ms.Sys, rss: residentBytes(), goroutines: runtime.NumGoroutine()}
}

// residentBytes is the process's VmRSS from /proc/self/status, 0 when unknown.
func residentBytes() uint64 {
	raw, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseUint(f[1], 10, 64)
			return kb * 1024
		}
	}
	return 0
}

func mib(b uint64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }

// percentile is the q-quantile of sorted durations (nearest rank).
func percentile(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(math.Ceil(q*float64(len(sorted)))) - 1
	return sorted[max(i, 0)]
}

func (r *webloadReport) String() string {
	var b strings.Builder
	sort.Slice(r.delays, func(i, j int) bool { return r.delays[i] < r.delays[j] })
	sort.Slice(r.commits, func(i, j int) bool { return r.commits[i] < r.commits[j] })
	ms := func(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond)) }
	fmt.Fprintf(&b, "%s\n", r.files)
	fmt.Fprintf(&b, "streams: %d of %d open in %v, watching %d boards\n", r.opened, r.opts.streams, r.openTime.Round(time.Millisecond), r.opts.boards)
	fmt.Fprintf(&b, "moves: %d in %v (%.1f/s, asked %d/s)\n", r.moves, r.elapsed.Round(time.Millisecond),
		float64(r.moves)/r.elapsed.Seconds(), r.opts.rate)
	fmt.Fprintf(&b, "events read by the clients: %d; revisions skipped: %d; events repeated: %d\n", r.events, r.skipped, r.repeated)
	fmt.Fprintf(&b, "move (its transaction) to event at the client, %d samples: p50 %s, p90 %s, p99 %s, max %s\n",
		len(r.delays), ms(percentile(r.delays, .5)), ms(percentile(r.delays, .9)), ms(percentile(r.delays, .99)),
		ms(percentile(r.delays, 1)))
	fmt.Fprintf(&b, "the move's transaction alone: p50 %s, p99 %s, max %s\n",
		ms(percentile(r.commits, .5)), ms(percentile(r.commits, .99)), ms(percentile(r.commits, 1)))
	fmt.Fprintf(&b, "clients not at their board's last revision at the end (lost events): %d\n", r.lost)
	per := int64(r.memOpen.heap) - int64(r.memIdle.heap)
	whose := "servers and clients in one process"
	if r.opts.url != "" {
		whose = "this process, the clients"
		srvPer := (r.srvOpen.heap - r.srvIdle.heap) / 1024 / float64(max(r.opened, 1))
		fmt.Fprintf(&b, "the server's memory (its /metrics): before the streams RSS %s, heap %s; with the streams open RSS %s, heap %s, %.0f goroutines, %.0f streams counted, %.0f of %.0f files open (%.1f KiB of heap per stream); at the end RSS %s, heap %s\n",
			mib(uint64(r.srvIdle.rss)), mib(uint64(r.srvIdle.heap)), mib(uint64(r.srvOpen.rss)), mib(uint64(r.srvOpen.heap)),
			r.srvOpen.goroutines, r.srvOpen.streams, r.srvOpen.openFiles, r.srvOpen.maxFiles, srvPer,
			mib(uint64(r.srvEnd.rss)), mib(uint64(r.srvEnd.heap)))
	}
	fmt.Fprintf(&b, "memory (%s): before the streams heap %s, RSS %s; with the streams open heap %s, RSS %s, %d goroutines (%.1f KiB of heap per stream); at the end heap %s, RSS %s\n",
		whose, mib(r.memIdle.heap), mib(r.memIdle.rss), mib(r.memOpen.heap), mib(r.memOpen.rss), r.memOpen.goroutines,
		float64(per)/1024/float64(max(r.opened, 1)), mib(r.memEnd.heap), mib(r.memEnd.rss))
	verdict := "met"
	if percentile(r.delays, .99) >= 100*time.Millisecond {
		verdict = "NOT met"
	}
	fmt.Fprintf(&b, "target p99 under 100 ms: %s\n", verdict)
	return b.String()
}

// webloadClient is one SSE stream: the last revision it read, the number of the last event, and
// the delays it measured.
type webloadClient struct {
	board    int64
	last     atomic.Int64
	events   atomic.Int64
	skip     atomic.Int64
	repeated atomic.Int64
	lastID   int64           // written and read by the client's goroutine only
	delays   []time.Duration // written by the client's goroutine only, read after it ends
}

// moveTimes remembers when each move's transaction began, by board and revision.
type moveTimes struct {
	mu sync.RWMutex
	at map[[2]int64]time.Time
}

func (m *moveTimes) set(board, rev int64, t time.Time) {
	m.mu.Lock()
	m.at[[2]int64{board, rev}] = t
	m.mu.Unlock()
}

func (m *moveTimes) get(board, rev int64) (time.Time, bool) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	t, ok := m.at[[2]int64{board, rev}]
	return t, ok
}

func webloadRun(ctx context.Context, o webloadOptions, cfg Config, stdout, stderr io.Writer) (*webloadReport, error) {
	rep := &webloadReport{opts: o}
	perStream := 2
	if o.url != "" {
		perStream = 1
	}
	files, err := raiseFileLimit(uint64(perStream*o.streams + 200))
	if err != nil {
		return nil, err
	}
	rep.files = files
	url := cfg.DatabaseURL
	if url == "" {
		fmt.Fprintln(stdout, "starting a private PostgreSQL (fsync on)...")
		c, _, cleanup, err := throwawayCluster(ctx, cfg.PGBin)
		if err != nil {
			return nil, err
		}
		defer cleanup()
		url = c
	}
	pool, err := openDatabase(ctx, url)
	if err != nil {
		return nil, err
	}
	defer pool.Close()
	if o.url != "" {
		service, user, err := web.TokenOwner(ctx, pool, o.token)
		if err != nil {
			return nil, fmt.Errorf("-token in the database of DATABASE_URL: %w", err)
		}
		if o.user != 0 && o.user != user {
			return nil, fmt.Errorf("-user %d: the token acts for user %d", o.user, user)
		}
		if user == webloadOpponent {
			return nil, fmt.Errorf("the token acts for user %d, the load check's opponent in seat 1", user)
		}
		o.service, o.user = service, user
		rep.opts = o
	}
	boards, err := webloadBoards(ctx, pool, o)
	if err != nil {
		return nil, err
	}
	// The boards are the check's own: they go when it ends, whatever happened, so a running
	// server's users never see them.
	defer func() {
		dropCtx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := webloadDrop(dropCtx, pool, boards); err != nil {
			fmt.Fprintf(stderr, "questbot webload: %v\n", err)
		}
	}()

	// stop ends the clients, the server and the hub, and waits for them.
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	var srv *http.Server
	var stopOnce sync.Once
	stop := func() {
		stopOnce.Do(func() {
			cancel()
			if srv != nil {
				srv.Close()
			}
			wg.Wait()
		})
	}
	defer stop()
	base := o.url
	if base == "" {
		hub := web.NewHub(pool, slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
		wg.Go(func() { hub.Run(ctx) })
		for !hub.Listening() {
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(10 * time.Millisecond):
			}
		}
		mux := http.NewServeMux()
		mux.HandleFunc("GET /api/v1/games/{id}/events", func(w http.ResponseWriter, r *http.Request) {
			id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
			if err != nil {
				http.Error(w, "bad board id", http.StatusBadRequest)
				return
			}
			web.ServeEvents(w, r, hub, id)
		})
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		srv = newHTTPServer(mux, HTTPLimits{}.withDefaults())
		wg.Go(func() { srv.Serve(ln) })
		base = "http://" + ln.Addr().String()
	}
	base = strings.TrimRight(base, "/")

	transport := &http.Transport{MaxIdleConnsPerHost: o.streams, DisableCompression: true}
	defer transport.CloseIdleConnections()
	httpClient := &http.Client{Transport: transport}
	// serverMem reads the running server's figures (with -url), else reports none.
	serverMem := func() (serverFigures, error) {
		if o.url == "" {
			return serverFigures{}, nil
		}
		return readServerMetrics(ctx, httpClient, base)
	}
	rep.memIdle = readMem()
	if rep.srvIdle, err = serverMem(); err != nil {
		return nil, err
	}
	clients := make([]*webloadClient, o.streams)
	times := &moveTimes{at: map[[2]int64]time.Time{}}
	var opened atomic.Int64
	var openErr atomic.Value
	fmt.Fprintf(stdout, "opening %d streams on %d boards...\n", o.streams, o.boards)
	start := time.Now()
	for i := range clients {
		c := &webloadClient{board: boards[i%len(boards)]}
		c.last.Store(1) // the revision of a new board
		clients[i] = c
		wg.Go(func() {
			if err := c.read(ctx, httpClient, base, o.token, times, &opened); err != nil && ctx.Err() == nil {
				openErr.Store(err)
			}
		})
	}
	openLimit := time.Now().Add(time.Minute)
	for opened.Load() < int64(o.streams) && openErr.Load() == nil && time.Now().Before(openLimit) {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
	}
	rep.openTime = time.Since(start)
	rep.opened = int(opened.Load())
	if err, _ := openErr.Load().(error); err != nil {
		return nil, fmt.Errorf("a stream failed: %w", err)
	}
	if rep.opened < o.streams {
		return nil, fmt.Errorf("only %d of %d streams opened within a minute", rep.opened, o.streams)
	}
	rep.memOpen = readMem()
	if rep.srvOpen, err = serverMem(); err != nil {
		return nil, err
	}

	fmt.Fprintf(stdout, "making %d moves/s for %v...\n", o.rate, o.duration)
	final, commits, moves, elapsed, err := webloadMoves(ctx, pool, o, boards, times)
	if err != nil {
		return nil, err
	}
	rep.moves, rep.elapsed, rep.commits = moves, elapsed, commits

	// Every client must come to the last revision of its board; only those that do not within
	// the settle time count as lost.
	settleLimit := time.Now().Add(o.settle)
	for {
		behind := 0
		for _, c := range clients {
			if c.last.Load() != final[c.board] {
				behind++
			}
		}
		rep.lost = behind
		if behind == 0 || time.Now().After(settleLimit) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	rep.memEnd = readMem()
	if rep.srvEnd, err = serverMem(); err != nil {
		return nil, err
	}
	stop()
	for _, c := range clients {
		rep.events += c.events.Load()
		rep.skipped += c.skip.Load()
		rep.repeated += c.repeated.Load()
		rep.delays = append(rep.delays, c.delays...)
	}
	return rep, nil
}

// webloadBoards creates the users, the bot (unless o.service names one) and the boards of a load
// check: active boards without a clock, o.user in seat 0 and webloadOpponent in seat 1. No seat
// is the bot's, so a running server's AI worker leaves them alone while the check moves them.
func webloadBoards(ctx context.Context, pool *pgxpool.Pool, o webloadOptions) ([]int64, error) {
	service := o.service
	if service == 0 {
		var err error
		if service, err = botpg.CreateService(ctx, pool, "webload_bot"); err != nil {
			return nil, err
		}
	}
	if err := botpg.EnsureUser(ctx, pool, o.user, "Load check"); err != nil {
		return nil, err
	}
	if err := botpg.EnsureUser(ctx, pool, webloadOpponent, "Load check opponent"); err != nil {
		return nil, err
	}
	// Boards a server can read: the engine's start position of the game, no moves yet.
	g, err := engine.NewGame(webloadVariant, engine.WithSeed(webloadSeed))
	if err != nil {
		return nil, fmt.Errorf("create the boards: %w", err)
	}
	return boardpg.CreateLoadCheckBoards(ctx, pool, boardpg.LoadCheckBoards{Service: service, Variant: webloadVariant,
		Seed: webloadSeed, Position: g.Position(), ToMove: int(g.ToMove()), Seat0: o.user, Seat1: webloadOpponent, N: o.boards})
}

// webloadDrop deletes the boards of a load check (their seats go with them) and then the
// opponent's row, unless something else refers to it now.
func webloadDrop(ctx context.Context, pool *pgxpool.Pool, boards []int64) error {
	if err := boardpg.DeleteBoards(ctx, pool, boards); err != nil {
		return fmt.Errorf("delete the boards of the load check: %w", err)
	}
	if _, err := botpg.DeleteUnusedUser(ctx, pool, webloadOpponent); err != nil {
		return fmt.Errorf("delete the load check's opponent: %w", err)
	}
	return nil
}

// serverFigures are a running server's figures from its /metrics.
type serverFigures struct {
	rss, heap           float64 // process_resident_memory_bytes, go_memstats_heap_inuse_bytes
	goroutines          float64 // go_goroutines
	streams             float64 // questbot_web_event_streams
	openFiles, maxFiles float64 // process_open_fds, process_max_fds
}

// readServerMetrics reads the figures of the server at base from its /metrics (Prometheus' text
// format); a figure the server does not report is an error, so a report never shows a zero it did
// not measure.
func readServerMetrics(ctx context.Context, client *http.Client, base string) (serverFigures, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/metrics", nil)
	if err != nil {
		return serverFigures{}, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return serverFigures{}, fmt.Errorf("the server's metrics: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return serverFigures{}, fmt.Errorf("the server's metrics: %s", resp.Status)
	}
	var f serverFigures
	want := map[string]*float64{
		"process_resident_memory_bytes": &f.rss, "go_memstats_heap_inuse_bytes": &f.heap, "go_goroutines": &f.goroutines,
		"questbot_web_event_streams": &f.streams, "process_open_fds": &f.openFiles, "process_max_fds": &f.maxFiles,
	}
	found := map[string]bool{}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		name, value, ok := strings.Cut(sc.Text(), " ")
		if p := want[name]; ok && p != nil {
			v, err := strconv.ParseFloat(strings.TrimSpace(value), 64)
			if err != nil {
				return serverFigures{}, fmt.Errorf("the server's metrics: %s: %w", name, err)
			}
			*p = v
			found[name] = true
		}
	}
	if err := sc.Err(); err != nil {
		return serverFigures{}, fmt.Errorf("the server's metrics: %w", err)
	}
	for name := range want {
		if !found[name] {
			return serverFigures{}, fmt.Errorf("the server's metrics lack %s", name)
		}
	}
	return f, nil
}

// read holds one stream open until ctx ends, recording each event's delay from its move.
func (c *webloadClient) read(ctx context.Context, client *http.Client, base, token string, times *moveTimes, opened *atomic.Int64) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, fmt.Sprintf("%s/api/v1/games/%d/events", base, c.board), nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "text/event-stream")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		// The server's answer says why (the API's errors are JSON with a code).
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return fmt.Errorf("board %d: %s, %s: %s", c.board, resp.Status, resp.Header.Get("Content-Type"),
			strings.TrimSpace(string(body)))
	}
	// The stream follows the board's record once it answers: it is open.
	opened.Add(1)
	r := bufio.NewReader(resp.Body)
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		data, ok := strings.CutPrefix(strings.TrimRight(line, "\r\n"), "data: ")
		if !ok {
			continue
		}
		now := time.Now()
		var ev boards.Event
		if err := json.Unmarshal([]byte(data), &ev); err != nil {
			return fmt.Errorf("board %d: event %q: %w", c.board, data, err)
		}
		if ev.Board != c.board {
			return fmt.Errorf("board %d: an event of board %d", c.board, ev.Board)
		}
		if ev.ID <= c.lastID {
			c.repeated.Add(1)
			continue
		}
		c.lastID = ev.ID
		rev := ev.Data.Revision
		last := c.last.Load()
		if rev <= last {
			continue
		}
		if rev > last+1 {
			c.skip.Add(rev - last - 1)
		}
		c.events.Add(1)
		if at, ok := times.get(c.board, rev); ok {
			c.delays = append(c.delays, now.Sub(at))
		}
		c.last.Store(rev)
	}
}

// webloadMoves makes o.rate moves a second for o.duration, board after board, and returns each
// board's last revision, the time of each move's UPDATE and commit, the number of moves and the
// time they took. A board's moves are made by one worker, one after the other, so the worker
// knows the revision each will have before sending it.
func webloadMoves(ctx context.Context, pool *pgxpool.Pool, o webloadOptions, boards []int64, times *moveTimes) (map[int64]int64, []time.Duration, int, time.Duration, error) {
	revs, err := boardpg.Revisions(ctx, pool, boards)
	if err != nil {
		return nil, nil, 0, 0, err
	}
	workers := min(len(boards), 16)
	queues := make([]chan int64, workers)
	var mu sync.Mutex
	var commits []time.Duration
	var firstErr error
	var wg sync.WaitGroup
	owned := make([]map[int64]int64, workers) // each worker's boards and their revisions
	for i := range queues {
		queues[i] = make(chan int64, 4*o.rate)
		owned[i] = map[int64]int64{}
	}
	for i, id := range boards {
		owned[i%workers][id] = revs[id]
	}
	for i := range queues {
		wg.Go(func() {
			mine := owned[i]
			for id := range queues[i] {
				rev := mine[id] + 1
				t0 := time.Now()
				times.set(id, rev, t0)
				moved, err := webloadMove(ctx, pool, id, rev)
				spent := time.Since(t0)
				mu.Lock()
				if err == nil && !moved {
					err = fmt.Errorf("board %d: not at revision %d", id, rev-1)
				}
				if err != nil && firstErr == nil {
					firstErr = fmt.Errorf("move: %w", err)
				}
				if err == nil {
					mine[id] = rev
					commits = append(commits, spent)
				}
				mu.Unlock()
			}
		})
	}
	interval := time.Second / time.Duration(o.rate)
	start := time.Now()
	moves := 0
	for n := 0; ; n++ {
		// Each move is due at start + n × interval: a late tick is made at once, so the rate
		// holds on average even when the scheduler wakes late.
		due := start.Add(time.Duration(n) * interval)
		if due.Sub(start) >= o.duration {
			break
		}
		if d := time.Until(due); d > 0 {
			select {
			case <-ctx.Done():
			case <-time.After(d):
			}
		}
		if ctx.Err() != nil {
			break
		}
		i := n % len(boards)
		queues[i%workers] <- boards[i]
		moves++
	}
	for _, q := range queues {
		close(q)
	}
	wg.Wait()
	elapsed := time.Since(start)
	if firstErr != nil {
		return nil, nil, 0, 0, firstErr
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, 0, 0, err
	}
	final := map[int64]int64{}
	for _, m := range owned {
		for id, rev := range m {
			final[id] = rev
		}
	}
	return final, commits, moves, elapsed, nil
}

// webloadMove makes a move of the load check in a transaction of its own: board id goes to
// revision rev, and an event of its record (a seat's board seen, at the new revision) says so,
// announced at the commit. It reports false when the board was not at rev-1.
func webloadMove(ctx context.Context, pool *pgxpool.Pool, id, rev int64) (bool, error) {
	var moved bool
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		ply, toMove, ok, err := boardpg.TouchBoard(ctx, tx, id, rev)
		if err != nil || !ok {
			return err
		}
		data, err := json.Marshal(boards.EventData{Status: "active", ToMove: toMove, Revision: rev})
		if err != nil {
			return err
		}
		row := boardpg.EventRow{Board: id, Kind: boards.EventKindSeen, Seat: 0, Actor: 1, Source: boards.ByWeb.String(), Ply: ply,
			Heard: [2]string{boards.Unheard.String(), boards.Unheard.String()}, Data: data, At: time.Now()}
		if err := boardpg.New(tx).AppendEvents(ctx, []boardpg.EventRow{row}, nil); err != nil {
			return err
		}
		moved = true
		return nil
	})
	return moved, err
}
