package boards

import (
	"context"
	"errors"
	"log/slog"
	"strings"

	"github.com/questbot/questbot/bot"
	"github.com/questbot/questbot/bot/texts"
	"github.com/questbot/questbot/sessions/board"
)

// HandleCallback handles a press of a board button ("g:<board>:<ply>:<op>..."), in the update's
// transaction with the board locked. A press made for another ply than the board's (the board
// has moved on), for a board the user does not play, or with data no button of ours carries is
// answered with a short notice and changes nothing.
func (b *Boards) HandleCallback(ctx context.Context, tx bot.Tx, u *bot.Update) error {
	cq := u.CallbackQuery
	if strings.HasPrefix(cq.Data, notifyPrefix) {
		return b.notifyPressed(ctx, tx, u)
	}
	c := texts.For(u.User.Language)
	p, err := parsePress(cq.Data)
	if err == nil {
		err = b.pressed(ctx, tx, u, p)
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

// pressed carries out a press.
func (b *Boards) pressed(ctx context.Context, tx bot.Tx, u *bot.Update, p press) error {
	st := b.store(tx.DB())
	bd, err := st.Lock(ctx, p.board)
	if err != nil {
		return err
	}
	user := u.User.ID
	seat, err := bd.SeatOf(user)
	if err != nil || user == board.BotUser {
		return board.ErrNotSeated
	}
	msgID := 0
	if m := u.CallbackQuery.Message; m != nil {
		msgID = m.MessageID
	}
	switch p.op {
	case opView:
		return b.view(ctx, tx, st, bd, seat)
	case opCancel:
		return b.cancel(ctx, tx, st, bd, u)
	}
	if bd.Status != board.Active {
		if bd.Status == board.Waiting {
			return board.ErrNotStarted
		}
		return board.ErrFinished
	}
	// A player whose clock has run out (the deadlines job has not come yet) loses on time with
	// whatever they press, as the operations of package board do.
	now := b.now()
	ev, err := bd.Expire(now)
	if err != nil {
		return err
	}
	if len(ev) > 0 {
		return b.commit(ctx, tx, st, bd, ev, seat, byPlayer)
	}
	if p.ply != bd.Ply() {
		return board.ErrStale
	}
	// A press that is carried out tells that the player has seen the board at this ply: their
	// opponent's last move can no longer be taken back (see seen). A refused one changes nothing.
	switch p.op {
	case opTap, opChoose:
		return b.enter(ctx, tx, st, bd, seat, p, msgID)
	case opResign:
		if err := b.seen(ctx, tx, st, bd, seat, byPlayer); err != nil {
			return err
		}
		sc, err := b.newScene(ctx, tx, bd)
		if err != nil {
			return err
		}
		return b.show(ctx, tx, sc, seat, showCaption, "", nil, true, msgID)
	}
	switch p.op {
	case opResignYes:
		ev, err = bd.Resign(user, now)
	case opUndo:
		ev, err = bd.Undo(user, now)
	case opDraw:
		ev, err = bd.OfferDraw(user, now)
	case opAccept:
		ev, err = bd.AcceptDraw(user, now)
	case opDecline:
		ev, err = bd.DeclineDraw(user, now)
	default:
		return errForged
	}
	if err != nil {
		return err
	}
	if err := b.seen(ctx, tx, st, bd, seat, byPlayer); err != nil {
		return err
	}
	return b.commit(ctx, tx, st, bd, ev, seat, byPlayer)
}

// seen records that a seat has seen its board at the current ply, when the opponent is a player
// (whose last move can then no longer be taken back, so their keyboard loses its button). The
// seat's pending notification of the board, if any, is dropped: it has seen the news. src says
// where: a player who acts in Telegram (byPlayer) is no longer on the web.
func (b *Boards) seen(ctx context.Context, tx bot.Tx, st Store, bd *board.Board, seat int, src source) error {
	if err := b.cancelNotice(ctx, tx, bd.ID, seat); err != nil {
		return err
	}
	if src == byPlayer {
		if err := b.leaveWeb(ctx, tx, bd.ID, seat); err != nil {
			return err
		}
	}
	other := 1 - seat
	if !bd.Seats[other].Human() || bd.Status != board.Active {
		return nil
	}
	could := canUndo(bd, other)
	changed, err := bd.Seen(bd.Seats[seat].User, bd.Ply())
	if err != nil || !changed {
		return err
	}
	if err := st.Save(ctx, bd); err != nil {
		return err
	}
	if !could {
		return nil
	}
	sc, err := b.newScene(ctx, tx, bd)
	if err != nil {
		return err
	}
	if at := sc.sent[other]; at.IsZero() || b.now().Sub(at) > refreshAfter {
		// Too old to edit: a new message only for this would be noise; the button left there
		// is answered when pressed.
		return nil
	}
	return b.show(ctx, tx, sc, other, showCaption, "", nil, false, 0)
}

// enter is a press of the move-entry keyboard: a square tapped (or "back", a tap fewer), or a
// move chosen among those that end on the tapped squares. When the squares tapped make one move,
// it is played; otherwise the picture marks the squares tapped and those that may be tapped
// next, and the keyboard offers these.
func (b *Boards) enter(ctx context.Context, tx bot.Tx, st Store, bd *board.Board, seat int, p press, msgID int) error {
	if bd.ToMove != seat {
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
	if err := b.seen(ctx, tx, st, bd, seat, byPlayer); err != nil {
		return err
	}
	if p.op == opChoose {
		return b.play(ctx, tx, st, bd, bd.Seats[seat].User, ent.steps.Moves[p.choice].String(), p.ply, seat, byPlayer)
	}
	if m, ok := ent.steps.Done(); ok && len(p.path) > 0 {
		return b.play(ctx, tx, st, bd, bd.Seats[seat].User, m.String(), p.ply, seat, byPlayer)
	}
	sc, err := b.newScene(ctx, tx, bd)
	if err != nil {
		return err
	}
	return b.show(ctx, tx, sc, seat, showPicture, "", ent, false, msgID)
}

// view brings a board back to the bottom of the player's chat (the buttons of /mygames): the
// waiting notice of a board that waits, the board of a game in play or just finished.
func (b *Boards) view(ctx context.Context, tx bot.Tx, st Store, bd *board.Board, seat int) error {
	switch bd.Status {
	case board.Waiting:
		return b.showWaiting(ctx, tx, bd, "")
	case board.Aborted:
		return board.ErrFinished
	}
	if ev, err := bd.Expire(b.now()); err != nil || len(ev) > 0 {
		if err != nil {
			return err
		}
		return b.commit(ctx, tx, st, bd, ev, seat, byPlayer)
	}
	if err := b.seen(ctx, tx, st, bd, seat, byPlayer); err != nil {
		return err
	}
	sc, err := b.newScene(ctx, tx, bd)
	if err != nil {
		return err
	}
	return b.show(ctx, tx, sc, seat, showNew, "", nil, false, 0)
}

// cancel withdraws a waiting board for its creator: the notice says so and loses its button (a
// notice too old to edit is gone from the transport's records: the answer to the press says it
// then).
func (b *Boards) cancel(ctx context.Context, tx bot.Tx, st Store, bd *board.Board, u *bot.Update) error {
	if _, err := bd.Cancel(u.User.ID, b.now()); err != nil {
		return err
	}
	if err := st.Save(ctx, bd); err != nil {
		return err
	}
	text := texts.For(u.User.Language).Board.Cancelled
	req, err := bot.EditHTMLRef(u.Chat, ref(bd.ID), text, nil)
	if err != nil {
		return err
	}
	b.log.Debug("Waiting board withdrawn", slog.Int64("board", bd.ID))
	return tx.Send(ctx, req, bot.AnswerCallback(u.Chat, u.CallbackQuery.ID, text))
}
