package scriptbot_test

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"log/slog"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"

	"github.com/questbot/questbot/bot"
	"github.com/questbot/questbot/bot/app"
	"github.com/questbot/questbot/bot/emulator/tgemu"
	"github.com/questbot/questbot/bot/scriptbot"
	"github.com/questbot/questbot/bot/testkit/bottest"
	"github.com/questbot/questbot/bot/testkit/wait"
	"github.com/questbot/questbot/migrations/pgtest"
	"github.com/questbot/questbot/quest/questpg"
	"github.com/questbot/questbot/scripts"
	"github.com/questbot/questbot/scripts/scriptpg"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

const token = "123456:script-test-token"

// fakeGames stands in for the quest player: it keeps a running game in the store (so that the
// seeded procedures see it), sends one line per operation, and records the calls.
type fakeGames struct {
	mu    sync.Mutex
	calls []string
}

func (g *fakeGames) record(s string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.calls = append(g.calls, s)
}

func (g *fakeGames) Calls() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Clone(g.calls)
}

func (g *fakeGames) say(ctx context.Context, tx bot.Tx, u *bot.Update, text string, kb bot.Keyboard) error {
	reqs, err := bot.SendHTML(u.Chat, text, kb)
	if err != nil {
		return err
	}
	return tx.Send(ctx, reqs...)
}

// catalogue stands for the quest player's paged catalogue (the built-in quest.catalogue).
func (g *fakeGames) catalogue(ctx context.Context, tx bot.Tx, u *bot.Update, args map[string]string) (*scripts.Result, error) {
	g.record("catalogue " + args["name"])
	return &scripts.Result{Code: "ok"}, g.say(ctx, tx, u, "the catalogue "+args["name"], nil)
}

// offer stands for the quest player's offer of a quest that /quest <name> or /start <id> names
// (the built-in quest.offer): it launches it.
func (g *fakeGames) offer(ctx context.Context, tx bot.Tx, u *bot.Update, args map[string]string) (*scripts.Result, error) {
	id, err := strconv.ParseInt(args["script"], 10, 64)
	if err != nil {
		return nil, err
	}
	g.record("offer " + args["script"])
	return &scripts.Result{Code: "ok"}, g.Launch(ctx, tx, u, id)
}

func (g *fakeGames) Launch(ctx context.Context, tx bot.Tx, u *bot.Update, scriptID int64) error {
	g.record(fmt.Sprintf("launch %d", scriptID))
	store := questpg.New()
	sc, err := store.Script(ctx, tx.DB(), u.Service, scriptID)
	if err != nil {
		return err
	}
	gm := &questpg.Game{Service: u.Service, User: u.User.ID, Script: *sc, MoneyParam: -1}
	if err := store.Launch(ctx, tx.DB(), gm, func(int64) int64 { return 0 }); err != nil {
		return err
	}
	return g.say(ctx, tx, u, fmt.Sprintf("quest %d screen", scriptID), bot.Keyboard{{{Text: "Go", Data: fmt.Sprintf("q:%d", scriptID)}}})
}

func (g *fakeGames) Cancel(ctx context.Context, tx bot.Tx, u *bot.Update) error {
	g.record("cancel")
	return questpg.New().Abandon(ctx, tx.DB(), u.Service, u.User.ID)
}

func (g *fakeGames) SwitchLanguage(ctx context.Context, tx bot.Tx, u *bot.Update, lang string) (bool, error) {
	g.record("switch " + lang)
	return false, nil
}

func (g *fakeGames) Retry(ctx context.Context, tx bot.Tx, u *bot.Update) error {
	g.record("retry")
	return g.say(ctx, tx, u, "quest screen again", nil)
}

// HandleCallback takes the presses of "q:" buttons; "q:stale" is refused as a stale press.
func (g *fakeGames) HandleCallback(ctx context.Context, tx bot.Tx, u *bot.Update) error {
	g.record("press " + u.CallbackQuery.Data)
	answer := ""
	if u.CallbackQuery.Data == "q:stale" {
		answer = "stale"
	}
	return tx.Send(ctx, bot.AnswerCallback(u.Chat, u.CallbackQuery.ID, answer))
}

// env is an emulator, a fresh database and a transport running the script handler.
type env struct {
	*bottest.Env
	games   *fakeGames
	tr      *bot.Transport
	stop    func()
	service int
}

func newEnv(t *testing.T) *env {
	t.Helper()
	e := &env{games: &fakeGames{}}
	return e.run(t, e.games)
}

// run starts the environment with a quest player.
func (e *env) run(t *testing.T, games *fakeGames) *env {
	t.Helper()
	e.Env = bottest.New(t, bottest.Options{Token: token, Username: "script_test_bot"})
	e.stop = e.start(t, scriptbot.Config{Games: games})
	return e
}

