package telegram_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"
	"github.com/jackc/pgx/v5"

	"github.com/questbot/questbot/bot"
	"github.com/questbot/questbot/bot/app"
	"github.com/questbot/questbot/bot/boards"
	"github.com/questbot/questbot/bot/boards/telegram"
	"github.com/questbot/questbot/bot/emulator/tgemu"
	"github.com/questbot/questbot/bot/testkit/bottest"
	"github.com/questbot/questbot/bot/texts"
	"github.com/questbot/questbot/engine"
	"github.com/questbot/questbot/migrations/pgtest"
	"github.com/questbot/questbot/sessions/board"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// testPublicURL is the web game server's address the tests' bots link to.
const testPublicURL = "https://games.example.org"

// clock is the games' clock: the real time plus an offset the test moves.
type clock struct{ offset atomic.Int64 }

func (c *clock) now() time.Time          { return time.Now().Add(time.Duration(c.offset.Load())) }
func (c *clock) advance(d time.Duration) { c.offset.Add(int64(d)) }

// env is a whole bot (app.New) on the emulator, with the board games' jobs run by the test.
type env struct {
	*bottest.Env
	clock   *clock
	dir     string // the board pictures
	service int
	app     *app.Bot
	proc    *bottest.Process
	// jobs are the board games' jobs the processes run, every 50 ms (and undelivered, the
	// revocation of the credentials whose message failed); running are the running process's,
	// which settle waits for.
	jobs    struct{ deadlines, reminders, ai, cleanup, notify, undelivered bool }
	running *bottest.Jobs
	// beforeSend, when set, sees each outbox row before it is sent (what Telegram is sent).
	beforeSend atomic.Pointer[func(*bot.OutboxRow)]
	// seed is the seed of the next board opened (0: a seed counted from 1).
	seed, seeds atomic.Uint64
	// allowed are the warnings and errors the test provokes (see allow).
	allowed []string
	// boards overrides the board games' PublicURL and TestEnvironment when its PublicURL is
	// set (testPublicURL otherwise).
	boards boards.Config
	// noPublic runs the bot without a web game server (PUBLIC_URL unset).
	noPublic bool
}

// nextSeed gives the boards' seeds: the one a test set for the next board, else a count.
func (e *env) nextSeed() uint64 {
	if s := e.seed.Swap(0); s != 0 {
		return s
	}
	return e.seeds.Add(1)
}

func newEnv(t *testing.T) *env {
	t.Helper()
	e := &env{Env: bottest.New(t, bottest.Options{Token: "123456:boards-test-token", Username: "boards_test_bot"}),
		clock: &clock{}, dir: t.TempDir()}
	e.jobs.deadlines, e.jobs.reminders, e.jobs.ai, e.jobs.notify = true, true, true, true
	// The emulator decodes every picture it is sent, as Telegram does; under the race detector
	// on a busy machine that takes seconds, and the transport says so. A slow Bot API server is
	// not a defect of the games.
	e.allow("A send is slow")
	t.Cleanup(func() {
		// Nothing the bot does in a game should be refused by Telegram or go wrong: every
		// warning and error is a defect, but those a test provokes on purpose.
		for _, line := range strings.Split(e.Logs.String(), "\n") {
			if !strings.Contains(line, "level=WARN") && !strings.Contains(line, "level=ERROR") {
				continue
			}
			if !slices.ContainsFunc(e.allowed, func(s string) bool { return strings.Contains(line, s) }) {
				t.Errorf("the bot logged: %s", line)
			}
		}
	})
	return e
}

// allow lets the bot log warnings and errors containing s (a test provokes them).
func (e *env) allow(s string) { e.allowed = append(e.allowed, s) }

// start runs a bot process (a new one, sharing nothing with the previous but the database, the
// emulator and the pictures' folder) and returns it.
func (e *env) start(t *testing.T) *bottest.Process {
	t.Helper()
	b := e.newBot()
	var also []func(context.Context, *bot.Transport)
	jobs := &bottest.Jobs{}
	every := func(on bool, job func(context.Context, boards.Doer) error) {
		if on {
			also = append(also, jobs.Every(50*time.Millisecond, func(ctx context.Context, tr *bot.Transport) error { return job(ctx, boards.DoerOf(tr.Do)) }))
		}
	}
	every(e.jobs.deadlines, b.Boards.Deadlines)
	every(e.jobs.reminders, b.Boards.Reminders)
	every(e.jobs.ai, b.Boards.Think)
	every(e.jobs.cleanup, b.Boards.Cleanup)
	every(e.jobs.notify, b.Boards.Notify)
	also = append(also, jobs.Every(50*time.Millisecond, func(ctx context.Context, tr *bot.Transport) error {
		if !e.jobs.undelivered {
			return nil
		}
		return telegram.Undelivered(ctx, tr, e.Log())
	}))
	seen := func(row *bot.OutboxRow) bool {
		if f := e.beforeSend.Load(); f != nil {
			(*f)(row)
		}
		return false
	}
	p := e.Start(t, bot.Config{Handler: b.Handle, Limits: &bot.NoLimits, Rescan: 50 * time.Millisecond,
		Hooks: bot.Hooks{BeforeSend: seen}}, also...)
	e.service, e.app, e.proc, e.running = p.Service, b, p, jobs
	return p
}

