package formula

import (
	"cmp"
	"math"
	"slices"
	"strings"
)

// maxValue is the reference's MAX_NUMBER: arithmetic results are clamped to ±maxValue, and
// division by zero gives ±maxValue.
const maxValue = 2_000_000_000

// Random is the source of random draws. Random(n) must return an integer in [0, n), like the
// reference's random(n) = floor(u·n); the evaluator calls it exactly once per range list or `to`
// it evaluates, in the reference's order, including n = 0 and n = 1. *alea.Alea satisfies it.
type Random interface {
	Random(n int) int
}

// Expr is a parsed formula, compiled for evaluation. It is immutable after [Parse], so one
// Expr may be evaluated from many goroutines at once (each with its own Random).
type Expr struct {
	root     *node
	prog     []instr
	maxStack int // most values the program keeps on its stack at once
	// The parameters the formula reads are indices minParam to maxParam (none when minParam
	// > maxParam). When params holds them all, no part of the formula that draws nothing can
	// fail, and `and` and `or` skip such a right side when the left one decides.
	minParam, maxParam int32
	// pure tells that the program makes no draw and has no infinite literal, the only source
	// of a NaN result.
	pure bool
	// cond is the formula's code in the form evaluated without the stack, nil when it has no
	// such form (see cond).
	cond cond
}

// cond is the code of a formula made of terms joined by `and` and `or`, where a term is a
// literal or a parameter followed by operations with literals ("[p3] div 10 >= 2"). Such a
// formula draws nothing and, when every parameter it reads is there, cannot fail, so `and`
// and `or` may skip their right side once the left one decides. Most conditions of quests have
// this form.
//
// The code keeps one value, the accumulator, instead of a stack, and lies in one slice, so
// that evaluating it reads one place in memory. A term is a load (opNumber, opParam, or an
// operation carrying both its operands) followed by operations carrying a literal right
// operand, each replacing the accumulator a by a op val. A chain "a and b and c" is the code of
// its operands (see appendCond for their order), each but the first preceded by opSkipFalse to
// the end of the chain, then, unless the last operand always gives 0 or 1 (a comparison does),
// opBool; a chain of `or` the same with opSkipTrue. opSkipFalse and opSkipTrue set the
// accumulator to 0 or 1 when they skip, and opBool turns it into 0 or 1, which is what `and`
// and `or` give.
type cond []instr

// condOf returns the cond code of n, or nil when n does not have the form. prog is the stack
// code of n; a term's stack code is its cond code.
func condOf(n *node, prog []instr) cond {
	if !isAndOr(n) {
		if !isTerm(prog) {
			return nil
		}
		return cond(prog)
	}
	code, ok := appendCond(nil, n)
	if !ok {
		return nil
	}
	code.thread()
	return slices.Clip(code)
}

// thread makes every skip go straight to where the code it lands on would send it on: once
// opSkipFalse has skipped, the value is 0, so a later opSkipFalse skips too while opSkipTrue
// and opBool do nothing (and the other way round after opSkipTrue). Chains of `and` (or of
// `or`) then leave at once when one side decides.
func (c cond) thread() {
	for i := range c {
		skip := c[i].op
		if skip != opSkipFalse && skip != opSkipTrue {
			continue
		}
		to := i + 1 + int(c[i].arg)
		for to < len(c) {
			switch c[to].op {
			case skip:
				to += 1 + int(c[to].arg)
				continue
			case opSkipFalse, opSkipTrue, opBool:
				to++
				continue
			}
			break
		}
		c[i].arg = int32(to - i - 1)
	}
}

// boolean reports whether the cond code of a term, `and` or `or` leaves 0 or 1 whatever the
// parameters: it ends with a comparison, `and`, `or` or opBool (the skips of an `and` or `or`
// leave 0 or 1 too).
func boolean(code cond) bool {
	if len(code) == 0 {
		return false
	}
	op := code[len(code)-1].op
	return op >= opGreaterEq || op == opBool
}

