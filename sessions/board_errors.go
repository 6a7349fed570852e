package sessions

import (
	"errors"
	"fmt"

	"github.com/questbot/questbot/engine"
)

// ErrKind is the kind of a refusal: what the caller asked for that cannot be done, decided once,
// where the error is made. The views answer by kind, each from one table (the web server's HTTP
// statuses; the Telegram view tells the user of any refusal, in the words of bot/texts), so a new
// refusal needs no edit of theirs. An error of no kind is a failure of the bot.
type ErrKind int

// The kinds of refusals.
const (
	// KindNone: not a refusal.
	KindNone ErrKind = iota
	// KindNotFound: no such board, invite or time control (or none the caller may see).
	KindNotFound
	// KindNotYours: the caller holds no seat of the board.
	KindNotYours
	// KindStale: the board has changed since the caller looked at it.
	KindStale
	// KindConflict: the operation does not fit the board's state now (not started, not the
	// caller's turn, finished, no offer to answer, no free seat, ...).
	KindConflict
	// KindIllegal: a move the rules refuse.
	KindIllegal
	// KindInvalid: a bad argument, or data no button of ours carries.
	KindInvalid
)

// refusal is an error of a kind.
type refusal struct {
	kind ErrKind
	msg  string
}

func (r *refusal) Error() string { return r.msg }

// Kind returns the refusal's kind.
func (r *refusal) Kind() ErrKind { return r.kind }

// Refusal returns a new refusal of kind k, to compare with errors.Is like any sentinel error;
// the features that add refusals of their own make them so.
func Refusal(k ErrKind, msg string) error { return &refusal{kind: k, msg: msg} }

// KindOf returns the kind of err: that of the refusal in its chain; KindIllegal for the
// engine's refusals of a move (it does not know sessions) and KindConflict for a move after the
// end; KindNone for anything else.
func KindOf(err error) ErrKind {
	var k interface{ Kind() ErrKind }
	switch {
	case errors.As(err, &k):
		return k.Kind()
	case errors.Is(err, engine.ErrIllegalMove), errors.Is(err, engine.ErrAmbiguousMove):
		return KindIllegal
	case errors.Is(err, engine.ErrGameOver):
		return KindConflict
	}
	return KindNone
}

// Errors of board-game sessions. They are wrapped with details; test them with errors.Is. An
// operation that returns an error has changed nothing. Each refusal carries its kind (KindOf),
// decided here, once; ErrCorrupt is a failure of the bot, of no kind.
var (
	// ErrNotFound: no such board, invite or time control.
	ErrNotFound = Refusal(KindNotFound, "not found")
	// ErrFull: the board has no free seat (someone else joined first).
	ErrFull = Refusal(KindConflict, "no free seat")
	// ErrAlreadySeated: the user already holds a seat of the board.
	ErrAlreadySeated = Refusal(KindConflict, "already seated")
	// ErrNotSeated: the user holds no seat of the board.
	ErrNotSeated = Refusal(KindNotYours, "not seated")
	// ErrNotStarted: the board still waits for an opponent.
	ErrNotStarted = Refusal(KindConflict, "not started")
	// ErrNotYourTurn: the other side is to move.
	ErrNotYourTurn = Refusal(KindConflict, "not your turn")
	// ErrStale: the board has changed since the player looked at it (the expected ply differs),
	// or since it was read (a store refuses to save over a newer version).
	ErrStale = Refusal(KindStale, "stale board")
	// ErrFinished: the game is over (or was aborted).
	ErrFinished = Refusal(KindConflict, "game finished")
	// ErrIllegalMove: the move text matches no legal move. The error also wraps the engine's
	// error (engine.ErrIllegalMove, engine.ErrAmbiguousMove, or a richer typed error).
	ErrIllegalMove = Refusal(KindIllegal, "illegal move")
	// ErrCannotUndo: the seat has no move it may take back now.
	ErrCannotUndo = Refusal(KindConflict, "cannot undo")
	// ErrNoOffer: there is no draw offer from the opponent to answer.
	ErrNoOffer = Refusal(KindConflict, "no draw offer")
	// ErrOffered: the seat has already offered a draw since the last move.
	ErrOffered = Refusal(KindConflict, "draw already offered")
	// ErrInviteUsed: the invite code has been redeemed already.
	ErrInviteUsed = Refusal(KindConflict, "invite already used")
	// ErrInviteExpired: the invite code's time is up, or its game is gone.
	ErrInviteExpired = Refusal(KindConflict, "invite expired")
	// ErrInvalid: a bad argument (an unknown bot level, a time control that does not fit its
	// mode, malformed engine options, a user id that is not one).
	ErrInvalid = Refusal(KindInvalid, "invalid")
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
