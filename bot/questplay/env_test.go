package questplay_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/questbot/questbot/bot"
	"github.com/questbot/questbot/bot/app"
	"github.com/questbot/questbot/bot/testkit/bottest"
	"github.com/questbot/questbot/migrations/pgtest"
	"github.com/questbot/questbot/qmm"
	"github.com/questbot/questbot/quest"
	"github.com/questbot/questbot/quest/questtrace"
	"github.com/questbot/questbot/quest/questtrace/corpus"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

const token = "123456:quest-test-token"

// uploadsDir is the project's quest folder.
const uploadsDir = "../../uploads"

// sharedDir is the shared test corpus (see package corpus); without it the test is skipped.
func sharedDir(t *testing.T) string {
	t.Helper()
	return corpus.Dir(t)
}

// testCommands adds to the bot's router a few commands that reach the quest player directly:
// /play <script id> launches a quest, /lang <ru|en> switches the running game's language.
func testCommands(b *app.Bot) {
	b.Router.OnCommand("play", func(ctx context.Context, tx bot.Tx, u *bot.Update) error {
		id, err := strconv.ParseInt(u.Args, 10, 64)
		if err != nil {
			return nil
		}
		return b.Games.Launch(ctx, tx, u, id)
	})
	b.Router.OnCommand("lang", func(ctx context.Context, tx bot.Tx, u *bot.Update) error {
		_, err := b.Games.SwitchLanguage(ctx, tx, u, u.Args)
		return err
	})
}

type env struct {
	*bottest.Env
	service int
	// product leaves the bot as serve wires it, without the test commands.
	product bool
}

func newEnv(t *testing.T) *env {
	t.Helper()
	return &env{Env: bottest.New(t, bottest.Options{Token: token, Username: "quest_play_bot"})}
}

// start runs a bot process with a fresh bot (an empty cache, as after a restart).
func (e *env) start(t *testing.T) (stop func()) {
	t.Helper()
	b := app.New(app.Config{UploadsDir: uploadsDir, Log: slog.New(slog.DiscardHandler)})
	if !e.product {
		testCommands(b)
	}
	p := e.Start(t, bot.Config{Handler: b.Handle, Log: slog.New(slog.DiscardHandler), Limits: &bot.NoLimits,
		Rescan: 50 * time.Millisecond})
	e.service = p.Service
	return p.Stop
}

// addScript registers a quest file and returns its script id.
func (e *env) addScript(t *testing.T, name, common, file, lang string, bonus, penalty int) int64 {
	t.Helper()
	var id int64
	err := e.Pool.QueryRow(context.Background(), `INSERT INTO script (name, common_name, file, language, win_bonus, death_penalty)
		VALUES ($1, $2, $3, $4, $5, $6) RETURNING id`, name, common, file, lang, bonus, penalty).Scan(&id)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// gameRow is a user's game as stored.
type gameRow struct {
	id, script int64
	step       int
	state      quest.State
}

func (e *env) game(t *testing.T, user int64) (gameRow, bool) {
	t.Helper()
	g := e.Game(t, e.service, user)
	if g == nil {
		return gameRow{}, false
	}
	return gameRow{id: g.ID, script: g.Script.ID, step: g.Step, state: g.State}, true
}

// button returns the id of the bot message that has a button with this data, 0 if none.
func (e *env) button(chat int64, data string) int {
	for _, m := range e.Bot.Messages(chat) {
		for _, row := range m.Keyboard {
			for _, b := range row {
				if b.Data == data {
					return m.ID
				}
			}
		}
	}
	return 0
}

func dataOf(g gameRow, action int) string {
	return "q:" + strconv.FormatInt(g.id, 36) + ":" + strconv.Itoa(g.step) + ":" + strconv.Itoa(action)
}

// press presses the button of action in the game's current screen and waits for the step.
func (e *env) press(t *testing.T, user int64, g gameRow, action int) {
	t.Helper()
	data := dataOf(g, action)
	var msg int
	e.WaitFor(t, "button "+data, func() bool { msg = e.button(user, data); return msg != 0 })
	if _, err := e.Bot.Press(user, msg, data); err != nil {
		t.Fatal(err)
	}
	e.WaitFor(t, "the step after "+data, func() bool {
		n, ok := e.game(t, user)
		return !ok || n.step != g.step
	})
	// As a player reads the new screen, the screen left loses its buttons (or goes): a press
	// before that would drop its update (the next step's supersedes it).
	e.WaitFor(t, "the screen left updated", func() bool {
		for _, m := range e.Bot.Messages(user) {
			if m.ID == msg {
				return len(m.Keyboard) == 0
			}
		}
		return true
	})
}

func loadQuest(t *testing.T, path string) *quest.Quest {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	d, err := qmm.DecodeBytes(data)
	if err != nil {
		t.Fatal(err)
	}
	q, err := quest.Compile(d)
	if err != nil {
		t.Fatal(err)
	}
	return q
}

// playToEnd presses, screen after screen, the buttons of a shortest way to an ending, stopping
// the transport and starting a new one after restartAt presses (never if negative).
func (e *env) playToEnd(t *testing.T, user int64, q *quest.Quest, restartAt int, stop func()) int {
	t.Helper()
	for i := 0; ; i++ {
		g, ok := e.game(t, user)
		if !ok {
			return i
		}
		if i > 200 {
			t.Fatal("no ending after 200 presses")
		}
		if i == restartAt {
			// Stop between steps: a send cut short would be repeated after the restart (the
			// transport's at-least-once delivery), leaving a duplicate screen behind.
			e.WaitFor(t, "an empty outbox", func() bool {
				var n int
				err := e.Pool.QueryRow(context.Background(), `SELECT count(*) FROM outbox WHERE chat_id = $1`, user).Scan(&n)
				return err == nil && n == 0
			})
			stop()
			stop = e.start(t)
		}
		path, found := questtrace.Shortest(q, g.state, 50000, quest.Status.Over)
		if !found || len(path) == 0 {
			t.Fatalf("no way to an ending from %+v", g.state)
		}
		e.press(t, user, g, path[0])
	}
}

func statesEqual(a, b quest.State) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}
