package questplay

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/questbot/questbot/bot"
	"github.com/questbot/questbot/bot/testkit/bottest"
	"github.com/questbot/questbot/bot/texts"
	"github.com/questbot/questbot/migrations/pgtest"
	"github.com/questbot/questbot/quest"
	"github.com/questbot/questbot/quest/questfs"
	"github.com/questbot/questbot/quest/questtrace"
)

// directTx is a bot.Tx over a plain transaction that keeps the requests instead of sending them.
type directTx struct {
	tx   pgx.Tx
	reqs []bot.Request
	// final are the writes queued for the COMMIT (AtCommit), run just before it.
	final []func(context.Context) error
}

// countingTx counts the round trips to the database: each statement and each batch is one.
type countingTx struct {
	pgx.Tx
	n *int
}

func (c countingTx) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	*c.n++
	return c.Tx.Exec(ctx, sql, args...)
}

func (c countingTx) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	*c.n++
	return c.Tx.Query(ctx, sql, args...)
}

func (c countingTx) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	*c.n++
	return c.Tx.QueryRow(ctx, sql, args...)
}

func (c countingTx) SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults {
	*c.n++
	return c.Tx.SendBatch(ctx, b)
}

func (c countingTx) Begin(ctx context.Context) (pgx.Tx, error) {
	*c.n++
	return c.Tx.Begin(ctx)
}

func (d *directTx) DB() pgx.Tx { return d.tx }

// AfterCommit is never called back: the quest player queues no work for after the commit.
func (d *directTx) AfterCommit(func()) {}
func (d *directTx) AtCommit(sql string, args ...any) {
	d.final = append(d.final, func(ctx context.Context) error { _, err := d.tx.Exec(ctx, sql, args...); return err })
}
func (d *directTx) Send(_ context.Context, reqs ...bot.Request) error {
	d.reqs = append(d.reqs, reqs...)
	return nil
}

// direct drives Games without a transport: each call runs in a transaction of its own.
type direct struct {
	t       *testing.T
	pool    *pgxpool.Pool
	g       *Games
	service int
	user    int64
	trips   int // round trips of the last call
	// rollback makes run roll its transaction back, as the transport does when a batch fails
	// after the handler returned.
	rollback bool
}

func newDirect(t *testing.T) *direct {
	pool := pgtest.New(t)
	d := &direct{t: t, pool: pool, g: New(Config{Files: questfs.New(uploadsDir, 0), Now: func() time.Time { return fixedNow }}),
		user: 42}
	ctx := context.Background()
	if err := pool.QueryRow(ctx, `INSERT INTO service (username) VALUES ('b') RETURNING id`).Scan(&d.service); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `INSERT INTO users (id, chat_id, first_name) VALUES (42, 42, 'Ann')`); err != nil {
		t.Fatal(err)
	}
	return d
}

