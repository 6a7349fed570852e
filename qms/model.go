package qms

import (
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/questbot/questbot/qmm"
)

// noOrder is the order of a variable without #order: it is numbered when first used.
const noOrder = math.MaxInt32

// variable is a #var: a quest parameter.
type variable struct {
	name     string
	id       int // 1-based parameter number, 0 until numbered
	min, max int32
	def      string
	texts    []varText
	typ      qmm.ParamType
	crit     bool // #message given
	critMin  bool
	message  body
	show     bool
	hide     bool
	money    bool
	noZero   bool
	inactive bool
	order    int
	title    *string
	media    qmm.Media
	defSet   bool // #default given
	auto     bool // the stack variable the compiler creates for sub-routines
	p        pos
}

type varText struct {
	from, to int32
	text     string
	literal  bool
	p        pos
}

// body is a text made of lines: a location page, a jump description, the intro.
type body struct {
	lines []bodyLine
	set   bool // the block was opened (#intro) or given a literal text
	p     pos
}

type bodyLine struct {
	text    string
	literal bool // from #raw: taken as it is
	crlf    bool // exact form: the line ends with \r\n in the text (#newline:crlf)
	end     bool // exact form: a line break follows the last line too (#newline:…:end)
	p       pos
}

func (b *body) begin(p pos) {
	if !b.set {
		b.set, b.p = true, p
	}
}

// stmt is a parameter change: $name=formula, or one of the extensions $name:=N (set),
// $name+=N (add) and $name%=N (percentage).
type stmt struct {
	name    string
	kind    qmm.ChangeKind
	expr    string
	literal bool
	num     int32
	crit    *string
	media   qmm.Media
	p       pos
}

// condSpec is a jump's #cond on one parameter.
type condSpec struct {
	name string
	c    qmm.Condition
	p    pos
}

type page struct {
	num   int
	text  body
	image string
	media *qmm.Media // exact mode: the page's own media
	// explicit: opened by #page (an exact source keeps it even when empty)
	explicit bool
}

// site is a #site: a location.
type site struct {
	name       string
	id         int32
	num        int
	pages      []*page
	pageByNum  map[int]*page // the pages by number
	cases      []*kase
	spec       []string
	expr       string
	exprSet    bool
	stmts      []*stmt
	show, hide string
	isReturn   bool
	isDay      bool
	x, y       int32
	posSet     bool
	image      string
	visits     int32
	npages     int   // #pages, -1 when not given
	notEmpty   bool  // #empty:off (exact form)
	seqBase    int   // exact form: the #seq of the last case before the site
	lastJump   int32 // exact form: the id of the site's last case (or of the last before it)
	retID      int32 // exact form: #return #id:N, the id of the first case back
	retIDSet   bool
	idSet      bool
	p          pos
	loc        *qmm.Location
}

// kase is a #case: a jump from the site it is in.
type kase struct {
	from, to   string
	text       string
	textLit    bool
	desc       body
	stmts      []*stmt
	conds      []condSpec
	priority   float64
	order      int32
	expr       string
	exprLit    bool
	show, hide string
	ret        string
	isDay      bool
	always     bool
	cnt        int32
	id         int32
	idSet      bool
	back       bool // a case back from a sub-routine, which the compiler makes
	seq        int
	seqSet     bool
	media      qmm.Media
	p          pos
	jump       *qmm.Jump
}

var (
	rangeRE = regexp.MustCompile(`^(-?\d+)\.\.(-?\d+)$`)
	nameRE  = regexp.MustCompile(`^[A-Za-z0-9_]+$`)
)

// closeText ends the intro, congratulation or variable the text lines went to.
func (c *compiler) closeVar() {
	if c.curVar != nil {
		c.countParam(c.curVar.p)
		c.vars = append(c.vars, c.curVar)
		c.curVar = nil
	}
	if c.text == toIntro || c.text == toCongrat || c.text == toVar {
		c.text = toNothing
	}
}

func (c *compiler) closeCase() {
	if c.curCase != nil && c.cur != nil {
		c.countJump(c.curCase.p)
		c.cur.cases = append(c.cur.cases, c.curCase)
	}
	c.curCase = nil
	if c.text == toCase && c.cur != nil {
		c.text = toSite
	}
}

