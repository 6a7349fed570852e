package boards

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/questbot/questbot/sessions/board"
	"github.com/questbot/questbot/sessions/board/boardpg"
)

// Store keeps the boards, inside the caller's transaction (sessions/board/boardpg implements it).
type Store interface {
	board.Store
	board.Jobs
	board.Views
	board.Ratings
	// AppendEvents appends events to the boards' record (events.go), numbering them, and carries
	// out the notification policy's writes of the change they are of (notify.go), in one round
	// trip to the database.
	AppendEvents(ctx context.Context, evs []boardpg.EventRow, notices []board.NoticeWrite) error
}

// Users gives the players as others see them (bot/boards/botusers gives the bot's users): their
// chat, name and language, and which of them are programs. db is the caller's transaction.
type Users interface {
	// Profile returns a user; nil, without an error, when there is none (a user row removed by
	// hand).
	Profile(ctx context.Context, db pgx.Tx, id int64) (*Profile, error)
	// Programs reports which of users play in the bot service through an API token (programs,
	// which the leaderboards mark as bots).
	Programs(ctx context.Context, db pgx.Tx, service int, users []int64) (map[int64]bool, error)
}

// ErrNoUsers is the error of every read of a player by a service configured without Users.
var ErrNoUsers = errors.New("boards: no Users configured")

// noUsers are the Users of a service configured without them.
type noUsers struct{}

func (noUsers) Profile(context.Context, pgx.Tx, int64) (*Profile, error) { return nil, ErrNoUsers }
func (noUsers) Programs(context.Context, pgx.Tx, int, []int64) (map[int64]bool, error) {
	return nil, ErrNoUsers
}

// Profile is a player as the views show them: the bot's user, as plain data.
type Profile struct {
	ID   int64
	Chat int64
	// FirstName and Username (without the @) are the user's in Telegram, either maybe empty:
	// PlayerName names them.
	FirstName string
	Username  string
	// Lang is the user's language code.
	Lang  string
	Admin bool
	// Blocked: the user blocked the bot.
	Blocked bool
}

// Tx is the transaction an operation runs in: the caller's (the transport's transaction of an
// update, or of Doer), of which the service uses only the database and the work to do once it has
// committed. What a view queues in it (View) commits with the change; a view that needs more of
// its transaction (the Telegram view's outbox) is handed the one its caller gave.
type Tx interface {
	// DB is the database transaction, for the stores; never committed or rolled back here.
	DB() pgx.Tx
	// AfterCommit calls fn once the transaction has committed, never when it is rolled back.
	AfterCommit(fn func())
}

// Doer runs work in a transaction of its own outside any update, whose messages go to the outbox
// of a bot (the transport's Do, through DoerOf); the scheduled jobs and the AI use it.
type Doer interface {
	Do(ctx context.Context, service int, fn func(ctx context.Context, tx Tx) error) error
}

// DoerOf is the Doer of a transport's Do, whose transactions are of the transport's own type T
// (any Tx: the bot's bot.Tx), so that the service needs no more of the transport than Tx.
func DoerOf[T Tx](do func(ctx context.Context, service int, fn func(ctx context.Context, tx T) error) error) Doer {
	return doerOf[T](do)
}

type doerOf[T Tx] func(ctx context.Context, service int, fn func(ctx context.Context, tx T) error) error

func (d doerOf[T]) Do(ctx context.Context, service int, fn func(ctx context.Context, tx Tx) error) error {
	return d(ctx, service, func(ctx context.Context, tx T) error { return fn(ctx, tx) })
}

// Config configures Boards. Only Dir is needed; the rest have production defaults and exist for
// the tests.
type Config struct {
	// Dir is the folder of the board pictures (created when missing).
	Dir string
	// Log receives what goes wrong; nil discards it.
	Log *slog.Logger
	// Now is the clock of the games (turns, deadlines, reminders); nil is time.Now. The
	// pictures' ages are the file system's, in real time.
	Now func() time.Time
	// Store returns the board store of a transaction; boardpg's when nil.
	Store func(tx pgx.Tx) Store
	// Users gives the players' profiles (bot/boards/botusers: the bot's users); without it
	// every read of a player fails (ErrNoUsers).
	Users Users
	// Workers bounds the AI searches run at once; runtime.NumCPU() when 0.
	Workers int
	// BotGames is the most games against the bot one player may have going at once
	// (BOARD_BOT_GAMES); DefaultBotGames when 0.
	BotGames int
	// Think caps the time of one AI search by level (the levels' node limits come first, see
	// board.BotLevel.Limits); DefaultThink when nil.
	Think map[board.BotLevel]time.Duration
	// Lease is how long the AI holds a bot's turn it claimed before another worker may take it
	// (a worker that died); DefaultLease when 0.
	Lease time.Duration
	// InviteTTL is how long an invite link works; board.InviteLifetime when 0.
	InviteTTL time.Duration
	// KeepPictures is how long a picture is kept after it was last written; DefaultKeepPictures
	// when 0.
	KeepPictures time.Duration
	// PublicURL is the address of the web game server (PUBLIC_URL), without a trailing slash:
	// a game's page is PublicURL+"/play/<id>". Empty: no links to the web are given.
	PublicURL string
	// PublicURLLocal says that PublicURL was not configured but is the listener's own address
	// (serve's default without PUBLIC_URL): the links a user opens on this machine work, but
	// Telegram cannot fetch from it, so no picture goes by address (SharedPictureURL and
	// StartPictureURL give none, and inline messages show the board as text).
	PublicURLLocal bool
	// TestEnvironment says that the bots talk to Telegram's test environment (the built-in Bot
	// API emulator is one), which opens Mini Apps from http loopback addresses too (the
	// Telegram view's web_app buttons).
	TestEnvironment bool
	// Seed gives the seed of a new board (it draws a random side and seeds the AI); the system's
	// random source when nil. Tests fix it.
	Seed func() uint64
}

