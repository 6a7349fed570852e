package telegram_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/questbot/questbot/bot"
	"github.com/questbot/questbot/bot/boards"
	"github.com/questbot/questbot/bot/emulator/tgemu"
)

// notes counts the board pictures of a user's chat that carry a notification's note.
func (e *env) notes(user int64) int {
	n := 0
	for _, m := range e.BotMessages(user) {
		if m.Photo != "" && strings.Contains(m.Text, "🔔") {
			n++
		}
	}
	return n
}

// pending counts the pending notifications of a board's seat.
func (e *env) pending(t *testing.T, id int64, seat int) int {
	t.Helper()
	return e.QueryInt(t, `SELECT count(*) FROM board_notification WHERE board_id = $1 AND seat = $2`, id, seat)
}

// play has the player to move on a board type the move a short search chooses (or, when avoid
// is that move, another legal one) and waits for it; it returns the move's text.
func (e *env) play(t *testing.T, id int64, avoid string) string {
	t.Helper()
	bd := e.board(t, id)
	user := bd.Seats[bd.ToMove].User
	e.turn(t, user, id, bd.Ply())
	g := e.replay(t, id)
	mv := choose(t, g, 300)
	if mv.String() == avoid {
		for _, m := range g.LegalMoves() {
			if m.String() != avoid {
				mv = m
				break
			}
		}
	}
	e.Send(t, user, typed(g, mv, user == 2))
	e.waitPly(t, id, bd.Ply()+1)
	return mv.String()
}

// settle runs the jobs once more, after what the test did (a move, the clock moved on), and
// waits until everything they queued is sent.
func (e *env) settle(t *testing.T) {
	t.Helper()
	e.WaitIdle(t)
	e.running.Settle(t)
	e.WaitIdle(t)
}

// notifications reads the notifications counter by outcome.
func (e *env) notifications(t *testing.T) map[string]float64 {
	t.Helper()
	reg := prometheus.NewRegistry()
	if err := e.app.Boards.Register(reg); err != nil {
		t.Fatal(err)
	}
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, f := range families {
		if f.GetName() != "questbot_board_notifications_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "outcome" {
					out[l.GetValue()] = m.GetCounter().GetValue()
				}
			}
		}
	}
	return out
}