func (c *compiler) closeSite() {
	c.closeCase()
	if c.cur != nil {
		c.addSite(c.cur)
		c.cur = nil
	}
	if c.text == toSite || c.text == toCase {
		c.text = toNothing
	}
}

func (c *compiler) closeAll() {
	c.closeVar()
	c.closeSite()
	c.text = toNothing
}

func (c *compiler) openVar(head token, opts []token, p pos) {
	c.closeAll()
	if !nameRE.MatchString(head.arg) {
		c.warnf(p, "a name is letters, digits and _", "bad variable name %q", head.arg)
	}
	v := &variable{name: head.arg, min: 0, max: 1, def: "0", order: noOrder, p: p}
	if c.exact {
		// An exact source numbers its variables in the order it declares them.
		c.declared++
		v.order = c.declared
	}
	for _, t := range opts {
		tp := p
		tp.col += t.col - 1
		if t.kind != tokDirective {
			c.warnf(tp, "options of #var are #range, #default, #order, #money, #zero, #show, #hide", "unexpected %q in #var is ignored", t.arg)
			continue
		}
		switch t.name {
		case "show":
			v.show = true
		case "hide":
			v.hide = true
		case "zero":
			v.noZero = false
		case "nozero":
			v.noZero = true
		case "money":
			v.money = true
		case "inactive":
			v.inactive = true
		case "range":
			m := rangeRE.FindStringSubmatch(t.arg)
			if m == nil {
				c.warnf(tp, "write #range:MIN..MAX with whole numbers; the range is 0..0", "bad range %q", t.arg)
				v.min, v.max = 0, 0
				continue
			}
			v.min, v.max = atoi32(m[1]), atoi32(m[2])
		case "default":
			if t.arg == "" && !t.quoted {
				c.warnf(tp, "write #default:VALUE", "empty #default")
				continue
			}
			v.def, v.defSet = t.arg, true
		case "order":
			n, err := strconv.Atoi(t.arg)
			if err != nil || n < 0 {
				c.warnf(tp, "", "bad #order %q", t.arg)
				continue
			}
			v.order = n
		case "title":
			s := t.arg
			v.title = &s
		case "image", "sound", "track":
			setMedia(&v.media, t.name, t.arg)
		default:
			c.warnf(tp, "options of #var are #range, #default, #order, #money, #zero, #show, #hide", "unknown #var option #%s is ignored", t.name)
		}
	}
	c.curVar = v
	c.text = toVar
}

func atoi32(s string) int32 {
	n, err := strconv.ParseInt(s, 10, 32)
	if err != nil {
		if strings.HasPrefix(s, "-") {
			return math.MinInt32
		}
		return math.MaxInt32
	}
	return int32(n)
}

func (c *compiler) varText(head token, opts []token, p pos) {
	if c.curVar == nil || c.text != toVar {
		c.errorf(p, "#text gives a text of the #var above it", "#text outside a #var")
		return
	}
	m := rangeRE.FindStringSubmatch(head.arg)
	if m == nil {
		c.warnf(p, "write #text:FROM..TO 'text'; the line is ignored", "bad #text range %q", head.arg)
		return
	}
	t := varText{from: atoi32(m[1]), to: atoi32(m[2]), p: p}
	for _, o := range opts {
		switch o.kind {
		case tokSingle:
			t.text = o.arg
		case tokDouble:
			t.text, t.literal = o.arg, true
		default:
			c.warnf(p, "write #text:FROM..TO 'text'", "unexpected %q in #text", o.arg)
		}
	}
	c.curVar.texts = append(c.curVar.texts, t)
}

