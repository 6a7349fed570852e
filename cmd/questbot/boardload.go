package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"runtime/pprof"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/questbot/questbot/bot"
	"github.com/questbot/questbot/bot/boards"
	"github.com/questbot/questbot/bot/botpg"
)

// runBoardload is the `boardload` command: board games played through the web game server's API
// while the players' Telegram chats are watched.
func runBoardload(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return boardload(ctx, args, os.Getenv, stdout, stderr)
}

// boardloadOptions are the settings of a board load check.
type boardloadOptions struct {
	pairs    int
	rate     float64 // moves a second in each game
	duration time.Duration
	bots     int
	// hog is how many games one more player holds against the strong bot at once, moving at
	// once in each: the fairness of the AI is the -bots players' reply latency beside them.
	hog      int
	games    []string
	commands time.Duration // how often, on average, each player sends /web or /mygames
	settle   time.Duration
	seed     uint64
	// beforeCheck, when set, runs after the drain and before the boards are compared (tests
	// use it to spoil a board and see the check notice).
	beforeCheck func(ctx context.Context, l *boardloadPlay) error
	// atLeast, when set, makes the play go on past the duration until it holds this much: a
	// test judges what the play did, not how fast a loaded machine did it.
	atLeast *boardloadMinimum
	// compare plays twice, first with the players' Telegram copies off (noTelegram), then live,
	// and compares the time of a web move's request in the two (boardloadCompare).
	compare bool
	// noTelegram makes every player one who blocks the bot once they have their token: their
	// games are played on the web alone (the bot learns they blocked it and sends them no
	// board), no command written, no board checked.
	noTelegram bool
	// cpuProfile, when set, is the file a CPU profile of the play is written to (with compare,
	// the file with "-off" and "-live" added, one for each run).
	cpuProfile string
}

// boardloadMinimum is the play a test waits for: moves of the pairs, moves of the players
// against the bot, and games begun.
type boardloadMinimum struct {
	moves, botMoves, games int
}

// The commands the players send in Telegram during the play, whose answers are timed.
const (
	cmdWeb     = "/web"
	cmdMyGames = "/mygames"
)

// boardloadReplyWait is how long a player waits for the answer to a command, or for the bot's
// move, before counting it missing.
const boardloadReplyWait = time.Minute

// boardloadSample is how often the outbox is sampled.
const boardloadSample = 100 * time.Millisecond

// boardloadPendingBound is the most rows a chat may have pending for its rows to count as
// bounded: a board's (its deletion, its copy sent anew, an edit of it) and a few answers.
const boardloadPendingBound = 6

// boardload plays games between pairs of API players (and, with -bots, games of a player
// against the bot) through the web game server of a whole bot run in this process, with the Bot
// API emulator behind its transport, Telegram's rate limits on both sides. Meanwhile every
// player sends /web and /mygames in their Telegram chat now and then, and the outbox is sampled.
// After the play it waits for the outbox to drain and compares each player's Telegram board with
// their game's final state. It reports the rows pending per chat, the rows superseded, the depth
// of each lane, the commands' reply latency, whether every final board is right and the bot's
// reply latency beside its search time; it exits 1 when a board is wrong, a command or a bot's
// move went unanswered, an API call failed or the outbox did not drain.
//
// # What a web move costs with Telegram
//
// Every web move's request (POST /api/v1/games/{id}/moves, from the call to its answer read) is
// timed, and the board pictures the process drew meanwhile are counted by where
// (boards.PicturesDrawn): inside web requests there must be none, since a move only queues the
// players' Telegram boards and the sender draws their pictures as they go; a picture drawn in a
// web request fails the check. With -compare the check plays twice, each time on a bot and a
// database of its own: first with players who block the bot once they have their token (their
// games are played on the web alone: the bot learns they blocked it and sends them no board,
// no command written, no board checked), then as above with both players' Telegram copies live; it prints both reports and a
// last line with the p50 and p99 of the move's request time of both runs and their ratio, whose
// target is 1.2 at most, and the pictures drawn inside web requests:
//
//	questbot boardload -compare -pairs 4 -rate 2 -duration 30s -bots 0
//
// With -cpuprofile F a CPU profile of the process is written over each play (with -compare, to
// F-off and F-live), for go tool pprof: where the live run's extra time goes (the sender's
// drawing, the emulator's copies of every photo, the Telegram view's work in the request).
func boardload(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	return boardloadWith(ctx, boardloadOptions{}, args, getenv, stdout, stderr)
}

