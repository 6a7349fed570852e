package qms

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/questbot/questbot/qmm"
)

// Decompile writes q as source, in exact form (#exact): compiling it gives back q as the player
// sees it: the same parameters, locations and jumps with their ids, order, texts, media,
// conditions and changes, and the same header. Only what differs from what the compiler gives
// by default is written. Texts, formulas and starting values are written in the language's
// readable form when that form compiles back to exactly the same string, and literally ("…"
// with Go escapes, or #raw lines) otherwise. A quest made with sub-routines (a stack parameter
// that calls push on and cases back pop) is written with #return sites and calls when compiling
// that gives back the same quest as the flat form.
func Decompile(q *qmm.Quest) []byte {
	qmsDefaults := compiledDefaults(q)
	flat := decompile(q, nil, qmsDefaults)
	if sub := findSubroutines(q); sub != nil {
		sub.declare = sub.mustDeclare(q)
		if src := decompile(q, sub, qmsDefaults); sameCompiled(flat, src) {
			return src
		}
	}
	return flat
}

// compiledDefaults tells which defaults fit q best: those of a quest compiled from a source
// (#exact:qms) or the editor's (#exact).
func compiledDefaults(q *qmm.Quest) bool {
	editor, compiled := 0, 0
	score := func(e, c bool) {
		if e {
			editor++
		}
		if c {
			compiled++
		}
	}
	for i := range q.Params {
		p := &q.Params[i]
		score(p.Starting == "["+strconv.Itoa(int(p.Min))+"]", p.Starting == "0")
		score(p.CritType == qmm.CritMin && p.CritText == defaultCritText(i+1), p.CritType == qmm.CritMax && p.CritText == "")
	}
	for i := range q.Locations {
		l := &q.Locations[i]
		pages, hasText := 0, false
		for k, t := range l.Texts {
			if t.Text != "" || !t.Media.IsZero() {
				pages = k + 1
			}
			hasText = hasText || t.Text != ""
		}
		score(l.IsEmpty, l.IsEmpty == !hasText)
		score(len(l.Texts) == max(pages, 1), len(l.Texts) == pages)
		for _, t := range l.Texts {
			if t.Text != "" {
				score(false, strings.HasSuffix(t.Text, "\n"))
			}
		}
	}
	return compiled > editor
}

// decompile writes q flat (sub nil) or with the sub-routine structure sub, with the defaults
// of #exact or of #exact:qms.
func decompile(q *qmm.Quest, sub *subroutines, qmsDefaults bool) []byte {
	d := &decompiler{q: q, c: newCompiler(nil), sub: sub, names: paramNames(q, sub), qms: qmsDefaults, end: qmsDefaults}
	for i := range q.Params {
		d.c.vars = append(d.c.vars, &variable{name: d.names[i], id: i + 1, order: i + 1})
	}
	d.c.vid = len(q.Params)
	d.c.exact = true
	d.write()
	return []byte(d.b.String())
}

// sameCompiled reports whether two sources compile to the same quest file.
func sameCompiled(a, b []byte) bool {
	qa, err := CompileSource("a.qms", a)
	if err != nil {
		return false
	}
	qb, err := CompileSource("b.qms", b)
	if err != nil {
		return false
	}
	var ba, bb bytes.Buffer
	if qmm.Encode(&ba, qa) != nil || qmm.Encode(&bb, qb) != nil {
		return false
	}
	return bytes.Equal(ba.Bytes(), bb.Bytes())
}

type decompiler struct {
	q       *qmm.Quest
	c       *compiler // checks that readable forms compile back exactly
	b       strings.Builder
	names   []string        // parameter names
	sub     *subroutines    // the sub-routine structure written, nil for the flat form
	first   map[int32]int   // location id → index of the first location with it
	from    map[int32][]int // location id → indexes of the jumps from it
	natural bool            // jumps are grouped by source, in location order

	// what the compiler numbers a site or case without #id, #seq after
	lastSite int32
	lastJump int32
	lastSeq  int
	qms      bool  // #exact:qms
	seq      []int // jump index → its place among the jumps written
	crlf     bool  // text lines end with \r\n (#newline:crlf)
	end      bool  // and the last line too (#newline:…:end)
}

var identRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// paramNames names the parameters: by their editor name when it is an identifier no other
// parameter takes (so that the source needs no #title), else p1…pN.
func paramNames(q *qmm.Quest, sub *subroutines) []string {
	names := make([]string, len(q.Params))
	count := map[string]int{}
	ok := func(i int) bool {
		n := q.Params[i].Name
		return identRE.MatchString(n) && !pnameRE.MatchString(n) && !strings.EqualFold(n, stackVar)
	}
	for i := range q.Params {
		if ok(i) {
			count[strings.ToLower(q.Params[i].Name)]++
		}
	}
	for i := range q.Params {
		names[i] = varName(i)
		if ok(i) && count[strings.ToLower(q.Params[i].Name)] == 1 {
			names[i] = q.Params[i].Name
		}
	}
	if sub != nil {
		names[sub.param] = stackVar
	}
	return names
}

var pnameRE = regexp.MustCompile(`^[pP]\d+$`)

func varName(i int) string { return "p" + strconv.Itoa(i+1) }

func siteName(id int32) string { return "L" + strconv.Itoa(int(id)) }

func (d *decompiler) f(format string, args ...any) { fmt.Fprintf(&d.b, format, args...) }

func (d *decompiler) write() {
	q := d.q
	d.first = make(map[int32]int)
	for i := range q.Locations {
		if _, ok := d.first[q.Locations[i].ID]; !ok {
			d.first[q.Locations[i].ID] = i
		}
	}
	d.from = make(map[int32][]int)
	d.natural = true
	last := -1
	for k := range q.Jumps {
		id := q.Jumps[k].From
		d.from[id] = append(d.from[id], k)
		i, ok := d.first[id]
		if !ok {
			continue
		}
		if i < last {
			d.natural = false
		}
		last = i
	}
	d.lastSeq = -1
	orphans := 0 // jumps from no location: the player never offers them, the source leaves them out
	d.seq = make([]int, len(q.Jumps))
	for k := range q.Jumps {
		d.seq[k] = k - orphans
		if _, ok := d.first[q.Jumps[k].From]; !ok {
			orphans++
		}
	}
	d.f("// Quest: %d parameters, %d locations, %d jumps.\n", len(q.Params), len(q.Locations), len(q.Jumps)-orphans)
	if orphans > 0 {
		d.f("// Left out: %d jumps from no location.\n", orphans)
	}
	if d.qms {
		d.f("#exact:qms\n")
	} else {
		d.f("#exact\n")
	}
	d.header()
	if q.TaskText != "Описание задания" {
		d.f("\n#intro\n")
		d.block(q.TaskText)
	}
	if q.SuccessText != "Описание поздравления" {
		d.f("\n#congratulation\n")
		d.block(q.SuccessText)
	}
	if len(q.Params) > 0 {
		d.f("\n")
	}
	for i := range q.Params {
		if d.sub != nil && i == d.sub.param && !d.sub.declare {
			continue
		}
		d.param(i)
	}
	for i := range q.Locations {
		d.f("\n")
		d.location(i)
	}
	d.f("\n")
	for i := range q.Locations {
		l := &q.Locations[i]
		d.f("#position:%s:%d:%d\n", siteName(l.ID), l.X, l.Y)
	}
}

func (d *decompiler) header() {
	q := d.q
	if q.Magic != qmm.MagicQMM7 {
		d.f("#quest:magic %q\n", q.Magic.String())
	}
	if q.MajorVersion != 1 || q.MinorVersion != 0 {
		d.f("#quest:version \"%d.%d\"\n", q.MajorVersion, q.MinorVersion)
	}
	if q.ChangeLog.Valid {
		d.f("#quest:changelog %s\n", quote(q.ChangeLog.Value))
	}
	num := func(name string, v, def int64) {
		if v != def {
			d.f("#quest:%s \"%d\"\n", name, v)
		}
	}
	num("givingRace", int64(q.GivingRace), 31)
	num("whenDone", int64(q.WhenDone), 1)
	num("planetRace", int64(q.PlanetRace), 64)
	num("playerCareer", int64(q.PlayerCareer), 7)
	num("playerRace", int64(q.PlayerRace), 31)
	num("reputation", int64(q.ReputationChange), 1)
	num("screenX", int64(q.ScreenSizeX), 1920)
	num("screenY", int64(q.ScreenSizeY), 1009)
	num("width", int64(q.WidthSize), 30)
	num("height", int64(q.HeightSize), 24)
	num("jumpLimit", int64(q.DefaultJumpCountLimit), 0)
	num("hardness", int64(q.Hardness), 50)
	str := func(name, v, def string) {
		if v != def {
			d.f("#quest:%s %s\n", name, quote(v))
		}
	}
	s := &q.Strings
	str("ToStar", s.ToStar, "<ToStar>")
	if s.Parsec.Valid {
		str("Parsec", s.Parsec.Value, "\x00")
	}
	if s.Artefact.Valid {
		str("Artefact", s.Artefact.Value, "\x00")
	}
	str("ToPlanet", s.ToPlanet, "<ToPlanet>")
	str("Date", s.Date, "<Date>")
	str("Money", s.Money, "<Money>")
	str("FromPlanet", s.FromPlanet, "<FromPlanet>")
	str("FromStar", s.FromStar, "<FromStar>")
	str("Ranger", s.Ranger, "<Ranger>")
}