// Ensure a move in a correspondence game (by default notified after 15 minutes) changes the
// opponent's board in place, silently, and notifies them once after the delay with a new board
// that says who played what in which game and links to the web page; that a move taken back and
// played again makes one notification, of the latest; that a move seen before the delay, in
// Telegram or on the web, is not notified; and that a user who blocked the bot gets none.
func TestNotifyAfterDelay(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.start(t)
	id := e.startPair(t, "Russian draughts", "1 day a move", "Русские шашки", "1 день на ход")
	users := e.seats(t, id)
	x, y := users[0], users[1] // x moves first
	e.turn(t, x, id, 0)
	before, _ := e.boardMessage(y)
	count := len(e.BotMessages(y))

	first := e.play(t, id, "")
	m := e.turn(t, y, id, 1)
	if m.ID != before.ID || len(e.BotMessages(y)) != count {
		t.Errorf("the move was sent anew (message %d, was %d; %d messages, were %d), want the board edited",
			m.ID, before.ID, len(e.BotMessages(y)), count)
	}
	if n := e.pending(t, id, 1); n != 1 {
		t.Fatalf("%d notifications pending, want 1", n)
	}

	// Taken back and played otherwise: still one notification pending, of the new move.
	undo := map[int64]string{1: "⟲ Take back", 2: "⟲ Вернуть ход"}[x]
	xm := e.waitBoard(t, x, "the take-back button", func(m tgemu.Message) bool { return m.Button(undo) != "" })
	e.Press(t, x, xm, undo)
	e.WaitFor(t, "the move taken back", func() bool { return e.board(t, id).Ply() == 0 })
	second := e.play(t, id, first)
	e.turn(t, y, id, 1)
	if n := e.QueryInt(t, `SELECT count(*) FROM board_notification WHERE board_id = $1 AND seat = 1 AND ply = 1 AND kind = 'move'`, id); n != 1 {
		t.Fatalf("%d notifications of the move pending, want 1", n)
	}
	e.clock.advance(14 * time.Minute)
	e.settle(t)
	if n := len(e.BotMessages(y)); n != count {
		t.Errorf("%d messages before the delay, want %d", n, count)
	}

	e.clock.advance(2 * time.Minute)
	note := e.waitBoard(t, y, "the notification", func(m tgemu.Message) bool { return strings.Contains(m.Text, "🔔") })
	link := fmt.Sprintf("%s/play/%d", testPublicURL, id)
	who := map[int64]string{1: "Ann", 2: "Boris"}[x]
	if !strings.Contains(note.Text, who) || !strings.Contains(note.Text, second) || !strings.Contains(note.Text, link) ||
		!strings.Contains(note.Text, map[int64]string{1: "Russian draughts", 2: "Русские шашки"}[y]) {
		t.Errorf("the notification says %q; want %s, %s, the game and %s", note.Text, who, second, link)
	}
	if len(note.Keyboard) == 0 || !strings.HasPrefix(note.Keyboard[0][0].Data, fmt.Sprintf("g:%d:1:", id)) {
		t.Errorf("the notification has no buttons to answer: %v", labels(note))
	}
	e.WaitFor(t, "the notification delivered", func() bool { return e.pending(t, id, 1) == 0 })
	e.settle(t)
	if n := e.notes(y); n != 1 {
		t.Errorf("%d notifications, want 1", n)
	}
	if n := e.QueryInt(t, `SELECT count(*) FROM board_telegram_message WHERE board_id = $1`, id); n != 2 {
		t.Errorf("%d board messages recorded, want 2", n)
	}

	// y answers; x looks at the board (a tap) before the delay: no notification.
	e.play(t, id, "")
	e.WaitFor(t, "x's notification pending", func() bool { return e.pending(t, id, 0) == 1 })
	xm = e.turn(t, x, id, 2)
	e.Press(t, x, xm, xm.Keyboard[0][0].Text)
	e.WaitFor(t, "x's notification dropped", func() bool { return e.pending(t, id, 0) == 0 })
	e.clock.advance(16 * time.Minute)
	e.settle(t)
	if n := e.notes(x); n != 0 {
		t.Errorf("x was notified of a move they had seen")
	}

	// x plays; y sees the move on the web (the seat's seen ply) before the delay.
	e.play(t, id, "")
	e.WaitFor(t, "y's notification pending", func() bool { return e.pending(t, id, 1) == 1 })
	if err := e.webDo(func(ctx context.Context, tx bot.Tx) error {
		return e.webSeen(ctx, tx, y, id, 3)
	}); err != nil {
		t.Fatal(err)
	}
	e.clock.advance(16 * time.Minute)
	e.WaitFor(t, "y's notification dropped", func() bool { return e.pending(t, id, 1) == 0 })
	e.settle(t)
	if n := e.notes(y); n != 0 {
		t.Errorf("y was notified of a move seen on the web")
	}

	// y plays; x blocks the bot before the delay.
	e.play(t, id, "")
	e.WaitFor(t, "x's notification pending", func() bool { return e.pending(t, id, 0) == 1 })
	e.Exec(t, `UPDATE users SET blocked_at = now() WHERE id = $1`, x)
	e.clock.advance(16 * time.Minute)
	e.WaitFor(t, "x's notification dropped", func() bool { return e.pending(t, id, 0) == 0 })
	e.settle(t)
	if n := e.notes(x); n != 0 {
		t.Errorf("x, who blocked the bot, was notified")
	}
	got := e.notifications(t)
	// Seen: the tap, the web, and the start of the game when its creator moved first.
	if got["sent"] != 1 || got["seen"] < 2 || got["seen"] > 3 || got["blocked"] != 1 {
		t.Errorf("notifications counted %v; want 1 sent, 2 or 3 seen, 1 blocked", got)
	}
}