// boardloadWith is boardload with the settings no flag gives (o.beforeCheck).
func boardloadWith(ctx context.Context, o boardloadOptions, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	// The players and the server it runs write stderr from goroutines of their own.
	stdout, stderr = lockWriter(stdout), lockWriter(stderr)
	fs := flag.NewFlagSet("boardload", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var games string
	fs.IntVar(&o.pairs, "pairs", 10, "games between two API players played at once")
	fs.Float64Var(&o.rate, "rate", 2, "moves a second in each game (the pair's moves together)")
	fs.DurationVar(&o.duration, "duration", 20*time.Second, "how long to play")
	fs.IntVar(&o.bots, "bots", 0, "games of an API player against the bot (level easy) played at once")
	fs.IntVar(&o.hog, "hog", 0, "games one more API player holds against the strong bot at once, moving at once in each (at most BOARD_BOT_GAMES)")
	fs.StringVar(&games, "games", "chess,russian", "the games played, taken in turn (of "+strings.Join(boards.Games, ", ")+")")
	fs.DurationVar(&o.commands, "commands", 5*time.Second, "how often, on average, each player sends /web or /mygames in Telegram")
	fs.DurationVar(&o.settle, "settle", 2*time.Minute, "how long the outbox may take to drain after the play")
	fs.Uint64Var(&o.seed, "seed", 1, "the seed of the players' choices (moves, games, when they write)")
	fs.BoolVar(&o.compare, "compare", false, "play twice, without the players' Telegram copies and with them, and compare the web moves' request times")
	fs.StringVar(&o.cpuProfile, "cpuprofile", "", "write a CPU profile of the play to this file (with -compare, this name with -off and -live added); go tool pprof reads it")
	help := func(w io.Writer) {
		fmt.Fprintln(w, "usage: questbot boardload [-pairs N] [-rate M] [-duration D] [-bots K] [-hog H] [-games G,...] [-commands D] [-settle D] [-seed S] [-compare] [-cpuprofile F]")
		fmt.Fprintln(w, "Runs the whole bot in this process (the Bot API emulator and the transport with Telegram's limits,")
		fmt.Fprintln(w, "the web game server), plays N games between API players at M moves a second each (and K against")
		fmt.Fprintln(w, "the bot), has every player send /web and /mygames in Telegram meanwhile, and reports the rows")
		fmt.Fprintln(w, "pending per chat, the rows superseded, the lanes' depth, the commands' reply latency, whether")
		fmt.Fprintln(w, "every Telegram board ends on its game's final position, and the bot's reply latency. The database")
		fmt.Fprintln(w, "is DATABASE_URL (one no other questbot serves), or a private PostgreSQL with fsync on. With -hog, one")
		fmt.Fprintln(w, "more player holds H games against the strong bot, moving at once in each, and the report gives the")
		fmt.Fprintln(w, "bot's reply to that player beside its reply to the others. It times every web move's request and")
		fmt.Fprintln(w, "counts the pictures drawn inside web requests (there must be none). With -compare it plays twice, first")
		fmt.Fprintln(w, "with players who blocked the bot (no Telegram copy of any board), then as above, and reports the web")
		fmt.Fprintln(w, "moves' request time of both, p50 and p99, and their ratio (the target: 1.2 at most).")
	}
	operands, code, ok := parseOperands(fs, args, help, stdout, stderr)
	if !ok {
		return code
	}
	if len(operands) > 0 {
		return usageError(stderr, "boardload", "unexpected argument %q", operands[0])
	}
	if o.pairs < 0 || o.bots < 0 || o.hog < 0 || o.pairs+o.bots == 0 {
		fmt.Fprintln(stderr, "questbot boardload: -pairs, -bots and -hog must not be negative, and one of them positive (-pairs or -bots: -hog plays beside them)")
		return 2
	}
	if !(o.rate > 0) || math.IsInf(o.rate, 0) || o.duration <= 0 || o.commands <= 0 || o.settle <= 0 {
		fmt.Fprintln(stderr, "questbot boardload: -rate, -duration, -commands and -settle must be positive")
		return 2
	}
	for _, g := range strings.Split(games, ",") {
		if g = strings.TrimSpace(g); g == "" {
			continue
		}
		if !slices.Contains(boards.Games, g) {
			fmt.Fprintf(stderr, "questbot boardload: -games: unknown game %q (the games are %s)\n", g, strings.Join(boards.Games, ", "))
			return 2
		}
		o.games = append(o.games, g)
	}
	if len(o.games) == 0 {
		fmt.Fprintln(stderr, "questbot boardload: -games names no game")
		return 2
	}
	cfg, err := ConfigFromEnv(getenv)
	if err != nil {
		fmt.Fprintf(stderr, "questbot: %v\n", err)
		return 2
	}
	if o.compare {
		return boardloadCompare(ctx, o, cfg, getenv, stdout, stderr)
	}
	rep, err := boardloadRun(ctx, o, cfg, getenv, stdout, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "questbot boardload: %v\n", err)
		return 1
	}
	fmt.Fprint(stdout, rep)
	if !rep.passed() {
		return 1
	}
	return 0
}

