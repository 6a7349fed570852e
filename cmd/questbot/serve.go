package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/questbot/questbot/bot"
	"github.com/questbot/questbot/bot/app"
	"github.com/questbot/questbot/bot/boards"
	"github.com/questbot/questbot/bot/boards/web"
	"github.com/questbot/questbot/bot/botpg"
	"github.com/questbot/questbot/bot/devtools"
	"github.com/questbot/questbot/bot/emulator/tgemu"
	"github.com/questbot/questbot/bot/emulator/webchat"
)

// runServe is the `serve` command: it reads the configuration from the environment and runs the
// bot until the context is cancelled (SIGINT, SIGTERM or SIGHUP).
func runServe(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 1 && helpArgs[args[0]] {
		serveUsage(stdout)
		return 0
	}
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	roleName := fs.String("role", "all", "")
	err := fs.Parse(args)
	var role bot.Role
	if err == nil {
		if role, err = bot.ParseRole(*roleName); err != nil {
			err = fmt.Errorf("--%w", err) // "--role must be …"
		}
	}
	switch {
	case err != nil:
		return usageError(stderr, "serve", "%v", err)
	case fs.NArg() > 0:
		return usageError(stderr, "serve", "unexpected argument %q", fs.Arg(0))
	}
	cfg, err := ConfigFromEnv(os.Getenv)
	if err == nil {
		_, err = cfg.ReadTokenKey()
	}
	if err == nil {
		err = checkRole(cfg, role)
	}
	if err == nil {
		err = checkPGBin(cfg)
	}
	if err != nil {
		fmt.Fprintf(stderr, "questbot: %v\n", err)
		return 2
	}
	log := NewLogger(cfg, stderr)
	s := &Server{Config: cfg, Log: log, Role: role}
	if err := s.Run(ctx); err != nil {
		log.Error("Stopped with an error", slog.Any("error", err))
		return 1
	}
	return 0
}

// Server is a running `questbot serve`: the HTTP side, the database and the Telegram transport,
// to Telegram with BOT_TOKEN, else to the built-in emulator and its web chat.
type Server struct {
	Config Config
	Log    *slog.Logger
	// Role is what this process runs of the bot (--role): everything, only the receiving of
	// updates, or only their handling, the sending and the scheduled jobs.
	Role bot.Role
	// Listening, if set, is called with the HTTP address once the listener is open (tests use it
	// with HTTP_ADDR=127.0.0.1:0).
	Listening func(addr net.Addr)

	pool  atomic.Pointer[pgxpool.Pool]
	ready atomic.Bool
	// web is the web game server's handler, set once the database is ready and the transport
	// runs; its routes answer 503 until then.
	web atomic.Pointer[http.Handler]
	// telegram is the transport's webhook handler in webhook mode (WEBHOOK_URL), set once the
	// bots are added; its route answers 503 until then, which Telegram retries.
	telegram atomic.Pointer[http.Handler]
	// publicURL is PUBLIC_URL, or by default http:// and the address the listener opened
	// (HTTP_ADDR may ask for any port), for the links a user opens on this machine: Telegram
	// cannot fetch that default, so the board games then send no picture by address
	// (boards.Config.PublicURLLocal).
	publicURL string

	metrics  *bot.Metrics
	registry *prometheus.Registry
	// emu and chat are the built-in Bot API emulator and its web chat, when BOT_TOKEN is unset.
	emu     *tgemu.Server
	emuBot  *tgemu.Bot
	chat    *webchat.Handler
	started chan struct{} // closed once the transport runs
	dbReady chan struct{} // closed once the database is migrated and s.pool set
	// watch, when set, replaces defaultWatch for the embedded database (tests).
	watch *watchOptions
	// emulatorOnly runs the emulator's bot alone, not the bots configured in the database: a
	// load check on a database that a real bot also uses never talks to Telegram. Its emulator
	// keeps its chats in memory (see openEmulator).
	emulatorOnly bool
	// self carries the emulated bot's requests to its emulator, when BOT_TOKEN is unset.
	self *selfListener
}

