package formula

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// maxNesting bounds how deeply parentheses, brackets and unary minuses may nest. The reference
// has no explicit limit but runs out of JavaScript stack (and throws) near a thousand levels;
// the limit keeps hostile input from exhausting the Go stack, which would crash the process.
const maxNesting = 1000

// Parse parses a formula. It returns a *SyntaxError with the position on bad input, and
// never panics. Line breaks count as spaces.
//
// The grammar is the reference's: binary operators on eight precedence levels (see the
// package documentation), all left associative, over primaries that are numbers, "(expr)",
// unary minus applied to one primary, "[pN]" and range lists "[item; item..item]".
func Parse(src string) (*Expr, error) {
	// The reference turns line breaks into spaces before scanning, so that a number may also
	// continue across a line break ("1\n0" is 10). Positions do not move.
	if strings.ContainsAny(src, "\r\n") {
		src = strings.NewReplacer("\r", " ", "\n", " ").Replace(src)
	}
	p := &parser{lex: lexer{src: src}}
	if err := p.advance(); err != nil {
		return nil, err
	}
	root, err := p.expr(maxPrecedence)
	if err != nil {
		return nil, err
	}
	if p.tok.kind != tkEnd {
		return nil, p.errorf("Unexpected data at %d: '%s' kind=%s", p.tok.start, p.text(), p.tok.kind)
	}
	return compile(root), nil
}

// parser holds the current token; the lexer produces the next one on advance.
type parser struct {
	lex   lexer
	tok   token
	depth int
}

func (p *parser) advance() (err error) {
	p.tok, err = p.lex.next()
	return err
}

func (p *parser) text() string { return p.lex.src[p.tok.start:p.tok.end] }

func (p *parser) errorf(format string, args ...any) *SyntaxError {
	return &SyntaxError{Pos: p.tok.start, Msg: fmt.Sprintf(format, args...)}
}

// expr parses operators of level prec and tighter.
func (p *parser) expr(prec int) (*node, error) {
	if prec == 0 {
		return p.primary()
	}
	left, err := p.expr(prec - 1)
	if err != nil {
		return nil, err
	}
	for precedence(p.tok.kind) == prec {
		op := p.tok.kind
		if err := p.advance(); err != nil {
			return nil, err
		}
		right, err := p.expr(prec - 1)
		if err != nil {
			return nil, err
		}
		left = &node{kind: nodeBinary, op: op, left: left, right: right}
	}
	return left, nil
}

func (p *parser) primary() (*node, error) {
	switch p.tok.kind {
	case tkNumber:
		n := &node{kind: nodeNumber, val: parseNumber(p.text())}
		return n, p.advance()
	case tkOpenParen, tkOpenBrace, tkMinus:
		if p.depth >= maxNesting {
			return nil, p.errorf("Expression nested too deeply at %d", p.tok.start)
		}
		p.depth++
		defer func() { p.depth-- }()
	case tkEnd:
		return nil, p.errorf("Expected value at %d", p.tok.start)
	default:
		return nil, p.errorf("Expecting primary value at %d but got '%s' kind=%s", p.tok.start, p.text(), p.tok.kind)
	}
	open := p.tok.kind
	if err := p.advance(); err != nil {
		return nil, err
	}
	switch open {
	case tkOpenParen:
		return p.bracket()
	case tkOpenBrace:
		n, err := p.expr(maxPrecedence)
		if err != nil {
			return nil, err
		}
		if p.tok.kind != tkCloseBrace {
			return nil, p.errorf("Expected close brace token but got %s at %d", p.text(), p.tok.start)
		}
		return n, p.advance()
	default: // unary minus binds to one primary: "-2 mod 3" is (-2) mod 3
		operand, err := p.primary()
		if err != nil {
			return nil, err
		}
		return &node{kind: nodeNeg, left: operand}, nil
	}
}

// bracket parses what follows "[": a parameter "pN]" or a range list "item; item..item]".
// Empty items are skipped, so "[]" is an empty list and "[;1;;2]" has two items.
func (p *parser) bracket() (*node, error) {
	if p.tok.kind == tkIdent {
		name := p.text()
		idx, ok := paramIndex(name)
		if !ok {
			return nil, p.errorf("Unknown parameter '%s' at %d", name, p.tok.start)
		}
		if err := p.advance(); err != nil {
			return nil, err
		}
		if p.tok.kind != tkCloseParen {
			return nil, p.errorf("Expected ], but got '%s' at %d", p.text(), p.tok.start)
		}
		return &node{kind: nodeParam, param: idx}, p.advance()
	}
	n := &node{kind: nodeRange}
	for {
		switch p.tok.kind {
		case tkSemicolon:
			if err := p.advance(); err != nil {
				return nil, err
			}
			continue
		case tkCloseParen:
			return n, p.advance()
		}
		from, err := p.expr(maxPrecedence)
		if err != nil {
			return nil, err
		}
		item := rangeItem{from: from}
		switch p.tok.kind {
		case tkDotDot:
			if err := p.advance(); err != nil {
				return nil, err
			}
			if item.to, err = p.expr(maxPrecedence); err != nil {
				return nil, err
			}
		case tkCloseParen, tkSemicolon:
		default:
			return nil, p.errorf("Unexpected token inside paren '%s' pos=%d ", p.text(), p.tok.start)
		}
		n.items = append(n.items, item)
	}
}

// paramIndex returns N−1 for a name "pN" (N decimal, leading zeros allowed). N saturates at
// math.MaxInt32, far beyond any quest's parameter count.
func paramIndex(name string) (int, bool) {
	digits, ok := strings.CutPrefix(name, "p")
	if !ok || digits == "" {
		return 0, false
	}
	n := 0
	for i := 0; i < len(digits); i++ {
		c := digits[i]
		if !isDigit(c) {
			return 0, false
		}
		n = min(n*10+int(c-'0'), math.MaxInt32)
	}
	return n - 1, true
}

// parseNumber converts a numeric literal: spaces are dropped and a comma is a decimal point.
// The text is only digits and at most one separator, so the conversion cannot fail; a literal
// beyond the largest double gives +Inf, as JavaScript's parseFloat does.
func parseNumber(text string) float64 {
	var b strings.Builder
	b.Grow(len(text))
	for i := 0; i < len(text); i++ {
		switch c := text[i]; c {
		case ' ':
		case ',':
			b.WriteByte('.')
		default:
			b.WriteByte(c)
		}
	}
	v, _ := strconv.ParseFloat(b.String(), 64) // only range errors are possible; v is then ±Inf
	return v
}
