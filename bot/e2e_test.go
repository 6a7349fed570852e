package bot_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"

	"github.com/questbot/questbot/bot"
	"github.com/questbot/questbot/bot/botpg"
	"github.com/questbot/questbot/bot/emulator/tgemu"
	"github.com/questbot/questbot/bot/testkit/bottest"
	"github.com/questbot/questbot/bot/testkit/wait"
	"github.com/questbot/questbot/migrations/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

const token = "123456:SECRET-token-never-logged"

// env is an emulator on a real HTTP listener, a fresh database and the logs of every transport
// started on them.
type env struct{ *bottest.Env }

func newEnv(t *testing.T, opts tgemu.Options) *env {
	t.Helper()
	e := &env{bottest.New(t, bottest.Options{Token: token, Username: "quest_test_bot", Emulator: opts})}
	t.Cleanup(func() {
		if strings.Contains(e.Logs.String(), "SECRET") {
			t.Errorf("the token appears in the logs:\n%s", e.Logs)
		}
	})
	return e
}

// start runs a transport on the environment until the returned function is called (or the test
// ends); cfg's Store, Log and timings are filled in.
func (e *env) start(t *testing.T, cfg bot.Config) (stop func()) {
	t.Helper()
	return e.Start(t, cfg).Stop
}

// botTexts returns the texts of the bot's messages in a chat.
func (e *env) botTexts(chat int64) []string {
	var out []string
	for _, m := range e.BotMessages(chat) {
		out = append(out, m.Text)
	}
	return out
}

// Ensure /start is greeted in the user's language and other text gets a hint.
func TestGreeting(t *testing.T) {
	t.Parallel()
	e := newEnv(t, tgemu.Options{EnforceRateLimits: true})
	e.start(t, bot.Config{})
	e.User(1, "Ann", "en-GB")
	e.User(2, "Иван", "ru")
	e.User(3, "Hans", "de")
	e.Send(t, 1, "/start")
	e.Send(t, 2, "/start")
	e.Send(t, 3, "/start")
	e.Send(t, 1, "hello?")
	wait.For(t, wait.Hang, "replies", func() bool {
		return len(e.botTexts(1)) == 2 && len(e.botTexts(2)) == 1 && len(e.botTexts(3)) == 1
	})
	for _, c := range []struct {
		chat int64
		i    int
		want string
	}{
		{1, 0, "Hello, <b>Ann</b>!"},
		{1, 1, "Send /start"},
		{2, 0, "Привет, <b>Иван</b>!"},
		{3, 0, "Hello, <b>Hans</b>!"},
	} {
		if got := e.botTexts(c.chat)[c.i]; !strings.HasPrefix(got, c.want) {
			t.Errorf("chat %d message %d: got %q, want it to start with %q", c.chat, c.i, got, c.want)
		}
	}
	if n := e.Bot.Count("429"); n != 0 {
		t.Errorf("%d flood errors, want none", n)
	}
	var lang string
	if err := e.Pool.QueryRow(context.Background(), `SELECT language FROM users WHERE id = 2`).Scan(&lang); err != nil || lang != "ru" {
		t.Errorf("user 2: language %q, %v", lang, err)
	}
}

// numbered replies with the number the user sent, so that order is visible; a text "fan N"
// sends the number to the N chats 1001.. instead.
func numbered(ctx context.Context, tx bot.Tx, u *bot.Update) error {
	if u.Message == nil {
		return nil
	}
	reqs, err := bot.SendHTML(u.Message.Chat.ID, "got "+u.Message.Text, nil)
	if err != nil {
		return err
	}
	return tx.Send(ctx, reqs...)
}

// Ensure updates of one chat are handled and answered in order while 50 chats write at once.
func TestOrderPerChat(t *testing.T) {
	t.Parallel()
	e := newEnv(t, tgemu.Options{})
	e.start(t, bot.Config{Handler: numbered, Limits: &bot.NoLimits})
	e.numberedChats(t, 1000, 50, 20)
}

