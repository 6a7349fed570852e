package telegram

import (
	"context"
	"errors"
	"strings"

	"github.com/questbot/questbot/bot"
	"github.com/questbot/questbot/bot/boards"
	"github.com/questbot/questbot/bot/texts"
	"github.com/questbot/questbot/sessions/board"
)

// HandleCallback handles a press of a board button ("g:<board>:<ply>:<op>..."), in the update's
// transaction with the board locked. A press made for another ply than the board's (the board
// has moved on), for a board the user does not play, or with data no button of ours carries is
// answered with a short notice and changes nothing.
func (v *View) HandleCallback(ctx context.Context, tx bot.Tx, u *bot.Update) error {
	cq := u.CallbackQuery
	if strings.HasPrefix(cq.Data, notifyPrefix) {
		return v.notifyPressed(ctx, tx, u)
	}
	c := texts.For(u.User.Language)
	p, err := parsePress(cq.Data)
	if err == nil {
		err = v.pressed(ctx, tx, u, p)
	}
	switch {
	case err == nil:
		return nil
	case errors.Is(err, errForged), errors.Is(err, board.ErrNotFound):
		return tx.Send(ctx, bot.AnswerCallback(u.Chat, cq.ID, c.Bot.Stale))
	case userError(err):
		return tx.Send(ctx, bot.AnswerCallback(u.Chat, cq.ID, c.Error(err)))
	}
	return err
}

// ops are the presses that are operations of the service, by the operation.
var ops = map[op]boards.Op{opResignYes: boards.OpResign, opUndo: boards.OpUndo, opDraw: boards.OpOfferDraw,
	opAccept: boards.OpAcceptDraw, opDecline: boards.OpDeclineDraw}

// pressed carries out a press.
func (v *View) pressed(ctx context.Context, tx bot.Tx, u *bot.Update, p press) error {
	h, err := v.svc.Take(ctx, tx, player(u), p.board)
	if err != nil {
		return err
	}
	msgID := 0
	if m := u.CallbackQuery.Message; m != nil {
		msgID = m.MessageID
	}
	bd := h.Board
	switch p.op {
	case opView:
		return v.view(ctx, tx, h)
	case opCancel:
		if err := h.Cancel(ctx); err != nil {
			return err
		}
		return tx.Send(ctx, bot.AnswerCallback(u.Chat, u.CallbackQuery.ID, texts.For(u.User.Language).Board.Cancelled))
	}
	if goOn, err := h.InPlay(ctx, p.ply); !goOn {
		return err
	}
	// A press that is carried out tells that the player has seen the board at this ply: their
	// opponent's last move can no longer be taken back. A refused one changes nothing.
	switch p.op {
	case opTap, opChoose:
		return v.enter(ctx, tx, h, p, msgID)
	case opResign:
		if err := h.Seen(ctx); err != nil {
			return err
		}
		sc, err := v.svc.Scene(ctx, tx.DB(), bd)
		if err != nil {
			return err
		}
		return v.show(ctx, tx, sc, h.Seat, look{confirm: true, msgID: msgID})
	}
	o, ok := ops[p.op]
	if !ok {
		return errForged
	}
	return h.Act(ctx, boards.Action{Op: o})
}

// enter is a press of the move-entry keyboard: a square tapped (or "back", a tap fewer), or a
// move chosen among those that end on the tapped squares. When the squares tapped make one move,
// it is played; otherwise the picture marks the squares tapped and those that may be tapped
// next, and the keyboard offers these.
func (v *View) enter(ctx context.Context, tx bot.Tx, h *boards.Held, p press, msgID int) error {
	bd := h.Board
	if bd.ToMove != h.Seat {
		return board.ErrNotYourTurn
	}
	g, err := bd.Game()
	if err != nil {
		return err
	}
	ent, err := resolveEntry(g, p.path)
	if err != nil {
		return err
	}
	if p.op == opChoose && p.choice >= len(ent.steps.Moves) {
		return errForged
	}
	if p.op == opChoose {
		return h.Act(ctx, boards.Action{Op: boards.OpMove, Move: ent.steps.Moves[p.choice].String(), Ply: p.ply})
	}
	if m, ok := ent.steps.Done(); ok && len(p.path) > 0 {
		return h.Act(ctx, boards.Action{Op: boards.OpMove, Move: m.String(), Ply: p.ply})
	}
	if err := h.Seen(ctx); err != nil {
		return err
	}
	sc, err := v.svc.Scene(ctx, tx.DB(), bd)
	if err != nil {
		return err
	}
	return v.show(ctx, tx, sc, h.Seat, look{mode: showPicture, ent: ent, msgID: msgID})
}

// view brings a board back to the bottom of the player's chat (the buttons of /mygames): the
// waiting notice of a board that waits, the board of a game in play or just finished.
func (v *View) view(ctx context.Context, tx bot.Tx, h *boards.Held) error {
	bd := h.Board
	if shown, err := v.sharedView(ctx, tx, bd); shown || err != nil {
		return err // its board is its shared message (inline.go)
	}
	switch bd.Status {
	case board.Waiting:
		return v.showWaiting(ctx, tx, bd, "")
	case board.Aborted:
		return board.ErrFinished
	}
	if expired, err := h.Expire(ctx); expired || err != nil {
		return err
	}
	if err := h.Seen(ctx); err != nil {
		return err
	}
	sc, err := v.svc.Scene(ctx, tx.DB(), bd)
	if err != nil {
		return err
	}
	return v.show(ctx, tx, sc, h.Seat, look{mode: showNew})
}
