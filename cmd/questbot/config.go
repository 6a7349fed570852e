package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/questbot/questbot/bot"
	"github.com/questbot/questbot/bot/boards"
	"github.com/questbot/questbot/bot/boards/web"
	"github.com/questbot/questbot/bot/botpg"
	"github.com/questbot/questbot/migrations/pgcluster"
	"github.com/questbot/questbot/qms"
)

// Config is everything `questbot serve` reads from its environment. The configuration tables of
// the README and of docs/operators.md list the same variables; keep them in step.
type Config struct {
	// DatabaseURL is a PostgreSQL connection string. Empty means: run a private cluster in
	// DataDir/postgres (the embedded default).
	DatabaseURL string
	// BotToken is the Telegram bot token, or several separated by commas. Empty means no real
	// Telegram: the built-in Bot API emulator and its web chat run instead.
	BotToken string
	// TelegramAPIURL is the Bot API server for BotToken; empty means Telegram's.
	TelegramAPIURL string
	// HTTPAddr is where the HTTP side listens: health check, metrics and, without BotToken, the
	// web chat and the emulated Bot API.
	HTTPAddr string
	// DataDir holds the embedded database and other local state.
	DataDir string
	// UploadsDir is the folder quest files (the script table's file column) are relative to.
	UploadsDir string
	// ImagesDir is a folder of images every quest may show (game art the operator owns), "" for
	// none.
	ImagesDir string
	// PGBin is the folder of the PostgreSQL server programs, for the embedded database.
	PGBin string
	// LogLevel is debug, info, warn or error; LogFormat is text or json.
	LogLevel  string
	LogFormat string
	// Admins are the Telegram user ids made admins at start (bot/devtools, ApplyRoles).
	Admins []int64
	// NewUsersDevelopers, when set, says whether the bots make every user who first writes to
	// them a quest developer; nil leaves each bot's setting (service.new_users_developers) as it is.
	NewUsersDevelopers *bool
	// TokenKey seals the tokens of the bots configured in the database (bot/botpg); TokenKeyFile
	// names a file holding it instead. Both empty: those tokens stay in plain text, and sealed
	// ones cannot be read.
	TokenKey     string
	TokenKeyFile string
	// PublicURL is the address of the web game server as users reach it, without a trailing
	// slash: the login links of /web and the links to games start with it. Empty (PUBLIC_URL
	// unset) means http:// and the address HTTP_ADDR opened (its port when HTTP_ADDR asks for
	// any).
	PublicURL string
	// FailedRetention is how long the records of what failed for good (failed outbox rows with
	// their texts, quarantined updates) are kept before the transport's cleanup removes them.
	FailedRetention time.Duration
	// WebhookURL, when set, is the public base address under which Telegram reaches this
	// process: the bots get their updates by webhook at WebhookURL/telegram/<bot id> instead of
	// by long polling. Empty (WEBHOOK_URL unset) means long polling.
	WebhookURL string
	// DatabaseSessionURL is a connection string to the same database with session semantics
	// (PostgreSQL itself, or PgBouncer in session mode), for what needs a session of its own:
	// the migrations at start (their advisory lock) and the LISTEN connections (the board
	// events hub, the wake-ups of the inbox and of the uploads). Empty: DatabaseURL.
	DatabaseSessionURL string
	// DBPoolMax is the most connections this process's pool opens; 0 means the default of the
	// role (defaultPoolSize, or pollerPoolSize for --role poller), unless DatabaseURL sets
	// pool_max_conns.
	DBPoolMax int
	// PollLease is how long a process's lease on a bot's long poll lasts unless renewed: about
	// how long a bot goes unpolled when the process polling it dies (bot.Config.PollLease).
	PollLease time.Duration
	// WebStreams is the most live update streams of the web game server one user (or API
	// token, or address not logged in) holds open at once (web.Config.Streams).
	WebStreams int
	// BotGames is the most games against the bot one player may have going at once
	// (boards.Config.BotGames).
	BotGames int
	// QMSLimits bound each compilation of an uploaded .qms source (devtools.Config.CompileLimits).
	QMSLimits qms.Limits
	// TrustedProxies are the reverse proxies in front of the web game server whose
	// X-Forwarded-For or Forwarded header names the client (web.Config.TrustedProxies). Empty:
	// the TCP peer is the client.
	TrustedProxies []netip.Prefix
	// MetricsToken, when set, is the bearer token GET /metrics asks for, from any address;
	// empty: /metrics answers this machine only (metrics.go).
	MetricsToken string
	// HTTP are the timeouts and connection caps of the HTTP side (the HTTP_* settings; see
	// httpserver.go).
	HTTP HTTPLimits
}