// extension is a feature of the test beside the tree: its messages, and its buttons by prefix.
type extension struct {
	prefix   string
	callback bot.Handler
	message  bot.MessageHandler
}

// start runs a transport with a new script handler (as a new process would) until the returned
// function is called or the test ends. cfg's Trees, Contexts and Log are filled in; the router
// sends quest buttons to the fake quest player.
func (e *env) start(t *testing.T, cfg scriptbot.Config, extensions ...extension) (stop func()) {
	t.Helper()
	cfg.Log = e.Log()
	if g, ok := cfg.Games.(*fakeGames); ok && cfg.Builtins["quest.catalogue"] == nil {
		builtins := maps.Clone(cfg.Builtins)
		if builtins == nil {
			builtins = map[string]scriptbot.Builtin{}
		}
		builtins["quest.catalogue"] = g.catalogue
		builtins["quest.offer"] = g.offer
		cfg.Builtins = builtins
	}
	store := scriptpg.New()
	store.CheckEvery = 0
	cfg.Trees, cfg.Contexts = store, store
	h := scriptbot.New(cfg)
	store.Builtins = h.BuiltinNames()
	r := bot.NewRouter()
	r.Use(h.Refresh)
	r.OnAnyCommand(h.HandleCommand)
	r.OnCallback(scriptbot.CallbackPrefix, h.HandleMenu)
	if g, ok := cfg.Games.(*fakeGames); ok {
		r.OnCallback("q", g.HandleCallback)
	}
	r.OnMessage(h.HandleText)
	for _, x := range extensions {
		r.OnCallback(x.prefix, x.callback)
		r.OnMessage(x.message)
	}
	r.OnUnhandled(h.HandleUnhandled)
	limits := bot.NoLimits
	p := e.Start(t, bot.Config{Handler: r.Handle, Log: cfg.Log, Limits: &limits})
	e.tr, e.service = p.Transport, p.Service
	ctx := context.Background()
	menu, err := h.Menu(ctx, e.Pool, e.service)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.tr.Send(ctx, e.service, menu...); err != nil {
		t.Fatal(err)
	}
	return p.Stop
}

// restart stops the transport and handler and starts new ones with cfg on the same database.
func (e *env) restart(t *testing.T, cfg scriptbot.Config, extensions ...extension) {
	t.Helper()
	e.stop()
	e.stop = e.start(t, cfg, extensions...)
}

// addQuests adds English quests Alpha and Beta and an unlisted one, and returns their ids by name.
func (e *env) addQuests(t *testing.T) map[string]int64 {
	t.Helper()
	ids := map[string]int64{}
	rows, err := e.Pool.Query(context.Background(), `
		INSERT INTO script (name, common_name, file, language, listed) VALUES
			('Alpha', 'alpha', 'a.qmm', 'en', true), ('Beta', 'beta', 'b.qmm', 'en', true),
			('Secret', 'secret', 's.qmm', 'en', false)
		RETURNING name, id`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var name string
		var id int64
		rows.Scan(&name, &id)
		ids[name] = id
	}
	var cargo int64
	e.Pool.QueryRow(context.Background(), `SELECT id FROM script WHERE name = 'Cargo run'`).Scan(&cargo)
	ids["Cargo run"] = cargo
	// /pick: the one-menu catalogue /quest was before it had pages, a list menu of every quest.
	e.Exec(t, `DO $$
		DECLARE c bigint; p bigint; f bigint;
		BEGIN
			c := tree_command('pick', 'Pick a quest', 'Выбрать квест', 'QUEST_NAME');
			p := tree_action(c, NULL, 1, 'procedure', NULL, 'quest_catalogue', NULL, NULL, NULL, NULL);
			PERFORM tree_request_params(p, 'user', 'USER', 'service', 'SERVICE', 'lang', 'LANG', 'name', 'QUEST_NAME');
			PERFORM tree_response_params(p, 'script', 'SCRIPT', 'list', 'LIST');
			f := tree_action(c, p, 1, 'folder', NULL, NULL, 'many', NULL, NULL, NULL);
			PERFORM tree_action(c, f, 1, 'list_menu', 'LIST', NULL, NULL, NULL, 'Choose a quest:', 'Выберите квест:', 3);
			PERFORM tree_action(c, f, 2, 'quest', 'LIST', NULL, NULL, NULL, NULL, NULL);
			PERFORM tree_action(c, p, 2, 'quest', 'SCRIPT', NULL, 'one', NULL, NULL, NULL);
		END $$`)
	return ids
}

