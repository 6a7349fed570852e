package qms

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/questbot/questbot/qmm"
)

// Decompile writes q as source. The source is in exact form (#exact): compiling it gives back
// q as the player sees it: the same parameters, locations and jumps with their ids, order,
// texts, media, conditions and changes, and the same header. Texts, formulas and starting
// values are written in the language's readable form when that form compiles back to exactly
// the same string, and literally ("…" with Go escapes, or #raw lines) otherwise.
func Decompile(q *qmm.Quest) []byte {
	d := &decompiler{q: q, c: newCompiler(nil)}
	for i := range q.Params {
		d.c.vars = append(d.c.vars, &variable{name: varName(i), id: i + 1, order: i + 1})
	}
	d.c.vid = len(q.Params)
	d.c.exact = true
	d.write()
	return []byte(d.b.String())
}

type decompiler struct {
	q       *qmm.Quest
	c       *compiler // checks that readable forms compile back exactly
	b       strings.Builder
	first   map[int32]int   // location id → index of the first location with it
	from    map[int32][]int // location id → indexes of the jumps from it
	natural bool            // jumps are grouped by source, in location order
}

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
	d.f("// Quest: %d parameters, %d locations, %d jumps.\n#exact\n", len(q.Params), len(q.Locations), len(q.Jumps))
	d.header()
	if q.TaskText != "Описание задания" {
		d.f("#intro\n")
		d.block(q.TaskText)
	}
	if q.SuccessText != "Описание поздравления" {
		d.f("#congratulation\n")
		d.block(q.SuccessText)
	}
	for i := range q.Params {
		d.param(i)
	}
	for i := range q.Locations {
		// A blank line after the intro would belong to its text.
		if i > 0 || len(q.Params) > 0 {
			d.f("\n")
		}
		d.location(i)
	}
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
	paramRefRE   = regexp.MustCompile(`\[([pd])(\d+)\]`)
	clrRE        = regexp.MustCompile(`<clr>([^*<]+)<clrEnd>`)
	fixBackRE    = regexp.MustCompile(`<fix>([^^<]+)</fix>`)
	formulaRefRE = regexp.MustCompile(`\[p(\d+)\]`)
)

// readableText writes a text in the language's markup: [pN] as $pN, [dN] as @pN, bold and
// fixed as *…* and ^…^, a star as \*. In a range text (param) the value <> is $.
func (d *decompiler) readableText(s string, param bool) string {
	s = strings.ReplaceAll(s, "*", `\*`)
	s = paramRefRE.ReplaceAllStringFunc(s, func(m string) string {
		sub := paramRefRE.FindStringSubmatch(m)
		n, err := strconv.Atoi(sub[2])
		if err != nil || n < 1 || n > len(d.q.Params) {
			return m
		}
		if sub[1] == "p" {
			return "$" + varName(n-1)
		}
		return "@" + varName(n-1)
	})
	s = clrRE.ReplaceAllString(s, "*$1*")
	s = fixBackRE.ReplaceAllString(s, "^$1^")
	if param {
		s = strings.ReplaceAll(s, "<>", "$")
	}
	return s
}

// safeLine reports whether a line can be a text line of a block: the compiler must not take it
// for a directive, a change or a comment.
func safeLine(s string) bool {
	t := strings.TrimLeft(s, " \t")
	return !strings.HasPrefix(t, "#") && !(strings.HasPrefix(t, "$") && strings.Contains(t, "=")) &&
		!strings.Contains(s, "//") && !strings.ContainsAny(s, "\r\x00") && !strings.HasPrefix(s, "\ufeff")
}

// page writes a location text or a jump description.
func (d *decompiler) page(text string) {
	if text == "" {
		return
	}
	if strings.HasSuffix(text, "\n") && !strings.HasPrefix(text, "\n") {
		lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
		ok := true
		src := make([]bodyLine, len(lines))
		for i, l := range lines {
			r := d.readableText(l, false)
			if !safeLine(r) {
				ok = false
				break
			}
			src[i] = bodyLine{text: r}
		}
		if ok && d.c.pageText(&body{lines: src}) == text {
			for _, l := range src {
				d.f("%s\n", l.text)
			}
			return
		}
	}
	d.f("#raw:%s\n", quote(text))
}

// block writes the intro or the congratulation.
func (d *decompiler) block(text string) {
	lines := strings.Split(text, "\n")
	src := make([]bodyLine, len(lines))
	ok := text != "" && lines[0] != ""
	for i, l := range lines {
		if !ok {
			break
		}
		r := d.readableText(l, false)
		if !safeLine(r) {
			ok = false
		}
		src[i] = bodyLine{text: r}
	}
	if ok && d.c.blockText(&body{lines: src, set: true}) == text {
		for _, l := range src {
			d.f("%s\n", l.text)
		}
		return
	}
	d.f("#raw:%s\n", quote(text))
}

// quoted returns 'text' in readable form when it compiles back to text, else "text".
func (d *decompiler) quoted(text string, param bool) string {
	r := d.readableText(text, param)
	if !strings.ContainsAny(r, "'\n\r\x00") && !strings.Contains(r, "//") && r != "" && d.c.prepareText(r, param, pos{}) == text {
		return "'" + r + "'"
	}
	return quote(text)
}

