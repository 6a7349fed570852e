package qms

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/questbot/questbot/formula"
	"github.com/questbot/questbot/qmm"
)

// The automatic layout: sites without #position are placed on a grid of cols columns, row
// after row, turning back at each end.
const (
	layoutCols = 25
	layoutDX   = 64
	layoutDY   = 42
)

// build turns what the source declared into the quest.
func (c *compiler) build() *qmm.Quest {
	c.closeAll()
	slices.SortStableFunc(c.vars, func(a, b *variable) int {
		switch {
		case a.order < b.order:
			return -1
		case a.order > b.order:
			return 1
		}
		return 0
	})
	c.varsReordered()
	for _, v := range c.vars {
		if v.order < noOrder && v.id == 0 {
			c.vid++
			c.number(v, c.vid)
		}
	}
	c.sitesByID = nil
	for _, s := range c.sites {
		c.step(s.p)
		c.prepareLocation(s)
	}
	if c.exact {
		c.prepareJumpsExact()
	} else {
		for _, s := range c.sites {
			for _, k := range s.cases {
				if k.ret != "" {
					c.addReturns(k)
				}
			}
		}
		for _, s := range c.sites {
			for _, k := range s.cases {
				c.step(k.p)
				c.prepareJump(k)
			}
		}
	}
	q := &qmm.Quest{
		Magic: qmm.MagicQMM7, MajorVersion: 1, MinorVersion: 0,
		GivingRace: 31, WhenDone: 1, PlanetRace: 64, PlayerCareer: 7, PlayerRace: 31,
		ReputationChange: 1, ScreenSizeX: 1920, ScreenSizeY: 1009, WidthSize: 30, HeightSize: 24,
		Hardness: 50,
		Strings: qmm.Strings{ToStar: "<ToStar>", ToPlanet: "<ToPlanet>", Date: "<Date>", Money: "<Money>",
			FromPlanet: "<FromPlanet>", FromStar: "<FromStar>", Ranger: "<Ranger>"},
		TaskText:    "Описание задания",
		SuccessText: "Описание поздравления",
	}
	if c.intro.set {
		if t := c.blockText(&c.intro); t != "" || c.exact {
			q.TaskText = t
		}
	}
	if c.congrat.set {
		if t := c.blockText(&c.congrat); t != "" || c.exact {
			q.SuccessText = t
		}
	}
	for i := 1; i <= c.vid; i++ {
		v := c.varByID(i)
		if v == nil {
			break
		}
		q.Params = append(q.Params, c.param(v))
	}
	c.applyHeader(q)
	if c.exact {
		c.placeExact(q)
	} else {
		c.place(q)
	}
	c.check(q)
	return q
}

func (c *compiler) param(v *variable) qmm.Param {
	p := qmm.Param{Min: v.min, Max: v.max, Name: v.name, Starting: v.def, IsMoney: v.money,
		Active: !v.inactive, ShowWhenZero: !v.noZero, Media: v.media}
	if _, err := formula.Parse(v.def); err != nil && !c.exact {
		c.warnf(v.p, "the starting value is a formula", "bad #default %q: the variable starts at its minimum", v.def)
		p.Starting = strconv.Itoa(int(v.min))
	}
	if v.title != nil {
		p.Name = *v.title
	}
	exact := c.exact && !v.auto && !c.qmsDefaults
	if exact && !v.defSet {
		p.Starting = "[" + strconv.Itoa(int(v.min)) + "]"
	}
	if v.crit {
		p.Type = v.typ
		if v.critMin {
			p.CritType = qmm.CritMin
		}
		p.CritText = c.messageText(&v.message)
	} else if exact {
		p.CritType = qmm.CritMin
	}
	if exact && !v.message.set {
		p.CritText = defaultCritText(v.id)
	}
	for _, t := range v.texts {
		s := t.text
		if !t.literal {
			s = c.prepareText(s, true, t.p)
		}
		p.Ranges = append(p.Ranges, qmm.ParamRange{From: t.from, To: t.to, Text: s})
	}
	return p
}

// defaultCritText is the critical message the quest editor gives parameter number n: the
// default of an exact source.
func defaultCritText(n int) string {
	return "Сообщение достижения критического значения параметром " + strconv.Itoa(n)
}