// Ensure /quest shows the quest player's catalogue; a list menu over the catalogue (/pick) shows
// it three to a row, a press launches the quest and removes the menu; /quest with a running quest
// shows the catalogue all the same, and a name offers its quest.
func TestQuestMenuLaunch(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ids := e.addQuests(t)
	e.User(1, "Ann", "en")
	e.Send(t, 1, "/quest")
	e.WaitText(t, 1, 0, "the catalogue")
	e.Send(t, 1, "/pick")
	menu := e.WaitText(t, 1, 0, "Choose a quest:")
	// The shipped multiplayer duel (010_multiplayer.sql) makes a second row.
	if len(menu.Keyboard) != 2 || len(menu.Keyboard[0]) != 3 || menu.Keyboard[1][0].Text != "Orbital duel" {
		t.Fatalf("catalogue keyboard %+v, want a row of Alpha, Beta, Cargo run, then Orbital duel", menu.Keyboard)
	}
	for i, name := range []string{"Alpha", "Beta", "Cargo run"} {
		if got := menu.Keyboard[0][i].Text; got != name {
			t.Errorf("button %d: %q, want %q", i, got, name)
		}
		if d := menu.Keyboard[0][i].Data; !strings.HasPrefix(d, "m:") || len(d) > 64 {
			t.Errorf("button %d data %q", i, d)
		}
	}
	e.Press(t, 1, menu, "Beta")
	e.WaitText(t, 1, 0, fmt.Sprintf("quest %d screen", ids["Beta"]))
	e.WaitIdle(t)
	for _, m := range e.BotMessages(1) {
		if m.ID == menu.ID {
			t.Error("the catalogue menu was not deleted after the choice")
		}
	}
	// The old catalogue button again: forged through the API, as the message is gone.
	n := len(e.BotMessages(1))
	e.Send(t, 1, "/quest")
	e.WaitText(t, 1, n, "the catalogue")
	e.Send(t, 1, "/quest secret")
	e.WaitText(t, 1, n, "I have no quest called «secret»")
	e.Send(t, 1, "/quest alp")
	e.WaitText(t, 1, n, fmt.Sprintf("quest %d screen", ids["Alpha"]))
	e.WaitIdle(t)
	want := []string{"catalogue ", fmt.Sprintf("launch %d", ids["Beta"]), "catalogue ", fmt.Sprintf("offer %d", ids["Alpha"]),
		fmt.Sprintf("launch %d", ids["Alpha"])}
	if got := e.games.Calls(); !slices.Equal(got, want) {
		t.Errorf("games calls %q, want %q", got, want)
	}
	// A quest button goes to the quest player.
	screen := e.WaitText(t, 1, n, fmt.Sprintf("quest %d screen", ids["Alpha"]))
	e.Press(t, 1, screen, "Go")
	e.WaitIdle(t)
	if got := e.games.Calls(); got[len(got)-1] != fmt.Sprintf("press q:%d", ids["Alpha"]) {
		t.Errorf("games calls %q, want the press last", got)
	}
	// /start with a deep link launches even an unlisted quest; a plain /start greets.
	e.Send(t, 1, fmt.Sprintf("/start %d", ids["Secret"]))
	e.WaitText(t, 1, n, fmt.Sprintf("quest %d screen", ids["Secret"]))
	e.Send(t, 1, "/start")
	e.WaitText(t, 1, n, "Hello, <b>Ann</b>!")
	e.Send(t, 1, "/start 999999")
	e.WaitText(t, 1, n, "There is no quest with this number.")
}

// Ensure /lang switches the user's language, asks the quest player to follow, and the menus and
// texts that follow are in the new language; the command menus are installed per language.
func TestLang(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.addQuests(t)
	e.User(2, "Ivan", "en")
	e.Send(t, 2, "/lang")
	menu := e.WaitText(t, 2, 0, "Choose your language:")
	e.Press(t, 2, menu, "Русский")
	e.WaitText(t, 2, 0, "Теперь я говорю с вами по-русски.")
	e.Send(t, 2, "/help")
	e.WaitText(t, 2, 0, "выбрать квест")
	e.Send(t, 2, "/retry")
	e.WaitText(t, 2, 0, "Сейчас вы не играете в квест.")
	// The catalogue: Russian versions where there are, English ones for the other quests.
	e.Send(t, 2, "/pick")
	catalogue := e.WaitText(t, 2, 0, "Выберите квест:")
	var labels []string
	for _, row := range catalogue.Keyboard {
		for _, b := range row {
			labels = append(labels, b.Text)
		}
	}
	if want := []string{"Alpha", "Beta", "Груз до Боннасиса", "Дуэль на орбите"}; !slices.Equal(labels, want) {
		t.Errorf("Russian catalogue %q, want %q", labels, want)
	}
	e.WaitIdle(t)
	var lang string
	e.Pool.QueryRow(context.Background(), `SELECT language FROM users WHERE id = 2`).Scan(&lang)
	if lang != "ru" {
		t.Errorf("language %q, want ru", lang)
	}
	if got := e.games.Calls(); !slices.Equal(got, []string{"switch ru"}) {
		t.Errorf("games calls %q, want the switch to ru", got)
	}
	// The chat's own command menu is in Russian, whatever the client's language.
	if got := e.Bot.ChatCommands(2, ""); len(got) != 5 || got[0].Description != "Выбрать квест" {
		t.Errorf("chat menu after /lang ru: %+v", got)
	}
	// Back to English.
	n := len(e.BotMessages(2))
	e.Send(t, 2, "/lang")
	menu = e.WaitText(t, 2, n, "Выберите язык:")
	e.Press(t, 2, menu, "English")
	e.WaitText(t, 2, n, "I speak English with you now.")
	e.WaitIdle(t)
	en, ru := e.Bot.Commands(""), e.Bot.Commands("ru")
	if len(en) != 5 || len(ru) != 5 || en[0].Command != "quest" || en[0].Description != "Choose a quest" ||
		ru[0].Description != "Выбрать квест" {
		t.Errorf("command menus: en %+v, ru %+v", en, ru)
	}
	if got := e.Bot.ChatCommands(2, ""); !slices.Equal(got, en) {
		t.Errorf("chat menu after /lang en: %+v, want %+v", got, en)
	}
	// An operator renames a command: the chat's own menu follows, as the others do.
	e.Exec(t, `UPDATE localized_string SET text = 'Pick a quest' WHERE text = 'Choose a quest'`)
	e.User(3, "Ann", "en")
	e.Send(t, 3, "/help")
	e.WaitText(t, 3, 0, "choose a quest")
	e.WaitIdle(t)
	if got := e.Bot.ChatCommands(2, ""); len(got) != 5 || got[0].Description != "Pick a quest" {
		t.Errorf("chat menu after the tree changed: %+v", got)
	}
}