// boardloadCompare plays the check twice with o, first without the players' Telegram copies
// (o.noTelegram) and then with them, each on a bot and a database of its own, prints both
// reports and compares the web moves' request times. It fails when a run fails or a picture
// was drawn inside a web request; the ratio of the times is for people (a shared machine's
// figures are no verdict).
func boardloadCompare(ctx context.Context, o boardloadOptions, cfg Config, getenv func(string) string, stdout, stderr io.Writer) int {
	var reps [2]*boardloadReport
	for i, off := range []bool{true, false} {
		run := o
		run.noTelegram = off
		if o.cpuProfile != "" {
			run.cpuProfile = o.cpuProfile + map[bool]string{true: "-off", false: "-live"}[off]
		}
		fmt.Fprintf(stdout, "run %d of 2: %s\n", i+1, map[bool]string{true: "the players' Telegram copies off (they blocked the bot)",
			false: "both players' Telegram copies live"}[off])
		rep, err := boardloadRun(ctx, run, cfg, getenv, stdout, stderr)
		if err != nil {
			fmt.Fprintf(stderr, "questbot boardload: %v\n", err)
			return 1
		}
		fmt.Fprint(stdout, rep)
		reps[i] = rep
	}
	fmt.Fprint(stdout, compareLine(reps[0], reps[1]))
	if !reps[0].passed() || !reps[1].passed() {
		return 1
	}
	return 0
}

// boardloadRatioTarget is the most a web move's request may take with the players' Telegram
// copies live, in times what it takes without them.
const boardloadRatioTarget = 1.2

// compareLine compares the web moves' request times without the Telegram copies (off) and with
// them (on).
func compareLine(off, on *boardloadReport) string {
	a, b := slices.Clone(off.moveLat), slices.Clone(on.moveLat)
	slices.Sort(a)
	slices.Sort(b)
	ratio := func(q float64) float64 {
		if len(a) == 0 || len(b) == 0 || percentile(a, q) <= 0 {
			return math.Inf(1)
		}
		return float64(percentile(b, q)) / float64(percentile(a, q))
	}
	r50, r99 := ratio(.5), ratio(.99)
	verdict := "met"
	if r50 > boardloadRatioTarget || r99 > boardloadRatioTarget || on.drawnInRequests+off.drawnInRequests != 0 {
		verdict = "NOT met"
	}
	return fmt.Sprintf("web move request, Telegram copies live vs off: p50 %s vs %s (ratio %.2f), p99 %s vs %s (ratio %.2f); "+
		"pictures drawn inside web requests: %d; target (ratio at most %.1f, no picture drawn in a web request): %s\n",
		fmtMS(percentile(b, .5)), fmtMS(percentile(a, .5)), r50, fmtMS(percentile(b, .99)), fmtMS(percentile(a, .99)), r99,
		on.drawnInRequests+off.drawnInRequests, boardloadRatioTarget, verdict)
}

