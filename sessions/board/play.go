package board

import (
	"fmt"
	"time"

	"github.com/questbot/questbot/engine"
)

// Move plays a move for the user's seat: text is the move as written (the engine reads
// "c3-d4", "e2e4", "Nf3", ...; the canonical notation is stored) and ply the board's ply the
// player saw, so that a tap on a stale keyboard changes nothing.
//
// Checks, in order: the game is on (ErrNotStarted, ErrFinished), the user holds a seat
// (ErrNotSeated), it is that seat's turn (ErrNotYourTurn), ply is the board's (ErrStale), the
// clock: a move after the deadline is not played, the game ends on time instead (EventFinished,
// with no error); then the engine (a *MoveError matching ErrIllegalMove).
//
// A move made in time charges the mover's clock, starts the opponent's, declines the
// opponent's pending draw offer (the mover's own offer stands) and may end the game by the
// rules (EventFinished with EndRules and the engine's reason).
func (b *Board) Move(user int64, text string, ply int, now time.Time) ([]Event, error) {
	now = instant(now)
	seat, err := b.actor(user)
	if err != nil {
		return nil, fmt.Errorf("board %d: move: %w", b.ID, err)
	}
	if seat != b.ToMove {
		return nil, fmt.Errorf("board %d: move: %w", b.ID, ErrNotYourTurn)
	}
	if ply != b.Ply() {
		return nil, fmt.Errorf("board %d: move at ply %d: %w: the board is at ply %d", b.ID, ply, ErrStale, b.Ply())
	}
	if ev, err := b.settle(now); ev != nil || err != nil {
		return ev, err
	}
	g, err := b.engine()
	if err != nil {
		return nil, err
	}
	mv, err := g.ParseMove(text)
	if err == nil {
		err = g.Apply(mv)
	}
	if err != nil {
		return nil, fmt.Errorf("board %d: %w", b.ID, &MoveError{Text: text, Err: err})
	}
	spent := max(now.Sub(b.TurnStarted), 0)
	if b.Seats[seat].Human() {
		b.Seats[seat].Clock, b.Seats[1-seat].Clock = b.Control.charge(b.Seats[seat].Clock, b.Seats[1-seat].Clock, spent)
	}
	b.Moves = append(b.Moves, PlayedMove{
		Ply: b.Ply() + 1, Seat: seat, Text: mv.String(), Position: g.Position(),
		At: now, Spent: spent, Clocks: [2]time.Duration{b.Seats[0].Clock, b.Seats[1].Clock},
	})
	b.Position = g.Position()
	b.Seats[seat].Seen = b.Ply()
	b.Seats[0].Offered, b.Seats[1].Offered = false, false
	b.Reminded = false
	ev := []Event{{Kind: EventMoved, Seat: seat, Ply: b.Ply(), Move: mv.String()}}
	if b.Offer != nil && b.Offer.Seat != seat {
		b.Offer = nil
		ev = append(ev, Event{Kind: EventDrawDeclined, Seat: seat, Ply: b.Ply()})
	}
	if st := g.Status(); st.Result != engine.Ongoing {
		o := Outcome{Draw: st.Result == engine.Draw, End: EndRules, Detail: st.Reason}
		if !o.Draw {
			o.Winner = int(st.Winner)
		}
		b.Deadline = time.Time{} // the mover's turn is over and charged: no clock runs
		return append(ev, b.finish(o, seat, now)...), nil
	}
	b.ToMove = int(g.ToMove())
	b.TurnStarted = now
	b.setDeadline()
	return ev, nil
}