// DefaultThink are the time caps of the AI's searches: at most 2 s for the strongest level.
var DefaultThink = map[board.BotLevel]time.Duration{
	board.BotEasy:   500 * time.Millisecond,
	board.BotNormal: time.Second,
	board.BotStrong: 2 * time.Second,
}

// DefaultBotGames is the most games against the bot a player has going at once by default: enough
// to try every level of a game side by side, and few enough that one player's turns cannot fill
// the AI's queue (the AI serves the players in turn, see Think, so each waits at most for one
// search of every other player's).
const DefaultBotGames = 5

// DefaultLease is how long the AI holds a claimed bot's turn: the longest search and the time
// to play its move, with room to spare.
const DefaultLease = 15 * time.Second

// DefaultKeepPictures is how long an unused board picture is kept.
const DefaultKeepPictures = 7 * 24 * time.Hour

// Boards is the board-game service; safe for concurrent use.
type Boards struct {
	log    *slog.Logger
	now    func() time.Time
	store  func(tx pgx.Tx) Store
	users  Users
	pics   *pictures
	think  map[board.BotLevel]time.Duration
	lease  time.Duration
	invite time.Duration
	slots  chan struct{} // one per AI search that may run at once
	// botGames is Config.BotGames.
	botGames int
	// aiTurn tells a running Think that a bot's turn came (wakeAI); aiWake runs Think when none
	// runs (SetAIWake).
	aiTurn  chan struct{}
	aiWake  atomic.Pointer[func()]
	metrics *Metrics
	seed    func() uint64
	public  string
	testEnv bool // Config.TestEnvironment
	// sharedInvites are the Telegram view's (SetSharedInvites).
	sharedInvites SharedInvites
	views         []View
	// tourney are the tournaments (NewTournaments), which follow the boards' changes; nil
	// without them.
	tourney *Tournaments

	// pictures is the address Telegram fetches pictures from: public, unless it is only the
	// listener's own (Config.PublicURLLocal).
	pictures string
}

// New returns the board games of the bots.
func New(cfg Config) *Boards {
	b := &Boards{log: cfg.Log, now: cfg.Now, store: cfg.Store, users: cfg.Users, think: cfg.Think,
		lease: cfg.Lease, invite: cfg.InviteTTL, metrics: NewMetrics(), seed: cfg.Seed,
		public: strings.TrimRight(cfg.PublicURL, "/"), testEnv: cfg.TestEnvironment}
	if !cfg.PublicURLLocal {
		b.pictures = b.public
	}
	if b.log == nil {
		b.log = slog.New(slog.DiscardHandler)
	}
	if b.now == nil {
		b.now = time.Now
	}
	if b.store == nil {
		b.store = func(tx pgx.Tx) Store { return boardpg.New(tx) }
	}
	if b.users == nil {
		b.users = noUsers{}
	}
	if b.seed == nil {
		b.seed = newSeed
	}
	if b.think == nil {
		b.think = DefaultThink
	}
	if b.lease <= 0 {
		b.lease = DefaultLease
	}
	if b.invite <= 0 {
		b.invite = board.InviteLifetime
	}
	workers := cfg.Workers
	if workers <= 0 {
		workers = runtime.NumCPU()
	}
	b.slots = make(chan struct{}, workers)
	b.botGames = cfg.BotGames
	if b.botGames <= 0 {
		b.botGames = DefaultBotGames
	}
	b.aiTurn = make(chan struct{}, 1)
	keep := cfg.KeepPictures
	if keep <= 0 {
		keep = DefaultKeepPictures
	}
	dir, err := filepath.Abs(cfg.Dir)
	if err != nil {
		dir = cfg.Dir
	}
	b.pics = &pictures{dir: dir, keep: keep, now: time.Now}
	// The digest of the engine's drawing, which names every picture, is made now, once per
	// process, rather than inside the first change that shows a board.
	if _, err := drawing(); err != nil {
		b.log.Error("The board pictures cannot be named", slog.Any("error", err))
	}
	return b
}