// profiled runs fn, with a CPU profile of this process written to file meanwhile when file is
// not empty.
func profiled(file string, fn func() error) error {
	if file == "" {
		return fn()
	}
	f, err := os.Create(file)
	if err != nil {
		return fmt.Errorf("cpu profile: %w", err)
	}
	defer f.Close()
	if err := pprof.StartCPUProfile(f); err != nil {
		return fmt.Errorf("cpu profile: %w", err)
	}
	err = fn()
	pprof.StopCPUProfile()
	return err
}

// boardloadRun starts the bot, plays, drains, checks and reports.
func boardloadRun(ctx context.Context, o boardloadOptions, cfg Config, getenv func(string) string, stdout, stderr io.Writer) (*boardloadReport, error) {
	// The bot as `questbot serve` runs it without BOT_TOKEN, on loopback, with folders of its
	// own: the emulator's chats and the board pictures are the check's.
	dir, err := os.MkdirTemp("", "qbboardload")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	cfg.BotToken, cfg.WebhookURL, cfg.PublicURL = "", "", ""
	cfg.HTTPAddr = "127.0.0.1:0"
	cfg.DataDir, cfg.UploadsDir = dir, dir
	if getenv("LOG_LEVEL") == "" {
		cfg.LogLevel = "warn"
	}
	if cfg.DatabaseURL == "" {
		fmt.Fprintln(stdout, "starting a private PostgreSQL (fsync on)...")
		url, _, cleanup, err := throwawayCluster(ctx, cfg.PGBin)
		if err != nil {
			return nil, err
		}
		defer cleanup()
		cfg.DatabaseURL = url
	}
	srv := &Server{Config: cfg, Log: NewLogger(cfg, stderr), emulatorOnly: true}
	addr := make(chan net.Addr, 1)
	srv.Listening = func(a net.Addr) { addr <- a }
	srvCtx, stopServer := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- srv.Run(srvCtx) }()
	defer func() {
		stopServer()
		<-done
	}()
	var base string
	select {
	case a := <-addr:
		base = "http://" + a.String()
	case err := <-done:
		done <- err
		return nil, fmt.Errorf("the bot stopped before it listened: %v", err)
	}
	// started is made before the listener opens, and closed once the transport runs.
	select {
	case <-srv.started:
	case err := <-done:
		done <- err
		return nil, fmt.Errorf("the bot stopped while starting: %v", err)
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	pool := srv.pool.Load()
	// The pictures drawn meanwhile, counted by the process (boards.PicturesDrawn).
	inRequests, atSend := boards.PicturesDrawn(boards.DrawnWebRequest), boards.PicturesDrawn(boards.DrawnAtSend)
	service, err := botpg.ServiceOfBot(ctx, pool, srv.emuBot.Me().ID)
	if err != nil {
		return nil, fmt.Errorf("the emulated bot's service: %w", err)
	}
	lastUser, err := botpg.MaxUserID(ctx, pool, boardloadFirstUser, boardloadFirstUser+boardloadUsers)
	if err != nil {
		return nil, fmt.Errorf("the users of earlier checks: %w", err)
	}
	lastUser = max(lastUser, boardloadFirstUser)
	transport := &http.Transport{MaxIdleConnsPerHost: 4 * (o.pairs + o.bots + 4), DisableCompression: true}
	defer transport.CloseIdleConnections()
	l := &boardloadPlay{o: o, base: base, client: &http.Client{Transport: transport, Timeout: 2 * boardloadReplyWait},
		srv: srv, pool: pool, service: service, nextUser: lastUser + 1, stderr: stderr,
		cmdLat: map[string][]time.Duration{}, cmdSent: map[string]int{}, cmdMissing: map[string]int{}, apiErrors: map[string]int{}}

	// The outbox is sampled from the first game to the end of the drain.
	store := botpg.New(pool)
	sampler := &outboxSampler{store: store}
	sampleCtx, stopSampling := context.WithCancel(ctx)
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		sampler.run(sampleCtx, boardloadSample)
	}()
	defer func() {
		stopSampling()
		<-sampled
	}()

	fmt.Fprintf(stdout, "playing %d games between API players at %g moves/s each and %d against the bot, for %v...\n",
		o.pairs, o.rate, o.bots, o.duration)
	if err := profiled(o.cpuProfile, func() error { return l.play(ctx) }); err != nil {
		return nil, err
	}
	drainStart := time.Now()
	drained, err := l.drain(ctx, store, drainStart.Add(o.settle))
	if err != nil {
		return nil, err
	}
	drainTime := time.Since(drainStart)
	stopSampling()
	<-sampled
	if err := sampler.err(); err != nil {
		return nil, err
	}
	if o.beforeCheck != nil {
		if err := o.beforeCheck(ctx, l); err != nil {
			return nil, err
		}
	}
	checks, err := l.checkBoards(ctx, store, time.Now().Add(o.settle))
	if err != nil {
		return nil, err
	}

	rep := &boardloadReport{opts: o, drained: drained, drainTime: drainTime, boards: checks}
	rep.fill(l, sampler)
	rep.drawnInRequests = boards.PicturesDrawn(boards.DrawnWebRequest) - inRequests
	rep.drawnAtSend = boards.PicturesDrawn(boards.DrawnAtSend) - atSend
	if rep.superseded, err = gatherCounter(srv.registry, "questbot_outbox_superseded_total"); err != nil {
		return nil, err
	}
	if rep.think, err = gatherHistogram(srv.registry, "questbot_board_ai_think_seconds"); err != nil {
		return nil, err
	}
	if rep.handle, err = gatherHistogram(srv.registry, "questbot_update_handle_seconds"); err != nil {
		return nil, err
	}
	if rep.sent, err = gatherCounterBy(srv.registry, "questbot_sends_total", "method", "outcome", "sent"); err != nil {
		return nil, err
	}
	if rep.floodWaits, err = gatherCounter(srv.registry, "questbot_flood_waits_total"); err != nil {
		return nil, err
	}
	return rep, nil
}

