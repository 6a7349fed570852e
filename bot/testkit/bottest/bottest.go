// Package bottest supports the end-to-end tests of the bot's packages: a Bot API emulator on a
// real HTTP listener with one bot on it, a fresh database, and bot processes (the real transport
// around a handler) started, stopped and restarted on them, with helpers that drive the
// simulated users and wait for the bot's answers. It is for tests only.
package bottest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/questbot/questbot/bot"
	"github.com/questbot/questbot/bot/botpg"
	"github.com/questbot/questbot/bot/emulator/tgemu"
	"github.com/questbot/questbot/bot/testkit/wait"
	"github.com/questbot/questbot/migrations/pgtest"
	"github.com/questbot/questbot/quest/questpg"
)

// Timeout is how long the waits of an Env last before they fail the test: wait.Hang, a bound on
// a hang only, never an expectation of speed.
const Timeout = wait.Hang

// LogBuffer is a log sink a test reads while the bot writes to it.
type LogBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *LogBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *LogBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// Options configure a new Env.
type Options struct {
	// Token is the bot's token; "123456:bottest-token" unless set.
	Token string
	// Username is the bot's username; "test_bot" unless set.
	Username string
	// Emulator configures the Bot API emulator.
	Emulator tgemu.Options
	// Wrap, when set, wraps the emulator's HTTP handler: a test puts faults of its own between
	// the bot and the emulator, such as a file download held for long.
	Wrap func(http.Handler) http.Handler
}

// Env is a Bot API emulator served over HTTP with one bot on it, and a fresh, migrated database.
// Everything it starts ends with the test.
type Env struct {
	Emu   *tgemu.Server
	Srv   *httptest.Server
	Bot   *tgemu.Bot
	Pool  *pgxpool.Pool
	Token string
	// Logs holds what the loggers of Log wrote.
	Logs *LogBuffer
}

// New returns an Env on a fresh database (pgtest.New).
func New(t testing.TB, opts Options) *Env {
	t.Helper()
	if opts.Token == "" {
		opts.Token = "123456:bottest-token"
	}
	if opts.Username == "" {
		opts.Username = "test_bot"
	}
	e := &Env{Emu: tgemu.New(opts.Emulator), Pool: pgtest.New(t), Token: opts.Token, Logs: &LogBuffer{}}
	var h http.Handler = e.Emu
	if opts.Wrap != nil {
		h = opts.Wrap(h)
	}
	e.Srv = httptest.NewServer(h)
	t.Cleanup(e.Srv.Close)
	e.Bot = e.Emu.AddBot(opts.Token, opts.Username)
	return e
}

