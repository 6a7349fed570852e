package boards

import (
	"context"
	"fmt"
	"html"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/questbot/questbot/bot"
	"github.com/questbot/questbot/bot/texts"
	"github.com/questbot/questbot/scripts"
	"github.com/questbot/questbot/sessions/board"
)

// # Notifications of pending moves
//
// Telegram rings for a new message, not for an edit. A change that is news for a player (the
// opponent moved, offered a draw, joined, or the game ended behind their back: see effect)
// therefore either sends their board anew at the bottom of the chat, which is the notification,
// or changes it in place silently and leaves a pending notification for later. Which one is the
// player's setting (/notify, table board_notify_setting):
//
//   - the delay: at once, 15 minutes, an hour or never; by default by the game's clock: at once
//     without a clock and with a clock of minutes (Fischer, byo-yomi, sandglass: a player who
//     waits minutes for a reply wants it at once), 15 minutes for correspondence (a day or three
//     days a move: the players come and go, and a move answered within a quarter of an hour
//     needs no sound);
//   - quiet hours: whole hours of the player's day in their UTC offset (which they set there
//     too, Telegram does not tell it), during which notifications wait for the end.
//
// News at once outside the quiet hours is sent at once, as before the delays existed, and any
// notification still pending for that board and seat is dropped, since the new message is it.
// Otherwise the board is edited in place (a board too old to edit, or not sent yet, is sent anew
// without a sound: disable_notification) and one row of board_notification per board and seat
// is upserted, due at now+delay moved past the quiet hours: a newer news of the board replaces
// it, so notifications never stack. "Never" edits in place and leaves no row.
//
// The Notify job (NotifySpec) finds the due rows and, per board, in a transaction of the
// board's bot with the board locked (the lock order of the moves: board, then row), claims them
// FOR UPDATE SKIP LOCKED and deletes each in the transaction that queues its message in the
// outbox. So a notification is never lost across a restart (the row stays until its message is
// queued) and never sent twice, even by two processes (the second finds the row gone). A row
// is dropped without a message when the seat has seen the news meanwhile (Seats[seat].Seen at
// the ply of a move: set by a press of the board, a typed move, /mygames or the web page), when
// it is no longer news (the move was taken back, the draw offer answered, the game aborted), or
// when the user blocked the bot. A press of the board in Telegram drops the seat's pending row
// at once (seen). The message is the board anew at the bottom of the chat, its buttons ready to
// answer, with a note of who did what in which game and the link to the game's web page
// (PlayURL) when there is a web game server.
//
// Clock reminders: the Reminders job warns a correspondence player two hours before the
// deadline (package board's rule), and a player with a clock of minutes when a fifth of their
// main time, or a minute if more, is left (clockLead), once a ply, and only when they have not
// touched the board at this ply: a player entering a move is not interrupted by a board sent
// anew under their fingers. Reminders are not held back by quiet hours (the clock runs through
// them); "never" silences them (the board changes in place); a user who blocked the bot gets
// none.

// A player on the web: while a player acts on the game on the web (a move, an answer, the moves
// seen on the page or through the API; board_message.web_at, within webPresence), news of it
// does not ring in Telegram at once, whatever the delay: their Telegram board is changed in place
// silently, and the notification waits at least webGrace, which the web page's "seen" (or their
// next move) drops. A player who left the page hears of the news webGrace late.

// webPresence is how long after their last action on the web a player counts as on the web.
const webPresence = 10 * time.Minute

// webGrace is the least delay of a notification for a player on the web.
const webGrace = time.Minute

// NotifySpec is the spec of the notifications job.
const NotifySpec = "@every 10s"

// The kinds of news a notification tells.
const (
	newsStart = "start" // the opponent joined
	newsMove  = "move"  // the opponent moved (and maybe ended the game with it)
	newsOffer = "offer" // the opponent offers a draw
	newsEnd   = "end"   // the game ended otherwise (resignation, time, agreement)
)

