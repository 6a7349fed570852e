// Package web is the web game server, a view of the board service (bot/boards), as the Telegram
// view (bot/boards/telegram) is another: the board games played in the browser and by programs,
// on the same boards as in Telegram, so a game may be played partly in each.
//
// Server.Handler serves, on the bot's HTTP server, the login links (/login/<ticket>, login.go: a
// page that logs in by a POST, from this server's pages only; given by /web
// in the bot: the Telegram view's command, which also issues API tokens with /token and revokes
// those whose message could not be delivered), the login of the pages opened as Telegram Mini
// Apps (POST /api/v1/miniapp/login, miniapp.go), /logout and /logout/all, the JSON API under
// /api/v1/ (api.go), the tournaments' pages (/tournaments/<id>) and the pages (Config.Pages: /games,
// /play/<id>, /top, /static/). Its routes are registered in one place, and Patterns lists them:
// questbot serve mounts exactly those (Mount), so a route added here is served there. The tickets,
// sessions and API tokens are kept by their store, botpg.Credentials; identity (who calls, by
// session or token), the login's session cookie and CSRF are auth.go's; the rate limit, a token
// bucket per user, limit.go's; the throttle of failed logins throttle.go's, per client address
// as clientip.go finds it behind trusted proxies; the end of the event streams with their
// credentials revoke.go's; the answers while the database is down outage.go's; the export of a
// game's moves (PGN, PDN, a list) export.go's; the archive of a player's finished games (the
// API and the page /players/<id>/games) archive.go's; what follows a finished game (the rating
// changes, the rematch, a new opponent) rematch.go's; the engine's analysis of a position
// (POST /api/v1/analysis, refused to a player of a game in play) analysis.go's; the one stream
// of several games and tournaments that the pages of a browser share (GET /api/v1/events)
// multiplex.go's. The game page (static/play.js) steps through a game's moves with its buttons
// and the arrow keys, showing the picture of each ply (the picture's ply), flips the board, and
// shows the analysis of the position shown; looking back, a move of the opponent joins the list
// but leaves the position shown, until the page goes back to the game.
//
// The server trusts no client: every call is checked against the caller's seat, and every move
// goes through the engine on the server. Reads use a read-only transaction of the pool (the
// service's store; a board as one viewer sees it is state.go's); writes are the service's
// operations (boards.Boards.Open, Join, Take and Held.Act, ...) in a transaction of the board's
// bot (Config.Doer, the transport), so that what the Telegram view sends commits with the
// change. The domain store is reached through the service only (boards.Boards.Store, boards.Revisions,
// boards.Spectators; make check), and the service's scenes are plain text, which the server
// answers as they are, with the catalogue's words made plain (texts.Plain).
package web

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/netip"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/questbot/questbot/bot"
	"github.com/questbot/questbot/bot/boards"
)

// Events are the live updates of boards: their numbered records, followed (a Hub, which also
// counts the streams in its metrics and ends them with their grants, revoke.go).
type Events interface {
	// Follow follows a board's events numbered above after, for a stream.
	Follow(board, after int64) *boards.Subscription
	// Records is the database of the boards' records, where a stream reads what it missed.
	Records() boards.DB
}

// Doer runs work in a transaction of a bot (bot.Transport.Do), so that what the Telegram view
// queues for a change the web makes commits with it.
type Doer interface {
	Do(ctx context.Context, service int, fn func(ctx context.Context, tx bot.Tx) error) error
}

