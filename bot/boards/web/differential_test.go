package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"

	"github.com/questbot/questbot/bot/boards"
	"github.com/questbot/questbot/bot/boards/web"
	"github.com/questbot/questbot/bot/texts"
	"github.com/questbot/questbot/sessions/board"
)

// # One rule, every view
//
// The differential test plays one script of operations on a game between two players once
// through Telegram (the players' typed moves and the presses of their boards' buttons, as
// updates of the bot) and once through the web API, and compares what the board's record says
// happened (kinds, actors, plies) and which operations were refused: the service decides, the
// views only carry the operations.

// step is one operation of the script, by the seat that moves first (0) or the other (1): a move (the first legal one), an undo, a draw offer, its decline, a resignation, at the
// board's ply or (stale) at the ply before.
type step struct {
	who   int
	op    string // "move", "undo", "offer", "decline", "resign"
	stale bool
}

// scriptView plays a script's steps in one view: open opens the game and returns its players by
// seat and its creator; do returns the refusal of a step ("" when it was carried out) as the
// error's name ("stale", ...).
type scriptView interface {
	open(t *testing.T) (id int64, users [2]int64, creator int64)
	do(t *testing.T, id int64, users [2]int64, s step) string
}

// gameScript is the script of the first game: moves, a stale undo, a stale draw offer, a draw
// offered and declined, a move taken back, a resignation.
var gameScript = []step{
	{who: 0, op: "move"}, {who: 1, op: "move"},
	{who: 0, op: "undo", stale: true},
	{who: 0, op: "offer", stale: true},
	{who: 0, op: "offer"}, {who: 1, op: "decline"},
	{who: 0, op: "move"}, {who: 0, op: "undo"}, {who: 0, op: "move"},
	{who: 1, op: "resign", stale: true},
	{who: 1, op: "resign"},
}

// timeoutScript is the second game's: two moves, then the creator's clock runs out.
var timeoutScript = []step{{who: 0, op: "move"}, {who: 1, op: "move"}}

// played is what a script did: the record's events as "kind/actor@ply", the actor being the
// seat (- for nobody; the opening and the start, whose seats the draw of sides decides, by A the
// creator and B the one who joined), and the refusals by step.
type played struct {
	events   []string
	refusals []string
}

// playScript plays steps in a view, then, when timeout is set, moves the clock past the
// deadline and runs the deadlines job.
func (e *env) playScript(t *testing.T, v scriptView, steps []step, timeout bool) played {
	t.Helper()
	id, users, creator := v.open(t)
	var p played
	for i, s := range steps {
		bd := e.board(t, id)
		if s.op == "move" && bd.Seats[bd.ToMove].User != users[s.who] {
			t.Fatalf("step %d: %+v on the opponent's turn", i, s)
		}
		p.refusals = append(p.refusals, fmt.Sprintf("%d %s:%s", i, s.op, v.do(t, id, users, s)))
	}
	if timeout {
		// The clock stays moved on: the bot's own scheduler runs the deadlines job too, and may
		// claim the board first; it must find the deadline past when it settles the board. The
		// game is over once either run has committed.
		e.clock.advance(25 * time.Hour)
		if err := e.app.Boards.Deadlines(context.Background(), boards.DoerOf(e.proc.Transport.Do)); err != nil {
			t.Fatal(err)
		}
		e.WaitFor(t, "the game to end on time", func() bool { return e.board(t, id).Status == board.Finished })
	}
	bd := e.board(t, id)
	for _, ev := range e.recorded(t, id, 0) {
		actor := "-"
		switch {
		case ev.Actor < 0:
		case ev.Kind == boards.EventKindOpened || ev.Kind == boards.EventKindStarted:
			actor = "B"
			if bd.Seats[ev.Actor].User == creator {
				actor = "A"
			}
		default:
			actor = fmt.Sprint(ev.Actor)
		}
		p.events = append(p.events, fmt.Sprintf("%s/%s@%d", ev.Kind, actor, ev.Ply))
	}
	return p
}

