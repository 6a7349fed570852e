package telegram_test

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/questbot/questbot/bot/emulator/tgemu"
	"github.com/questbot/questbot/sessions/board"
)

// inviteLink reads the code of the newest invite link in a user's chat.
var inviteLink = regexp.MustCompile(`https://t\.me/boards_test_bot\?start=(g[A-Za-z0-9_-]+)`)

// invite has a user invite a friend to a game and returns the /start argument of the link.
func (e *env) invite(t *testing.T, user int64, game, how, clock string) string {
	t.Helper()
	after := e.LastID(user)
	e.menu(t, user, "/games", game, how, clock)
	m := e.WaitMessage(t, user, after, "the invite link", func(m tgemu.Message) bool { return inviteLink.MatchString(m.Text) })
	return inviteLink.FindStringSubmatch(m.Text)[1]
}

// Ensure an invite link starts the game with the friend who opens it, once: its creator, a
// second friend and a friend too late are told why not; and that a waiting game can be given up.
func TestInvite(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.start(t)
	for id, name := range map[int64]string{1: "Ann", 2: "Boris", 3: "Carl", 4: "Dan"} {
		e.user(t, id, name, "en")
	}
	code := e.invite(t, 1, "International draughts", "✉️ Invite a friend", "3 days a move")
	e.Send(t, 1, "/start "+code)
	e.WaitText(t, 1, 0, "This is your own game")
	e.Send(t, 2, "/start "+code)
	e.waitCaption(t, 1, "Boris joined: the game begins!")
	b := e.waitCaption(t, 2, "International draughts")
	if !strings.Contains(b.Text, "left for the move") && !strings.Contains(b.Text, "Ann to move") {
		t.Errorf("the friend's board: %q", b.Text)
	}
	id := e.lastBoard(t, 2)
	if bd := e.board(t, id); bd.Status != board.Active || !bd.Private || bd.Control.Name != "corr3d" {
		t.Errorf("the game: %v, private %v, %q", bd.Status, bd.Private, bd.Control.Name)
	}
	e.Send(t, 3, "/start "+code)
	e.WaitText(t, 3, 0, "This invite link has been used already")

	// A link not used in time.
	code = e.invite(t, 1, "Chess", "✉️ Invite a friend", "no clock")
	e.clock.advance(25 * time.Hour)
	e.Send(t, 4, "/start "+code)
	e.WaitText(t, 4, 0, "This invite link has expired")
	// A made-up code, and a plain /start, which greets as before.
	e.Send(t, 4, "/start gAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")
	e.WaitText(t, 4, 0, "There is no such game or invite")
	e.Send(t, 4, "/start")
	e.WaitText(t, 4, 0, "Hello, <b>Dan</b>")

	// Ann gives up waiting for the chess game.
	waiting := e.WaitMessage(t, 1, 0, "the waiting notice", func(m tgemu.Message) bool { return m.Button("✖ Stop waiting") != "" })
	e.Press(t, 1, waiting, "✖ Stop waiting")
	e.WaitText(t, 1, 0, "You no longer wait for an opponent")
	if n := e.QueryInt(t, `SELECT count(*) FROM board_session WHERE status = 'aborted'`); n != 1 {
		t.Errorf("%d games given up, want 1", n)
	}
}

// Ensure "find an opponent" pairs players who want the same game and clock, and only them, and
// that a player already waiting gets the notice again rather than a second game.
func TestFindOpponent(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.start(t)
	for id, name := range map[int64]string{1: "Ann", 2: "Boris", 3: "Carl"} {
		e.user(t, id, name, "en")
	}
	e.menu(t, 1, "/games", "Chess", "🔎 Find an opponent", "1 day a move")
	first := e.WaitText(t, 1, 0, "Waiting for an opponent: Chess, 1 day a move")
	e.menu(t, 1, "/games", "Chess", "🔎 Find an opponent", "1 day a move")
	e.WaitTextAfter(t, 1, first.ID, "Waiting for an opponent: Chess, 1 day a move")
	e.WaitFor(t, "the old notice gone", func() bool { return e.CountText(1, "Waiting for an opponent") == 1 })
	e.menu(t, 2, "/games", "Chess", "🔎 Find an opponent", "3 days a move") // another clock
	e.WaitText(t, 2, 0, "Waiting for an opponent: Chess, 3 days a move")
	e.menu(t, 3, "/games", "Chess", "🔎 Find an opponent", "1 day a move")
	e.waitCaption(t, 1, "Carl joined")
	e.waitCaption(t, 3, "Chess")
	if n := e.QueryInt(t, `SELECT count(*) FROM board_session`); n != 2 {
		t.Errorf("%d games, want 2", n)
	}
	if e.lastBoard(t, 1) != e.lastBoard(t, 3) {
		t.Error("Ann and Carl do not play together")
	}
	// /mygames lists Boris's waiting game; its button brings the notice back.
	e.Send(t, 2, "/mygames")
	list := e.WaitTextAfter(t, 2, 0, "Your games")
	if got := labels(list); len(got) != 1 || got[0] != "Chess · … · waiting for an opponent" {
		t.Errorf("/mygames: %v", got)
	}
	notice := e.WaitText(t, 2, 0, "Waiting for an opponent")
	e.Press(t, 2, list, labels(list)[0])
	e.WaitTextAfter(t, 2, list.ID, "Waiting for an opponent: Chess, 3 days a move")
	e.WaitFor(t, "the old notice gone", func() bool {
		for _, m := range e.BotMessages(2) {
			if m.ID == notice.ID {
				return false
			}
		}
		return true
	})
	// Carl's list: the game where it is his turn first.
	e.Send(t, 3, "/mygames")
	list = e.WaitTextAfter(t, 3, 0, "Your games")
	want := "Chess · Ann · their turn"
	if bd := e.board(t, e.lastBoard(t, 3)); bd.Seats[bd.ToMove].User == 3 {
		want = "Chess · Ann · your turn"
	}
	if got := labels(list); len(got) != 1 || got[0] != want {
		t.Errorf("Carl's /mygames: %v, want %s", got, want)
	}
}

// Ensure the clean-up closes a game nobody joined within a week, telling its creator once, and
// deletes the expired invites.
func TestCleanup(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.jobs.cleanup = true
	e.start(t)
	e.user(t, 1, "Ann", "en")
	e.user(t, 2, "Boris", "ru")
	e.menu(t, 1, "/games", "Chess", "🔎 Find an opponent", "no clock")
	e.WaitText(t, 1, 0, "Waiting for an opponent")
	e.invite(t, 2, "Русские шашки", "✉️ Пригласить друга", "без часов")
	e.clock.advance(board.WaitingLifetime + time.Hour)
	e.WaitText(t, 1, 0, "Nobody joined your game of Chess within a week")
	e.WaitText(t, 2, 0, "За неделю никто не присоединился к вашей партии (Русские шашки)")
	e.WaitFor(t, "the invite deleted", func() bool { return e.QueryInt(t, `SELECT count(*) FROM board_invite`) == 0 })
	e.WaitIdle(t)
	if n := e.QueryInt(t, `SELECT count(*) FROM board_session WHERE status = 'aborted'`); n != 2 {
		t.Errorf("%d games closed, want 2", n)
	}
	if n := e.CountText(1, "Nobody joined"); n != 1 {
		t.Errorf("Ann was told %d times", n)
	}
}