func (c *compiler) message(head token, opts []token, p pos) {
	v := c.curVar
	if v == nil || c.text != toVar {
		c.errorf(p, "#message gives the critical value of the #var above it", "#message outside a #var")
		return
	}
	a := head.arg
	if len(a) < 1 || (a[0] != '+' && a[0] != '-') {
		c.warnf(p, "write #message:+N (minimum is critical) or #message:-N (maximum); the line is ignored", "bad #message %q", a)
		return
	}
	v.crit, v.critMin = true, a[0] == '+'
	for _, o := range opts {
		if o.kind != tokDirective {
			c.warnf(p, "", "unexpected %q in #message", o.arg)
			continue
		}
		switch o.name {
		case "win":
			v.typ = qmm.ParamWin
		case "lose":
			v.typ = qmm.ParamFail
		case "death":
			v.typ = qmm.ParamDeath
		default:
			c.warnf(p, "#win, #lose or #death", "unknown #message option #%s", o.name)
			continue
		}
		if s, lit, ok := o.textArg(); ok {
			v.message.set = true
			v.message.lines = append(v.message.lines, bodyLine{text: s, literal: lit, p: p})
		}
	}
}

func (c *compiler) openSite(head token, opts []token, p pos) {
	c.closeAll()
	if head.arg == "" {
		c.errorf(p, "write #site:NAME", "site without a name")
	}
	s := c.siteByName(head.arg)
	if s == nil {
		c.countSite(p)
		s = &site{name: head.arg, id: int32(len(c.sites) + 1), num: 1, npages: -1, p: p}
		if c.exact {
			// An exact source numbers a site after the one before it.
			s.id = 1
			if n := len(c.sites); n > 0 {
				s.id = c.sites[n-1].id + 1
			}
			s.seqBase = c.lastSeq
		}
	}
	for _, t := range opts {
		tp := p
		tp.col += t.col - 1
		switch t.kind {
		case tokBrace:
			s.expr, s.exprSet = t.arg, true
			if t.quoted {
				s.expr = "\x00" + t.arg
			}
			continue
		case tokDirective:
		default:
			c.warnf(tp, "", "unexpected %q in #site", t.arg)
			continue
		}
		switch t.name {
		case "empty":
			if t.arg == "off" {
				s.notEmpty = true
				continue
			}
			s.spec = append(s.spec, t.name)
		case "default", "win", "lose", "death":
			s.spec = append(s.spec, t.name)
		case "show":
			s.show = t.arg
		case "hide":
			s.hide = t.arg
		case "image":
			s.image = t.arg
		case "day":
			s.isDay = true
		case "id":
			s.id, s.idSet = atoi32(t.arg), true
		case "visits":
			s.visits = atoi32(t.arg)
		case "pages":
			n, err := strconv.Atoi(t.arg)
			if err != nil || n < 0 || n > 10000 {
				c.warnf(tp, "write #pages:N", "bad #pages %q is ignored", t.arg)
				continue
			}
			s.npages = n
		default:
			c.warnf(tp, "", "unknown #site option #%s", t.name)
		}
	}
	c.cur = s
	c.text = toSite
}

func (c *compiler) openCase(head token, opts []token, p pos) {
	c.closeVar()
	c.closeCase()
	if c.cur == nil {
		c.errorf(p, "a #case is a choice of the #site above it", "#case outside a #site")
		return
	}
	k := &kase{from: c.cur.name, to: head.arg, priority: 1, order: 5, p: p}
	if c.exact {
		// In an exact source a case comes after the case before it in the quest's jump list.
		k.seq = c.lastSeq + 1
	}
	for _, t := range opts {
		tp := p
		tp.col += t.col - 1
		switch t.kind {
		case tokSingle:
			if t.arg != "" {
				k.text = t.arg
			}
			continue
		case tokDouble:
			k.text, k.textLit = t.arg, true
			continue
		case tokBrace:
			k.expr, k.exprLit = t.arg, t.quoted
			continue
		case tokWord:
			c.warnf(tp, "", "unexpected %q in #case", t.arg)
			continue
		}
		switch t.name {
		case "order":
			k.order = atoi32(t.arg)
		case "priority":
			f, err := strconv.ParseFloat(t.arg, 64)
			if err != nil {
				c.warnf(tp, "", "bad #priority %q", t.arg)
				f = 1
			}
			k.priority = f
		case "show":
			k.show = t.arg
		case "hide":
			k.hide = t.arg
		case "day":
			k.isDay = true
		case "always":
			k.always = true
		case "count":
			k.cnt = atoi32(t.arg)
		case "return":
			c.needStack()
			k.ret = t.arg
		case "id":
			k.id, k.idSet = atoi32(t.arg), true
		case "seq":
			n, _ := strconv.Atoi(t.arg)
			k.seq, k.seqSet = n, true
		case "image", "sound", "track":
			setMedia(&k.media, t.name, t.arg)
		default:
			c.warnf(tp, "", "unknown #case option #%s", t.name)
		}
	}
	if c.exact {
		c.lastSeq = k.seq
	}
	c.curCase = k
	c.text = toCase
}

