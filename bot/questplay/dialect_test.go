package questplay_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/questbot/questbot/bot/emulator/tgemu"
	"github.com/questbot/questbot/bot/testkit/bottest"
	"github.com/questbot/questbot/bot/texts"
	"github.com/questbot/questbot/qmm"
	"github.com/questbot/questbot/quest"
	"github.com/questbot/questbot/quest/questlog"
	"github.com/questbot/questbot/quest/questpg"
	"github.com/questbot/questbot/quest/questtrace"
)

// dagazOptions are the rules the dagazbot dialect plays by (the bot also shows more, which the
// tests' searches do not need).
var dagazOptions = quest.Options{TopPriority: true, DescribedText: true}

// addDagaz registers a quest of the original bot's corpus in the dagazbot dialect, with a win
// bonus, and returns its script id and the compiled quest.
func (e *env) addDagaz(t *testing.T, file string, bonus int) (int64, *quest.Quest) {
	t.Helper()
	path := filepath.Join(sharedDir(t), "quests", "dagazbot", file)
	common := strings.TrimSuffix(file, filepath.Ext(file))
	id := e.addScript(t, common, common, path, "ru", bonus, 0)
	e.Exec(t, `UPDATE script SET dialect = 'dagazbot' WHERE id = $1`, id)
	return id, loadQuest(t, path)
}

// launch starts quest id for a user and waits for the game.
func (e *env) launch(t *testing.T, user int64, id int64) {
	t.Helper()
	e.Send(t, user, fmt.Sprintf("/play %d", id))
	e.WaitFor(t, "the game", func() bool { _, ok := e.game(t, user); return ok })
}

// playTo plays the game on to a state goal accepts, as a player pressing buttons: it finds a way
// there by random walks from the game's state under the dagazbot rules, and presses its actions
// one by one, skipping those the bot took by itself (the "Next"s of the dagazbot dialect). It
// returns the game there.
func (e *env) playTo(t *testing.T, user int64, q *quest.Quest, what string, goal func(quest.State, quest.View) bool) gameRow {
	t.Helper()
	rng := rand.New(rand.NewPCG(uint64(user), 5))
	for tries := 0; tries < 20; tries++ {
		g, ok := e.game(t, user)
		if !ok {
			t.Fatalf("the game ended before %s", what)
		}
		path, states := randomWay(t, q, g.state, goal, rng)
		if path == nil {
			t.Fatalf("no way to %s from location %d", what, g.state.LocationID)
		}
		if len(path) == 0 {
			return g
		}
		for i := 0; i < len(path); {
			e.press(t, user, g, path[i])
			if g, ok = e.game(t, user); !ok {
				break
			}
			// The state reached is the way's after this action, or a later one when the bot
			// took the following "Next"s by itself.
			at := slices.IndexFunc(states[i:], func(s quest.State) bool { return statesEqual(s, g.state) })
			if at < 0 {
				break // off the way: look for another from here
			}
			if i += at + 1; i == len(path) {
				return g
			}
		}
	}
	t.Fatalf("could not follow a way to %s", what)
	return gameRow{}
}

// randomWay finds a way from s to a state goal accepts by random walks under the dagazbot rules:
// the actions and the state after each; an empty way when s is there already, nil when no walk
// of many got there.
func randomWay(t *testing.T, q *quest.Quest, s quest.State, goal func(quest.State, quest.View) bool, rng *rand.Rand) ([]int, []quest.State) {
	t.Helper()
	p := quest.DefaultPlayer(quest.Russian, testNow)
	for walk := 0; walk < 5000; walk++ {
		path, states := []int{}, []quest.State{}
		cur := s
		for step := 0; step < 80; step++ {
			v, err := q.ViewWith(cur, p, dagazOptions)
			if err != nil {
				t.Fatal(err)
			}
			if goal(cur, v) {
				return path, states
			}
			var active []int
			for _, c := range v.Choices {
				if c.Active {
					active = append(active, c.JumpID)
				}
			}
			if len(active) == 0 || v.Status.Over() {
				break
			}
			a := active[rng.IntN(len(active))]
			if cur, err = q.PerformWith(cur, a, dagazOptions); err != nil {
				t.Fatal(err)
			}
			path, states = append(path, a), append(states, cur)
		}
	}
	return nil, nil
}

// screen returns the bot's newest message with buttons, once the bot has answered everything.
func (e *env) screen(t *testing.T, user int64) tgemu.Message {
	t.Helper()
	e.WaitIdle(t)
	msgs := e.BotMessages(user)
	for i := len(msgs) - 1; i >= 0; i-- {
		if len(msgs[i].Keyboard) > 0 {
			return msgs[i]
		}
	}
	t.Fatalf("no screen with buttons in chat %d", user)
	return tgemu.Message{}
}

