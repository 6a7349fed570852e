package boards

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/questbot/questbot/sessions"
	"github.com/questbot/questbot/sessions/board"
	"github.com/questbot/questbot/sessions/board/boardpg"
)

// # Rematch
//
// After a game, either player may offer a rematch (Rematch): a new board of the same game,
// rules and clock with the colours swapped. Against the bot it starts at once. Against a player
// it is a game joined by invitation only, which waits for the opponent: they accept it
// (AcceptRematch, or by offering a rematch themselves) and it starts, or decline it
// (DeclineRematch, which also lets its offerer withdraw it) and it is aborted. A game has one
// rematch; its state is the new board's (migration 039_board_archive_rematch.sql). The offer and
// its answer, however it comes (an accept, a decline, a join or an abort of the new board), are
// an event of the finished board's record (EventKindRematch, written by the one path of changes
// when the new board opens, starts or is aborted: events.go's recordRematch), by which the views
// of the finished game learn of them.

// Refusals of the rematches.
var (
	// ErrNotOver: the game is still being played (or waits); a rematch follows its end.
	ErrNotOver = sessions.Refusal(sessions.KindConflict, "game not over")
	// ErrNoRematch: no rematch of the game waits for the player's answer.
	ErrNoRematch = sessions.Refusal(sessions.KindConflict, "no rematch offered")
	// ErrRematched: the game's rematch was offered already and answered.
	ErrRematched = sessions.Refusal(sessions.KindConflict, "rematch answered")
)

// RematchState is the rematch of a finished game: the new board and the seat, in the old game,
// of the player who offered it.
type RematchState struct {
	Board     *board.Board
	OfferedBy int
}

// RematchOf returns the rematch of a game, read in db; nil when none was offered.
func (b *Boards) RematchOf(ctx context.Context, db pgx.Tx, id int64) (*RematchState, error) {
	r, ok, err := b.archives(db).RematchOf(ctx, id)
	if err != nil || !ok {
		return nil, err
	}
	bd, err := b.store(db).Get(ctx, r.Board)
	if err != nil {
		return nil, err
	}
	return &RematchState{Board: bd, OfferedBy: r.OfferedBy}, nil
}

// Rematch offers a rematch of a finished game to its other player, or starts it against the
// bot, and returns the new board. A rematch the opponent offered is accepted; the player's own
// offer is given again. Returns board.ErrNotSeated for anyone but the game's players,
// ErrNotOver before its end, ErrRematched once its rematch was answered, and what Open returns
// for a game against the bot (board.ErrTooManyBotGames).
func (b *Boards) Rematch(ctx context.Context, tx Tx, p Player, id int64) (*board.Board, error) {
	st := b.store(tx.DB())
	old, seat, err := b.finished(ctx, st, p, id)
	if err != nil {
		return nil, err
	}
	as := b.archives(tx.DB())
	r, ok, err := as.RematchOf(ctx, id)
	if err != nil {
		return nil, err
	}
	if ok {
		nb, err := lockOf(ctx, st, p, r.Board)
		switch {
		case err != nil:
			return nil, err
		case nb.Status != board.Waiting:
			return nil, fmt.Errorf("board %d: %w", id, ErrRematched)
		case r.OfferedBy == seat:
			return nb, nil
		}
		return nb, b.join(ctx, tx, st, nb, p)
	}
	other := old.Seats[1-seat]
	spec := board.Spec{Service: p.Service, Creator: p.User, Variant: old.Variant, Options: old.Options, Seed: b.seed(),
		Control: old.Control, Side: board.Side(1 - seat), Bot: other.Bot, Private: other.Bot == board.NoBot}
	if other.Bot != board.NoBot {
		spec.Control = board.TimeControl{Name: "none"}
		if err := b.mayPlayBot(ctx, st, p); err != nil {
			return nil, err
		}
	}
	nb, ev, err := board.Open(spec, b.now())
	if err != nil {
		return nil, err
	}
	if err := st.Create(ctx, nb); err != nil {
		return nil, err
	}
	// The old board is locked: nobody else adds its rematch meanwhile.
	added, err := as.AddRematch(ctx, id, boardpg.Rematch{Board: nb.ID, OfferedBy: seat})
	if err != nil {
		return nil, err
	}
	if !added {
		return nil, fmt.Errorf("board %d: %w", id, ErrRematched)
	}
	mine, _ := nb.SeatOf(p.User)
	if err := b.onWeb(ctx, tx, p, nb.ID, mine); err != nil {
		return nil, err
	}
	return nb, b.changed(ctx, tx, nb, Change{Events: ev, Actor: mine, By: p.By})
}