// emulatorToken makes the token of the emulated bot: random, so that nothing outside this
// process can talk to the emulator as the bot.
func emulatorToken() string {
	b := make([]byte, 16)
	rand.Read(b)
	return "7000000001:" + hex.EncodeToString(b)
}

// Run starts everything, blocks until ctx is cancelled, then shuts down in reverse order. The HTTP
// listener opens first, so /healthz answers 503 while the database is still starting.
func (s *Server) Run(ctx context.Context) error {
	// The embedded database's folder is locked before anything else, so a second `make run`
	// says plainly that one is already running.
	var lock *os.File
	if s.Config.DatabaseURL == "" {
		l, err := lockDataDir(s.Config.DataDir)
		if err != nil {
			return err
		}
		lock = l
	}
	ln, err := net.Listen("tcp", s.Config.HTTPAddr)
	if err != nil {
		if lock != nil {
			lock.Close()
		}
		if errors.Is(err, syscall.EADDRINUSE) {
			return fmt.Errorf("http: %w (is another program using HTTP_ADDR=%s?)", err, s.Config.HTTPAddr)
		}
		return fmt.Errorf("http: HTTP_ADDR=%s: %w", s.Config.HTTPAddr, err)
	}
	s.metrics = bot.NewMetrics()
	s.registry = prometheus.NewRegistry()
	s.registry.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	if err := s.metrics.Register(s.registry); err != nil {
		return err
	}
	s.started = make(chan struct{})
	s.dbReady = make(chan struct{})
	if s.Config.BotToken == "" {
		if err := s.openEmulator(); err != nil {
			ln.Close()
			if lock != nil {
				lock.Close()
			}
			return err
		}
		// After the HTTP server's shutdown, deferred below: nothing calls the emulator then.
		defer s.emu.Close()
	}
	limits := s.Config.HTTP.withDefaults()
	files := fileLimit()
	if m := effectiveMaxConns(limits.MaxConns, files); m != limits.MaxConns {
		s.Log.Warn("HTTP_MAX_CONNS is lowered to half the open-file limit", slog.Int("configured", limits.MaxConns),
			slog.Int("max_conns", m), slog.Int("file_limit", files))
		limits.MaxConns = m
	}
	lim := newConnLimiter(limits.MaxConns, limits.MaxConnsPerAddr, s.Config.TrustedProxies)
	if err := lim.Register(s.registry); err != nil {
		return err
	}
	// The web chat's event streams never end by themselves: shutting down cancels them, so an
	// open page does not hold the process for the whole shutdown timeout.
	streams, endStreams := context.WithCancel(context.Background())
	var silent silentConns
	srv := newHTTPServer(s.routes(), limits)
	srv.BaseContext = func(net.Listener) context.Context { return streams }
	srv.ConnState = silent.track
	srv.RegisterOnShutdown(func() {
		endStreams()
		silent.close()
	})
	httpDone := make(chan error, 1)
	go func() { httpDone <- srv.Serve(&limitListener{Listener: ln, lim: lim}) }()
	// The emulated bot reaches its emulator through connections of its own (selfListener).
	if s.emu != nil {
		s.self = newSelfListener()
		go srv.Serve(s.self)
	}
	s.publicURL = s.Config.PublicURL
	if s.publicURL == "" {
		s.publicURL = "http://" + ln.Addr().String()
	}
	s.Log.Info("HTTP listening", slog.String("addr", ln.Addr().String()), slog.String("version", version),
		slog.String("public_url", s.publicURL))
	if s.Listening != nil {
		s.Listening(ln.Addr())
	}
	defer func() {
		shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := srv.Shutdown(shutdownCtx); err != nil {
			s.Log.Warn("HTTP shutdown", slog.Any("error", err))
		}
		<-httpDone
	}()

	url := s.Config.DatabaseURL
	dbLost := make(chan error, 1) // the embedded database died for good
	if url == "" {
		emb, embURL, err := startEmbedded(ctx, s.Config, lock, s.Log)
		if err != nil {
			return err
		}
		defer emb.close()
		url = embURL
		defer s.watchEmbedded(ctx, emb, dbLost)()
	}
	maxConns := s.Config.DBPoolMax
	if maxConns == 0 && s.Role == bot.RolePoller && !strings.Contains(url, "pool_max_conns") {
		maxConns = pollerPoolSize
	}
	pool, err := openPools(ctx, url, s.Config.DatabaseSessionURL, maxConns)
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return err
	}
	defer pool.Close()
	// What needs a session of its own (LISTEN) connects through DATABASE_SESSION_URL when set.
	session := pool
	if s.Config.DatabaseSessionURL != "" {
		if session, err = openSessionPool(ctx, s.Config.DatabaseSessionURL); err != nil {
			return err
		}
		defer session.Close()
	}
	s.pool.Store(pool)
	close(s.dbReady)
	s.ready.Store(true)
	s.Log.Info("Database ready")
	if s.emu != nil && !s.emu.Restored() {
		if n, err := forgetEmulatorFiles(ctx, pool, s.emuBot.Me().ID); err != nil {
			s.Log.Warn("Unable to forget the file_ids of an earlier emulator", slog.Any("error", err))
		} else if n > 0 {
			s.Log.Info("Forgot the file_ids of an earlier emulator", slog.Int64("files", n))
		}
	}

	transportDone := make(chan struct{})
	trCtx, stopTransport := context.WithCancel(ctx)
	go func() {
		defer close(transportDone)
		s.runTransport(trCtx, pool, session, "http://"+ln.Addr().String())
	}()
	// The transport finishes its work in flight before the pool closes.
	defer func() {
		stopTransport()
		<-transportDone
	}()

	select {
	case <-ctx.Done():
		s.Log.Info("Shutting down")
	case err := <-httpDone:
		httpDone <- err // for the deferred shutdown
		if !errors.Is(err, http.ErrServerClosed) {
			return fmt.Errorf("http: %w", err)
		}
	case err := <-dbLost:
		s.ready.Store(false)
		return err
	}
	s.ready.Store(false)
	return nil
}

