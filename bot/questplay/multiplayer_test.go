package questplay_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/questbot/questbot/bot"
	"github.com/questbot/questbot/bot/app"
	"github.com/questbot/questbot/bot/emulator/tgemu"
	"github.com/questbot/questbot/bot/testkit/bottest"
	"github.com/questbot/questbot/bot/testkit/wait"
	"github.com/questbot/questbot/quest/questtrace/corpus"
	"github.com/questbot/questbot/sessions"
	"github.com/questbot/questbot/sessions/sessionpg"
)

const mpToken = "5550001:multiplayer-test-token"

// testClock is the clock of the sessions' deadlines: the real time plus an offset the test
// moves forward.
type testClock struct{ offset atomic.Int64 }

func (c *testClock) now() time.Time          { return time.Now().Add(time.Duration(c.offset.Load())) }
func (c *testClock) advance(d time.Duration) { c.offset.Add(int64(d)) }

// stack is the bot as serve wires it (the command tree, the quest player, the sessions and their
// timer job) on the Bot API emulator, over HTTP, with a clock the test moves.
type stack struct {
	*bottest.Env
	clock   *testClock
	service int
}

func newStack(t *testing.T) *stack {
	t.Helper()
	return &stack{Env: bottest.New(t, bottest.Options{Token: mpToken, Username: "mp_bot"}), clock: &testClock{}}
}

// start runs the bot until the returned stop is called (or the test ends). Each start is a new
// process as far as the bot knows: nothing is shared with the previous one but the database.
func (s *stack) start(t *testing.T) (stop func()) {
	t.Helper()
	log := slog.New(slog.DiscardHandler)
	b := app.New(app.Config{UploadsDir: uploads(t), Log: log, Now: s.clock.now})
	p := s.Start(t, bot.Config{Handler: b.Handle, Log: log, Limits: &bot.NoLimits, Rescan: 20 * time.Millisecond},
		bottest.Every(20*time.Millisecond, func(ctx context.Context, tr *bot.Transport) error { return b.Games.SettleSessions(ctx, tr) }))
	s.service = p.Service
	return p.Stop
}

// sessions returns the bot's quest sessions as the store has them.
func (s *stack) sessions(t *testing.T) []*sessions.QuestSession {
	t.Helper()
	list, err := sessionpg.QuestSessionsOf(context.Background(), s.Pool, s.service)
	if err != nil {
		t.Fatal(err)
	}
	return list
}

// countSessions counts the bot's sessions of a status with n players (any number when n < 0).
func (s *stack) countSessions(t *testing.T, status sessions.QuestStatus, n int) int {
	t.Helper()
	c := 0
	for _, q := range s.sessions(t) {
		if q.Status == status && (n < 0 || len(q.Players) == n) {
			c++
		}
	}
	return c
}

