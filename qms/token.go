package qms

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// tokKind is the kind of a token of a directive line.
type tokKind int

const (
	tokDirective tokKind = iota // #name or #name:arg
	tokSingle                   // 'text'
	tokDouble                   // "text" with Go escapes, taken literally
	tokBrace                    // {formula}, or {"formula"} taken literally
	tokWord                     // anything else
)

// token is one piece of a directive line.
type token struct {
	kind tokKind
	name string // directive name
	arg  string // directive argument, text, formula or word
	// hasArg tells "#name:" from "#name"; quoted tells that arg came from a quoted string
	// (taken literally, no markup).
	hasArg bool
	quoted bool
	col    int // 1-based column in runes
}

// tokenize splits a directive line. Quoted texts and braces may hold spaces; everything else
// is split at spaces. It returns the tokens and, for a malformed line, what is wrong and
// where.
func tokenize(s string) (toks []token, errCol int, errMsg string) {
	i := 0
	col := func(i int) int { return utf8.RuneCountInString(s[:i]) + 1 }
	for {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
			i++
		}
		if i >= len(s) {
			return toks, 0, ""
		}
		start := i
		switch s[i] {
		case '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return toks, col(i), "unterminated quoted text: the rest of the line is ignored"
			}
			toks = append(toks, token{kind: tokSingle, arg: s[i+1 : i+1+j], col: col(start)})
			i += j + 2
		case '"':
			q, err := strconv.QuotedPrefix(s[i:])
			if err != nil {
				return toks, col(i), "bad double-quoted text"
			}
			v, _ := strconv.Unquote(q)
			toks = append(toks, token{kind: tokDouble, arg: v, quoted: true, col: col(start)})
			i += len(q)
		case '{':
			if i+1 < len(s) && s[i+1] == '"' {
				q, err := strconv.QuotedPrefix(s[i+1:])
				if err != nil || i+1+len(q) >= len(s) || s[i+1+len(q)] != '}' {
					return toks, col(i), "bad quoted formula"
				}
				v, _ := strconv.Unquote(q)
				toks = append(toks, token{kind: tokBrace, arg: v, quoted: true, col: col(start)})
				i += len(q) + 2
				break
			}
			j := strings.IndexByte(s[i+1:], '}')
			if j < 0 {
				return toks, col(i), "unterminated formula"
			}
			toks = append(toks, token{kind: tokBrace, arg: s[i+1 : i+1+j], col: col(start)})
			i += j + 2
		case '#':
			j := i + 1
			for j < len(s) && s[j] != ':' && s[j] != ' ' && s[j] != '\t' {
				j++
			}
			t := token{kind: tokDirective, name: s[i+1 : j], col: col(start)}
			i = j
			if i < len(s) && s[i] == ':' {
				t.hasArg = true
				i++
				switch {
				case i < len(s) && s[i] == '\'':
					k := strings.IndexByte(s[i+1:], '\'')
					if k < 0 {
						return toks, col(i), "unterminated quoted text: the rest of the line is ignored"
					}
					t.arg, t.quoted = s[i+1:i+1+k], false
					i += k + 2
					t.hasArg = true
					toks = append(toks, t)
					toks[len(toks)-1].kind = tokDirective
					toks[len(toks)-1].name = t.name
					// a single-quoted argument is marked by quoted=false and argQuote
					toks[len(toks)-1].arg = "'" + t.arg
					continue
				case i < len(s) && s[i] == '"':
					q, err := strconv.QuotedPrefix(s[i:])
					if err != nil {
						return toks, col(i), "bad double-quoted text"
					}
					t.arg, _ = strconv.Unquote(q)
					t.quoted = true
					i += len(q)
				default:
					k := i
					for k < len(s) && s[k] != ' ' && s[k] != '\t' {
						k++
					}
					t.arg = s[i:k]
					i = k
				}
			}
			toks = append(toks, t)
		default:
			j := i
			for j < len(s) && s[j] != ' ' && s[j] != '\t' {
				j++
			}
			toks = append(toks, token{kind: tokWord, arg: s[i:j], col: col(start)})
			i = j
		}
	}
}

// textArg returns the text of an option such as #death:'text' or #death:"text": the text,
// whether it is literal (double-quoted) and whether the option had a quoted text at all.
func (t *token) textArg() (text string, literal, ok bool) {
	if t.quoted {
		return t.arg, true, true
	}
	if strings.HasPrefix(t.arg, "'") {
		return t.arg[1:], false, true
	}
	return "", false, false
}
