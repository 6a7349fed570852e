package devtools

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/questbot/questbot/bot"
	"github.com/questbot/questbot/bot/botpg"
	"github.com/questbot/questbot/bot/devtools/devpg"
	"github.com/questbot/questbot/bot/texts"
	"github.com/questbot/questbot/qms"
	"github.com/questbot/questbot/quest"
	"github.com/questbot/questbot/quest/questfs"
	"github.com/questbot/questbot/quest/questlog"
	"github.com/questbot/questbot/quest/questpg"
	"github.com/questbot/questbot/scripts"
)

// Default size limits of uploads.
const (
	defaultMaxQuest = 8 << 20   // the largest known quests are about 2 MB
	defaultMaxImage = 5 << 20   // Telegram takes photos up to 10 MB
	defaultMaxSave  = 512 << 10 // a save of the largest quests is a few kilobytes
)

// maxPixels and maxSide bound an uploaded image before it is decoded, so that a small file
// claiming a huge picture cannot take the memory.
const (
	maxPixels = 16 << 20
	maxSide   = 10000
)

// outputAge is how long the files sent by /dump, /write and /save stay on disk: long enough for
// the outbox to send them after a wait.
const outputAge = 24 * time.Hour

// Store keeps the games and the catalogue as the tools use them (quest/questpg implements it).
// Every method works in the update's transaction db.
type Store interface {
	Running(ctx context.Context, db pgx.Tx, service int, user int64) (*questpg.Game, error)
	Step(ctx context.Context, db pgx.Tx, g *questpg.Game, prevNonce int64) (bool, error)
	StartSandbox(ctx context.Context, db pgx.Tx, g *questpg.Game) error
	Openable(ctx context.Context, db pgx.Tx, service int, user, id int64) (*questpg.Script, error)
	Find(ctx context.Context, db pgx.Tx, service int, user int64, what, key, lang string) (*questpg.Script, error)
	FindByFile(ctx context.Context, db pgx.Tx, service int, user int64, file, key string) (*questpg.Script, error)
	LastUpload(ctx context.Context, db pgx.Tx, service int, owner int64, kind, name string) (questpg.Upload, error)
	AddQuestUpload(ctx context.Context, db pgx.Tx, q questpg.NewQuestUpload) (int64, error)
	AddImageUpload(ctx context.Context, db pgx.Tx, im questpg.NewFileUpload) error
	AddSourceUpload(ctx context.Context, db pgx.Tx, src questpg.NewFileUpload) error
	SourceFiles(ctx context.Context, db pgx.Tx, service int, owner int64) (map[string]string, error)
	OwnQuests(ctx context.Context, db pgx.Tx, service int, owner int64, limit int) ([]questpg.Upload, error)
	Uploaded(ctx context.Context, db pgx.Tx, service int, filter string, limit int) ([]questpg.Listing, error)
	UploadedImage(ctx context.Context, db pgx.Tx, script int64, keys []string) (bool, string, error)
	UploadedImageNames(ctx context.Context, db pgx.Tx, service int, owner int64) (map[string]bool, error)
	UploadFileName(ctx context.Context, db pgx.Tx, script int64) (string, error)
	StoredFiles(ctx context.Context, db pgx.Tx) ([]string, error)
	Log(ctx context.Context, db pgx.Tx, service int, user int64) ([]questlog.Move, bool, error)
}

var _ Store = (*questpg.Store)(nil)

// Fetches keeps the queue of files to download (bot/devtools/devpg implements it; see fetch.go).
type Fetches interface {
	// Record records a file to download in the update's transaction db, and notifies channel
	// when db commits.
	Record(ctx context.Context, db pgx.Tx, f devpg.NewFetch, channel string) error
	// Claim claims the next file whose turn has come under the token claim, for length; nil
	// when there is none.
	Claim(ctx context.Context, db devpg.DB, claim string, length time.Duration) (*devpg.Fetch, error)
	// Take removes a claimed row in db; false when claim no longer holds it.
	Take(ctx context.Context, db pgx.Tx, id int64, claim string) (bool, error)
	// Release lets a claimed row go, to be claimed again after wait; counted false takes back
	// the attempt its claim counted, and lastError, unless "", is recorded.
	Release(ctx context.Context, db devpg.DB, id int64, claim string, wait time.Duration, lastError string, counted bool) error
	// Quarantine sets a claimed row aside in db for good; false when claim no longer holds it.
	Quarantine(ctx context.Context, db pgx.Tx, id int64, claim, lastError string) (bool, error)
	// DropQuarantined removes the rows set aside longer than age ago.
	DropQuarantined(ctx context.Context, db pgx.Tx, age time.Duration) (int64, error)
}