func uploads(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "..", "uploads"))
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// spock registers the reference's multiplayer quest, bound to the two-player type of the
// migrations, and returns its script id.
func (s *stack) spock(t *testing.T) int64 {
	t.Helper()
	file := corpus.Path(t, "quests", "dagazbot", "spock.qmm")
	if _, err := os.Stat(file); err != nil {
		t.Fatal(err)
	}
	pair, err := sessionpg.TypeID(context.Background(), s.Pool, "pair")
	if err != nil || pair == 0 {
		t.Fatalf("no session type pair (%v)", err)
	}
	var id int64
	err = s.Pool.QueryRow(context.Background(), `
		INSERT INTO script (name, common_name, file, language, listed, session_type_id)
		VALUES ('Спок', 'spock', $1, 'ru', false, $2) RETURNING id`, file, pair).Scan(&id)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// last returns the newest bot message of a chat whose text contains want, and whether there is
// one after message id after.
func (s *stack) last(user int64, after int, want string) (tgemu.Message, bool) {
	msgs := s.Bot.Messages(user)
	for i := len(msgs) - 1; i >= 0 && msgs[i].ID > after; i-- {
		if msgs[i].FromBot && strings.Contains(msgs[i].Text, want) {
			return msgs[i], true
		}
	}
	return tgemu.Message{}, false
}

// await waits for a bot message after message id after whose text contains want.
func (s *stack) await(t *testing.T, user int64, after int, want string) tgemu.Message {
	t.Helper()
	var m tgemu.Message
	wait.ForShowing(t, wait.Hang, fmt.Sprintf("user %d: a message with %q after %d", user, want, after),
		func() (ok bool) { m, ok = s.last(user, after, want); return ok },
		func() string { return "the chat:\n" + s.transcript(user) })
	return m
}

func (s *stack) transcript(user int64) string {
	var b strings.Builder
	for _, m := range s.Bot.Messages(user) {
		fmt.Fprintf(&b, "  #%d bot=%v %q %v\n", m.ID, m.FromBot, m.Text, m.Keyboard)
	}
	return b.String()
}

// button returns the newest message of a chat with a button labelled label, and its data.
func (s *stack) button(user int64, label string) (msg int, data string) {
	msgs := s.Bot.Messages(user)
	for i := len(msgs) - 1; i >= 0; i-- {
		for _, row := range msgs[i].Keyboard {
			for _, b := range row {
				if b.Text == label {
					return msgs[i].ID, b.Data
				}
			}
		}
	}
	return 0, ""
}

// press presses the button labelled label of the newest message that has one and returns the
// id of that message; with want, it waits for a newer message containing want.
func (s *stack) press(t *testing.T, user int64, label, want string) int {
	t.Helper()
	msg, _ := s.pressQuery(t, user, label, want)
	return msg
}

// pressQuery is press that also returns the press's callback query id.
func (s *stack) pressQuery(t *testing.T, user int64, label, want string) (int, string) {
	t.Helper()
	var msg int
	var data string
	wait.ForShowing(t, wait.Hang, fmt.Sprintf("user %d: a button %q", user, label),
		func() bool { msg, data = s.button(user, label); return msg != 0 },
		func() string { return "the chat:\n" + s.transcript(user) })
	query, err := s.Bot.Press(user, msg, data)
	if err != nil {
		t.Fatal(err)
	}
	if want != "" {
		s.await(t, user, msg, want)
	}
	return msg, query
}

// answer presses a button and returns the bot's answer to the press.
func (s *stack) answer(t *testing.T, user int64, label string) string {
	t.Helper()
	events, cancel := s.Bot.Subscribe(user)
	defer cancel()
	// The answer to an earlier press may come after this one is made: answers go apart from
	// the conversation.
	_, query := s.pressQuery(t, user, label, "")
	timeout := time.After(wait.Hang)
	for {
		select {
		case e := <-events:
			if e.Type == "answer" && e.QueryID == query {
				return e.Text
			}
		case <-timeout:
			t.Fatalf("user %d: the press of %q was not answered", user, label)
		}
	}
}

// Spock's texts.
const (
	spockAgree  = "Я берусь за это задание"
	spockJoin   = "Конечно, я приму участие в игре"
	spockMove   = "Ваш ход"
	spockNext   = "Далее..."
	spockWaitP  = "⏳ Ждём соперника"
	spockRock   = "Камень"
	spockPaper  = "Бумага"
	spockScissr = "Ножницы"
)

// enter launches spock for a user by its deep link and accepts the tournament; it returns the
// id of the last message before the acceptance's effects.
func (s *stack) enter(t *testing.T, user int64, script int64) int {
	t.Helper()
	before := s.LastID(user)
	s.Send(t, user, fmt.Sprintf("/start %d", script))
	s.await(t, user, before, "<b>Спок</b>")
	s.press(t, user, spockAgree, "клуб гаальских интеллектуалов")
	return s.press(t, user, spockJoin, "")
}

// Ensure two users play spock.qmm against each other to the end: the first waits for an
// opponent, the second's joining starts the game for both; in a round the first to move waits
// (the waiting screen's button says for whom, /retry shows it again) until the other moves, and
// the waiting screens go; both see the round's result with both moves under the players' names;
// they play on until both games are over, and then the session is gone. Spock picks a round's
// result among jumps of different priorities at random, as the reference player does; with the
// round's shared seed both games pick the same, so the games agree to the end.
func TestSpockTwoPlayers(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	s.start(t)
	script := s.spock(t)
	s.User(1, "Alice", "ru")
	s.User(2, "Bob", "ru")

	a := s.enter(t, 1, script)
	s.await(t, 1, a, spockWaitP)
	if got := s.answer(t, 1, "⏳ Кого мы ждём?"); got != "Ждём, пока присоединятся другие игроки…" {
		t.Errorf("a press while waiting for an opponent: %q", got)
	}
	b := s.enter(t, 2, script)
	s.await(t, 2, b, spockMove)
	s.await(t, 1, a, spockMove)
	if s.countSessions(t, sessions.QuestPlaying, -1) != 1 {
		t.Fatal("no session is being played")
	}

	a = s.press(t, 1, spockRock, "⏳ Ждём: Bob")
	if got := s.answer(t, 1, "⏳ Кого мы ждём?"); got != "Ждём: Bob…" {
		t.Errorf("a press while waiting for a move: %q", got)
	}
	// /retry shows the waiting screen again and posts nothing twice.
	s.Send(t, 1, "/retry")
	s.WaitFor(t, "the waiting screen again", func() bool { return s.CountText(1, "⏳ Ждём: Bob") == 2 })
	s.press(t, 2, spockScissr, "Bob: Ножницы")
	res := s.await(t, 1, a, "Bob: Ножницы")
	for _, want := range []string{"Alice: Камень", "Bob: Ножницы"} {
		if !strings.Contains(res.Text, want) {
			t.Errorf("Alice's first result lacks %q:\n%s", want, res.Text)
		}
	}
	s.WaitFor(t, "Alice's waiting screens to go", func() bool { return s.CountText(1, "Ждём: Bob") == 0 })
	// The games' logs (the session's values and seed among their moves) replay to their states.
	s.WaitIdle(t)
	spock := loadQuest(t, filepath.Join(sharedDir(t), "quests", "dagazbot", "spock.qmm"))
	for _, user := range []int64{1, 2} {
		checkLog(t, s.Env, s.service, user, spock, "reference")
	}
	// Play on: Alice always plays rock, Bob scissors.
	moves := map[int64][]string{
		1: {spockRock, spockNext, "Вернуться на корабль"},
		2: {spockScissr, spockNext, "Вернуться на корабль"},
	}
	for i := 0; s.Games(t, s.service) > 0; i++ {
		if i > 400 {
			t.Fatalf("the games do not end; Alice:\n%s\nBob:\n%s", s.transcript(1), s.transcript(2))
		}
		chats := s.transcript(1) + s.transcript(2)
		if !s.step(t, 1, moves[1]) && !s.step(t, 2, moves[2]) {
			// Nothing to press yet: the bot's next message or edit, or the end of the games.
			s.WaitFor(t, "a change in either chat", func() bool {
				return s.transcript(1)+s.transcript(2) != chats || s.Games(t, s.service) == 0
			})
		}
	}
	// Alice, always winning or drawing, wins; the rounds came out the same in both games (the
	// players share the random seed after each round), so neither played on against the bot.
	if _, won := s.last(1, 0, "Поздравляем с победой!"); !won {
		t.Errorf("Alice did not win:\n%s", s.transcript(1))
	}
	for _, user := range []int64{1, 2} {
		if _, alone := s.last(user, 0, "вы продолжаете с ботом"); alone {
			t.Errorf("user %d's game went on against the bot:\n%s", user, s.transcript(user))
		}
	}
	s.WaitFor(t, "the session to go", func() bool { return len(s.sessions(t)) == 0 })
	if s.Bot.UnansweredCallbacks() != 0 {
		t.Error("a press was left unanswered")
	}
}

// step presses the first of labels found on the newest message of a chat with buttons, if it has
// one, and waits for the bot's next message; it reports whether it pressed.
func (s *stack) step(t *testing.T, user int64, labels []string) bool {
	t.Helper()
	msgs := s.Bot.Messages(user)
	for i := len(msgs) - 1; i >= 0; i-- {
		m := msgs[i]
		if len(m.Keyboard) == 0 {
			continue
		}
		for _, label := range labels {
			for _, row := range m.Keyboard {
				for _, b := range row {
					if b.Text == label {
						if _, err := s.Bot.Press(user, m.ID, b.Data); err != nil {
							t.Fatal(err)
						}
						s.WaitFor(t, "the answer to "+label, func() bool { return s.LastID(user) > m.ID })
						return true
					}
				}
			}
		}
		return false
	}
	return false
}

// Ensure three users joining a two-player type make one full session and a second, open one
// holding the third, who waits.
func TestThirdPlayerGetsNewSession(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	s.start(t)
	script := s.spock(t)
	var after [4]int
	for id, name := range map[int64]string{1: "Ann", 2: "Ben", 3: "Cid"} {
		s.User(id, name, "ru")
	}
	// One after the other, so that the second to come is the one who fills the first session
	// (joining at the same instant is TestConcurrentJoins').
	after[1] = s.enter(t, 1, script)
	s.await(t, 1, after[1], spockWaitP)
	after[2] = s.enter(t, 2, script)
	s.await(t, 1, after[1], spockMove)
	s.await(t, 2, after[2], spockMove)
	after[3] = s.enter(t, 3, script)
	s.await(t, 3, after[3], spockWaitP)
	s.WaitFor(t, "two sessions", func() bool {
		return s.countSessions(t, sessions.QuestPlaying, 2) == 1 && s.countSessions(t, sessions.QuestOpen, 1) == 1
	})
	waiting := 0
	for _, q := range s.sessions(t) {
		for _, p := range q.Players {
			if q.Status == sessions.QuestOpen && p.User == 3 && p.Waiting {
				waiting++
			}
		}
	}
	if waiting != 1 {
		t.Errorf("the third player is not waiting in the open session")
	}
}

// Ensure the deadlines through the bot: a player alone when joining ends plays the bot; in a
// session, the player who moved goes on against the bot when the other misses the round, being
// told who was late, and the late player, moving later, is told and plays the bot too.
func TestTimeoutsFallBackToBot(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	s.start(t)
	script := s.spock(t)
	s.User(1, "Dan", "ru")
	s.User(2, "Eve", "ru")
	s.User(3, "Fay", "ru")

	// Alone: after spock's 120 s the bot plays.
	c := s.enter(t, 3, script)
	s.await(t, 3, c, spockWaitP)
	s.clock.advance(121 * time.Second)
	s.await(t, 3, c, "Никто не присоединился вовремя")
	s.await(t, 3, c, spockMove)
	s.press(t, 3, spockPaper, "Fay: Бумага")

	a := s.enter(t, 1, script)
	b := s.enter(t, 2, script)
	s.await(t, 1, a, spockMove)
	s.await(t, 2, b, spockMove)
	a = s.press(t, 1, spockRock, "⏳ Ждём: Eve")
	s.clock.advance(31 * time.Second) // spock's round: 30 s
	s.await(t, 1, a, "Ход игрока Eve не пришёл вовремя: вы продолжаете с ботом.")
	// Against the bot, Dan is player 1 and the bot's move is random.
	res := s.await(t, 1, a, "Dan: Камень")
	if !strings.Contains(res.Text, "Бот: ") {
		t.Errorf("Dan's round against the bot:\n%s", res.Text)
	}
	b = s.press(t, 2, spockScissr, "Вы не сделали ход вовремя")
	res = s.await(t, 2, b, "Eve: Ножницы")
	if !strings.Contains(res.Text, "Бот: ") {
		t.Errorf("Eve's round against the bot:\n%s", res.Text)
	}
	if n := len(s.sessions(t)); n != 0 {
		t.Errorf("%d sessions left", n)
	}
}

// Ensure a restart loses nobody: a player waits for the other's move while the bot stops; after
// a new start the other moves and the round completes for both. Then a player waits again, the
// bot stops, the round's deadline passes while it is down, and after the next start the waiting
// player goes on against the bot.
func TestRestartWhileWaiting(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	stop := s.start(t)
	script := s.spock(t)
	s.User(1, "Gus", "ru")
	s.User(2, "Hal", "ru")
	a := s.enter(t, 1, script)
	b := s.enter(t, 2, script)
	s.await(t, 1, a, spockMove)
	s.await(t, 2, b, spockMove)
	a = s.press(t, 1, spockPaper, "⏳ Ждём: Hal")
	stop()

	stop = s.start(t)
	s.press(t, 2, spockRock, "Hal: Камень")
	res := s.await(t, 1, a, "Hal: Камень")
	if !strings.Contains(res.Text, "Gus: Бумага") {
		t.Errorf("Gus's result after the restart:\n%s", res.Text)
	}
	s.press(t, 1, spockNext, spockMove)
	s.press(t, 2, spockNext, spockMove)
	a = s.press(t, 1, spockPaper, "⏳ Ждём: Hal")
	stop()

	s.clock.advance(31 * time.Second)
	s.start(t)
	s.await(t, 1, a, "Ход игрока Hal не пришёл вовремя")
	s.await(t, 1, a, "Gus: Бумага")
}
