package relay_test

import (
	"bytes"
	"context"
	"log/slog"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/questbot/questbot/bot"
	"github.com/questbot/questbot/bot/botpg"
	"github.com/questbot/questbot/bot/questplay"
	"github.com/questbot/questbot/bot/relay"
	"github.com/questbot/questbot/bot/scriptbot"
	"github.com/questbot/questbot/bot/tgemu"
	"github.com/questbot/questbot/migrations/pgtest"
	"github.com/questbot/questbot/scripts/scriptpg"
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

// env is an emulator, a fresh database, and a bot process: the transport running the command
// tree with the quest player and the relay, and the relay's worker.
type env struct {
	emu     *tgemu.Server
	bot     *tgemu.Bot
	srv     *httptest.Server
	pool    *pgxpool.Pool
	logs    *logBuffer
	service int
	stop    func()
	// While limited, the process sends allow more relayed copies and holds the others back in
	// the outbox (as if it were slow).
	limited atomic.Bool
	allow   atomic.Int64
}

func newEnv(t *testing.T) *env {
	t.Helper()
	e := &env{emu: tgemu.New(tgemu.Options{}), pool: bigPool(t), logs: &logBuffer{}}
	e.srv = httptest.NewServer(e.emu)
	t.Cleanup(e.srv.Close)
	e.bot = e.emu.AddBot(token, "relay_test_bot")
	e.stop = e.start(t)
	return e
}

// bigPool returns a fresh database with a pool as large as the bot's in production: the
// transport's handlers and senders each hold a connection while they work, and the command tree
// is read through the pool by handlers that hold one, so a pool smaller than the transport's
// workers can run dry.
func bigPool(t *testing.T) *pgxpool.Pool {
	t.Helper()
	cfg := pgtest.New(t).Config()
	cfg.MaxConns = 32
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool
}

// start runs a bot process on the environment's database until the returned function is called
// or the test ends.
func (e *env) start(t *testing.T) (stop func()) {
	t.Helper()
	log := slog.New(slog.NewTextHandler(e.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	store := scriptpg.New(e.pool)
	store.CheckEvery = 0
	rl := relay.New(relay.Config{Pool: e.pool, Log: log, Window: 5, Tick: 20 * time.Millisecond,
		ReportEvery: 30 * time.Millisecond, NewsCheck: -1})
	games := questplay.New(questplay.Config{Root: "../../uploads", Log: log})
	h := scriptbot.New(scriptbot.Config{Source: store, Contexts: store, Games: games, Log: log,
		Extensions: []scriptbot.Extension{rl}})
	store.Builtins = h.BuiltinNames()
	ctx, cancel := context.WithCancel(context.Background())
	api, err := bot.NewAPI(ctx, token, tgemu.Endpoint(e.srv.URL), nil)
	if err != nil {
		t.Fatal(err)
	}
	limits := bot.NoLimits
	tr := bot.New(bot.Config{Store: botpg.New(e.pool), Handler: rl.Wrap(h.Handle), Log: log, PollTimeout: time.Second,
		Rescan: 50 * time.Millisecond, Limits: &limits, Hooks: bot.Hooks{BeforeSend: e.hold}})
	if e.service, err = tr.AddBot(ctx, api); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Go(func() { tr.Run(ctx) })
	wg.Go(func() { rl.Run(ctx) })
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			wg.Wait()
		})
	}
	t.Cleanup(stop)
	return stop
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
	e.bot.AddUser(tgbotapi.User{ID: id, FirstName: name, UserName: strings.ToLower(name), LanguageCode: lang})
	if admin {
		e.exec(t, `INSERT INTO users (id, chat_id, first_name, username, language, is_admin) VALUES ($1, $1, $2, lower($2), $3, true)`,
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
		e.send(t, id, "/start")
	}
	for _, id := range []int64{ann, bob, vera, alice, boris} {
		e.waitText(t, id, 0, "Questbot")
	}
	e.waitIdle(t)
}

func (e *env) exec(t *testing.T, sql string, args ...any) {
	t.Helper()
	if _, err := e.pool.Exec(context.Background(), sql, args...); err != nil {
		t.Fatal(err)
	}
}

func (e *env) queryInt(t *testing.T, sql string, args ...any) int {
	t.Helper()
	var n int
	if err := e.pool.QueryRow(context.Background(), sql, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func (e *env) send(t *testing.T, user int64, text string) int {
	t.Helper()
	id, err := e.bot.SendText(user, text)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func (e *env) reply(t *testing.T, user int64, to int, text string) int {
	t.Helper()
	id, err := e.bot.SendReply(user, to, text)
	if err != nil {
		t.Fatal(err)
	}
	return id
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

// waitText waits for a bot message containing want after the first skip ones and returns it.
func (e *env) waitText(t *testing.T, chat int64, skip int, want string) tgemu.Message {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		msgs := e.botMessages(chat)
		for i := skip; i < len(msgs); i++ {
			if strings.Contains(msgs[i].Text, want) {
				return msgs[i]
			}
		}
		if time.Now().After(deadline) {
			var texts []string
			for _, m := range msgs {
				texts = append(texts, m.Text)
			}
			t.Fatalf("no bot message with %q in chat %d; messages:\n%s\nlogs:\n%s", want, chat, strings.Join(texts, "\n"), e.logs)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// count returns how many bot messages of a chat contain s.
func (e *env) count(chat int64, s string) int {
	n := 0
	for _, m := range e.botMessages(chat) {
		if strings.Contains(m.Text, s) {
			n++
		}
	}
	return n
}

// press presses a button by its label under a bot message.
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

// message returns the message of a chat with this id.
func (e *env) message(t *testing.T, chat int64, id int) tgemu.Message {
	t.Helper()
	for _, m := range e.bot.Messages(chat) {
		if m.ID == id {
			return m
		}
	}
	t.Fatalf("chat %d has no message %d", chat, id)
	return tgemu.Message{}
}

// waitIdle waits until the bot has handled every update, sent every message it can (not those
// held back) and answered every press.
func (e *env) waitIdle(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		inbox := e.queryInt(t, `SELECT count(*) FROM inbox WHERE handled_at IS NULL`)
		outbox := e.queryInt(t, `SELECT count(*) FROM outbox WHERE status = 'pending' AND (ref IS NULL OR ref NOT LIKE 'relay:%')`)
		copies := 0
		if !e.limited.Load() {
			copies = e.queryInt(t, `SELECT count(*) FROM outbox WHERE status = 'pending' AND ref LIKE 'relay:%'`)
		}
		if inbox == 0 && outbox == 0 && copies == 0 && e.bot.UnansweredCallbacks() == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("not idle: %d updates, %d sends, %d copies pending\n%s", inbox, outbox, copies, e.logs)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// waitFor waits until cond holds.
func (e *env) waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s\n%s", what, e.logs)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
