package telegram

import (
	"fmt"
	"html"
	"slices"
	"strings"

	"github.com/questbot/questbot/bot"
	"github.com/questbot/questbot/bot/boards"
	"github.com/questbot/questbot/bot/texts"
	"github.com/questbot/questbot/engine"
	"github.com/questbot/questbot/sessions/board"
	"github.com/questbot/questbot/sessions/tournament"
)

// side names a seat's side ("White", "Fox") in c's language.
func side(c *texts.Catalog, sc *boards.Scene, seat int) string {
	en := sc.Game.PlayerName(engine.Player(seat))
	if s, ok := c.Board.Sides[en]; ok {
		return s
	}
	return en
}

// caption is the caption of the board for a seat: the tournament and its round for a game of
// one, the game and the move number, the players (the opponent first, as on the picture) with
// their clocks, the last move, whose turn it is and the time left, or the result; then what the
// player is doing (l's entry, a confirmation) and l's note.
func (v *View) caption(c *texts.Catalog, sc *boards.Scene, seat int, l look) string {
	note, ent, confirm := l.note, l.ent, l.confirm
	bd, t := sc.Board, &c.Board
	now := v.svc.Now()
	var lines []string
	if tg := sc.Tournament; tg != nil {
		lines = append(lines, html.EscapeString(c.Tournament().Heading(tg.ID, tg.System == tournament.Arena, tg.Round, tg.Rounds)))
	}
	lines = append(lines, fmt.Sprintf(t.Title, html.EscapeString(c.Game(bd.Variant)), sc.CurrentMove()))
	clocks := bd.Clocks(now)
	timed := boards.GameClock(bd)
	for _, i := range []int{1 - seat, seat} {
		mark := "▫️ "
		if bd.Status == board.Active && bd.ToMove == i {
			mark = "▶️ "
		}
		line := mark + fmt.Sprintf(t.Seat, html.EscapeString(side(c, sc, i)), htmlName(c, sc, i))
		if timed && bd.Status == board.Active {
			line += fmt.Sprintf(t.Clock, c.Duration(clocks[i]))
		}
		lines = append(lines, line)
	}
	if n := bd.Ply(); n > 0 {
		last := bd.Moves[n-1]
		lines = append(lines, fmt.Sprintf(t.LastMove, html.EscapeString(sc.Numbered(n)), htmlName(c, sc, last.Seat)))
	}
	switch bd.Status {
	case board.Finished:
		lines = append(lines, v.result(c, sc, seat)...)
	case board.Active:
		switch {
		case bd.ToMove == seat:
			lines = append(lines, t.YourTurn)
		case bd.Seats[bd.ToMove].Bot != board.NoBot:
			lines = append(lines, t.BotThinking)
		default:
			lines = append(lines, fmt.Sprintf(t.TheirTurn, htmlName(c, sc, bd.ToMove)))
		}
		switch left := c.Duration(bd.Deadline.Sub(now)); {
		case bd.Deadline.IsZero():
		case !timed:
			lines = append(lines, fmt.Sprintf(t.TimeLeft, left))
		case bd.ToMove == seat:
			lines = append(lines, fmt.Sprintf(t.ClockYours, left))
		default:
			lines = append(lines, fmt.Sprintf(t.ClockTheirs, left))
		}
		if o := bd.Offer; o != nil {
			if o.Seat == seat {
				lines = append(lines, t.Offered)
			} else {
				lines = append(lines, fmt.Sprintf(t.Offers, htmlName(c, sc, o.Seat)))
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
			paths = append(paths, sc.Game.Display(m))
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

// result is the lines of a finished game's result for a seat: who won and how, and the seat's
// new rating after a rated game.
func (v *View) result(c *texts.Catalog, sc *boards.Scene, seat int) []string {
	o, t := sc.Board.Outcome, &c.Board
	if o == nil {
		return nil
	}
	reason := htmlReason(c, sc)
	var lines []string
	switch {
	case o.Draw:
		lines = append(lines, fmt.Sprintf(t.Draw, reason))
	case sc.Board.Seats[seat].Human() && o.Winner == seat:
		lines = append(lines, fmt.Sprintf(t.YouWin, reason))
	case sc.Board.Seats[seat].Human():
		lines = append(lines, fmt.Sprintf(t.YouLose, reason))
	default:
		lines = append(lines, fmt.Sprintf(t.Win, htmlName(c, sc, o.Winner), reason))
	}
	if s := sc.Board.Seats[seat]; sc.Board.Rated && (s.RatingBefore != 0 || s.RatingAfter != 0) {
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
func (v *View) keyboard(c *texts.Catalog, sc *boards.Scene, seat int, ent *entry, confirm bool) bot.Keyboard {
	bd, t := sc.Board, &c.Board
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
		var selecting bool
		if kb, selecting = moveButtons(c, sc, ent, btn); selecting {
			return kb
		}
	}
	if o := bd.Offer; o != nil && o.Seat != seat {
		return append(kb, []bot.Button{btn(t.Accept, press{op: opAccept}), btn(t.Decline, press{op: opDecline})})
	}
	var row []bot.Button
	if boards.CanUndo(bd, seat) {
		row = append(row, btn(t.Undo, press{op: opUndo}))
	}
	if bd.Offer == nil && !bd.Seats[seat].Offered {
		row = append(row, btn(t.OfferDraw, press{op: opDraw}))
	}
	row = append(row, btn(t.Resign, press{op: opResign}))
	return append(kb, row)
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

// promotionOrder is the order in which the pieces of a chess promotion are offered.
const promotionOrder = "QRBN"

// choiceLabel is the label of the button of one of several moves with the same squares: a chess
// promotion by its piece, drawn and named in c's language ("♕ Queen"), any other by the engine's
// label.
func choiceLabel(c *texts.Catalog, sc *boards.Scene, ch engine.Choice) string {
	if sc.Game.Variant() == "chess" {
		if name, ok := c.Board.Promotions[ch.Label]; ok {
			return name
		}
	}
	return ch.Label
}

// sortPromotions puts the buttons of a chess promotion in the order queen, rook, bishop, knight;
// other buttons keep their order.
func sortPromotions(c *texts.Catalog, row []bot.Button) {
	rank := func(b bot.Button) int {
		for i, p := range promotionOrder {
			if c.Board.Promotions[string(p)] == b.Text {
				return i
			}
		}
		return len(promotionOrder)
	}
	slices.SortStableFunc(row, func(x, y bot.Button) int { return rank(x) - rank(y) })
}

// moveButtons returns the rows of move buttons of a board whose player to move has tapped the
// squares of ent (nil: none yet): the squares to tap next (the pass point of Othello and Atari
// Go by its word), and once a square is tapped, the moves to choose and "back"; selecting tells
// that a square is tapped, when nothing else goes under them. btn makes a button of the board's
// view (a private board's data or a shared one's).
func moveButtons(c *texts.Catalog, sc *boards.Scene, ent *entry, btn func(string, press) bot.Button) (kb bot.Keyboard, selecting bool) {
	t := &c.Board
	if ent == nil {
		var err error
		if ent, err = resolveEntry(sc.Game, nil); err != nil {
			ent = &entry{}
		}
	}
	var row []bot.Button
	for i, sq := range ent.steps.Next {
		if i == maxOffered {
			break
		}
		label := sq
		if sq == "pass" {
			label = t.Pass
		}
		row = append(row, btn(label, press{op: opTap, path: append(append([]int(nil), ent.path...), i)}))
		if len(row) == squaresPerRow {
			kb, row = append(kb, row), nil
		}
	}
	if len(row) > 0 {
		kb = append(kb, row)
	}
	if len(ent.path) == 0 {
		return kb, false
	}
	// Choices label the moves that end on the squares tapped, in the order of Moves; a single
	// move that ends there while longer ones go on is offered by its notation.
	row = nil
	for i, ch := range ent.steps.Choices {
		if i == maxOffered {
			break
		}
		row = append(row, btn(choiceLabel(c, sc, ch), press{op: opChoose, path: ent.path, choice: i}))
	}
	sortPromotions(c, row)
	if len(ent.steps.Choices) == 0 && len(ent.steps.Moves) == 1 {
		row = append(row, btn("✓ "+sc.Game.Display(ent.steps.Moves[0]), press{op: opChoose, path: ent.path}))
	}
	if len(row) > 0 {
		kb = append(kb, row)
	}
	return append(kb, []bot.Button{btn(t.Back, press{op: opTap, path: ent.path[:len(ent.path)-1]})}), true
}
