package formula

import (
	"math"
	"strconv"
	"strings"
)

// nodeKind tells which fields of a node are in use.
type nodeKind uint8

const (
	nodeNumber nodeKind = iota // val
	nodeParam                  // param
	nodeNeg                    // left: the operand of unary minus
	nodeBinary                 // op, left, right
	nodeRange                  // items: a range list "[a..b; c]" used as a random value
)

// node is one AST node. Parentheses leave no node: "(a)" is the node of a. That matters, since
// `to` and `in` look at whether an operand is a range list, and "([1..3])" is one.
type node struct {
	kind  nodeKind
	op    tokenKind // binary operator: tkPlus … tkOr
	val   float64   // number literal; never negative (a sign is a nodeNeg)
	param int       // zero-based parameter index, N−1 for [pN]
	left  *node
	right *node
	items []rangeItem
}

// rangeItem is "from..to", or a single value "from" when to is nil.
type rangeItem struct {
	from, to *node
}

// precedence returns how loosely an operator binds: 1 (div, mod) is the tightest, 8 (or) the
// loosest; 5 is unused (in moved from 5 to the comparisons in the reference). 0 is returned for
// anything that is not a binary operator.
func precedence(k tokenKind) int {
	switch k {
	case tkDiv, tkMod:
		return 1
	case tkAsterisk, tkSlash:
		return 2
	case tkPlus, tkMinus:
		return 3
	case tkTo:
		return 4
	case tkGreaterEq, tkLessEq, tkGreater, tkLess, tkEquals, tkNotEquals, tkIn:
		return 6
	case tkAnd:
		return 7
	case tkOr:
		return 8
	}
	return 0
}

// maxPrecedence is the loosest level, where parsing an expression starts.
const maxPrecedence = 8

// opText is how String spells each binary operator.
var opText = map[tokenKind]string{
	tkDiv: "div", tkMod: "mod", tkAsterisk: "*", tkSlash: "/", tkPlus: "+", tkMinus: "-",
	tkTo: "to", tkGreaterEq: ">=", tkLessEq: "<=", tkGreater: ">", tkLess: "<", tkEquals: "=",
	tkNotEquals: "<>", tkIn: "in", tkAnd: "and", tkOr: "or",
}

func (n *node) precedence() int {
	if n.kind == nodeBinary {
		return precedence(n.op)
	}
	return 0
}

// infLiteral is a number literal that parses to +Inf (above the largest double), which is how
// String prints an infinite literal so that it parses back to the same tree.
var infLiteral = "1" + strings.Repeat("0", 309)

// write appends the canonical text of n: binary operators with one space around them,
// parentheses only where precedence or left associativity needs them, ranges as "[a..b; c]".
func (n *node) write(b *strings.Builder) {
	switch n.kind {
	case nodeNumber:
		if math.IsInf(n.val, 1) {
			b.WriteString(infLiteral)
		} else {
			b.WriteString(strconv.FormatFloat(n.val, 'f', -1, 64))
		}
	case nodeParam:
		b.WriteString("[p")
		b.WriteString(strconv.Itoa(n.param + 1))
		b.WriteByte(']')
	case nodeNeg:
		b.WriteByte('-')
		n.left.writeParen(b, n.left.precedence() > 0)
	case nodeBinary:
		p := precedence(n.op)
		n.left.writeParen(b, n.left.precedence() > p)
		b.WriteByte(' ')
		b.WriteString(opText[n.op])
		b.WriteByte(' ')
		n.right.writeParen(b, n.right.precedence() >= p)
	case nodeRange:
		b.WriteByte('[')
		for i, it := range n.items {
			if i > 0 {
				b.WriteString("; ")
			}
			it.from.write(b)
			if it.to != nil {
				b.WriteString("..")
				it.to.write(b)
			}
		}
		b.WriteByte(']')
	}
}

func (n *node) writeParen(b *strings.Builder, paren bool) {
	if paren {
		b.WriteByte('(')
	}
	n.write(b)
	if paren {
		b.WriteByte(')')
	}
}
