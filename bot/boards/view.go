package boards

import (
	"context"
	"errors"
	"fmt"
	"html"
	"strings"
	"time"

	"github.com/questbot/questbot/bot"
	"github.com/questbot/questbot/bot/botpg"
	"github.com/questbot/questbot/bot/texts"
	"github.com/questbot/questbot/engine"
	"github.com/questbot/questbot/sessions/board"
)

// scene is a board as its players are shown it: the board, its replayed game and the players.
type scene struct {
	bd *board.Board
	g  *engine.Game
	// players are the profiles of the human seats (nil for the bot and an empty seat).
	players [2]*botpg.Profile
	// sent is when each seat's board message was last sent (zero: never; see show.go).
	sent [2]time.Time
	// web is when each seat's player last acted on the game on the web (zero: never; see
	// notify.go).
	web [2]time.Time
}

// newScene reads the players of a board.
func (b *Boards) newScene(ctx context.Context, tx bot.Tx, bd *board.Board) (*scene, error) {
	g, err := bd.Game()
	if err != nil {
		return nil, err
	}
	sc := &scene{bd: bd, g: g}
	for i, s := range bd.Seats {
		if !s.Human() {
			continue
		}
		p, err := b.users.Profile(ctx, tx.DB(), s.User)
		if errors.Is(err, botpg.ErrNoUser) {
			continue // a user row removed by hand: nobody to show the board to
		}
		if err != nil {
			return nil, err
		}
		sc.players[i] = p
	}
	marks, err := b.store(tx.DB()).SeatMarks(ctx, bd.ID)
	if err != nil {
		return nil, err
	}
	for i, m := range marks {
		sc.sent[i], sc.web[i] = m.Sent, m.Web
	}
	return sc, nil
}

// name is a seat's player as the catalogue c names them, HTML-escaped.
func (sc *scene) name(c *texts.Catalog, seat int) string {
	s := sc.bd.Seats[seat]
	if s.Bot != board.NoBot {
		return html.EscapeString(fmt.Sprintf(c.Board.Bot, c.Board.Levels[s.Bot.String()]))
	}
	if p := sc.players[seat]; p != nil {
		switch {
		case strings.TrimSpace(p.FirstName) != "":
			return html.EscapeString(p.FirstName)
		case p.Username != "":
			return "@" + html.EscapeString(p.Username)
		}
		return fmt.Sprintf("#%d", p.ID)
	}
	return "…"
}

// side names a seat's side ("White", "Fox") in c's language.
func (sc *scene) side(c *texts.Catalog, seat int) string {
	en := sc.g.PlayerName(engine.Player(seat))
	if s, ok := c.Board.Sides[en]; ok {
		return s
	}
	return en
}