// Ensure the same script played through Telegram and through the web API records the same
// events and meets the same refusals, in a game ended by a resignation and in one ended on time
// by the deadlines job.
func TestViewsAgree(t *testing.T) {
	t.Parallel()
	e := newEnv(t, web.Config{})
	tg := &telegramView{e: e, users: [2]int64{1, 2}}
	e.User(1, "Ann", "en")
	e.User(2, "Boris", "en")
	wv := &webView{e: e, clients: [2]*client{e.login(t, 3, "Carol"), e.login(t, 4, "Dan")}}
	for _, c := range []struct {
		name    string
		steps   []step
		timeout bool
	}{
		{"resignation", gameScript, false},
		{"timeout", timeoutScript, true},
	} {
		viaTelegram := e.playScript(t, tg, c.steps, c.timeout)
		viaWeb := e.playScript(t, wv, c.steps, c.timeout)
		t.Logf("%s: %s", c.name, strings.Join(viaTelegram.events, " "))
		if got, want := strings.Join(viaWeb.events, " "), strings.Join(viaTelegram.events, " "); got != want {
			t.Errorf("%s: the web recorded\n%s\nTelegram\n%s", c.name, got, want)
		}
		if got, want := strings.Join(viaWeb.refusals, ", "), strings.Join(viaTelegram.refusals, ", "); got != want {
			t.Errorf("%s: the web refused\n%s\nTelegram\n%s", c.name, got, want)
		}
		last := viaTelegram.events[len(viaTelegram.events)-1]
		if !strings.HasPrefix(last, boards.EventKindFinished+"/") {
			t.Errorf("%s: the game did not end: %v", c.name, viaTelegram.events)
		}
	}
	if t.Failed() {
		return
	}
	// The script's refusals are the stale ones, and the rest carried out.
	want := "0 move:, 1 move:, 2 undo:stale, 3 offer:stale, 4 offer:, 5 decline:, 6 move:, 7 undo:, 8 move:, 9 resign:stale, 10 resign:"
	if got := strings.Join(e.playScript(t, wv, gameScript, false).refusals, ", "); got != want {
		t.Errorf("the refusals %s, want %s", got, want)
	}
}

// webView plays a script through the web API, the players' clients by role.
type webView struct {
	e       *env
	clients [2]*client
}

func (v *webView) open(t *testing.T) (int64, [2]int64, int64) {
	t.Helper()
	a, b := v.clients[0], v.clients[1]
	var created, joined struct{ ID int64 }
	a.must(t, "POST", "/api/v1/games", map[string]string{"variant": "russian", "control": "corr1d"}, http.StatusCreated, &created)
	b.must(t, "POST", "/api/v1/games", map[string]string{"variant": "russian", "control": "corr1d"}, http.StatusCreated, &joined)
	if joined.ID != created.ID {
		t.Fatalf("the second player opened game %d, the first waits in %d", joined.ID, created.ID)
	}
	bd := v.e.board(t, created.ID)
	return created.ID, [2]int64{bd.Seats[0].User, bd.Seats[1].User}, 3
}

func (v *webView) do(t *testing.T, id int64, users [2]int64, s step) string {
	t.Helper()
	c := v.clients[users[s.who]-3]
	st := c.state(t, id)
	ply := st.Ply
	if s.stale {
		ply--
	}
	path := fmt.Sprintf("/api/v1/games/%d/", id)
	var body map[string]any
	switch s.op {
	case "move":
		path, body = path+"moves", map[string]any{"move": st.Legal[0].Text, "ply": ply}
	case "undo", "resign":
		path, body = path+s.op, map[string]any{"ply": ply}
	case "offer", "decline":
		path, body = path+"draw", map[string]any{"action": s.op, "ply": ply}
	default:
		t.Fatalf("no operation %q", s.op)
	}
	code, _, data := c.call(t, "POST", path, body)
	if code == http.StatusOK {
		return ""
	}
	var ae apiError
	if err := json.Unmarshal(data, &ae); err != nil {
		t.Fatalf("%s: %d %q", path, code, data)
	}
	return ae.Error.Code
}

// telegramView plays a script through Telegram: moves typed in the chat, the rest the presses of
// the board's buttons (their data carries the ply, as the buttons of a board shown at that ply).
type telegramView struct {
	e     *env
	users [2]int64
}