// news is what reached a seat from elsewhere: its kind, the board's ply then, and the seat that
// made it (noSeat: the clock).
type news struct {
	kind  string
	ply   int
	actor int
}

// notifySetting is a user's notification setting (board.NotifySetting).
type notifySetting struct {
	// delay is "" (by the game's clock), "now", "15m", "1h" or "never".
	delay string
	// quiet is set when the user has quiet hours, from (inclusive) to (exclusive), whole hours
	// of their day.
	quiet    bool
	from, to int
	// offset is the user's UTC offset in minutes.
	offset int
}

// delays are the notification delays, by their stored names ("never" is none).
var delays = map[string]time.Duration{"now": 0, "15m": 15 * time.Minute, "1h": time.Hour}

// delayNames are the delays in menu order.
var delayNames = []string{"now", "15m", "1h", "never"}

// defaultDelay is the delay of a game's time control when the user chose none: 15 minutes for
// correspondence, at once otherwise.
func defaultDelay(tc board.TimeControl) string {
	if tc.Mode == board.ClockCorrespondence {
		return "15m"
	}
	return "now"
}

// after returns how long news waits before it is notified in a game of time control tc, and
// whether it is never notified.
func (s notifySetting) after(tc board.TimeControl) (time.Duration, bool) {
	name := s.delay
	if name == "" {
		name = defaultDelay(tc)
	}
	d, ok := delays[name]
	return d, !ok
}

// quietUntil returns the end of the quiet hours t falls in, or t when it falls in none.
func (s notifySetting) quietUntil(t time.Time) time.Time {
	if !s.quiet {
		return t
	}
	off := time.Duration(s.offset) * time.Minute
	local := t.UTC().Add(off) // the user's clock, read as UTC
	h := local.Hour()
	in := (s.from < s.to && h >= s.from && h < s.to) || (s.from > s.to && (h >= s.from || h < s.to))
	if !in {
		return t
	}
	end := time.Date(local.Year(), local.Month(), local.Day(), s.to, 0, 0, 0, time.UTC)
	if !end.After(local) {
		end = end.AddDate(0, 0, 1)
	}
	return end.Add(-off)
}

// loadSetting reads a user's notification setting; the defaults when they never chose.
func (b *Boards) loadSetting(ctx context.Context, tx bot.Tx, user int64) (notifySetting, error) {
	set, err := b.store(tx.DB()).NotifySetting(ctx, user)
	return notifySetting{delay: set.Delay, quiet: set.Quiet, from: set.From, to: set.To, offset: set.Offset}, err
}

// saveSetting stores a user's notification setting.
func (b *Boards) saveSetting(ctx context.Context, tx bot.Tx, user int64, s notifySetting) error {
	return b.store(tx.DB()).SaveNotifySetting(ctx, user,
		board.NotifySetting{Delay: s.delay, Quiet: s.quiet, From: s.from, To: s.to, Offset: s.offset})
}

// notice decides how news reaches a human seat (see the top of this file): sent at once (the
// board anew, showNew), or the board changed in place silently (showQuiet) with a notification
// pending or, for "never", none.
func (b *Boards) notice(ctx context.Context, tx bot.Tx, sc *scene, seat int, n news) (showMode, error) {
	bd := sc.bd
	set, err := b.loadSetting(ctx, tx, bd.Seats[seat].User)
	if err != nil {
		return 0, err
	}
	now := b.now()
	wait, never := set.after(bd.Control)
	if at := sc.web[seat]; !never && wait < webGrace && !at.IsZero() && now.Sub(at) < webPresence {
		// On the web: the page shows the news and says so (seen), which drops the notification.
		wait = webGrace
	}
	due := set.quietUntil(now.Add(wait))
	st := b.store(tx.DB())
	if never || !due.After(now) {
		if _, err := st.DropNotice(ctx, bd.ID, seat); err != nil {
			return 0, err
		}
		if never {
			return showQuiet, nil
		}
		b.metrics.Notifications.WithLabelValues("at_once").Inc()
		return showNew, nil
	}
	notice := board.Notice{Seat: seat, Ply: n.ply, Kind: n.kind, Actor: n.actor, Due: due}
	if err := st.PendNotice(ctx, bd.ID, notice, now); err != nil {
		return 0, err
	}
	return showQuiet, nil
}