// numberedChats has chats users (ids from first on) write each messages "0", "1", … at once,
// and checks that each chat gets the replies of the numbered handler to all of them, in order.
func (e *env) numberedChats(t *testing.T, first int64, chats, each int) {
	t.Helper()
	for c := range int64(chats) {
		e.User(first+c, fmt.Sprint("u", c), "en")
	}
	var wg sync.WaitGroup
	for c := range int64(chats) {
		wg.Go(func() {
			for i := range each {
				e.Send(t, first+c, fmt.Sprint(i))
			}
		})
	}
	wg.Wait()
	wait.For(t, wait.Hang, "every reply", func() bool {
		for c := range int64(chats) {
			if len(e.botTexts(first+c)) < each {
				return false
			}
		}
		return true
	})
	for c := range int64(chats) {
		got := e.botTexts(first + c)
		if len(got) != each {
			t.Fatalf("chat %d: %d replies, want %d", c, len(got), each)
		}
		for i, m := range got {
			if want := fmt.Sprint("got ", i); m != want {
				t.Fatalf("chat %d reply %d: got %q, want %q", c, i, m, want)
			}
		}
	}
}

// Ensure a 429 is waited out for exactly as long as retry_after says, and other chats go on
// meanwhile. The transport and the emulator share a clock that moves only when the test moves it.
func TestFloodWait(t *testing.T) {
	t.Parallel()
	start := time.Now().Truncate(time.Microsecond) // as the outbox keeps times
	clock := bot.NewFakeClock(start)
	e := newEnv(t, tgemu.Options{Now: clock.Now})
	e.start(t, bot.Config{Clock: clock, Limits: &bot.NoLimits})
	e.User(1, "Ann", "en")
	e.User(2, "Bob", "en")
	e.Bot.InjectFault(tgemu.Fault{Method: "sendMessage", ChatID: 1, Code: 429, RetryAfter: 2})
	e.Send(t, 1, "/start")
	e.Send(t, 2, "/start")
	// No time passes: the other chat is answered, the first waits.
	e.WaitFor(t, "the other chat's reply and the 429", func() bool { return len(e.botTexts(2)) == 1 && e.Bot.Count("429") == 1 })
	due := start.Add(2 * time.Second)
	if retry := clock.WaitPending(t, "the retry", func(at time.Time) bool { return !at.Before(due) }); !retry.Equal(due) {
		t.Errorf("the retry waits until %v after the 429, want 2 s", retry.Sub(start))
	}
	clock.Advance(2*time.Second - time.Millisecond)
	if n := len(e.botTexts(1)); n != 0 || !slices.Contains(clock.Pending(), due) {
		t.Fatalf("%d replies before retry_after passed, pending %v", n, clock.Pending())
	}
	clock.Advance(time.Millisecond)
	e.WaitFor(t, "the reply after retry_after", func() bool { return len(e.botTexts(1)) == 1 })
	if got := e.BotMessages(1)[0].Date; !got.Equal(due) {
		t.Errorf("delivered %v after the 429, want 2 s", got.Sub(start))
	}
	if n := e.Bot.Count("429"); n != 1 {
		t.Errorf("%d 429s, want 1", n)
	}
}

// Ensure 5xx answers and slow answers are retried until the message goes through, once.
func TestTransientErrors(t *testing.T) {
	t.Parallel()
	e := newEnv(t, tgemu.Options{})
	e.start(t, bot.Config{})
	e.User(1, "Ann", "en")
	e.Bot.InjectFault(tgemu.Fault{Method: "sendMessage", Code: 500, Times: 1})
	e.Bot.InjectFault(tgemu.Fault{Method: "sendMessage", Code: 502, Times: 1})
	e.Bot.InjectFault(tgemu.Fault{Method: "sendMessage", Delay: 300 * time.Millisecond})
	e.Send(t, 1, "/start")
	wait.For(t, wait.Hang, "the reply", func() bool { return len(e.botTexts(1)) >= 1 })
	e.WaitIdle(t) // nothing left to send: no copy can come after this
	if got := e.botTexts(1); len(got) != 1 {
		t.Errorf("%d replies, want 1", len(got))
	}
	if n := e.Bot.Count("5xx"); n != 2 {
		t.Errorf("%d 5xx answers, want 2", n)
	}
}