// envDefaults are the variables, their defaults and a line of help each, in the order the
// configuration tables list them.
var envDefaults = []struct{ name, def, help string }{
	{"DATABASE_URL", "", "PostgreSQL connection string; empty: a private cluster in DATA_DIR/postgres"},
	{"DATABASE_SESSION_URL", "", "connection string with session semantics (not PgBouncer's transaction mode) for the migrations and LISTEN; empty: DATABASE_URL"},
	{"DB_POOL_MAX", "", "most database connections of the process; empty: pool_max_conns of DATABASE_URL, else 48 (8 with --role poller)"},
	{"POLL_LEASE", bot.DefaultPollLease.String(), "how long a process's lease on a bot's long poll lasts unless renewed (several processes)"},
	{"BOT_TOKEN", "", "Telegram bot tokens, separated by commas; empty: the built-in emulator and web chat"},
	{"TELEGRAM_API_URL", "", "Bot API server for BOT_TOKEN; empty: Telegram's"},
	{"HTTP_ADDR", "127.0.0.1:8080", "listen address of /healthz, /metrics and the web chat"},
	{"DATA_DIR", ".data", "local state: the embedded database and the emulator's chats"},
	{"UPLOADS_DIR", "uploads", "the folder of the quest files"},
	{"IMAGES_DIR", "", "a folder of images every quest may show (game art you own); empty: none"},
	{"PG_BIN", pgcluster.DefaultBin, "PostgreSQL server programs"},
	{"LOG_LEVEL", "info", "debug, info, warn or error"},
	{"LOG_FORMAT", "text", "text or json"},
	{"ADMINS", "", "Telegram user ids made admins at start, separated by commas"},
	{"NEW_USERS_ARE_DEVELOPERS", "", "true or false: whether new users become quest developers"},
	{"TOKEN_KEY", "", "key sealing the tokens of the service table: 32 bytes, hex or base64"},
	{"TOKEN_KEY_FILE", "", "a file holding TOKEN_KEY instead"},
	{"PUBLIC_URL", "", "address of the web game server as users reach it (http or https); empty: http://HTTP_ADDR"},
	{"WEBHOOK_URL", "", "public https address Telegram posts updates to (webhook mode); empty: long polling"},
	{"FAILED_RETENTION", "168h", "how long failed sends and quarantined updates are kept (a Go duration)"},
	{"WEB_STREAMS_PER_USER", strconv.Itoa(web.DefaultStreams), "live update streams of the web game server one user or API token may hold open at once"},
	{"BOARD_BOT_GAMES", strconv.Itoa(boards.DefaultBotGames), "games against the bot one player may have going at once"},
	{"QMS_MAX_SITES", strconv.Itoa(qms.DefaultLimits.Sites), "most sites (locations) an uploaded .qms source may declare"},
	{"QMS_MAX_JUMPS", strconv.Itoa(qms.DefaultLimits.Jumps), "most jumps (cases) an uploaded .qms source may make"},
	{"QMS_MAX_VARIABLES", strconv.Itoa(qms.DefaultLimits.Params), "most variables an uploaded .qms source may declare"},
	{"QMS_MAX_STEPS", strconv.Itoa(qms.DefaultLimits.Steps), "most steps (lines handled, loop turns) one .qms compilation may take"},
	{"QMS_MAX_MEMORY_MB", strconv.FormatInt(qms.DefaultLimits.Memory>>20, 10), "most megabytes of text one .qms compilation may handle"},
	{"METRICS_TOKEN", "", "bearer token GET /metrics asks for (16 characters or more); empty: /metrics answers this machine only"},
	{"HTTP_MAX_CONNS", strconv.Itoa(defaultMaxConns), "most HTTP connections open at once (kept to half the open-file limit); more are refused at once"},
	{"HTTP_MAX_CONNS_PER_ADDR", strconv.Itoa(defaultMaxConnsPerAddr), "most HTTP connections open at once from one client address (TRUSTED_PROXIES excepted)"},
	{"HTTP_HEADER_TIMEOUT", defaultHeaderTimeout.String(), "time a client has to send a request's header"},
	{"HTTP_READ_TIMEOUT", defaultReadTimeout.String(), "time a client has to send a whole request, body included"},
	{"HTTP_WRITE_TIMEOUT", defaultWriteTimeout.String(), "time an answer has to be written (each flushed part of an event stream anew)"},
	{"HTTP_IDLE_TIMEOUT", defaultIdleTimeout.String(), "time a kept-alive connection may stay idle"},
	{"TRUSTED_PROXIES", "", "reverse proxies (CIDRs or addresses, separated by commas) whose X-Forwarded-For or Forwarded names the client; empty: none"},
}