// Config configures a Server.
type Config struct {
	// Pool is the database.
	Pool *pgxpool.Pool
	// Doer runs an operation in a transaction whose messages go to a bot's outbox
	// (bot.Transport); an error matching ErrUnavailable is answered 503.
	Doer Doer
	// Boards are the board operations.
	Boards *boards.Boards
	// PublicURL is the server's address as users reach it, without a trailing slash, e.g.
	// http://127.0.0.1:8080; the session cookie is Secure when it is https.
	PublicURL string
	// Events are the live updates of boards (a Hub), streamed to the pages by ServeEvents;
	// nil: the events endpoint answers 503.
	Events Events
	// Tournaments are the board games' tournaments (tournament.go); nil: their calls answer
	// 404. TournamentEvents are their live updates (a TournamentHub); nil: their streams
	// answer 503.
	Tournaments      *boards.Tournaments
	TournamentEvents TournamentEvents
	// Pages serves the HTML pages and their static files (GET /games, /play/<id>, /static/...);
	// nil: they answer 404.
	Pages http.Handler
	// MiniApps are the bots whose Mini Apps log their users in with Telegram's signed data
	// (miniapp.go): the transport. Nil: every such login is refused.
	MiniApps MiniAppKeys
	// Now is the clock of tickets, sessions, the Mini Apps' data and the rate limit; time.Now
	// when nil.
	Now func() time.Time
	// Log receives what goes wrong; nil discards it.
	Log *slog.Logger
	// Rate and Burst are the rate limit of a user (or token): requests a second, and how many
	// at once; DefaultRate and DefaultBurst when 0.
	Rate  float64
	Burst int
	// Streams is the most event streams (GET /api/v1/games/{id}/events, a tournament's, and
	// GET /api/v1/events, which counts once whatever it follows) one caller holds open at
	// once, counted as the rate limit counts requests: per API token, per user over all their
	// sessions, per address for someone not logged in; DefaultStreams when 0. A stream over it
	// is refused with 429 too_many_streams. Streams are not rate limited as requests.
	Streams int
	// AuthFailures and AuthFailureEvery throttle the failed logins of each client address (a
	// forged or revoked token, a dead session cookie, a used or made-up login link): after
	// AuthFailures of them, one more is let through every AuthFailureEvery, and a request that
	// presents a token, a cookie or a link meanwhile is answered 429 with Retry-After before it
	// is looked up. DefaultAuthFailures and DefaultAuthFailureEvery when 0.
	AuthFailures     int
	AuthFailureEvery time.Duration
	// PictureRate and PictureBurst limit the fetches of the pictures of shared messages with
	// their key (sharedpicture.go), per client address: pictures a second, and how many at
	// once; DefaultPictureRate and DefaultPictureBurst when 0. A fetch over it is answered 429
	// with Retry-After; the fetches without a key are counted by the rate limit (Rate).
	PictureRate  float64
	PictureBurst int
	// AnalysisRate and AnalysisBurst limit each caller's analyses (POST /api/v1/analysis,
	// analysis.go), keyed as the rate limit: analyses a second, and how many at once;
	// DefaultAnalysisRate and DefaultAnalysisBurst when 0. One over it is answered 429
	// rate_limited with Retry-After.
	AnalysisRate  float64
	AnalysisBurst int
	// TrustedProxies are the reverse proxies whose X-Forwarded-For or Forwarded header names
	// the client (clientip.go); nobody else's is believed. Empty: the TCP peer is the client.
	TrustedProxies []netip.Prefix
}

// The default rate limit: 10 requests a second, 40 at once.
const (
	DefaultRate  = 10
	DefaultBurst = 40
)

// The default limit of the keyed fetches of pictures, per address: 30 a second, 120 at once.
// Telegram's servers fetch the picture of every inline game at each move from a few addresses;
// a fetch costs a lookup and a copy from the pictures' cache.
const (
	DefaultPictureRate  = 30
	DefaultPictureBurst = 120
)

// DefaultStreams is the default of Config.Streams: a user with many games open in tabs and on
// a phone stays well under it.
const DefaultStreams = 20

// The default throttle of failed logins: 20 from one address, then one every 6 seconds (ten a
// minute). A person with a stale cookie or an old link fails a few times at most.
const (
	DefaultAuthFailures     = 20
	DefaultAuthFailureEvery = 6 * time.Second
)

// ErrUnavailable: the bot is not running yet (or any more); the server answers 503.
var ErrUnavailable = errors.New("web: the bot is not running")

// Server is the web game server; safe for concurrent use.
type Server struct {
	cfg   Config
	log   *slog.Logger
	now   func() time.Time
	limit *limiter
	// failures counts the failed logins of each client address (Config.AuthFailures).
	failures *limiter
	// streams caps the event streams each caller holds open.
	streams *streamCap
	// health logs the database's outages (outage.go).
	health *health
	// pics are the encoded pictures (picturecache.go), and pictureLimit limits the keyed
	// fetches of each client address.
	pics         *pictureCache
	pictureLimit *limiter
	// analysisLimit limits each caller's analyses, and searches holds a token for each
	// analysis searching (AnalysisSearches).
	analysisLimit *limiter
	searches      chan struct{}
}

// New returns a server.
func New(cfg Config) *Server {
	s := &Server{cfg: cfg, log: cfg.Log, now: cfg.Now}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	s.health = &health{log: s.log}
	if s.now == nil {
		s.now = time.Now
	}
	rate, burst := cfg.Rate, cfg.Burst
	if rate <= 0 {
		rate = DefaultRate
	}
	if burst <= 0 {
		burst = DefaultBurst
	}
	s.limit = newLimiter(rate, burst, s.now)
	fails, every := cfg.AuthFailures, cfg.AuthFailureEvery
	if fails <= 0 {
		fails = DefaultAuthFailures
	}
	if every <= 0 {
		every = DefaultAuthFailureEvery
	}
	s.failures = newLimiter(float64(time.Second)/float64(every), fails, s.now)
	streams := cfg.Streams
	if streams <= 0 {
		streams = DefaultStreams
	}
	s.streams = newStreamCap(streams)
	s.pics = newPictureCache(PictureCacheBytes)
	prate, pburst := cfg.PictureRate, cfg.PictureBurst
	if prate <= 0 {
		prate = DefaultPictureRate
	}
	if pburst <= 0 {
		pburst = DefaultPictureBurst
	}
	s.pictureLimit = newLimiter(prate, pburst, s.now)
	arate, aburst := cfg.AnalysisRate, cfg.AnalysisBurst
	if arate <= 0 {
		arate = DefaultAnalysisRate
	}
	if aburst <= 0 {
		aburst = DefaultAnalysisBurst
	}
	s.analysisLimit = newLimiter(arate, aburst, s.now)
	s.searches = make(chan struct{}, AnalysisSearches)
	return s
}