// Ensure the prompt of a hidden parameter and the answer are both deleted once answered, also
// when the bot restarts between the prompt and the answer, and the answer is never relayed.
func TestHiddenInput(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.Exec(t, `
		INSERT INTO param_type (name, hidden) VALUES ('PIN', true);
		INSERT INTO command (id, name, visible) VALUES (2100, 'pin', false);
		INSERT INTO action (id, command_id, order_num, type, param) VALUES
			(21001, 2100, 1, 'input', 'PIN'), (21002, 2100, 2, 'output', NULL);
		INSERT INTO localized_string (action_id, lang, text) VALUES
			(21001, 'en', 'Your PIN:'), (21002, 'en', 'Thank you, {NAME}.');`)
	e.User(6, "Ann", "en")
	for round := range 2 {
		before := len(e.Bot.Deleted(6))
		// The bot messages of earlier rounds are skipped: the thanks of round 0 must not be
		// taken for those of round 1.
		n := len(e.BotMessages(6))
		e.Send(t, 6, "/pin")
		prompt := e.WaitText(t, 6, n, "Your PIN:")
		e.WaitIdle(t)
		if round == 1 {
			// The prompt's id must outlive the process that sent it.
			e.restart(t, scriptbot.Config{Games: e.games})
		}
		answer := e.Send(t, 6, "4321")
		e.WaitText(t, 6, n, "Thank you, Ann.")
		e.WaitIdle(t)
		deleted := e.Bot.Deleted(6)[before:]
		slices.Sort(deleted)
		if want := []int{prompt.ID, answer}; !slices.Equal(deleted, want) {
			t.Errorf("round %d: deleted %v, want the prompt and the answer %v", round, deleted, want)
		}
	}
	for _, m := range e.Bot.Messages(6) {
		if strings.Contains(m.Text, "PIN") || strings.Contains(m.Text, "4321") {
			t.Errorf("still in the chat: %+v", m)
		}
	}
	var left int
	e.Pool.QueryRow(context.Background(), `SELECT (SELECT count(*) FROM sent_ref) + (SELECT count(*) FROM outbox)`).Scan(&left)
	if left != 0 {
		t.Errorf("%d rows left in sent_ref and outbox, want none", left)
	}
	if strings.Contains(e.Logs.String(), "4321") {
		t.Error("the hidden answer appears in the logs")
	}
}

// Ensure a hidden answer does not wait in the database once used: while the dialogue waits for
// its next answer, the stored dialogue holds the other values but not the secret the walk has
// already used (here in a guard).
func TestHiddenAnswerDropped(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.Exec(t, `
		INSERT INTO param_type (name, hidden) VALUES ('CODE', true), ('NICK', false);
		INSERT INTO command (id, name, visible) VALUES (2200, 'code', false);
		INSERT INTO action (id, command_id, order_num, type, param, guard) VALUES
			(22001, 2200, 1, 'input', 'CODE', NULL), (22002, 2200, 2, 'output', NULL, 'len(CODE) == 4'),
			(22003, 2200, 3, 'input', 'NICK', NULL), (22004, 2200, 4, 'output', NULL, NULL);
		INSERT INTO localized_string (action_id, lang, text) VALUES
			(22001, 'en', 'Your code:'), (22002, 'en', 'A good code.'), (22003, 'en', 'Your nickname:'),
			(22004, 'en', 'Done, {NICK}.');`)
	e.User(7, "Ann", "en")
	e.Send(t, 7, "/code")
	e.WaitText(t, 7, 0, "Your code:")
	e.WaitIdle(t)
	e.Send(t, 7, "9876")
	e.WaitText(t, 7, 0, "Your nickname:")
	e.WaitIdle(t)
	if e.CountText(7, "A good code.") != 1 {
		t.Error("the guard did not see the code")
	}
	if n := e.QueryInt(t, `SELECT count(*) FROM script_context_value WHERE value = '9876' OR param = 'CODE'`); n != 0 {
		t.Errorf("the used code waits in the database (%d rows)", n)
	}
	if n := e.QueryInt(t, `SELECT count(*) FROM script_context_value WHERE param = 'USER'`); n != 1 {
		t.Errorf("the dialogue's other values are gone (%d rows of USER)", n)
	}
	e.Send(t, 7, "ann")
	e.WaitText(t, 7, 0, "Done, ann.")
}

