package telegram

import (
	"context"
	"fmt"
	"html"
	"log/slog"
	"strings"

	"github.com/questbot/questbot/bot"
	"github.com/questbot/questbot/bot/boards"
	"github.com/questbot/questbot/bot/boards/telegram/tgstore"
	"github.com/questbot/questbot/bot/texts"
	"github.com/questbot/questbot/sessions"
	"github.com/questbot/questbot/sessions/board"
)

// Changed shows a change of a board in its players' chats (boards.View). A board opened to wait
// for an opponent is its creator's waiting notice, and its withdrawal the notice's end. A game's
// change edits each seat's board in place, or sends it anew at the bottom of the chat when the
// seat hears of it now (boards.HearNow: Telegram rings for a new message, not for an edit), or
// changes it silently when its notification waits (boards.HearLater).
func (v *View) Changed(ctx context.Context, tx bot.Tx, ch *boards.Change) error {
	if strings.HasPrefix(ch.Invite, sharedInvite) {
		return nil // a board opened for a shared message is shown when the message is (inline.go)
	}
	// What the view keeps of the board's messages, read once: its shared message, and when each
	// seat's message was sent.
	sh, shared, sent, err := tgstore.New(tx.DB()).Messages(ctx, ch.Board.ID)
	if err != nil {
		return err
	}
	if shared {
		return v.sharedChanged(ctx, tx, ch, sh) // a board a whole chat sees is its message (inline.go)
	}
	sc := ch.Scene
	for _, ev := range ch.Events {
		switch ev.Kind {
		case board.EventOpened:
			return v.showWaiting(ctx, tx, sc.Board, ch.Invite)
		case board.EventAborted:
			return v.withdrawn(ctx, tx, ch)
		}
	}
	for seat := range sc.Board.Seats {
		p := sc.Players[seat]
		if p == nil {
			continue
		}
		mode, note := effect(texts.For(p.Lang), sc, seat, ch)
		if err := v.show(ctx, tx, sc, seat, look{mode: mode, note: note, sent: &sent[seat]}); err != nil {
			return err
		}
	}
	return nil
}

// effect is how a change alters a seat's board message, and the note that tells what happened.
// The seat's hearing of it, decided by the service, comes last: news now raises the board to a
// new message, news that waits keeps it silent.
func effect(c *texts.Catalog, sc *boards.Scene, seat int, ch *boards.Change) (showMode, string) {
	t := &c.Board
	mode := showCaption
	raise := func(m showMode) { mode = max(mode, m) }
	var notes []string
	for _, ev := range ch.Events {
		switch ev.Kind {
		case board.EventStarted:
			raise(showNew)
			if seat != ch.Actor && ch.Actor != boards.NoSeat {
				notes = append(notes, fmt.Sprintf(t.Joined, htmlName(c, sc, ch.Actor)))
			}
		case board.EventMoved, board.EventFinished:
			raise(showPicture)
		case board.EventUndone:
			raise(showPicture)
			if ev.Seat == seat {
				notes = append(notes, t.UndoneYou)
			} else {
				notes = append(notes, fmt.Sprintf(t.UndoneThem, htmlName(c, sc, ev.Seat)))
			}
		case board.EventDrawOffered:
			if ev.Seat != seat {
				raise(showPicture)
			}
		case board.EventDrawDeclined:
			switch {
			case sc.Board.Seats[ev.Seat].Bot != board.NoBot:
				notes = append(notes, t.BotDeclines)
			case ev.Seat == seat:
				notes = append(notes, t.YouDeclined)
			default:
				notes = append(notes, t.Declined)
			}
		}
	}
	switch ch.Heard[seat] {
	case boards.HearNow:
		mode = showNew
	case boards.HearLater:
		mode = showQuiet
	}
	return mode, strings.Join(notes, "\n")
}