// caption is the caption of the board for a seat: the game and the move number, the players
// (the opponent first, as on the picture) with their clocks, the last move, whose turn it is and
// the time left, or the result; then what the player is doing (entry, a confirmation) and note,
// an HTML line of what just happened.
func (b *Boards) caption(c *texts.Catalog, sc *scene, seat int, note string, ent *entry, confirm bool) string {
	bd, t := sc.bd, &c.Board
	now := b.now()
	var lines []string
	lines = append(lines, fmt.Sprintf(t.Title, html.EscapeString(c.Game(bd.Variant)), bd.Ply()/2+1))
	clocks := bd.Clocks(now)
	timed := bd.Control.Mode == board.ClockFischer || bd.Control.Mode == board.ClockByoyomi ||
		bd.Control.Mode == board.ClockSandglass
	for _, i := range []int{1 - seat, seat} {
		mark := "▫️ "
		if bd.Status == board.Active && bd.ToMove == i {
			mark = "▶️ "
		}
		line := mark + fmt.Sprintf(t.Seat, html.EscapeString(sc.side(c, i)), sc.name(c, i))
		if timed && bd.Status == board.Active {
			line += fmt.Sprintf(t.Clock, c.Duration(clocks[i]))
		}
		lines = append(lines, line)
	}
	if n := bd.Ply(); n > 0 {
		last := bd.Moves[n-1]
		lines = append(lines, fmt.Sprintf(t.LastMove, html.EscapeString(last.Text), sc.name(c, last.Seat)))
	}
	switch bd.Status {
	case board.Finished:
		lines = append(lines, b.result(c, sc, seat)...)
	case board.Active:
		switch {
		case bd.ToMove == seat:
			lines = append(lines, t.YourTurn)
		case bd.Seats[bd.ToMove].Bot != board.NoBot:
			lines = append(lines, t.BotThinking)
		default:
			lines = append(lines, fmt.Sprintf(t.TheirTurn, sc.name(c, bd.ToMove)))
		}
		if !bd.Deadline.IsZero() {
			lines = append(lines, fmt.Sprintf(t.TimeLeft, c.Duration(bd.Deadline.Sub(now))))
		}
		if o := bd.Offer; o != nil {
			if o.Seat == seat {
				lines = append(lines, t.Offered)
			} else {
				lines = append(lines, fmt.Sprintf(t.Offers, sc.name(c, o.Seat)))
			}
		}
	}
	if note != "" {
		lines = append(lines, note)
	}
	if ent != nil && len(ent.squares) > 0 {
		lines = append(lines, fmt.Sprintf(t.Selected, html.EscapeString(strings.Join(ent.squares, "-"))))
		var paths []string
		for i, m := range ent.steps.Remaining {
			if i == maxPaths {
				paths = append(paths, "…")
				break
			}
			paths = append(paths, m.String())
		}
		if len(paths) > 0 {
			lines = append(lines, fmt.Sprintf(t.Paths, html.EscapeString(strings.Join(paths, ", "))))
		}
		if len(ent.steps.Choices) > 0 {
			lines = append(lines, t.ChooseMove)
		}
	}
	if confirm {
		lines = append(lines, t.ResignAsk)
	}
	text := strings.Join(lines, "\n")
	for utf16Len(text) > bot.MaxCaptionLen && len(lines) > 1 {
		// Only an absurd note or name gets here; the first lines say what matters.
		lines = lines[:len(lines)-1]
		text = strings.Join(lines, "\n")
	}
	return text
}

// endReason words, in HTML, why a finished game ended: the rule of the final position, a
// timeout, a resignation, an agreed draw...
func endReason(c *texts.Catalog, sc *scene) string {
	o := sc.bd.Outcome
	var reason string
	switch {
	case o.End == board.EndRules:
		// The rule that ended the game is the final position's; the stored detail is the
		// engine's English reason, the fallback.
		reason = o.Detail
		if st := sc.g.Status(); st.Result != engine.Ongoing {
			reason = c.Reason(st.Rule.String())
		}
	case o.End == board.EndTimeout && o.Draw:
		reason = c.Reason("timeout_draw")
	default:
		reason = c.Reason(o.End.String())
	}
	return html.EscapeString(reason)
}

// result is the lines of a finished game's result for a seat: who won and how, and the seat's
// new rating after a rated game.
func (b *Boards) result(c *texts.Catalog, sc *scene, seat int) []string {
	o, t := sc.bd.Outcome, &c.Board
	if o == nil {
		return nil
	}
	reason := endReason(c, sc)
	var lines []string
	switch {
	case o.Draw:
		lines = append(lines, fmt.Sprintf(t.Draw, reason))
	case sc.bd.Seats[seat].Human() && o.Winner == seat:
		lines = append(lines, fmt.Sprintf(t.YouWin, reason))
	case sc.bd.Seats[seat].Human():
		lines = append(lines, fmt.Sprintf(t.YouLose, reason))
	default:
		lines = append(lines, fmt.Sprintf(t.Win, sc.name(c, o.Winner), reason))
	}
	if s := sc.bd.Seats[seat]; sc.bd.Rated && (s.RatingBefore != 0 || s.RatingAfter != 0) {
		lines = append(lines, fmt.Sprintf(t.Rating, s.RatingAfter, fmt.Sprintf("%+d", s.RatingAfter-s.RatingBefore)))
	}
	return lines
}