// Ensure /score shows the results table with the credits, and a user without games is told so.
func TestScore(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ids := e.addQuests(t)
	e.User(3, "Ann", "en")
	e.User(4, "Bob", "en")
	e.Send(t, 3, "/start")
	e.WaitText(t, 3, 0, "Hello")
	e.Exec(t, `INSERT INTO user_stats (service_id, user_id, credits, launches, wins, failures, deaths)
		VALUES ($1, 3, 9500, 3, 1, 1, 1)`, e.service)
	e.Exec(t, `INSERT INTO user_script_stats (service_id, user_id, script_id, launches, wins, failures, deaths)
		VALUES ($1, 3, $2, 2, 1, 1, 0), ($1, 3, $3, 1, 0, 0, 1)`, e.service, ids["Alpha"], ids["Cargo run"])
	e.Send(t, 3, "/score")
	m := e.WaitText(t, 3, 0, "<pre>")
	for _, want := range []string{"Quest      Won Failed Died Played", "Alpha        1      1    0      2", "Cargo run",
		"Total", "Credits: <b>9500</b>. You begin with 10 000."} {
		if !strings.Contains(m.Text, want) {
			t.Errorf("score lacks %q:\n%s", want, m.Text)
		}
	}
	e.Send(t, 4, "/score")
	e.WaitText(t, 4, 0, "You have not played any quest yet.")
}

// hostile are strings meant to break quoting, SQL, HTML or sizes.
var hostile = []string{
	`"'; DROP TABLE script; --`,
	`<b>bold</b> <a href="x">&amp; <script>`,
	`%_\ ' " `,
	`{USER} {LANG} {{.}}`,
	strings.Repeat("Ж", 2100), // 4 KB and more
}

// Ensure hostile strings in arguments, prompts and button data change nothing they should not:
// they are shown escaped, stored as they are, and forged menu presses are answered and ignored.
func TestHostileInput(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.addQuests(t)
	// A command with a hidden input whose answer is echoed.
	e.Exec(t, `
		INSERT INTO param_type (name, hidden) VALUES ('SECRET', true), ('WORD', false);
		INSERT INTO command (id, name, visible) VALUES (2000, 'echo', false);
		INSERT INTO action (id, command_id, order_num, type, param) VALUES
			(20001, 2000, 1, 'input', 'WORD'), (20002, 2000, 2, 'input', 'SECRET'), (20003, 2000, 3, 'output', NULL);
		INSERT INTO localized_string (action_id, lang, text) VALUES
			(20001, 'en', 'Say a word:'), (20002, 'en', 'Your secret:'), (20003, 'en', 'Word: {WORD}. Secret length ok.');`)
	e.User(5, "<i>Eve</i> & co", "en")
	e.Send(t, 5, "/start")
	e.WaitText(t, 5, 0, "Hello, <b>&lt;i&gt;Eve&lt;/i&gt; &amp; co</b>!")
	for i, s := range hostile {
		n := len(e.BotMessages(5))
		e.Send(t, 5, "/quest "+s)
		e.WaitText(t, 5, n, "I have no quest called")
		e.Send(t, 5, "/start "+s)
		e.WaitText(t, 5, n, "There is no quest with this number.")
		e.Send(t, 5, "/echo")
		e.WaitText(t, 5, n, "Say a word:")
		e.Send(t, 5, s)
		e.WaitText(t, 5, n, "Your secret:")
		secret := e.Send(t, 5, s+" secret")
		e.WaitText(t, 5, n, "Secret length ok.")
		e.WaitIdle(t)
		for _, m := range e.Bot.Messages(5) {
			if m.ID == secret || m.Text == "Your secret:" {
				t.Errorf("input %d: the hidden answer or its prompt is still in the chat", i)
			}
		}
	}
	// Every reply was valid HTML (the emulator refuses anything else), so nothing failed.
	var failed int
	e.Pool.QueryRow(context.Background(), `SELECT count(*) FROM outbox WHERE status = 'failed'`).Scan(&failed)
	if failed != 0 {
		t.Errorf("%d sends failed", failed)
	}
	var quests int
	e.Pool.QueryRow(context.Background(), `SELECT count(*) FROM script`).Scan(&quests)
	if quests != 7 { // the three added, and the shipped cargo run and duel in two languages each
		t.Errorf("%d quests, want 7", quests)
	}
	if strings.Contains(e.Logs.String(), "secret") {
		t.Error("a hidden answer appears in the logs")
	}
	// Forged and stale menu presses: answered, nothing else.
	e.Send(t, 5, "/pick")
	menu := e.WaitText(t, 5, 0, "Choose a quest:")
	before := len(e.BotMessages(5))
	for _, data := range []string{"m:1:1:1", "m:x", "m:99999999999999999999:1:1", strings.Replace(menu.Keyboard[0][0].Data, "m:", "m:1", 1), "zzz", "q:stale",
		strings.Replace(menu.Keyboard[0][0].Data, ":0", ":77", 1)} {
		e.inject(t, 5, menu.ID, data)
	}
	e.WaitIdle(t)
	if got := len(e.BotMessages(5)); got != before {
		t.Errorf("forged presses changed the chat: %d messages, want %d", got, before)
	}
	e.Press(t, 5, menu, "Alpha")
	e.WaitText(t, 5, before-1, "screen")
}

