package relay_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"

	"github.com/questbot/questbot/bot"
	"github.com/questbot/questbot/bot/app"
	"github.com/questbot/questbot/bot/emulator/tgemu"
	"github.com/questbot/questbot/bot/relay"
	"github.com/questbot/questbot/bot/testkit/bottest"
	"github.com/questbot/questbot/bot/testkit/wait"
	"github.com/questbot/questbot/migrations/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

const token = "123456:relay-test-token"

// The cast of most tests: three users and two admins, in English and Russian.
const (
	ann   = 101 // en
	bob   = 102 // en
	vera  = 103 // ru
	alice = 201 // en, admin
	boris = 202 // ru, admin
)

// env is an emulator, a fresh database, and a bot process: the transport running the command
// tree with the quest player and the relay, and the relay's worker.
type env struct {
	*bottest.Env
	service int
	stop    func()
	// While limited, the process sends allow more relayed copies and holds the others back in
	// the outbox (as if it were slow).
	limited atomic.Bool
	allow   atomic.Int64
}

func newEnv(t *testing.T) *env {
	t.Helper()
	e := &env{Env: bottest.New(t, bottest.Options{Token: token, Username: "relay_test_bot"})}
	e.stop = e.start(t)
	return e
}

// start runs a bot process on the environment's database until the returned function is called
// or the test ends.
func (e *env) start(t *testing.T) (stop func()) {
	t.Helper()
	log := e.Log()
	b := app.New(app.Config{UploadsDir: "../../uploads", Log: log, TreeCheck: -1,
		Relay: relay.Config{Window: 5, ReportEvery: 30 * time.Millisecond, NewsCheck: -1}})
	limits := bot.NoLimits
	p := e.Start(t, bot.Config{Handler: b.Handle, Log: log, Rescan: 50 * time.Millisecond, Limits: &limits,
		Hooks: bot.Hooks{BeforeSend: e.hold}},
		bottest.Every(20*time.Millisecond, func(ctx context.Context, tr *bot.Transport) error { return b.Relay.Broadcast(ctx, tr) }))
	e.service = p.Service
	return p.Stop
}

// limit holds back the relayed copies after the next n, until unlimit.
func (e *env) limit(n int64) {
	e.allow.Store(n)
	e.limited.Store(true)
}

func (e *env) unlimit() { e.limited.Store(false) }

// hold is the transport's BeforeSend hook: it holds relayed copies back while limited, once allow
// is spent.
func (e *env) hold(row *bot.OutboxRow) bool {
	if !strings.HasPrefix(row.Request.Ref, "relay:") || !e.limited.Load() {
		return false
	}
	return e.allow.Add(-1) < 0
}

// user adds a simulated user; an admin is recorded as such before they first write.
func (e *env) user(t *testing.T, id int64, name, lang string, admin bool) {
	t.Helper()
	e.Bot.AddUser(tgbotapi.User{ID: id, FirstName: name, UserName: strings.ToLower(name), LanguageCode: lang})
	if admin {
		e.Exec(t, `INSERT INTO users (id, chat_id, first_name, username, language, is_admin) VALUES ($1, $1, $2, lower($2), $3, true)`,
			id, name, lang)
	}
}

// cast adds the three users and the two admins, each having said /start.
func (e *env) cast(t *testing.T) {
	t.Helper()
	e.user(t, ann, "Ann", "en", false)
	e.user(t, bob, "Bob", "en", false)
	e.user(t, vera, "Вера", "ru", false)
	e.user(t, alice, "Alice", "en", true)
	e.user(t, boris, "Борис", "ru", true)
	for _, id := range []int64{ann, bob, vera, alice, boris} {
		e.Send(t, id, "/start")
	}
	for _, id := range []int64{ann, bob, vera, alice, boris} {
		e.WaitText(t, id, 0, "Questbot")
	}
	e.waitIdle(t)
}

func (e *env) reply(t *testing.T, user int64, to int, text string) int {
	t.Helper()
	id, err := e.Bot.SendReply(user, to, text)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// message returns the message of a chat with this id.
func (e *env) message(t *testing.T, chat int64, id int) tgemu.Message {
	t.Helper()
	for _, m := range e.Bot.Messages(chat) {
		if m.ID == id {
			return m
		}
	}
	t.Fatalf("chat %d has no message %d", chat, id)
	return tgemu.Message{}
}

// waitIdle waits until the bot has fetched and handled every update, sent every message it can
// (not those held back) and answered every press. The emulator is asked before the store, as in
// bottest's WaitIdle.
func (e *env) waitIdle(t *testing.T) {
	t.Helper()
	var unfetched, inbox, outbox, copies int
	wait.ForShowing(t, bottest.Timeout, "the bot to be idle", func() bool {
		if unfetched = e.Bot.PendingUpdates(); unfetched != 0 {
			return false
		}
		inbox = e.QueryInt(t, `SELECT count(*) FROM inbox WHERE handled_at IS NULL`)
		outbox = e.QueryInt(t, `SELECT count(*) FROM outbox WHERE status = 'pending' AND (ref IS NULL OR ref NOT LIKE 'relay:%')`)
		copies = 0
		if !e.limited.Load() {
			copies = e.QueryInt(t, `SELECT count(*) FROM outbox WHERE status = 'pending' AND ref LIKE 'relay:%'`)
		}
		return inbox == 0 && outbox == 0 && copies == 0 && e.Bot.UnansweredCallbacks() == 0
	}, func() string {
		return fmt.Sprintf("%d updates not fetched, %d not handled, %d sends, %d copies pending\n%s", unfetched, inbox, outbox, copies, e.Logs)
	})
}
