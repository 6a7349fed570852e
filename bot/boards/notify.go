package boards

import (
	"context"
	"fmt"
	"log/slog"
	"time"

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
// deadline (package board's rule), and a player with a clock of minutes when their time falls
// under board.ClockLead during a turn (board.NeedsClockReminder), once a ply, and only when they have not
// touched the board at this ply: a player entering a move is not interrupted by a board sent
// anew under their fingers. Reminders are not held back by quiet hours (the clock runs through
// them); "never" silences them (the board changes in place); a user who blocked the bot gets
// none.

// A player on the web: while a player acts on the game on the web (a move, an answer, the moves
// seen on the page or through the API; Scene.Web, within webPresence), news of it
// does not ring in Telegram at once, whatever the delay: their Telegram board is changed in place
// silently, and the notification waits at least webGrace, which the web page's "seen" (or their
// next move) drops. A player who left the page hears of the news webGrace late.

// webPresence is how long after their last action on the web a player counts as on the web.
const webPresence = 10 * time.Minute

// webGrace is the least delay of a notification for a player on the web.
const webGrace = time.Minute

// NotifySpec is the spec of the notifications job.
const NotifySpec = "@every 10s"

// Delays are the notification delays a user may choose, in menu order ("never" is none); ""
// is the default, by the game's clock (defaultDelay).
var Delays = []string{"now", "15m", "1h", "never"}

// delays are the lengths of the delays, by name.
var delays = map[string]time.Duration{"now": 0, "15m": 15 * time.Minute, "1h": time.Hour}

// defaultDelay is the delay of a game's time control when the user chose none: 15 minutes for
// correspondence, at once otherwise.
func defaultDelay(tc board.TimeControl) string {
	if tc.Mode == board.ClockCorrespondence {
		return "15m"
	}
	return "now"
}

// after returns how long news waits under a setting before it is notified in a game of time
// control tc, and whether it is never notified.
func after(s board.NotifySetting, tc board.TimeControl) (time.Duration, bool) {
	name := s.Delay
	if name == "" {
		name = defaultDelay(tc)
	}
	d, ok := delays[name]
	return d, !ok
}

// quietUntil returns the end of the setting's quiet hours t falls in, or t when it falls in
// none.
func quietUntil(s board.NotifySetting, t time.Time) time.Time {
	if !s.Quiet {
		return t
	}
	off := time.Duration(s.Offset) * time.Minute
	local := t.UTC().Add(off) // the user's clock, read as UTC
	h := local.Hour()
	in := (s.From < s.To && h >= s.From && h < s.To) || (s.From > s.To && (h >= s.From || h < s.To))
	if !in {
		return t
	}
	end := time.Date(local.Year(), local.Month(), local.Day(), s.To, 0, 0, 0, time.UTC)
	if !end.After(local) {
		end = end.AddDate(0, 0, 1)
	}
	return end.Add(-off)
}

// notice decides how news reaches a human seat (see the top of this file): at once, or later
// (a notification pending) or never, the board shown silently meanwhile. It reads the scene
// only (the seat's setting and time on the web are in it) and returns the write of the seat's
// pending notification the decision makes, which the change's record carries out (record).
func (b *Boards) notice(sc *Scene, seat int, n News) (Hearing, board.NoticeWrite) {
	bd := sc.Board
	set := sc.Notify[seat]
	now := b.now()
	wait, never := after(set, bd.Control)
	if at := sc.Web[seat]; !never && wait < webGrace && !at.IsZero() && now.Sub(at) < webPresence {
		// On the web: the page shows the news and says so (seen), which drops the notification.
		wait = webGrace
	}
	due := quietUntil(set, now.Add(wait))
	drop := board.NoticeWrite{Board: bd.ID, Notice: board.Notice{Seat: seat}, Drop: true}
	if never {
		return HearLater, drop
	}
	if !due.After(now) {
		return HearNow, drop
	}
	notice := board.Notice{Seat: seat, Ply: n.Ply, Kind: n.Kind, Actor: n.Actor, Due: due}
	return HearLater, board.NoticeWrite{Board: bd.ID, Notice: notice, Now: now}
}

// cancelNotice drops a seat's pending notification of a board: the player has seen the board.
func (b *Boards) cancelNotice(ctx context.Context, tx Tx, id int64, seat int) error {
	dropped, err := b.store(tx.DB()).DropNotice(ctx, id, seat)
	if err != nil {
		return err
	}
	if dropped {
		b.metrics.Notifications.WithLabelValues("seen").Inc()
	}
	return nil
}

// Notify is the job of the pending notifications (NotifySpec): it has the views tell each
// notification that is due and still news, and drops the others (see the top of this file).
func (b *Boards) Notify(ctx context.Context, do Doer) error {
	found, err := b.dueBoards(ctx, do, func(ctx context.Context, st Store) ([]board.Ref, error) {
		return st.DueNoticeBoards(ctx, b.now(), maxSettle)
	})
	if err != nil {
		return fmt.Errorf("boards: notifications: %w", err)
	}
	return b.settle(ctx, do, "notify", found, func(ctx context.Context, tx Tx, _ Store, bd *board.Board) error {
		return b.deliver(ctx, tx, bd)
	})
}

// deliver tells the due notifications of a board locked in tx, or drops them, deleting their
// rows.
func (b *Boards) deliver(ctx context.Context, tx Tx, bd *board.Board) error {
	st := b.store(tx.DB())
	notices, err := st.ClaimNotices(ctx, bd.ID, b.now())
	if err != nil {
		return err
	}
	if len(notices) == 0 {
		return nil // delivered by another process meanwhile
	}
	sc, err := b.Scene(ctx, tx.DB(), bd)
	if err != nil {
		return err
	}
	for _, n := range notices {
		if _, err := st.DropNotice(ctx, bd.ID, n.Seat); err != nil {
			return err
		}
		news := News{Kind: n.Kind, Ply: n.Ply, Actor: n.Actor}
		outcome := judge(sc, n.Seat, news)
		b.metrics.Notifications.WithLabelValues(outcome).Inc()
		if outcome != "sent" {
			b.log.Debug("A notification dropped", slog.Int64("board", bd.ID), slog.Int("seat", n.Seat), slog.String("why", outcome))
			continue
		}
		for _, v := range b.views {
			if err := v.Notify(ctx, tx, sc, n.Seat, news); err != nil {
				return err
			}
		}
	}
	return nil
}

// judge tells what becomes of a seat's due notification: "sent", or dropped as "blocked"
// (nobody to send it to), "seen" (the seat has seen the move) or "stale" (no longer news).
func judge(sc *Scene, seat int, n News) string {
	bd := sc.Board
	if pl := sc.Players[seat]; pl == nil || pl.Blocked {
		return "blocked"
	}
	if bd.Status == board.Waiting || bd.Status == board.Aborted || bd.Ply() < n.Ply {
		return "stale"
	}
	switch n.Kind {
	case NewsMove:
		if bd.Ply() != n.Ply || n.Ply == 0 {
			return "stale" // the board moved on: a newer news replaced this one, or was seen
		}
		if bd.Seats[seat].Seen >= n.Ply {
			return "seen"
		}
	case NewsOffer:
		if bd.Status != board.Active || bd.Offer == nil || bd.Offer.Seat == seat {
			return "stale"
		}
	case NewsStart:
		if bd.Status != board.Active {
			return "stale"
		}
	}
	return "sent"
}

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
	return b.settle(ctx, do, "clock-reminders", found, func(ctx context.Context, tx Tx, st Store, bd *board.Board) error {
		now := b.now()
		seat := bd.ToMove
		if bd.Status != board.Active || !clocked(bd.Control) || !bd.NeedsClockReminder(now) || !bd.Seats[seat].Human() {
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

// remind has the views bring the board of the player to move back to the bottom of their chat
// with the time left; for a player who wants no notifications the board is changed in place.
// A notification still pending for the seat goes with the reminder.
func (b *Boards) remind(ctx context.Context, tx Tx, bd *board.Board, now time.Time) error {
	sc, err := b.Scene(ctx, tx.DB(), bd)
	if err != nil {
		return err
	}
	seat := bd.ToMove
	p := sc.Players[seat]
	if p == nil || p.Blocked {
		return nil
	}
	st := b.store(tx.DB())
	_, never := after(sc.Notify[seat], bd.Control)
	var pending *News
	if !never {
		// The reminder brings the board anew: a notification still pending for the seat goes
		// with it, or its board would come after and drop the reminder's words.
		if pending, err = b.takeNotice(ctx, st, sc, seat); err != nil {
			return err
		}
	}
	for _, v := range b.views {
		if err := v.Remind(ctx, tx, sc, seat, Warning{Left: bd.Deadline.Sub(now), Ring: !never, Pending: pending}); err != nil {
			return err
		}
	}
	return nil
}

// takeNotice removes a seat's pending notification of a board locked in tx, whether due or not,
// and returns it when it is still news (nil when there is none).
func (b *Boards) takeNotice(ctx context.Context, st Store, sc *Scene, seat int) (*News, error) {
	n, ok, err := st.TakeNotice(ctx, sc.Board.ID, seat)
	if err != nil || !ok {
		return nil, err
	}
	news := News{Kind: n.Kind, Ply: n.Ply, Actor: n.Actor}
	outcome := judge(sc, seat, news)
	b.metrics.Notifications.WithLabelValues(outcome).Inc()
	if outcome != "sent" {
		return nil, nil
	}
	return &news, nil
}
