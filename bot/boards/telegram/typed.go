package telegram

import (
	"context"
	"errors"
	"fmt"
	"html"
	"slices"
	"strings"

	"github.com/questbot/questbot/bot"
	"github.com/questbot/questbot/bot/boards"
	"github.com/questbot/questbot/bot/texts"
	"github.com/questbot/questbot/engine"
	"github.com/questbot/questbot/sessions/board"
)

// HandleMessage takes a typed move (see notation.go): a text that reads as a move, from a user
// who plays a game in the bot, or, while a game waits for the user's move, any text that looks
// like an attempt at one (looksLikeAttempt), which is answered as a move, legal or not. It is offered every message that is no command and no answer to
// a prompt, before the relay, so that a move never goes to the admins; anything else it leaves.
//
// Which game a typed move goes to, when the user plays several: the games where it is their turn
// are tried from the one whose turn began most recently (the board nearest the bottom of the
// chat); the move goes to the first in which it is legal. When it is legal in none, the answer
// says why for that most recent game, with the legal moves of the piece the text names. When it
// is the user's turn in no game, the answer says so. A move played is answered too (played).
func (v *View) HandleMessage(ctx context.Context, tx bot.Tx, u *bot.Update) (bool, error) {
	m := u.Message
	if m == nil || m.Text == "" || !looksLikeAttempt(m.Text) {
		return false, nil
	}
	list, err := v.svc.Store(tx.DB()).UserBoards(ctx, u.Service, u.User.ID, 0)
	if err != nil {
		return false, err
	}
	var active, mine []board.Info
	for _, bi := range list {
		if bi.Status != board.Active {
			continue
		}
		active = append(active, bi)
		if bi.MyTurn {
			mine = append(mine, bi)
		}
	}
	// A text that only looks like an attempt at a move is taken while a game waits for the
	// user's move; a clear move also when the user waits for the opponent.
	if len(active) == 0 || (len(mine) == 0 && !looksLikeMove(m.Text)) {
		return false, nil
	}
	c := texts.For(u.User.Language)
	if len(mine) == 0 {
		slices.SortStableFunc(active, func(x, y board.Info) int { return y.TurnStarted.Compare(x.TurnStarted) })
		return true, say(ctx, tx, u.Chat, fmt.Sprintf(c.Board.NotYourTurnIn, html.EscapeString(c.Game(active[0].Variant))), m.MessageID)
	}
	slices.SortStableFunc(mine, func(x, y board.Info) int { return y.TurnStarted.Compare(x.TurnStarted) })
	// The boards are locked as they are tried (a board read without its lock may be half
	// saved); they are the user's, each waiting for their move.
	var h *boards.Held
	for _, bi := range mine {
		cand, err := v.svc.Take(ctx, tx, player(u), bi.ID)
		if err != nil {
			return false, err
		}
		g, err := cand.Board.Game()
		if err != nil {
			return false, err
		}
		if h == nil {
			h = cand
		}
		if _, err := parseTyped(g, m.Text); err == nil {
			h = cand
			break
		}
	}
	g, err := h.Board.Game()
	if err != nil {
		return false, err
	}
	mv, perr := parseTyped(g, m.Text)
	if perr != nil {
		return true, say(ctx, tx, u.Chat, refusal(c, g, m.Text, perr), m.MessageID)
	}
	ply := h.Board.Ply()
	err = h.Act(ctx, boards.Action{Op: boards.OpMove, Move: mv.String(), Ply: ply})
	if userError(err) {
		return true, say(ctx, tx, u.Chat, html.EscapeString(c.Error(err)), m.MessageID)
	}
	if err != nil {
		return true, err
	}
	return true, v.played(ctx, tx, u, h, ply+1)
}

// played answers a typed move the board took, at the bottom of the chat and as a reply to it:
// the move as people read it with its number, the game and the opponent, so that a player with
// several games waiting knows which took it, and a button that brings that board to the bottom
// of the chat (the press of /mygames' list, opView).
func (v *View) played(ctx context.Context, tx bot.Tx, u *bot.Update, h *boards.Held, ply int) error {
	c := texts.For(u.User.Language)
	sc, err := v.svc.Players(ctx, tx.DB(), h.Board)
	if err != nil {
		return err
	}
	text := fmt.Sprintf(c.Board.TypedPlayed, html.EscapeString(sc.Numbered(ply)), html.EscapeString(c.Game(h.Board.Variant)),
		htmlName(c, sc, 1-h.Seat))
	show := press{board: h.Board.ID, op: opView}
	reqs, err := bot.SendHTML(u.Chat, text, bot.Keyboard{{{Text: c.Board.ToBoard, Data: show.data()}}})
	if err != nil {
		return err
	}
	reqs[0].Params["reply_to_message_id"] = fmt.Sprint(u.Message.MessageID)
	reqs[0].Params["allow_sending_without_reply"] = "true"
	return tx.Send(ctx, reqs...)
}

// maxListed bounds the moves an answer lists.
const maxListed = 12

// refusal words the answer to a typed move the engine refused (an *engine.MoveError): why, and
// what the player can play instead: the legal moves of the piece named, the moves the text could
// be, or all the legal moves when they are few.
func refusal(c *texts.Catalog, g *engine.Game, text string, err error) string {
	t := &c.Board
	list := func(moves []engine.Move) string {
		names := make([]string, 0, min(len(moves), maxListed+1))
		for i, m := range moves {
			if i == maxListed {
				names = append(names, "…")
				break
			}
			names = append(names, g.Display(m))
		}
		return html.EscapeString(strings.Join(names, ", "))
	}
	quoted := html.EscapeString(strings.TrimSpace(text))
	var me *engine.MoveError
	if !errors.As(err, &me) {
		return fmt.Sprintf(t.Illegal, quoted)
	}
	square := html.EscapeString(me.Square)
	lines := []string{fmt.Sprintf(t.Illegal, quoted)}
	switch me.Kind {
	case engine.MoveUnreadable:
		lines[0] = fmt.Sprintf(t.Unreadable, quoted)
	case engine.MoveAmbiguous:
		return fmt.Sprintf(t.Ambiguous, quoted, list(me.Candidates))
	case engine.MoveGameOver:
		return t.Over
	case engine.MoveNoPiece:
		lines = append(lines, fmt.Sprintf(t.NoPiece, square))
	case engine.MoveNotYours:
		lines = append(lines, fmt.Sprintf(t.NotYourPiece, square))
	}
	if me.MustCapture {
		lines = append(lines, t.MustCapture)
	}
	if me.Rested {
		lines = append(lines, fmt.Sprintf(t.Rested, square))
	}
	switch {
	case me.Kind == engine.MoveIllegal && me.Square != "" && len(me.Candidates) > 0:
		lines = append(lines, fmt.Sprintf(t.From, square, list(me.Candidates)))
	case me.Kind == engine.MoveIllegal && me.Square != "":
		lines = append(lines, fmt.Sprintf(t.Stuck, square))
		fallthrough
	default:
		if legal := g.LegalMoves(); len(legal) <= maxListed {
			lines = append(lines, fmt.Sprintf(t.Moves, list(legal)))
		}
	}
	return strings.Join(lines, "\n")
}