// appendCond appends the cond code of n to code and reports whether n has the form.
//
// The operands of a chain of one operator ("a and b and c") are evaluated shortest first: they
// have no effect, so their order changes nothing but how soon the chain is decided, and a short
// operand decides it as often as a long one, only sooner.
func appendCond(code cond, n *node) (cond, bool) {
	if !isAndOr(n) {
		c := &compiler{}
		c.node(n)
		if !isTerm(c.prog) {
			return nil, false
		}
		return append(code, c.prog...), true
	}
	var parts []cond
	for _, o := range chain(n, n.op, nil) {
		part, ok := appendCond(nil, o)
		if !ok {
			return nil, false
		}
		parts = append(parts, part)
	}
	slices.SortStableFunc(parts, func(a, b cond) int { return cmp.Compare(len(a), len(b)) })
	skip := opSkipFalse
	if n.op == tkOr {
		skip = opSkipTrue
	}
	var skips []int
	for i, part := range parts {
		if i > 0 {
			skips = append(skips, len(code))
			code = append(code, instr{op: skip})
		}
		code = append(code, part...)
	}
	if !boolean(parts[len(parts)-1]) {
		code = append(code, instr{op: opBool})
	}
	for _, at := range skips {
		code[at].arg = int32(len(code) - at - 1)
	}
	return code, true
}

// isAndOr reports whether n is an `and` or an `or`.
func isAndOr(n *node) bool {
	return n.kind == nodeBinary && (n.op == tkAnd || n.op == tkOr)
}

// chain appends to list the operands of the chain of operator op rooted at n, left to right.
func chain(n *node, op tokenKind, list []*node) []*node {
	if n.kind != nodeBinary || n.op != op {
		return append(list, n)
	}
	return chain(n.right, op, chain(n.left, op, list))
}

// isTerm reports whether prog is the code of a term: a load, then operations with literals.
func isTerm(prog []instr) bool {
	if len(prog) == 0 {
		return false
	}
	if in := prog[0]; in.op != opNumber && in.op != opParam && !(in.param && in.lit) {
		return false
	}
	for _, in := range prog[1:] {
		if in.op < opAdd || !in.lit || in.param {
			return false
		}
	}
	return true
}

// eval evaluates c with every parameter it reads in params.
func (c cond) eval(params []int) float64 {
	var v float64
	for pc := 0; pc < len(c); pc++ {
		in := &c[pc]
		if in.op < opAdd {
			switch in.op {
			case opNumber:
				v = in.val
			case opParam:
				v = float64(params[in.arg])
			case opSkipFalse:
				if !truthy(v) {
					v = 0
					pc += int(in.arg)
				}
			case opSkipTrue:
				if truthy(v) {
					v = 1
					pc += int(in.arg)
				}
			case opBool:
				v = b2f(truthy(v))
			}
			continue
		}
		// An operation with a literal, on the accumulator or on the parameter it carries.
		// The switch of binary, written out as in run; TestBinaryInRun checks that the
		// three agree.
		a, b := v, in.val
		if in.param {
			a = float64(params[in.arg])
		}
		switch in.op {
		case opAdd:
			v = clamp(a + b)
		case opSub:
			v = clamp(a - b)
		case opMul:
			v = clamp(a * b)
		case opSlash:
			v = byZero(a)
			if b != 0 {
				v = clamp(a / b)
			}
		case opDiv:
			v = byZero(a)
			if b != 0 {
				v = clamp(math.Trunc(a / b))
			}
		case opMod:
			v = byZero(a)
			if b != 0 {
				v = clamp(jsMod(a, b))
			}
		case opGreaterEq:
			v = b2f(a >= b)
		case opGreater:
			v = b2f(a > b)
		case opLessEq:
			v = b2f(a <= b)
		case opLess:
			v = b2f(a < b)
		case opEquals:
			v = b2f(a == b)
		case opNotEquals:
			v = b2f(a != b)
		case opAnd:
			v = b2f(truthy(a) && truthy(b))
		case opOr:
			v = b2f(truthy(a) || truthy(b))
		}
	}
	return v
}

// Calculate parses src and evaluates it: the reference's calculate(). Callers that evaluate
// the same formula repeatedly should Parse once and call [Expr.Eval].
func Calculate(src string, params []int, rnd Random) (int, error) {
	e, err := Parse(src)
	if err != nil {
		return 0, err
	}
	return e.Eval(params, rnd)
}

