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
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/questbot/questbot/bot"
	"github.com/questbot/questbot/bot/questplay"
	"github.com/questbot/questbot/bot/scriptbot"
	"github.com/questbot/questbot/scripts"
)

// Default size limits of uploads.
const (
	DefaultMaxQuest = 8 << 20   // the largest known quests are about 2 MB
	DefaultMaxImage = 5 << 20   // Telegram takes photos up to 10 MB
	DefaultMaxSave  = 512 << 10 // a save of the largest quests is a few kilobytes
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

// Config configures the tools.
type Config struct {
	// Games is the quest player whose games the tools start, read and change.
	Games *questplay.Games
	// Pool is the database, for what runs outside an update: the image finder, the sweep and
	// the roles applied at start.
	Pool *pgxpool.Pool
	// Root is the quest folder (UPLOADS_DIR); uploads go to its dev/ folder. "" is "uploads".
	Root string
	// Log receives the failures; nil discards them.
	Log *slog.Logger
	// Size limits of uploaded quests, images and saves; 0 takes the defaults.
	MaxQuest, MaxImage, MaxSave int64
	// Now is the clock; nil is time.Now.
	Now func() time.Time
	// Images is the finder the quest player was given (questplay.Config.Images), told of the
	// images uploaded here at once; nil makes one.
	Images *Images
}

// Tools implements the developers' and admins' built-ins and the upload extension; safe for
// concurrent use.
type Tools struct {
	games *questplay.Games
	pool  *pgxpool.Pool
	root  string
	log   *slog.Logger
	now   func() time.Time
	max   map[kind]int64

	images *Images

	mu        sync.Mutex
	lastClean time.Time // when old output files were last removed
}

var _ scriptbot.Extension = (*Tools)(nil)

// New returns the tools.
func New(cfg Config) *Tools {
	t := &Tools{games: cfg.Games, pool: cfg.Pool, root: cfg.Root, log: cfg.Log, now: cfg.Now,
		max: map[kind]int64{kindQuest: cfg.MaxQuest, kindImage: cfg.MaxImage, kindSave: cfg.MaxSave}}
	if t.root == "" {
		t.root = "uploads"
	}
	if t.log == nil {
		t.log = slog.New(slog.DiscardHandler)
	}
	if t.now == nil {
		t.now = time.Now
	}
	for k, def := range map[kind]int64{kindQuest: DefaultMaxQuest, kindImage: DefaultMaxImage, kindSave: DefaultMaxSave} {
		if t.max[k] <= 0 {
			t.max[k] = def
		}
	}
	t.images = cfg.Images
	if t.images == nil {
		t.images = NewImages(cfg.Pool, t.root)
	}
	return t
}

// Builtins returns the built-in operations the command tree of migration 008 calls, by name.
func (t *Tools) Builtins() map[string]scriptbot.Builtin {
	return map[string]scriptbot.Builtin{
		"dev.find":   t.find,
		"dev.run":    t.run,
		"dev.show":   t.show,
		"dev.set":    t.set,
		"dev.calc":   t.calc,
		"dev.dump":   t.dump,
		"dev.write":  t.write,
		"dev.save":   t.save,
		"dev.quests": t.quests,
	}
}

// HandleCallback implements scriptbot.Extension: the tools own no buttons.
func (t *Tools) HandleCallback(ctx context.Context, tx bot.Tx, u *bot.Update) (bool, error) {
	return false, nil
}

// role reads the user's roles in the update's bot from the database (not from the update, so
// that a role granted a moment ago counts).
func role(ctx context.Context, db pgx.Tx, u *bot.Update) (developer, admin bool, err error) {
	err = db.QueryRow(ctx, `
		SELECT COALESCE((SELECT is_developer FROM user_service WHERE user_id = $1 AND service_id = $2), false),
		       COALESCE((SELECT is_admin FROM users WHERE id = $1), false)`, u.User.ID, u.Service).Scan(&developer, &admin)
	if err != nil {
		return false, false, fmt.Errorf("devtools: roles of user %d: %w", u.User.ID, err)
	}
	return developer, admin, nil
}

// mayDevelop reports whether the user may use the developers' tools: developers and admins.
func mayDevelop(ctx context.Context, db pgx.Tx, u *bot.Update) (bool, error) {
	dev, admin, err := role(ctx, db, u)
	return dev || admin, err
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

// reason says why a quest cannot be played, for its developer: the message of
// questplay.ErrUnplayable (which never names a path), or the error of the quest player.
func reason(err error) string {
	msg := strings.TrimPrefix(err.Error(), questplay.ErrUnplayable.Error()+": ")
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

// sendDocument sends a file written by output.
func sendDocument(ctx context.Context, tx bot.Tx, u *bot.Update, path, captionHTML string) error {
	req, err := bot.SendDocument(u.Chat, path, captionHTML, nil)
	if err != nil {
		return err
	}
	return tx.Send(ctx, req)
}

// scriptName returns a quest's name in the catalogue.
func scriptName(ctx context.Context, db pgx.Tx, id int64) (string, error) {
	var name string
	err := db.QueryRow(ctx, `SELECT name FROM script WHERE id = $1`, id).Scan(&name)
	if errors.Is(err, pgx.ErrNoRows) {
		return "#" + strconv.FormatInt(id, 10), nil
	}
	return name, err
}