// formula returns a formula in readable form ([pN] as $pN) when it compiles back exactly.
func (d *decompiler) formula(f string) (string, bool) {
	r := formulaRefRE.ReplaceAllStringFunc(f, func(m string) string {
		n, err := strconv.Atoi(m[2 : len(m)-1])
		if err != nil || n < 1 || n > len(d.q.Params) {
			return m
		}
		return "$" + varName(n-1)
	})
	if r == "" || strings.ContainsAny(r, "{}\"\n\r") || strings.Contains(r, "//") || strings.TrimSpace(r) != r {
		return "", false
	}
	n := len(d.c.warns)
	back := d.c.prepareFormula(r, pos{})
	if back != f || len(d.c.warns) != n {
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
	name := varName(i)
	d.f("#var:%s #range:%d..%d", name, p.Min, p.Max)
	if p.Starting != "" && !strings.ContainsAny(p.Starting, " \t\"'\r\n") && !strings.Contains(p.Starting, "//") {
		d.f(" #default:%s", p.Starting)
	} else {
		d.f(" #default:%s", quote(p.Starting))
	}
	d.f(" #order:%d", i+1)
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
	if p.Type != qmm.ParamOrdinary || p.CritType != qmm.CritMax || p.CritText != "" {
		sign, bound := "-", p.Max
		if p.CritType == qmm.CritMin {
			sign, bound = "+", p.Min
		}
		d.f("  #message:%s%d", sign, bound)
		kind := map[qmm.ParamType]string{qmm.ParamFail: "lose", qmm.ParamWin: "win", qmm.ParamDeath: "death"}[p.Type]
		if kind != "" {
			d.f(" #%s:%s\n", kind, quote(p.CritText))
		} else {
			d.f("\n")
			if p.CritText != "" {
				d.f("#raw:%s\n", quote(p.CritText))
			}
		}
	}
}

// showLists returns the #show and #hide options of a list of changes.
func showLists(changes []qmm.ParamChange) string {
	var show, hide []string
	for _, ch := range changes {
		switch ch.Showing {
		case qmm.ShowingShow:
			show = append(show, varName(int(ch.Param)))
		case qmm.ShowingHide:
			hide = append(hide, varName(int(ch.Param)))
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

// changes writes the value changes of a site or case.
func (d *decompiler) changes(changes []qmm.ParamChange) {
	for _, ch := range changes {
		name := varName(int(ch.Param))
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
	d.f("#site:%s #id:%d", siteName(l.ID), l.ID)
	for _, f := range []struct {
		on   bool
		name string
	}{{l.IsStarting, "default"}, {l.IsSuccess, "win"}, {l.IsFail, "lose"}, {l.IsDeadly, "death"}, {l.IsEmpty, "empty"}, {l.DayPassed, "day"}} {
		if f.on {
			d.f(" #%s", f.name)
		}
	}
	if l.MaxVisits != 0 {
		d.f(" #visits:%d", l.MaxVisits)
	}
	d.f(" #pages:%d", len(l.Texts))
	if l.TextByFormula {
		d.f(" %s", d.brace(l.TextSelectFormula))
	}
	d.f("%s\n", showLists(l.Changes))
	for k, t := range l.Texts {
		if t.Text == "" && t.Media.IsZero() {
			continue
		}
		d.f("#page:%d%s\n", k+1, media(t.Media))
		d.page(t.Text)
	}
	d.changes(l.Changes)
	if d.first[l.ID] != i {
		return
	}
	for _, k := range d.from[l.ID] {
		d.jump(k, &d.q.Jumps[k], d.natural)
	}
}

func (d *decompiler) jump(k int, j *qmm.Jump, natural bool) {
	d.f("#case:%s #id:%d", siteName(j.To), j.ID)
	if j.Text != "" {
		d.f(" %s", d.quoted(j.Text, false))
	}
	if j.FormulaToPass != "" {
		d.f(" %s", d.brace(j.FormulaToPass))
	}
	d.f(" #order:%d #priority:%s", j.ShowingOrder, strconv.FormatFloat(j.Priority, 'g', -1, 64))
	if j.DayPassed {
		d.f(" #day")
	}
	if j.AlwaysShow {
		d.f(" #always")
	}
	if j.CountLimit != 0 {
		d.f(" #count:%d", j.CountLimit)
	}
	if !natural {
		d.f(" #seq:%d", k)
	}
	d.f("%s%s\n", showLists(j.Changes), media(j.Media))
	for _, c := range j.Conditions {
		if int(c.Param) >= len(d.q.Params) {
			continue
		}
		d.f("  #cond:%s:%d..%d", varName(int(c.Param)), c.MustFrom, c.MustTo)
		list := func(on bool, yes, no string, vals []int32) {
			if !on && vals == nil {
				return
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
	d.changes(j.Changes)
}

// quote writes s as a Go string literal that holds no "//", which would start a comment.
func quote(s string) string {
	return strings.ReplaceAll(strconv.Quote(s), "//", `/\x2f`)
}