// String returns the canonical text of the formula; parsing it gives the same tree.
func (e *Expr) String() string {
	if e == nil || e.root == nil {
		return ""
	}
	var b strings.Builder
	e.root.write(&b)
	return b.String()
}

// Pure reports whether evaluating the formula with nParams parameter values draws nothing and
// cannot fail. Such a formula may be evaluated before or after other draws, or not at all,
// without changing what anything else draws or returns.
func (e *Expr) Pure(nParams int) bool {
	return e != nil && len(e.prog) > 0 && e.pure && e.minParam >= 0 && int(e.maxParam) < nParams
}

// Eval evaluates the formula with params[i] as the value of [p(i+1)], drawing from rnd, and
// rounds the result like JavaScript's Math.round (half toward +∞: 2.5 → 3, −2.5 → −2).
//
// Everything inside is float64 arithmetic, exactly as the reference computes it (see the
// package documentation). The errors are *UndefinedParamError, ErrEmptyRange,
// ErrRangeTooLarge, ErrNotANumber and ErrNoRandom; an error stops the evaluation at once, after
// the draws made so far. A result beyond the int range (only from huge literals, or infinity)
// saturates to math.MaxInt or math.MinInt.
func (e *Expr) Eval(params []int, rnd Random) (int, error) {
	if e == nil || len(e.prog) == 0 {
		return 0, ErrEmptyExpr
	}
	short := e.minParam >= 0 && int(e.maxParam) < len(params)
	if e.cond != nil && short {
		return jsRound(e.cond.eval(params))
	}
	v, err := e.run(params, rnd, short)
	if err != nil {
		return 0, err
	}
	return jsRound(v)
}

// Test reports whether the formula's value is non-zero: it is Eval(params, rnd) != 0, with
// the same draws and errors, but a condition (the cond form) is decided without rounding its
// value to an int.
func (e *Expr) Test(params []int, rnd Random) (bool, error) {
	if e != nil && e.cond != nil && e.minParam >= 0 && int(e.maxParam) < len(params) {
		// Math.round gives 0 exactly for x in [-0.5, 0.5). A NaN is an error, which Eval
		// reports.
		if x := e.cond.eval(params); x == x {
			return x >= 0.5 || x < -0.5, nil
		}
	}
	v, err := e.Eval(params, rnd)
	return v != 0, err
}

// Cond is a condition ready to be decided many times over: a formula that has the cond form
// (terms, each a literal or a parameter followed by operations with literals, joined by `and`
// and `or`), draws nothing and cannot fail for a given number of parameters. The zero Cond is
// not a condition; see [Expr.Cond].
type Cond struct {
	code cond
}

// Cond returns the formula as a Cond for params of length nParams, and whether it is one: a
// formula that draws or may fail, or that has no cond form, is not.
func (e *Expr) Cond(nParams int) (Cond, bool) {
	if !e.Pure(nParams) || e.cond == nil {
		return Cond{}, false
	}
	return Cond{code: e.cond}, true
}

// Holds reports whether the condition's value is non-zero for params, which must hold the
// nParams values c was made for: it is Eval(params, rnd) != 0, neither drawing nor failing.
func (c Cond) Holds(params []int) bool {
	// Math.round gives 0 exactly for x in [-0.5, 0.5); a pure formula never gives NaN.
	x := c.code.eval(params)
	return x >= 0.5 || x < -0.5
}

// Equality reports whether the condition is "[pN] = x" for a literal x, and returns N-1 and x:
// the condition then holds exactly when float64(params[N-1]) == x.
func (c Cond) Equality() (param int, x float64, ok bool) {
	if len(c.code) != 1 {
		return 0, 0, false
	}
	in := c.code[0]
	if in.op != opEquals || !in.param || !in.lit {
		return 0, 0, false
	}
	return int(in.arg), in.val, true
}

// run runs the formula's stack program; short is as for the function run.
func (e *Expr) run(params []int, rnd Random, short bool) (float64, error) {
	// The stack lives in a fixed array sized to the formula, so evaluation does not allocate;
	// most formulas need a handful of slots, and clearing a large array costs time on every call.
	switch {
	case e.maxStack <= 8:
		var buf [8]float64
		return run(e.prog, buf[:], params, rnd, short)
	case e.maxStack <= 64:
		var buf [64]float64
		return run(e.prog, buf[:], params, rnd, short)
	}
	return run(e.prog, make([]float64, e.maxStack), params, rnd, short)
}