// broadcaster sends three messages to each of the users 1 and 2 on "/all".
func broadcaster(ctx context.Context, tx bot.Tx, u *bot.Update) error {
	if u.Message == nil || u.Message.Text != "/all" {
		return bot.Greeter(ctx, tx, u)
	}
	for _, chat := range []int64{1, 2} {
		for i := range 3 {
			reqs, _ := bot.SendHTML(chat, fmt.Sprint("news ", i), nil)
			if err := tx.Send(ctx, reqs...); err != nil {
				return err
			}
		}
	}
	return nil
}

// Ensure a 403 marks the user blocked and drops only that user's messages.
func TestBlockedUser(t *testing.T) {
	t.Parallel()
	e := newEnv(t, tgemu.Options{})
	e.start(t, bot.Config{Handler: broadcaster, Limits: &bot.NoLimits})
	e.User(1, "Ann", "en")
	e.User(2, "Bob", "en")
	e.Send(t, 1, "/start")
	wait.For(t, wait.Hang, "the greeting", func() bool { return len(e.botTexts(1)) == 1 })
	e.Bot.Block(1, true)
	e.Send(t, 2, "/all")
	wait.For(t, wait.Hang, "the news to Bob", func() bool { return len(e.botTexts(2)) == 3 })
	ctx := context.Background()
	wait.For(t, wait.Hang, "Ann marked blocked", func() bool {
		var blocked bool
		e.Pool.QueryRow(ctx, `SELECT blocked_at IS NOT NULL FROM users WHERE id = 1`).Scan(&blocked)
		return blocked
	})
	// Telegram's my_chat_member update may mark her blocked before her rows are tried: the
	// first one tried is answered 403 and the others are dropped with it.
	var failed, pending int
	wait.For(t, wait.Hang, "Ann's rows given up", func() bool {
		e.Pool.QueryRow(ctx, `SELECT count(*) FILTER (WHERE status = 'failed'), count(*) FILTER (WHERE status = 'pending') FROM outbox WHERE chat_id = 1`).Scan(&failed, &pending)
		return failed == 3 && pending == 0
	})
	if n := e.Bot.Count("403"); n != 1 {
		t.Errorf("%d requests answered 403, want 1 (the rest dropped unsent)", n)
	}
	if got := e.botTexts(1); len(got) != 1 {
		t.Errorf("Ann got %d messages, want only the greeting", len(got))
	}
	// Writing again unblocks.
	e.Send(t, 1, "/start")
	wait.For(t, wait.Hang, "Ann's second greeting", func() bool { return len(e.botTexts(1)) == 2 })
}

// Ensure nothing is lost when the process stops after an update is stored but before it is
// handled, or after an outbox row is committed but before (or just after) it is sent.
func TestCrashSafety(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	t.Run("BeforeHandle", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t, tgemu.Options{})
		e.User(1, "Ann", "en")
		var crashed atomic.Bool
		var stop func()
		stop = e.start(t, bot.Config{Hooks: bot.Hooks{BeforeHandle: func(*bot.Update) bool {
			crashed.Store(true)
			go stop()
			return true
		}}})
		e.Send(t, 1, "/start")
		wait.For(t, wait.Hang, "the crash", crashed.Load)
		stop()
		var stored int
		e.Pool.QueryRow(ctx, `SELECT count(*) FROM inbox WHERE handled_at IS NULL`).Scan(&stored)
		if stored != 1 {
			t.Fatalf("%d unhandled updates stored, want 1", stored)
		}
		e.start(t, bot.Config{})
		wait.For(t, wait.Hang, "the greeting after the restart", func() bool { return len(e.botTexts(1)) >= 1 })
		e.WaitIdle(t) // nothing left to send: no copy can come after this
		if got := e.botTexts(1); len(got) != 1 {
			t.Errorf("%d greetings, want 1", len(got))
		}
	})
	for _, point := range []string{"BeforeSend", "AfterSend"} {
		t.Run(point, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, tgemu.Options{})
			e.User(1, "Ann", "en")
			var crashed atomic.Bool
			var stop func()
			hook := func(*bot.OutboxRow) bool {
				crashed.Store(true)
				go stop()
				return true
			}
			hooks := bot.Hooks{BeforeSend: hook}
			if point == "AfterSend" {
				hooks = bot.Hooks{AfterSend: hook}
			}
			stop = e.start(t, bot.Config{Hooks: hooks})
			e.Send(t, 1, "/start")
			wait.For(t, wait.Hang, "the crash", crashed.Load)
			stop()
			var pending int
			e.Pool.QueryRow(ctx, `SELECT count(*) FROM outbox WHERE status = 'pending'`).Scan(&pending)
			if pending != 1 {
				t.Fatalf("%d pending outbox rows, want 1", pending)
			}
			e.start(t, bot.Config{})
			want := 1
			if point == "AfterSend" {
				want = 2 // sent, crashed before the row was removed: sent once more
			}
			wait.For(t, wait.Hang, "the greeting after the restart", func() bool { return len(e.botTexts(1)) >= want })
			e.WaitIdle(t) // nothing left to send: no copy can come after this
			if got := e.botTexts(1); len(got) != want {
				t.Errorf("%d greetings, want %d", len(got), want)
			}
			var left int
			e.Pool.QueryRow(ctx, `SELECT count(*) FROM inbox`).Scan(&left)
			if left != 0 {
				t.Errorf("%d updates left in the inbox, want none", left)
			}
		})
	}
}