// labels are a keyboard's button labels, row by row.
func labels(m tgemu.Message) [][]string {
	var out [][]string
	for _, row := range m.Keyboard {
		var r []string
		for _, b := range row {
			r = append(r, b.Text)
		}
		out = append(out, r)
	}
	return out
}

// pressLabel presses the button labelled label of a screen and waits for the game's next step.
func (e *env) pressLabel(t *testing.T, user int64, m tgemu.Message, label string) {
	t.Helper()
	g, _ := e.game(t, user)
	e.Press(t, user, m, label)
	e.WaitFor(t, "the step after "+label, func() bool {
		n, ok := e.game(t, user)
		return !ok || n.step != g.step
	})
	// The screen left loses its buttons (or goes) before the player presses again (see press).
	e.WaitFor(t, "the screen left updated", func() bool {
		for _, msg := range e.Bot.Messages(user) {
			if msg.ID == m.ID {
				return len(msg.Keyboard) == 0
			}
		}
		return true
	})
}

// testNow is the clock of the views the tests look at; the way a game goes does not depend on it.
var testNow = time.Date(2024, 1, 1, 12, 0, 0, 0, time.UTC)

// Ensure lightoff's keypad, played as a new user would, stays in place from screen to screen in
// the dagazbot dialect: five keys a row, A to E from the top row (5) down, the same after a key
// is pressed; the task shows the win bonus for <Money>, the quest having no money parameter; and
// the keypad left behind stays in the chat.
func TestDagazKeypadStaysInPlace(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.start(t)
	e.User(21, "Ann", "ru")
	id, q := e.addDagaz(t, "lightoff.qmm", 700)
	e.launch(t, 21, id)
	task := e.screen(t, 21)
	if !strings.Contains(task.Text, "700") {
		t.Errorf("the task does not show the win bonus for <Money>:\n%s", task.Text)
	}
	e.playTo(t, 21, q, "the keypad", func(s quest.State, _ quest.View) bool {
		return s.Phase == quest.PhaseLocation && s.LocationID == 7
	})
	first := e.screen(t, 21)
	var want [][]string
	for _, row := range "54321" {
		var r []string
		for _, col := range "ABCDE" {
			r = append(r, string(col)+string(row))
		}
		want = append(want, r)
	}
	if got := labels(first); !slices.EqualFunc(got, want, slices.Equal) {
		t.Fatalf("the keypad is %v, want %v", got, want)
	}
	e.pressLabel(t, 21, first, "C3")
	second := e.screen(t, 21)
	if second.ID == first.ID {
		t.Fatal("no new keypad after a key")
	}
	if got := labels(second); !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("after C3 the keypad is %v, want it in place: %v", got, want)
	}
	for _, m := range e.BotMessages(21) {
		if m.ID == first.ID && len(m.Keyboard) != 0 {
			t.Errorf("the keypad left kept its keys")
		}
	}
	if slices.Contains(e.Bot.Deleted(21), first.ID) {
		t.Error("the keypad left was deleted")
	}

	checkLog(t, e.Env, e.service, 21, q, "dagazbot")

	// Solve the puzzle and win: the success text too shows the bonus for <Money>.
	g, _ := e.game(t, 21)
	for _, key := range solveLights(t, q, g.state) {
		e.pressLabel(t, 21, e.screen(t, 21), key)
	}
	e.pressLabel(t, 21, e.screen(t, 21), "Все переключатели отключены")
	e.pressLabel(t, 21, e.screen(t, 21), "Вернуться на корабль")
	won := e.WaitTextAfter(t, 21, second.ID, "Подозрительный иностранец полностью изобличён")
	if !strings.Contains(won.Text, "700") {
		t.Errorf("the success text does not show the win bonus for <Money>:\n%s", won.Text)
	}
	if n := e.QueryInt(t, `SELECT wins FROM user_stats WHERE user_id = 21`); n != 1 {
		t.Errorf("%d wins counted, want 1", n)
	}
}

