package formula

import (
	"errors"
	"fmt"
	"strings"
)

// SyntaxError is a parse error. Msg is the reference player's own wording (for example
// "Expected value at 2" or "Unexpected data at 1: ')' kind=close brace token"), so messages can
// be compared with the reference; Pos is the offset of the offending character or token in the
// source. Since any non-ASCII character stops the scan, everything up to Pos is ASCII and Pos is
// at the same time a byte, a rune and a UTF-16 offset.
type SyntaxError struct {
	Pos int    // offset of the error in the source
	Msg string // what went wrong, as the reference words it
}

// Error returns "formula: " and the message. The reference's messages already name the
// position, except "Unknown char X", which gets " at Pos" appended here.
func (e *SyntaxError) Error() string {
	if strings.HasPrefix(e.Msg, msgUnknownChar) {
		return fmt.Sprintf("formula: %s at %d", e.Msg, e.Pos)
	}
	return "formula: " + e.Msg
}

// UndefinedParamError reports a reference to a parameter [pN] for which Eval got no value.
// Index is zero-based (N−1), so it is the slice index that was out of range; [p0] gives −1.
type UndefinedParamError struct {
	Index int
}

// Error returns the reference's message, "Parameter pN is not defined".
func (e *UndefinedParamError) Error() string {
	return fmt.Sprintf("formula: Parameter p%d is not defined", e.Index+1)
}

// Evaluation errors other than [UndefinedParamError]. Callers check them with [errors.Is].
var (
	// ErrEmptyRange means a random pick found no value: the range list was empty (`[]`,
	// which still draws random(0) first, as the reference does), or its sizes added up to
	// zero or less, or the random source returned a number outside [0, n).
	ErrEmptyRange = errors.New("formula: no value to pick in an empty range list")

	// ErrRangeTooLarge means a range list's size is not a finite number that fits an int
	// (possible only with absurdly long number literals). No draw is made. The reference
	// would go on with NaN or an infinity here; the int-based random source cannot.
	ErrRangeTooLarge = errors.New("formula: range list too large to draw from")

	// ErrNotANumber means the result is NaN (possible only with number literals beyond the
	// largest double, such as 400 digits, where the reference yields NaN).
	ErrNotANumber = errors.New("formula: result is not a number")

	// ErrNoRandom means the formula needed a random draw but Eval got a nil random source.
	ErrNoRandom = errors.New("formula: random draw without a random source")

	// ErrEmptyExpr means Eval was called on a nil or zero Expr, which no Parse returns.
	ErrEmptyExpr = errors.New("formula: evaluating an empty expression")
)
