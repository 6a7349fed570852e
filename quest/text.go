package quest

import (
	"strconv"
	"strings"
	"sync"

	"github.com/questbot/questbot/formula/alea"
)

// text is a quest text prepared for substitution at compile time. Substitution (substitute.go)
// rewrites the whole text stage after stage; for the texts of a quest most of that work does
// not depend on the game, so the text is cut once into parts: literal pieces, [dN] display
// strings, {formulas} (parsed), player tags and [pN] references. Rendering then writes the
// parts in order.
//
// This gives exactly the result of the staged substitution because none of the stages can
// create or hide a tag of a later stage: every inserted value is wrapped in <clr>…<clrEnd>, and
// "[pN]" and the player tags contain neither "<" inside nor "{" or "}". A display string is
// inserted before the formulas are found, so it could break that rule: rendering checks each
// one (see renderTo). Left to the staged substitution are texts whose [d tags the scanner treats
// in other ways than "[dN]" with a known N ([dN:formula], unknown parameters, a [d followed by
// digits and another character), texts where a {formula} would enclose a display string, and
// players whose tag values contain "<" or "[p" (a value could then form a tag).
type text struct {
	src     string // the text as in the quest
	diamond int    // the parameter that "<>" stands for, or -1
	plain   bool   // no tags at all: render returns src
	tags    bool   // has player tags
	display bool   // has [dN] display strings
	// late tells that the display strings must all be inserted before the first formula is
	// evaluated (as the staged substitution does): some formula may draw or fail.
	late   bool
	staged bool // render runs the staged substitution
	// inert tells that every rendering of the text is inert as a display string (see
	// inertDisplay), so that inserting it needs no check.
	inert bool
	parts []part
}

// Kinds of text parts.
const (
	partLiteral = iota
	partFormula
	partTag
	partParam
	partDisplay
)

// part is one piece of a text.
type part struct {
	kind uint8
	n    int    // partTag: index in playerTags; partParam, partDisplay: parameter index
	lit  string // partLiteral; partDisplay: the tag, left as it is when no range holds the value
	f    *expr  // partFormula
	// partDisplay: the display strings of parameter n (parallel to its ranges), compiled with
	// the diamond of the text they are inserted into, as the reference substitutes them.
	display []*text
}

// displayMark stands for a [dN] tag while a text is cut into parts. A text that contains it
// already is left to the staged substitution.
const displayMark = "\x00"

// textCompiler compiles the texts of a quest.
type textCompiler struct {
	nParams int
	ranges  [][]string // the display strings of each parameter, as in the file
	// displays holds the display strings of a parameter compiled for a diamond, keyed by
	// parameter and diamond: display strings insert one another, possibly in a cycle.
	displays map[[2]int][]*text
}

func newTextCompiler(nParams int, ranges [][]string) *textCompiler {
	return &textCompiler{nParams: nParams, ranges: ranges, displays: make(map[[2]int][]*text)}
}

// displayTexts returns the display strings of parameter p compiled with diamond.
func (c *textCompiler) displayTexts(p, diamond int) []*text {
	key := [2]int{p, diamond}
	if d, ok := c.displays[key]; ok {
		return d
	}
	var src []string
	if p < len(c.ranges) {
		src = c.ranges[p]
	}
	d := make([]*text, len(src))
	c.displays[key] = d // before compiling them, which may come back here
	for k := range src {
		d[k] = c.text(src[k], diamond)
	}
	return d
}

// text prepares src for substitution; diamond is the parameter that "<>" stands for, or -1.
func (c *textCompiler) text(src string, diamond int) *text {
	t := &text{src: src, diamond: diamond}
	s := src
	if diamond >= 0 {
		s = strings.ReplaceAll(s, "<>", "[p"+strconv.Itoa(diamond+1)+"]")
	}
	var displays []part
	if strings.Contains(s, "[d") {
		var ok bool
		if s, displays, ok = c.displayTags(s, diamond); !ok {
			t.staged = true
			return t
		}
		t.display = true
	}
	// Stage 3: {formulas}, the first "{" that has a "}" after it, up to that "}".
	rest := s
	for {
		o, cl, ok := nextFormula(rest)
		if !ok {
			break
		}
		if strings.Contains(rest[o:cl], displayMark) {
			// The formula would enclose a display string.
			return &text{src: src, diamond: diamond, staged: true}
		}
		c.literal(t, rest[:o], &displays)
		t.parts = append(t.parts, part{kind: partFormula, f: newExpr(rest[o+1:cl], where{kind: inText})})
		rest = rest[cl+1:]
	}
	c.literal(t, rest, &displays)
	if len(t.parts) == 0 || (len(t.parts) == 1 && t.parts[0].kind == partLiteral && t.parts[0].lit == src) {
		t.plain, t.parts = true, nil
	}
	for _, p := range t.parts {
		if p.kind == partFormula && (p.f.e == nil || !p.f.e.Pure(c.nParams)) {
			t.late = t.display
		}
	}
	t.inert = inertText(t)
	return t
}