// withdrawn ends the waiting notice of a board nobody joined: withdrawn by its creator, the
// notice says so and loses its button (a notice too old to edit is gone from the transport's
// records: the answer to the press says it then); closed by the clean-up, the notice goes and a
// message tells why.
func (v *View) withdrawn(ctx context.Context, tx bot.Tx, ch *boards.Change) error {
	bd := ch.Board
	seat, err := bd.SeatOf(bd.Creator)
	if err != nil {
		return err
	}
	p := ch.Players[seat]
	if p == nil || p.Blocked {
		return nil
	}
	c := texts.For(p.Lang)
	if ch.By != boards.ByClock {
		req, err := bot.EditHTMLRef(p.Chat, ref(bd.ID), c.Board.Cancelled, nil)
		if err != nil {
			return err
		}
		v.log.Debug("Waiting board withdrawn", slog.Int64("board", bd.ID))
		return tx.Send(ctx, req)
	}
	reqs, err := bot.SendHTML(p.Chat, fmt.Sprintf(c.Board.Expired, html.EscapeString(c.Game(bd.Variant))), nil)
	if err != nil {
		return err
	}
	return tx.Send(ctx, append([]bot.Request{bot.DeleteRef(p.Chat, ref(bd.ID))}, reqs...)...)
}

// Refresh shows a seat its board again in place, its caption and keyboard (boards.View). A
// message too old to edit is left: a new message only for this would be noise; the button left
// there is answered when pressed.
func (v *View) Refresh(ctx context.Context, tx bot.Tx, sc *boards.Scene, seat int) error {
	if shared, err := v.sharedShown(ctx, tx, sc); shared || err != nil {
		return err
	}
	if old, err := v.stale(ctx, tx, sc.Board.ID, seat); old || err != nil {
		return err
	}
	return v.show(ctx, tx, sc, seat, look{})
}

// Notify sends a seat its board anew with a note of the news (boards.View).
func (v *View) Notify(ctx context.Context, tx bot.Tx, sc *boards.Scene, seat int, n boards.News) error {
	if shared, err := v.isShared(ctx, tx, sc); shared || err != nil {
		return err // its message shows the news already
	}
	c := texts.For(sc.Players[seat].Lang)
	return v.show(ctx, tx, sc, seat, look{mode: showNew, note: v.noticeNote(c, sc, seat, n)})
}

// Remind brings the board of the seat to move back to the bottom of their chat with the time
// left, and the news still pending for them; without a sound it is changed in place
// (boards.View).
func (v *View) Remind(ctx context.Context, tx bot.Tx, sc *boards.Scene, seat int, w boards.Warning) error {
	if shared, err := v.sharedShown(ctx, tx, sc); shared || err != nil {
		return err
	}
	c := texts.For(sc.Players[seat].Lang)
	reminder := c.Board.Reminder
	if boards.GameClock(sc.Board) {
		reminder = c.Board.ReminderClock
	}
	note := fmt.Sprintf(reminder, c.Duration(w.Left))
	if w.Pending != nil {
		note = v.noticeNote(c, sc, seat, *w.Pending) + "\n" + note
	}
	mode := showNew
	if !w.Ring {
		mode = showQuiet
	}
	return v.show(ctx, tx, sc, seat, look{mode: mode, note: note})
}

// userError reports whether err is a refusal to tell the player (a rule of the game, a stale or
// foreign button: any kind of sessions.KindOf), not a failure of the bot.
func userError(err error) bool { return sessions.KindOf(err) != sessions.KindNone }

// say sends an HTML text to a chat, as a reply to a message when replyTo is not 0.
func say(ctx context.Context, tx bot.Tx, chat int64, html string, replyTo int) error {
	reqs, err := bot.SendHTML(chat, html, nil)
	if err != nil {
		return err
	}
	if replyTo != 0 {
		reqs[0].Params["reply_to_message_id"] = fmt.Sprint(replyTo)
		reqs[0].Params["allow_sending_without_reply"] = "true"
	}
	return tx.Send(ctx, reqs...)
}
