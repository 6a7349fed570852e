package qms

import (
	"regexp"
	"strconv"
	"strings"
)

var (
	inlineRE   = regexp.MustCompile(`#([A-Za-z0-9_]+)(?::([A-Za-z0-9_:]+))?`)
	randomRE   = regexp.MustCompile(`<([0-9./:;]+)>`)
	boldRE     = regexp.MustCompile(`\*([^*]+)\*`)
	fixRE      = regexp.MustCompile(`\^([^^]+)\^`)
	spoilerRE  = regexp.MustCompile(`~([^~]+)~`)
	escapeStar = "\x01"
)

// useVar returns the parameter number of the variable name, numbering it on first use, or 0
// when there is no such variable.
func (c *compiler) useVar(name string) int {
	v := c.declaredVar(name)
	if v == nil {
		return 0
	}
	if v.id == 0 {
		c.vid++
		c.number(v, c.vid)
	}
	return v.id
}

// prepareFormula turns a source formula into a quest formula: $name becomes [pN] and <a..b>
// becomes the random range [a..b].
func (c *compiler) prepareFormula(s string, p pos) string {
	if strings.HasPrefix(s, "\x00") { // a literal formula
		return s[1:]
	}
	if !strings.ContainsAny(s, "$<") {
		return s
	}
	s = replaceNames(s, "$", func(m string) string {
		if id := c.useVar(m[1:]); id > 0 {
			return "[p" + strconv.Itoa(id) + "]"
		}
		c.warnf(p, "declare it with #var; it is left out of the formula", "unknown variable %s in formula", m)
		return ""
	})
	if !strings.Contains(s, "<") {
		return s
	}
	return randomRE.ReplaceAllString(s, "[$1]")
}

