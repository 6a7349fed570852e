package quest

import (
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/questbot/questbot/formula"
)

// Markup around every value the player inserts into a text.
const (
	clr    = "<clr>"
	clrEnd = "<clrEnd>"
)

// maxTextDepth bounds the nesting of display strings through [dN] (a display string that
// refers to its own parameter would otherwise never end).
const maxTextDepth = 256

// playerTags are the player tags in the order the reference replaces them.
var playerTags = [10]string{"<Ranger>", "<Player>", "<FromPlanet>", "<FromStar>", "<ToPlanet>",
	"<ToStar>", "<Money>", "<Date>", "<Day>", "<CurDate>"}

var (
	monthsRus = [12]string{"Января", "Февраля", "Марта", "Апреля", "Мая", "Июня", "Июля",
		"Августа", "Сентября", "Октября", "Ноября", "Декабря"}
	monthsEng = [12]string{"January", "February", "March", "April", "May", "June", "July",
		"August", "September", "October", "November", "December"}
)

// substituter replaces the tags of quest texts (the reference's substitute, §2.7 of the quest
// semantics): "<>" (in display strings), [dN] and [dN:formula], {formula}, the player tags and
// [pN]. Every inserted value is wrapped in <clr>…<clrEnd>. Formulas draw from rnd in text order.
type substituter struct {
	q      *Quest
	params []int
	shown  Flags
	rnd    formula.Random
	player Player
	days   int

	tags       [10]string // values of playerTags, filled on first use
	tagsDone   bool
	tagsNested bool // some value contains "<" or "[p" (see text)
	nestedDone bool // tagsNested is known (it is also when tagsDone)
}

// srDate writes the date days after now in the player's way: "5 February 3024" (the year
// shifted by 1000), in now's time zone. The reference always uses the Russian month names
// unless the language is English.
func srDate(now time.Time, days int, lang Lang) string {
	var t time.Time
	if days > -100000 && days < 100000 {
		t = now.Add(time.Duration(days) * 24 * time.Hour)
	} else {
		t = now.AddDate(0, 0, days)
	}
	months := &monthsRus
	if lang == English {
		months = &monthsEng
	}
	return strconv.Itoa(t.Day()) + " " + months[t.Month()-1] + " " + strconv.Itoa(t.Year()+1000)
}

func (t *substituter) tagValues() *[10]string {
	if !t.tagsDone {
		p := &t.player
		t.tags = [10]string{p.Ranger, p.Player, p.FromPlanet, p.FromStar, p.ToPlanet, p.ToStar,
			p.Money, srDate(p.Now, daysToPassQuest, p.Lang), strconv.Itoa(daysToPassQuest - t.days),
			srDate(p.Now, t.days, p.Lang)}
		t.tagsDone = true
		for _, v := range t.tags {
			if strings.IndexByte(v, '<') >= 0 || strings.Contains(v, "[p") {
				t.tagsNested = true
			}
		}
	}
	return &t.tags
}

// nested reports whether some player tag value contains "<" or "[p". It needs only the
// player's own values: dates and the day count are digits, spaces and month names.
func (t *substituter) nested() bool {
	if !t.tagsDone && !t.nestedDone {
		p := &t.player
		for _, v := range [...]string{p.Ranger, p.Player, p.FromPlanet, p.FromStar, p.ToPlanet,
			p.ToStar, p.Money} {
			if strings.IndexByte(v, '<') >= 0 || strings.Contains(v, "[p") {
				t.tagsNested = true
			}
		}
		t.nestedDone = true
	}
	return t.tagsNested
}

