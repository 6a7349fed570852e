package board

import (
	"errors"
	"fmt"

	"github.com/questbot/questbot/sessions"
)

// Errors of board-game sessions. They are wrapped with details; test them with errors.Is. An
// operation that returns an error has changed nothing. Each refusal carries its kind
// (sessions.KindOf), decided here, once; ErrCorrupt is a failure of the bot, of no kind.
var (
	// ErrNotFound: no such board, invite or time control.
	ErrNotFound = sessions.Refusal(sessions.KindNotFound, "not found")
	// ErrFull: the board has no free seat (someone else joined first).
	ErrFull = sessions.Refusal(sessions.KindConflict, "no free seat")
	// ErrAlreadySeated: the user already holds a seat of the board.
	ErrAlreadySeated = sessions.Refusal(sessions.KindConflict, "already seated")
	// ErrNotSeated: the user holds no seat of the board.
	ErrNotSeated = sessions.Refusal(sessions.KindNotYours, "not seated")
	// ErrNotStarted: the board still waits for an opponent.
	ErrNotStarted = sessions.Refusal(sessions.KindConflict, "not started")
	// ErrNotYourTurn: the other side is to move.
	ErrNotYourTurn = sessions.Refusal(sessions.KindConflict, "not your turn")
	// ErrStale: the board has changed since the player looked at it (the expected ply differs),
	// or since it was read (a store refuses to save over a newer version).
	ErrStale = sessions.Refusal(sessions.KindStale, "stale board")
	// ErrFinished: the game is over (or was aborted).
	ErrFinished = sessions.Refusal(sessions.KindConflict, "game finished")
	// ErrIllegalMove: the move text matches no legal move. The error also wraps the engine's
	// error (engine.ErrIllegalMove, engine.ErrAmbiguousMove, or a richer typed error).
	ErrIllegalMove = sessions.Refusal(sessions.KindIllegal, "illegal move")
	// ErrCannotUndo: the seat has no move it may take back now.
	ErrCannotUndo = sessions.Refusal(sessions.KindConflict, "cannot undo")
	// ErrCannotAbort: both sides have moved; the game can only be resigned now.
	ErrCannotAbort = sessions.Refusal(sessions.KindConflict, "cannot abort")
	// ErrNoOffer: there is no draw offer from the opponent to answer.
	ErrNoOffer = sessions.Refusal(sessions.KindConflict, "no draw offer")
	// ErrOffered: the seat has already offered a draw since the last move.
	ErrOffered = sessions.Refusal(sessions.KindConflict, "draw already offered")
	// ErrInviteUsed: the invite code has been redeemed already.
	ErrInviteUsed = sessions.Refusal(sessions.KindConflict, "invite already used")
	// ErrInviteExpired: the invite code's time is up, or its game is gone.
	ErrInviteExpired = sessions.Refusal(sessions.KindConflict, "invite expired")
	// ErrTooManyBotGames: the player already plays as many games against the bot at once as a
	// bot allows (the board service's Config.BotGames).
	ErrTooManyBotGames = sessions.Refusal(sessions.KindConflict, "too many games against the bot")
	// ErrInvalid: a bad argument (an unknown bot level, a time control that does not fit its
	// mode, malformed engine options, a user id that is not one).
	ErrInvalid = sessions.Refusal(sessions.KindInvalid, "invalid")
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