// Ensure /notify shows the setting and changes it with its buttons, in English and Russian; that
// "never" changes the board in place and notifies nothing; and that quiet hours hold a
// notification "at once" until their end.
func TestNotifyQuietAndNever(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.start(t)
	id := e.startPair(t, "Russian draughts", "no clock", "Русские шашки", "без часов")

	after := e.LastID(2)
	e.Send(t, 2, "/notify")
	m := e.WaitTextAfter(t, 2, after, "Уведомления о ваших партиях")
	if !strings.Contains(m.Text, "по контролю времени") || !strings.Contains(m.Text, "Тихие часы: <b>нет</b>") {
		t.Errorf("Boris's setting: %q", m.Text)
	}
	e.Press(t, 2, m, "Никогда")
	e.WaitFor(t, "Boris's choice shown", func() bool {
		return e.CountText(2, "Когда соперник сходил: <b>Никогда</b>") == 1
	})

	after = e.LastID(1)
	e.Send(t, 1, "/notify")
	m = e.WaitTextAfter(t, 1, after, "Notifications of your board games")
	if !strings.Contains(m.Text, "by the game&#39;s clock") || !strings.Contains(m.Text, "Quiet hours: <b>none</b>") {
		t.Errorf("Ann's setting: %q", m.Text)
	}
	for _, c := range []struct{ label, shown string }{
		{"At once", "When your opponent moves: <b>At once</b>"},
		{"🌙 23:00–08:00", "Quiet hours: <b>23:00–08:00</b>"},
		{"UTC +1 h", "(UTC+1)"},
	} {
		e.Press(t, 1, m, c.label)
		e.WaitFor(t, "Ann's choice "+c.label, func() bool { return e.CountText(1, c.shown) == 1 })
	}
	if n := e.QueryInt(t, `SELECT count(*) FROM board_notify_setting WHERE user_id = 1 AND delay = 'now'
		AND quiet_from = 23 AND quiet_to = 8 AND utc_offset = 60`); n != 1 {
		t.Errorf("Ann's setting is not stored")
	}
	if n := e.QueryInt(t, `SELECT count(*) FROM board_notify_setting WHERE user_id = 2 AND delay = 'never' AND quiet_from IS NULL`); n != 1 {
		t.Errorf("Boris's setting is not stored")
	}
	// Ann's quiet hours from the hour it is now, for two hours (set directly: the buttons
	// offer the usual nights).
	hour := e.clock.now().UTC().Hour()
	e.Exec(t, `UPDATE board_notify_setting SET quiet_from = $1, quiet_to = $2, utc_offset = 0 WHERE user_id = 1`, hour, (hour+2)%24)

	// The messages but the answers to the typed moves, which come at the bottom of the mover's
	// chat.
	boards := func(u int64) int { return len(e.BotMessages(u)) - e.CountText(u, "✅") }
	counts := [3]int{0, boards(1), boards(2)}
	users := e.seats(t, id)
	e.play(t, id, "")
	e.play(t, id, "")
	if users[1] == 1 {
		e.play(t, id, "") // the last news is Ann's
	}
	ann := 0
	if users[1] == 1 {
		ann = 1
	}
	e.WaitFor(t, "Ann's notification pending", func() bool { return e.pending(t, id, ann) == 1 })
	if n := e.pending(t, id, 1-ann); n != 0 {
		t.Errorf("%d notifications pending for Boris, who wants none", n)
	}
	e.clock.advance(16 * time.Minute)
	e.settle(t)
	for u := int64(1); u <= 2; u++ {
		if n := boards(u); n != counts[u] {
			t.Errorf("user %d: %d messages, want %d: every board edited in place", u, n, counts[u])
		}
	}
	e.clock.advance(2 * time.Hour)
	e.waitBoard(t, 1, "the notification after the quiet hours", func(m tgemu.Message) bool { return strings.Contains(m.Text, "🔔") })
	e.settle(t)
	if na, nb := e.notes(1), e.notes(2); na != 1 || nb != 0 {
		t.Errorf("notifications: %d to Ann, want 1; %d to Boris, want 0", na, nb)
	}
}