// subst substitutes str. diamond is the parameter whose value "<>" stands for, or -1.
func (t *substituter) subst(str string, diamond, depth int) (string, error) {
	if depth > maxTextDepth {
		return "", ErrTextTooDeep
	}
	if strings.IndexByte(str, '[') < 0 && strings.IndexByte(str, '{') < 0 &&
		strings.IndexByte(str, '<') < 0 {
		return str, nil
	}
	if diamond >= 0 && strings.Contains(str, "<>") {
		str = strings.ReplaceAll(str, "<>", "[p"+strconv.Itoa(diamond+1)+"]")
	}
	var err error
	if strings.Contains(str, "[d") {
		if str, err = t.displayTags(str, diamond, depth); err != nil {
			return "", err
		}
	}
	if strings.IndexByte(str, '{') >= 0 {
		if str, err = t.formulas(str); err != nil {
			return "", err
		}
	}
	if strings.IndexByte(str, '<') >= 0 {
		str = t.playerTagsIn(str)
	}
	if strings.Contains(str, "[p") {
		str = t.paramValues(str)
	}
	return str, nil
}

// displayTags replaces [dN] (parameter N's display string for its value) and [dN:formula] (for
// the formula's value). It follows the reference's scanner, quirks included: a [d without
// digits is skipped; an unknown parameter replaces "[dN" and one more character by
// UNKNOWN_PARAM; any other character after the digits stops the processing of [d tags; after
// a replacement the search goes on from the end of the tag measured in the old string (in
// UTF-16 units), applied to the new one: inside the inserted text when the tag was shorter,
// past the start of the following text when it was longer.
//
// The reference rebuilds the whole string at each replacement. Here the text before the point
// where the search goes on is final, so it is written out once, and the search goes on in the
// rest (cur).
func (t *substituter) displayTags(str string, diamond, depth int) (string, error) {
	var out strings.Builder // final text
	cur := str              // text still to process; the search starts at its beginning
	for {
		d := strings.Index(cur, "[d")
		if d >= 0 && out.Cap() == 0 {
			// Display strings lengthen the text: room for a few spares most regrowths.
			out.Grow(2*len(str) + 64)
		}
		if d < 0 {
			break
		}
		scan := d + 2
		for scan < len(cur) && cur[scan] >= '0' && cur[scan] <= '9' {
			scan++
		}
		digits := cur[d+2 : scan]
		if digits == "" {
			out.WriteString(cur[:scan])
			cur = cur[scan:]
			continue
		}
		idx := paramIndex(digits, len(t.params))
		if idx < 0 {
			out.WriteString(cur[:d])
			out.WriteString(clr + "UNKNOWN_PARAM" + clrEnd)
			cur = cur[skipUnit(cur, scan):]
			continue
		}
		value := t.params[idx]
		switch {
		case scan < len(cur) && cur[scan] == ']':
			scan++
		case scan < len(cur) && cur[scan] == ':':
			scan++
			var src string
			src, scan = tagFormula(cur, scan)
			if inner, ok := insideBraces(src); ok {
				src = inner
			}
			v, err := t.q.textFormula(src).eval(t.params, t.rnd)
			if err != nil {
				return "", err
			}
			value = v
		default:
			out.WriteString(cur)
			return out.String(), nil
		}
		end := min(scan, len(cur))

		k := t.q.params[idx].rangeOf(value)
		if k < 0 {
			out.WriteString(cur[:end])
			cur = cur[end:]
			continue
		}
		inner, err := t.subst(t.q.params[idx].ranges[k].text.src, diamond, depth+1)
		if err != nil {
			return "", err
		}
		block := clr + inner + clrEnd
		out.WriteString(cur[:d])
		rest := cur[end:]
		// Only whether the block is shorter than the tag matters, and by how much when it is:
		// the block (a display string, often long) is measured no further than the tag.
		tag := utf16Len(cur[d:end])
		blockUnits := utf16LenUpTo(block, tag)
		if tag <= blockUnits {
			// The search goes on inside the inserted text. It can hold a [d only if a
			// display string has a malformed one; no [d can span its end ("…<clrEnd>").
			at := advanceUnits(block, tag)
			if tail := block[at:]; strings.Contains(tail, "[d") {
				out.WriteString(block[:at])
				cur = tail + rest
			} else {
				out.WriteString(block)
				cur = rest
			}
			continue
		}
		// The search goes on past the start of the following text.
		out.WriteString(block)
		skip := min(advanceUnits(rest, tag-blockUnits), len(rest))
		out.WriteString(rest[:skip])
		cur = rest[skip:]
	}
	if out.Len() == 0 {
		return cur, nil
	}
	out.WriteString(cur)
	return out.String(), nil
}