// outboxSampler samples the pending rows of the outbox: the most of one chat, and the most of
// each lane over all chats.
type outboxSampler struct {
	store *botpg.Store
	mu    sync.Mutex
	outboxFigures
	failure error
}

// outboxFigures are what the samples of the outbox and the inbox showed.
type outboxFigures struct {
	// samples is how many samples were taken.
	samples int
	// chatMax is the most rows one chat had pending, chatMaxKey that chat and chatMaxLanes its
	// rows by lane then.
	chatMax      int64
	chatMaxKey   int64
	chatMaxLanes map[bot.Lane]int64
	laneMax      map[bot.Lane]int64
	// laneOldest is the age of the oldest row of each lane, the most it was in a sample.
	laneOldest map[bot.Lane]time.Duration
	// inboxMax and inboxOldest are the most updates waiting to be handled, and the age of the
	// oldest of them, in a sample.
	inboxMax    int64
	inboxOldest time.Duration
}

// run samples every interval until ctx ends; a failing query ends it (err).
func (s *outboxSampler) run(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		rows, err := s.store.PendingRows(ctx)
		var lanes map[bot.Lane]bot.LaneStats
		if err == nil {
			lanes, err = s.store.OutboxStats(ctx)
		}
		var inbox int64
		var inboxAge time.Duration
		if err == nil {
			inbox, inboxAge, err = s.store.InboxBacklog(ctx)
		}
		if err != nil {
			if ctx.Err() == nil {
				s.mu.Lock()
				s.failure = err
				s.mu.Unlock()
			}
			return
		}
		s.add(rows, lanes, inbox, inboxAge)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// add takes a sample in: the pending rows by chat and lane, the lanes' figures, and the updates
// waiting to be handled.
func (s *outboxSampler) add(rows map[bot.ChatKey]int64, stats map[bot.Lane]bot.LaneStats, inbox int64, inboxAge time.Duration) {
	chats := map[int64]map[bot.Lane]int64{}
	lanes := map[bot.Lane]int64{}
	for k, n := range rows {
		if chats[k.Chat] == nil {
			chats[k.Chat] = map[bot.Lane]int64{}
		}
		chats[k.Chat][k.Lane] += n
		lanes[k.Lane] += n
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.samples++
	s.inboxMax, s.inboxOldest = max(s.inboxMax, inbox), max(s.inboxOldest, inboxAge)
	if s.laneMax == nil {
		s.laneMax = map[bot.Lane]int64{}
	}
	for l, n := range lanes {
		s.laneMax[l] = max(s.laneMax[l], n)
	}
	if s.laneOldest == nil {
		s.laneOldest = map[bot.Lane]time.Duration{}
	}
	for l, st := range stats {
		s.laneOldest[l] = max(s.laneOldest[l], st.Oldest)
	}
	for chat, byLane := range chats {
		var total int64
		for _, n := range byLane {
			total += n
		}
		if total > s.chatMax {
			s.chatMax, s.chatMaxKey, s.chatMaxLanes = total, chat, byLane
		}
	}
}

func (s *outboxSampler) err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.failure
}

// histogramFigures are a histogram's figures: how many observations, their sum, and estimates
// of its quantiles from its buckets.
type histogramFigures struct {
	count    uint64
	sum      float64
	p50, p99 float64 // seconds; +Inf beyond the last bucket
}

// String words the figures, the quantiles as estimated.
func (f histogramFigures) String() string {
	sec := func(s float64) string {
		if math.IsInf(s, 1) {
			return "over the last bucket"
		}
		return fmtMS(time.Duration(s * float64(time.Second)))
	}
	mean := 0.0
	if f.count > 0 {
		mean = f.sum / float64(f.count)
	}
	return fmt.Sprintf("%d observed; mean %s, p50 about %s, p99 about %s (from the buckets)", f.count, sec(mean), sec(f.p50), sec(f.p99))
}

// gatherCounter returns the value of a counter (or the sum of a counter family's series) of reg.
func gatherCounter(reg *prometheus.Registry, name string) (float64, error) {
	mfs, err := reg.Gather()
	if err != nil {
		return 0, err
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		var v float64
		for _, m := range mf.GetMetric() {
			v += m.GetCounter().GetValue()
		}
		return v, nil
	}
	return 0, fmt.Errorf("the metric %s is not registered", name)
}

// gatherCounterBy returns the values of a counter family of reg by the value of one label,
// over the series whose label only has the value only (only "" takes them all).
func gatherCounterBy(reg *prometheus.Registry, name, label, onlyLabel, only string) (map[string]float64, error) {
	mfs, err := reg.Gather()
	if err != nil {
		return nil, err
	}
	out := map[string]float64{}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			var key, filter string
			for _, lp := range m.GetLabel() {
				switch lp.GetName() {
				case label:
					key = lp.GetValue()
				case onlyLabel:
					filter = lp.GetValue()
				}
			}
			if only == "" || filter == only {
				out[key] += m.GetCounter().GetValue()
			}
		}
	}
	return out, nil
}