// cancelNotice drops a seat's pending notification of a board: the player has seen the board.
func (b *Boards) cancelNotice(ctx context.Context, tx bot.Tx, id int64, seat int) error {
	dropped, err := b.store(tx.DB()).DropNotice(ctx, id, seat)
	if err != nil {
		return err
	}
	if dropped {
		b.metrics.Notifications.WithLabelValues("seen").Inc()
	}
	return nil
}

// Notify is the job of the pending notifications (NotifySpec): it sends each notification that
// is due and still news, and drops the others (see the top of this file).
func (b *Boards) Notify(ctx context.Context, do Doer) error {
	found, err := b.dueBoards(ctx, do, func(ctx context.Context, st Store) ([]board.Ref, error) {
		return st.DueNoticeBoards(ctx, b.now(), maxSettle)
	})
	if err != nil {
		return fmt.Errorf("boards: notifications: %w", err)
	}
	return b.settle(ctx, do, "notify", found, func(ctx context.Context, tx bot.Tx, _ Store, bd *board.Board) error {
		return b.deliver(ctx, tx, bd)
	})
}

// pending is a claimed notification of a board.
type pending struct {
	seat int
	news
}

// pendingOf is a stored notification as the job judges it.
func pendingOf(n board.Notice) pending {
	return pending{seat: n.Seat, news: news{kind: n.Kind, ply: n.Ply, actor: n.Actor}}
}

// deliver sends the due notifications of a board locked in tx, or drops them, deleting their
// rows.
func (b *Boards) deliver(ctx context.Context, tx bot.Tx, bd *board.Board) error {
	st := b.store(tx.DB())
	notices, err := st.ClaimNotices(ctx, bd.ID, b.now())
	if err != nil {
		return err
	}
	list := make([]pending, len(notices))
	for i, n := range notices {
		list[i] = pendingOf(n)
	}
	if len(list) == 0 {
		return nil // delivered by another process meanwhile
	}
	sc, err := b.newScene(ctx, tx, bd)
	if err != nil {
		return err
	}
	for _, p := range list {
		if _, err := st.DropNotice(ctx, bd.ID, p.seat); err != nil {
			return err
		}
		outcome := judge(sc, p)
		b.metrics.Notifications.WithLabelValues(outcome).Inc()
		if outcome != "sent" {
			b.log.Debug("A notification dropped", slog.Int64("board", bd.ID), slog.Int("seat", p.seat), slog.String("why", outcome))
			continue
		}
		c := texts.For(sc.players[p.seat].Lang)
		if err := b.show(ctx, tx, sc, p.seat, showNew, b.noticeNote(c, sc, p), nil, false, 0); err != nil {
			return err
		}
	}
	return nil
}

// judge tells what becomes of a due notification: "sent", or dropped as "blocked" (nobody to
// send it to), "seen" (the seat has seen the move) or "stale" (no longer news).
func judge(sc *scene, p pending) string {
	bd := sc.bd
	if pl := sc.players[p.seat]; pl == nil || pl.Blocked {
		return "blocked"
	}
	if bd.Status == board.Waiting || bd.Status == board.Aborted || bd.Ply() < p.ply {
		return "stale"
	}
	switch p.kind {
	case newsMove:
		if bd.Ply() != p.ply || p.ply == 0 {
			return "stale" // the board moved on: a newer news replaced this one, or was seen
		}
		if bd.Seats[p.seat].Seen >= p.ply {
			return "seen"
		}
	case newsOffer:
		if bd.Status != board.Active || bd.Offer == nil || bd.Offer.Seat == p.seat {
			return "stale"
		}
	case newsStart:
		if bd.Status != board.Active {
			return "stale"
		}
	}
	return "sent"
}