// Undo takes back the seat's last move: against a human, only while it is the last move of
// the game and the opponent has not seen it (Seen); against the bot, always, together with the
// bot's reply if it has come. The clocks go back to what they were before the move and the
// player's turn resumes from when it began, so undoing gives back the move but not the time
// (an undo that would leave the player out of time is refused). A pending draw offer is
// withdrawn. Returns ErrCannotUndo (with the reason), ErrNotStarted, ErrFinished or
// ErrNotSeated; when the side to move has run out of time, the game ends on time instead.
func (b *Board) Undo(user int64, now time.Time) ([]Event, error) {
	now = instant(now)
	seat, err := b.actor(user)
	if err != nil {
		return nil, fmt.Errorf("board %d: undo: %w", b.ID, err)
	}
	if ev, err := b.settle(now); ev != nil || err != nil {
		return ev, err
	}
	cannot := func(why string) error { return fmt.Errorf("board %d: undo: %w: %s", b.ID, ErrCannotUndo, why) }
	if user == BotUser {
		return nil, cannot("the bot does not take back moves")
	}
	last := b.Ply()
	to := last - 1
	if b.Seats[1-seat].Bot != NoBot {
		for to >= 0 && b.Moves[to].Seat != seat {
			to--
		}
		if to < 0 {
			return nil, cannot("you have not moved yet")
		}
	} else {
		if last == 0 || b.Moves[last-1].Seat != seat {
			return nil, cannot("the last move is not yours")
		}
		if b.Seats[1-seat].Seen >= last {
			return nil, cannot("your opponent has seen the move")
		}
	}
	clocks, turn := [2]time.Duration{b.Control.Main, b.Control.Main}, b.Started
	if to > 0 {
		clocks, turn = b.Moves[to-1].Clocks, b.Moves[to-1].At
	}
	if d, ok := b.Control.budget(clocks[seat]); ok && now.After(turn.Add(d)) {
		return nil, cannot("your time would have run out")
	}
	g, err := b.engine()
	if err != nil {
		return nil, err
	}
	for range last - to {
		if err := g.Undo(); err != nil {
			b.game = nil // rebuilt from the move list on next use
			return nil, fmt.Errorf("board %d: undo: %w", b.ID, err)
		}
	}
	b.truncate(to)
	b.Position = g.Position()
	b.ToMove = int(g.ToMove())
	for i := range b.Seats {
		b.Seats[i].Clock = clocks[i]
		b.Seats[i].Seen = min(b.Seats[i].Seen, to)
		b.Seats[i].Offered = false
	}
	b.Offer = nil
	b.Reminded = false
	b.TurnStarted = turn
	b.setDeadline()
	return []Event{{Kind: EventUndone, Seat: seat, Ply: to, Undone: last - to}}, nil
}

// Seen records that the user has seen the board up to ply (a move they saw can no longer be
// taken back). It reports whether that changed anything. Returns ErrStale for a ply the
// board does not have, ErrNotStarted, ErrNotSeated, and ErrFinished for an aborted board; a
// finished game may still be looked at.
func (b *Board) Seen(user int64, ply int) (bool, error) {
	switch b.Status {
	case Waiting:
		return false, fmt.Errorf("board %d: seen: %w", b.ID, ErrNotStarted)
	case Aborted:
		return false, fmt.Errorf("board %d: seen: %w", b.ID, ErrFinished)
	}
	seat, err := b.SeatOf(user)
	if err != nil {
		return false, fmt.Errorf("board %d: seen: %w", b.ID, err)
	}
	if ply < 0 || ply > b.Ply() {
		return false, fmt.Errorf("board %d: seen ply %d: %w: the board is at ply %d", b.ID, ply, ErrStale, b.Ply())
	}
	if ply <= b.Seats[seat].Seen {
		return false, nil
	}
	b.Seats[seat].Seen = ply
	return true, nil
}

// Resign ends the game as a loss for the user's seat, whoever is to move. When the side to
// move had already run out of time, the game ends on time instead.
func (b *Board) Resign(user int64, now time.Time) ([]Event, error) {
	now = instant(now)
	seat, err := b.actor(user)
	if err != nil {
		return nil, fmt.Errorf("board %d: resign: %w", b.ID, err)
	}
	if ev, err := b.settle(now); ev != nil || err != nil {
		return ev, err
	}
	return b.finish(Outcome{Winner: 1 - seat, End: EndResignation}, seat, now), nil
}