var _ Fetches = (*devpg.Store)(nil)

// Users gives the users' roles and profiles (bot/botpg implements it).
type Users interface {
	Roles(ctx context.Context, db pgx.Tx, service int, user int64) (botpg.Roles, error)
	// Profile returns a user; botpg.ErrNoUser when there is none.
	Profile(ctx context.Context, db pgx.Tx, id int64) (*botpg.Profile, error)
}

// Player shows the running game (bot/questplay implements it): the tools change or start a game
// in the database, then have the player show it as it shows any game.
type Player interface {
	// Show shows the current screen of the user's game the tools just started or restored.
	Show(ctx context.Context, tx bot.Tx, u *bot.Update) error
}

// Config configures the tools.
type Config struct {
	// Files opens the quest files (shared with the quest player).
	Files *questfs.Files
	// Player shows the games the tools start and change.
	Player Player
	// Store keeps the games and the catalogue; questpg's when nil.
	Store Store
	// Users gives the roles; botpg's when nil.
	Users Users
	// Fetches keeps the files waiting to be downloaded; devpg's when nil.
	Fetches Fetches
	// Root is the quest folder (UPLOADS_DIR); uploads go to its dev/ folder. "" is "uploads".
	Root string
	// Log receives the failures; nil discards them.
	Log *slog.Logger
	// Size limits of uploaded quests, images and saves; 0 takes the defaults.
	MaxQuest, MaxImage, MaxSave int64
	// MaxImageMemory is the most memory an uploaded image may take to decode;
	// defaultMaxImageMemory when 0.
	MaxImageMemory int64
	// FetchWorkers is how many files RunFetches downloads at once (defaultFetchWorkers when 0);
	// FetchTimeout bounds a download (defaultFetchTimeout); FetchRetry is the wait before a
	// failed download is tried again, times the attempts so far (defaultFetchRetry).
	FetchWorkers int
	FetchTimeout time.Duration
	FetchRetry   time.Duration
	// Listen, when set, is the pool whose connection RunFetches LISTENs on: one with session
	// semantics when the pool given to RunFetches goes through PgBouncer in transaction mode.
	// Nil: that pool.
	Listen *pgxpool.Pool
	// Now is the clock; nil is time.Now.
	Now func() time.Time
	// CompileLimits bound each compilation of a .qms source (qms.Limits); a zero field takes
	// qms.DefaultLimits'.
	CompileLimits qms.Limits
	// Images is the finder the quest player was given (questplay.Config.Images), told of the
	// images uploaded here at once; nil makes one.
	Images *Images
}

// Tools implements the developers' and admins' built-ins and the uploads; safe for concurrent
// use.
type Tools struct {
	files  *questfs.Files
	player Player
	store  Store
	users  Users
	root   string
	log    *slog.Logger
	now    func() time.Time
	max    map[kind]int64
	// maxImageMemory bounds the decoding of an uploaded image; decoding holds the one slot of
	// decoding, so that images are decoded one at a time.
	maxImageMemory int64
	decoding       chan struct{}

	fetches      Fetches
	fetchWorkers int
	listenPool   *pgxpool.Pool
	fetchTimeout time.Duration
	fetchRetry   time.Duration

	compileLimits qms.Limits

	images *Images

	mu        sync.Mutex
	lastClean time.Time // when old output files were last removed
}

// New returns the tools.
func New(cfg Config) *Tools {
	t := &Tools{files: cfg.Files, player: cfg.Player, store: cfg.Store, users: cfg.Users, fetches: cfg.Fetches, root: cfg.Root, log: cfg.Log,
		now: cfg.Now, max: map[kind]int64{kindQuest: cfg.MaxQuest, kindImage: cfg.MaxImage, kindSave: cfg.MaxSave},
		maxImageMemory: cfg.MaxImageMemory, decoding: make(chan struct{}, 1),
		fetchWorkers: cfg.FetchWorkers, listenPool: cfg.Listen, fetchTimeout: cfg.FetchTimeout, fetchRetry: cfg.FetchRetry,
		compileLimits: cfg.CompileLimits}
	if t.fetchWorkers <= 0 {
		t.fetchWorkers = defaultFetchWorkers
	}
	if t.fetchTimeout <= 0 {
		t.fetchTimeout = defaultFetchTimeout
	}
	if t.fetchRetry <= 0 {
		t.fetchRetry = defaultFetchRetry
	}
	if t.maxImageMemory <= 0 {
		t.maxImageMemory = defaultMaxImageMemory
	}
	if t.files == nil {
		t.files = questfs.New(cfg.Root, 0)
	}
	if t.store == nil {
		t.store = questpg.New()
	}
	if t.users == nil {
		t.users = botpg.NewUsers()
	}
	if t.fetches == nil {
		t.fetches = devpg.New()
	}
	if t.root == "" {
		t.root = "uploads"
	}
	if t.log == nil {
		t.log = slog.New(slog.DiscardHandler)
	}
	if t.now == nil {
		t.now = time.Now
	}
	for k, def := range map[kind]int64{kindQuest: defaultMaxQuest, kindImage: defaultMaxImage, kindSave: defaultMaxSave} {
		if t.max[k] <= 0 {
			t.max[k] = def
		}
	}
	// A source is bounded like a quest; a .qms file, whose kind its content tells, by the larger
	// of a source's and a save's limits until it is downloaded.
	t.max[kindSource] = t.max[kindQuest]
	t.max[kindQMS] = max(t.max[kindSource], t.max[kindSave])
	t.images = cfg.Images
	if t.images == nil {
		t.images = NewImages(t.store, t.root, t.files.ImagesDir())
	}
	return t
}