// gatherHistogram merges the series of a histogram of reg and estimates its p50 and p99 by
// linear interpolation within the bucket each falls in. A histogram with no series yet (nothing
// observed) has zero figures.
func gatherHistogram(reg *prometheus.Registry, name string) (histogramFigures, error) {
	mfs, err := reg.Gather()
	if err != nil {
		return histogramFigures{}, err
	}
	var f histogramFigures
	cum := map[float64]uint64{}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			h := m.GetHistogram()
			f.count += h.GetSampleCount()
			f.sum += h.GetSampleSum()
			for _, b := range h.GetBucket() {
				cum[b.GetUpperBound()] += b.GetCumulativeCount()
			}
		}
	}
	bounds := make([]float64, 0, len(cum))
	for b := range cum {
		bounds = append(bounds, b)
	}
	sort.Float64s(bounds)
	quantile := func(q float64) float64 {
		if f.count == 0 {
			return 0
		}
		rank := q * float64(f.count)
		lower, below := 0.0, uint64(0)
		for _, b := range bounds {
			if c := cum[b]; float64(c) >= rank {
				if c == below {
					return b
				}
				return lower + (b-lower)*(rank-float64(below))/float64(c-below)
			}
			lower, below = b, cum[b]
		}
		return math.Inf(1)
	}
	f.p50, f.p99 = quantile(.5), quantile(.99)
	return f, nil
}