// tagFormula reads the formula of a "[dN:formula]" tag from s[i:], just after the colon, up to
// the "]" that closes the tag (square brackets inside count). It returns the formula's source and
// where the tag ends; without a closing bracket the formula is empty, which fails to evaluate, as
// in the reference.
func tagFormula(s string, i int) (src string, next int) {
	start, end := i, i
	for i < len(s) && s[i] == ' ' {
		i++
	}
	level := 0
	for {
		if i < len(s) {
			if s[i] == '[' {
				level++
			} else if s[i] == ']' {
				if level == 0 {
					return s[start:i], i + 1
				}
				level--
			}
		}
		i++
		if i > len(s) {
			return s[start:end], i
		}
	}
}

// paramIndex converts the digits of [dN] to a parameter index, or returns -1 when there is no
// such parameter.
func paramIndex(digits string, n int) int {
	digits = strings.TrimLeft(digits, "0")
	if digits == "" || len(digits) > 9 {
		return -1
	}
	v, err := strconv.Atoi(digits)
	if err != nil || v < 1 || v > n {
		return -1
	}
	return v - 1
}

// insideBraces applies the reference's /\s*\{(.*)\}\s*/ to a [dN:…] formula: the text between
// the first "{" that has a "}" after it on the same line and the last "}" of that line.
func insideBraces(s string) (string, bool) {
	for i := 0; i < len(s); i++ {
		if s[i] != '{' {
			continue
		}
		end := len(s)
		for k := i + 1; k < len(s); k++ {
			if s[k] == '\n' || s[k] == '\r' ||
				(s[k] == 0xE2 && k+2 < len(s) && s[k+1] == 0x80 && (s[k+2] == 0xA8 || s[k+2] == 0xA9)) {
				end = k
				break
			}
		}
		if c := strings.LastIndexByte(s[i+1:end], '}'); c >= 0 {
			return s[i+1 : i+1+c], true
		}
	}
	return s, false
}

// nextFormula finds the next {formula} in s: the first "{" that has a "}" after it, and the first
// "}" after that. It returns the positions of both braces.
func nextFormula(s string) (open, close int, ok bool) {
	open = strings.IndexByte(s, '{')
	if open < 0 {
		return 0, 0, false
	}
	close = strings.IndexByte(s[open+1:], '}')
	if close < 0 {
		return 0, 0, false
	}
	return open, open + 1 + close, true
}

// formulas replaces each {formula} by its value, first to last: the first "{" that is followed
// by a "}" starts the formula, the first "}" after it ends it. An unclosed "{" is left alone.
func (t *substituter) formulas(str string) (string, error) {
	var b strings.Builder
	rest := str
	for {
		o, c, ok := nextFormula(rest)
		if !ok {
			break
		}
		v, err := t.q.textFormula(rest[o+1:c]).eval(t.params, t.rnd)
		if err != nil {
			return "", err
		}
		if b.Len() == 0 {
			b.Grow(len(str) + 64)
		}
		b.WriteString(rest[:o])
		b.WriteString(clr)
		b.WriteString(strconv.Itoa(v))
		b.WriteString(clrEnd)
		rest = rest[c+1:]
	}
	if b.Len() == 0 {
		return str, nil
	}
	b.WriteString(rest)
	return b.String(), nil
}