// runTransport connects the bots (retrying while the Bot API cannot be reached) and runs the
// Telegram transport until ctx is cancelled, with what the role asks for: a poller receives
// only; a worker handles, sends, and runs the scheduled jobs, the downloads and the start-up
// work. Without BOT_TOKEN the one bot is the emulator's, at selfURL. session is the pool of the
// LISTEN connections.
func (s *Server) runTransport(ctx context.Context, pool, session *pgxpool.Pool, selfURL string) {
	works := s.Role.Works()
	var tokens []string
	endpoint := bot.DefaultEndpoint
	if s.emu != nil {
		tokens = []string{s.emuBot.Token()}
		endpoint = tgemu.Endpoint(selfURL)
		s.Log.Warn("BOT_TOKEN is not set: serving the built-in Telegram emulator; open the web chat",
			slog.String("url", selfURL+"/"))
	} else {
		for _, t := range strings.Split(s.Config.BotToken, ",") {
			if t = strings.TrimSpace(t); t != "" {
				tokens = append(tokens, t)
			}
		}
		if s.Config.TelegramAPIURL != "" {
			endpoint = s.Config.TelegramAPIURL + "/bot%s/%s"
		}
	}
	// Bots configured in the database run too; with a key, their tokens are sealed there.
	if !s.emulatorOnly {
		tokens = append(tokens, s.configuredBots(ctx, pool)...)
	}
	// The bot: its features behind the router, and its scheduled jobs (bot/app).
	b := app.New(app.Config{UploadsDir: s.Config.UploadsDir, ImagesDir: s.Config.ImagesDir, Log: s.Log, Boards: boards.Config{PublicURL: s.publicURL,
		PublicURLLocal: s.Config.PublicURL == "", TestEnvironment: s.emu != nil, BotGames: s.Config.BotGames},
		Dev:    devtools.Config{CompileLimits: s.Config.QMSLimits},
		Listen: session})
	// The credentials queued in the outbox are sealed with TOKEN_KEY when it is set, so that every
	// process opens what another queued; otherwise with a random key of this process.
	sealKey, _ := s.Config.ReadTokenKey() // a bad key was refused at start
	tr := bot.New(bot.Config{Store: botpg.New(pool).WithListener(session).WithSealKey(sealKey), Handler: b.Handle, Log: s.Log, Metrics: s.metrics,
		FailedRetention: s.Config.FailedRetention, Webhook: s.Config.WebhookURL, Role: s.Role, PollLease: s.Config.PollLease})
	s.Log.Info("Role", slog.String("role", s.Role.String()))
	sched := bot.NewScheduler(s.Log)
	if err := sched.Register(s.registry); err != nil {
		s.Log.Error("Unable to register the job metrics", slog.Any("error", err))
	}
	if err := b.Schedule(sched, tr); err != nil {
		s.Log.Error("Unable to schedule the jobs", slog.Any("error", err))
		return
	}
	client := bot.NewHTTPClient()
	if s.self != nil {
		t := client.Transport.(*http.Transport).Clone()
		t.DialContext = s.self.Dial
		t.Proxy = nil
		client = &http.Client{Transport: t}
	}
	var services []int
	for _, token := range tokens {
		for {
			api, err := bot.NewAPI(ctx, token, endpoint, client)
			if err == nil {
				var service int
				if service, err = tr.AddBot(ctx, api); err == nil {
					services = append(services, service)
					break
				}
			}
			if ctx.Err() != nil {
				return
			}
			s.Log.Error("Unable to connect a bot; retrying in 5 s", slog.Any("error", err))
			select {
			case <-ctx.Done():
				return
			case <-time.After(5 * time.Second):
			}
		}
	}
	if s.Config.WebhookURL != "" && s.Role.Receives() {
		hook := tr.WebhookHandler()
		s.telegram.Store(&hook)
	}
	// The web game server plays the bots' boards through this transport; its pages follow the
	// boards live, which runs in every role: the messages of a poller's web requests wait in the
	// outbox for a worker.
	h, runWeb := b.Web(pool, tr, app.WebConfig{Streams: s.Config.WebStreams, TrustedProxies: s.Config.TrustedProxies})
	s.web.Store(&h)
	webDone := make(chan struct{})
	go func() {
		defer close(webDone)
		if err := runWeb(ctx); err != nil && ctx.Err() == nil {
			s.Log.Error("The live updates of the web game server stopped", slog.Any("error", err))
		}
	}()
	defer func() { <-webDone }()
	if err := b.Register(s.registry); err != nil {
		s.Log.Error("Unable to register the features' metrics", slog.Any("error", err))
	}
	// The command menus, the role configuration, and what a failed upload left on disk.
	if works {
		if err := b.Start(ctx, pool, tr, services, s.Config.NewUsersDevelopers, s.Config.Admins); err != nil {
			s.Log.Error("Start-up work failed", slog.Any("error", err))
		}
	}
	close(s.started)
	jobsDone := make(chan struct{})
	workersDone := make(chan struct{})
	if works {
		go func() {
			defer close(jobsDone)
			sched.Run(ctx)
		}()
		go func() {
			defer close(workersDone)
			b.Run(ctx, pool, tr)
		}()
	} else {
		close(jobsDone)
		close(workersDone)
	}
	tr.Run(ctx)
	<-jobsDone
	<-workersDone
}