// ConfigFromEnv reads the configuration through getenv (os.Getenv in production) and validates it.
func ConfigFromEnv(getenv func(string) string) (Config, error) {
	v := make(map[string]string, len(envDefaults))
	for _, e := range envDefaults {
		v[e.name] = e.def
		if s := strings.TrimSpace(getenv(e.name)); s != "" {
			v[e.name] = s
		}
	}
	cfg := Config{
		DatabaseURL:    v["DATABASE_URL"],
		BotToken:       v["BOT_TOKEN"],
		TelegramAPIURL: strings.TrimSuffix(v["TELEGRAM_API_URL"], "/"),
		HTTPAddr:       v["HTTP_ADDR"],
		DataDir:        v["DATA_DIR"],
		UploadsDir:     v["UPLOADS_DIR"],
		ImagesDir:      v["IMAGES_DIR"],
		PGBin:          v["PG_BIN"],
		LogLevel:       strings.ToLower(v["LOG_LEVEL"]),
		LogFormat:      strings.ToLower(v["LOG_FORMAT"]),
		TokenKey:       v["TOKEN_KEY"],
		TokenKeyFile:   v["TOKEN_KEY_FILE"],
	}
	if err := checkBotTokens(cfg.BotToken); err != nil {
		return Config{}, err
	}
	if err := checkHTTPAddr(cfg.HTTPAddr); err != nil {
		return Config{}, err
	}
	if _, err := parseLevel(cfg.LogLevel); err != nil {
		return Config{}, err
	}
	if u := cfg.TelegramAPIURL; u != "" && !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://") {
		return Config{}, fmt.Errorf("TELEGRAM_API_URL must be an http:// or https:// URL, not %q", u)
	}
	if cfg.LogFormat != "text" && cfg.LogFormat != "json" {
		return Config{}, fmt.Errorf("LOG_FORMAT must be text or json, not %q", cfg.LogFormat)
	}
	for _, f := range strings.FieldsFunc(v["ADMINS"], func(r rune) bool { return r == ',' || r == ' ' }) {
		id, err := strconv.ParseInt(f, 10, 64)
		if err != nil || id <= 0 {
			return Config{}, fmt.Errorf("ADMINS must be Telegram user ids separated by commas, not %q", v["ADMINS"])
		}
		cfg.Admins = append(cfg.Admins, id)
	}
	switch {
	case cfg.TokenKey != "" && cfg.TokenKeyFile != "":
		return Config{}, fmt.Errorf("set TOKEN_KEY or TOKEN_KEY_FILE, not both")
	case cfg.TokenKey != "":
		if _, err := botpg.ParseTokenKey(cfg.TokenKey); err != nil {
			return Config{}, fmt.Errorf("TOKEN_KEY must be 32 bytes as 64 hex digits or in base64 (such as the output of openssl rand -hex 32)")
		}
	}
	if s := v["PUBLIC_URL"]; s != "" {
		public, err := publicURL(s)
		if err != nil {
			return Config{}, err
		}
		cfg.PublicURL = public
	}
	if s := v["WEBHOOK_URL"]; s != "" {
		hook, err := webhookURL(s)
		if err != nil {
			return Config{}, err
		}
		cfg.WebhookURL = hook
	}
	if err := checkConnString("DATABASE_URL", cfg.DatabaseURL); err != nil {
		return Config{}, err
	}
	if s := v["DATABASE_SESSION_URL"]; s != "" {
		if err := checkConnString("DATABASE_SESSION_URL", s); err != nil {
			return Config{}, err
		}
		if cfg.DatabaseURL == "" {
			return Config{}, fmt.Errorf("DATABASE_SESSION_URL needs DATABASE_URL: the embedded database has no PgBouncer in front of it")
		}
		cfg.DatabaseSessionURL = s
	}
	if s := v["DB_POOL_MAX"]; s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 4 {
			return Config{}, fmt.Errorf("DB_POOL_MAX must be a whole number of connections, 4 or more, not %q", s)
		}
		cfg.DBPoolMax = n
	}
	lease, err := time.ParseDuration(v["POLL_LEASE"])
	if err != nil || lease < 300*time.Millisecond || lease > 5*time.Minute {
		return Config{}, fmt.Errorf("POLL_LEASE must be a duration from 300ms to 5m, such as 5s, not %q", v["POLL_LEASE"])
	}
	cfg.PollLease = lease
	retention, err := time.ParseDuration(v["FAILED_RETENTION"])
	if err != nil || retention < time.Hour {
		return Config{}, fmt.Errorf("FAILED_RETENTION must be a duration of an hour or more, such as 168h, not %q", v["FAILED_RETENTION"])
	}
	cfg.FailedRetention = retention
	streams, err := strconv.Atoi(v["WEB_STREAMS_PER_USER"])
	if err != nil || streams < 1 {
		return Config{}, fmt.Errorf("WEB_STREAMS_PER_USER must be a whole number of streams, 1 or more, not %q", v["WEB_STREAMS_PER_USER"])
	}
	cfg.WebStreams = streams
	botGames, err := strconv.Atoi(v["BOARD_BOT_GAMES"])
	if err != nil || botGames < 1 || botGames > 1000 {
		return Config{}, fmt.Errorf("BOARD_BOT_GAMES must be a whole number of games from 1 to 1000, not %q", v["BOARD_BOT_GAMES"])
	}
	cfg.BotGames = botGames
	for _, l := range []struct {
		name string
		to   *int
	}{{"QMS_MAX_SITES", &cfg.QMSLimits.Sites}, {"QMS_MAX_JUMPS", &cfg.QMSLimits.Jumps},
		{"QMS_MAX_VARIABLES", &cfg.QMSLimits.Params}, {"QMS_MAX_STEPS", &cfg.QMSLimits.Steps}} {
		n, err := strconv.Atoi(v[l.name])
		if err != nil || n < 1 {
			return Config{}, fmt.Errorf("%s must be a whole number, 1 or more, not %q", l.name, v[l.name])
		}
		*l.to = n
	}
	mb, err := strconv.Atoi(v["QMS_MAX_MEMORY_MB"])
	if err != nil || mb < 1 || mb > 1<<20 {
		return Config{}, fmt.Errorf("QMS_MAX_MEMORY_MB must be a whole number of megabytes, 1 or more, not %q", v["QMS_MAX_MEMORY_MB"])
	}
	cfg.QMSLimits.Memory = int64(mb) << 20
	if s := v["TRUSTED_PROXIES"]; s != "" {
		proxies, err := web.ParseProxies(s)
		if err != nil {
			return Config{}, fmt.Errorf("TRUSTED_PROXIES must be CIDR ranges or addresses separated by commas, such as 10.0.0.0/8,192.168.1.10: %v", err)
		}
		cfg.TrustedProxies = proxies
	}
	if s := v["METRICS_TOKEN"]; s != "" {
		if len(s) < 16 || strings.ContainsFunc(s, func(r rune) bool { return r <= ' ' || r > '~' }) {
			return Config{}, fmt.Errorf("METRICS_TOKEN must be 16 or more printable ASCII characters without spaces (such as the output of openssl rand -hex 16)")
		}
		cfg.MetricsToken = s
	}
	http, err := httpLimits(v)
	if err != nil {
		return Config{}, err
	}
	cfg.HTTP = http
	if s := v["NEW_USERS_ARE_DEVELOPERS"]; s != "" {
		on, err := strconv.ParseBool(s)
		if err != nil {
			return Config{}, fmt.Errorf("NEW_USERS_ARE_DEVELOPERS must be true or false, not %q", s)
		}
		cfg.NewUsersDevelopers = &on
	}
	return cfg, nil
}

