package webchat_test

import (
	"context"
	"fmt"
	"html"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/questbot/questbot/bot"
	"github.com/questbot/questbot/bot/botpg"
	"github.com/questbot/questbot/bot/emulator/tgemu"
	"github.com/questbot/questbot/bot/emulator/webchat"
	"github.com/questbot/questbot/bot/testkit/bottest"
	"github.com/questbot/questbot/bot/testkit/wait"
	"github.com/questbot/questbot/migrations/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// pngPixel is a 1x1 PNG image.
var pngPixel = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\xff\xff?\x00\x05\xfe\x02\xfe\xa7\x35\x81\x84\x00\x00\x00\x00IEND\xaeB`\x82")

// demo is the greeting plus a little of everything the page must show: "/demo" sends a message
// with buttons; pressing "photo" edits it and sends a photo; pressing "delete" deletes it; a
// reply is answered with the text it replied to.
func demo(photo string) bot.Handler {
	return func(ctx context.Context, tx bot.Tx, u *bot.Update) error {
		if q := u.InlineQuery; q != nil {
			answer, err := bot.AnswerInline(q.From.ID, q.ID, []bot.InlineResult{
				bot.InlineArticle{ID: "a1", Title: "Say " + q.Query, HTML: "Inline: " + html.EscapeString(q.Query)},
			}, bot.InlineAnswer{})
			if err != nil {
				return err
			}
			return tx.Send(ctx, answer)
		}
		if cq := u.CallbackQuery; cq != nil {
			chat, msg := cq.Message.Chat.ID, cq.Message.MessageID
			switch cq.Data {
			case "photo":
				edit, err := bot.EditHTML(chat, msg, "<i>edited</i>", bot.Keyboard{{{Text: "Delete me", Data: "delete"}}})
				if err != nil {
					return err
				}
				pic, err := bot.SendPhoto(chat, photo, "a <b>pixel</b>", nil)
				if err != nil {
					return err
				}
				return tx.Send(ctx, edit, pic, bot.AnswerCallback(chat, cq.ID, "done"))
			case "delete":
				return tx.Send(ctx, bot.Delete(chat, msg))
			}
			return nil
		}
		if m := u.Message; m != nil && m.ReplyToMessage != nil {
			reqs, err := bot.SendHTML(m.Chat.ID, "You replied to: "+html.EscapeString(m.ReplyToMessage.Text), nil)
			if err != nil {
				return err
			}
			return tx.Send(ctx, reqs...)
		}
		if u.Message != nil && u.Message.Text == "/demo" {
			reqs, err := bot.SendHTML(u.Message.Chat.ID, "Pick one", bot.Keyboard{{{Text: "Photo", Data: "photo"}}})
			if err != nil {
				return err
			}
			return tx.Send(ctx, reqs...)
		}
		return bot.Greeter(ctx, tx, u)
	}
}

// stackToken is the token of the bot of startStack.
const stackToken = "4242:webchat-test-token"

// startStack serves the emulator's Bot API and the web chat on one listener and runs the real
// transport against them; it returns the page's URL.
func startStack(t *testing.T) string {
	t.Helper()
	s := runStack(t, stackOptions{pool: pgtest.New(t)})
	t.Cleanup(s.stop)
	return s.url
}

// stackOptions say how runStack runs.
type stackOptions struct {
	pool *pgxpool.Pool
	// addr is the listen address (a page's storage belongs to its address); empty: a free port.
	addr string
	// stateDir keeps the emulator's state; empty: in memory.
	stateDir string
	// token is the bot's token; empty: stackToken.
	token string
	// knownUsers is the web chat's KnownUsers.
	knownUsers func(context.Context) (int64, error)
}

// stack is a running emulator with its web chat and the transport.
type stack struct {
	url  string
	emu  *tgemu.Server
	bot  *tgemu.Bot
	stop func() // stops the transport and the server and closes the emulator
}

// runStack serves the emulator's Bot API and the web chat on one listener and runs the real
// transport against them.
func runStack(t *testing.T, o stackOptions) *stack {
	t.Helper()
	photo := filepath.Join(t.TempDir(), "pixel.png")
	if err := os.WriteFile(photo, pngPixel, 0o644); err != nil {
		t.Fatal(err)
	}
	emu, err := tgemu.Open(tgemu.Options{EnforceRateLimits: true, StateDir: o.stateDir})
	if err != nil {
		t.Fatal(err)
	}
	if o.token == "" {
		o.token = stackToken
	}
	b := emu.AddBot(o.token, "questbot")
	chat := webchat.New(emu, b)
	chat.KnownUsers = o.knownUsers
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/bot") || strings.HasPrefix(r.URL.Path, "/file/bot") {
			emu.ServeHTTP(w, r)
			return
		}
		chat.ServeHTTP(w, r)
	}))
	if o.addr != "" {
		srv.Listener.Close()
		if srv.Listener, err = net.Listen("tcp", o.addr); err != nil {
			t.Fatal(err)
		}
	}
	srv.Start()
	ctx, cancel := context.WithCancel(context.Background())
	api, err := bot.NewAPI(ctx, b.Token(), tgemu.Endpoint(srv.URL), nil)
	if err != nil {
		t.Fatal(err)
	}
	tr := bot.New(bot.Config{Store: botpg.New(o.pool), Handler: demo(photo), PollTimeout: time.Second, Rescan: 100 * time.Millisecond})
	if _, err := tr.AddBot(ctx, api); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { tr.Run(ctx); close(done) }()
	return &stack{url: srv.URL, emu: emu, bot: b, stop: func() {
		cancel()
		<-done
		srv.CloseClientConnections()
		srv.Close()
		emu.Close()
	}}
}

// browser starts a headless Chromium for the test.
func browser(t *testing.T) context.Context {
	t.Helper()
	return bottest.Browser(t, wait.Hang, 0, 0)
}

// addUser fills in the header form and waits for the user's column.
func addUser(name, lang string, n int) chromedp.Action[chromedp.Void] {
	return chromedp.Steps(
		chromedp.SendKeys("#new-name", name),
		chromedp.SetValue("#new-lang", lang),
		chromedp.Click("#add-user"),
		chromedp.Poll[chromedp.Void](fmt.Sprintf(`document.querySelectorAll(".chat").length >= %d`, n)),
	)
}

// col is the CSS selector of the n-th user's column (1-based).
func col(n int, sel string) string { return fmt.Sprintf(".chat:nth-of-type(%d) %s", n, sel) }

// say types text into the n-th column and sends it.
func say(n int, text string) chromedp.Action[chromedp.Void] {
	return chromedp.Steps(
		chromedp.SendKeys(col(n, "input.text"), text),
		chromedp.Click(col(n, "button.send")),
	)
}

// botSays waits until the n-th column shows a bot message containing text.
func botSays(n int, text string) chromedp.Action[chromedp.Void] {
	return chromedp.Poll[chromedp.Void](fmt.Sprintf(
		`[...document.querySelectorAll(%q)].some(m => m.textContent.includes(%q))`, col(n, ".msg.bot"), text),
		chromedp.WithPollingTimeout(wait.Hang))
}

// Ensure a user of the web chat types /start and sees the greeting, and two users chatting at
// once each see their own replies in their own language.
func TestWebChat(t *testing.T) {
	url := startStack(t)
	ctx := browser(t)
	err := chromedp.Do(ctx,
		chromedp.Navigate(url+"/"),
		chromedp.WaitVisible("#add-user"),
		addUser("Ann", "en", 1),
		say(1, "/start"),
		botSays(1, "Hello, Ann!"),
	)
	if err != nil {
		t.Fatalf("one user: %v", err)
	}

	err = chromedp.Do(ctx,
		addUser("Иван", "ru", 2),
		say(2, "/start"),
		say(1, "what now?"),
		botSays(2, "Привет, Иван!"),
		botSays(1, "Send /start to begin."),
	)
	if err != nil {
		t.Fatalf("two users: %v", err)
	}
	crossed, err := chromedp.Run(ctx, chromedp.Evaluate[bool](fmt.Sprintf(
		`document.querySelector(%q).textContent.includes("Привет")`, col(1, ".messages"))))
	if err != nil || crossed {
		t.Fatalf("Ann's column shows Ivan's greeting (%v)", err)
	}

	// Buttons, edits, photos and deletions appear live.
	err = chromedp.Do(ctx,
		say(1, "/demo"),
		botSays(1, "Pick one"),
		chromedp.Click(col(1, `.keyboard button[data-data="photo"]`)),
		chromedp.Poll[chromedp.Void](fmt.Sprintf(`document.querySelector(%q) !== null`, col(1, ".msg.bot img")),
			chromedp.WithPollingTimeout(wait.Hang)),
		botSays(1, "edited"),
		chromedp.Click(col(1, `.keyboard button[data-data="delete"]`)),
		chromedp.Poll[chromedp.Void](fmt.Sprintf(
			`![...document.querySelectorAll(%q)].some(m => m.textContent.includes("edited"))`, col(1, ".msg.bot")),
			chromedp.WithPollingTimeout(wait.Hang)),
	)
	if err != nil {
		t.Fatalf("buttons, edits and photos: %v", err)
	}

	// A file uploaded from the page reaches the bot as a document.
	upload := filepath.Join(t.TempDir(), "quest.qmm")
	if err := os.WriteFile(upload, []byte("not really a quest"), 0o644); err != nil {
		t.Fatal(err)
	}
	err = chromedp.Do(ctx,
		chromedp.SetUploadFiles(col(2, "input.file"), []string{upload}),
		chromedp.Poll[chromedp.Void](fmt.Sprintf(
			`[...document.querySelectorAll(%q)].some(m => m.textContent.includes("quest.qmm"))`, col(2, ".msg.user")),
			chromedp.WithPollingTimeout(wait.Hang)),
		botSays(2, "Отправьте /start"),
	)
	if err != nil {
		t.Fatalf("upload: %v", err)
	}

	// A reply: the arrow of a message starts it, the bot gets it as a reply to that message, and
	// the page shows it with a quote of the original.
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](fmt.Sprintf(
		`[...document.querySelectorAll(%q)].find(m => m.textContent.includes("Hello, Ann!")).querySelector(".reply").click() === undefined`,
		col(1, ".msg.bot")))); err != nil {
		t.Fatalf("reply arrow: %v", err)
	}
	err = chromedp.Do(ctx,
		chromedp.WaitVisible(col(1, ".replying")),
		say(1, "thanks"),
		botSays(1, "You replied to: Hello, Ann!"),
		chromedp.Poll[chromedp.Void](fmt.Sprintf(
			`[...document.querySelectorAll(%q)].some(m => m.textContent.includes("Hello, Ann!") && m.textContent.includes("thanks"))`,
			col(1, ".msg.user")), chromedp.WithPollingTimeout(wait.Hang)),
		chromedp.WaitNotVisible(col(1, ".replying")),
	)
	if err != nil {
		t.Fatalf("reply: %v", err)
	}
}