// Expire ends the game on time when the side to move has run out at now (the scheduled job
// calls it for the boards whose deadline has passed; Move and the other operations do the
// same first). It returns no events when the clock has not run out or the game is not on.
//
// The side that ran out loses, unless its opponent could not have won: then the game is
// drawn. The engine's public API tells this for one case only, chess, where a side left with
// its bare king cannot mate; in every other game (and chess position) the timeout loses.
func (b *Board) Expire(now time.Time) ([]Event, error) {
	return b.settle(instant(now))
}

// Remind reports whether the correspondence reminder is due at now for the seat to move
// (ReminderLead or less before its deadline, not yet passed, not yet sent this ply), and marks
// it sent. The store's reminder claim applies the same rule in SQL.
func (b *Board) Remind(now time.Time) bool {
	now = instant(now)
	due := b.Status == Active && b.Control.Mode == ClockCorrespondence && !b.Deadline.IsZero() &&
		!b.Reminded && !now.After(b.Deadline) && b.Deadline.Sub(now) <= ReminderLead
	if due {
		b.Reminded = true
	}
	return due
}

// actor checks that the game is on and returns the user's seat.
func (b *Board) actor(user int64) (int, error) {
	switch b.Status {
	case Waiting:
		return 0, ErrNotStarted
	case Finished, Aborted:
		return 0, ErrFinished
	}
	for i, s := range b.Seats {
		if (user == BotUser && s.Bot != NoBot) || (user != BotUser && s.User == user) {
			return i, nil
		}
	}
	return 0, fmt.Errorf("user %d: %w", user, ErrNotSeated)
}

// settle ends the game on time when the side to move has run out at now, and returns the
// events; none when the clock has not run out.
func (b *Board) settle(now time.Time) ([]Event, error) {
	if b.Status != Active || b.Deadline.IsZero() || !now.After(b.Deadline) {
		return nil, nil
	}
	g, err := b.engine()
	if err != nil {
		return nil, err
	}
	loser := b.ToMove
	o := Outcome{Winner: 1 - loser, End: EndTimeout}
	if cannotWin(g, 1-loser) {
		o = Outcome{Draw: true, End: EndTimeout, Detail: "the opponent cannot win"}
	}
	return b.finish(o, loser, now), nil
}

// cannotWin reports whether side could not win the game by any series of legal moves, as far
// as the engine lets us tell: in chess, Chess960 and Gardner's minichess, a side with nothing
// but its king.
func cannotWin(g *engine.Game, side int) bool {
	switch g.Variant() {
	case "chess", "chess960", "gardner":
	default:
		return false
	}
	st := g.State()
	pieces := 0
	for _, pc := range st.Board {
		if pc != 0 && int(pc.Owner()) == side {
			pieces++
		}
	}
	return pieces <= 1
}

// finish ends the game with outcome o, caused by seat. The clock of the side to move, when
// one runs, stops at now: it is charged the turn's thinking so far (never beyond what it had,
// and without the increment, which rewards a move made), so that the finished game shows the
// time each side had left: none for the player who lost on time.
func (b *Board) finish(o Outcome, seat int, now time.Time) []Event {
	if !b.Deadline.IsZero() {
		mover := b.ToMove
		spent := min(max(now.Sub(b.TurnStarted), 0), b.Deadline.Sub(b.TurnStarted))
		b.Seats[mover].Clock, b.Seats[1-mover].Clock = b.Control.stop(b.Seats[mover].Clock, b.Seats[1-mover].Clock, spent)
	}
	b.Status = Finished
	b.Outcome = &o
	b.Ended = now
	b.Deadline = time.Time{}
	b.Offer = nil
	return []Event{{Kind: EventFinished, Seat: seat, Ply: b.Ply(), Outcome: &o}}
}