// replaceNames replaces each $name or @name of s (a sigil of sigils then letters, digits and
// _) with what f returns for it.
func replaceNames(s, sigils string, f func(match string) string) string {
	var b strings.Builder
	last := 0
	for i := 0; i+1 < len(s); i++ {
		if strings.IndexByte(sigils, s[i]) < 0 {
			continue
		}
		j := i + 1
		for j < len(s) && isWordByte(s[j]) {
			j++
		}
		if j == i+1 {
			continue
		}
		b.WriteString(s[last:i])
		b.WriteString(f(s[i:j]))
		last = j
		i = j - 1
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

// prepareText turns a source text into a quest text: text macros, {formulas}, $name (the
// value, [pN]) and @name (the value's text, [dN]), *bold*, ^fixed^ and, with #compatible:off,
// ~spoiler~. In a parameter's range text (param) a lone $ stands for the value (<>).
func (c *compiler) prepareText(s string, param bool, p pos) string {
	if strings.Contains(s, "#") {
		s = c.inlineMacros(s)
	}
	var b strings.Builder
	for s != "" {
		i := strings.IndexByte(s, '{')
		j := -1
		if i >= 0 {
			j = strings.IndexByte(s[i:], '}')
		}
		if i < 0 || j < 2 {
			if i >= 0 && j == 1 { // "{}" is plain text
				b.WriteString(c.markup(s[:i+2], param))
				s = s[i+2:]
				continue
			}
			b.WriteString(c.markup(s, param))
			break
		}
		b.WriteString(c.markup(s[:i], param))
		b.WriteString("{" + c.prepareFormula(s[i+1:i+j], p) + "}")
		s = s[i+j+1:]
	}
	return b.String()
}

// markup handles the part of a text outside formulas.
func (c *compiler) markup(s string, param bool) string {
	if s == "" {
		return s
	}
	if strings.ContainsAny(s, "$@") {
		s = replaceNames(s, "$@", func(m string) string {
			if c.declaredVar(m[1:]) == nil {
				return m
			}
			id := strconv.Itoa(c.useVar(m[1:]))
			if m[0] == '$' {
				return "[p" + id + "]"
			}
			return "[d" + id + "]"
		})
	}
	if param {
		s = strings.ReplaceAll(s, "$", "<>")
	}
	s = strings.ReplaceAll(s, `\*`, escapeStar)
	if strings.Contains(s, "*") {
		s = boldRE.ReplaceAllString(s, "<clr>$1<clrEnd>")
	}
	s = strings.ReplaceAll(s, escapeStar, "*")
	if strings.Contains(s, "^") {
		s = fixRE.ReplaceAllString(s, "<fix>$1</fix>")
	}
	if c.compat == compatOff && strings.Contains(s, "~") {
		s = spoilerRE.ReplaceAllString(s, "<tg-spoiler>$1</tg-spoiler>")
	}
	return s
}

// inlineMacros expands #name:args in a text when name is a macro made only of text lines; its
// lines are joined with line breaks. Anything else is left as written.
func (c *compiler) inlineMacros(s string) string {
	return inlineRE.ReplaceAllStringFunc(s, func(m string) string {
		sub := inlineRE.FindStringSubmatch(m)
		mac := c.macros[sub[1]]
		if mac == nil || len(mac.lines) == 0 {
			return m
		}
		for _, l := range mac.lines {
			if n, _ := directiveName(l.text); n != "" {
				return m
			}
		}
		consts := c.constants()
		if sub[2] != "" {
			for i, a := range strings.Split(sub[2], ":") {
				if i < len(mac.params) {
					consts.put(mac.params[i], a)
				}
			}
		}
		var out []string
		for _, l := range mac.lines {
			out = append(out, c.expandLine(l.text, consts, l.p))
		}
		return strings.Join(out, "\n")
	})
}

// pageText assembles a location text or a jump description: blank lines at the start are
// dropped, blank lines between text lines kept, and every text line ends with a line break.
// #raw lines, when there are any, are the whole text.
func (c *compiler) pageText(b *body) string {
	if lit, ok := c.literalText(b); ok {
		return lit
	}
	if c.exact {
		lines := exactLines(b)
		out := make([]string, len(lines))
		for i, l := range lines {
			out[i] = c.prepareText(unescapeLine(l.text), false, l.p)
		}
		return joinLines(lines, out)
	}
	var out strings.Builder
	skip, blank := true, 0
	for _, l := range b.lines {
		t := c.prepareText(l.text, false, l.p)
		if strings.TrimSpace(t) != "" {
			skip = false
			out.WriteString(strings.Repeat("\n", blank))
			out.WriteString(t)
			out.WriteByte('\n')
			blank = 0
		} else if !skip {
			blank++
		}
	}
	return out.String()
}

// blockText assembles the intro or the congratulation: the lines from the first non-empty
// one, joined with line breaks, then prepared as one text.
func (c *compiler) blockText(b *body) string {
	if lit, ok := c.literalText(b); ok {
		return lit
	}
	if c.exact {
		lines := exactLines(b)
		return c.prepareText(joinLines(lines, lineTexts(lines)), false, b.p)
	}
	var lines []string
	for _, l := range b.lines {
		if len(lines) == 0 && l.text == "" {
			continue
		}
		lines = append(lines, l.text)
	}
	return c.prepareText(strings.Join(lines, "\n"), false, b.p)
}

// messageText assembles a critical message, which is taken without markup.
func (c *compiler) messageText(b *body) string {
	if lit, ok := c.literalText(b); ok {
		return lit
	}
	if c.exact {
		lines := exactLines(b)
		return joinLines(lines, lineTexts(lines))
	}
	msg := ""
	for _, l := range b.lines {
		if msg == "" {
			msg = l.text
		} else {
			msg += "\n" + l.text
		}
	}
	return msg
}

// literalText returns the concatenated #raw lines of b, if it has any; other non-blank lines
// beside them are an error.
func (c *compiler) literalText(b *body) (string, bool) {
	has := false
	for _, l := range b.lines {
		if l.literal {
			has = true
			break
		}
	}
	if !has {
		return "", false
	}
	var out strings.Builder
	for _, l := range b.lines {
		if l.literal {
			out.WriteString(l.text)
		} else if strings.TrimSpace(l.text) != "" {
			c.errorf(l.p, "a text given with #raw is given whole by #raw lines", "text line beside #raw")
		}
	}
	return out.String(), true
}

// exactLines returns the text lines of a block of an exact source: the lines between its first
// and its last that are not blank, as written. Their text is joined with line breaks, without one
// at the end.
func exactLines(b *body) []bodyLine {
	first, last := -1, -1
	for i, l := range b.lines {
		if strings.TrimSpace(l.text) != "" {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	if first < 0 {
		return nil
	}
	return b.lines[first : last+1]
}

// joinLines joins the texts of lines with the line break each line ends with.
func joinLines(lines []bodyLine, texts []string) string {
	var b strings.Builder
	for i, t := range texts {
		if i > 0 {
			if lines[i-1].crlf {
				b.WriteString("\r\n")
			} else {
				b.WriteByte('\n')
			}
		}
		b.WriteString(t)
	}
	if n := len(lines); n > 0 && lines[n-1].end {
		if lines[n-1].crlf {
			b.WriteString("\r\n")
		} else {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// lineTexts returns the texts of the lines of an exact source: a line written \#… or \$… (after
// any spaces) is the text #… or $…, which would otherwise be read as a directive or a change.
func lineTexts(lines []bodyLine) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = unescapeLine(l.text)
	}
	return out
}

func unescapeLine(s string) string {
	if rest, ok := strings.CutPrefix(s, `\`); ok {
		if t := strings.TrimLeft(rest, " \t"); strings.HasPrefix(t, "#") || strings.HasPrefix(t, "$") {
			return rest
		}
	}
	return s
}