// newBot assembles a bot as the processes of the test run it.
func (e *env) newBot() *app.Bot {
	public, testEnv := testPublicURL, false
	if e.boards.PublicURL != "" {
		public, testEnv = e.boards.PublicURL, e.boards.TestEnvironment
	}
	if e.noPublic {
		public = ""
	}
	return app.New(app.Config{UploadsDir: "../../uploads", Log: e.Log(), Now: e.clock.now,
		Boards: boards.Config{Dir: e.dir, Lease: 2 * time.Second, Seed: e.nextSeed, PublicURL: public, TestEnvironment: testEnv}})
}

// user adds a simulated user and greets the bot, so that it knows them.
func (e *env) user(t *testing.T, id int64, name, lang string) {
	t.Helper()
	e.User(id, name, lang)
}

// boardMessage returns the newest board picture in a user's chat, if any.
func (e *env) boardMessage(user int64) (tgemu.Message, bool) {
	msgs := e.BotMessages(user)
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Photo != "" {
			return msgs[i], true
		}
	}
	return tgemu.Message{}, false
}

// waitBoard waits until the newest board picture of a user's chat passes ok, and returns it.
func (e *env) waitBoard(t *testing.T, user int64, what string, ok func(m tgemu.Message) bool) tgemu.Message {
	t.Helper()
	var m tgemu.Message
	e.WaitFor(t, fmt.Sprintf("user %d's board: %s", user, what), func() bool {
		var found bool
		m, found = e.boardMessage(user)
		return found && ok(m)
	})
	return m
}

// waitCaption waits for the user's board to say want.
func (e *env) waitCaption(t *testing.T, user int64, want string) tgemu.Message {
	t.Helper()
	return e.waitBoard(t, user, want, func(m tgemu.Message) bool { return strings.Contains(m.Text, want) })
}

// labels lists the buttons of a message.
func labels(m tgemu.Message) []string {
	var out []string
	for _, row := range m.Keyboard {
		for _, b := range row {
			out = append(out, b.Text)
		}
	}
	return out
}

// tap presses the button labelled label on the user's board and waits until the board changes.
func (e *env) tap(t *testing.T, user int64, label string) tgemu.Message {
	t.Helper()
	m, ok := e.boardMessage(user)
	if !ok {
		t.Fatalf("user %d has no board", user)
	}
	e.Press(t, user, m, label)
	return e.waitBoard(t, user, "after "+label, func(n tgemu.Message) bool {
		return n.ID != m.ID || n.Text != m.Text || n.Photo != m.Photo || fmt.Sprint(n.Keyboard) != fmt.Sprint(m.Keyboard)
	})
}

