package questplay

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"
	"github.com/jackc/pgx/v5"

	"github.com/questbot/questbot/bot"
	"github.com/questbot/questbot/bot/bottest"
	"github.com/questbot/questbot/bot/tgemu"
	"github.com/questbot/questbot/migrations/pgtest"
	"github.com/questbot/questbot/qmm"
	"github.com/questbot/questbot/quest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

const token = "123456:quest-test-token"

// sharedDir is the project's shared test data beside the checkout.
func sharedDir(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "..", "..", "shared"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "quests", "dagazbot")); err != nil {
		t.Fatalf("the shared quest corpus is missing: %v", err)
	}
	return dir
}

// testHandler routes quest buttons to HandleCallback and a few test commands to the API:
// /play <script id>, /retry, /cancel, /lang <ru|en>.
func testHandler(g *Games) bot.Handler {
	return func(ctx context.Context, tx bot.Tx, u *bot.Update) error {
		if u.CallbackQuery != nil {
			_, err := g.HandleCallback(ctx, tx, u)
			return err
		}
		m := u.Message
		if m == nil || !m.IsCommand() {
			return nil
		}
		switch m.Command() {
		case "play":
			id, err := strconv.ParseInt(m.CommandArguments(), 10, 64)
			if err != nil {
				return nil
			}
			return g.Launch(ctx, tx, u, id)
		case "retry":
			return g.Retry(ctx, tx, u)
		case "cancel":
			return g.Cancel(ctx, tx, u)
		case "lang":
			_, err := g.SwitchLanguage(ctx, tx, u, m.CommandArguments())
			return err
		}
		return nil
	}
}

type env struct {
	*bottest.Env
	// handler builds the update handler around the quest player; testHandler when nil.
	handler func(*Games) bot.Handler
}

func newEnv(t *testing.T) *env {
	t.Helper()
	return &env{Env: bottest.New(t, bottest.Options{Token: token, Username: "quest_play_bot"})}
}

// start runs a transport with a fresh Games (an empty cache, as after a restart).
func (e *env) start(t *testing.T) (stop func()) {
	t.Helper()
	g := New(Config{Root: "../../uploads", Log: slog.New(slog.DiscardHandler)})
	h := testHandler(g)
	if e.handler != nil {
		h = e.handler(g)
	}
	return e.Start(t, bot.Config{Handler: h, Log: slog.New(slog.DiscardHandler), Limits: &bot.NoLimits,
		Rescan: 50 * time.Millisecond}).Stop
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
	var g gameRow
	var raw []byte
	err := e.Pool.QueryRow(context.Background(), `SELECT game_id, script_id, step, state FROM game WHERE user_id = $1`, user).
		Scan(&g.id, &g.script, &g.step, &raw)
	if errors.Is(err, pgx.ErrNoRows) {
		return g, false
	}
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &g.state); err != nil {
		t.Fatal(err)
	}
	return g, true
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
		path, found := shortestEnd(q, g.state, 50000)
		if !found || len(path) == 0 {
			t.Fatalf("no way to an ending from %+v", g.state)
		}
		e.press(t, user, g, path[0])
	}
}

// Ensure a corpus quest is played to its ending by pressing buttons, across a restart of the
// transport, with every press answered and the screens left as transcript.
func TestPlayCorpusQuest(t *testing.T) {
	t.Parallel()
	file := filepath.Join(sharedDir(t), "quests", "dagazbot", "test.qmm")
	e := newEnv(t)
	stop := e.start(t)
	e.Bot.AddUser(tgbotapi.User{ID: 7, FirstName: "Ann", LanguageCode: "ru"})
	id := e.addScript(t, "Test", "test", file, "ru", 500, 1000)
	e.Send(t, 7, fmt.Sprintf("/play %d", id))
	e.WaitFor(t, "the game", func() bool { _, ok := e.game(t, 7); return ok })
	n := e.playToEnd(t, 7, loadQuest(t, file), 2, stop)
	if n < 3 {
		t.Errorf("the quest ended after %d presses, want a real game", n)
	}
	e.WaitFor(t, "every press answered", func() bool { return e.Bot.UnansweredCallbacks() == 0 })
	var wins, launches int
	var credits int64
	if err := e.Pool.QueryRow(context.Background(), `SELECT wins, launches, credits FROM user_stats WHERE user_id = 7`).
		Scan(&wins, &launches, &credits); err != nil {
		t.Fatal(err)
	}
	if wins != 1 || launches != 1 {
		t.Errorf("wins %d, launches %d; want 1 and 1", wins, launches)
	}
	var msgs []tgemu.Message
	e.WaitFor(t, "the congratulation", func() bool {
		msgs = e.Bot.Messages(7)
		return strings.Contains(msgs[len(msgs)-1].Text, "Описание поздравления")
	})
	last := msgs[len(msgs)-1]
	if len(last.Keyboard) != 0 || !strings.Contains(last.Text, "Описание поздравления") {
		t.Errorf("last message %q with keyboard %v, want the congratulation without buttons", last.Text, last.Keyboard)
	}
	kept := 0
	for _, m := range msgs[:len(msgs)-1] {
		if m.FromBot && len(m.Keyboard) != 0 {
			t.Errorf("message %d %q kept its buttons", m.ID, m.Text)
		}
		if m.FromBot {
			kept++
		}
	}
	if kept == 0 {
		t.Error("no transcript left in the chat")
	}
}

