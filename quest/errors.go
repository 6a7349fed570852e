package quest

import (
	"errors"
	"fmt"
)

// Sentinel errors of the player. Errors returned by [Quest.Start], [Quest.Perform],
// [Quest.View] and Quest.replay match one of these with errors.Is, or are a [*FormulaError].
var (
	// ErrNotAChoice reports an action that is not one of the active choices the current view
	// offers. The state is left unchanged.
	ErrNotAChoice = errors.New("quest: not an active choice")

	// ErrNoStartLocation reports a quest without a starting location: it cannot be played.
	ErrNoStartLocation = errors.New("quest: no starting location")

	// ErrBrokenQuest reports a reference inside the quest that leads nowhere, such as a jump
	// into a location that does not exist. The reference player throws an "Internal error" in
	// the same situations.
	ErrBrokenQuest = errors.New("quest: broken quest")

	// ErrBadState reports a state that does not fit the quest: a different number of
	// parameters, an unknown location or jump, an unknown phase. It typically means a saved
	// game was restored against another version of the quest.
	ErrBadState = errors.New("quest: state does not fit the quest")

	// ErrAutoJumpLimit reports a chain of automatic jumps longer than maxAutoJumps inside one
	// action. The reference player has no guard: such a chain ends there with a stack overflow.
	ErrAutoJumpLimit = errors.New("quest: too many automatic jumps")

	// ErrTextTooDeep reports display ranges that refer to each other through [dN] without end
	// (the reference overflows its stack there).
	ErrTextTooDeep = errors.New("quest: text substitution nested too deeply")
)

// FormulaError reports a formula of the quest that could not be parsed or evaluated. Parse
// errors are reported when the formula is first needed, as the reference player does: a quest
// with a broken formula stays playable as long as the formula is not used.
type FormulaError struct {
	// Where names the formula's place in the quest, such as "jump 12 condition" or
	// "location 3 change of p2".
	Where string
	// Formula is the formula's source text.
	Formula string
	// Err is the formula package's error: a *formula.SyntaxError or an evaluation error.
	Err error
}

func (e *FormulaError) Error() string {
	return fmt.Sprintf("quest: formula %q (%s): %v", e.Formula, e.Where, e.Err)
}

// Unwrap returns the underlying formula error.
func (e *FormulaError) Unwrap() error { return e.Err }