// stackVar is the name of the variable that holds the return addresses of sub-routines.
const stackVar = "RRR"

// needStack creates the hidden variable that holds sub-routine return addresses.
func (c *compiler) needStack() {
	if c.rrr != nil {
		return
	}
	if c.exact {
		// An exact source may declare the stack variable itself, with its place and options.
		if v := c.varByName(stackVar); v != nil {
			c.rrr = v
			return
		}
	}
	c.countParam(pos{file: c.main, line: 1, col: 1})
	c.rrr = &variable{name: stackVar, min: 0, max: 100000000, def: "0", order: noOrder, auto: true}
	c.number(c.rrr, 1)
	c.vars = append(c.vars, c.rrr)
	c.vid = 1
}

func (c *compiler) returnSite(opts []token, p pos) {
	if c.cur == nil || c.curCase != nil {
		c.errorf(p, "#return marks the #site above it as the end of a sub-routine", "#return outside a #site")
		return
	}
	c.needStack()
	c.cur.isReturn = true
	for _, t := range opts {
		if t.kind == tokDirective && t.name == "id" {
			c.cur.retID, c.cur.retIDSet = atoi32(t.arg), true
			continue
		}
		c.warnf(p, "#return takes #id:N, the id of its first case back", "unexpected %q in #return", t.arg)
	}
}

func (c *compiler) page(head token, opts []token, p pos) {
	if c.cur == nil || c.curCase != nil {
		c.errorf(p, "#page starts a text of the #site above it, before its #case lines", "#page outside a #site")
		return
	}
	digits := head.arg
	for i, r := range digits {
		if r < '0' || r > '9' {
			digits = digits[:i]
			break
		}
	}
	n, err := strconv.Atoi(digits)
	if digits != head.arg {
		c.warnf(p, "", "page number %q read as %d", head.arg, n)
	}
	if err != nil || n < 1 || n > 10000 {
		c.errorf(p, "pages are numbered from 1", "bad page number %q", head.arg)
		return
	}
	c.cur.num = n
	var media *qmm.Media
	for _, t := range opts {
		if t.kind != tokDirective {
			c.warnf(p, "", "unexpected %q in #page", t.arg)
			continue
		}
		switch t.name {
		case "image":
			if t.quoted {
				if media == nil {
					media = &qmm.Media{}
				}
				media.Image = qmm.Some(t.arg)
			} else {
				c.cur.image = t.arg
			}
		case "sound", "track":
			if media == nil {
				media = &qmm.Media{}
			}
			setMedia(media, t.name, t.arg)
		default:
			c.warnf(p, "", "unknown #page option #%s", t.name)
		}
	}
	pg := c.getPage(c.cur, n)
	pg.explicit = true
	if media != nil {
		pg.media = media
	}
}

func (c *compiler) getPage(s *site, n int) *page {
	if pg := s.pageByNum[n]; pg != nil {
		return pg
	}
	pg := &page{num: n, image: s.image}
	s.pages = append(s.pages, pg)
	if s.pageByNum == nil {
		s.pageByNum = map[int]*page{}
	}
	s.pageByNum[n] = pg
	return pg
}