func (c *compiler) prepareLocation(s *site) {
	l := &qmm.Location{ID: s.id, DayPassed: s.isDay, IsEmpty: true, MaxVisits: s.visits}
	s.loc = l
	empty := true
	for _, pg := range s.pages {
		t := c.pageText(&pg.text)
		if t == "" && pg.media == nil && (!c.exact || !pg.explicit) {
			continue
		}
		for len(l.Texts) < pg.num {
			c.spend(structCost, s.p)
			l.Texts = append(l.Texts, qmm.LocationText{})
		}
		l.Texts[pg.num-1].Text = t
		if t != "" {
			empty = false
		}
		if pg.media != nil {
			l.Texts[pg.num-1].Media = *pg.media
		} else if pg.image != "" && t != "" {
			l.Texts[pg.num-1].Media = qmm.Media{Image: qmm.Some(pg.image)}
		}
	}
	npages := s.npages
	if c.exact && !c.qmsDefaults && npages < 0 {
		npages = 1 // an exact location has one text unless #pages says otherwise
	}
	for len(l.Texts) < npages {
		c.spend(structCost, s.p)
		l.Texts = append(l.Texts, qmm.LocationText{})
	}
	for _, spec := range s.spec {
		switch spec {
		case "default":
			l.IsStarting = true
		case "win":
			l.IsSuccess = true
		case "lose":
			l.IsFail = true
		case "death":
			l.IsDeadly = true
		}
	}
	switch {
	case c.exact && c.qmsDefaults:
		l.IsEmpty = empty && !s.notEmpty || slices.Contains(s.spec, "empty")
	case c.exact:
		l.IsEmpty = !s.notEmpty
	case !empty && c.compat != compatOff:
		l.IsEmpty = false
	}
	if empty && c.compat == compatDebug && !c.exact {
		if len(l.Texts) == 0 {
			l.Texts = append(l.Texts, qmm.LocationText{})
		}
		l.Texts[0].Text = s.name
	}
	if s.exprSet {
		l.TextByFormula = true
		l.TextSelectFormula = c.prepareFormula(s.expr, s.p)
	}
	for _, st := range s.stmts {
		c.prepareStmt(st)
	}
}

func (c *compiler) prepareStmt(st *stmt) {
	if st.kind == qmm.ChangeFormula && !st.literal {
		st.expr = c.prepareFormula(st.expr, st.p)
		st.literal = true
	}
}

// addReturns compiles a call of a sub-routine: the case pushes its return site on the stack
// variable, and every #return site the sub-routine reaches gets a case back to the return site
// when it is on top of the stack, popping it.
func (c *compiler) addReturns(k *kase) {
	t := c.siteByName(k.ret)
	s := c.siteByName(k.to)
	if t == nil || s == nil {
		if t == nil {
			c.warnf(k.p, "#return names the site to come back to; the call is left out", "no site %q", k.ret)
		}
		return
	}
	seen := map[int32]bool{s.id: true}
	queue := []*site{s}
	for i := 0; i < len(queue); i++ {
		g := queue[i]
		if g.isReturn {
			c.countJump(k.p)
			back := &kase{from: g.name, to: k.ret, priority: 1, order: 5, p: k.p, back: true,
				expr: fmt.Sprintf("($RRR mod 256)=%d", t.id)}
			back.stmts = append(back.stmts, &stmt{name: "RRR", kind: qmm.ChangeFormula, expr: "$RRR div 256", p: k.p})
			// In an exact source the case back follows the return site's cases.
			back.seq = g.seqBase
			if n := len(g.cases); n > 0 {
				back.seq = g.cases[n-1].seq
			}
			g.cases = append(g.cases, back)
		}
		for _, cs := range g.cases {
			c.step(k.p) // a walk for each call: the calls times the sites they reach
			n := c.siteByName(cs.to)
			if n == nil || seen[n.id] {
				continue
			}
			seen[n.id] = true
			queue = append(queue, n)
		}
	}
	k.stmts = append(k.stmts, &stmt{name: "RRR", kind: qmm.ChangeFormula, expr: fmt.Sprintf("$RRR*256+%d", t.id), p: k.p})
}