// AcceptRematch accepts the rematch of a finished game the opponent offered: the new board
// starts. Returns ErrNoRematch when none waits for the player's answer.
func (b *Boards) AcceptRematch(ctx context.Context, tx Tx, p Player, id int64) (*board.Board, error) {
	st := b.store(tx.DB())
	nb, err := b.offered(ctx, tx, st, p, id)
	if err != nil {
		return nil, err
	}
	return nb, b.join(ctx, tx, st, nb, p)
}

// DeclineRematch declines the rematch of a finished game the opponent offered, or withdraws
// the player's own offer: the new board is aborted. Returns ErrNoRematch when none waits.
func (b *Boards) DeclineRematch(ctx context.Context, tx Tx, p Player, id int64) error {
	st := b.store(tx.DB())
	old, seat, r, nb, err := b.rematchLocked(ctx, tx, st, p, id)
	if err != nil {
		return err
	}
	ev, err := nb.Cancel(nb.Creator, b.now())
	if err != nil {
		return err
	}
	actor := NoSeat
	if r.OfferedBy == seat {
		actor, _ = nb.SeatOf(old.Seats[seat].User)
	}
	return b.commit(ctx, tx, st, nb, ev, actor, p.By)
}

// offered locks the rematch of a finished game that waits for the player's answer.
func (b *Boards) offered(ctx context.Context, tx Tx, st Store, p Player, id int64) (*board.Board, error) {
	_, seat, r, nb, err := b.rematchLocked(ctx, tx, st, p, id)
	if err != nil {
		return nil, err
	}
	if r.OfferedBy == seat {
		return nil, fmt.Errorf("board %d: %w", id, ErrNoRematch)
	}
	return nb, nil
}

// rematchLocked locks the rematch of a finished game that still waits, then the finished game
// for one of its players, and returns both with the player's seat in the finished game and the
// rematch's record. The two are locked in the order every change of a rematch takes them (the
// change locks its board; the finished board's record of it is written after, recordRematch),
// so that an answer racing a join or a call-off of the rematch waits rather than deadlocks. The
// rematch of a board is read before any lock: once offered it never changes. Returns
// ErrNoRematch when none waits, and finished's refusals before that one.
func (b *Boards) rematchLocked(ctx context.Context, tx Tx, st Store, p Player, id int64) (old *board.Board, seat int, r boardpg.Rematch, nb *board.Board, err error) {
	r, ok, err := b.archives(tx.DB()).RematchOf(ctx, id)
	if err != nil {
		return nil, 0, r, nil, err
	}
	if ok {
		if nb, err = lockOf(ctx, st, p, r.Board); err != nil {
			return nil, 0, r, nil, err
		}
	}
	if old, seat, err = b.finished(ctx, st, p, id); err != nil {
		return nil, 0, r, nil, err
	}
	if !ok || nb.Status != board.Waiting {
		return nil, 0, r, nil, fmt.Errorf("board %d: %w", id, ErrNoRematch)
	}
	return old, seat, r, nb, nil
}

// finished locks a finished game of the player's bot for one of its players, and returns it
// with their seat.
func (b *Boards) finished(ctx context.Context, st Store, p Player, id int64) (*board.Board, int, error) {
	bd, err := lockOf(ctx, st, p, id)
	if err != nil {
		return nil, 0, err
	}
	if p.User == board.BotUser {
		return nil, 0, board.ErrNotSeated
	}
	seat, err := bd.SeatOf(p.User)
	if err != nil {
		return nil, 0, err
	}
	if bd.Status != board.Finished {
		return nil, 0, fmt.Errorf("board %d: %w", id, ErrNotOver)
	}
	return bd, seat, nil
}