// jsRound is JavaScript's Math.round converted to int. x − floor(x) is exact in floating
// point, unlike x + 0.5, which would round 0.49999999999999994 up.
func jsRound(x float64) (int, error) {
	if x != x {
		return 0, ErrNotANumber
	}
	f := math.Floor(x)
	if x-f >= 0.5 {
		f++
	}
	switch {
	case f >= float64(math.MaxInt):
		return math.MaxInt, nil
	case f <= float64(math.MinInt):
		return math.MinInt, nil
	}
	return int(f), nil
}

// clamp limits x to ±maxValue; NaN passes through, as with the reference's Math.min/Math.max.
func clamp(x float64) float64 {
	if x > maxValue {
		return maxValue
	}
	if x < -maxValue {
		return -maxValue
	}
	return x
}

// byZero is the reference's result of dividing a by zero (with /, div or mod): +max for a
// positive a, −max otherwise (0/0 included).
func byZero(a float64) float64 {
	if a > 0 {
		return maxValue
	}
	return -maxValue
}

// jsMod is JavaScript's a % b: the exact remainder, with the sign of a (math.Mod's definition
// too). Quest operands are nearly always small integers, where integer division gives the same
// exact result many times faster; only the zero's sign needs restoring.
func jsMod(a, b float64) float64 {
	const exact = 1 << 53 // integers up to here convert to int64 and back exactly
	if a == math.Trunc(a) && b == math.Trunc(b) && math.Abs(a) < exact && math.Abs(b) < exact && b != 0 {
		r := float64(int64(a) % int64(b))
		if r == 0 {
			return math.Copysign(0, a)
		}
		return r
	}
	return math.Mod(a, b)
}

// truthy is JavaScript truthiness of a number: non-zero and not NaN.
func truthy(x float64) bool { return x != 0 && x == x }

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// run executes a compiled program on stack, which must hold at least maxStack values. With
// short, opSkipFalse and opSkipTrue skip what they may skip.
func run(prog []instr, stack []float64, params []int, rnd Random, short bool) (float64, error) {
	sp := 0 // stack[:sp] is in use
	for pc := 0; pc < len(prog); pc++ {
		in := &prog[pc]
		switch in.op {
		case opNumber:
			stack[sp] = in.val
			sp++
		case opParam:
			i := int(in.arg)
			if i < 0 || i >= len(params) {
				return 0, &UndefinedParamError{Index: i}
			}
			stack[sp] = float64(params[i])
			sp++
		case opNeg:
			stack[sp-1] = -stack[sp-1]
		case opClamp:
			stack[sp-1] = clamp(stack[sp-1])
		case opPoint:
			t := math.Trunc(stack[sp-1])
			stack[sp-1] = t
			stack[sp] = t
			sp++
		case opSpan:
			from, to := math.Trunc(stack[sp-2]), math.Trunc(stack[sp-1])
			if from > to {
				from, to = to, from
			}
			stack[sp-2], stack[sp-1] = from, to
		case opHull:
			bounds := stack[sp-2*int(in.arg) : sp]
			lo, hi := float64(maxValue), 0.0
			for i := 0; i < len(bounds); i += 2 {
				lo, hi = min(lo, bounds[i]), max(hi, bounds[i+1])
			}
			sp -= len(bounds)
			stack[sp], stack[sp+1] = lo, hi
			sp += 2
		case opPick:
			sp -= 2 * int(in.arg)
			v, err := pick(stack[sp:sp+2*int(in.arg)], rnd)
			if err != nil {
				return 0, err
			}
			stack[sp] = v
			sp++
		case opInSpans:
			sp -= 2 * int(in.arg)
			x, bounds := stack[sp-1], stack[sp:sp+2*int(in.arg)]
			found := false
			for i := 0; i < len(bounds); i += 2 {
				if x >= bounds[i] && x <= bounds[i+1] {
					found = true
					break
				}
			}
			stack[sp-1] = b2f(found)
		case opSkipFalse:
			if short && !truthy(stack[sp-1]) {
				stack[sp-1] = 0
				pc += int(in.arg)
			}
		case opSkipTrue:
			if short && truthy(stack[sp-1]) {
				stack[sp-1] = 1
				pc += int(in.arg)
			}
		default: // a binary operator: replace a by a op b
			if in.param {
				// The left operand is params[arg], pushed here.
				i := int(in.arg)
				if i < 0 || i >= len(params) {
					return 0, &UndefinedParamError{Index: i}
				}
				stack[sp] = float64(params[i])
				sp++
			}
			var b float64
			if in.lit {
				b = in.val // the right operand is the literal val
			} else {
				sp--
				b = stack[sp]
			}
			// The switch of binary, written out here: a call per operation costs the
			// loop a tenth of its time. TestBinaryInRun checks that the two agree.
			a := stack[sp-1]
			var v float64
			switch in.op {
			case opAdd:
				v = clamp(a + b)
			case opSub:
				v = clamp(a - b)
			case opMul:
				v = clamp(a * b)
			case opSlash:
				v = byZero(a)
				if b != 0 {
					v = clamp(a / b)
				}
			case opDiv:
				v = byZero(a)
				if b != 0 {
					v = clamp(math.Trunc(a / b))
				}
			case opMod:
				v = byZero(a)
				if b != 0 {
					v = clamp(jsMod(a, b))
				}
			case opGreaterEq:
				v = b2f(a >= b)
			case opGreater:
				v = b2f(a > b)
			case opLessEq:
				v = b2f(a <= b)
			case opLess:
				v = b2f(a < b)
			case opEquals:
				v = b2f(a == b)
			case opNotEquals:
				v = b2f(a != b)
			case opAnd:
				v = b2f(truthy(a) && truthy(b))
			case opOr:
				v = b2f(truthy(a) || truthy(b))
			}
			stack[sp-1] = v
		}
	}
	return stack[0], nil
}