// prepareJumpsExact prepares the cases of an exact source. The cases written are numbered
// first, in source order; then the calls of sub-routines, in the order of their ids, make the
// cases back, which each return site numbers after its own cases (or from its #return #id:N).
func (c *compiler) prepareJumpsExact() {
	seen := map[*site]bool{}
	var sites []*site
	for _, s := range c.sites {
		if !seen[s] {
			seen[s] = true
			sites = append(sites, s)
		}
	}
	var calls []*kase
	for _, s := range sites {
		for _, k := range s.cases {
			c.prepareJump(k)
			if k.ret != "" && k.jump != nil {
				calls = append(calls, k)
			}
		}
		s.lastJump = c.jid
	}
	slices.SortStableFunc(calls, func(a, b *kase) int { return int(a.jump.ID) - int(b.jump.ID) })
	for _, k := range calls {
		c.addReturns(k)
		for _, st := range k.stmts {
			c.prepareStmt(st)
		}
	}
	for _, s := range sites {
		id := s.lastJump
		if s.retIDSet {
			id = s.retID - 1
		}
		for _, k := range s.cases {
			if k.back {
				id++
				k.id, k.idSet = id, true
				c.prepareJump(k)
			}
		}
	}
}

func (c *compiler) prepareJump(k *kase) {
	f := c.siteByName(k.from)
	t := c.siteByName(k.to)
	if f == nil || t == nil {
		if t == nil {
			c.warnf(k.p, "a #case leads to a #site of the quest; the case is left out", "no site %q", k.to)
		}
		return
	}
	text := k.text
	if text != "" && !k.textLit {
		text = c.prepareText(text, false, k.p)
	}
	desc := c.pageText(&k.desc)
	c.jid++
	id := c.jid
	if k.idSet {
		id = k.id
	}
	if c.exact {
		// An exact source numbers a case after the case before it.
		c.jid = id
	}
	j := &qmm.Jump{ID: id, From: f.id, To: t.id, Text: text, Description: desc, DayPassed: k.isDay,
		CountLimit: k.cnt, Priority: k.priority, ShowingOrder: k.order, AlwaysShow: k.always, Media: k.media}
	for _, st := range k.stmts {
		c.prepareStmt(st)
	}
	if k.expr != "" {
		if k.exprLit {
			j.FormulaToPass = k.expr
		} else {
			j.FormulaToPass = c.prepareFormula(k.expr, k.p)
		}
	}
	k.jump = j
}