// boardloadReport is what a board load check measured.
type boardloadReport struct {
	opts boardloadOptions
	// moves are the moves made by the pairs, botMoves those of the players against the bot (the
	// bot's not counted); games the games played, finished those that ended.
	moves, botMoves, games, finished int
	apiErrors                        map[string]int
	outboxFigures
	superseded            float64
	cmdSent, cmdMissing   map[string]int
	cmdLat                map[string][]time.Duration
	drained               bool
	drainTime             time.Duration
	boards                []boardCheck
	botLat                []time.Duration
	botMissing, botPolled int
	// hogLat is the bot's reply to the player of -hog, hogMoves that player's moves.
	hogLat   []time.Duration
	hogMoves int
	think    histogramFigures
	// handle is the transport's time to handle an update (its transaction).
	handle histogramFigures
	// sent are the requests Telegram took, by method; floodWaits the 429 answers.
	sent       map[string]float64
	floodWaits float64
	// moveLat is the time of the web moves' requests (POST /api/v1/games/{id}/moves, from the
	// call to its answer read); drawnInRequests the board pictures drawn inside web requests
	// meanwhile (none should be), drawnAtSend those drawn as their Telegram requests went.
	moveLat                      []time.Duration
	drawnInRequests, drawnAtSend int64
}

// fill copies the figures of the play and the samples.
func (r *boardloadReport) fill(l *boardloadPlay, s *outboxSampler) {
	l.mu.Lock()
	r.moves, r.botMoves, r.games, r.finished = l.moves, l.botMoves, len(l.games), 0
	for _, g := range l.games {
		if g.finished {
			r.finished++
		}
	}
	r.apiErrors, r.cmdSent, r.cmdMissing = l.apiErrors, l.cmdSent, l.cmdMissing
	r.cmdLat, r.botLat, r.botMissing, r.botPolled = l.cmdLat, l.botLat, l.botMissing, l.botPolled
	r.hogLat, r.hogMoves = l.hogLat, l.hogMoves
	r.moveLat = l.moveLat
	l.mu.Unlock()
	s.mu.Lock()
	r.outboxFigures = s.outboxFigures
	s.mu.Unlock()
}

// boardsRight counts the final boards that are right.
func (r *boardloadReport) boardsRight() int {
	n := 0
	for _, c := range r.boards {
		if c.wrong == "" {
			n++
		}
	}
	return n
}

// passed reports whether the facts the check stands for hold: every board right, every command
// and bot's move answered, no API call failed, the outbox drained. The latency figures are for
// people: on a shared machine they are no verdict.
func (r *boardloadReport) passed() bool {
	missing := r.botMissing
	for _, n := range r.cmdMissing {
		missing += n
	}
	errs := 0
	for _, n := range r.apiErrors {
		errs += n
	}
	boardsOK := r.boardsRight() == len(r.boards) && (len(r.boards) > 0 || r.opts.noTelegram)
	return r.drained && missing == 0 && errs == 0 && boardsOK && r.drawnInRequests == 0
}

func fmtMS(d time.Duration) string {
	return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond))
}

// latencyLine words a set of latencies: the samples, p50, p99 and the greatest.
func latencyLine(lat []time.Duration) string {
	s := slices.Clone(lat)
	slices.Sort(s)
	return fmt.Sprintf("%d samples; p50 %s, p99 %s, max %s", len(s), fmtMS(percentile(s, .5)), fmtMS(percentile(s, .99)),
		fmtMS(percentile(s, 1)))
}