// playerTagsIn replaces the player tags. The reference replaces each tag everywhere, one tag
// after the other; when no value contains a "<" no replacement can create or hide another tag,
// and a single pass gives the same text.
func (t *substituter) playerTagsIn(str string) string {
	tags := t.tagValues()
	if t.tagsNested {
		for i, tag := range playerTags {
			if strings.Contains(str, tag) {
				str = strings.ReplaceAll(str, tag, clr+tags[i]+clrEnd)
			}
		}
		return str
	}
	var b strings.Builder
	last, i := 0, 0
	for {
		k := strings.IndexByte(str[i:], '<')
		if k < 0 {
			break
		}
		at := i + k
		i = at + 1
		if at+1 >= len(str) || !strings.ContainsRune("RPFTMDC", rune(str[at+1])) {
			continue
		}
		for n, tag := range playerTags {
			if strings.HasPrefix(str[at:], tag) {
				if b.Len() == 0 {
					b.Grow(len(str) + 64)
				}
				b.WriteString(str[last:at])
				b.WriteString(clr)
				b.WriteString(tags[n])
				b.WriteString(clrEnd)
				last = at + len(tag)
				i = last
				break
			}
		}
	}
	if last == 0 {
		return str
	}
	b.WriteString(str[last:])
	return b.String()
}

// paramValues replaces every [pN] (N from 1 to the number of parameters, no leading zeros) by
// the parameter's value.
func (t *substituter) paramValues(str string) string {
	var b strings.Builder
	last, i := 0, 0
	for {
		k := strings.Index(str[i:], "[p")
		if k < 0 {
			break
		}
		at := i + k
		j := at + 2
		for j < len(str) && str[j] >= '0' && str[j] <= '9' {
			j++
		}
		i = at + 1
		if j == at+2 || str[at+2] == '0' || j >= len(str) || str[j] != ']' || j-at-2 > 9 {
			continue
		}
		n, err := strconv.Atoi(str[at+2 : j])
		if err != nil || n < 1 || n > len(t.params) {
			continue
		}
		if b.Len() == 0 {
			b.Grow(len(str) + 16)
		}
		b.WriteString(str[last:at])
		b.WriteString(clr)
		b.WriteString(strconv.Itoa(t.params[n-1]))
		b.WriteString(clrEnd)
		last = j + 1
		i = last
	}
	if last == 0 {
		return str
	}
	b.WriteString(str[last:])
	return b.String()
}

// The text model keeps a UTF-16 surrogate that is not part of a pair as its 3-byte generalised
// UTF-8 form (ED A0 80 to ED BF BF); the helpers below count it as the one code unit it is.

// unitAt returns the byte length and the UTF-16 length of the character at s[i].
func unitAt(s string, i int) (size, units int) {
	if s[i] < utf8.RuneSelf {
		return 1, 1
	}
	if s[i] == 0xED && i+2 < len(s) && s[i+1] >= 0xA0 && s[i+1] <= 0xBF &&
		s[i+2] >= 0x80 && s[i+2] <= 0xBF {
		return 3, 1
	}
	r, n := utf8.DecodeRuneInString(s[i:])
	if r >= 0x10000 {
		return n, 2
	}
	return n, 1
}

// utf16Len returns the length of s in UTF-16 code units.
func utf16Len(s string) int {
	n := 0
	for i := 0; i < len(s); {
		size, units := unitAt(s, i)
		i += size
		n += units
	}
	return n
}

// utf16LenUpTo returns the length of s in UTF-16 code units, or limit when s has at least
// that many.
func utf16LenUpTo(s string, limit int) int {
	n := 0
	for i := 0; i < len(s) && n < limit; {
		size, units := unitAt(s, i)
		i += size
		n += units
	}
	return min(n, limit)
}

// advanceUnits returns the byte offset in s after n UTF-16 code units (rounded up to a whole
// character), or len(s)+1 when s is shorter.
func advanceUnits(s string, n int) int {
	i := 0
	for n > 0 {
		if i >= len(s) {
			return len(s) + 1
		}
		size, units := unitAt(s, i)
		i += size
		n -= units
	}
	return i
}

// skipUnit returns the offset after the character at s[i] (the reference skips one code unit
// there; a character outside the BMP is skipped whole).
func skipUnit(s string, i int) int {
	if i >= len(s) {
		return len(s)
	}
	size, _ := unitAt(s, i)
	return i + size
}
