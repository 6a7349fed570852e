package engine

import "strings"

// MoveErrorKind says why a move was refused.
type MoveErrorKind uint8

// Why a move text or a Move was refused.
const (
	// MoveUnreadable: the text is not a move in this game's notation.
	MoveUnreadable MoveErrorKind = iota + 1
	// MoveNoPiece: the square the move starts from is empty.
	MoveNoPiece
	// MoveNotYours: the piece the move starts from belongs to the opponent.
	MoveNotYours
	// MoveIllegal: no legal move matches. When the text named a piece of
	// the mover, Candidates lists that piece's legal moves (none: it
	// cannot move now); MustCapture says that a capture is compulsory.
	MoveIllegal
	// MoveAmbiguous: several legal moves match; Candidates lists them.
	MoveAmbiguous
	// MoveGameOver: the game has ended.
	MoveGameOver
)

// String names the kind ("unreadable", "no_piece", ...).
func (k MoveErrorKind) String() string {
	switch k {
	case MoveUnreadable:
		return "unreadable"
	case MoveNoPiece:
		return "no_piece"
	case MoveNotYours:
		return "not_yours"
	case MoveIllegal:
		return "illegal"
	case MoveAmbiguous:
		return "ambiguous"
	case MoveGameOver:
		return "game_over"
	}
	return "unknown"
}

// MoveError explains why ParseMove, Play or Apply refused a move, so that
// the bot can tell the player why and what they may play instead. Nothing
// changes in the game when a move is refused. It wraps ErrAmbiguousMove
// (MoveAmbiguous), ErrGameOver (MoveGameOver) or ErrIllegalMove (every
// other kind), so errors.Is keeps working; use errors.As to read it.
type MoveError struct {
	Kind  MoveErrorKind
	Input string // the text as the player wrote it (or the Move's notation)
	// Square is the square of the piece the text named, if it named one
	// ("" otherwise).
	Square string
	// Candidates are the legal moves of the piece named (MoveIllegal) or
	// the moves the text could mean (MoveAmbiguous), sorted by notation.
	Candidates []Move
	// MustCapture is set when the mover must capture (draughts, Fox and
	// Geese with compulsory capture) and the text named a quiet move.
	MustCapture bool
	// Rested is set when the piece named is a king that may not make a
	// non-capturing move now: it has made three in a row (Frisian
	// draughts' three moves rule), and another piece must move.
	Rested bool
	// Reason is the reason the game ended (MoveGameOver).
	Reason string
}

// Error describes the refusal in English.
func (e *MoveError) Error() string {
	var b strings.Builder
	b.WriteString(e.Unwrap().Error())
	if e.Input != "" {
		b.WriteString(" \"")
		b.WriteString(e.Input)
		b.WriteString("\"")
	}
	switch e.Kind {
	case MoveUnreadable:
		b.WriteString(": not a move")
	case MoveNoPiece:
		if e.Square == "" {
			b.WriteString(": you have no such piece")
		} else {
			b.WriteString(": no piece on " + e.Square)
		}
	case MoveNotYours:
		b.WriteString(": the piece on " + e.Square + " is not yours")
	case MoveGameOver:
		b.WriteString(": " + e.Reason)
	case MoveAmbiguous:
		b.WriteString(": could be " + moveList(e.Candidates))
	case MoveIllegal:
		if e.MustCapture {
			b.WriteString(": a capture is compulsory")
		}
		if e.Rested {
			b.WriteString(": the king on " + e.Square + " has made three moves in a row")
		}
		switch {
		case e.Square != "" && len(e.Candidates) == 0:
			b.WriteString(": the piece on " + e.Square + " cannot move")
		case e.Square != "":
			b.WriteString(": the piece on " + e.Square + " can play " + moveList(e.Candidates))
		case len(e.Candidates) > 0:
			b.WriteString(": legal are " + moveList(e.Candidates))
		}
	}
	return b.String()
}

// Unwrap returns the sentinel error of the kind.
func (e *MoveError) Unwrap() error {
	switch e.Kind {
	case MoveAmbiguous:
		return ErrAmbiguousMove
	case MoveGameOver:
		return ErrGameOver
	}
	return ErrIllegalMove
}

// moveList joins move notations with commas.
func moveList(ms []Move) string {
	names := make([]string, len(ms))
	for i, m := range ms {
		names[i] = m.text
	}
	return strings.Join(names, ", ")
}