// playButtons enters a move with the buttons: its path's squares, tapped in turn (a move the
// squares leave open is then chosen by name).
func (e *env) playButtons(t *testing.T, user int64, g *engine.Game, mv engine.Move) {
	t.Helper()
	path, _ := g.Describe(mv)
	var m tgemu.Message
	for _, sq := range path {
		if sq == "pass" {
			sq = texts.For("en").Board.Pass // Othello's and Atari Go's pass has a button of its own
		}
		m = e.tap(t, user, sq)
		if !strings.Contains(m.Text, "Chosen") && !strings.Contains(m.Text, "Выбрано") {
			return // the move was played
		}
	}
	si, err := g.Steps(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, ch := range si.Choices {
		if ch.Move.String() == mv.String() {
			e.tap(t, user, ch.Label)
			return
		}
	}
	e.tap(t, user, "✓ "+mv.String())
}

// board reads a board as the store has it (in one snapshot: the bot may be saving it).
func (e *env) board(t *testing.T, id int64) *board.Board {
	t.Helper()
	var bd *board.Board
	err := pgx.BeginTxFunc(context.Background(), e.Pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead}, func(tx pgx.Tx) error {
		var err error
		bd, err = e.app.Boards.Store(tx).Get(context.Background(), id)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return bd
}

// lastBoard returns the id of the newest board a user plays.
func (e *env) lastBoard(t *testing.T, user int64) int64 {
	t.Helper()
	return int64(e.QueryInt(t, `SELECT max(board_id) FROM board_seat WHERE user_id = $1`, user))
}

// menu sends a command and presses the labels of the menus that follow, in turn.
func (e *env) menu(t *testing.T, user int64, command string, choices ...string) {
	t.Helper()
	after := e.LastID(user)
	e.Send(t, user, command)
	for _, label := range choices {
		m := e.WaitMessage(t, user, after, "a menu with "+label, func(m tgemu.Message) bool { return m.Button(label) != "" })
		after = m.ID
		e.Press(t, user, m, label)
	}
}

// replay returns the engine game of a board as stored, to choose and check moves with.
func (e *env) replay(t *testing.T, id int64) *engine.Game {
	t.Helper()
	g, err := e.board(t, id).Rebuild()
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// waitPly waits until a board has reached a ply (and returns it).
func (e *env) waitPly(t *testing.T, id int64, ply int) *board.Board {
	t.Helper()
	var bd *board.Board
	e.WaitFor(t, fmt.Sprintf("board %d at ply %d", id, ply), func() bool {
		bd = e.board(t, id)
		return bd.Ply() >= ply || bd.Status == board.Finished
	})
	return bd
}

// turn waits until it is the user's turn on a board at ply, their newest board showing it with
// the keyboard made for that ply, and returns that message.
func (e *env) turn(t *testing.T, user, id int64, ply int) tgemu.Message {
	t.Helper()
	prefix := fmt.Sprintf("g:%d:%d:", id, ply)
	return e.waitBoard(t, user, fmt.Sprintf("the turn at ply %d", ply), func(m tgemu.Message) bool {
		return len(m.Keyboard) > 0 && strings.HasPrefix(m.Keyboard[0][0].Data, prefix) &&
			(strings.Contains(m.Text, "Your turn") || strings.Contains(m.Text, "Ваш ход"))
	})
}

// typed writes a move as a player might: with a dash between its squares (chess), with
// Cyrillic look-alikes for the letters a Russian keyboard has.
func typed(g *engine.Game, mv engine.Move, cyrillic bool) string {
	text := mv.String()
	if g.Variant() == "chess" {
		path, _ := g.Describe(mv)
		text = path[0] + "-" + path[1] + text[4:]
	}
	if cyrillic {
		text = strings.NewReplacer("a", "а", "c", "с", "e", "е").Replace(text)
	}
	return text
}

// choose picks a move for a simulated player: a short node-bounded search, so the game is the
// same for a given seed.
func choose(t *testing.T, g *engine.Game, nodes int64) engine.Move {
	t.Helper()
	mv, _, err := g.BestMove(context.Background(), engine.Limits{Nodes: nodes, Algorithm: engine.AlphaBeta})
	if err != nil {
		t.Fatal(err)
	}
	return mv
}

// inject delivers a button press with any data, as a forged client could, and returns a func
// that waits for the bot's answer to it and returns its text. (The emulator refuses the answer
// to a query it never saw; the outbox keeps the refused request.)
func (e *env) inject(t *testing.T, user int64, msgID int, data string) func() string {
	t.Helper()
	// The emulator refuses the answers to queries it never saw.
	e.allow(`\"callback_query_id\":\"forged-`)
	n := injected.Add(1)
	raw, err := json.Marshal(tgbotapi.Update{UpdateID: 900_000_000 + int(n), CallbackQuery: &tgbotapi.CallbackQuery{
		ID: fmt.Sprintf("forged-%d", n), From: &tgbotapi.User{ID: user, FirstName: "Eve"}, Data: data,
		Message: &tgbotapi.Message{MessageID: msgID, Chat: &tgbotapi.Chat{ID: user, Type: "private"}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.proc.Transport.Accept(context.Background(), e.service, []json.RawMessage{raw}); err != nil {
		t.Fatal(err)
	}
	return func() string {
		t.Helper()
		var text string
		e.WaitFor(t, "the answer to "+data, func() bool {
			err := e.Pool.QueryRow(context.Background(), `SELECT coalesce(params->>'text', '') FROM outbox
				WHERE method = 'answerCallbackQuery' AND params->>'callback_query_id' = $1 AND status <> 'pending'`,
				fmt.Sprintf("forged-%d", n)).Scan(&text)
			return err == nil
		})
		return text
	}
}

// injected numbers the forged updates.
var injected atomic.Int64