// configuredBots returns the tokens of the bots configured in the database, sealing the plain
// ones when a key is set. A bot whose token cannot be read is reported and left out; the others
// run.
func (s *Server) configuredBots(ctx context.Context, pool *pgxpool.Pool) []string {
	key, err := s.Config.ReadTokenKey()
	if err != nil {
		s.Log.Error("The token key cannot be read; the tokens in the database are left as they are", slog.Any("error", err))
		key = nil
	}
	if key != nil {
		if err := botpg.SealTokens(ctx, pool, key); err != nil {
			s.Log.Error("The tokens in the database could not be sealed; they stay as they were", slog.Any("error", err))
		}
	}
	bots, err := botpg.ConfiguredBots(ctx, pool, key)
	if err != nil {
		s.Log.Error("The bots configured in the database cannot be read", slog.Any("error", err))
		return nil
	}
	var tokens []string
	for _, b := range bots {
		switch {
		case b.Err != nil:
			s.Log.Error("A bot configured in the database does not run: its token is sealed and TOKEN_KEY does not open it",
				slog.Int("service_id", b.Service), slog.Any("error", b.Err))
			continue
		case b.Plain:
			s.Log.Warn("The token of a bot is stored in plain text in the database; set TOKEN_KEY to seal it",
				slog.Int("service_id", b.Service))
		}
		if err := checkBotToken(b.Token); err != nil {
			// Its getMe would fail for ever, and hold the bots after it back.
			s.Log.Error("A bot configured in the database does not run: its token is malformed",
				slog.Int("service_id", b.Service), slog.String("reason", err.Error()))
			continue
		}
		tokens = append(tokens, b.Token)
	}
	return tokens
}