// Ensure the token stays out of the logs when requests fail at the transport level and when
// Telegram rejects a request.
func TestTokenRedacted(t *testing.T) {
	t.Parallel()
	e := newEnv(t, tgemu.Options{})
	e.User(1, "Ann", "en")
	e.start(t, bot.Config{Handler: func(ctx context.Context, tx bot.Tx, u *bot.Update) error {
		// Telegram rejects this one (unbalanced HTML): logged with its request.
		return tx.Send(ctx, bot.Request{Method: "sendMessage", ChatID: 1, Params: map[string]string{
			"chat_id": "1", "text": "<b>oops", "parse_mode": "HTML"}})
	}})
	e.Send(t, 1, "/start")
	wait.For(t, wait.Hang, "the rejection", func() bool { return e.Bot.Count("400") == 1 })
	wait.For(t, wait.Hang, "the rejection logged", func() bool {
		return strings.Contains(e.Logs.String(), "Telegram rejected a request")
	})
	// The server goes away: every poll now fails with an error whose URL holds the token.
	e.Srv.CloseClientConnections()
	e.Srv.Close()
	wait.For(t, wait.Hang, "a failed poll logged", func() bool {
		return strings.Contains(e.Logs.String(), "getUpdates failed")
	})
	if !strings.Contains(e.Logs.String(), "<token>") {
		t.Errorf("the failed poll's error does not show the redacted URL:\n%s", e.Logs)
	}
	// newEnv's cleanup checks that the token never appears.
}