// inject delivers a button press with any data, as a forged client could.
func (e *env) inject(t *testing.T, user int64, msgID int, data string) {
	t.Helper()
	raw, _ := json.Marshal(tgbotapi.Update{UpdateID: int(time.Now().UnixNano() % 1e9), CallbackQuery: &tgbotapi.CallbackQuery{
		ID: "forged-" + data, From: &tgbotapi.User{ID: user, FirstName: "Eve"}, Data: data,
		Message: &tgbotapi.Message{MessageID: msgID, Chat: &tgbotapi.Chat{ID: user, Type: "private"}},
	}})
	if err := e.tr.Accept(context.Background(), e.service, []json.RawMessage{raw}); err != nil {
		t.Fatal(err)
	}
}

// Ensure a broken command in the database is refused whole and logged, while the others work.
func TestInvalidTree(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.User(6, "Ann", "en")
	e.Exec(t, `
		INSERT INTO command (id, name, visible) VALUES (3000, 'broken', false);
		INSERT INTO action (id, command_id, order_num, type) VALUES (30001, 3000, 1, 'output'), (30002, 3000, 2, 'menu');
		INSERT INTO localized_string (action_id, lang, text) VALUES (30001, 'en', 'first step');`)
	e.Send(t, 6, "/broken")
	e.WaitText(t, 6, 0, "this command is unavailable")
	e.Send(t, 6, "/help")
	e.WaitText(t, 6, 0, "choose a quest")
	e.WaitIdle(t)
	for _, m := range e.BotMessages(6) {
		if strings.Contains(m.Text, "first step") {
			t.Error("the broken command ran in part")
		}
	}
	if logs := e.Logs.String(); !strings.Contains(logs, "Command refused") || !strings.Contains(logs, "a menu needs options") {
		t.Errorf("the refusal is not logged:\n%s", logs)
	}
}

// Ensure the real quest player is reached: /quest shows the catalogue of the one English quest,
// whose button starts it, its buttons play it, /lang moves it to Russian, and /quest then browses
// the Russian catalogue.
func TestRealQuest(t *testing.T) {
	t.Parallel()
	e := &env{Env: bottest.New(t, bottest.Options{Token: token, Username: "script_test_bot"})}
	b := app.New(app.Config{UploadsDir: "../../uploads", Log: slog.New(slog.DiscardHandler), TreeCheck: -1})
	p := e.Start(t, bot.Config{Handler: b.Handle, Log: e.Log(), Limits: &bot.NoLimits})
	e.tr, e.service = p.Transport, p.Service
	e.Exec(t, `UPDATE script SET listed = false WHERE common_name = 'duel'`) // leave one English quest
	e.User(7, "Ann", "en")
	e.Send(t, 7, "/quest")
	// The catalogue of one quest, which a press starts.
	e.Press(t, 7, e.WaitText(t, 7, 0, "Choose a quest:"), "Cargo run")
	var screen tgemu.Message
	wait.For(t, wait.Hang, "a quest screen", func() bool {
		for _, m := range e.BotMessages(7) {
			if len(m.Keyboard) > 0 && strings.HasPrefix(m.Keyboard[0][0].Data, "q:") {
				screen = m
				return true
			}
		}
		return false
	})
	n := len(e.BotMessages(7))
	if _, err := e.Bot.Press(7, screen.ID, screen.Keyboard[0][0].Data); err != nil {
		t.Fatal(err)
	}
	e.WaitIdle(t)
	if len(e.BotMessages(7)) == n && e.Bot.Messages(7)[len(e.Bot.Messages(7))-1].Text == screen.Text {
		t.Error("pressing a quest button did nothing")
	}
	e.Send(t, 7, "/lang")
	menu := e.WaitText(t, 7, 0, "Choose your language:")
	e.Press(t, 7, menu, "Русский")
	e.WaitText(t, 7, 0, "Теперь я говорю с вами по-русски.")
	e.Send(t, 7, "/quest")
	e.WaitText(t, 7, 0, "Выберите квест:") // browsing during a game
	e.Send(t, 7, "/score")
	e.WaitText(t, 7, 0, "Груз до Боннасиса")
	e.WaitIdle(t)
}