func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", s.healthz)
	mux.Handle("GET /metrics", metricsAccess(promhttp.HandlerFor(s.registry, promhttp.HandlerOpts{}), s.Config.MetricsToken))
	// The web game server: every route it registers (its login links, the JSON API and its
	// pages), from its own list.
	web.Mount(mux, http.HandlerFunc(s.serveWeb))
	if s.Config.WebhookURL != "" && s.Role.Receives() {
		mux.HandleFunc(bot.WebhookPath, s.serveTelegram)
	}
	if s.emu == nil {
		return mux
	}
	mux.Handle("/", s.chat)
	// The emulated Bot API: /bot<token>/<method> and /file/bot<token>/<path>.
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/bot") || strings.HasPrefix(r.URL.Path, "/file/bot") {
			s.emu.ServeHTTP(w, r)
			return
		}
		mux.ServeHTTP(w, r)
	})
}

// serveWeb passes a request to the web game server, or answers 503 while it is not running yet.
func (s *Server) serveWeb(w http.ResponseWriter, r *http.Request) {
	h := s.web.Load()
	if h == nil {
		w.Header().Set("Retry-After", "1")
		http.Error(w, "The game server is starting; try again in a moment.", http.StatusServiceUnavailable)
		return
	}
	(*h).ServeHTTP(w, r)
}

// serveTelegram passes a webhook request to the transport, or answers 503 while the bots are
// not added yet (Telegram delivers the update again).
func (s *Server) serveTelegram(w http.ResponseWriter, r *http.Request) {
	h := s.telegram.Load()
	if h == nil {
		w.Header().Set("Retry-After", "1")
		http.Error(w, "starting", http.StatusServiceUnavailable)
		return
	}
	(*h).ServeHTTP(w, r)
}

// healthz answers 200 once the database is migrated and still answers, 503 otherwise.
func (s *Server) healthz(w http.ResponseWriter, r *http.Request) {
	pool := s.pool.Load()
	if !s.ready.Load() || pool == nil {
		http.Error(w, "starting", http.StatusServiceUnavailable)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	if err := pool.Ping(ctx); err != nil {
		s.Log.Warn("Health check: database unreachable", slog.Any("error", err))
		http.Error(w, "database unreachable", http.StatusServiceUnavailable)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	io.WriteString(w, "ok\n")
}

// silentConns keeps the server's connections that have sent no request yet: a client's spare
// connection, a browser's preconnection. net/http's Shutdown counts such a connection as active
// for its first five seconds, so one of them would hold the shutdown for all its time limit;
// shutting down closes them instead. A request that was just arriving on one is lost, as it
// would be on a connection the stopped listener never accepted.
type silentConns struct {
	mu    sync.Mutex
	conns map[net.Conn]struct{}
}

// track is the server's ConnState hook.
func (sc *silentConns) track(c net.Conn, state http.ConnState) {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if state != http.StateNew {
		delete(sc.conns, c)
		return
	}
	if sc.conns == nil {
		sc.conns = make(map[net.Conn]struct{})
	}
	sc.conns[c] = struct{}{}
}

// close closes the connections that have sent no request.
func (sc *silentConns) close() {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	for c := range sc.conns {
		c.Close()
	}
	clear(sc.conns)
}
