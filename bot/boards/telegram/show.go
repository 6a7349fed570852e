package telegram

import (
	"context"
	"time"

	"github.com/questbot/questbot/bot"
	"github.com/questbot/questbot/bot/boards"
	"github.com/questbot/questbot/bot/boards/telegram/tgstore"
	"github.com/questbot/questbot/bot/texts"
	"github.com/questbot/questbot/engine"
)

// # One message per seat
//
// Each player sees a game as one message of their chat: the board's picture, captioned, with the
// keyboard of their seat, sent under the ref "board:<id>" (bot.Request.Ref) and changed in place
// by ref. A change the player made themselves, or the bot's answer, edits that message; a change
// the player must hear of (the opponent moved, offered a draw, the game started or ended behind
// their back) deletes it and sends the new board at the bottom of the chat instead, which is the
// notification in Telegram (edits make no sound) — at once, or after the player's delay, the
// board being edited in place silently meanwhile (notify.go). So a game never becomes a scroll
// of boards.
//
// Every request on a board message carries the state "board:<id>" (bot.Request.State), the edits
// of the message whose button was pressed too: the transport drops the pending edits of a
// message that a newer edit of it supersedes, and the edits, copies and deletions that a board
// sent anew makes useless, so a chat holds a handful of rows of a board however fast it is
// played (on the web, by the bot); and it keeps one board's requests in their order, so a tap's
// edit never lands after a newer move's. The board of a chat other than the one whose update is handled (the
// opponent's, and every board changed by the web, the bot or a job) waits in the chat's updates
// lane, which never holds up the chat's answers to its own user.
//
// The transport forgets the messages of a ref two days after they were sent (Telegram lets a
// bot delete its messages for that long), while a correspondence player may think for three: a
// board last sent more than refreshAfter ago is therefore sent anew rather than edited. When it
// was sent is recorded per seat, in the view's store, with the transaction's COMMIT
// (tgstore.MarkSentAtCommit), as the requests are: a board sent anew costs no round trip to the
// database of its own.

// refreshAfter is how old a board message may be and still be edited in place.
const refreshAfter = 40 * time.Hour

// showMode is how a seat's board message changes.
type showMode int

const (
	// showCaption edits the caption and the keyboard (the picture is unchanged). By the ref
	// the picture comes with them: an edit by ref carries the whole board (see bot.Request.State).
	showCaption showMode = iota
	// showPicture edits the picture with them.
	showPicture
	// showNew deletes the message and sends the board anew at the bottom of the chat.
	showNew
	// showQuiet changes the board without a sound: it edits the picture in place, or, when the
	// message is too old to edit or was never sent, sends it anew with disable_notification
	// (news whose notification waits, see notify.go). It comes after showNew so that effect's
	// raises never produce it.
	showQuiet
)

// look is how a seat's board message is to change.
type look struct {
	mode showMode
	// note is an HTML line after the state of the game: what just happened.
	note string
	// ent is the move being entered (its squares marked on the picture), confirm a resignation
	// to confirm.
	ent     *entry
	confirm bool
	// msgID, when not 0, is the message whose button was pressed: an edit edits it rather than
	// the ref's.
	msgID int
	// sent, when not nil, is when the seat's board message was last sent, read already for
	// every seat of the change (Changed); nil: show reads it.
	sent *time.Time
}

// show queues the board message of a human seat, changed as l says. A seat without a player
// to show it to (the bot, a user who blocked the bot) is skipped.
func (v *View) show(ctx context.Context, tx bot.Tx, sc *boards.Scene, seat int, l look) error {
	mode, msgID := l.mode, l.msgID
	p := sc.Players[seat]
	if p == nil || p.Blocked {
		return nil
	}
	c := texts.For(p.Lang)
	silent := mode == showQuiet
	if silent {
		mode = showPicture
	}
	if mode != showNew && msgID == 0 {
		old := l.sent != nil && v.tooOld(*l.sent)
		if l.sent == nil {
			var err error
			if old, err = v.stale(ctx, tx, sc.Board.ID, seat); err != nil {
				return err
			}
		}
		if old {
			mode = showNew
		}
	}
	caption := v.caption(c, sc, seat, l)
	kb := v.withOpen(c, sc, seat, v.keyboard(c, sc, seat, l.ent, l.confirm), l.confirm)
	r := ref(sc.Board.ID)
	// The board as text, sent in place of any of the requests below that fails for good
	// (fallback.go).
	asText, editAsText, err := textBoard(c, sc, seat, caption, kb, silent)
	if err != nil {
		return err
	}
	if mode == showCaption && msgID != 0 {
		// The message pressed: its caption and keyboard change, the picture stays.
		req, err := bot.EditCaption(p.Chat, msgID, caption, kb)
		if err != nil {
			return err
		}
		req.State, req.OnFailure = r, editAsText
		return tx.Send(ctx, req)
	}
	path, draw, err := v.picture(sc, seat, l.ent)
	if err != nil {
		return err
	}
	if mode != showNew {
		// The board message by its ref: an edit that carries the whole board (picture, caption
		// and keyboard), so that it supersedes any edit still waiting to be sent.
		var req bot.Request
		if msgID != 0 {
			req, err = bot.EditPhoto(p.Chat, msgID, path, caption, kb)
		} else {
			req, err = bot.EditPhotoRef(p.Chat, r, path, caption, kb)
		}
		if err != nil {
			return err
		}
		req.State, req.OnFailure, req.Draw = r, editAsText, draw
		return tx.Send(ctx, req)
	}
	send, err := bot.SendPhoto(p.Chat, path, caption, kb)
	if err != nil {
		return err
	}
	send.Ref, send.OnFailure, send.Draw = r, asText, draw
	if silent {
		send.Params["disable_notification"] = "true"
	}
	v.markSent(tx, sc.Board.ID, seat)
	return tx.Send(ctx, bot.WithState(r, bot.DeleteRef(p.Chat, r), send)...)
}

// picture returns the file of the picture of a scene's board as a seat sees it, with the squares
// of a move being entered, and how the sender draws it: nothing is drawn now (see
// boards.PictureToSend), only when the request that shows it is sent.
func (v *View) picture(sc *boards.Scene, seat int, ent *entry) (string, *bot.Drawing, error) {
	opt := engine.ImageOptions{Viewer: engine.Player(seat)}
	if ent != nil && len(ent.squares) > 0 {
		opt.Selected, opt.Targets = ent.squares, ent.steps.Next
	}
	path, key, err := v.svc.PictureToSend(sc.Board, sc.Game, opt)
	if err != nil {
		return "", nil, err
	}
	return path, &bot.Drawing{Drawer: boards.PictureDrawer, Key: key}, nil
}

// markSent records that a seat's board message was sent now, in the view's store, with the
// transaction's COMMIT: like the message's requests, it costs no round trip of its own.
func (v *View) markSent(tx bot.Tx, id int64, seat int) {
	tgstore.MarkSentAtCommit(tx, id, seat, v.svc.Now())
}

// stale reports whether a seat's board message is too old to edit (refreshAfter) or was never
// sent, by the view's store: the board is then sent anew.
func (v *View) stale(ctx context.Context, tx bot.Tx, id int64, seat int) (bool, error) {
	at, err := tgstore.New(tx.DB()).SentAt(ctx, id, seat)
	if err != nil {
		return false, err
	}
	return v.tooOld(at), nil
}

// tooOld reports whether a board message sent at is too old to edit, or was never sent (zero).
func (v *View) tooOld(at time.Time) bool { return at.IsZero() || v.svc.Now().Sub(at) > refreshAfter }