func (v *telegramView) open(t *testing.T) (int64, [2]int64, int64) {
	t.Helper()
	e := v.e
	old := v.lastBoard(t, v.users[0])
	e.menu(t, v.users[0], "/games", "Russian draughts", "🔎 Find an opponent", "1 day a move")
	e.WaitFor(t, "the creator's game", func() bool { return v.lastBoard(t, v.users[0]) > old })
	id := v.lastBoard(t, v.users[0])
	e.menu(t, v.users[1], "/games", "Russian draughts", "🔎 Find an opponent", "1 day a move")
	e.WaitFor(t, "the game to start", func() bool { return e.board(t, id).Status == board.Active })
	bd := e.board(t, id)
	return id, [2]int64{bd.Seats[0].User, bd.Seats[1].User}, v.users[0]
}

// lastBoard is the newest board a user plays (0: none).
func (v *telegramView) lastBoard(t *testing.T, user int64) int64 {
	t.Helper()
	return int64(v.e.QueryInt(t, `SELECT coalesce(max(board_id), 0) FROM board_seat WHERE user_id = $1`, user))
}

// telegramOps are the buttons' operations by the script's names (bot/boards/telegram: data.go).
var telegramOps = map[string]string{"undo": "u", "offer": "d", "decline": "n", "resign": "R"}

func (v *telegramView) do(t *testing.T, id int64, users [2]int64, s step) string {
	t.Helper()
	e := v.e
	user := users[s.who]
	bd := e.board(t, id)
	ply := bd.Ply()
	if s.stale {
		ply--
	}
	before := len(e.recorded(t, id, 0))
	if s.op == "move" {
		g, err := bd.Game()
		if err != nil {
			t.Fatal(err)
		}
		e.Send(t, user, g.LegalMoves()[0].String())
		e.WaitFor(t, "the typed move", func() bool { return e.board(t, id).Ply() == bd.Ply()+1 })
		e.WaitFor(t, "the move's record", func() bool { return len(e.recorded(t, id, 0)) > before })
		return ""
	}
	answer := v.press(t, user, fmt.Sprintf("g:%d:%d:%s", id, ply, telegramOps[s.op]))
	if answer == "" {
		return ""
	}
	c := texts.For("en")
	for _, err := range []error{board.ErrStale, board.ErrFinished, board.ErrNotYourTurn, board.ErrOffered, board.ErrNotStarted} {
		if answer == c.Error(err) {
			return map[error]string{board.ErrStale: "stale", board.ErrFinished: "finished", board.ErrNotYourTurn: "not_your_turn",
				board.ErrOffered: "already_offered", board.ErrNotStarted: "not_started"}[err]
		}
	}
	return "answered " + answer
}

// pressed counts the presses made up, for their callback query ids.
var pressed atomic.Int64

// press is a press of a button with data under the user's newest message, as an update of the
// bot (the emulator's own presses need the button on a message): it returns the text the bot
// answered the press with ("" for none).
func (v *telegramView) press(t *testing.T, user int64, data string) string {
	t.Helper()
	e := v.e
	n := pressed.Add(1)
	qid := fmt.Sprintf("script-%d", n)
	raw, err := json.Marshal(tgbotapi.Update{UpdateID: 800_000_000 + int(n), CallbackQuery: &tgbotapi.CallbackQuery{
		ID: qid, From: &tgbotapi.User{ID: user, FirstName: "Player"}, Data: data,
		Message: &tgbotapi.Message{MessageID: e.LastID(user), Chat: &tgbotapi.Chat{ID: user, Type: "private"}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.proc.Transport.Accept(context.Background(), e.service, []json.RawMessage{raw}); err != nil {
		t.Fatal(err)
	}
	var text string
	e.WaitFor(t, "the answer to "+data, func() bool {
		err := e.Pool.QueryRow(context.Background(), `SELECT coalesce(params->>'text', '') FROM outbox
			WHERE method = 'answerCallbackQuery' AND params->>'callback_query_id' = $1`, qid).Scan(&text)
		return err == nil
	})
	return text
}