// inertText reports whether every rendering of t is inert as a display string: t is its source
// (plain) or is substituted part by part into literals that hold no [d tag and no brace and do
// not end with "[", and numbers (formulas and [pN]), which are written after clr.
func inertText(t *text) bool {
	switch {
	case t.plain:
		return inertDisplay([]byte(t.src))
	case t.staged || t.late || t.tags || t.display:
		return false
	}
	for _, p := range t.parts {
		switch p.kind {
		case partLiteral:
			if !inertDisplay([]byte(p.lit)) || strings.HasSuffix(p.lit, "[") {
				return false
			}
		case partFormula, partParam:
		default:
			return false
		}
	}
	return true
}

// displayTags replaces the [dN] tags of s by displayMark and returns their parts, in order. It
// reports false when s has a [d tag that is not "[dN]" with N a parameter of the quest, or
// the mark itself. A "[d" without digits is no tag: the reference skips it.
func (c *textCompiler) displayTags(s string, diamond int) (string, []part, bool) {
	if strings.Contains(s, displayMark) {
		return "", nil, false
	}
	var b strings.Builder
	var out []part
	for {
		d := strings.Index(s, "[d")
		if d < 0 {
			break
		}
		scan := d + 2
		for scan < len(s) && s[scan] >= '0' && s[scan] <= '9' {
			scan++
		}
		if scan == d+2 {
			b.WriteString(s[:scan])
			s = s[scan:]
			continue
		}
		// A tag no longer than "<clr><clrEnd>" is no longer than the text that replaces it,
		// so the reference goes on searching inside the inserted text, which holds no [d
		// (render checks), and then after it: right after the tag in the cut text.
		idx := paramIndex(s[d+2:scan], c.nParams)
		if idx < 0 || scan >= len(s) || s[scan] != ']' || scan+1-d > len(clr)+len(clrEnd) {
			return "", nil, false
		}
		b.WriteString(s[:d])
		b.WriteString(displayMark)
		out = append(out, part{kind: partDisplay, n: idx, lit: s[d : scan+1],
			display: c.displayTexts(idx, diamond)})
		s = s[scan+1:]
	}
	b.WriteString(s)
	return b.String(), out, true
}