// noticeNote is the note of a notification: who did what in which game, and the link to the
// game's web page when there is a web game server.
func (b *Boards) noticeNote(c *texts.Catalog, sc *scene, p pending) string {
	bd, t := sc.bd, &c.Board
	game := html.EscapeString(c.Game(bd.Variant))
	var note string
	switch p.kind {
	case newsMove:
		m := bd.Moves[p.ply-1]
		note = fmt.Sprintf(t.NotifyMoved, sc.name(c, m.Seat), html.EscapeString(m.Text), game)
	case newsOffer:
		note = fmt.Sprintf(t.NotifyOffer, sc.name(c, bd.Offer.Seat), game)
	case newsStart:
		note = fmt.Sprintf(t.NotifyStart, sc.name(c, 1-p.seat), game)
	default:
		note = fmt.Sprintf(t.NotifyEnd, game)
	}
	if url := b.PlayURL(bd.ID); url != "" {
		note += "\n" + fmt.Sprintf(t.WebLink, html.EscapeString(url))
	}
	return note
}

// clockLead is how long before a clock of minutes runs out its player is reminded: a fifth of
// the main time, at least a minute.
func clockLead(tc board.TimeControl) time.Duration { return max(tc.Main/5, time.Minute) }

// clocked reports whether a time control runs a clock of minutes.
func clocked(tc board.TimeControl) bool {
	return tc.Mode == board.ClockFischer || tc.Mode == board.ClockByoyomi || tc.Mode == board.ClockSandglass
}

// dueBoards lists the boards a store's query finds due now, with their bots, in a transaction
// it rolls back; each is then handled in a transaction of its own (settle).
func (b *Boards) dueBoards(ctx context.Context, do Doer, query func(ctx context.Context, st Store) ([]board.Ref, error)) ([]due, error) {
	return b.peek(ctx, do, func(ctx context.Context, st Store) ([]due, error) {
		refs, err := query(ctx, st)
		out := make([]due, len(refs))
		for i, r := range refs {
			out[i] = due{r.ID, r.Service}
		}
		return out, err
	})
}

// clockReminders reminds the players with a clock of minutes whose time is nearly out (see the
// top of this file).
func (b *Boards) clockReminders(ctx context.Context, do Doer) error {
	found, err := b.dueBoards(ctx, do, func(ctx context.Context, st Store) ([]board.Ref, error) {
		return st.ClockLeadBoards(ctx, b.now(), maxSettle)
	})
	if err != nil {
		return fmt.Errorf("boards: clock reminders: %w", err)
	}
	return b.settle(ctx, do, "clock-reminders", found, func(ctx context.Context, tx bot.Tx, st Store, bd *board.Board) error {
		now := b.now()
		seat := bd.ToMove
		left := bd.Deadline.Sub(now)
		if bd.Status != board.Active || !clocked(bd.Control) || bd.Deadline.IsZero() || left <= 0 ||
			left > clockLead(bd.Control) || !bd.Seats[seat].Human() {
			return nil
		}
		marked, err := st.MarkClockReminder(ctx, bd.ID, bd.Ply())
		if err != nil {
			return err
		}
		if !marked {
			return nil // reminded at this ply already
		}
		if bd.Ply() > 0 && bd.Seats[seat].Seen >= bd.Ply() {
			return nil // the player is at the board
		}
		return b.remind(ctx, tx, bd, now)
	})
}