// Ensure the shipped quest plays in both languages, a stale button is refused with nothing
// changed, /retry repeats the screen without applying anything, and the language switch
// continues the same game.
func TestShippedQuestStaleRetrySwitch(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.start(t)
	e.Bot.AddUser(tgbotapi.User{ID: 8, FirstName: "Bob", LanguageCode: "en"})
	var en, ru int64
	ctx := context.Background()
	if err := e.Pool.QueryRow(ctx, `SELECT id FROM script WHERE common_name = 'cargo-run' AND language = 'en'`).Scan(&en); err != nil {
		t.Fatal(err)
	}
	if err := e.Pool.QueryRow(ctx, `SELECT id FROM script WHERE common_name = 'cargo-run' AND language = 'ru'`).Scan(&ru); err != nil {
		t.Fatal(err)
	}
	e.Send(t, 8, fmt.Sprintf("/play %d", en))
	e.WaitFor(t, "the game", func() bool { _, ok := e.game(t, 8); return ok })
	g, _ := e.game(t, 8)
	e.press(t, 8, g, quest.JumpIAgree)
	g, _ = e.game(t, 8)
	first := dataOf(g, 2) // "Undock and set off"
	e.WaitFor(t, "the station screen", func() bool { return e.button(8, first) != 0 })
	e.Send(t, 8, "/retry")
	e.WaitFor(t, "the repeated screen", func() bool {
		n := 0
		for _, m := range e.Bot.Messages(8) {
			for _, row := range m.Keyboard {
				if row[0].Data == first {
					n++
				}
			}
		}
		return n >= 2
	})
	again, _ := e.game(t, 8)
	if again.step != g.step {
		t.Fatalf("/retry moved the game from step %d to %d", g.step, again.step)
	}
	// Two screens carry the same buttons; pressing one makes the other stale.
	var ids []int
	for _, m := range e.Bot.Messages(8) {
		for _, row := range m.Keyboard {
			if row[0].Data == first {
				ids = append(ids, m.ID)
			}
		}
	}
	if len(ids) != 2 {
		t.Fatalf("messages with %s: %v", first, ids)
	}
	if _, err := e.Bot.Press(8, ids[1], first); err != nil {
		t.Fatal(err)
	}
	e.WaitFor(t, "the step", func() bool { n, _ := e.game(t, 8); return n.step == g.step+1 })
	after, _ := e.game(t, 8)
	if _, err := e.Bot.Press(8, ids[0], first); err != nil {
		t.Fatal(err)
	}
	e.WaitFor(t, "the stale press answered", func() bool { return e.Bot.UnansweredCallbacks() == 0 })
	time.Sleep(100 * time.Millisecond)
	if n, _ := e.game(t, 8); n.step != after.step || !statesEqual(n.state, after.state) {
		t.Errorf("a stale press changed the game: step %d → %d", after.step, n.step)
	}

	// The Russian version continues the same game.
	e.Send(t, 8, "/lang ru")
	e.WaitFor(t, "the switch", func() bool { n, _ := e.game(t, 8); return n.script == ru })
	n, _ := e.game(t, 8)
	if !statesEqual(n.state, after.state) {
		t.Error("the language switch changed the game's state")
	}
	e.WaitFor(t, "the Russian screen", func() bool {
		msgs := e.Bot.Messages(8)
		return strings.Contains(msgs[len(msgs)-1].Text, "пояс")
	})
}

func statesEqual(a, b quest.State) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}