func (c *compiler) position(head token, p pos) {
	parts := strings.Split(head.arg, ":")
	if len(parts) != 3 {
		c.warnf(p, "write #position:SITE:X:Y", "bad #position is ignored")
		return
	}
	x, err1 := strconv.ParseInt(parts[1], 10, 32)
	y, err2 := strconv.ParseInt(parts[2], 10, 32)
	if err1 != nil || err2 != nil {
		c.warnf(p, "write #position:SITE:X:Y with whole numbers", "bad #position is ignored")
		return
	}
	c.closeAll()
	if s := c.siteByName(parts[0]); s != nil {
		s.x, s.y, s.posSet = int32(x), int32(y), true
		return
	}
	c.warnf(p, "#position places a #site defined above it", "no site %q", parts[0])
}

var stmtRE = regexp.MustCompile(`^\$([A-Za-z0-9_]+)\s*(=|:=|\+=|%=)\s*(.*)$`)

func (c *compiler) statement(l srcLine, col int) {
	p := at(l, col)
	m := stmtRE.FindStringSubmatch(strings.TrimSpace(l.text))
	if m == nil {
		c.warnf(p, "write $NAME = FORMULA", "bad parameter change is ignored")
		return
	}
	st := &stmt{name: m[1], p: p}
	val := strings.TrimSpace(m[3])
	switch m[2] {
	case "=":
		st.kind = qmm.ChangeFormula
		if strings.HasPrefix(val, "\"") {
			s, err := strconv.Unquote(val)
			if err != nil {
				c.errorf(p, "", "bad quoted formula")
				return
			}
			val, st.literal = s, true
		} else if val == "" {
			c.warnf(p, "write $NAME = FORMULA", "empty formula: the change is ignored")
			return
		}
		st.expr = val
	default:
		n, err := strconv.ParseInt(val, 10, 32)
		if err != nil {
			c.warnf(p, "the value is a whole number", "bad %s value %q", m[2], val)
			return
		}
		st.num = int32(n)
		st.kind = map[string]qmm.ChangeKind{":=": qmm.ChangeValue, "+=": qmm.ChangeAdd, "%=": qmm.ChangePercentage}[m[2]]
	}
	switch {
	case c.curCase != nil && c.text == toCase:
		c.curCase.stmts = append(c.curCase.stmts, st)
	case c.cur != nil && c.text == toSite:
		c.cur.stmts = append(c.cur.stmts, st)
	default:
		c.errorf(p, "a parameter change belongs to a #site or a #case", "parameter change outside a #site")
	}
}

// textLine adds a text line to where text goes now.
func (c *compiler) textLine(l srcLine, literal bool) {
	bl := bodyLine{text: l.text, literal: literal, crlf: c.crlf, end: c.endBreak, p: l.p}
	switch c.text {
	case toIntro:
		c.intro.lines = append(c.intro.lines, bl)
	case toCongrat:
		c.congrat.lines = append(c.congrat.lines, bl)
	case toSite:
		pg := c.getPage(c.cur, c.cur.num)
		pg.text.lines = append(pg.text.lines, bl)
	case toCase:
		c.curCase.desc.lines = append(c.curCase.desc.lines, bl)
	case toVar:
		if c.curVar.crit {
			c.curVar.message.lines = append(c.curVar.message.lines, bl)
			if literal || strings.TrimSpace(l.text) != "" {
				c.curVar.message.set = true
			}
		} else if strings.TrimSpace(l.text) != "" {
			c.warnf(l.p, "text under a #var is the message of its #message", "text in a #var without #message is ignored")
		}
	default:
		if strings.TrimSpace(l.text) != "" {
			c.warnf(l.p, "text belongs to a #site, #case, #intro or #congratulation", "text outside any block is ignored")
		}
	}
}

// rawLine is the extension #raw:"text": a piece of text taken exactly as written.
func (c *compiler) rawLine(head token, l srcLine, p pos) {
	if !head.quoted {
		c.errorf(p, `write #raw:"text" with Go escapes`, "bad #raw")
		return
	}
	if c.text == toIntro || c.text == toCongrat {
		b := &c.intro
		if c.text == toCongrat {
			b = &c.congrat
		}
		b.lines = append(b.lines, bodyLine{text: head.arg, literal: true, p: p})
		return
	}
	if c.text == toNothing {
		c.errorf(p, "", "#raw outside a block")
		return
	}
	c.textLine(srcLine{text: head.arg, p: p}, true)
}