// Ensure an HTTP action is awaited: its request carries the parameters, its status picks the
// branch, its JSON fills parameters, and a server slower than the timeout takes the error branch.
func TestHTTPAction(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body map[string]string
		json.NewDecoder(r.Body).Decode(&body)
		if body["word"] == "slow" {
			time.Sleep(time.Second)
		}
		if r.Method != http.MethodPut || body["user"] != "8" {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		json.NewEncoder(w).Encode(map[string]any{"reply": "echo <" + body["word"] + ">"})
	}))
	t.Cleanup(srv.Close)
	e := newEnv(t)
	e.Exec(t, `
		INSERT INTO param_type (name) VALUES ('WORD'), ('REPLY');
		INSERT INTO command (id, name, visible) VALUES (4000, 'ask', false);
		INSERT INTO command_param (command_id, order_num, param) VALUES (4000, 1, 'WORD');
		INSERT INTO action (id, command_id, parent_id, order_num, type, request, method, timeout_ms, result_code) VALUES
			(40001, 4000, NULL, 1, 'http', '`+srv.URL+`/hook', 'PUT', 300, NULL),
			(40002, 4000, 40001, 1, 'output', NULL, NULL, NULL, '200'),
			(40003, 4000, 40001, 2, 'output', NULL, NULL, NULL, 'error'),
			(40004, 4000, 40001, 3, 'output', NULL, NULL, NULL, NULL);
		INSERT INTO request_param (action_id, order_num, name, param) VALUES (40001, 1, 'user', 'USER'), (40001, 2, 'word', 'WORD');
		INSERT INTO response_param (action_id, name, param) VALUES (40001, 'reply', 'REPLY');
		INSERT INTO localized_string (action_id, lang, text) VALUES
			(40002, 'en', 'got {REPLY}'), (40003, 'en', 'no answer'), (40004, 'en', 'status {RESULT_CODE}');`)
	e.User(8, "Ann", "en")
	e.Send(t, 8, "/ask hello")
	e.WaitText(t, 8, 0, "got echo &lt;hello&gt;")
	e.Send(t, 8, "/ask slow")
	e.WaitText(t, 8, 0, "no answer")
	e.WaitIdle(t)
}

// Ensure a dialogue waiting for an answer survives a restart, and a procedure slower than its
// timeout takes the error branch without holding the update: the slow one would sleep an hour,
// far past the wait's limit, so its answer comes only if the timeout cut it.
func TestRestartAndProcedureTimeout(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.Exec(t, `
		CREATE FUNCTION slow_echo(p_word text) RETURNS jsonb LANGUAGE plpgsql AS $$
		BEGIN
			IF p_word = 'slow' THEN PERFORM pg_sleep(3600); END IF;
			RETURN jsonb_build_object('result_code', 'ok', 'word', upper(p_word));
		END $$;
		INSERT INTO param_type (name) VALUES ('WORD');
		INSERT INTO command (id, name, visible) VALUES (5000, 'shout', false);
		INSERT INTO action (id, command_id, parent_id, order_num, type, param, request, result_code) VALUES
			(50001, 5000, NULL, 1, 'input', 'WORD', NULL, NULL),
			(50002, 5000, NULL, 2, 'procedure', NULL, 'slow_echo', NULL),
			(50003, 5000, 50002, 1, 'output', NULL, NULL, 'ok'),
			(50004, 5000, 50002, 2, 'output', NULL, NULL, 'error');
		INSERT INTO request_param (action_id, order_num, name, param) VALUES (50002, 1, 'word', 'WORD');
		INSERT INTO response_param (action_id, name, param) VALUES (50002, 'word', 'WORD');
		INSERT INTO localized_string (action_id, lang, text) VALUES
			(50001, 'en', 'Say something:'), (50003, 'en', '{WORD}!'), (50004, 'en', 'Too slow.');`)
	e.User(9, "Ann", "en")
	e.Send(t, 9, "/shout")
	e.WaitText(t, 9, 0, "Say something:")
	e.WaitIdle(t)
	e.restart(t, scriptbot.Config{Games: e.games, ProcedureTimeout: 2 * time.Second})
	e.Send(t, 9, "hello")
	e.WaitText(t, 9, 0, "HELLO!")
	e.Send(t, 9, "/shout")
	n := len(e.BotMessages(9))
	e.WaitText(t, 9, n-1, "Say something:")
	e.Send(t, 9, "slow")
	e.WaitText(t, 9, n, "Too slow.")
	// The timeout did not outlive the call: a later command's statements run normally.
	e.Send(t, 9, "/help")
	e.WaitText(t, 9, n, "choose a quest")
}