// newSeed returns a seed for a new board, from the system's random source: it picks a random
// side and seeds the AI.
func newSeed() uint64 {
	var buf [8]byte
	rand.Read(buf[:])
	return binary.LittleEndian.Uint64(buf[:])
}

// Metrics are the board games' Prometheus metrics. They are counted in the transaction that
// makes the change, so an update whose transaction is rolled back and handled again counts
// twice (rare: a failure of the database).
type Metrics struct {
	// Started and Finished count games by engine variant (and, finished, by how they ended:
	// rules, resignation, timeout, agreement).
	Started  *prometheus.CounterVec
	Finished *prometheus.CounterVec
	// Moves counts the moves played, by variant and by whom (human, bot); its rate is the moves
	// per second.
	Moves *prometheus.CounterVec
	// Think is the time of the AI's searches, by variant and level.
	Think *prometheus.HistogramVec
	// Render is the time to draw and write a board picture, and Drawn counts the pictures drawn
	// by where (DrawnAtSend, DrawnWebRequest, ...). Both are the process's, whichever service
	// draws (the sender draws for all: DrawPicture).
	Render prometheus.Histogram
	Drawn  *prometheus.CounterVec
	// Notifications counts the notifications of pending moves by outcome: sent by the job
	// ("sent") or with the move ("at_once"), or dropped because the player had seen the news
	// ("seen"), had blocked the bot ("blocked") or it was no longer news ("stale").
	Notifications *prometheus.CounterVec
}

// NewMetrics creates the metrics (not registered).
func NewMetrics() *Metrics {
	return &Metrics{
		Started: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "questbot_board_games_started_total", Help: "Board games started (both seats filled), by game.",
		}, []string{"game"}),
		Finished: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "questbot_board_games_finished_total", Help: "Board games finished, by game and how they ended.",
		}, []string{"game", "end"}),
		Moves: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "questbot_board_moves_total", Help: "Board game moves played, by game and by whom (human, bot).",
		}, []string{"game", "by"}),
		Think: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "questbot_board_ai_think_seconds",
			Help:    "Time of the AI's searches for a move, by game and level.",
			Buckets: []float64{.005, .01, .025, .05, .1, .25, .5, 1, 1.5, 2, 3, 5},
		}, []string{"game", "level"}),
		Render: renderSeconds,
		Drawn:  picturesDrawn,
		Notifications: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "questbot_board_notifications_total",
			Help: "Notifications of pending moves: sent (by the job, or at once) or dropped (seen, blocked, stale).",
		}, []string{"outcome"}),
	}
}

// Register registers every metric with r.
func (m *Metrics) Register(r prometheus.Registerer) error {
	for _, c := range []prometheus.Collector{m.Started, m.Finished, m.Moves, m.Think, m.Render, m.Drawn, m.Notifications} {
		if err := r.Register(c); err != nil {
			return err
		}
	}
	return nil
}

// Register registers the board games' metrics with r.
func (b *Boards) Register(r prometheus.Registerer) error { return b.metrics.Register(r) }

// PlayURL returns the address of a game's web page, or "" when no web game server is
// configured (Config.PublicURL).
func (b *Boards) PlayURL(board int64) string {
	if b.public == "" {
		return ""
	}
	return fmt.Sprintf("%s/play/%d", b.public, board)
}

// InviteDigest is the digest of an invitation's code, which a view may keep instead of the
// code (the Telegram view's shared messages) and redeem with RedeemDigest.
func InviteDigest(code string) string { return boardpg.InviteDigest(code) }

// DB reads the boards outside any transaction of the service: a pool, a connection or a
// transaction. The views' live updates read the record and the revisions with it.
type DB = boardpg.DB

// Revisions returns the revisions of the boards ids (the boards deleted are missing), read on
// db, a connection outside any transaction of the service: the web's live updates catch up with
// it after a reconnection.
func Revisions(ctx context.Context, db boardpg.DB, ids []int64) (map[int64]int64, error) {
	return boardpg.Revisions(ctx, db, ids)
}

// Spectators reports whether anyone may watch a board (Held.SetSpectators switches it), for a
// reader that holds no service (the web's check of the grants of its live updates).
func Spectators(ctx context.Context, db pgx.Tx, board int64) (bool, error) {
	return boardpg.New(db).Spectators(ctx, board)
}