// Builtin is a built-in operation of the command tree (bot/scriptbot.Builtin).
type Builtin = func(ctx context.Context, tx bot.Tx, u *bot.Update, args map[string]string) (*scripts.Result, error)

// Builtins returns the built-in operations the command tree of migration 008 calls, by name.
func (t *Tools) Builtins() map[string]Builtin {
	return map[string]Builtin{
		"dev.find":      t.find,
		"dev.run":       t.run,
		"dev.restart":   t.restart,
		"dev.show":      t.show,
		"dev.set":       t.set,
		"dev.calc":      t.calc,
		"dev.dump":      t.dump,
		"dev.write":     t.write,
		"dev.save":      t.save,
		"dev.quests":    t.quests,
		"dev.log":       t.moveLog,
		"dev.positions": t.positions,
		"dev.compile":   t.compile,
		"dev.decompile": t.decompile,
		"dev.goto":      t.gotoLocation,
		"dev.replay":    t.replay,
	}
}

// roles reads the user's roles in the update's bot from the database (not from the update, so
// that a role granted a moment ago counts).
func (t *Tools) roles(ctx context.Context, tx bot.Tx, u *bot.Update) (botpg.Roles, error) {
	return t.users.Roles(ctx, tx.DB(), u.Service, u.User.ID)
}

// mayDevelop reports whether the user may use the developers' tools: developers and admins.
func (t *Tools) mayDevelop(ctx context.Context, tx bot.Tx, u *bot.Update) (bool, error) {
	r, err := t.roles(ctx, tx, u)
	return r.Developer || r.Admin, err
}

// running returns the user's running game, nil when there is none.
func (t *Tools) running(ctx context.Context, tx bot.Tx, u *bot.Update) (*questpg.Game, error) {
	gm, err := t.store.Running(ctx, tx.DB(), u.Service, u.User.ID)
	if errors.Is(err, questpg.ErrNoGame) {
		return nil, nil
	}
	return gm, err
}