// literal appends to t the parts of a piece of text outside formulas: player tags, [pN] for N
// from 1 to the number of parameters (no leading zeros), the display strings of displayMark
// (taken from the front of displays) and the literal text around them.
func (c *textCompiler) literal(t *text, s string, displays *[]part) {
	last := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case displayMark[0]:
			t.lit(s[last:i])
			t.parts = append(t.parts, (*displays)[0])
			*displays = (*displays)[1:]
			last = i + 1
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
			if err != nil || n > c.nParams {
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

// renderBufs holds the scratch buffers of render, so that a rendered text costs one
// allocation, its string.
var renderBufs = sync.Pool{New: func() any { return new([]byte) }}

// maxRenderBuf is the largest buffer kept for reuse.
const maxRenderBuf = 64 << 10

// render substitutes a compiled text.
func (t *substituter) render(x *text) (string, error) {
	if x.plain {
		return x.src, nil
	}
	bp := renderBufs.Get().(*[]byte)
	buf, err := t.renderTo((*bp)[:0], x, 0)
	str := string(buf)
	if cap(buf) <= maxRenderBuf {
		*bp = buf[:0]
		renderBufs.Put(bp)
	}
	if err != nil {
		return "", err
	}
	return str, nil
}

// renderTo appends the substituted text x, inserted depth display strings deep, to buf.
func (t *substituter) renderTo(buf []byte, x *text, depth int) ([]byte, error) {
	if depth > maxTextDepth {
		return buf, ErrTextTooDeep
	}
	if x.plain {
		return append(buf, x.src...), nil
	}
	staged := x.staged || ((x.tags || x.display) && t.nested())
	var a *alea.Alea
	if x.display && !staged {
		// A display string that turns out to need the staged substitution makes the whole
		// text start again, with the generator as it was.
		var ok bool
		a, ok = t.rnd.(*alea.Alea)
		staged = !ok
	}
	switch {
	case staged:
		return t.appendStaged(buf, x, depth)
	case x.late:
		return t.renderLate(buf, x, depth, a)
	}
	// Display strings and formulas in text order: the formulas draw nothing and cannot fail,
	// so this is the order of the staged substitution's draws and errors.
	start := len(buf)
	var saved alea.Alea
	if a != nil {
		saved = *a
	}
	var err error
	for i := range x.parts {
		p := &x.parts[i]
		switch p.kind {
		case partLiteral:
			buf = append(buf, p.lit...)
		case partDisplay:
			r := t.q.params[p.n].rangeOf(t.params[p.n])
			if r < 0 {
				buf = append(buf, p.lit...)
				continue
			}
			buf = append(buf, clr...)
			at := len(buf)
			if buf, err = t.renderTo(buf, p.display[r], depth+1); err != nil {
				return buf, err
			}
			if !p.display[r].inert && !inertDisplay(buf[at:]) {
				*a = saved
				return t.appendStaged(buf[:start], x, depth)
			}
			buf = append(buf, clrEnd...)
		default:
			if buf, err = t.appendValue(buf, p); err != nil {
				return buf, err
			}
		}
	}
	return buf, nil
}

// appendValue appends the value of a formula, player tag or parameter part, wrapped.
func (t *substituter) appendValue(buf []byte, p *part) ([]byte, error) {
	buf = append(buf, clr...)
	switch p.kind {
	case partFormula:
		v, err := p.f.eval(t.params, t.rnd)
		if err != nil {
			return buf, err
		}
		buf = strconv.AppendInt(buf, int64(v), 10)
	case partTag:
		buf = append(buf, t.tagValues()[p.n]...)
	case partParam:
		buf = strconv.AppendInt(buf, int64(t.params[p.n]), 10)
	}
	return append(buf, clrEnd...), nil
}

// inertDisplay reports whether an inserted display string leaves the later stages of the
// substitution alone: it holds no [d tag and no brace.
func inertDisplay(b []byte) bool {
	// One pass over the string, which is short: searching it once per pattern costs more.
	for i, c := range b {
		switch c {
		case '{', '}':
			return false
		case '[':
			if i+1 < len(b) && b[i+1] == 'd' {
				return false
			}
		}
	}
	return true
}

// appendStaged appends the text x substituted stage by stage.
func (t *substituter) appendStaged(buf []byte, x *text, depth int) ([]byte, error) {
	str, err := t.subst(x.src, x.diamond, depth)
	return append(buf, str...), err
}

// displayBlock is a display string rendered for a text; wrap tells that a range held the value
// (otherwise s is the tag, left as it is).
type displayBlock struct {
	s    string
	wrap bool
}

// renderLate is renderTo for a text whose display strings must all be inserted before its
// formulas are evaluated; a is the generator.
func (t *substituter) renderLate(buf []byte, x *text, depth int, a *alea.Alea) ([]byte, error) {
	saved := *a
	var blocks []displayBlock
	for i := range x.parts {
		p := &x.parts[i]
		if p.kind != partDisplay {
			continue
		}
		r := t.q.params[p.n].rangeOf(t.params[p.n])
		if r < 0 {
			blocks = append(blocks, displayBlock{s: p.lit})
			continue
		}
		inner, err := t.renderTo(nil, p.display[r], depth+1)
		if err != nil {
			return buf, err
		}
		if !p.display[r].inert && !inertDisplay(inner) {
			*a = saved
			return t.appendStaged(buf, x, depth)
		}
		blocks = append(blocks, displayBlock{s: string(inner), wrap: true})
	}
	for i := range x.parts {
		p := &x.parts[i]
		switch p.kind {
		case partLiteral:
			buf = append(buf, p.lit...)
		case partDisplay:
			d := blocks[0]
			blocks = blocks[1:]
			if !d.wrap {
				buf = append(buf, d.s...)
				continue
			}
			buf = append(buf, clr...)
			buf = append(buf, d.s...)
			buf = append(buf, clrEnd...)
		default:
			var err error
			if buf, err = t.appendValue(buf, p); err != nil {
				return buf, err
			}
		}
	}
	return buf, nil
}