// changes builds the sparse parameter changes of a site or case.
func (c *compiler) changes(q *qmm.Quest, stmts []*stmt, show, hide string, p pos) []qmm.ParamChange {
	var out []qmm.ParamChange
	for _, name := range strings.Split(show+";"+hide, ";") {
		if name != "" && c.varByName(name) == nil {
			c.warnf(p, "#show and #hide list variables, separated by ;", "unknown variable %q", name)
		}
	}
	seen := map[string]bool{}
	for _, st := range stmts {
		if c.varByName(st.name) == nil {
			c.warnf(st.p, "declare it with #var; the change is left out", "unknown variable $%s", st.name)
		} else if seen[st.name] {
			c.warnf(st.p, "a site or case changes a variable once; the first change is kept", "second change of $%s is ignored", st.name)
		}
		seen[st.name] = true
	}
	if len(stmts) == 0 && show == "" && hide == "" {
		return nil
	}
	// The parameters named, in parameter order.
	if c.idsByName == nil {
		c.idsByName = map[string][]int{}
		for _, v := range c.vars {
			if v.id > 0 && v.id <= len(q.Params) {
				c.idsByName[v.name] = append(c.idsByName[v.name], v.id)
			}
		}
	}
	var ids []int
	shown, hidden := map[string]bool{}, map[string]bool{}
	for _, name := range strings.Split(show, ";") {
		shown[name] = true
		ids = append(ids, c.idsByName[name]...)
	}
	for _, name := range strings.Split(hide, ";") {
		hidden[name] = true
		ids = append(ids, c.idsByName[name]...)
	}
	first := map[string]*stmt{} // the change of each variable that counts: its first
	for _, st := range stmts {
		if first[st.name] == nil {
			first[st.name] = st
		}
		ids = append(ids, c.idsByName[st.name]...)
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	for _, id := range ids {
		c.step(p)
		c.spend(structCost, p)
		i := id - 1
		v := c.varByID(id)
		ch := qmm.ParamChange{Param: int32(i)}
		switch {
		case shown[v.name]:
			ch.Showing = qmm.ShowingShow
		case hidden[v.name]:
			ch.Showing = qmm.ShowingHide
		}
		if st := first[v.name]; st != nil {
			switch st.kind {
			case qmm.ChangeFormula:
				ch.IsFormula, ch.Formula = true, st.expr
			case qmm.ChangeValue:
				ch.IsValue, ch.Change = true, st.num
			case qmm.ChangePercentage:
				ch.IsPercentage, ch.Change = true, st.num
			default:
				ch.Change = st.num
			}
			if st.crit != nil {
				ch.CritText = *st.crit
			}
			ch.Media = st.media
		}
		if !ch.IsDefault() {
			out = append(out, ch)
		}
	}
	return out
}

// place orders the locations as the original does: the starting sites, then the sites their
// cases reach, breadth first; a site no start reaches is left out. Sites without #position
// are laid out automatically in that order.
func (c *compiler) place(q *qmm.Quest) {
	var order []int32
	placed := map[int32]bool{} // the ids in order
	index := map[int32][]int{} // the places in q.Locations of each location id
	for _, s := range c.sites {
		if s.loc != nil && s.loc.IsStarting {
			order = append(order, s.id)
			placed[s.id] = true
		}
	}
	if len(order) == 0 && len(c.sites) > 0 {
		s := c.sites[0]
		c.warnf(s.p, "mark the starting site with #default", "no starting site: the quest starts at the first site, %s", s.name)
		s.loc.IsStarting = true
		order = append(order, s.id)
		placed[s.id] = true
	}
	// What the starting sites show and hide of the variables, once for all of them.
	var startShow, startHide strings.Builder
	for _, v := range c.vars {
		if v.id == 0 {
			continue
		}
		if v.show {
			startShow.WriteString(";" + v.name)
		}
		if v.hide {
			startHide.WriteString(";" + v.name)
		}
	}
	ix, iy, inc := 0, 0, 1
	for i := 0; i < len(order); i++ {
		c.step(pos{file: c.main, line: 1, col: 1})
		s := c.siteByID(order[i])
		if s == nil || s.loc == nil {
			continue
		}
		l := s.loc
		if s.posSet {
			l.X, l.Y = s.x, s.y
		} else {
			l.X, l.Y = int32(ix*layoutDX+32), int32(iy*layoutDY+63)
			ix += inc
			if ix >= layoutCols {
				iy, inc, ix = iy+1, -1, ix-1
			}
			if ix < 0 {
				iy, inc, ix = iy+1, 1, ix+1
			}
		}
		show, hide := s.show, s.hide
		if l.IsStarting {
			show += startShow.String()
			hide += startHide.String()
		}
		l.Changes = c.changes(q, s.stmts, show, hide, s.p)
		index[l.ID] = append(index[l.ID], len(q.Locations))
		q.Locations = append(q.Locations, *l)
		for _, k := range s.cases {
			if k.jump == nil {
				continue
			}
			c.step(k.p)
			t := c.siteByName(k.to)
			if !placed[t.id] {
				order = append(order, t.id)
				placed[t.id] = true
			}
			c.finishJump(q, k)
			if k.desc.lines != nil && c.compat == compatOff && t.loc != nil {
				t.loc.IsEmpty = false
				for _, li := range index[t.id] {
					q.Locations[li].IsEmpty = false
				}
			}
		}
	}
}

func (c *compiler) finishJump(q *qmm.Quest, k *kase) {
	j := k.jump
	j.Changes = c.changes(q, k.stmts, k.show, k.hide, k.p)
	for _, cs := range k.conds {
		v := c.varByName(cs.name)
		if v == nil || v.id == 0 {
			c.errorf(cs.p, "#cond names a variable of the quest", "unknown variable %q", cs.name)
			continue
		}
		cond := cs.c
		cond.Param = int32(v.id - 1)
		j.Conditions = append(j.Conditions, cond)
	}
	slices.SortStableFunc(j.Conditions, func(a, b qmm.Condition) int { return int(a.Param) - int(b.Param) })
	q.Jumps = append(q.Jumps, *j)
}

// placeExact keeps every site, in source order, and the jumps in source order (or #seq).
func (c *compiler) placeExact(q *qmm.Quest) {
	seen := map[*site]bool{}
	var cases []*kase
	for _, s := range c.sites {
		if seen[s] {
			continue
		}
		seen[s] = true
		l := s.loc
		l.X, l.Y = s.x, s.y
		l.Changes = c.changes(q, s.stmts, s.show, s.hide, s.p)
		q.Locations = append(q.Locations, *l)
		for _, k := range s.cases {
			if k.jump != nil {
				cases = append(cases, k)
			}
		}
	}
	slices.SortStableFunc(cases, func(a, b *kase) int { return a.seq - b.seq })
	for _, k := range cases {
		c.finishJump(q, k)
	}
}

// check reports what would make the quest unplayable or its file invalid.
func (c *compiler) check(q *qmm.Quest) {
	if q.StartLocation() < 0 {
		c.errorf(pos{file: c.main, line: 1, col: 1}, "a quest needs a #site", "no site")
	}
	ids := map[int32]*site{}
	for _, s := range c.sites {
		if other := ids[s.id]; other != nil && other != s {
			p := s.p
			if !s.idSet {
				p = other.p
			}
			c.errorf(p, "", "location id %d given twice", s.id)
		}
		ids[s.id] = s
	}
	jids := map[int32]bool{}
	seen := map[*kase]bool{}
	for _, s := range c.sites {
		for _, k := range s.cases {
			if k.jump == nil || seen[k] {
				continue
			}
			seen[k] = true
			if jids[k.jump.ID] && k.idSet {
				c.errorf(k.p, "", "jump id %d given twice", k.jump.ID)
			}
			jids[k.jump.ID] = true
		}
	}
}

// applyHeader applies the #quest lines.
func (c *compiler) applyHeader(q *qmm.Quest) {
	for _, h := range c.header {
		num := func() int32 {
			n, err := strconv.ParseInt(h.value, 10, 32)
			if err != nil {
				c.errorf(h.p, "", "#quest:%s needs a whole number", h.field)
			}
			return int32(n)
		}
		u8 := func() uint8 { return uint8(num()) }
		switch h.field {
		case "magic":
			m, ok := magicByName[h.value]
			if !ok {
				c.errorf(h.p, "QM_2, QM_3, QM_4, QMM_6, QMM_7 or QMM_7_WITH_OLD_TGE_BEHAVIOUR", "unknown magic %q", h.value)
			}
			q.Magic = m
		case "version":
			maj, min, _ := strings.Cut(h.value, ".")
			a, err1 := strconv.ParseInt(maj, 10, 32)
			b, err2 := strconv.ParseInt(min, 10, 32)
			if err1 != nil || err2 != nil {
				c.errorf(h.p, "write MAJOR.MINOR", "bad version %q", h.value)
			}
			q.MajorVersion, q.MinorVersion = int32(a), int32(b)
		case "changelog":
			q.ChangeLog = qmm.Some(h.value)
		case "givingRace":
			q.GivingRace = u8()
		case "whenDone":
			q.WhenDone = u8()
		case "planetRace":
			q.PlanetRace = u8()
		case "playerCareer":
			q.PlayerCareer = u8()
		case "playerRace":
			q.PlayerRace = u8()
		case "reputation":
			q.ReputationChange = num()
		case "screenX":
			q.ScreenSizeX = num()
		case "screenY":
			q.ScreenSizeY = num()
		case "width":
			q.WidthSize = num()
		case "height":
			q.HeightSize = num()
		case "jumpLimit":
			q.DefaultJumpCountLimit = num()
		case "hardness":
			q.Hardness = num()
		case "ToStar":
			q.Strings.ToStar = h.value
		case "Parsec":
			q.Strings.Parsec = qmm.Some(h.value)
		case "Artefact":
			q.Strings.Artefact = qmm.Some(h.value)
		case "ToPlanet":
			q.Strings.ToPlanet = h.value
		case "Date":
			q.Strings.Date = h.value
		case "Money":
			q.Strings.Money = h.value
		case "FromPlanet":
			q.Strings.FromPlanet = h.value
		case "FromStar":
			q.Strings.FromStar = h.value
		case "Ranger":
			q.Strings.Ranger = h.value
		default:
			c.errorf(h.p, "", "unknown #quest field %q", h.field)
		}
	}
}

var magicByName = map[string]qmm.Magic{}

func init() {
	for _, m := range []qmm.Magic{qmm.MagicQM2, qmm.MagicQM3, qmm.MagicQM4, qmm.MagicQMM6, qmm.MagicQMM7, qmm.MagicQMM7OldTGE} {
		magicByName[m.String()] = m
	}
}