// newSeed returns a fresh seed for a game's random generator.
func newSeed() string {
	var b [12]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// startSandbox starts quest script (a catalogue row offered in this bot) for the update's user as
// a sandbox game, in state st, or from its beginning when st is nil, and shows it. A running game
// is given up first, as a launch gives it up. The caller decides who may open which quest. A
// quest that cannot be played, or a state that does not fit it, is an error matching
// questfs.ErrUnplayable, and nothing changes.
func (t *Tools) startSandbox(ctx context.Context, tx bot.Tx, u *bot.Update, sc *questpg.Script, st *quest.State, ranger string) error {
	var moves []questlog.Move
	if st != nil {
		// The log of a restored game begins with the state it was restored to.
		restored := st.Clone()
		moves = []questlog.Move{{State: &restored}}
	}
	return t.startSandboxLog(ctx, tx, u, sc, st, ranger, moves)
}

// startSandboxLog is startSandbox with the game's log: moves that lead from the start of the
// game, or from a state they begin with, to st.
func (t *Tools) startSandboxLog(ctx context.Context, tx bot.Tx, u *bot.Update, sc *questpg.Script, st *quest.State, ranger string, moves []questlog.Move) error {
	q, err := t.files.Open(sc.File)
	if err != nil {
		return err
	}
	var state quest.State
	if st == nil {
		if state, err = q.Start(newSeed()); err != nil {
			return fmt.Errorf("%w: %w", questfs.ErrUnplayable, err)
		}
	} else {
		state = st.Clone()
	}
	if _, err := q.View(state, quest.DefaultPlayer(quest.English, fixedClock)); err != nil {
		return fmt.Errorf("%w: %w", questfs.ErrUnplayable, err)
	}
	gm := &questpg.Game{Service: u.Service, User: u.User.ID, Script: *sc, State: state, MoneyParam: moneyParam(q),
		Ranger: ranger, Moves: moves}
	if err := t.store.StartSandbox(ctx, tx.DB(), gm); err != nil {
		return err
	}
	return t.player.Show(ctx, tx, u)
}

// moneyParam is the index of a quest's active money parameter, -1 when it has none.
func moneyParam(q *questfs.Quest) int {
	for i := range q.Doc.Params {
		if p := &q.Doc.Params[i]; p.Active && p.IsMoney {
			return i
		}
	}
	return -1
}

// update writes a game changed by hand as a step: the step moves on, so the buttons shown before
// are stale (the player shows the new screen). It reports false, changing nothing, when the game
// is no longer the one read.
func (t *Tools) update(ctx context.Context, tx bot.Tx, gm *questpg.Game) (bool, error) {
	prev := gm.Nonce
	gm.Step++
	gm.Nonce = questpg.NewNonce()
	return t.store.Step(ctx, tx.DB(), gm, prev)
}

// lang is the language the tools speak to the update's user.
func lang(u *bot.Update) string { return bot.Language(u.User.Language) }

// say sends an HTML text (split when long) to the update's chat.
func say(ctx context.Context, tx bot.Tx, u *bot.Update, text string) error {
	reqs, err := bot.SendHTML(u.Chat, text, nil)
	if err != nil {
		return err
	}
	return tx.Send(ctx, reqs...)
}

// sayf sends format with its arguments escaped.
func sayf(ctx context.Context, tx bot.Tx, u *bot.Update, format string, args ...any) error {
	return say(ctx, tx, u, escapef(format, args...))
}

// escapef fills format with its arguments as escaped HTML.
func escapef(format string, args ...any) string {
	esc := make([]any, len(args))
	for i, a := range args {
		esc[i] = html.EscapeString(fmt.Sprint(a))
	}
	return fmt.Sprintf(format, esc...)
}

// result is a built-in's result: its code and its fields, as texts.
func result(code string, kv ...string) *scripts.Result {
	res := &scripts.Result{Code: code, Fields: map[string]json.RawMessage{}}
	for i := 0; i+1 < len(kv); i += 2 {
		raw, _ := json.Marshal(kv[i+1]) // a string always marshals
		res.Fields[kv[i]] = raw
	}
	return res
}

// reason says why a quest cannot be played, for its developer: the message of questfs.ErrUnplayable
// (which never names a path), or the error of the quest player.
func reason(err error) string {
	msg := strings.TrimPrefix(err.Error(), questfs.ErrUnplayable.Error()+": ")
	return clip(msg, 300)
}

// forbidden is the result of a tool used without the role.
var forbidden = &scripts.Result{Code: "forbidden"}

// output writes a file to send (/dump, /write, /save) into a folder of its own under dev/out,
// so that it can keep a readable name, and returns its path. Folders older than outputAge are
// removed now and then.
func (t *Tools) output(name string, data []byte) (string, error) {
	t.cleanOutputs()
	var b [12]byte
	rand.Read(b[:])
	dir := filepath.Join(t.root, "dev", "out", hex.EncodeToString(b[:]))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("devtools: output: %w", err)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return "", fmt.Errorf("devtools: output: %w", err)
	}
	return path, nil
}

// cleanOutputs removes the output folders older than outputAge, at most every ten minutes.
func (t *Tools) cleanOutputs() {
	t.mu.Lock()
	due := t.now().Sub(t.lastClean) > 10*time.Minute
	if due {
		t.lastClean = t.now()
	}
	t.mu.Unlock()
	if !due {
		return
	}
	base := filepath.Join(t.root, "dev", "out")
	entries, err := os.ReadDir(base)
	if err != nil {
		return
	}
	for _, e := range entries {
		info, err := e.Info()
		if err == nil && t.now().Sub(info.ModTime()) > outputAge {
			os.RemoveAll(filepath.Join(base, e.Name()))
		}
	}
}

// sendDocument sends a file written by output. Should Telegram not take it, the user is told
// that the file did not come (bot.Request.OnFailure).
func sendDocument(ctx context.Context, tx bot.Tx, u *bot.Update, path, captionHTML string) error {
	req, err := bot.SendDocument(u.Chat, path, captionHTML, nil)
	if err != nil {
		return err
	}
	txt := texts.For(u.User.Language).Dev
	if req.OnFailure, err = bot.SendHTML(u.Chat, escapef(txt.FileNotSent, filepath.Base(path)), nil); err != nil {
		return err
	}
	return tx.Send(ctx, req)
}