func media(m qmm.Media) string {
	var s string
	if m.Image.Valid {
		s += " #image:" + quote(m.Image.Value)
	}
	if m.Sound.Valid {
		s += " #sound:" + quote(m.Sound.Value)
	}
	if m.Track.Valid {
		s += " #track:" + quote(m.Track.Value)
	}
	return s
}

var (
	clrRE       = regexp.MustCompile(`<clr>([^*<]+)<clrEnd>`)
	fixBackRE   = regexp.MustCompile(`<fix>([^^<]+)</fix>`)
	randRangeRE = regexp.MustCompile(`\[(\d+\.\.\d+)\]`)
)

// readableText writes a text in the language's markup. It cuts the text at {formulas} as the
// compiler does, and writes the formulas with $name for [pN].
func (d *decompiler) readableText(s string, param bool) string {
	var b strings.Builder
	for s != "" {
		i := strings.IndexByte(s, '{')
		j := -1
		if i >= 0 {
			j = strings.IndexByte(s[i:], '}')
		}
		if i < 0 || j < 2 {
			if i >= 0 && j == 1 {
				b.WriteString(d.readableMarkup(s[:i+2], param))
				s = s[i+2:]
				continue
			}
			b.WriteString(d.readableMarkup(s, param))
			break
		}
		b.WriteString(d.readableMarkup(s[:i], param))
		b.WriteString("{" + d.refs(s[i+1:i+j]) + "}")
		s = s[i+j+1:]
	}
	return b.String()
}

// refs writes [pN] as $name.
func (d *decompiler) refs(f string) string {
	if !strings.Contains(f, "[p") {
		return f
	}
	return replaceRefs(f, "p", func(_ byte, num, m string) string {
		n, err := strconv.Atoi(num)
		if err != nil || n < 1 || n > len(d.q.Params) {
			return m
		}
		return "$" + d.names[n-1]
	})
}

// readableMarkup writes the part of a text outside formulas: [pN] as $name, [dN] as @name,
// bold and fixed as *…* and ^…^, a star as \*. In a range text (param) the value <> is $.
func (d *decompiler) readableMarkup(s string, param bool) string {
	s = strings.ReplaceAll(s, "*", `\*`)
	if strings.Contains(s, "[") {
		s = d.markupRefs(s)
	}
	if strings.Contains(s, "<clr>") {
		s = clrRE.ReplaceAllString(s, "*$1*")
	}
	if strings.Contains(s, "<fix>") {
		s = fixBackRE.ReplaceAllString(s, "^$1^")
	}
	if param {
		s = strings.ReplaceAll(s, "<>", "$")
	}
	return s
}

// markupRefs writes [pN] as $name and [dN] as @name.
func (d *decompiler) markupRefs(s string) string {
	return replaceRefs(s, "pd", func(kind byte, num, m string) string {
		n, err := strconv.Atoi(num)
		if err != nil || n < 1 || n > len(d.q.Params) {
			return m
		}
		if kind == 'p' {
			return "$" + d.names[n-1]
		}
		return "@" + d.names[n-1]
	})
}

