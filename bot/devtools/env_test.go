package devtools_test

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/questbot/questbot/bot"
	"github.com/questbot/questbot/bot/botpg"
	"github.com/questbot/questbot/bot/devtools"
	"github.com/questbot/questbot/bot/questplay"
	"github.com/questbot/questbot/bot/scriptbot"
	"github.com/questbot/questbot/bot/tgemu"
	"github.com/questbot/questbot/migrations/pgtest"
	"github.com/questbot/questbot/scripts/scriptpg"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

const token = "123456:devtools-test-token"

// logBuffer is a log sink the test reads while the bot writes.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// env is the bot as `questbot serve` wires it (the command tree, the quest player, the
// developers' tools) on a fresh database, with the Bot API emulator, and a quest folder of its
// own holding the quests the project ships.
type env struct {
	emu     *tgemu.Server
	srv     *httptest.Server
	bot     *tgemu.Bot
	pool    *pgxpool.Pool
	root    string
	tools   *devtools.Tools
	logs    *logBuffer
	service int
}

func newEnv(t *testing.T, configure func(*devtools.Config)) *env {
	t.Helper()
	e := &env{emu: tgemu.New(tgemu.Options{}), pool: pgtest.New(t), root: t.TempDir(), logs: &logBuffer{}}
	for _, f := range []string{"cargo-run_en.qmm", "cargo-run_ru.qmm"} {
		data, err := os.ReadFile(filepath.Join("..", "..", "uploads", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(e.root, f), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	e.srv = httptest.NewServer(e.emu)
	t.Cleanup(e.srv.Close)
	e.bot = e.emu.AddBot(token, "devtools_test_bot")

	log := slog.New(slog.NewTextHandler(e.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	images := devtools.NewImages(e.pool, e.root)
	games := questplay.New(questplay.Config{Root: e.root, Log: log, Images: images})
	cfg := devtools.Config{Games: games, Pool: e.pool, Root: e.root, Images: images, Log: log}
	if configure != nil {
		configure(&cfg)
	}
	e.tools = devtools.New(cfg)
	store := scriptpg.New(e.pool)
	store.CheckEvery = 0
	h := scriptbot.New(scriptbot.Config{Source: store, Contexts: store, Games: games, Log: log,
		Builtins: e.tools.Builtins(), Extensions: []scriptbot.Extension{e.tools}})
	store.Builtins = h.BuiltinNames()

	ctx, cancel := context.WithCancel(context.Background())
	api, err := bot.NewAPI(ctx, token, tgemu.Endpoint(e.srv.URL), nil)
	if err != nil {
		t.Fatal(err)
	}
	tr := bot.New(bot.Config{Store: botpg.New(e.pool), Handler: h.Handle, Log: log, PollTimeout: time.Second,
		Rescan: 100 * time.Millisecond, Limits: &bot.NoLimits})
	if e.service, err = tr.AddBot(ctx, api); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { tr.Run(ctx); close(done) }()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	return e
}

// user adds a simulated user.
func (e *env) user(id int64, name, username, lang string) {
	e.bot.AddUser(tgbotapi.User{ID: id, FirstName: name, UserName: username, LanguageCode: lang})
}

func (e *env) send(t *testing.T, user int64, text string) {
	t.Helper()
	if _, err := e.bot.SendText(user, text); err != nil {
		t.Fatal(err)
	}
}

func (e *env) upload(t *testing.T, user int64, name string, data []byte) {
	t.Helper()
	if _, err := e.bot.SendDocument(user, name, "application/octet-stream", data); err != nil {
		t.Fatal(err)
	}
}

func (e *env) exec(t *testing.T, sql string, args ...any) {
	t.Helper()
	if _, err := e.pool.Exec(context.Background(), sql, args...); err != nil {
		t.Fatal(err)
	}
}

// count runs a counting query.
func (e *env) count(t *testing.T, sql string, args ...any) int {
	t.Helper()
	var n int
	if err := e.pool.QueryRow(context.Background(), sql, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// botMessages returns the bot's messages in a chat.
func (e *env) botMessages(chat int64) []tgemu.Message {
	var out []tgemu.Message
	for _, m := range e.bot.Messages(chat) {
		if m.FromBot {
			out = append(out, m)
		}
	}
	return out
}

// mark is the id of the last message in a chat so far: the answers to come have greater ids
// (messages deleted meanwhile do not matter).
func (e *env) mark(chat int64) int {
	msgs := e.bot.Messages(chat)
	if len(msgs) == 0 {
		return 0
	}
	return msgs[len(msgs)-1].ID
}

// wait waits for a bot message after message id skip for which ok holds, and returns it.
func (e *env) wait(t *testing.T, chat int64, skip int, what string, ok func(tgemu.Message) bool) tgemu.Message {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		msgs := e.botMessages(chat)
		for _, m := range msgs {
			if m.ID > skip && ok(m) {
				return m
			}
		}
		if time.Now().After(deadline) {
			var texts []string
			for _, m := range msgs {
				texts = append(texts, fmt.Sprintf("%d: %q %s", m.ID, m.Text, m.FileName))
			}
			t.Fatalf("no bot message with %s in chat %d after %d; messages:\n%s\nlogs:\n%s", what, chat, skip,
				strings.Join(texts, "\n"), e.logs)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// waitText waits for a bot message containing want after message id skip.
func (e *env) waitText(t *testing.T, chat int64, skip int, want string) tgemu.Message {
	t.Helper()
	return e.wait(t, chat, skip, "text "+want, func(m tgemu.Message) bool { return strings.Contains(m.Text, want) })
}

// ask sends a text and waits for an answer containing want.
func (e *env) ask(t *testing.T, user int64, text, want string) tgemu.Message {
	t.Helper()
	n := e.mark(user)
	e.send(t, user, text)
	return e.waitText(t, user, n, want)
}

// put uploads a file and waits for an answer containing want.
func (e *env) put(t *testing.T, user int64, name string, data []byte, want string) tgemu.Message {
	t.Helper()
	n := e.mark(user)
	e.upload(t, user, name, data)
	return e.waitText(t, user, n, want)
}

// document waits for a document of the bot whose name ends in suffix and returns its content.
func (e *env) document(t *testing.T, chat int64, skip int, suffix string) (tgemu.Message, []byte) {
	t.Helper()
	m := e.wait(t, chat, skip, "a document "+suffix, func(m tgemu.Message) bool {
		return m.Document != "" && strings.HasSuffix(m.FileName, suffix)
	})
	data, _, _, ok := e.emu.FileData(m.Document)
	if !ok {
		t.Fatalf("document %s has no data", m.FileName)
	}
	return m, data
}

// screen waits for a quest screen (a message with quest buttons) after skip.
func (e *env) screen(t *testing.T, chat int64, skip int) tgemu.Message {
	t.Helper()
	return e.wait(t, chat, skip, "a quest screen", func(m tgemu.Message) bool {
		return len(m.Keyboard) > 0 && strings.HasPrefix(m.Keyboard[0][0].Data, "q:")
	})
}

// lastScreen returns the last quest screen in a chat.
func (e *env) lastScreen(t *testing.T, chat int64) tgemu.Message {
	t.Helper()
	msgs := e.botMessages(chat)
	for i := len(msgs) - 1; i >= 0; i-- {
		if len(msgs[i].Keyboard) > 0 && strings.HasPrefix(msgs[i].Keyboard[0][0].Data, "q:") {
			return msgs[i]
		}
	}
	t.Fatalf("no quest screen in chat %d", chat)
	return tgemu.Message{}
}

// press presses the button labelled label under a bot message.
func (e *env) press(t *testing.T, user int64, m tgemu.Message, label string) {
	t.Helper()
	for _, row := range m.Keyboard {
		for _, b := range row {
			if b.Text == label {
				if _, err := e.bot.Press(user, m.ID, b.Data); err != nil {
					t.Fatal(err)
				}
				return
			}
		}
	}
	t.Fatalf("message %d has no button %q: %+v", m.ID, label, m.Keyboard)
}

// waitIdle waits until the bot has handled every update and sent everything.
func (e *env) waitIdle(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		inbox := e.count(t, `SELECT count(*) FROM inbox WHERE handled_at IS NULL`)
		outbox := e.count(t, `SELECT count(*) FROM outbox WHERE status = 'pending'`)
		if inbox == 0 && outbox == 0 && e.bot.UnansweredCallbacks() == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("not idle: %d updates, %d sends pending\n%s", inbox, outbox, e.logs)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// files lists the files stored under the quest folder's dev/ folder (uploads and exports).
func (e *env) files(t *testing.T) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(filepath.Join(e.root, "dev"), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if os.IsNotExist(err) {
				return nil
			}
			return err
		}
		if !d.IsDir() {
			rel, _ := filepath.Rel(e.root, p)
			out = append(out, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// stored is what uploads have left: rows of dev_upload, uploaded scripts, games, and files.
type stored struct {
	uploads, scripts, games int
	files                   []string
}

func (e *env) stored(t *testing.T) stored {
	t.Helper()
	return stored{
		uploads: e.count(t, `SELECT count(*) FROM dev_upload`),
		scripts: e.count(t, `SELECT count(*) FROM script WHERE uploaded`),
		games:   e.count(t, `SELECT count(*) FROM game`),
		files:   e.files(t),
	}
}

// makeDeveloper makes a user (who has written to the bot) a developer of it.
func (e *env) makeDeveloper(t *testing.T, user int64) {
	t.Helper()
	e.exec(t, `UPDATE user_service SET is_developer = true WHERE user_id = $1 AND service_id = $2`, user, e.service)
}

// makeAdmin makes a user (who has written to the bot) an admin.
func (e *env) makeAdmin(t *testing.T, user int64) {
	t.Helper()
	e.exec(t, `UPDATE users SET is_admin = true WHERE id = $1`, user)
}

// hello introduces a user to the bot (so that they have rows) and waits for the greeting.
func (e *env) hello(t *testing.T, user int64) {
	t.Helper()
	e.ask(t, user, "/start", "Questbot")
}