// headerSet is one #quest:FIELD:VALUE.
type headerSet struct {
	field, value string
	p            pos
}

func (c *compiler) questField(head token, opts []token, p pos) {
	field := head.arg
	if len(opts) != 1 || (opts[0].kind != tokDouble && opts[0].kind != tokWord) {
		c.errorf(p, `write #quest:FIELD "value"`, "bad #quest")
		return
	}
	c.header = append(c.header, headerSet{field, opts[0].arg, p})
}

// condition is the extension #cond:NAME:FROM..TO[:eq:V;V…|:ne:…][:mod:V;V…|:nmod:…] under a
// #case: a condition on one parameter.
func (c *compiler) condition(head token, opts []token, p pos) {
	if c.curCase == nil || c.text != toCase {
		c.errorf(p, "#cond belongs to a #case", "#cond outside a #case")
		return
	}
	parts := strings.Split(head.arg, ":")
	m := rangeRE.FindStringSubmatch(get(parts, 1))
	if len(parts) < 2 || m == nil || len(parts)%2 != 0 {
		c.errorf(p, "write #cond:NAME:FROM..TO[:eq:1;2][:mod:3]", "bad #cond")
		return
	}
	cs := condSpec{name: parts[0], p: p}
	cs.c.MustFrom, cs.c.MustTo = atoi32(m[1]), atoi32(m[2])
	for i := 2; i+1 < len(parts); i += 2 {
		var vals []int32
		if parts[i+1] != "" {
			for _, v := range strings.Split(parts[i+1], ";") {
				n, err := strconv.ParseInt(v, 10, 32)
				if err != nil {
					c.errorf(p, "values are whole numbers", "bad #cond value %q", v)
					return
				}
				vals = append(vals, int32(n))
			}
		} else {
			vals = []int32{}
		}
		switch parts[i] {
		case "eq", "ne":
			cs.c.MustEqual, cs.c.MustEqualValues = parts[i] == "eq", vals
		case "mod", "nmod":
			cs.c.MustMod, cs.c.MustModValues = parts[i] == "mod", vals
		default:
			c.errorf(p, "eq, ne, mod or nmod", "bad #cond list kind %q", parts[i])
			return
		}
	}
	c.curCase.conds = append(c.curCase.conds, cs)
}

func get(s []string, i int) string {
	if i < len(s) {
		return s[i]
	}
	return ""
}

// changeCrit is the extension #crit:NAME "text" [#image:"x"…] after a change: the text (and
// media) shown when that change drives the parameter to its critical value.
func (c *compiler) changeCrit(head token, opts []token, p pos) {
	var list []*stmt
	switch {
	case c.curCase != nil && c.text == toCase:
		list = c.curCase.stmts
	case c.cur != nil && c.text == toSite:
		list = c.cur.stmts
	default:
		c.errorf(p, "#crit follows a parameter change", "#crit outside a #site or #case")
		return
	}
	var st *stmt
	for _, s := range list {
		if s.name == head.arg {
			st = s
		}
	}
	if st == nil {
		st = &stmt{name: head.arg, kind: qmm.ChangeAdd, p: p}
		if c.curCase != nil && c.text == toCase {
			c.curCase.stmts = append(c.curCase.stmts, st)
		} else {
			c.cur.stmts = append(c.cur.stmts, st)
		}
	}
	for _, o := range opts {
		switch {
		case o.kind == tokDouble:
			s := o.arg
			st.crit = &s
		case o.kind == tokDirective && (o.name == "image" || o.name == "sound" || o.name == "track"):
			setMedia(&st.media, o.name, o.arg)
		default:
			c.errorf(p, "", "unexpected %q in #crit", o.arg)
		}
	}
}

// setMedia sets the field of m that a media option names: #image, #sound or #track.
func setMedia(m *qmm.Media, name, arg string) {
	switch name {
	case "image":
		m.Image = qmm.Some(arg)
	case "sound":
		m.Sound = qmm.Some(arg)
	case "track":
		m.Track = qmm.Some(arg)
	}
}