// String is the report: plain lines, each starting with what it measures.
func (r *boardloadReport) String() string {
	var b strings.Builder
	o := r.opts
	fmt.Fprintf(&b, "setting: %d pairs at %g moves/s for %v, %d games against the bot (easy); games %s; a command every %v per player\n",
		o.pairs, o.rate, o.duration, o.bots, strings.Join(o.games, ", "), o.commands)
	var errs []string
	for code, n := range r.apiErrors {
		errs = append(errs, fmt.Sprintf("%s %d", code, n))
	}
	sort.Strings(errs)
	errText := "0"
	if len(errs) > 0 {
		errText = strings.Join(errs, ", ")
	}
	fmt.Fprintf(&b, "moves: %d by the pairs (%.1f/s), %d by the players against the bot; games: %d, %d finished; API errors: %s\n",
		r.moves, float64(r.moves)/o.duration.Seconds(), r.botMoves, r.games, r.finished, errText)
	var lanes []string
	for _, l := range bot.Lanes {
		if n := r.chatMaxLanes[l]; n > 0 {
			lanes = append(lanes, fmt.Sprintf("%s %d", l, n))
		}
	}
	fmt.Fprintf(&b, "pending rows per chat: max %d (chat %d: %s); %d samples, one every %v or as fast as the database answers\n",
		r.chatMax, r.chatMaxKey, strings.Join(lanes, ", "), r.samples, boardloadSample)
	lanes = nil
	for _, l := range bot.Lanes {
		lanes = append(lanes, fmt.Sprintf("%s %d", l, r.laneMax[l]))
	}
	fmt.Fprintf(&b, "lane depth (max over the samples, all chats): %s\n", strings.Join(lanes, ", "))
	lanes = nil
	for _, l := range bot.Lanes {
		lanes = append(lanes, fmt.Sprintf("%s %s", l, fmtMS(r.laneOldest[l])))
	}
	fmt.Fprintf(&b, "oldest pending row by lane (max over the samples): %s\n", strings.Join(lanes, ", "))
	fmt.Fprintf(&b, "updates waiting to be handled (max over the samples): %d, the oldest %s; handling (questbot_update_handle_seconds): %s\n",
		r.inboxMax, fmtMS(r.inboxOldest), r.handle)
	fmt.Fprintf(&b, "rows superseded: %.0f\n", r.superseded)
	var methods []string
	for m := range r.sent {
		methods = append(methods, m)
	}
	sort.Slice(methods, func(i, j int) bool {
		return r.sent[methods[i]] > r.sent[methods[j]] || r.sent[methods[i]] == r.sent[methods[j]] && methods[i] < methods[j]
	})
	var sends []string
	for _, m := range methods {
		sends = append(sends, fmt.Sprintf("%s %.0f", m, r.sent[m]))
	}
	fmt.Fprintf(&b, "sent to Telegram: %s; 429 answers: %.0f\n", strings.Join(sends, ", "), r.floodWaits)
	copies := "both players' Telegram copies live"
	if o.noTelegram {
		copies = "no Telegram copies"
	}
	fmt.Fprintf(&b, "web move request (%s): %s; pictures drawn inside web requests: %d, as their Telegram requests were sent: %d\n",
		copies, latencyLine(r.moveLat), r.drawnInRequests, r.drawnAtSend)
	for _, cmd := range []string{cmdWeb, cmdMyGames} {
		fmt.Fprintf(&b, "%s reply: %d sent, %d unanswered; %s\n", cmd, r.cmdSent[cmd], r.cmdMissing[cmd], latencyLine(r.cmdLat[cmd]))
	}
	if r.drained {
		fmt.Fprintf(&b, "outbox drained: %s after the play\n", fmtMS(r.drainTime))
	} else {
		fmt.Fprintf(&b, "outbox drained: NO, rows still pending %s after the play\n", fmtMS(r.drainTime))
	}
	fmt.Fprintf(&b, "final boards: %d of %d right\n", r.boardsRight(), len(r.boards))
	for _, c := range r.boards {
		if c.wrong != "" {
			fmt.Fprintf(&b, "wrong board: game %d, chat %d (seat %d): %s\n", c.game, c.chat, c.seat, c.wrong)
		}
	}
	if o.bots > 0 {
		fmt.Fprintf(&b, "bot reply (the player's move answered to the bot's move seen through the API): %s; %d missing; %d seen by polling, their event not within a second\n",
			latencyLine(r.botLat), r.botMissing, r.botPolled)
		fmt.Fprintf(&b, "bot's search (questbot_board_ai_think_seconds): %s\n", r.think)
	}
	if o.hog > 0 {
		fmt.Fprintf(&b, "bot reply to the player holding %d games against the strong bot (%d moves): %s\n",
			o.hog, r.hogMoves, latencyLine(r.hogLat))
	}
	web := slices.Clone(r.cmdLat[cmdWeb])
	slices.Sort(web)
	verdict := "met"
	if !o.noTelegram && (len(web) == 0 || percentile(web, .99) >= 2*time.Second) || r.chatMax > boardloadPendingBound ||
		!r.drained || r.boardsRight() != len(r.boards) {
		verdict = "NOT met"
	}
	fmt.Fprintf(&b, "target (/web reply p99 under 2 s, pending rows per chat at most %d, every final board right): %s\n",
		boardloadPendingBound, verdict)
	return b.String()
}

// boardloadRand is the random source of one player or game of the check, from its seed and a
// stream number, so that a run's choices are the same for the same seed.
func boardloadRand(seed uint64, stream int64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, uint64(stream)))
}