// Ensure a pending notification survives a restart of the bot between the move and its
// delivery, and is sent once even when several jobs of two bots run at the same time.
func TestNotifyOnce(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.jobs.notify = false
	p := e.start(t)
	id := e.startPair(t, "Russian draughts", "3 days a move", "Русские шашки", "3 дня на ход")
	y := e.seats(t, id)[1]
	e.play(t, id, "")
	e.WaitFor(t, "the notification pending", func() bool { return e.pending(t, id, 1) == 1 })
	p.Stop()
	e.start(t)
	e.clock.advance(16 * time.Minute)
	other := e.newBot()
	var wg sync.WaitGroup
	for i := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b := e.app.Boards
			if i%2 == 1 {
				b = other.Boards
			}
			if err := b.Notify(context.Background(), boards.DoerOf(e.proc.Transport.Do)); err != nil {
				t.Errorf("the job: %v", err)
			}
		}()
	}
	wg.Wait()
	if n := e.pending(t, id, 1); n != 0 {
		t.Errorf("%d notifications still pending", n)
	}
	e.waitBoard(t, y, "the notification", func(m tgemu.Message) bool { return strings.Contains(m.Text, "🔔") })
	e.WaitIdle(t)
	if n := e.notes(y); n != 1 {
		t.Errorf("%d notifications, want 1", n)
	}
}

// Ensure a player with a clock of minutes is reminded once, with their board anew, when a fifth
// of their main time is left (2 minutes of 10), and their opponent is not.
func TestClockReminder(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.start(t)
	id := e.startPair(t, "Russian draughts", "10 min + 5 s per move", "Русские шашки", "10 мин на партию + 5 с за ход")
	users := e.seats(t, id)
	// A clock of the game: the time is on the player's clock, never "for the move".
	yours := map[int64]string{1: "left on your clock", 2: "На ваших часах осталось"}
	theirs := map[int64]string{1: "left on the opponent's clock", 2: "На часах соперника осталось"}
	perMove := map[int64]string{1: "for the move", 2: "На ход"}
	if m := e.turn(t, users[0], id, 0); !strings.Contains(m.Text, yours[users[0]]) || strings.Contains(m.Text, perMove[users[0]]) {
		t.Errorf("the board of the player to move: %q", m.Text)
	}
	if m := e.waitCaption(t, users[1], theirs[users[1]]); strings.Contains(m.Text, perMove[users[1]]) {
		t.Errorf("the board of the player waiting: %q", m.Text)
	}
	e.clock.advance(7 * time.Minute)
	e.settle(t)
	if n := e.CountText(users[0], "⏰"); n != 0 {
		t.Errorf("reminded with 3 minutes left")
	}
	e.clock.advance(90 * time.Second)
	m := e.waitCaption(t, users[0], "⏰")
	if !strings.Contains(m.Text, "1:2") && !strings.Contains(m.Text, "1:3") {
		t.Errorf("the reminder: %q", m.Text)
	}
	if clock := map[int64]string{1: "left on your clock!", 2: "На ваших часах осталось"}[users[0]]; !strings.Contains(m.Text[strings.Index(m.Text, "⏰"):], clock) {
		t.Errorf("the reminder does not speak of the clock: %q", m.Text)
	}
	e.clock.advance(10 * time.Second)
	e.settle(t)
	if n, o := e.CountText(users[0], "⏰"), e.CountText(users[1], "⏰"); n != 1 || o != 0 {
		t.Errorf("%d reminders, want 1; %d to the opponent, want 0", n, o)
	}
}

// Ensure a correspondence reminder that comes while a notification is still pending for the
// player brings its news too (one board anew, with both notes), and the pending notification is
// gone, so that no later board drops the reminder's words.
func TestReminderTakesPendingNotice(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.jobs.notify = false
	e.start(t)
	id := e.startPair(t, "Russian draughts", "1 day a move", "Русские шашки", "1 день на ход")
	bd := e.board(t, id)
	if e.pending(t, id, bd.ToMove) != 1 {
		// The news of the start is pending for the other player: a move makes it theirs to move,
		// with the move's news pending instead.
		e.play(t, id, "")
		bd = e.board(t, id)
	}
	seat := bd.ToMove
	user := bd.Seats[seat].User
	if n := e.pending(t, id, seat); n != 1 {
		t.Fatalf("%d notifications pending for the player to move, want 1", n)
	}
	e.clock.advance(22*time.Hour + time.Minute)
	m := e.waitCaption(t, user, "⏰")
	if !strings.Contains(m.Text, "🔔") {
		t.Errorf("the reminder does not carry the pending news: %q", m.Text)
	}
	if n := e.pending(t, id, seat); n != 0 {
		t.Errorf("%d notifications still pending after the reminder", n)
	}
}