// httpLimits reads the HTTP_* settings.
func httpLimits(v map[string]string) (HTTPLimits, error) {
	var l HTTPLimits
	for _, c := range []struct {
		name string
		to   *int
	}{{"HTTP_MAX_CONNS", &l.MaxConns}, {"HTTP_MAX_CONNS_PER_ADDR", &l.MaxConnsPerAddr}} {
		n, err := strconv.Atoi(v[c.name])
		if err != nil || n < 1 {
			return HTTPLimits{}, fmt.Errorf("%s must be a whole number of connections, 1 or more, not %q", c.name, v[c.name])
		}
		*c.to = n
	}
	if l.MaxConnsPerAddr > l.MaxConns {
		l.MaxConnsPerAddr = l.MaxConns
	}
	for _, c := range []struct {
		name string
		to   *time.Duration
	}{{"HTTP_HEADER_TIMEOUT", &l.HeaderTimeout}, {"HTTP_READ_TIMEOUT", &l.ReadTimeout},
		{"HTTP_WRITE_TIMEOUT", &l.WriteTimeout}, {"HTTP_IDLE_TIMEOUT", &l.IdleTimeout}} {
		d, err := time.ParseDuration(v[c.name])
		if err != nil || d < 100*time.Millisecond || d > time.Hour {
			return HTTPLimits{}, fmt.Errorf("%s must be a duration from 100ms to 1h, such as 30s, not %q", c.name, v[c.name])
		}
		*c.to = d
	}
	if l.HeaderTimeout > l.ReadTimeout {
		return HTTPLimits{}, fmt.Errorf("HTTP_HEADER_TIMEOUT (%s) must not be longer than HTTP_READ_TIMEOUT (%s): the header is part of the request",
			l.HeaderTimeout, l.ReadTimeout)
	}
	return l, nil
}