// solveLights returns the keys that switch every light of lightoff's keypad off from state s:
// each key toggles a fixed set of the lights (parameters p2 to p6, five bits each), found by
// pressing it in a copy of the game, so the keys to press solve a linear system over GF(2).
func solveLights(t *testing.T, q *quest.Quest, s quest.State) []string {
	t.Helper()
	lights := func(s quest.State) uint32 {
		var v uint32
		for i := 1; i <= 5; i++ {
			v |= uint32(s.Params[i]) << (5 * (i - 1))
		}
		return v
	}
	// Gaussian elimination: pivots[b] has b as its highest bit; keys are the keys it combines.
	type vec struct{ bits, keys uint32 }
	var pivots [25]vec
	reduce := func(v vec, add bool) vec {
		for b := 24; b >= 0 && v.bits != 0; b-- {
			if v.bits&(1<<b) == 0 {
				continue
			}
			if pivots[b].bits == 0 {
				if add {
					pivots[b] = v
				}
				return v
			}
			v.bits, v.keys = v.bits^pivots[b].bits, v.keys^pivots[b].keys
		}
		return v
	}
	var names []string
	for k := range 25 {
		names = append(names, string(rune('A'+k%5))+strconv.Itoa(5-k/5))
		next, err := q.PerformWith(s, 35+k, dagazOptions) // jumps 35 (A5) to 59 (E1)
		if err != nil {
			t.Fatalf("key %s: %v", names[k], err)
		}
		reduce(vec{bits: lights(s) ^ lights(next), keys: 1 << k}, true)
	}
	left := reduce(vec{bits: lights(s)}, false)
	if left.bits != 0 {
		t.Fatalf("the lights %025b cannot be switched off", lights(s))
	}
	keys := left.keys
	var out []string
	for k := range 25 {
		if keys&(1<<k) != 0 {
			out = append(out, names[k])
		}
	}
	return out
}

// Ensure perudo's grid, played as a new user would, stays in place in the dagazbot dialect (five
// cells a row in showing order, A to E), comes back the same after a cell is chosen, and that its
// width sticks to no other screen; and that the showdown after "Вскрыться" is shown: the
// description, then the dice of both players, which are the text of an empty location.
func TestDagazGridAndShowdown(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.start(t)
	e.User(22, "Bob", "ru")
	id, q := e.addDagaz(t, "perudo.qmm", 0)
	e.launch(t, 22, id)
	e.playTo(t, 22, q, "the grid", func(s quest.State, _ quest.View) bool {
		return s.Phase == quest.PhaseLocation && s.LocationID == 27
	})
	first := e.screen(t, 22)
	want := [][]string{{"A4", "B4", "C4", "D4", "E4"}, {"A3", "B3", "C3", "D3", "E3"},
		{"A2", "B2", "C2", "D2", "E2"}, {"A1", "B1", "C1", "D1", "E1"}}
	got := labels(first)
	if len(got) < len(want) || !slices.EqualFunc(got[:len(want)], want, slices.Equal) {
		t.Fatalf("the grid is %v, want it to begin with %v", got, want)
	}
	e.pressLabel(t, 22, first, "B3")
	e.playTo(t, 22, q, "the grid again", func(s quest.State, _ quest.View) bool {
		return s.Phase == quest.PhaseLocation && s.LocationID == 27
	})
	second := e.screen(t, 22)
	if second.ID == first.ID || !slices.EqualFunc(labels(second), got, slices.Equal) {
		t.Errorf("the grid moved: %v, then %v", got, labels(second))
	}

	before := e.LastID(22)
	g := e.playTo(t, 22, q, "a challenge", func(s quest.State, v quest.View) bool {
		return slices.ContainsFunc(v.Choices, func(c quest.Choice) bool { return c.JumpID == 160 && c.Active })
	})
	e.press(t, 22, g, 160)
	show := e.WaitTextAfter(t, 22, before, "Не верю! Вскрываемся")
	if !strings.Contains(show.Text, "Ты:") {
		t.Errorf("the showdown does not show the dice:\n%s", show.Text)
	}
	for _, m := range e.BotMessages(22) {
		if len(m.Keyboard) > 0 && !strings.Contains(m.Text, "Выбери ячейку") {
			for _, row := range m.Keyboard {
				if len(row) != 1 {
					t.Fatalf("a screen away from the grid has %d buttons a row:\n%s", len(row), m.Text)
				}
			}
		}
	}
}

// nextActions are the actions a screen of a quest file offers that the dagazbot dialect takes by itself:
// the pseudo "Next" and the jumps without text or with "...".
func nextActions(t *testing.T, file string) map[int]bool {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	d, err := qmm.DecodeBytes(data)
	if err != nil {
		t.Fatal(err)
	}
	out := map[int]bool{quest.JumpNext: true}
	for _, j := range d.Jumps {
		if s := strings.TrimSpace(j.Text); s == "" || s == "..." || s == "…" {
			out[int(j.ID)] = true
		}
	}
	return out
}

