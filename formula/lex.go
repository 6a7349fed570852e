package formula

import (
	"unicode/utf8"
)

// tokenKind is a token class. The names (see kindNames) are the reference's, because they
// appear in its error messages; note that it calls "(" a brace and "[" a paren.
type tokenKind uint8

const (
	tkEnd tokenKind = iota
	tkNumber
	tkIdent
	tkOpenBrace  // (
	tkCloseBrace // )
	tkOpenParen  // [
	tkCloseParen // ]
	tkDotDot     // ..
	tkSemicolon  // ;
	tkLess       // <
	tkGreater    // >
	tkLessEq     // <=
	tkGreaterEq  // >=
	tkEquals     // =
	tkNotEquals  // <>
	tkPlus       // +
	tkMinus      // -
	tkSlash      // /
	tkAsterisk   // *
	tkMod
	tkDiv
	tkTo
	tkIn
	tkAnd
	tkOr
)

var kindNames = [...]string{
	tkEnd:        "end token",
	tkNumber:     "numeric literal",
	tkIdent:      "identifier",
	tkOpenBrace:  "open brace token",
	tkCloseBrace: "close brace token",
	tkOpenParen:  "open paren token",
	tkCloseParen: "close paren token",
	tkDotDot:     "dotdot token",
	tkSemicolon:  "semicolon token",
	tkLess:       "less than token",
	tkGreater:    "greater than token",
	tkLessEq:     "less than eq token",
	tkGreaterEq:  "greater than eq token",
	tkEquals:     "equals token",
	tkNotEquals:  "not equals token",
	tkPlus:       "plus token",
	tkMinus:      "minus token",
	tkSlash:      "slash token",
	tkAsterisk:   "asterisk token",
	tkMod:        "mod keyword",
	tkDiv:        "div keyword",
	tkTo:         "to keyword",
	tkIn:         "in keyword",
	tkAnd:        "and keyword",
	tkOr:         "or keyword",
}

func (k tokenKind) String() string { return kindNames[k] }

// keywords are the binary operators spelled as words; only lower case counts.
var keywords = map[string]tokenKind{
	"mod": tkMod, "div": tkDiv, "to": tkTo, "in": tkIn, "and": tkAnd, "or": tkOr,
}

// token is one lexeme: src[start:end] is its text.
type token struct {
	kind       tokenKind
	start, end int
}

const msgUnknownChar = "Unknown char "

// lexer splits a formula into tokens on demand. The parser pulls one token at a time, so a
// bad character is only reported when the parser gets to it; an earlier syntax error wins,
// exactly as in the reference.
type lexer struct {
	src string
	pos int
}

// isSpace reports the reference's whitespace between tokens. (Parse has already turned CR and
// LF into spaces; inside a number only a space counts, not a tab.)
func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func isIdentChar(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || isDigit(c) || c == '_'
}

// next returns the next token that is not whitespace, or a *SyntaxError for a character that
// starts no token.
func (l *lexer) next() (token, error) {
	s := l.src
	for l.pos < len(s) && isSpace(s[l.pos]) {
		l.pos++
	}
	start := l.pos
	if start >= len(s) {
		return token{tkEnd, start, start}, nil
	}
	c := s[start]
	var c2 byte
	if start+1 < len(s) {
		c2 = s[start+1]
	}
	two := func(k tokenKind) (token, error) {
		l.pos += 2
		return token{k, start, start + 2}, nil
	}
	one := func(k tokenKind) (token, error) {
		l.pos++
		return token{k, start, start + 1}, nil
	}
	switch {
	case c == '.' && c2 == '.':
		return two(tkDotDot)
	case c == '<' && c2 == '>':
		return two(tkNotEquals)
	case c == '>' && c2 == '=':
		return two(tkGreaterEq)
	case c == '<' && c2 == '=':
		return two(tkLessEq)
	case c == '>':
		return one(tkGreater)
	case c == '<':
		return one(tkLess)
	case isDigit(c):
		return l.number(), nil
	}
	switch c {
	case '(':
		return one(tkOpenBrace)
	case ')':
		return one(tkCloseBrace)
	case '[':
		return one(tkOpenParen)
	case ']':
		return one(tkCloseParen)
	case '/':
		return one(tkSlash)
	case '*':
		return one(tkAsterisk)
	case '+':
		return one(tkPlus)
	case '-':
		return one(tkMinus)
	case '=':
		return one(tkEquals)
	case ';':
		return one(tkSemicolon)
	}
	return l.word()
}

// number scans a numeric literal: digits with embedded spaces and at most one decimal
// separator, "." or ",". A separator followed by another separator ends the number (so "1..5"
// is 1 then ..), and trailing spaces are left out of it.
func (l *lexer) number() token {
	s := l.src
	start := l.pos
	sepSeen := false
	trailing := -1 // start of a run of spaces that may turn out to be trailing
	for l.pos < len(s) {
		c := s[l.pos]
		switch {
		case isDigit(c):
			trailing = -1
		case c == '.' || c == ',':
			if sepSeen || l.pos+1 < len(s) && (s[l.pos+1] == '.' || s[l.pos+1] == ',') {
				return l.endNumber(start, trailing)
			}
			sepSeen = true
			trailing = -1
		case c == ' ':
			if trailing < 0 {
				trailing = l.pos
			}
		default:
			return l.endNumber(start, trailing)
		}
		l.pos++
	}
	return l.endNumber(start, trailing)
}

func (l *lexer) endNumber(start, trailing int) token {
	if trailing >= 0 {
		l.pos = trailing
	}
	return token{tkNumber, start, l.pos}
}

// word scans an identifier or a keyword. It stops as soon as the text so far is a keyword, so
// "mod1000" is mod then 1000, and "order" is or then der: quests rely on the first.
func (l *lexer) word() (token, error) {
	s := l.src
	start := l.pos
	for l.pos < len(s) && isIdentChar(s[l.pos]) {
		l.pos++
		if k, ok := keywords[s[start:l.pos]]; ok {
			return token{k, start, l.pos}, nil
		}
	}
	if l.pos == start {
		r, _ := utf8.DecodeRuneInString(s[start:])
		return token{}, &SyntaxError{Pos: start, Msg: msgUnknownChar + string(r)}
	}
	return token{tkIdent, start, l.pos}, nil
}
