package loadtest

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/questbot/questbot/bot"
	"github.com/questbot/questbot/bot/botpg"
	"github.com/questbot/questbot/bot/emulator/tgemu"
)

// # Several bot processes
//
// With Options.Processes the bot runs in that many OS processes on one database, each a
// transport with the echo handler (BotProcess), all polling the one emulator this process serves
// on loopback: the poll lease decides which of them polls, and all of them handle and send. The
// command that starts a bot process is the caller's (Options.Command: the questbot binary, or a
// test binary run as questbot); it prints ReadyLine once its bot is added.

// echo is the load test's handler: a text message gets "echo: " and its text back, so that the
// replies in a chat tell which updates were handled, in which order, and how often.
func echo(ctx context.Context, tx bot.Tx, u *bot.Update) error {
	m := u.Message
	if m == nil || m.Chat == nil || m.Text == "" {
		return nil
	}
	return tx.Send(ctx, bot.Request{Method: "sendMessage", ChatID: m.Chat.ID,
		Params: map[string]string{"chat_id": strconv.FormatInt(m.Chat.ID, 10), "text": echoPrefix + m.Text}})
}

// echoPrefix starts the replies of echo.
const echoPrefix = "echo: "

// ReadyLine is what a bot process prints on its standard output once its bot is added.
const ReadyLine = "loadtest bot ready"

// BotOptions configure a bot process.
type BotOptions struct {
	Pool *pgxpool.Pool
	// APIURL is the emulator's address (tgemu.Endpoint), Token the bot's token.
	APIURL, Token string
	// Workers and Senders size the transport; the defaults unless set.
	Workers, Senders int
	// PollLease is the poll lease's length (bot.Config.PollLease).
	PollLease time.Duration
	Log       *slog.Logger
	// Ready is called once the bot is added.
	Ready func()
}

// BotProcess runs a bot process of a load test until ctx ends: a transport with echo, without
// Telegram's rate limits.
func BotProcess(ctx context.Context, opts BotOptions) error {
	api, err := bot.NewAPI(ctx, opts.Token, tgemu.Endpoint(opts.APIURL), nil)
	if err != nil {
		return err
	}
	tr := bot.New(bot.Config{Store: botpg.New(opts.Pool), Handler: echo, Log: opts.Log, Limits: &bot.NoLimits,
		Workers: opts.Workers, Senders: opts.Senders, PollLease: opts.PollLease})
	if _, err := tr.AddBot(ctx, api); err != nil {
		return err
	}
	if opts.Ready != nil {
		opts.Ready()
	}
	return tr.Run(ctx)
}

// Fleet is the emulator, with its one bot, and the bot processes that serve it.
type Fleet struct {
	Emu *tgemu.Server
	Bot *tgemu.Bot
	// URL is the emulator's address.
	URL   string
	srv   *http.Server
	mu    sync.Mutex
	procs []*Proc
}

// Proc is a running bot process.
type Proc struct {
	Cmd  *exec.Cmd
	done chan struct{}
	err  error
}

// Pid is the process's id.
func (p *Proc) Pid() int { return p.Cmd.Process.Pid }

// Exited reports whether the process has ended.
func (p *Proc) Exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// cpu returns the CPU time the process has used so far (Linux; 0 when unknown).
func (p *Proc) cpu() time.Duration { return pidCPU(p.Pid()) }

// NewFleet serves a new emulator with one bot on loopback.
func NewFleet(username string) (*Fleet, error) {
	emu := tgemu.New(tgemu.Options{})
	b := emu.AddBot("5000001:"+strconv.FormatInt(time.Now().UnixNano(), 36), username)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	f := &Fleet{Emu: emu, Bot: b, URL: "http://" + ln.Addr().String(), srv: &http.Server{Handler: emu}}
	go f.srv.Serve(ln)
	return f, nil
}

// Start starts a bot process with cmd, whose standard error goes to logs (nil: discarded), and
// waits until it is ready (it prints ReadyLine) or ctx ends.
func (f *Fleet) Start(ctx context.Context, cmd *exec.Cmd, logs io.Writer) (*Proc, error) {
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if logs != nil {
		cmd.Stderr = logs
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("loadtest: start a bot process: %w", err)
	}
	p := &Proc{Cmd: cmd, done: make(chan struct{})}
	f.mu.Lock()
	f.procs = append(f.procs, p)
	f.mu.Unlock()
	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(out)
		once := sync.Once{}
		for sc.Scan() {
			if strings.TrimSpace(sc.Text()) == ReadyLine {
				once.Do(func() { close(ready) })
			}
		}
		// The output is read to its end before Wait, which closes it.
		p.err = cmd.Wait()
		close(p.done)
	}()
	select {
	case <-ready:
		return p, nil
	case <-p.done:
		return nil, fmt.Errorf("loadtest: a bot process ended before it was ready: %v", p.err)
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Procs returns the processes started.
func (f *Fleet) Procs() []*Proc {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]*Proc(nil), f.procs...)
}

// Close stops the processes still running (SIGTERM, then SIGKILL after 20 s), waits for them
// and closes the emulator.
func (f *Fleet) Close() error {
	var errs []error
	for _, p := range f.Procs() {
		if p.Exited() {
			continue
		}
		p.Cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-p.done:
		case <-time.After(20 * time.Second):
			p.Cmd.Process.Kill()
			<-p.done
			errs = append(errs, fmt.Errorf("loadtest: bot process %d did not stop within 20 s", p.Pid()))
		}
	}
	f.srv.Close()
	return errors.Join(errs...)
}

// Tally is what the bot's replies in a set of chats show.
type Tally struct {
	// Sent is how many messages the users sent; Answered how many got their echo.
	Sent, Answered int
	// Lost is Sent - Answered: messages without an echo.
	Lost int
	// Duplicates counts the echoes beyond the first of a message.
	Duplicates int
	// OrderViolations counts the echoes that came after the echo of a later message of the chat.
	OrderViolations int
}

// Tally reads the chats of users, each of whom sent "message 0" to "message <sent-1>", and
// counts what became of those messages.
func (f *Fleet) Tally(sent map[int64]int) Tally {
	var t Tally
	for user, n := range sent {
		t.Sent += n
		seen := map[int]bool{}
		last := -1
		for _, m := range f.Bot.Messages(user) {
			k, ok := echoOf(m)
			if !ok {
				continue
			}
			switch {
			case seen[k]:
				t.Duplicates++
			case k < last:
				t.OrderViolations++
			}
			if !seen[k] && k < n {
				t.Answered++
			}
			seen[k] = true
			last = max(last, k)
		}
	}
	t.Lost = t.Sent - t.Answered
	return t
}

// echoOf returns k when m is the bot's echo of "message k".
func echoOf(m tgemu.Message) (int, bool) {
	if !m.FromBot {
		return 0, false
	}
	rest, ok := strings.CutPrefix(m.Text, echoPrefix+"message ")
	if !ok {
		return 0, false
	}
	k, err := strconv.Atoi(rest)
	return k, err == nil
}

// pidCPU is the CPU time a process has used, from /proc; 0 when unknown.
func pidCPU(pid int) time.Duration {
	raw, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0
	}
	// Fields after the command name (in parentheses): state, ppid, ..., utime (14), stime (15).
	i := strings.LastIndexByte(string(raw), ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(raw[i+1:]))
	if len(f) < 13 {
		return 0
	}
	u, _ := strconv.ParseInt(f[11], 10, 64)
	s, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(u+s) * time.Second / 100 // USER_HZ
}