// remind brings the board of the player to move back to the bottom of their chat with the time
// left; for a player who wants no notifications the board is changed in place.
func (b *Boards) remind(ctx context.Context, tx bot.Tx, bd *board.Board, now time.Time) error {
	sc, err := b.newScene(ctx, tx, bd)
	if err != nil {
		return err
	}
	p := sc.players[bd.ToMove]
	if p == nil || p.Blocked {
		return nil
	}
	set, err := b.loadSetting(ctx, tx, p.ID)
	if err != nil {
		return err
	}
	mode := showNew
	if _, never := set.after(bd.Control); never {
		mode = showQuiet
	}
	c := texts.For(p.Lang)
	note := fmt.Sprintf(c.Board.Reminder, c.Duration(bd.Deadline.Sub(now)))
	if mode == showNew {
		// The reminder brings the board anew: a notification still pending for the seat goes
		// with it, or its board would come after and drop the reminder's words.
		pend, err := b.takeNotice(ctx, tx, sc, bd.ToMove)
		if err != nil {
			return err
		}
		if pend != "" {
			note = pend + "\n" + note
		}
	}
	return b.show(ctx, tx, sc, bd.ToMove, mode, note, nil, false, 0)
}

// takeNotice removes a seat's pending notification of a board locked in tx, whether due or not,
// and returns its note when it is still news ("" when there is none).
func (b *Boards) takeNotice(ctx context.Context, tx bot.Tx, sc *scene, seat int) (string, error) {
	n, ok, err := b.store(tx.DB()).TakeNotice(ctx, sc.bd.ID, seat)
	if err != nil || !ok {
		return "", err
	}
	p := pendingOf(n)
	outcome := judge(sc, p)
	b.metrics.Notifications.WithLabelValues(outcome).Inc()
	if outcome != "sent" {
		return "", nil
	}
	return b.noticeNote(texts.For(sc.players[seat].Lang), sc, p), nil
}

// # /notify
//
// The built-in board.notify sends the user's setting with buttons to change it; a press
// ("g:n:<what>", see parseNotifyPress) saves the change and edits the message in place.

// notifyPrefix is the start of the callback data of /notify's buttons.
const notifyPrefix = CallbackPrefix + ":n:"

// quietPresets are the quiet hours offered, as [from, to).
var quietPresets = [][2]int{{22, 7}, {23, 8}, {0, 9}}

// maxOffset and minOffset bound the UTC offsets, in minutes.
const (
	minOffset = -12 * 60
	maxOffset = 14 * 60
)

// notifyMenu is the built-in board.notify: the user's setting, with buttons to change it.
func (b *Boards) notifyMenu(ctx context.Context, tx bot.Tx, u *bot.Update, _ map[string]string) (*scripts.Result, error) {
	set, err := b.loadSetting(ctx, tx, u.User.ID)
	if err != nil {
		return nil, err
	}
	text, kb := b.notifyView(texts.For(u.User.Language), set)
	reqs, err := bot.SendHTML(u.Chat, text, kb)
	if err != nil {
		return nil, err
	}
	return &scripts.Result{Code: "ok"}, tx.Send(ctx, reqs...)
}

// notifyPressed carries out a press of /notify's buttons: the setting changed and saved, the
// message edited to show it. Data no button of ours carries changes nothing.
func (b *Boards) notifyPressed(ctx context.Context, tx bot.Tx, u *bot.Update) error {
	cq := u.CallbackQuery
	c := texts.For(u.User.Language)
	set, err := b.loadSetting(ctx, tx, u.User.ID)
	if err != nil {
		return err
	}
	set, err = parseNotifyPress(cq.Data, set)
	if err != nil {
		return tx.Send(ctx, bot.AnswerCallback(u.Chat, cq.ID, c.Bot.Stale))
	}
	if err := b.saveSetting(ctx, tx, u.User.ID, set); err != nil {
		return err
	}
	reqs := []bot.Request{bot.AnswerCallback(u.Chat, cq.ID, c.Board.NotifySaved)}
	if m := cq.Message; m != nil {
		text, kb := b.notifyView(c, set)
		edit, err := bot.EditHTML(u.Chat, m.MessageID, text, kb)
		if err != nil {
			return err
		}
		reqs = append(reqs, edit)
	}
	return tx.Send(ctx, reqs...)
}