// echoExtension takes every text starting with "echo " and every press of "x:" buttons, which
// it counts.
type echoExtension struct{ pressed atomic.Int32 }

func (*echoExtension) HandleMessage(ctx context.Context, tx bot.Tx, u *bot.Update) (bool, error) {
	text, ok := strings.CutPrefix(u.Message.Text, "echo ")
	if !ok {
		return false, nil
	}
	reqs, err := bot.SendHTML(u.Chat, "echoed "+html.EscapeString(text), bot.Keyboard{{{Text: "X", Data: "x:1"}}})
	if err != nil {
		return false, err
	}
	return true, tx.Send(ctx, reqs...)
}

func (x *echoExtension) HandleCallback(ctx context.Context, tx bot.Tx, u *bot.Update) error {
	x.pressed.Add(1)
	return tx.Send(ctx, bot.AnswerCallback(u.Chat, u.CallbackQuery.ID, "x pressed"))
}

// Ensure a built-in is called with its arguments by name and its result code picks the branch,
// a command calling a built-in the bot lacks is refused, and an extension gets the texts and
// presses the tree leaves, the others still getting the hint.
func TestBuiltinAndExtension(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	var mu sync.Mutex
	var got []map[string]string
	builtins := map[string]scriptbot.Builtin{
		"test.count": func(ctx context.Context, tx bot.Tx, u *bot.Update, args map[string]string) (*scripts.Result, error) {
			mu.Lock()
			got = append(got, args)
			mu.Unlock()
			if args["word"] == "" {
				return &scripts.Result{Code: "empty"}, nil
			}
			n, _ := json.Marshal(len(args["word"]))
			return &scripts.Result{Fields: map[string]json.RawMessage{"n": n}}, nil
		},
	}
	e.Exec(t, `
		INSERT INTO param_type (name) VALUES ('WORD'), ('N');
		INSERT INTO command (id, name, visible) VALUES (6000, 'count', false), (6001, 'missing', false);
		INSERT INTO command_param (command_id, order_num, param) VALUES (6000, 1, 'WORD');
		INSERT INTO action (id, command_id, parent_id, order_num, type, request, result_code) VALUES
			(60001, 6000, NULL, 1, 'builtin', 'test.count', NULL),
			(60002, 6000, 60001, 1, 'output', NULL, 'empty'),
			(60003, 6000, 60001, 2, 'output', NULL, NULL),
			(60004, 6001, NULL, 1, 'builtin', 'test.absent', NULL);
		INSERT INTO request_param (action_id, order_num, name, param) VALUES (60001, 1, 'word', 'WORD'), (60001, 2, 'user', 'USER');
		INSERT INTO response_param (action_id, name, param) VALUES (60001, 'n', 'N');
		INSERT INTO localized_string (action_id, lang, text) VALUES
			(60002, 'en', 'Count what?'), (60003, 'en', '{WORD} has {N} letters');`)
	x := &echoExtension{}
	e.restart(t, scriptbot.Config{Games: e.games, Builtins: builtins}, extension{"x", x.HandleCallback, x.HandleMessage})
	e.User(4, "Ann", "en")
	e.Send(t, 4, "/count hello")
	e.WaitText(t, 4, 0, "hello has 5 letters")
	e.Send(t, 4, "/count")
	e.WaitText(t, 4, 0, "Count what?")
	mu.Lock()
	if len(got) != 2 || got[0]["word"] != "hello" || got[0]["user"] != "4" {
		t.Errorf("built-in arguments %v", got)
	}
	mu.Unlock()
	e.Send(t, 4, "/missing")
	e.WaitText(t, 4, 0, "this command is unavailable")
	if !strings.Contains(e.Logs.String(), `built-in \"test.absent\" is not implemented`) {
		t.Errorf("the refusal is not logged:\n%s", e.Logs.String())
	}
	e.Send(t, 4, "echo <b>")
	m := e.WaitText(t, 4, 0, "echoed &lt;b&gt;")
	if _, err := e.Bot.Press(4, m.ID, "x:1"); err != nil {
		t.Fatal(err)
	}
	e.WaitIdle(t)
	if x.pressed.Load() != 1 {
		t.Errorf("the extension got %d presses, want 1", x.pressed.Load())
	}
	e.Send(t, 4, "something else")
	e.WaitText(t, 4, 0, "Send /quest to choose a quest")
	e.WaitIdle(t)
}