// replaceRefs replaces each [xN] of s (x one of kinds, N digits) with what f returns for x, N
// and the whole match.
func replaceRefs(s, kinds string, f func(kind byte, num, match string) string) string {
	var b strings.Builder
	last := 0
	for i := 0; i+3 < len(s); i++ {
		if s[i] != '[' || strings.IndexByte(kinds, s[i+1]) < 0 {
			continue
		}
		j := i + 2
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		if j == i+2 || j >= len(s) || s[j] != ']' {
			continue
		}
		b.WriteString(s[last:i])
		b.WriteString(f(s[i+1], s[i+2:j], s[i:j+1]))
		last = j + 1
		i = j
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// safeLine reports whether a line can be a text line of a block: the compiler must not take it
// for a directive, a change or a comment.
func safeLine(s string) bool {
	t := strings.TrimLeft(s, " \t")
	return !strings.HasPrefix(t, "#") && !(strings.HasPrefix(t, "$") && strings.Contains(t, "=")) &&
		!strings.Contains(s, "//") && !strings.ContainsAny(s, "\r\x00") && !strings.HasPrefix(s, "\ufeff")
}

// textLines returns the lines that give text in a block (readable unless plain), or false when
// the text cannot be written as lines: a line the compiler would read otherwise, or blank lines
// at the ends, which a block drops.
func (d *decompiler) textLines(text string, plain bool) ([]bodyLine, bool) {
	if strings.TrimSpace(text) == "" {
		return nil, false
	}
	crlf := strings.Contains(text, "\r\n")
	if crlf {
		if strings.Count(text, "\n") != strings.Count(text, "\r\n") {
			return nil, false // line breaks of both kinds
		}
		text = strings.ReplaceAll(text, "\r\n", "\n")
	}
	text, end := strings.CutSuffix(text, "\n")
	lines := strings.Split(text, "\n")
	if strings.TrimSpace(lines[0]) == "" || strings.TrimSpace(lines[len(lines)-1]) == "" {
		return nil, false
	}
	src := make([]bodyLine, len(lines))
	for i, l := range lines {
		if !plain {
			l = d.readableText(l, false)
		}
		if !safeLine(l) {
			l = `\` + l // a line that starts with # or $
			if !safeLine(l) || unescapeLine(l) == l {
				return nil, false
			}
		}
		src[i] = bodyLine{text: l, crlf: crlf, end: end}
	}
	return src, true
}

// text writes a text of a block as its lines when they compile back to it, else as #raw.
func (d *decompiler) text(text string, compile func(*body) string, plain bool) {
	if src, ok := d.textLines(text, plain); ok && compile(&body{lines: src, set: true}) == text {
		l := src[0]
		if l.end != d.end || (len(src) > 1 || l.end) && l.crlf != d.crlf {
			d.crlf, d.end = l.crlf, l.end
			mode := "lf"
			if l.crlf {
				mode = "crlf"
			}
			if l.end {
				mode += ":end"
			}
			d.f("#newline:%s\n", mode)
		}
		for _, l := range src {
			d.f("%s\n", l.text)
		}
		return
	}
	d.f("#raw:%s\n", quote(text))
}

// page writes a location text or a jump description.
func (d *decompiler) page(text string) {
	if text != "" {
		d.text(text, d.c.pageText, false)
	}
}

// block writes the intro or the congratulation.
func (d *decompiler) block(text string) { d.text(text, d.c.blockText, false) }

// quoted returns 'text' in readable form when it compiles back to text, else "text".
func (d *decompiler) quoted(text string, param bool) string {
	r := d.readableText(text, param)
	if !strings.ContainsAny(r, "'\n\r\x00") && !strings.Contains(r, "//") && r != "" && d.c.prepareText(r, param, pos{}) == text {
		return "'" + r + "'"
	}
	return quote(text)
}

// formula returns a formula in readable form ([pN] as $name, [a..b] as <a..b>) when it
// compiles back exactly.
func (d *decompiler) formula(f string) (string, bool) {
	r := d.refs(f)
	if strings.Contains(r, "..") {
		r = randRangeRE.ReplaceAllString(r, "<$1>")
	}
	if r == "" || strings.ContainsAny(r, "{}\"\n\r") || strings.Contains(r, "//") || strings.TrimSpace(r) != r {
		return "", false
	}
	n := len(d.c.warns)
	back := d.c.prepareFormula(r, pos{})
	if back != f || len(d.c.warns) != n {
		d.c.warns = d.c.warns[:n]
		return "", false
	}
	return r, true
}

func (d *decompiler) brace(f string) string {
	if r, ok := d.formula(f); ok {
		return "{" + r + "}"
	}
	return "{" + quote(f) + "}"
}

func (d *decompiler) param(i int) {
	p := &d.q.Params[i]
	name := d.names[i]
	d.f("#var:%s", name)
	if p.Min != 0 || p.Max != 1 {
		d.f(" #range:%d..%d", p.Min, p.Max)
	}
	start := "[" + strconv.Itoa(int(p.Min)) + "]"
	if d.qms {
		start = "0"
	}
	if p.Starting != start {
		if p.Starting != "" && !strings.ContainsAny(p.Starting, " \t\"'\r\n") && !strings.Contains(p.Starting, "//") {
			d.f(" #default:%s", p.Starting)
		} else {
			d.f(" #default:%s", quote(p.Starting))
		}
	}
	if p.IsMoney {
		d.f(" #money")
	}
	if !p.ShowWhenZero {
		d.f(" #nozero")
	}
	if !p.Active {
		d.f(" #inactive")
	}
	if p.Name != name {
		d.f(" #title:%s", quote(p.Name))
	}
	d.f("%s\n", media(p.Media))
	for _, r := range p.Ranges {
		d.f("  #text:%d..%d %s\n", r.From, r.To, d.quoted(r.Text, true))
	}
	defText, defCrit := p.CritText == defaultCritText(i+1), qmm.CritMin
	if d.qms {
		defText, defCrit = p.CritText == "", qmm.CritMax
	}
	if p.Type == qmm.ParamOrdinary && p.CritType == defCrit && defText {
		return
	}
	sign, bound := "-", p.Max
	if p.CritType == qmm.CritMin {
		sign, bound = "+", p.Min
	}
	d.f("  #message:%s%d", sign, bound)
	kind := map[qmm.ParamType]string{qmm.ParamFail: "lose", qmm.ParamWin: "win", qmm.ParamDeath: "death"}[p.Type]
	if kind != "" {
		d.f(" #%s", kind)
		if !defText && p.CritText != "" && !strings.ContainsAny(p.CritText, "'\n\r\x00") && !strings.Contains(p.CritText, "//") {
			d.f(":'%s'\n", p.CritText)
			return
		}
	}
	d.f("\n")
	if !defText {
		if p.CritText == "" {
			d.f("#raw:\"\"\n")
		} else {
			d.text(p.CritText, d.c.messageText, true)
		}
	}
}

// showLists returns the #show and #hide options of a list of changes.
func (d *decompiler) showLists(changes []qmm.ParamChange) string {
	var show, hide []string
	for _, ch := range changes {
		switch ch.Showing {
		case qmm.ShowingShow:
			show = append(show, d.names[ch.Param])
		case qmm.ShowingHide:
			hide = append(hide, d.names[ch.Param])
		}
	}
	s := ""
	if len(show) > 0 {
		s += " #show:" + strings.Join(show, ";")
	}
	if len(hide) > 0 {
		s += " #hide:" + strings.Join(hide, ";")
	}
	return s
}

// changes writes the value changes of a site or case, but for the change of the stack
// parameter a call makes (skip).
func (d *decompiler) changes(changes []qmm.ParamChange, skip int) {
	for _, ch := range changes {
		if int(ch.Param) == skip {
			continue
		}
		name := d.names[ch.Param]
		switch ch.Kind() {
		case qmm.ChangeFormula:
			if r, ok := d.formula(ch.Formula); ok && !strings.HasPrefix(r, "\"") {
				d.f("$%s=%s\n", name, r)
			} else {
				d.f("$%s=%s\n", name, quote(ch.Formula))
			}
		case qmm.ChangeValue:
			d.f("$%s:=%d\n", name, ch.Change)
		case qmm.ChangePercentage:
			d.f("$%s%%=%d\n", name, ch.Change)
		default:
			if ch.Change != 0 {
				d.f("$%s+=%d\n", name, ch.Change)
			}
		}
		if ch.CritText != "" || !ch.Media.IsZero() {
			d.f("#crit:%s %s%s\n", name, quote(ch.CritText), media(ch.Media))
		}
	}
}

func (d *decompiler) location(i int) {
	l := &d.q.Locations[i]
	d.f("#site:%s", siteName(l.ID))
	if l.ID != d.lastSite+1 {
		d.f(" #id:%d", l.ID)
	}
	d.lastSite = l.ID
	hasText := false
	for _, t := range l.Texts {
		hasText = hasText || t.Text != ""
	}
	empty, notEmpty := false, !l.IsEmpty
	if d.qms {
		// A location is empty when it has no text.
		empty, notEmpty = l.IsEmpty && hasText, !l.IsEmpty && !hasText
	}
	for _, f := range []struct {
		on   bool
		name string
	}{{l.IsStarting, "default"}, {l.IsSuccess, "win"}, {l.IsFail, "lose"}, {l.IsDeadly, "death"}, {empty, "empty"}, {notEmpty, "empty:off"}, {l.DayPassed, "day"}} {
		if f.on {
			d.f(" #%s", f.name)
		}
	}
	if l.MaxVisits != 0 {
		d.f(" #visits:%d", l.MaxVisits)
	}
	pages := 1 // what the compiler gives: up to the last page written, at least one
	if d.qms {
		pages = 0
	}
	for k, t := range l.Texts {
		if t.Text != "" || !t.Media.IsZero() {
			pages = max(pages, k+1)
		}
	}
	if len(l.Texts) != pages {
		d.f(" #pages:%d", len(l.Texts))
	}
	if l.TextByFormula {
		d.f(" %s", d.brace(l.TextSelectFormula))
	}
	d.f("%s\n", d.showLists(l.Changes))
	if d.sub != nil && d.sub.returns[l.ID] && d.first[l.ID] == i {
		// The cases back are numbered after the site's own cases unless #id says otherwise.
		own, back := d.lastJump, int32(-1)
		for _, k := range d.from[l.ID] {
			switch {
			case !d.sub.backs[k]:
				own = d.q.Jumps[k].ID
			case back < 0:
				back = d.q.Jumps[k].ID
			}
		}
		if back != own+1 {
			d.f("#return #id:%d\n", back)
		} else {
			d.f("#return\n")
		}
	}
	for k, t := range l.Texts {
		if t.Text == "" && t.Media.IsZero() {
			continue
		}
		if k > 0 || !t.Media.IsZero() {
			d.f("#page:%d%s\n", k+1, media(t.Media))
		}
		d.page(t.Text)
	}
	d.changes(l.Changes, -1)
	if d.first[l.ID] != i {
		return
	}
	for _, k := range d.from[l.ID] {
		if d.sub != nil && d.sub.backs[k] {
			continue // the compiler makes the cases back from a sub-routine
		}
		d.jump(k, &d.q.Jumps[k])
	}
}

func (d *decompiler) jump(k int, j *qmm.Jump) {
	d.f("#case:%s", siteName(j.To))
	if j.ID != d.lastJump+1 {
		d.f(" #id:%d", j.ID)
	}
	d.lastJump = j.ID
	ret, skip := int32(0), -1
	if d.sub != nil {
		if t, ok := d.sub.calls[k]; ok {
			ret, skip = t, d.sub.param
		}
	}
	if ret != 0 {
		d.f(" #return:%s", siteName(ret))
	}
	if j.Text != "" {
		d.f(" %s", d.quoted(j.Text, false))
	}
	if j.FormulaToPass != "" {
		d.f(" %s", d.brace(j.FormulaToPass))
	}
	if j.ShowingOrder != 5 {
		d.f(" #order:%d", j.ShowingOrder)
	}
	if j.Priority != 1 {
		d.f(" #priority:%s", strconv.FormatFloat(j.Priority, 'g', -1, 64))
	}
	if j.DayPassed {
		d.f(" #day")
	}
	if j.AlwaysShow {
		d.f(" #always")
	}
	if j.CountLimit != 0 {
		d.f(" #count:%d", j.CountLimit)
	}
	if seq := d.seq[k]; seq != d.lastSeq+1 && d.sub == nil {
		d.f(" #seq:%d", seq)
	}
	d.lastSeq = d.seq[k]
	d.f("%s%s\n", d.showLists(j.Changes), media(j.Media))
	for _, c := range j.Conditions {
		if int(c.Param) >= len(d.q.Params) || trivialCond(d.q, c) {
			continue
		}
		d.f("  #cond:%s:%d..%d", d.names[c.Param], c.MustFrom, c.MustTo)
		list := func(on bool, yes, no string, vals []int32) {
			if len(vals) == 0 {
				return // an empty list imposes nothing
			}
			kind := no
			if on {
				kind = yes
			}
			s := make([]string, len(vals))
			for i, v := range vals {
				s[i] = strconv.Itoa(int(v))
			}
			d.f(":%s:%s", kind, strings.Join(s, ";"))
		}
		list(c.MustEqual, "eq", "ne", c.MustEqualValues)
		list(c.MustMod, "mod", "nmod", c.MustModValues)
		d.f("\n")
	}
	d.page(j.Description)
	d.changes(j.Changes, skip)
}

// quote writes s as a Go string literal that holds no "//", which would start a comment.
func quote(s string) string {
	return strings.ReplaceAll(strconv.Quote(s), "//", `/\x2f`)
}