// checkConnString checks that the connection string s of variable name (empty is fine) is one
// PostgreSQL can read: a URL (postgres://…) or keyword=value pairs. The string itself is not
// repeated: it may hold a password. Whether its server answers is the start's to find.
func checkConnString(name, s string) error {
	if s == "" {
		return nil
	}
	if _, err := pgconn.ParseConfig(s); err != nil {
		reason := ""
		var pe *pgconn.ParseConfigError
		// The parser's reason, unless it quotes the string.
		if errors.As(err, &pe) && errors.Unwrap(pe) != nil {
			if r := errors.Unwrap(pe).Error(); !strings.Contains(r, s) && !strings.Contains(r, "@") {
				reason = " (" + r + ")"
			}
		}
		return fmt.Errorf("%s is not a PostgreSQL connection string%s: it must be a URL such as postgres://user:password@host:5432/questbot "+
			"or keyword=value pairs such as \"host=/run/postgresql dbname=questbot\"", name, reason)
	}
	return nil
}

// checkPGBin checks, when the embedded database is to run (no DATABASE_URL), that PG_BIN holds
// the PostgreSQL server programs.
func checkPGBin(cfg Config) error {
	if cfg.DatabaseURL != "" {
		return nil
	}
	if _, err := pgcluster.New(pgcluster.Options{Bin: cfg.PGBin, Root: filepath.Join(cfg.DataDir, "postgres")}); errors.Is(err, pgcluster.ErrNoBinaries) {
		return fmt.Errorf("PG_BIN: %w; or set DATABASE_URL to a PostgreSQL server of your own", err)
	}
	return nil
}