// parseNotifyPress applies a press of /notify's buttons to a setting: "d" (the default delay),
// "d<delay>", "q" (no quiet hours), "q<from>-<to>" (a preset), "o+" and "o-" (the UTC offset an
// hour east or west). Returns errForged for anything else.
func parseNotifyPress(data string, s notifySetting) (notifySetting, error) {
	arg, ok := strings.CutPrefix(data, notifyPrefix)
	if !ok || arg == "" {
		return s, fmt.Errorf("%w: %q", errForged, data)
	}
	what, val := arg[0], arg[1:]
	switch what {
	case 'd':
		if _, ok := delays[val]; !ok && val != "" && val != "never" {
			return s, fmt.Errorf("%w: %q", errForged, data)
		}
		s.delay = val
		return s, nil
	case 'q':
		if val == "" {
			s.quiet, s.from, s.to = false, 0, 0
			return s, nil
		}
		for _, q := range quietPresets {
			if val == fmt.Sprintf("%d-%d", q[0], q[1]) {
				s.quiet, s.from, s.to = true, q[0], q[1]
				return s, nil
			}
		}
	case 'o':
		step := map[string]int{"+": 60, "-": -60}[val]
		if step != 0 {
			s.offset = min(max(s.offset+step, minOffset), maxOffset)
			return s, nil
		}
	}
	return s, fmt.Errorf("%w: %q", errForged, data)
}

// notifyView is /notify's message for a setting, and its keyboard (the current choices ticked).
func (b *Boards) notifyView(c *texts.Catalog, s notifySetting) (string, bot.Keyboard) {
	t := &c.Board
	tick := func(on bool, label string) string {
		if on {
			return "✓ " + label
		}
		return label
	}
	btn := func(label, arg string) bot.Button { return bot.Button{Text: label, Data: notifyPrefix + arg} }
	delay := t.NotifyByGame
	if s.delay != "" {
		delay = t.Delays[s.delay]
	}
	quiet := t.QuietNone
	if s.quiet {
		quiet = hours(s.from, s.to)
	}
	local := b.now().UTC().Add(time.Duration(s.offset) * time.Minute).Format("15:04")
	text := fmt.Sprintf(t.NotifyMenu, html.EscapeString(delay), html.EscapeString(quiet), local, offsetText(s.offset))
	var kb bot.Keyboard
	var row []bot.Button
	for _, d := range delayNames {
		row = append(row, btn(tick(s.delay == d, t.Delays[d]), "d"+d))
		if len(row) == 2 {
			kb, row = append(kb, row), nil
		}
	}
	kb = append(kb, []bot.Button{btn(tick(s.delay == "", t.NotifyDefault), "d")})
	row = []bot.Button{btn(tick(!s.quiet, "🔔 "+t.QuietNone), "q")}
	for _, q := range quietPresets {
		on := s.quiet && s.from == q[0] && s.to == q[1]
		row = append(row, btn(tick(on, "🌙 "+hours(q[0], q[1])), fmt.Sprintf("q%d-%d", q[0], q[1])))
	}
	kb = append(kb, row)
	kb = append(kb, []bot.Button{btn(fmt.Sprintf(t.NotifyOffset, "−1"), "o-"), btn(fmt.Sprintf(t.NotifyOffset, "+1"), "o+")})
	return text, kb
}

// hours writes quiet hours.
func hours(from, to int) string { return fmt.Sprintf("%02d:00–%02d:00", from, to) }

// offsetText writes a UTC offset in minutes: "+3", "−5", "+5:30", "" for UTC itself.
func offsetText(m int) string {
	if m == 0 {
		return ""
	}
	sign := "+"
	if m < 0 {
		sign, m = "−", -m
	}
	s := sign + strconv.Itoa(m/60)
	if m%60 != 0 {
		s += fmt.Sprintf(":%02d", m%60)
	}
	return s
}