// maxPaths bounds the whole moves a caption lists for the squares tapped.
const maxPaths = 8

// squaresPerRow is the width of the keyboard of squares.
const squaresPerRow = 5

// keyboard is the keyboard of the board for a seat: while it is the seat's turn, the squares that
// may be tapped next (and the moves to choose from, and "back" once a square is tapped); then the
// game's buttons: take back, offer a draw and resign, or accept and decline the opponent's offer.
// A resignation to confirm shows only its two answers. A finished game has no keyboard.
func (b *Boards) keyboard(c *texts.Catalog, sc *scene, seat int, ent *entry, confirm bool) bot.Keyboard {
	bd, t := sc.bd, &c.Board
	ply := bd.Ply()
	btn := func(label string, p press) bot.Button {
		p.board, p.ply = bd.ID, ply
		return bot.Button{Text: label, Data: p.data()}
	}
	if bd.Status != board.Active {
		return nil
	}
	if confirm {
		return bot.Keyboard{{btn(t.ResignYes, press{op: opResignYes}), btn(t.ResignNo, press{op: opTap})}}
	}
	var kb bot.Keyboard
	if bd.ToMove == seat {
		if ent == nil {
			var err error
			if ent, err = resolveEntry(sc.g, nil); err != nil {
				ent = &entry{}
			}
		}
		var row []bot.Button
		for i, sq := range ent.steps.Next {
			if i == maxOffered {
				break
			}
			row = append(row, btn(sq, press{op: opTap, path: append(append([]int(nil), ent.path...), i)}))
			if len(row) == squaresPerRow {
				kb, row = append(kb, row), nil
			}
		}
		if len(row) > 0 {
			kb = append(kb, row)
		}
		if len(ent.path) > 0 {
			// Choices label the moves that end on the squares tapped, in the order of Moves; a
			// single move that ends there while longer ones go on is offered by its notation.
			row = nil
			for i, ch := range ent.steps.Choices {
				if i == maxOffered {
					break
				}
				row = append(row, btn(ch.Label, press{op: opChoose, path: ent.path, choice: i}))
			}
			if len(ent.steps.Choices) == 0 && len(ent.steps.Moves) == 1 {
				row = append(row, btn("✓ "+ent.steps.Moves[0].String(), press{op: opChoose, path: ent.path}))
			}
			if len(row) > 0 {
				kb = append(kb, row)
			}
			back := press{op: opTap, path: ent.path[:len(ent.path)-1]}
			return append(kb, []bot.Button{btn(t.Back, back)})
		}
	}
	if o := bd.Offer; o != nil && o.Seat != seat {
		return append(kb, []bot.Button{btn(t.Accept, press{op: opAccept}), btn(t.Decline, press{op: opDecline})})
	}
	var row []bot.Button
	if canUndo(bd, seat) {
		row = append(row, btn(t.Undo, press{op: opUndo}))
	}
	if bd.Offer == nil && !bd.Seats[seat].Offered {
		row = append(row, btn(t.OfferDraw, press{op: opDraw}))
	}
	row = append(row, btn(t.Resign, press{op: opResign}))
	return append(kb, row)
}

// canUndo reports whether a seat may take back a move now, for the keyboard (Board.Undo decides):
// against the bot once it has moved; against a player its own last move while the opponent has
// not seen it.
func canUndo(bd *board.Board, seat int) bool {
	if bd.Status != board.Active || !bd.Seats[seat].Human() {
		return false
	}
	if bd.Seats[1-seat].Bot != board.NoBot {
		for _, m := range bd.Moves {
			if m.Seat == seat {
				return true
			}
		}
		return false
	}
	n := bd.Ply()
	return n > 0 && bd.Moves[n-1].Seat == seat && bd.Seats[1-seat].Seen < n
}

// utf16Len is the length of s as Telegram counts it.
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n++
		if r >= 0x10000 {
			n++
		}
	}
	return n
}
