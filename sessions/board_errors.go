package sessions

import (
	"errors"
	"fmt"
)

// Errors of board-game sessions. They are wrapped with details; test them with errors.Is. An
// operation that returns an error has changed nothing.
var (
	// ErrNotFound: no such board, invite or time control.
	ErrNotFound = errors.New("not found")
	// ErrFull: the board has no free seat (someone else joined first).
	ErrFull = errors.New("no free seat")
	// ErrAlreadySeated: the user already holds a seat of the board.
	ErrAlreadySeated = errors.New("already seated")
	// ErrNotSeated: the user holds no seat of the board.
	ErrNotSeated = errors.New("not seated")
	// ErrNotStarted: the board still waits for an opponent.
	ErrNotStarted = errors.New("not started")
	// ErrNotYourTurn: the other side is to move.
	ErrNotYourTurn = errors.New("not your turn")
	// ErrStale: the board has changed since the player looked at it (the expected ply differs),
	// or since it was read (a store refuses to save over a newer version).
	ErrStale = errors.New("stale board")
	// ErrFinished: the game is over (or was aborted).
	ErrFinished = errors.New("game finished")
	// ErrIllegalMove: the move text matches no legal move. The error also wraps the engine's
	// error (engine.ErrIllegalMove, engine.ErrAmbiguousMove, or a richer typed error).
	ErrIllegalMove = errors.New("illegal move")
	// ErrCannotUndo: the seat has no move it may take back now.
	ErrCannotUndo = errors.New("cannot undo")
	// ErrNoOffer: there is no draw offer from the opponent to answer.
	ErrNoOffer = errors.New("no draw offer")
	// ErrOffered: the seat has already offered a draw since the last move.
	ErrOffered = errors.New("draw already offered")
	// ErrInviteUsed: the invite code has been redeemed already.
	ErrInviteUsed = errors.New("invite already used")
	// ErrInviteExpired: the invite code's time is up, or its game is gone.
	ErrInviteExpired = errors.New("invite expired")
	// ErrInvalid: a bad argument (an unknown bot level, a time control that does not fit its
	// mode, malformed engine options, a user id that is not one).
	ErrInvalid = errors.New("invalid")
	// ErrCorrupt: a stored board does not agree with itself (replaying its moves does not give
	// the stored positions).
	ErrCorrupt = errors.New("corrupt board")
)

// MoveError is the error of a move the engine refused. It matches both ErrIllegalMove and
// the engine's own error with errors.Is, and errors.As finds the engine's typed errors in it.
type MoveError struct {
	// Text is the move as the player wrote it.
	Text string
	// Err is the engine's error.
	Err error
}

// Error describes the move and the engine's reason.
func (e *MoveError) Error() string { return fmt.Sprintf("move %q: %v", e.Text, e.Err) }

// Unwrap returns ErrIllegalMove and the engine's error.
func (e *MoveError) Unwrap() []error { return []error{ErrIllegalMove, e.Err} }