// binary returns a op b for a plain binary operator.
func binary(op opcode, a, b float64) float64 {
	switch op {
	case opAdd:
		return clamp(a + b)
	case opSub:
		return clamp(a - b)
	case opMul:
		return clamp(a * b)
	case opSlash:
		if b == 0 {
			return byZero(a)
		}
		return clamp(a / b)
	case opDiv:
		if b == 0 {
			return byZero(a)
		}
		return clamp(math.Trunc(a / b))
	case opMod:
		if b == 0 {
			return byZero(a)
		}
		return clamp(jsMod(a, b))
	case opGreaterEq:
		return b2f(a >= b)
	case opGreater:
		return b2f(a > b)
	case opLessEq:
		return b2f(a <= b)
	case opLess:
		return b2f(a < b)
	case opEquals:
		return b2f(a == b)
	case opNotEquals:
		return b2f(a != b)
	case opAnd:
		return b2f(truthy(a) && truthy(b))
	case opOr:
		return b2f(truthy(a) || truthy(b))
	}
	return 0
}

// pick draws one value from the spans [from0, to0, from1, to1, …] (each already truncated and
// ordered): r = random(total size), then the value at offset r when the spans are laid end to
// end. Sums are computed in the reference's order, so even inexact (huge) sizes match.
func pick(bounds []float64, rnd Random) (float64, error) {
	total := 0.0
	for i := 0; i < len(bounds); i += 2 {
		total = total + bounds[i+1] - bounds[i] + 1
	}
	if !(total >= float64(math.MinInt) && total < float64(math.MaxInt)) {
		return 0, ErrRangeTooLarge
	}
	if rnd == nil {
		return 0, ErrNoRandom
	}
	r := float64(rnd.Random(int(total)))
	for i := 0; i < len(bounds); i += 2 {
		size := bounds[i+1] - bounds[i] + 1
		if r >= size {
			r -= size
			continue
		}
		return r + bounds[i], nil
	}
	return 0, ErrEmptyRange
}

// opcode is one instruction of the compiled form. A program is postfix code for a value stack;
// range lists put their spans on the stack as (from, to) pairs that a later opcode consumes.
type opcode uint8

