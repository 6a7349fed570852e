package quest

import (
	"strconv"
	"strings"
)

// text is a quest text prepared for substitution at compile time. Substitution (substitute.go)
// rewrites the whole text stage after stage; for the texts of a quest most of that work does
// not depend on the game, so the text is cut once into parts: literal pieces, {formulas}
// (parsed), player tags and [pN] references. Rendering then writes the parts in order.
//
// This gives exactly the result of the staged substitution because none of the stages can
// create or hide a tag of a later stage: every inserted value is wrapped in <clr>…<clrEnd>, and
// "[pN]" and the player tags contain neither "<" inside nor "{" or "}". Two cases are left to
// the staged substitution: texts with [dN] tags, whose display strings are known only at run
// time, and players whose tag values contain "<" or "[p" (a value could then form a tag).
type text struct {
	src     string // the text as in the quest
	diamond int    // the parameter that "<>" stands for, or -1
	plain   bool   // no tags at all: render returns src
	tags    bool   // has player tags
	size    int    // the rendered size, short of long tag values (see render)
	staged  bool   // has [dN] tags: render runs the staged substitution
	parts   []part
}

// Kinds of text parts.
const (
	partLiteral = iota
	partFormula
	partTag
	partParam
)

// part is one piece of a text.
type part struct {
	kind uint8
	n    int    // partTag: index in playerTags; partParam: parameter index
	lit  string // partLiteral
	f    *expr  // partFormula
}

// compileText prepares src for substitution; diamond is the parameter that "<>" stands for, or
// -1. nParams is the number of parameters of the quest.
func compileText(src string, diamond, nParams int) *text {
	t := &text{src: src, diamond: diamond}
	s := src
	if diamond >= 0 {
		s = strings.ReplaceAll(s, "<>", "[p"+strconv.Itoa(diamond+1)+"]")
	}
	if strings.Contains(s, "[d") {
		t.staged = true
		return t
	}
	// Stage 3: {formulas}, the first "{" that has a "}" after it, up to that "}".
	rest := s
	for {
		o, c, ok := nextFormula(rest)
		if !ok {
			break
		}
		t.literal(rest[:o], nParams)
		t.parts = append(t.parts, part{kind: partFormula, f: newExpr(rest[o+1:c], where{kind: inText})})
		rest = rest[c+1:]
	}
	t.literal(rest, nParams)
	if len(t.parts) == 0 || (len(t.parts) == 1 && t.parts[0].kind == partLiteral && t.parts[0].lit == src) {
		t.plain, t.parts = true, nil
	}
	for _, p := range t.parts {
		if p.kind == partLiteral {
			t.size += len(p.lit)
		} else {
			// <clr>, <clrEnd> and a number (or a tag value of that size).
			t.size += len(clr) + len(clrEnd) + 20
		}
	}
	return t
}

// literal appends the parts of a piece of text outside formulas: player tags, [pN] for N from
// 1 to nParams (no leading zeros), and the literal text around them.
func (t *text) literal(s string, nParams int) {
	last := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '<':
			for n, tag := range playerTags {
				if strings.HasPrefix(s[i:], tag) {
					t.lit(s[last:i])
					t.parts = append(t.parts, part{kind: partTag, n: n})
					t.tags = true
					last = i + len(tag)
					i = last - 1
					break
				}
			}
		case '[':
			if i+2 >= len(s) || s[i+1] != 'p' || s[i+2] < '1' || s[i+2] > '9' {
				continue
			}
			j := i + 2
			for j < len(s) && s[j] >= '0' && s[j] <= '9' {
				j++
			}
			if j >= len(s) || s[j] != ']' || j-i-2 > 9 {
				continue
			}
			n, err := strconv.Atoi(s[i+2 : j])
			if err != nil || n > nParams {
				continue
			}
			t.lit(s[last:i])
			t.parts = append(t.parts, part{kind: partParam, n: n - 1})
			last = j + 1
			i = j
		}
	}
	t.lit(s[last:])
}

func (t *text) lit(s string) {
	if s != "" {
		t.parts = append(t.parts, part{kind: partLiteral, lit: s})
	}
}

// render substitutes a compiled text.
func (t *substituter) render(x *text) (string, error) {
	if x.plain {
		return x.src, nil
	}
	if x.staged || (x.tags && t.tagValues() != nil && t.tagsNested) {
		return t.subst(x.src, x.diamond, 0)
	}
	var b strings.Builder
	b.Grow(x.size)
	var num [24]byte
	for i := range x.parts {
		p := &x.parts[i]
		switch p.kind {
		case partLiteral:
			b.WriteString(p.lit)
			continue
		case partFormula:
			v, err := p.f.eval(t.params, t.rnd)
			if err != nil {
				return "", err
			}
			b.WriteString(clr)
			b.Write(strconv.AppendInt(num[:0], int64(v), 10))
		case partTag:
			b.WriteString(clr)
			b.WriteString(t.tagValues()[p.n])
		case partParam:
			b.WriteString(clr)
			b.Write(strconv.AppendInt(num[:0], int64(t.params[p.n]), 10))
		}
		b.WriteString(clrEnd)
	}
	return b.String(), nil
}
