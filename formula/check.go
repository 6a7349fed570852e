package formula

import (
	"math"
	"slices"
	"strings"
)

// What a quest's checker asks of a parsed formula: which parameters it reads (a quest that has
// fewer makes the formula fail with *UndefinedParamError when it is evaluated) and which of its
// divisors are zero or may be drawn as zero. Dividing by zero does not fail (it gives ±2 000 000
// 000, as in the reference), but no author means it.

// Params returns the 0-based indices of the parameters the formula reads ([p1] is 0), each once,
// in ascending order; [p0] is −1.
func (e *Expr) Params() []int {
	if e == nil || e.root == nil {
		return nil
	}
	var out []int
	e.root.walk(func(n *node) {
		if n.kind == nodeParam && !slices.Contains(out, n.param) {
			out = append(out, n.param)
		}
	})
	slices.Sort(out)
	return out
}

// ZeroDivisors returns the divisors (right operands of /, div and mod) that are zero or may be
// drawn as zero, as far as the formula alone tells: a literal 0, a range list whose literal
// bounds take in 0 ("[0..3]"), or a `to` whose literal sides do ("0 to 5"). Each is given as its
// canonical text, in the order of the formula. A divisor that reads a parameter is never
// reported: the formula cannot tell its values.
func (e *Expr) ZeroDivisors() []string {
	if e == nil || e.root == nil {
		return nil
	}
	var out []string
	e.root.walk(func(n *node) {
		if n.kind == nodeBinary && (n.op == tkSlash || n.op == tkDiv || n.op == tkMod) && mayBeZero(n.right) {
			var b strings.Builder
			n.right.write(&b)
			out = append(out, b.String())
		}
	})
	return out
}

// walk calls f on n and on every node below it, operands left to right.
func (n *node) walk(f func(*node)) {
	if n == nil {
		return
	}
	f(n)
	n.left.walk(f)
	n.right.walk(f)
	for _, it := range n.items {
		it.from.walk(f)
		it.to.walk(f)
	}
}

// mayBeZero reports whether n is zero, or a random value that may be zero, as its literals tell.
// A range list and `to` truncate their bounds toward zero before drawing.
func mayBeZero(n *node) bool {
	if v, ok := constant(n); ok {
		return v == 0
	}
	switch n.kind {
	case nodeNeg:
		return mayBeZero(n.left)
	case nodeRange:
		for _, it := range n.items {
			from, ok := constant(it.from)
			if !ok {
				continue
			}
			to := from
			if it.to != nil {
				if to, ok = constant(it.to); !ok {
					continue
				}
			}
			lo, hi := math.Trunc(min(from, to)), math.Trunc(max(from, to))
			if lo <= 0 && hi >= 0 {
				return true
			}
		}
	case nodeBinary:
		if n.op != tkTo {
			return false
		}
		// "a to b" draws from the least of both sides to the greatest of both sides and 0.
		a, okA := constant(n.left)
		b, okB := constant(n.right)
		return okA && okB && math.Trunc(min(a, b)) <= 0
	}
	return false
}