const (
	opNumber    opcode = iota // push val
	opParam                   // push params[arg]
	opNeg                     // negate the top
	opClamp                   // clamp the top to ±maxValue
	opPoint                   // truncate the top x and push it again: the span x..x
	opSpan                    // truncate the top two (from, to) and order them
	opHull                    // replace arg spans by one: min(froms, max)..max(tos, 0)
	opPick                    // replace arg spans by a random value from them (one draw)
	opInSpans                 // pop arg spans, then replace the top x by 1 if x is in one, else 0
	opSkipFalse               // if the top is false, make it 0 and skip arg instructions
	opSkipTrue                // if the top is true, make it 1 and skip arg instructions
	opBool                    // make the top 1 if it is true, else 0 (only in cond code)
	opAdd                     // the rest pop b, then replace the top a by a op b
	opSub
	opMul
	opSlash
	opDiv
	opMod
	opGreaterEq
	opGreater
	opLessEq
	opLess
	opEquals
	opNotEquals
	opAnd
	opOr
)

// binaryOps maps the plain binary operators (all but `to` and `in`) to their opcodes.
var binaryOps = map[tokenKind]opcode{
	tkPlus: opAdd, tkMinus: opSub, tkAsterisk: opMul, tkSlash: opSlash, tkDiv: opDiv,
	tkMod: opMod, tkGreaterEq: opGreaterEq, tkGreater: opGreater, tkLessEq: opLessEq,
	tkLess: opLess, tkEquals: opEquals, tkNotEquals: opNotEquals, tkAnd: opAnd, tkOr: opOr,
}

// instr is one instruction; arg is a parameter index or a span count, val a literal.
//
// A binary operator takes its operands from the stack, except that it may carry one or both of
// them, which saves the instructions that would push them: with lit, the right operand is the
// literal val; with param, the left operand is params[arg]. "[p3] >= 10" is one instruction.
type instr struct {
	op    opcode
	lit   bool
	param bool
	arg   int32
	val   float64
}

// compiler turns a tree into postfix code, tracking how deep the value stack gets, which
// parameters the code reads and how many draws it makes.
type compiler struct {
	prog               []instr
	depth, max         int
	minParam, maxParam int32
	picks              int
	inf                bool // some literal is infinite
}

func compile(root *node) *Expr {
	c := &compiler{minParam: math.MaxInt32, maxParam: -1}
	c.node(root)
	e := Expr{root: root, maxStack: c.max, minParam: c.minParam, maxParam: c.maxParam,
		pure: c.picks == 0 && !c.inf}
	if len(c.prog) > shortProg {
		e.prog = slices.Clip(c.prog)
		e.cond = condOf(root, e.prog)
		return &e
	}
	// Most formulas are a few instructions long: they share the Expr's allocation, so that
	// evaluation reads one place in memory. A term's cond code is its program, shared too.
	with := &struct {
		Expr
		prog [shortProg]instr
	}{Expr: e}
	with.Expr.prog = with.prog[:copy(with.prog[:], c.prog)]
	with.Expr.cond = condOf(root, with.Expr.prog)
	return &with.Expr
}

// shortProg is the longest program kept in the allocation of its Expr.
const shortProg = 4

// emit appends an instruction that changes the stack depth by delta.
func (c *compiler) emit(op opcode, arg int, val float64, delta int) {
	c.prog = append(c.prog, instr{op: op, arg: int32(arg), val: val})
	c.depth += delta
	c.max = max(c.max, c.depth)
	switch op {
	case opNumber:
		c.inf = c.inf || math.IsInf(val, 0)
	case opParam:
		c.minParam, c.maxParam = min(c.minParam, int32(arg)), max(c.maxParam, int32(arg))
	case opPick:
		c.picks++
	}
}

// shortMin is the least number of instructions of a right side of `and` or `or` that is worth
// a skip.
const shortMin = 2

