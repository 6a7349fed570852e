// Package formula parses and evaluates the formula language of Space Rangers text quests,
// bit for bit as the reference web player (space-rangers-quest) does: same values, same errors,
// and the same random draws in the same order, so that games replay exactly.
//
// [Parse] turns the text into an [Expr] (a tree, compiled into postfix code); [Expr.Eval]
// evaluates it with the quest's parameter values and a [Random] source (the player passes its
// *alea.Alea). [Calculate] does both. The package imports only the standard library and its
// subpackage alea.
//
// # Language
//
// Numbers are digits with embedded spaces and one decimal separator, "." or "," ("10 000" is
// 10000, "1,5" is 1.5); there is no sign and no exponent. [pN] is parameter N (1-based).
// A range list "[1..3; 7; 10..12]" is a random pick among its values. Binary operators, all left
// associative, from the tightest to the loosest: div mod · * / · + - · to · = <> < > <= >= in ·
// and · or. Note that div and mod bind tighter than * and /. Unary minus applies to one primary
// and binds tightest of all. Keywords are lower case and split words greedily ("mod1000" is mod
// 1000).
//
// # Evaluation
//
// Everything is float64. The results of + - * / div mod are clamped to ±2 000 000 000; literals
// and unary minus are not. "/" is exact division, "div" truncates toward zero, "mod" is the
// remainder with the dividend's sign (like JavaScript's %); dividing by zero gives
// +2 000 000 000 if the dividend is positive, −2 000 000 000 otherwise. Comparisons, in, and, or
// give 1 or 0; and/or always evaluate both sides. Operands are evaluated left to right.
//
// A range list draws random(S) once, S being the total number of values (even for "[5]"), after
// truncating every bound toward zero and ordering reversed bounds. "a to b" draws once from one
// interval from the least lower bound of both sides to the greatest upper bound of both sides
// and 0 (so "-5 to -3" gives −5…0, a quirk of the reference). "x in R" swaps the sides if only
// the left one is a range list, then tests x against the items of a list, the interval of a
// `to` (neither drawn), or for equality. The final value is rounded half toward +∞, like
// JavaScript's Math.round.
//
// # Errors
//
// Parse errors are *[SyntaxError] values with the reference's messages. Evaluation errors are
// *[UndefinedParamError] and the sentinels [ErrEmptyRange], [ErrRangeTooLarge],
// [ErrNotANumber], [ErrNoRandom] and [ErrEmptyExpr]; none of them is a *SyntaxError, so a caller
// tells the two stages apart with [errors.As]. No input makes Parse or Eval panic.
//
// # Where this departs from the reference
//
// Only for inputs no quest contains: nesting deeper than 1000 levels is a syntax error (the
// reference overflows its stack); a range whose size is not a finite number within the int range
// fails with ErrRangeTooLarge instead of drawing random(NaN) or random(∞); a NaN result is
// ErrNotANumber; a result beyond the int range saturates; [pN] with N beyond 2^31−1 saturates;
// "Unknown char" quotes a whole character where JavaScript quotes one UTF-16 unit.
package formula
