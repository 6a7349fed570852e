package engine

import "errors"

// Errors returned by the engine. They are wrapped with details; test them
// with errors.Is.
var (
	// ErrIllegalMove: the move is not legal in the current position, or the
	// move text matches no legal move.
	ErrIllegalMove = errors.New("illegal move")
	// ErrAmbiguousMove: the move text matches more than one legal move.
	ErrAmbiguousMove = errors.New("ambiguous move")
	// ErrBadPosition: a position string cannot be read or describes an
	// impossible position.
	ErrBadPosition = errors.New("bad position")
	// ErrUnknownVariant: no game of that name.
	ErrUnknownVariant = errors.New("unknown variant")
	// ErrGameOver: the game has ended; no more moves can be played.
	ErrGameOver = errors.New("game over")
	// ErrNoHistory: there is no move to undo.
	ErrNoHistory = errors.New("no move to undo")
	// ErrBadOption: an option does not apply to the game or has a bad value.
	ErrBadOption = errors.New("bad option")
)