// Log returns a logger writing every level, as text, to Logs.
func (e *Env) Log() *slog.Logger {
	return slog.New(slog.NewTextHandler(e.Logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// Process is a bot process on an Env: a transport running the bot.
type Process struct {
	Transport *bot.Transport
	// Service is the bot's service id.
	Service int
	stop    func()
}

// Stop stops the process and waits until it has stopped; it may be called more than once, and
// from any goroutine.
func (p *Process) Stop() { p.stop() }

// Start runs a transport with cfg on the Env until Stop is called or the test ends; each start is
// a new process, sharing nothing with the previous ones but the database and the emulator. Unset
// in cfg, Store is the Env's database, Log is Log(), PollTimeout is 1 s and Rescan 100 ms; nil
// Limits are Telegram's, as in production. Every func of also runs beside the transport, in its
// own goroutine, until the process stops: the tests run the bot's jobs this way, at their own
// pace (Every).
func (e *Env) Start(t testing.TB, cfg bot.Config, also ...func(ctx context.Context, tr *bot.Transport)) *Process {
	t.Helper()
	if cfg.Store == nil {
		cfg.Store = botpg.New(e.Pool)
	}
	if cfg.Log == nil {
		cfg.Log = e.Log()
	}
	if cfg.PollTimeout == 0 {
		cfg.PollTimeout = time.Second
	}
	if cfg.Rescan == 0 {
		cfg.Rescan = 100 * time.Millisecond
	}
	ctx, cancel := context.WithCancel(context.Background())
	api, err := bot.NewAPI(ctx, e.Token, tgemu.Endpoint(e.Srv.URL), nil)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	p := &Process{Transport: bot.New(cfg)}
	if p.Service, err = p.Transport.AddBot(ctx, api); err != nil {
		cancel()
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Go(func() { p.Transport.Run(ctx) })
	for _, f := range also {
		wg.Go(func() { f(ctx, p.Transport) })
	}
	done := make(chan struct{})
	var once sync.Once
	p.stop = func() {
		once.Do(func() {
			cancel()
			go func() { wg.Wait(); close(done) }()
			select {
			case <-done:
			case <-time.After(30 * time.Second):
				t.Error("the bot process did not stop")
			}
		})
	}
	t.Cleanup(p.Stop)
	return p
}

// Every returns a func for Start's also that runs job every interval, as the bot's scheduler
// would (its times are at least a second apart; tests go faster). A failure of the job is
// logged by the bot, not by the test: the job runs again. A test that waits for what a job
// does uses Jobs instead.
func Every(interval time.Duration, job func(ctx context.Context, tr *bot.Transport) error) func(context.Context, *bot.Transport) {
	return (&Jobs{}).Every(interval, job)
}

// Jobs are the scheduled jobs of one bot process of a test. Each runs every interval, as the
// bot's scheduler would, and Settle runs each once more: a test that must know a job has done
// its work (after it moved the clock, say) waits for that run to end, not for time to pass.
type Jobs struct {
	mu    sync.Mutex
	kicks []chan chan struct{}
}

// Every adds a job that runs every interval, and returns the func for Start's also.
func (j *Jobs) Every(interval time.Duration, job func(ctx context.Context, tr *bot.Transport) error) func(context.Context, *bot.Transport) {
	kick := make(chan chan struct{})
	j.mu.Lock()
	j.kicks = append(j.kicks, kick)
	j.mu.Unlock()
	return func(ctx context.Context, tr *bot.Transport) {
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for {
			job(ctx, tr)
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			case done := <-kick:
				job(ctx, tr)
				close(done)
			}
		}
	}
}

// Settle runs every job once more, in the order they were added, each run starting after the
// call, and returns when they have all ended.
func (j *Jobs) Settle(t testing.TB) {
	t.Helper()
	j.mu.Lock()
	kicks := slices.Clone(j.kicks)
	j.mu.Unlock()
	deadline := time.After(Timeout)
	for _, kick := range kicks {
		done := make(chan struct{})
		select {
		case kick <- done:
		case <-deadline:
			t.Fatal("a job of the bot process is not running")
		}
		select {
		case <-done:
		case <-deadline:
			t.Fatal("a run of a job did not end")
		}
	}
}

// User adds a simulated user.
func (e *Env) User(id int64, name, lang string) {
	e.Bot.AddUser(tgbotapi.User{ID: id, FirstName: name, LanguageCode: lang})
}

// Send sends a text from a user to the bot and returns its message id.
func (e *Env) Send(t testing.TB, user int64, text string) int {
	t.Helper()
	id, err := e.Bot.SendText(user, text)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// Press presses the button labelled label under a message and returns the button's data.
func (e *Env) Press(t testing.TB, user int64, m tgemu.Message, label string) string {
	t.Helper()
	for _, row := range m.Keyboard {
		for _, b := range row {
			if b.Text == label {
				if _, err := e.Bot.Press(user, m.ID, b.Data); err != nil {
					t.Fatal(err)
				}
				return b.Data
			}
		}
	}
	t.Fatalf("message %d has no button %q: %+v", m.ID, label, m.Keyboard)
	return ""
}

// BotMessages returns the bot's messages in a chat.
func (e *Env) BotMessages(chat int64) []tgemu.Message {
	var out []tgemu.Message
	for _, m := range e.Bot.Messages(chat) {
		if m.FromBot {
			out = append(out, m)
		}
	}
	return out
}

// CountText returns how many bot messages of a chat contain s.
func (e *Env) CountText(chat int64, s string) int {
	n := 0
	for _, m := range e.BotMessages(chat) {
		if strings.Contains(m.Text, s) {
			n++
		}
	}
	return n
}

// LastID returns the id of the last message in a chat so far, 0 if none: the answers to come
// have greater ids (messages deleted meanwhile do not matter).
func (e *Env) LastID(chat int64) int {
	msgs := e.Bot.Messages(chat)
	if len(msgs) == 0 {
		return 0
	}
	return msgs[len(msgs)-1].ID
}

// WaitText waits for a bot message containing want after the first skip bot messages of a chat,
// and returns the first such message.
func (e *Env) WaitText(t testing.TB, chat int64, skip int, want string) tgemu.Message {
	t.Helper()
	var found tgemu.Message
	var msgs []tgemu.Message
	wait.ForShowing(t, Timeout, fmt.Sprintf("a bot message with %q in chat %d", want, chat), func() bool {
		msgs = e.BotMessages(chat)
		for i := skip; i < len(msgs); i++ {
			if strings.Contains(msgs[i].Text, want) {
				found = msgs[i]
				return true
			}
		}
		return false
	}, func() string {
		var texts []string
		for _, m := range msgs {
			texts = append(texts, m.Text)
		}
		return fmt.Sprintf("messages:\n%s\nlogs:\n%s", strings.Join(texts, "\n"), e.Logs)
	})
	return found
}

// WaitMessage waits for a bot message of a chat with an id greater than after for which ok
// holds, and returns the first such message; what names it in the failure.
func (e *Env) WaitMessage(t testing.TB, chat int64, after int, what string, ok func(tgemu.Message) bool) tgemu.Message {
	t.Helper()
	var found tgemu.Message
	var msgs []tgemu.Message
	wait.ForShowing(t, Timeout, fmt.Sprintf("a bot message with %s in chat %d after %d", what, chat, after), func() bool {
		msgs = e.BotMessages(chat)
		for _, m := range msgs {
			if m.ID > after && ok(m) {
				found = m
				return true
			}
		}
		return false
	}, func() string {
		var texts []string
		for _, m := range msgs {
			texts = append(texts, fmt.Sprintf("%d: %q %s", m.ID, m.Text, m.FileName))
		}
		return fmt.Sprintf("messages:\n%s\nlogs:\n%s", strings.Join(texts, "\n"), e.Logs)
	})
	return found
}

// WaitTextAfter waits for a bot message containing want with an id greater than after.
func (e *Env) WaitTextAfter(t testing.TB, chat int64, after int, want string) tgemu.Message {
	t.Helper()
	return e.WaitMessage(t, chat, after, "text "+want, func(m tgemu.Message) bool { return strings.Contains(m.Text, want) })
}

// WaitIdle waits until the bot has fetched and handled every update, sent every message and
// answered every press. (The emulator is asked before the store, for the reason WaitHandled
// gives.)
func (e *Env) WaitIdle(t testing.TB) {
	t.Helper()
	var unfetched int
	var inbox, outbox int64
	wait.ForShowing(t, Timeout, "the bot to be idle", func() bool {
		if unfetched = e.Bot.PendingUpdates(); unfetched != 0 {
			return false
		}
		inbox, outbox = e.backlog(t)
		return inbox == 0 && outbox == 0 && e.Bot.UnansweredCallbacks() == 0
	}, func() string {
		return fmt.Sprintf("%d updates not fetched, %d not handled, %d sends pending\n%s", unfetched, inbox, outbox, e.Logs)
	})
}

// WaitHandled waits until the bot has stored every update the emulator holds for it (it asked
// for a later offset) and handled every update stored: a barrier for updates that get no answer.
func (e *Env) WaitHandled(t testing.TB) {
	t.Helper()
	e.WaitFor(t, "every update to be handled", func() bool {
		// The emulator is asked first. The bot acknowledges updates only once they are stored,
		// so when none is left unacknowledged every one is in the inbox, and the inbox read
		// after sees those not handled yet. Read the other way round, updates stored between
		// the two reads are missed: in neither the emulator nor the inbox as it was read.
		if e.Bot.PendingUpdates() != 0 {
			return false
		}
		inbox, _ := e.backlog(t)
		return inbox == 0
	})
}

// backlog returns the updates stored but not handled, and the outbox rows not sent, as the
// transport's store counts them.
func (e *Env) backlog(t testing.TB) (inbox, outbox int64) {
	t.Helper()
	ctx := context.Background()
	store := botpg.New(e.Pool)
	inbox, _, err := store.InboxBacklog(ctx)
	if err != nil {
		t.Fatal(err)
	}
	lanes, err := store.OutboxStats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range lanes {
		outbox += l.Depth
	}
	return inbox, outbox
}

// WaitFor waits until cond holds, for at most Timeout; the failure shows the logs.
func (e *Env) WaitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	wait.ForShowing(t, Timeout, what, cond, e.Logs.String)
}

// Exec runs a statement on the Env's database.
func (e *Env) Exec(t testing.TB, sql string, args ...any) {
	t.Helper()
	if _, err := e.Pool.Exec(context.Background(), sql, args...); err != nil {
		t.Fatal(err)
	}
}

// Game returns a user's running quest game in a bot, as the quest store reads it; nil when they
// play none.
func (e *Env) Game(t testing.TB, service int, user int64) *questpg.Game {
	t.Helper()
	var g *questpg.Game
	err := pgx.BeginFunc(context.Background(), e.Pool, func(tx pgx.Tx) error {
		var err error
		g, err = questpg.New().Running(context.Background(), tx, service, user)
		if errors.Is(err, questpg.ErrNoGame) {
			return nil
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// Games returns how many quest games run in a bot, as the quest store counts them.
func (e *Env) Games(t testing.TB, service int) int {
	t.Helper()
	var n int
	err := pgx.BeginFunc(context.Background(), e.Pool, func(tx pgx.Tx) error {
		var err error
		n, err = questpg.New().CountRunning(context.Background(), tx, service)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// QueryInt runs a query for one integer, such as a count.
func (e *Env) QueryInt(t testing.TB, sql string, args ...any) int {
	t.Helper()
	var n int
	if err := e.Pool.QueryRow(context.Background(), sql, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}