// run calls fn in a committed transaction and returns the requests it sent.
func (d *direct) run(fn func(ctx context.Context, tx bot.Tx, u *bot.Update) error, cb string) []bot.Request {
	d.t.Helper()
	ctx := context.Background()
	tx, err := d.pool.Begin(ctx)
	if err != nil {
		d.t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	d.trips = 0
	dt := &directTx{tx: countingTx{Tx: tx, n: &d.trips}}
	u := &bot.Update{Service: d.service, Chat: d.user, User: &bot.User{ID: d.user, ChatID: d.user, FirstName: "Ann", Language: "en"}}
	if cb != "" {
		u.CallbackQuery = &tgbotapi.CallbackQuery{ID: "cb", Data: cb, Message: &tgbotapi.Message{MessageID: 1}}
	}
	if err := fn(ctx, dt, u); err != nil {
		d.t.Fatal(err)
	}
	if d.rollback {
		return dt.reqs // the deferred Rollback undoes it
	}
	for _, w := range dt.final {
		if err := w(ctx); err != nil {
			d.t.Fatal(err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		d.t.Fatal(err)
	}
	return dt.reqs
}

func (d *direct) launch(id int64) {
	d.run(func(ctx context.Context, tx bot.Tx, u *bot.Update) error { return d.g.Launch(ctx, tx, u, id) }, "")
}

func (d *direct) press(data string) []bot.Request {
	return d.run(d.g.HandleCallback, data)
}

// gameRow is a user's game as stored.
type gameRow struct {
	id, script int64
	step       int
	state      quest.State
}

// game reads the user's running game through the store.
func (d *direct) game() (gameRow, bool) {
	e := &bottest.Env{Pool: d.pool}
	g := e.Game(d.t, d.service, d.user)
	if g == nil {
		return gameRow{}, false
	}
	return gameRow{id: g.ID, script: g.Script.ID, step: g.Step, state: g.State}, true
}

func statesEqual(a, b quest.State) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// dataOf is the callback data of action on the game's current screen.
func dataOf(g gameRow, action int) string { return buttonData(g.id, g.step, action) }

type stats struct {
	credits                          int64
	launches, wins, failures, deaths int
}

func (d *direct) stats() stats {
	var s stats
	err := d.pool.QueryRow(context.Background(), `SELECT credits, launches, wins, failures, deaths FROM user_stats
		WHERE user_id = $1`, d.user).Scan(&s.credits, &s.launches, &s.wins, &s.failures, &s.deaths)
	if err != nil {
		d.t.Fatal(err)
	}
	return s
}

func (d *direct) scriptID(lang string) int64 {
	var id int64
	if err := d.pool.QueryRow(context.Background(), `SELECT id FROM script WHERE common_name = 'cargo-run' AND language = $1`, lang).Scan(&id); err != nil {
		d.t.Fatal(err)
	}
	return id
}

// playTo plays the running game along a shortest way to an ending that want accepts and returns
// the money parameter's value just before the ending step, and at the end.
func (d *direct) playTo(want func(quest.Status) bool) (final int64, last []bot.Request) {
	d.t.Helper()
	c, err := d.g.open("cargo-run_en.qmm")
	if err != nil {
		d.t.Fatal(err)
	}
	g, _ := d.game()
	path, ok := questtrace.Shortest(c.Quest.Quest, g.state, 100000, want)
	if !ok {
		d.t.Fatal("no such ending from this start")
	}
	s := g.state
	for _, a := range path {
		g, _ := d.game()
		last = d.press(dataOf(g, a))
		if s, err = c.Quest.Perform(s, a); err != nil {
			d.t.Fatal(err)
		}
	}
	if _, ok := d.game(); ok {
		d.t.Fatal("the game did not end")
	}
	return money(&s, c.money), last
}

func answer(reqs []bot.Request) string {
	for _, r := range reqs {
		if r.Method == "answerCallbackQuery" {
			return r.Params["text"]
		}
	}
	return "(none)"
}

// Ensure the stake rule, the win bonus, the death penalty and the settlement of an abandoned
// game, and that /retry after an ending pays nothing again.
func TestMoney(t *testing.T) {
	t.Parallel()
	d := newDirect(t)
	en := d.scriptID("en")
	// A start from which both a win and a death can be reached.
	c, err := d.g.open("cargo-run_en.qmm")
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; ; i++ {
		seed := fmt.Sprint("seed", i)
		s, err := c.Quest.Start(seed)
		if err != nil {
			t.Fatal(err)
		}
		_, win := questtrace.Shortest(c.Quest.Quest, s, 100000, func(s quest.Status) bool { return s == quest.Win })
		_, dead := questtrace.Shortest(c.Quest.Quest, s, 100000, func(s quest.Status) bool { return s == quest.Dead })
		if win && dead {
			d.g.seed = func() string { return seed }
			break
		}
		if i == 100 {
			t.Fatal("no start allows both a win and a death")
		}
	}
	d.launch(en)
	if s := d.stats(); s.credits != 8000 || s.launches != 1 {
		t.Fatalf("after launch: %+v, want 2000 of 10000 credits at stake", s)
	}
	final, last := d.playTo(func(s quest.Status) bool { return s == quest.Win })
	if !sent(last, "Well done, <b>Ann</b>!") {
		t.Errorf("the win's last step sent %v, want the congratulation", last)
	}
	if s := d.stats(); s.credits != 8000+final+500 || s.wins != 1 {
		t.Errorf("after a win with %d: %+v, want credits %d", final, s, 8000+final+500)
	}
	before := d.stats()
	reqs := d.run(d.g.Retry, "")
	if len(reqs) != 1 || d.stats() != before {
		t.Errorf("/retry after the end: %v, stats %+v → %+v", reqs, before, d.stats())
	}

	d.launch(en)
	staked := d.stats().credits
	final, last = d.playTo(func(s quest.Status) bool { return s == quest.Dead })
	if !sent(last, "The engines cough and die.") {
		t.Errorf("the death's last step sent %v, want the critical message", last)
	}
	if s := d.stats(); s.credits != staked+final-1000 || s.deaths != 1 {
		t.Errorf("after a death with %d: %+v, want credits %d", final, s, staked+final-1000)
	}

	// Buying a unit of fuel and giving up costs the 100 credits spent, nothing else.
	before = d.stats()
	d.launch(en)
	g, _ := d.game()
	d.press(dataOf(g, quest.JumpIAgree))
	g, _ = d.game()
	d.press(dataOf(g, 1))
	d.run(d.g.Cancel, "")
	if _, ok := d.game(); ok {
		t.Error("cancel left the game")
	}
	if s := d.stats(); s.credits != before.credits-100 || s.launches != before.launches+1 {
		t.Errorf("after a cancel: %+v, want credits %d", s, before.credits-100)
	}
}

// Ensure a forged or stale button is answered "no longer available" and changes nothing.
func TestForgedButtons(t *testing.T) {
	t.Parallel()
	d := newDirect(t)
	d.launch(d.scriptID("en"))
	g, _ := d.game()
	for _, data := range []string{
		dataOf(g, 999), // not a choice
		dataOf(g, 2),   // a jump of another screen
		fmt.Sprintf("q:%s:%d:%d", "zz", g.step, quest.JumpIAgree), // another game
		fmt.Sprintf("q:%d:%d:%d", g.id, g.step+1, quest.JumpIAgree),
		"q:not-a-button",
		"q:" + string(make([]byte, 60)),
	} {
		reqs := d.press(data)
		if got := answer(reqs); got != texts.For("en").Quest.Stale || len(reqs) != 1 {
			t.Errorf("%q: answer %q, %d requests", data, got, len(reqs))
		}
		if n, _ := d.game(); n.step != g.step || !statesEqual(n.state, g.state) {
			t.Errorf("%q changed the game", data)
		}
	}
	// The real button works once.
	d.press(dataOf(g, quest.JumpIAgree))
	if reqs := d.press(dataOf(g, quest.JumpIAgree)); answer(reqs) != texts.For("en").Quest.Stale {
		t.Errorf("a second press of the same button: %q", answer(reqs))
	}
}

// Ensure a step costs one statement when the game is remembered, two after a restart, and that
// a step made by another process (or rolled back) is noticed through the nonce.
func TestRoundTrips(t *testing.T) {
	t.Parallel()
	d := newDirect(t)
	d.launch(d.scriptID("en"))
	g, _ := d.game()
	d.press(dataOf(g, quest.JumpIAgree))
	if d.trips != 1 {
		t.Errorf("a remembered step: %d round trips, want 1", d.trips)
	}
	// A restart: a new Games remembers nothing.
	d.g = New(Config{Files: questfs.New(uploadsDir, 0)})
	g, _ = d.game()
	d.press(dataOf(g, 1)) // buy fuel
	if d.trips != 2 {
		t.Errorf("a step after a restart: %d round trips, want 2", d.trips)
	}
	g, _ = d.game()
	d.press(dataOf(g, 1))
	if d.trips != 1 {
		t.Errorf("the next step: %d round trips, want 1", d.trips)
	}
	// Another process takes the next step: this one's memory is behind, which the nonce shows.
	other := New(Config{Files: questfs.New(uploadsDir, 0)})
	mine := d.g
	g, _ = d.game()
	d.g = other
	d.press(dataOf(g, 2)) // undock
	d.g = mine
	after, _ := d.game()
	reqs := d.press(dataOf(g, 2))
	if answer(reqs) != texts.For("en").Quest.Stale {
		t.Errorf("the press already taken elsewhere: %q", answer(reqs))
	}
	if n, _ := d.game(); n.step != after.step || !statesEqual(n.state, after.state) {
		t.Error("the stale press changed the game")
	}
	d.press(dataOf(after, 3)) // fly through the belt, from the state the other process left
	if n, _ := d.game(); n.step != after.step+1 {
		t.Errorf("step %d, want %d", n.step, after.step+1)
	}

	// A step rolled back after the handler ran leaves the memory ahead of the row: the same
	// button is then taken from the row.
	g, _ = d.game()
	c, err := d.g.open("cargo-run_en.qmm")
	if err != nil {
		t.Fatal(err)
	}
	choices, err := c.Quest.Choices(g.state)
	if err != nil || len(choices) == 0 {
		t.Fatal(choices, err)
	}
	d.rollback = true
	d.press(dataOf(g, choices[0].JumpID))
	d.rollback = false
	if n, _ := d.game(); n.step != g.step {
		t.Fatal("the rolled back step stayed")
	}
	if reqs := d.press(dataOf(g, choices[0].JumpID)); answer(reqs) != "" {
		t.Errorf("the press after a rollback: %q", answer(reqs))
	}
	if n, ok := d.game(); ok && n.step != g.step+1 {
		t.Errorf("step %d after the press, want %d", n.step, g.step+1)
	}
}

// sent reports whether one of the messages sent contains text.
func sent(reqs []bot.Request, text string) bool {
	for _, r := range reqs {
		if r.Method == "sendMessage" && strings.Contains(r.Params["text"], text) {
			return true
		}
	}
	return false
}

// Ensure runningScript and Cancel, and that a launch of an unknown script or of a file that is not a
// quest apologises and changes nothing.
func TestRunningCancelAndBadLaunch(t *testing.T) {
	t.Parallel()
	d := newDirect(t)
	running := func() (int64, bool) {
		var id int64
		var ok bool
		d.run(func(ctx context.Context, tx bot.Tx, u *bot.Update) (err error) {
			id, ok, err = d.g.runningScript(ctx, tx, u)
			return err
		}, "")
		return id, ok
	}
	if _, ok := running(); ok {
		t.Error("a game before any launch")
	}
	en := d.scriptID("en")
	d.launch(en)
	if id, ok := running(); !ok || id != en {
		t.Errorf("running %d %v, want %d", id, ok, en)
	}
	d.run(d.g.Cancel, "")
	if _, ok := running(); ok {
		t.Error("a game after cancel")
	}
	if s := d.stats(); s.credits != 10000 {
		t.Errorf("credits %d after an untouched game was cancelled, want 10000", s.credits)
	}
	d.run(d.g.Cancel, "") // nothing to cancel

	bad := filepath.Join(t.TempDir(), "bad.qmm")
	if err := os.WriteFile(bad, []byte("not a quest"), 0o644); err != nil {
		t.Fatal(err)
	}
	var badID int64
	if err := d.pool.QueryRow(context.Background(), `INSERT INTO script (name, common_name, file, language)
		VALUES ('bad', 'bad', $1, 'ru') RETURNING id`, bad).Scan(&badID); err != nil {
		t.Fatal(err)
	}
	for _, id := range []int64{badID, 999999} {
		reqs := d.run(func(ctx context.Context, tx bot.Tx, u *bot.Update) error { return d.g.Launch(ctx, tx, u, id) }, "")
		if len(reqs) != 1 || !strings.Contains(reqs[0].Params["text"], "квест") && !strings.Contains(reqs[0].Params["text"], "quest") {
			t.Errorf("launch of %d: %v", id, reqs)
		}
		if _, ok := running(); ok {
			t.Errorf("launch of %d started a game", id)
		}
	}
}