// node compiles code that leaves the value of n on the stack. Operands are always evaluated
// left before right, and both sides of `and`/`or` are evaluated (draws happen either way).
func (c *compiler) node(n *node) {
	switch n.kind {
	case nodeNumber:
		c.emit(opNumber, 0, n.val, 1)
	case nodeParam:
		c.emit(opParam, n.param, 0, 1)
	case nodeNeg:
		if v, ok := constant(n); ok {
			c.emit(opNumber, 0, v, 1)
			break
		}
		c.node(n.left)
		c.emit(opNeg, 0, 0, 0)
	case nodeRange:
		k := c.spans(n)
		c.emit(opPick, k, 0, 1-2*k)
	case nodeBinary:
		switch n.op {
		case tkTo:
			k := c.spans(n.left) + c.spans(n.right)
			c.emit(opHull, k, 0, 2-2*k)
			c.emit(opPick, 1, 0, -1)
		case tkIn:
			c.in(n)
		case tkAnd, tkOr:
			// When the left side decides and the right one draws nothing, the right one
			// need not run: its value cannot change the result, and it cannot fail when
			// every parameter is there (which Eval checks).
			c.node(n.left)
			at := len(c.prog)
			skip := opSkipFalse
			if n.op == tkOr {
				skip = opSkipTrue
			}
			c.emit(skip, 0, 0, 0)
			picks := c.picks
			c.binary(n)
			if c.picks != picks || len(c.prog)-at-1 < shortMin {
				// Skips are relative, so dropping this one leaves those after it valid.
				c.prog = append(c.prog[:at], c.prog[at+1:]...)
				break
			}
			c.prog[at].arg = int32(len(c.prog) - at - 1)
		default:
			c.node(n.left)
			c.binary(n)
		}
	}
}

// binary compiles the right operand of a plain binary operator n, the left one being compiled
// already, and the operator.
func (c *compiler) binary(n *node) {
	v, ok := constant(n.right)
	if !ok {
		c.node(n.right)
		c.emit(binaryOps[n.op], 0, 0, -1)
		return
	}
	// A literal right operand rides in the instruction, and so does a parameter on the left,
	// when its push is the instruction just emitted.
	in := instr{op: binaryOps[n.op], lit: true, val: v}
	c.inf = c.inf || math.IsInf(v, 0)
	if last := len(c.prog) - 1; n.left.kind == nodeParam && c.prog[last].op == opParam {
		// The push is dropped and the instruction pushes instead: the depth stays.
		in.param, in.arg = true, c.prog[last].arg
		c.prog = c.prog[:last]
	}
	c.prog = append(c.prog, in)
}

// constant returns the value of a literal, or of a literal under unary minus signs ("-1"):
// negation is exact and never clamped, so its value is known when the formula is compiled.
func constant(n *node) (float64, bool) {
	switch n.kind {
	case nodeNumber:
		return n.val, true
	case nodeNeg:
		v, ok := constant(n.left)
		return -v, ok
	}
	return 0, false
}

// spans compiles an operand of `to` (or the items of a range list) into spans on the stack and
// returns their number: a range list gives its items, anything else one point, its value.
func (c *compiler) spans(n *node) int {
	if n.kind != nodeRange {
		c.node(n)
		c.emit(opPoint, 0, 0, 1)
		return 1
	}
	for _, it := range n.items {
		c.node(it.from)
		if it.to == nil {
			c.emit(opPoint, 0, 0, 1)
		} else {
			c.node(it.to)
			c.emit(opSpan, 0, 0, 0)
		}
	}
	return len(n.items)
}

// in compiles "x in R". A range list on the left with a non-list on the right swaps the sides.
// The left value is evaluated (a list or `to` there is drawn) and clamped; then a range list on
// the right is tested for membership item by item, a `to` on the right by its hull (neither is
// drawn), and anything else for equality after clamping.
func (c *compiler) in(n *node) {
	left, right := n.left, n.right
	if left.kind == nodeRange && right.kind != nodeRange {
		left, right = right, left
	}
	c.node(left)
	c.emit(opClamp, 0, 0, 0)
	switch {
	case right.kind == nodeRange:
		k := c.spans(right)
		c.emit(opInSpans, k, 0, -2*k)
	case right.kind == nodeBinary && right.op == tkTo:
		k := c.spans(right.left) + c.spans(right.right)
		c.emit(opHull, k, 0, 2-2*k)
		c.emit(opInSpans, 1, 0, -2)
	default:
		c.node(right)
		c.emit(opClamp, 0, 0, 0)
		c.emit(opEquals, 0, 0, -1)
	}
}