// Ensure photos and documents are uploaded from files once and sent by file_id afterwards, and
// that the command menu and button answers go out.
func TestFilesAndMenu(t *testing.T) {
	t.Parallel()
	e := newEnv(t, tgemu.Options{})
	dir := t.TempDir()
	photo, doc := dir+"/p.png", dir+"/notes.txt"
	os.WriteFile(photo, []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89"), 0o644)
	os.WriteFile(doc, []byte("some notes"), 0o644)
	e.start(t, bot.Config{Limits: &bot.NoLimits, Handler: func(ctx context.Context, tx bot.Tx, u *bot.Update) error {
		if u.CallbackQuery != nil {
			return nil // the dispatcher answers it
		}
		p, err := bot.SendPhoto(1, photo, "<b>pic</b>", bot.Keyboard{{{Text: "ok", Data: "ok"}}})
		if err != nil {
			return err
		}
		d, err := bot.SendDocument(1, doc, "", nil)
		if err != nil {
			return err
		}
		return tx.Send(ctx, p, d)
	}})
	e.User(1, "Ann", "en")
	e.Send(t, 1, "one")
	wait.For(t, wait.Hang, "the first files", func() bool { return len(e.botTexts(1)) == 2 })
	e.Send(t, 1, "two")
	wait.For(t, wait.Hang, "the second files", func() bool { return len(e.botTexts(1)) == 4 })
	msgs := e.BotMessages(1)
	if msgs[0].Photo == "" || msgs[0].Photo != msgs[2].Photo || msgs[1].Document == "" || msgs[1].Document != msgs[3].Document {
		t.Errorf("files were uploaded again instead of reused: %+v", msgs)
	}
	if data, name, _, ok := e.Emu.FileData(msgs[1].Document); !ok || string(data) != "some notes" || name != "notes.txt" {
		t.Errorf("document: %q %q %v", data, name, ok)
	}
	if _, err := e.Bot.Press(1, msgs[0].ID, "ok"); err != nil {
		t.Fatal(err)
	}
	wait.For(t, wait.Hang, "the button answered", func() bool { return e.Bot.UnansweredCallbacks() == 0 })
}

// Ensure a handler can download a document the user uploaded.
func TestDownload(t *testing.T) {
	t.Parallel()
	e := newEnv(t, tgemu.Options{})
	e.start(t, bot.Config{Handler: func(ctx context.Context, tx bot.Tx, u *bot.Update) error {
		d := u.Message.Document
		data, path, err := u.Download(ctx, d.FileID, 1<<20)
		if err != nil {
			return err
		}
		reqs, _ := bot.SendHTML(u.Chat, fmt.Sprintf("%s: %d bytes, %q", path[strings.LastIndexByte(path, '.'):], len(data), data), nil)
		return tx.Send(ctx, reqs...)
	}})
	e.User(1, "Ann", "en")
	if _, err := e.Bot.SendDocument(1, "quest.qmm", "application/octet-stream", []byte("QMM data")); err != nil {
		t.Fatal(err)
	}
	wait.For(t, wait.Hang, "the reply", func() bool { return len(e.botTexts(1)) == 1 })
	if got, want := e.botTexts(1)[0], `.qmm: 8 bytes, "QMM data"`; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// Ensure the sender keeps to Telegram's limits: the emulator, which enforces them, never answers
// 429 while 40 chats get three messages each at once, and the messages take as long as the limits
// say. The transport and the emulator share a clock that moves on to the end of the earliest wait
// whenever there is one, so the test takes no longer than the machine needs. One sender with one
// chat at a time sends one request at a time: each reaches the emulator before the next is
// paced, so the emulator sees the sender's pacing exactly, however busy the machine is.
func TestRateLimits(t *testing.T) {
	t.Parallel()
	start := time.Now()
	clock := bot.NewFakeClock(start)
	e := newEnv(t, tgemu.Options{EnforceRateLimits: true, Now: clock.Now})
	e.start(t, bot.Config{Clock: clock, Senders: 1, Batch: 1, SlowSend: time.Hour,
		Handler: func(ctx context.Context, tx bot.Tx, u *bot.Update) error {
			for i := range 3 {
				reqs, _ := bot.SendHTML(u.Chat, fmt.Sprint("part ", i), nil)
				if err := tx.Send(ctx, reqs...); err != nil {
					return err
				}
			}
			return nil
		}})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go clock.Drive(ctx)
	const chats = 40
	for c := range int64(chats) {
		e.User(100+c, "u", "en")
	}
	for c := range int64(chats) {
		e.Send(t, 100+c, "go")
	}
	e.WaitFor(t, "every message", func() bool {
		for c := range int64(chats) {
			if len(e.botTexts(100+c)) < 3 {
				return false
			}
		}
		return true
	})
	if n := e.Bot.Count("429"); n != 0 {
		t.Errorf("%d flood errors, want none", n)
	}
	var first, last time.Time
	for c := range int64(chats) {
		msgs := e.BotMessages(100 + c)
		for i, m := range msgs {
			if i > 0 && m.Date.Sub(msgs[i-1].Date) < time.Second {
				t.Fatalf("chat %d: two messages %v apart", c, m.Date.Sub(msgs[i-1].Date))
			}
			if first.IsZero() || m.Date.Before(first) {
				first = m.Date
			}
			if m.Date.After(last) {
				last = m.Date
			}
		}
	}
	// 120 messages at 30 a second: 119 gaps of 1/30 s.
	t.Logf("%d messages in %v of the clock", 3*chats, last.Sub(first))
	if took, least := last.Sub(first), 119*(time.Second/30); took < least {
		t.Errorf("took %v: faster than Telegram allows (%v)", took, least)
	}
}

// Ensure two bots run in one transport, each answering its own users.
func TestTwoBots(t *testing.T) {
	t.Parallel()
	e := newEnv(t, tgemu.Options{})
	second := e.Emu.AddBot("654321:other-secret", "second_bot")
	tr := bot.New(bot.Config{Store: botpg.New(e.Pool), PollTimeout: time.Second,
		Log: slog.New(slog.NewTextHandler(e.Logs, nil))})
	for _, token := range []string{token, "654321:other-secret"} {
		api, err := bot.NewAPI(context.Background(), token, tgemu.Endpoint(e.Srv.URL), nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tr.AddBot(context.Background(), api); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { tr.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	// The same Telegram user writes to both bots.
	e.User(1, "Anna", "ru")
	second.AddUser(tgbotapi.User{ID: 1, FirstName: "Anna", LanguageCode: "ru"})
	e.Send(t, 1, "/start")
	second.SendText(1, "/start")
	wait.For(t, wait.Hang, "both greetings", func() bool {
		return len(e.botTexts(1)) == 1 && len(second.Messages(1)) == 2
	})
	if got := second.Messages(1)[1].Text; !strings.HasPrefix(got, "Привет, <b>Anna</b>") {
		t.Errorf("the second bot answered %q", got)
	}
	if got := e.botTexts(1)[0]; !strings.HasPrefix(got, "Привет, <b>Anna</b>") {
		t.Errorf("the first bot answered %q", got)
	}
	var services int
	e.Pool.QueryRow(ctx, `SELECT count(*) FROM user_service WHERE user_id = 1`).Scan(&services)
	if services != 2 {
		t.Errorf("Ann is a member of %d bots, want 2", services)
	}
}

// Ensure two processes on one database neither handle an update twice nor send a row twice, and
// keep each chat in order.
func TestTwoProcesses(t *testing.T) {
	t.Parallel()
	e := newEnv(t, tgemu.Options{})
	e.start(t, bot.Config{Handler: numbered, Limits: &bot.NoLimits})
	e.start(t, bot.Config{Handler: numbered, Limits: &bot.NoLimits})
	const chats, each = 20, 10
	for c := range int64(chats) {
		e.User(2000+c, "u", "en")
	}
	var wg sync.WaitGroup
	for c := range int64(chats) {
		wg.Go(func() {
			for i := range each {
				e.Send(t, 2000+c, fmt.Sprint(i))
			}
		})
	}
	wg.Wait()
	wait.For(t, wait.Hang, "every reply", func() bool {
		for c := range int64(chats) {
			if len(e.botTexts(2000+c)) < each {
				return false
			}
		}
		return true
	})
	e.WaitIdle(t) // nothing left to send: no copy can come after this
	for c := range int64(chats) {
		got := e.botTexts(2000 + c)
		if len(got) != each {
			t.Fatalf("chat %d: %d replies, want %d", c, len(got), each)
		}
		for i, m := range got {
			if want := fmt.Sprint("got ", i); m != want {
				t.Fatalf("chat %d reply %d: got %q, want %q", c, i, m, want)
			}
		}
	}
}

// Ensure a process that stops while a send is under way lets it end and records it, so that the
// next start does not send it again.
func TestStopLetsSendsEnd(t *testing.T) {
	t.Parallel()
	e := newEnv(t, tgemu.Options{})
	e.User(1, "Ann", "en")
	e.Bot.InjectFault(tgemu.Fault{Method: "sendMessage", Delay: 300 * time.Millisecond})
	started := make(chan struct{})
	var once sync.Once
	p := e.Start(t, bot.Config{Handler: numbered, Limits: &bot.NoLimits, Hooks: bot.Hooks{
		BeforeSend: func(*bot.OutboxRow) bool { once.Do(func() { close(started) }); return false }}})
	e.Send(t, 1, "a")
	<-started
	p.Stop()
	if got := strings.Join(e.botTexts(1), ","); got != "got a" {
		t.Fatalf("after the stop: replies %q, want the send under way ended (got a)", got)
	}
	e.Start(t, bot.Config{Handler: numbered, Limits: &bot.NoLimits})
	e.Send(t, 1, "b")
	wait.For(t, wait.Hang, "the reply to b", func() bool { return len(e.botTexts(1)) >= 2 })
	if got := strings.Join(e.botTexts(1), ","); got != "got a,got b" {
		t.Errorf("replies %s, want got a,got b", got)
	}
}
