package devtools_test

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"

	"github.com/questbot/questbot/bot"
	"github.com/questbot/questbot/bot/app"
	"github.com/questbot/questbot/bot/devtools"
	"github.com/questbot/questbot/bot/emulator/tgemu"
	"github.com/questbot/questbot/bot/testkit/bottest"
	"github.com/questbot/questbot/migrations/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

const token = "123456:devtools-test-token"

// env is the bot as `questbot serve` wires it (the command tree, the quest player, the
// developers' tools and their downloads) on a fresh database, with the Bot API emulator, and a
// quest folder of its own holding the quests the project ships.
type env struct {
	*bottest.Env
	root    string
	cfg     devtools.Config
	tools   *devtools.Tools
	tr      *bot.Transport
	proc    *bottest.Process
	service int
}

func newEnv(t *testing.T, configure func(*devtools.Config)) *env {
	t.Helper()
	return newEnvWith(t, bottest.Options{}, configure)
}

// newEnvWith is newEnv with options for the emulator's environment (its token and username are
// the package's).
func newEnvWith(t *testing.T, opts bottest.Options, configure func(*devtools.Config)) *env {
	t.Helper()
	opts.Token, opts.Username = token, "devtools_test_bot"
	e := &env{Env: bottest.New(t, opts), root: t.TempDir()}
	for _, f := range []string{"cargo-run_en.qmm", "cargo-run_ru.qmm"} {
		data, err := os.ReadFile(filepath.Join("..", "..", "uploads", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(e.root, f), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if configure != nil {
		configure(&e.cfg)
	}
	e.start(t, true)
	return e
}

// start starts a new bot process on the environment (sharing nothing with the ones before but the
// database, the emulator and the quest folder), with the downloads of uploads when fetch is set.
func (e *env) start(t *testing.T, fetch bool) *bottest.Process {
	t.Helper()
	log := e.Log()
	b := app.New(app.Config{UploadsDir: e.root, Log: log, TreeCheck: -1, Dev: e.cfg})
	var also []func(context.Context, *bot.Transport)
	if fetch {
		also = append(also, func(ctx context.Context, tr *bot.Transport) { b.Run(ctx, e.Pool, tr) })
	}
	p := e.Start(t, bot.Config{Handler: b.Handle, Log: log, Limits: &bot.NoLimits}, also...)
	e.tools, e.tr, e.proc, e.service = b.Tools, p.Transport, p, p.Service
	return p
}

// user adds a simulated user.
func (e *env) user(id int64, name, username, lang string) {
	e.Bot.AddUser(tgbotapi.User{ID: id, FirstName: name, UserName: username, LanguageCode: lang})
}

func (e *env) upload(t *testing.T, user int64, name string, data []byte) {
	t.Helper()
	if _, err := e.Bot.SendDocument(user, name, "application/octet-stream", data); err != nil {
		t.Fatal(err)
	}
}

// ask sends a text and waits for an answer containing want.
func (e *env) ask(t *testing.T, user int64, text, want string) tgemu.Message {
	t.Helper()
	n := e.LastID(user)
	e.Send(t, user, text)
	return e.WaitTextAfter(t, user, n, want)
}

// put uploads a file and waits for an answer containing want.
func (e *env) put(t *testing.T, user int64, name string, data []byte, want string) tgemu.Message {
	t.Helper()
	n := e.LastID(user)
	e.upload(t, user, name, data)
	return e.WaitTextAfter(t, user, n, want)
}

// document waits for a document of the bot whose name ends in suffix and returns its content.
func (e *env) document(t *testing.T, chat int64, skip int, suffix string) (tgemu.Message, []byte) {
	t.Helper()
	m := e.WaitMessage(t, chat, skip, "a document "+suffix, func(m tgemu.Message) bool {
		return m.Document != "" && strings.HasSuffix(m.FileName, suffix)
	})
	data, _, _, ok := e.Emu.FileData(m.Document)
	if !ok {
		t.Fatalf("document %s has no data", m.FileName)
	}
	return m, data
}

// screen waits for a quest screen (a message with quest buttons) after skip.
func (e *env) screen(t *testing.T, chat int64, skip int) tgemu.Message {
	t.Helper()
	return e.WaitMessage(t, chat, skip, "a quest screen", func(m tgemu.Message) bool {
		return len(m.Keyboard) > 0 && strings.HasPrefix(m.Keyboard[0][0].Data, "q:")
	})
}

// lastScreen returns the last quest screen in a chat.
func (e *env) lastScreen(t *testing.T, chat int64) tgemu.Message {
	t.Helper()
	msgs := e.BotMessages(chat)
	for i := len(msgs) - 1; i >= 0; i-- {
		if len(msgs[i].Keyboard) > 0 && strings.HasPrefix(msgs[i].Keyboard[0][0].Data, "q:") {
			return msgs[i]
		}
	}
	t.Fatalf("no quest screen in chat %d", chat)
	return tgemu.Message{}
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
		uploads: e.QueryInt(t, `SELECT count(*) FROM dev_upload`),
		scripts: e.QueryInt(t, `SELECT count(*) FROM script WHERE uploaded`),
		games:   e.Games(t, e.service),
		files:   e.files(t),
	}
}

// makeDeveloper makes a user (who has written to the bot) a developer of it.
func (e *env) makeDeveloper(t *testing.T, user int64) {
	t.Helper()
	e.Exec(t, `UPDATE user_service SET is_developer = true WHERE user_id = $1 AND service_id = $2`, user, e.service)
}

// makeAdmin makes a user (who has written to the bot) an admin.
func (e *env) makeAdmin(t *testing.T, user int64) {
	t.Helper()
	e.Exec(t, `UPDATE users SET is_admin = true WHERE id = $1`, user)
}

// hello introduces a user to the bot (so that they have rows) and waits for the greeting.
func (e *env) hello(t *testing.T, user int64) {
	t.Helper()
	e.ask(t, user, "/start", "Questbot")
}
