package sessions

import (
	"errors"

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