// publicURL validates PUBLIC_URL: an absolute http or https URL without a query or fragment; its
// trailing slash is dropped.
func publicURL(s string) (string, error) {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil ||
		u.RawQuery != "" || u.Fragment != "" || strings.HasSuffix(u.Host, ":") {
		return "", fmt.Errorf("PUBLIC_URL must be an absolute http:// or https:// address such as https://games.example.org, not %q", s)
	}
	return strings.TrimRight(u.String(), "/"), nil
}

// webhookURL validates WEBHOOK_URL: an absolute https URL without a query or fragment, as
// Telegram requires; http only for a host on this machine (the built-in emulator, tests). Its
// trailing slash is dropped.
func webhookURL(s string) (string, error) {
	u, err := url.Parse(s)
	bad := err != nil || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" || strings.HasSuffix(u.Host, ":")
	if !bad {
		switch u.Scheme {
		case "https":
		case "http":
			h := u.Hostname()
			bad = h != "localhost" && h != "127.0.0.1" && h != "::1"
		default:
			bad = true
		}
	}
	if bad {
		return "", fmt.Errorf("WEBHOOK_URL must be an absolute https:// address such as https://bot.example.org (http:// only for localhost), not %q", s)
	}
	return strings.TrimRight(u.String(), "/"), nil
}

// ReadTokenKey returns the key that seals the tokens of the bots configured in the database:
// TOKEN_KEY, or the content of the file TOKEN_KEY_FILE names; nil when neither is set.
func (c Config) ReadTokenKey() (*botpg.TokenKey, error) {
	raw := c.TokenKey
	if c.TokenKeyFile != "" {
		data, err := os.ReadFile(c.TokenKeyFile)
		if err != nil {
			return nil, fmt.Errorf("TOKEN_KEY_FILE: %w", err)
		}
		raw = string(data)
	}
	if raw == "" {
		return nil, nil
	}
	key, err := botpg.ParseTokenKey(raw)
	if err != nil {
		// The key itself is never told.
		return nil, fmt.Errorf("TOKEN_KEY_FILE %s: %w", c.TokenKeyFile, err)
	}
	return key, nil
}

func parseLevel(s string) (slog.Level, error) {
	switch s {
	case "debug":
		return slog.LevelDebug, nil
	case "info":
		return slog.LevelInfo, nil
	case "warn", "warning":
		return slog.LevelWarn, nil
	case "error":
		return slog.LevelError, nil
	}
	return 0, fmt.Errorf("LOG_LEVEL must be debug, info, warn or error, not %q", s)
}

// NewLogger builds the process's logger from the configuration.
func NewLogger(cfg Config, w io.Writer) *slog.Logger {
	level, _ := parseLevel(cfg.LogLevel)
	opts := &slog.HandlerOptions{Level: level}
	if cfg.LogFormat == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}
