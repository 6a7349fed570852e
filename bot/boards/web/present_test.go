package web_test

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/questbot/questbot/bot"
	"github.com/questbot/questbot/bot/boards"
	"github.com/questbot/questbot/bot/boards/botusers"
	"github.com/questbot/questbot/bot/boards/web"
	"github.com/questbot/questbot/bot/emulator/tgemu"
	"github.com/questbot/questbot/bot/testkit/wait"
	"github.com/questbot/questbot/sessions/board"
)

// pendingWatch samples the outbox while a test plays and keeps the most rows of one state (a
// board) ever pending in one chat.
type pendingWatch struct {
	mu   sync.Mutex
	max  int
	at   string // the chat and state of max
	stop func()
}

func watchPending(t *testing.T, e *env) *pendingWatch {
	t.Helper()
	w := &pendingWatch{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			rows, err := e.Pool.Query(ctx, `SELECT chat_id, state, count(*) FROM outbox
				WHERE status = 'pending' AND state IS NOT NULL GROUP BY 1, 2`)
			if err == nil {
				for rows.Next() {
					var chat int64
					var state string
					var n int
					if rows.Scan(&chat, &state, &n) == nil {
						w.mu.Lock()
						if n > w.max {
							w.max, w.at = n, fmt.Sprintf("chat %d, %s", chat, state)
						}
						w.mu.Unlock()
					}
				}
				rows.Close()
			}
			select {
			case <-ctx.Done():
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	w.stop = func() { cancel(); <-done }
	t.Cleanup(w.stop)
	return w
}

func (w *pendingWatch) most() (int, string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.max, w.at
}

// maxOvertakes is how many board messages may reach a chat between a user's command and its
// answer while boards keep changing there: the one being sent when the answer is queued, and
// those sent at one a second while the command is received and handled (Telegram's limit; a
// busy machine takes a while). Queued behind the boards, the answer would wait for all of them:
// three boards, each with its edit and a copy to send.
const maxOvertakes = 3

// replyOvertakes sends text as user and returns how many board messages and edits reached the
// user's chat between their message and the bot's first text answer to it.
func replyOvertakes(t *testing.T, e *env, user int64, text, want string) int {
	t.Helper()
	events, stop := e.Bot.Subscribe(user)
	defer stop()
	e.Send(t, user, text)
	seenAsk, boardsBetween := false, 0
	deadline := time.After(time.Minute)
	for {
		select {
		case ev := <-events:
			m := ev.Message
			switch {
			case m == nil:
			case !m.FromBot && m.Text == text:
				seenAsk = true
			case !seenAsk:
			case m.Photo != "":
				boardsBetween++
			case ev.Type == "message" && strings.Contains(m.Text, want):
				return boardsBetween
			}
		case <-deadline:
			t.Fatalf("no answer to %s with %q", text, want)
		}
	}
}

// Ensure fast play through the API keeps both players' Telegram chats showing the present, with
// Telegram's limits on both sides: two users play 200 plies at full speed over three games at
// once (chess, random legal moves, a new game when one ends), and the bot restarts in the middle.
// Neither chat ever holds more than a few pending rows of a board; a /web and a /mygames sent
// meanwhile are answered before the board updates queued before them (at most the board being
// sent and the few sent while the command is handled pass them); every game's Telegram board ends on its final
// position in both chats.
func TestFastPlayKeepsChatsPresent(t *testing.T) {
	t.Parallel()
	// The API's own rate limit is lifted: the moves come as fast as the server takes them.
	e := newEnvWith(t, web.Config{Rate: 1e6, Burst: 1e6}, envOptions{think: true, enforce: true})
	players := map[int64]*client{1: e.login(t, 1, "Ann"), 2: e.login(t, 2, "Bob")}
	watch := watchPending(t, e)
	rng := rand.New(rand.NewPCG(27, 1))
	newGame := func() int64 {
		var created struct {
			ID int64 `json:"id"`
		}
		players[1].must(t, "POST", "/api/v1/games", map[string]string{"variant": "chess", "control": "none"},
			http.StatusCreated, &created)
		players[2].must(t, "POST", fmt.Sprintf("/api/v1/games/%d/join", created.ID), nil, http.StatusOK, nil)
		return created.ID
	}
	var all []int64
	live := make([]int64, 3)
	for i := range live {
		live[i] = newGame()
		all = append(all, live[i])
	}
	// move plays one move in game id for whoever is to move, and reports whether it ended it.
	move := func(id int64) bool {
		st := players[1].state(t, id)
		who := players[1]
		if st.ToMove != st.Seat {
			who = players[2]
			st = who.state(t, id)
		}
		mv := st.Legal[rng.IntN(len(st.Legal))]
		var after web.GameState
		who.must(t, "POST", fmt.Sprintf("/api/v1/games/%d/moves", id), map[string]any{"move": mv.Text, "ply": st.Ply},
			http.StatusOK, &after)
		return after.Status != "active"
	}
	for ply := 1; ply <= 200; ply++ {
		i := ply % len(live)
		if move(live[i]) {
			live[i] = newGame()
			all = append(all, live[i])
		}
		switch ply {
		case 60:
			n := replyOvertakes(t, e, 1, "/web", "/login/")
			t.Logf("%d board messages reached Ann's chat between her /web and its answer", n)
			if n > maxOvertakes {
				t.Errorf("%d board messages reached Ann's chat between her /web and its answer", n)
			}
		case 100:
			// The bot stops; the play goes on while it is down; another process takes over.
			e.proc.Stop()
		case 120:
			e.restart(t)
		case 150:
			n := replyOvertakes(t, e, 2, "/mygames", "Your games")
			t.Logf("%d board messages reached Bob's chat between his /mygames and its answer", n)
			if n > maxOvertakes {
				t.Errorf("%d board messages reached Bob's chat between his /mygames and its answer", n)
			}
		}
	}
	e.WaitIdle(t)
	watch.stop()
	most, where := watch.most()
	t.Logf("%d games; at most %d rows of one board pending in one chat (%s)", len(all), most, where)
	if most > 4 {
		t.Errorf("%d rows of one board were pending in one chat (%s), want a handful", most, where)
	}
	for _, id := range all {
		bd := e.board(t, id)
		for seat, s := range bd.Seats {
			checkFinalBoard(t, e, bd, seat, s.User)
		}
	}
}

// checkFinalBoard checks that a player's Telegram board of bd is the last one sent under its ref
// and shows bd as it is: its picture and its last move.
func checkFinalBoard(t *testing.T, e *env, bd *board.Board, seat int, user int64) {
	t.Helper()
	msgID := e.QueryInt(t, `SELECT coalesce(max(message_id), 0) FROM sent_ref WHERE chat_id = $1 AND ref = $2`,
		user, fmt.Sprintf("board:%d", bd.ID))
	var m *tgemu.Message
	for _, bm := range e.BotMessages(user) {
		if bm.ID == msgID {
			m = &bm
		}
	}
	if m == nil || m.Photo == "" {
		t.Errorf("board %d, seat %d: no board message %d in the chat", bd.ID, seat, msgID)
		return
	}
	g, err := bd.Rebuild()
	if err != nil {
		t.Fatal(err)
	}
	record := g.Record() // the moves as the board shows them
	last := record[len(record)-1]
	if !strings.Contains(m.Text, "Last move: ") || !strings.Contains(m.Text, " "+last+" (") {
		t.Errorf("board %d, seat %d, ply %d: the Telegram board says %q, not the last move %s", bd.ID, seat, bd.Ply(),
			m.Text, last)
	}
	path, _, err := e.app.Boards.PictureFile(context.Background(), bd, seat)
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	got, _, _, ok := e.Emu.FileData(m.Photo)
	if !ok || !bytes.Equal(got, want) {
		t.Errorf("board %d, seat %d, ply %d: the Telegram board's picture is not the final position's", bd.ID, seat, bd.Ply())
	}
}

// Ensure the bot answers at once: a move against the bot is answered by the AI woken by the
// commit, in this process (the AI's schedule never fires here), and by another process through
// the notification of the bot's turn when this one runs no AI at all.
func TestBotAnswersAtOnce(t *testing.T) {
	t.Parallel()
	for _, viaNotify := range []bool{false, true} {
		t.Run(map[bool]string{false: "in process", true: "by notification"}[viaNotify], func(t *testing.T) {
			t.Parallel()
			e := newEnvWith(t, web.Config{}, envOptions{limits: &bot.NoLimits})
			// The AI's job as serve schedules it, with a schedule that never fires in the test.
			sched := bot.NewScheduler(e.Log())
			thinker := e.app.Boards
			if viaNotify {
				// Another process's AI, which hears of the turn only by the notification.
				thinker = boards.New(boards.Config{Users: botusers.Users{}, Dir: t.TempDir(), Log: e.Log(), Now: e.clock.now})
				ctx, cancel := context.WithCancel(context.Background())
				done := make(chan struct{})
				go func() { defer close(done); thinker.WatchAI(ctx, e.Pool) }()
				t.Cleanup(func() { cancel(); <-done })
			}
			wake, err := sched.AddWakeable("board-ai", "@every 1h", func(ctx context.Context) error {
				return thinker.Think(ctx, boards.DoerOf(e.proc.Transport.Do))
			})
			if err != nil {
				t.Fatal(err)
			}
			thinker.SetAIWake(wake)
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan struct{})
			go func() { defer close(done); sched.Run(ctx) }()
			t.Cleanup(func() { cancel(); <-done })

			ann := e.login(t, 1, "Ann")
			var created struct {
				ID int64 `json:"id"`
			}
			ann.must(t, "POST", "/api/v1/games", map[string]string{"variant": "russian", "bot": "easy"}, http.StatusCreated, &created)
			for range 3 {
				var st web.GameState
				deadline := time.Now().Add(wait.Hang)
				for st = ann.state(t, created.ID); st.ToMove != st.Seat; st = ann.state(t, created.ID) {
					if time.Now().After(deadline) {
						t.Fatalf("the bot never moved at ply %d", st.Ply)
					}
					time.Sleep(10 * time.Millisecond)
				}
				ann.must(t, "POST", fmt.Sprintf("/api/v1/games/%d/moves", created.ID),
					map[string]any{"move": st.Legal[0].Text, "ply": st.Ply}, http.StatusOK, nil)
			}
		})
	}
}

// photos returns the id of the last board message sent to a chat (a message of its own: an edit
// keeps its id, a board sent anew gets a new one).
func photos(e *env, chat int64) int {
	n := 0
	for _, m := range e.BotMessages(chat) {
		if m.Photo != "" {
			n = max(n, m.ID)
		}
	}
	return n
}

// Ensure a player on the web hears nothing in Telegram while the web shows them the news: their
// Telegram board changes in place; the notification waits webGrace and is dropped when the web
// has shown the move; not shown, it comes after webGrace; once the player has left the web (ten
// minutes without acting there), or plays in Telegram, news rings at once again.
func TestWebPlayerHearsNoSound(t *testing.T) {
	t.Parallel()
	e := newEnv(t, web.Config{})
	ann, bob := e.login(t, 1, "Ann"), e.login(t, 2, "Bob")
	var created struct {
		ID int64 `json:"id"`
	}
	ann.must(t, "POST", "/api/v1/games", map[string]string{"variant": "russian", "control": "none"}, http.StatusCreated, &created)
	id := created.ID
	bob.must(t, "POST", fmt.Sprintf("/api/v1/games/%d/join", id), nil, http.StatusOK, nil)
	players := map[int64]*client{1: ann, 2: bob}
	// play moves whoever is to move, through the API, and returns who moved.
	play := func() int64 {
		t.Helper()
		bd := e.board(t, id)
		user := bd.Seats[bd.ToMove].User
		st := players[user].state(t, id)
		players[user].must(t, "POST", fmt.Sprintf("/api/v1/games/%d/moves", id),
			map[string]any{"move": st.Legal[0].Text, "ply": st.Ply}, http.StatusOK, nil)
		return user
	}
	other := map[int64]int64{1: 2, 2: 1}
	lastMove := func(int64) string {
		bd := e.board(t, id)
		return " " + bd.Moves[len(bd.Moves)-1].Text + " ("
	}
	e.WaitIdle(t)
	// On the web: the opponent's move changes the board in place, and shown on the web it is
	// never notified.
	mover := play()
	them := other[mover]
	before := photos(e, them)
	e.WaitMessage(t, them, 0, "the move on the board in place", func(m tgemu.Message) bool {
		return m.Photo != "" && strings.Contains(m.Text, lastMove(them))
	})
	if n := e.QueryInt(t, `SELECT count(*) FROM board_notification WHERE board_id = $1`, id); n != 1 {
		t.Fatalf("%d notifications pending, want 1", n)
	}
	st := players[them].state(t, id)
	players[them].must(t, "POST", fmt.Sprintf("/api/v1/games/%d/seen", id), map[string]int{"ply": st.Ply}, http.StatusOK, nil)
	e.clock.advance(2 * time.Minute)
	e.WaitFor(t, "the notification dropped as seen", func() bool {
		return e.QueryInt(t, `SELECT count(*) FROM board_notification WHERE board_id = $1`, id) == 0
	})
	e.WaitIdle(t)
	if got := photos(e, them); got != before {
		t.Fatalf("board message %d, want %d still: a move seen on the web rang in Telegram", got, before)
	}
	// Not shown on the web: notified after the grace.
	mover = play()
	them = other[mover]
	before = photos(e, them)
	e.WaitIdle(t)
	if got := photos(e, them); got != before {
		t.Fatalf("the board came anew at once for a player on the web")
	}
	e.clock.advance(2 * time.Minute)
	e.WaitFor(t, "the notification after the grace", func() bool { return photos(e, them) > before })
	// Ten minutes away from the web: news rings at once.
	e.clock.advance(11 * time.Minute)
	mover = play()
	them = other[mover]
	e.WaitMessage(t, them, 0, "the board anew at once", func(m tgemu.Message) bool {
		return m.Photo != "" && strings.Contains(m.Text, lastMove(them)) && !m.Edited
	})
}