// Handler serves /login/, /logout, /logout/all, /api/v1/, /tournaments/ and the pages: the
// patterns of Patterns, registered once (route), their text answers compressed (compress.go).
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	s.route(mux)
	return compress(mux)
}

// router is where route registers the web view's patterns: the handler's own ServeMux, or the
// record that Patterns reads.
type router interface {
	Handle(pattern string, h http.Handler)
	HandleFunc(pattern string, h func(http.ResponseWriter, *http.Request))
}

// route registers every pattern of the web view on mux. Every call of the API is under
// /api/v1/, whose catch-all answers an unknown call as JSON, so that a host which mounts these
// patterns beside its own routes keeps every other path (the web chat's /api/... among them).
func (s *Server) route(mux router) {
	mux.HandleFunc("GET /login/{ticket}", s.loginPage)
	mux.HandleFunc("POST /login/{ticket}", s.login)
	mux.HandleFunc("POST /api/v1/miniapp/login", s.miniAppLogin)
	mux.HandleFunc("POST /logout", s.logout)
	mux.HandleFunc("POST /logout/all", s.logout)
	s.routeAPI(mux)
	s.routeRatings(mux)
	s.routeTournaments(mux)
	s.routeArchive(mux)
	s.routeRematch(mux)
	pages := s.cfg.Pages
	if pages == nil {
		pages = http.NotFoundHandler()
	}
	mux.Handle("GET /games", pages)
	mux.Handle("GET /play/", pages)
	mux.Handle("GET /top", pages)
	mux.Handle("GET /top/", pages)
	mux.Handle("GET /static/", pages)
}

// patternRecord is a router that keeps the patterns only.
type patternRecord []string

func (p *patternRecord) Handle(pattern string, _ http.Handler) { *p = append(*p, pattern) }
func (p *patternRecord) HandleFunc(pattern string, _ func(http.ResponseWriter, *http.Request)) {
	*p = append(*p, pattern)
}

// Patterns returns the patterns Handler registers (http.ServeMux's syntax, e.g.
// "GET /api/v1/games/{id}"), in the order it registers them. They are the one list of the web
// view's routes: Mount puts them on a host's ServeMux, and a host's tests request each of them.
func Patterns() []string {
	var rec patternRecord
	(&Server{}).route(&rec)
	return rec
}

// Mount registers every pattern of Patterns on mux, served by h: a Server's Handler, or a
// handler that passes requests to one made later (questbot serve opens its listener before
// the database, and answers 503 until the game server runs). A request whose path is the web
// view's but whose method none of its patterns serve goes to mux's other routes, as any path
// the web view does not serve; under /api/v1/ the web view's catch-all answers every method.
func Mount(mux *http.ServeMux, h http.Handler) {
	for _, p := range Patterns() {
		mux.Handle(p, h)
	}
}

// cookie is the session cookie with a secret, kept for maxAge seconds (-1: deleted).
func (s *Server) cookie(secret string, maxAge int) *http.Cookie {
	return &http.Cookie{Name: CookieName, Value: secret, Path: "/", MaxAge: maxAge, HttpOnly: true,
		SameSite: http.SameSiteLaxMode, Secure: len(s.cfg.PublicURL) > 8 && s.cfg.PublicURL[:8] == "https://"}
}

// logout ends the caller's session (POST /logout), or every session of the user (/logout/all).
func (s *Server) logout(w http.ResponseWriter, r *http.Request) {
	dataHeaders(w)
	if s.throttled(w, r) {
		return
	}
	c, err := s.identify(r.Context(), r)
	if errors.Is(err, errRefused) {
		s.loginFailed(r)
	}
	if errors.Is(err, errRefused) || err == nil && (c.anonymous() || c.secret == "") {
		writeError(w, r, apiErr(http.StatusUnauthorized, "unauthorized", "Log in with a link from /web in the bot."))
		return
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if !checkCSRF(r, c) {
		writeError(w, r, apiErr(http.StatusForbidden, "csrf", "The X-CSRF-Token header is missing or wrong."))
		return
	}
	start := time.Now()
	if r.URL.Path == "/logout/all" {
		err = creds.EndSessions(r.Context(), s.cfg.Pool, c.service, c.user)
	} else {
		err = creds.EndSession(r.Context(), s.cfg.Pool, c.secret)
	}
	s.health.observe(start, err)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	http.SetCookie(w, s.cookie("", -1))
	w.WriteHeader(http.StatusNoContent)
}
