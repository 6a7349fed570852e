package bot

import (
	"strings"
	"unicode/utf8"
)

// token kinds of an HTML text, as SplitHTML sees it.
const (
	tokText = iota
	tokNewline
	tokSpace
	tokOpen
	tokClose
)

type token struct {
	s    string
	kind int
	name string // of a tag
}

// SplitHTML splits an HTML text (Telegram's subset) into parts of at most max UTF-16 code units,
// counting the markup, so every part is also short enough once Telegram has parsed it. It breaks
// at the last line boundary that fits, else at the last space, else between characters, never
// inside a tag or an entity. Tags open at a break are closed at the end of the part and reopened
// at the start of the next, so each part is well-formed on its own. A text that fits is returned
// as it is.
func SplitHTML(s string, max int) []string {
	if utf16Len(s) <= max {
		return []string{s}
	}
	toks := tokenize(s, max/4)
	var parts []string
	var stack []token // tags open at the start of the current part
	for i := 0; i < len(toks); {
		prefix := joinTokens(stack)
		length := utf16Len(prefix)
		st := append([]token(nil), stack...)
		end, endStack := -1, []token(nil) // the best break found so far, after toks[end]
		bestKind := -1
		j := i
		for ; j < len(toks); j++ {
			t := toks[j]
			next := applyTag(st, t)
			if length+utf16Len(t.s)+closersLen(next) > max && j > i {
				break
			}
			st = next
			length += utf16Len(t.s)
			// Prefer a line break, then a space, then anything.
			rank := 0
			switch t.kind {
			case tokNewline:
				rank = 2
			case tokSpace:
				rank = 1
			}
			if rank >= bestKind {
				end, endStack, bestKind = j, st, rank
			}
		}
		if j == len(toks) {
			end, endStack = j-1, st
		}
		var b strings.Builder
		b.WriteString(prefix)
		for _, t := range toks[i : end+1] {
			b.WriteString(t.s)
		}
		part := strings.TrimRight(b.String(), "\n") + closers(endStack)
		if strings.TrimSpace(stripTags(part)) != "" {
			parts = append(parts, part)
		}
		stack = endStack
		i = end + 1
		// A part starts at the beginning of a line, not with the break itself.
		for i < len(toks) && toks[i].kind == tokNewline {
			i++
		}
	}
	return parts
}

// tokenize cuts an HTML text into tags, entities, newlines, runs of spaces and words of at most
// chunk characters.
func tokenize(s string, chunk int) []token {
	var toks []token
	for len(s) > 0 {
		var t token
		switch c := s[0]; {
		case c == '<':
			n := strings.IndexByte(s, '>')
			if n < 0 {
				n = len(s) - 1
			}
			t.s = s[:n+1]
			if strings.HasPrefix(t.s, "</") {
				t.kind, t.name = tokClose, tagName(t.s[2:])
			} else {
				t.kind, t.name = tokOpen, tagName(t.s[1:])
			}
		case c == '&':
			n := strings.IndexByte(s, ';')
			if n < 0 || n > 10 {
				n = 0
			}
			t.s, t.kind = s[:n+1], tokText
		case c == '\n':
			t.s, t.kind = "\n", tokNewline
		case c == ' ' || c == '\t':
			n := 1
			for n < len(s) && (s[n] == ' ' || s[n] == '\t') {
				n++
			}
			t.s, t.kind = s[:n], tokSpace
		default:
			n, chars := 0, 0
			for n < len(s) && chars < chunk && !strings.ContainsRune("<&\n \t", rune(s[n])) {
				_, size := utf8.DecodeRuneInString(s[n:])
				n += size
				chars++
			}
			t.s, t.kind = s[:n], tokText
		}
		toks = append(toks, t)
		s = s[len(t.s):]
	}
	return toks
}

func tagName(s string) string {
	s = strings.TrimSuffix(s, ">")
	if f := strings.Fields(s); len(f) > 0 {
		return strings.ToLower(f[0])
	}
	return ""
}

// applyTag returns the stack of open tags after t.
func applyTag(st []token, t token) []token {
	switch t.kind {
	case tokOpen:
		return append(st[:len(st):len(st)], t)
	case tokClose:
		if len(st) > 0 && st[len(st)-1].name == t.name {
			return st[: len(st)-1 : len(st)-1]
		}
	}
	return st
}

func closers(st []token) string {
	var b strings.Builder
	for i := len(st) - 1; i >= 0; i-- {
		b.WriteString("</" + st[i].name + ">")
	}
	return b.String()
}

func closersLen(st []token) int {
	n := 0
	for _, t := range st {
		n += len(t.name) + 3
	}
	return n
}

func joinTokens(ts []token) string {
	var b strings.Builder
	for _, t := range ts {
		b.WriteString(t.s)
	}
	return b.String()
}

func stripTags(s string) string {
	var b strings.Builder
	for _, t := range tokenize(s, 1<<20) {
		if t.kind != tokOpen && t.kind != tokClose {
			b.WriteString(t.s)
		}
	}
	return b.String()
}