// Ensure quests written for the original bot play to their ends in the dagazbot dialect as a
// player would: some presses at random, then a shortest way to an ending, every press answered,
// the ending counted, nothing broken, and no screen that offers only a "Next" waiting for a press.
func TestDagazPlaysCorpus(t *testing.T) {
	t.Parallel()
	for i, file := range []string{"hanoi.qmm", "mancala.qmm", "perudo.qmm", "knash.qmm"} {
		t.Run(file, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			e.start(t)
			user := int64(30 + i)
			e.User(user, "Cid", "ru")
			id, q := e.addDagaz(t, file, 500)
			nexts := nextActions(t, filepath.Join(sharedDir(t), "quests", "dagazbot", file))
			e.launch(t, user, id)
			rng := rand.New(rand.NewPCG(uint64(i), 3))
			presses := 0
			for ; presses < 25; presses++ {
				g, ok := e.game(t, user)
				if !ok {
					break
				}
				v, err := q.ViewWith(g.state, quest.DefaultPlayer(quest.Russian, testNow), dagazOptions)
				if err != nil {
					t.Fatal(err)
				}
				var active []int
				for _, c := range v.Choices {
					if c.Active {
						active = append(active, c.JumpID)
					}
				}
				if len(active) == 0 {
					break
				}
				e.press(t, user, g, active[rng.IntN(len(active))])
			}
			if _, ok := e.game(t, user); ok {
				checkLog(t, e.Env, e.service, user, q, "dagazbot")
			}
			for {
				g, ok := e.game(t, user)
				if !ok {
					break
				}
				path, found := questtrace.ShortestWith(q, g.state, 200000, quest.Status.Over, dagazOptions)
				if !found || len(path) == 0 {
					t.Fatalf("no way to an ending from %+v", g.state)
				}
				e.press(t, user, g, path[0])
				if presses++; presses > 300 {
					t.Fatal("no ending after 300 presses")
				}
			}
			e.WaitIdle(t)
			if n := e.QueryInt(t, `SELECT wins + failures + deaths FROM user_stats WHERE user_id = $1`, user); n != 1 {
				t.Errorf("%d endings counted, want 1", n)
			}
			broken := texts.For("ru").Quest.BrokenNow
			for _, m := range e.BotMessages(user) {
				if strings.Contains(m.Text, broken) {
					t.Errorf("the quest broke:\n%s", m.Text)
				}
				if len(m.Keyboard) == 1 && len(m.Keyboard[0]) == 1 {
					parts := strings.Split(m.Keyboard[0][0].Data, ":")
					if a, err := strconv.Atoi(parts[len(parts)-1]); err == nil && nexts[a] {
						t.Errorf("a screen waited for a press of its only choice, a Next:\n%s", m.Text)
					}
				}
			}
		})
	}
}

// Ensure the dagazbot dialect's spock shows its picture on the rules screen only, not again on
// the next screen (the reference keeps the last image named).
func TestDagazPictureOnlyWhereNamed(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	s.start(t)
	script := s.spock(t)
	s.Exec(t, `UPDATE script SET dialect = 'dagazbot' WHERE id = $1`, script)
	s.User(41, "Dee", "ru")
	before := s.LastID(41)
	s.Send(t, 41, fmt.Sprintf("/start %d", script))
	s.await(t, 41, before, "<b>Спок</b>")
	s.press(t, 41, spockAgree, "клуб гаальских интеллектуалов")
	rules := s.press(t, 41, "Напомните мне правила", "Правила простые")
	s.press(t, 41, "Начнём игру", spockWaitP)
	s.WaitIdle(t)
	var photos []int
	rulesAt := 0
	for _, m := range s.BotMessages(41) {
		if m.Photo != "" {
			photos = append(photos, m.ID)
		}
		if strings.Contains(m.Text, "Правила простые") {
			rulesAt = m.ID
		}
	}
	if len(photos) != 1 || photos[0] < rules || photos[0] > rulesAt {
		t.Errorf("photos %v, want one, before the rules (%d)", photos, rulesAt)
	}
}

// checkLog replays the log of a user's running game and requires the very state the game has.
func checkLog(t *testing.T, be *bottest.Env, service int, user int64, q *quest.Quest, dialect string) {
	t.Helper()
	var moves []questlog.Move
	err := pgx.BeginFunc(context.Background(), be.Pool, func(tx pgx.Tx) error {
		var err error
		var complete bool
		moves, complete, err = questpg.New().Log(context.Background(), tx, service, user)
		if err == nil && !complete {
			err = fmt.Errorf("no log")
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	g := be.Game(t, service, user)
	if g == nil {
		t.Fatal("no game")
	}
	l := &questlog.Log{Header: questlog.Header{Seed: g.State.Seed, Dialect: dialect}, Moves: moves}
	s, err := questlog.Replay(q, l, quest.Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !statesEqual(s, g.State) {
		t.Errorf("the game's log of %d moves does not replay to its state", len(moves))
	}
}
