package quest

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/questbot/questbot/formula"
	"github.com/questbot/questbot/qmm"
)

// Quest is a quest compiled for play: the decoded file's content rearranged for the player,
// with every formula parsed once. It is immutable after [Compile] and safe for concurrent use by
// any number of games.
type Quest struct {
	oldTGE bool // old (TGE 4) player rules, see qmm.Magic.OldTGE

	params []param
	bounds []bounds // [min, max] of each parameter, kept apart for a compact scan
	locs   []location
	jumps  []jump

	locByID  idIndex // location id -> index of the first location with that id
	jumpByID idIndex // jump id -> index of the first jump with that id
	start    int32   // index of the first starting location, -1 if none

	taskText    *text
	successText *text

	textKeys int // the number of distinct jump texts (see jump.textKey)
	// positions are 0, 1, 2, …, as many as the most jumps leaving one location: the
	// candidates of a location whose jumps all are candidates (see location.allOut).
	positions []int32

	// texts caches the formulas of texts that are substituted stage by stage (those with
	// [dN] tags, see text), which are only known once the text is substituted. Keys are
	// formula sources, values *expr.
	texts     sync.Map
	textsSize atomic.Int32
}

// idIndex maps ids (of locations or jumps) to indices. Quest ids are usually small and dense,
// so the index is a slice when that costs little, and a map otherwise.
type idIndex struct {
	base  int     // the smallest id, for the slice
	dense []int32 // index+1 of id base+i; 0 for none
	m     map[int]int32
}

// add records index i for id unless id is already present (the reference finds the first).
func (x *idIndex) add(id int, i int32) {
	if x.m == nil {
		x.m = make(map[int]int32)
	}
	if _, ok := x.m[id]; !ok {
		x.m[id] = i
	}
}

// freeze builds the slice form when the ids span at most a few times their number.
func (x *idIndex) freeze() {
	if len(x.m) == 0 {
		return
	}
	lo, hi := 0, 0
	first := true
	for id := range x.m {
		if first || id < lo {
			lo = id
		}
		if first || id > hi {
			hi = id
		}
		first = false
	}
	if span := hi - lo + 1; span > 0 && span <= 4*len(x.m)+64 {
		x.base = lo
		x.dense = make([]int32, span)
		for id, i := range x.m {
			x.dense[id-lo] = i + 1
		}
		x.m = nil
	}
}

// get returns the index recorded for id.
func (x *idIndex) get(id int) (int32, bool) {
	if x.dense != nil {
		if k := uint(id - x.base); k < uint(len(x.dense)) && x.dense[k] != 0 {
			return x.dense[k] - 1, true
		}
		return 0, false
	}
	i, ok := x.m[id]
	return i, ok
}

// maxTextFormulas bounds the cache of formulas found in texts. Texts are fixed, so the number of
// distinct formulas is bounded by the quest itself; the bound only protects against pathological
// quests whose display ranges generate new formula texts.
const maxTextFormulas = 1 << 14

// param is a compiled quest parameter.
type param struct {
	min, max     int
	typ          qmm.ParamType
	critType     qmm.CritType
	active       bool
	showWhenZero bool
	ranges       []displayRange
	critText     *text
	media        media
	// starting computes the starting value of an active, non-money parameter.
	starting *expr
	// isMoney marks the player's money; an active money parameter starts at money,
	// min(max, 2000).
	isMoney bool
	money   int
}

// rangeOf returns the index of the first display range holding v, or -1.
func (p *param) rangeOf(v int) int {
	for k := range p.ranges {
		if v >= p.ranges[k].from && v <= p.ranges[k].to {
			return k
		}
	}
	return -1
}

// bounds are the bounds of a parameter's value.
type bounds struct{ min, max int }

// clamp clamps v to the bounds the reference's way: first to max, then to min (so a parameter
// with min > max always ends at min).
func (b bounds) clamp(v int) int {
	if v > b.max {
		v = b.max
	}
	if v < b.min {
		v = b.min
	}
	return v
}

// displayRange is one display range of a parameter.
type displayRange struct {
	from, to int
	text     *text // substituted with "<>" standing for the parameter
}

// media is a set of media names; "" means absent (the reference treats an empty name as
// absent too).
type media struct {
	image, sound, track string
}

func mediaOf(m qmm.Media) media {
	return media{image: m.Image.Value, sound: m.Sound.Value, track: m.Track.Value}
}

// Kinds of parameter change, in the player's order of precedence.
const (
	changeAdd = iota
	changeValue
	changePercent
	changeFormula
)

// changeSet is the compiled parameter changes of a location or jump.
type changeSet struct {
	list []change
	// formulas tells that some change has a formula; formulas read every parameter's value
	// from before the whole set.
	formulas bool
}

// change is a compiled parameter change of a location or jump. Only changes that differ from
// the default are kept, sorted by parameter.
type change struct {
	param    int
	kind     uint8
	show     qmm.ShowingType
	amount   int
	formula  *expr // nil for an empty formula: the value is then left as it is
	critText *text
	media    media
}

// cond is a compiled jump condition on one active parameter. Conditions that every value the
// parameter can hold meets are dropped at compile time.
type cond struct {
	param    int
	from, to int
	eqIn     bool // true: the value must be in eq; false: it must not be
	eq       []int
	modIn    bool // true: the value must be divisible by one of mod; false: by none
	mod      []int
}

// location is a compiled location.
type location struct {
	id        int
	dayPassed bool
	success   bool
	fail      bool
	deadly    bool
	empty     bool
	maxVisits int
	changes   changeSet

	texts     []string
	ttexts    []*text // texts, compiled
	media     []media
	nonEmpty  []int32 // indices of the non-empty texts, in order
	byFormula bool
	textSel   *expr // nil when the text-select formula is empty

	// out lists the jumps leaving this location (by id), in file order, and outOrder their
	// showing orders. exits holds, in the same order, what choosing the jumps to offer reads
	// of them; the player designates a jump leaving the location by its position in out.
	out      []int32
	outOrder []int32
	exits    []exit
	// plain tells that every exit is plain (see exit.plain): which jumps can be taken is
	// decided by their formulas alone, which neither draw nor fail.
	plain bool
	// switchOn is the parameter of a plain location whose exits all have a formula
	// "[pN] = x" with one N, -1 for other locations; cases are then the values x, by exit.
	switchOn int
	cases    []float64
	// allOut tells that every jump of out is always a candidate: none leads to a location
	// with a visit limit, or can be hidden by the old-TGE rule (see jump.dest).
	allOut bool
	// oneOrder tells that the jumps of out all have the same showing order; oneKey is their
	// text key when they all have the same one, else -1.
	oneOrder bool
	oneKey   int32
	// counted tells that the visits of this location id are recorded in State.Visits: some
	// location with this id has a visit limit or cycles through several texts.
	counted bool
}

// jump is a compiled jump.
type jump struct {
	id         int
	toID       int
	to         int32 // index of the target location, -1 if there is none
	priority   float64
	dayPassed  bool
	alwaysShow bool
	limit      int
	order      int32
	conds      []cond
	changes    changeSet
	// pass is formulaToPass; its src is "" when it is empty. It is kept in the jump, which the
	// player reads anyway, rather than behind a pointer: every candidate jump reads it.
	pass  expr
	text  string
	desc  string
	ttext *text // text, compiled
	tdesc *text // desc, compiled
	// counted tells that the uses of this jump id are recorded in State.Jumped: some jump
	// with this id has a count limit.
	counted bool
	// dest lists the jumps leaving the target location id, in file order, when every one of
	// them has a count limit: only then can the old-TGE rule hide this jump (see exhausted).
	dest []int32
	// textKey identifies the jump's text among all jump texts; -1 for texts the reference's
	// grouping never handles (see groupJumps).
	textKey int32
	media   media
}

// exit is what choosing the jumps to offer reads of a jump leaving a location. A location keeps
// the exits of its jumps side by side, so that judging its candidates walks one compact array
// instead of the jumps themselves, which are large and spread over memory.
type exit struct {
	// pass is the parsed formulaToPass; nil when the formula is empty or did not parse.
	pass  *formula.Expr
	conds []cond // the jump's conditions
	// test is pass as a formula.Cond when isTest (see location.plain).
	test     formula.Cond
	isTest   bool
	priority float64 // the jump's priority
	jump     int32   // index of the jump in Quest.jumps
	textKey  int32   // the jump's textKey
	// limited tells that the jump has a count limit; broken that its formulaToPass did not
	// parse, so that evaluating it fails.
	limited, broken bool
	alwaysShow      bool // the jump's alwaysShow
	hasText         bool // the jump's text is not empty
}

// newExit returns the exit of jump k.
func (q *Quest) newExit(k int32) exit {
	j := &q.jumps[k]
	x := exit{conds: j.conds, priority: j.priority, jump: k, textKey: j.textKey,
		limited: j.limit != 0, alwaysShow: j.alwaysShow, hasText: j.text != ""}
	if j.pass.src != "" {
		if j.pass.err == nil && j.pass.e != nil {
			x.pass = j.pass.e
			x.test, x.isTest = x.pass.Cond(len(q.params))
		} else {
			x.broken = true
		}
	}
	return x
}

// plain reports whether the jump of exit x can be taken exactly when its formulaToPass, if
// any, holds, and the formula is a formula.Cond: the jump has no conditions and no count limit.
func (x *exit) plain() bool {
	return len(x.conds) == 0 && !x.limited && !x.broken && (x.pass == nil || x.isTest)
}

// expr is a formula of the quest, parsed at compile time. A formula that failed to parse keeps
// its error, which is reported when the formula is evaluated.
type expr struct {
	e     *formula.Expr
	err   error
	src   string
	where where
}

// where names a formula's place in the quest for error messages.
type where struct {
	kind  uint8
	id    int
	param int
}

// Places of formulas.
const (
	inStarting = iota
	inLocationText
	inLocationChange
	inJumpChange
	inJumpCondition
	inText
)

func (w where) String() string {
	switch w.kind {
	case inStarting:
		return fmt.Sprintf("starting value of p%d", w.param+1)
	case inLocationText:
		return fmt.Sprintf("text selection of location %d", w.id)
	case inLocationChange:
		return fmt.Sprintf("location %d change of p%d", w.id, w.param+1)
	case inJumpChange:
		return fmt.Sprintf("jump %d change of p%d", w.id, w.param+1)
	case inJumpCondition:
		return fmt.Sprintf("jump %d condition", w.id)
	}
	return "text"
}

func newExpr(src string, w where) *expr {
	e, err := formula.Parse(src)
	return &expr{src: src, e: e, err: err, where: w}
}

// eval evaluates the formula with the reference's calculate() semantics.
func (x *expr) eval(params []int, rnd formula.Random) (int, error) {
	if x.err != nil {
		return 0, x.fail(x.err)
	}
	if x.e == nil {
		return 0, x.fail(errFormulaPanic)
	}
	v, err := x.e.Eval(params, rnd)
	if err != nil {
		return 0, x.fail(err)
	}
	return v, nil
}

// fail returns the error of the formula's evaluation failing with err.
func (x *expr) fail(err error) error {
	return &FormulaError{Where: x.where.String(), Formula: x.src, Err: err}
}

// errFormulaPanic reports a panic inside the formula evaluator (or a formula that is missing),
// turned into an error so that no input can crash the player.
var errFormulaPanic = errors.New("formula evaluator failed")

// recoverFormula turns a panic of the formula evaluator into an error in *err. The player calls
// it deferred at its entry points (one defer per action rather than one per formula).
func recoverFormula(err *error) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("%w: %v", errFormulaPanic, r)
	}
}

// textFormula returns the parsed form of a formula found inside a text, parsing it on first use.
func (q *Quest) textFormula(src string) *expr {
	if v, ok := q.texts.Load(src); ok {
		return v.(*expr)
	}
	x := newExpr(src, where{kind: inText})
	if q.textsSize.Load() < maxTextFormulas {
		if v, loaded := q.texts.LoadOrStore(src, x); loaded {
			return v.(*expr)
		}
		q.textsSize.Add(1)
	}
	return x
}

// protoNames are the members of JavaScript's Object.prototype. The reference remembers the jump
// texts it has grouped in a plain object, where these names always look present, so jumps with
// exactly such a text are never offered.
var protoNames = map[string]bool{
	"constructor": true, "__defineGetter__": true, "__defineSetter__": true,
	"hasOwnProperty": true, "__lookupGetter__": true, "__lookupSetter__": true,
	"isPrototypeOf": true, "propertyIsEnumerable": true, "toString": true, "valueOf": true,
	"__proto__": true, "toLocaleString": true,
}

// Compile builds the playable form of a decoded quest. It parses every formula once; a formula
// that does not parse does not fail Compile, because the reference player only fails when such
// a formula is evaluated: the error is returned as a [*FormulaError] by the action that needs
// it. Compile fails only for a nil quest. The result does not refer to src.
func Compile(src *qmm.Quest) (*Quest, error) {
	if src == nil {
		return nil, errors.New("quest: nil quest")
	}
	q := &Quest{
		oldTGE: src.OldTGE(),
		params: make([]param, len(src.Params)),
		bounds: make([]bounds, len(src.Params)),
		locs:   make([]location, len(src.Locations)),
		jumps:  make([]jump, len(src.Jumps)),
		start:  -1,
	}
	n := len(src.Params)
	ranges := make([][]string, n)
	for i := range src.Params {
		for _, r := range src.Params[i].Ranges {
			ranges[i] = append(ranges[i], r.Text)
		}
	}
	tc := newTextCompiler(n, ranges)
	q.taskText = tc.text(src.TaskText, -1)
	q.successText = tc.text(src.SuccessText, -1)

	for i := range src.Params {
		sp := &src.Params[i]
		p := &q.params[i]
		p.min, p.max = int(sp.Min), int(sp.Max)
		q.bounds[i] = bounds{min: p.min, max: p.max}
		p.typ, p.critType = sp.Type, sp.CritType
		p.active, p.showWhenZero = sp.Active, sp.ShowWhenZero
		p.critText = tc.text(sp.CritText, -1)
		p.media = mediaOf(sp.Media)
		p.ranges = make([]displayRange, len(sp.Ranges))
		texts := tc.displayTexts(i, i)
		for k, r := range sp.Ranges {
			p.ranges[k] = displayRange{from: int(r.From), to: int(r.To), text: texts[k]}
		}
		switch {
		case !sp.Active:
		case sp.IsMoney:
			p.isMoney, p.money = true, min(p.max, 2000)
		default:
			// The reference replaces the first "h" by ".." ("[0h10]" is an old range syntax).
			p.starting = newExpr(strings.Replace(sp.Starting, "h", "..", 1),
				where{kind: inStarting, param: i})
		}
	}

	for i := range src.Locations {
		sl := &src.Locations[i]
		id := int(sl.ID)
		q.locByID.add(id, int32(i))
		if q.start < 0 && sl.IsStarting {
			q.start = int32(i)
		}
		l := &q.locs[i]
		l.id = id
		l.dayPassed = sl.DayPassed
		l.success, l.fail = sl.IsSuccess, sl.IsFail
		l.deadly, l.empty = sl.IsDeadly, sl.IsEmpty
		l.maxVisits = int(sl.MaxVisits)
		l.changes = compileChanges(sl.Changes, tc, where{kind: inLocationChange, id: id})
		l.texts = make([]string, len(sl.Texts))
		l.ttexts = make([]*text, len(sl.Texts))
		l.media = make([]media, len(sl.Texts))
		for k := range sl.Texts {
			l.texts[k] = sl.Texts[k].Text
			l.ttexts[k] = tc.text(sl.Texts[k].Text, -1)
			l.media[k] = mediaOf(sl.Texts[k].Media)
			if sl.Texts[k].Text != "" {
				l.nonEmpty = append(l.nonEmpty, int32(k))
			}
		}
		l.byFormula = sl.TextByFormula
		if sl.TextSelectFormula != "" {
			l.textSel = newExpr(sl.TextSelectFormula, where{kind: inLocationText, id: id})
		}
	}

	q.locByID.freeze()
	textKeys := make(map[string]int32)
	outByID := make(map[int][]int32)
	for i := range src.Jumps {
		sj := &src.Jumps[i]
		id := int(sj.ID)
		q.jumpByID.add(id, int32(i))
		j := &q.jumps[i]
		j.id = id
		j.toID = int(sj.To)
		j.to = -1
		if k, ok := q.locByID.get(j.toID); ok {
			j.to = k
		}
		j.priority = sj.Priority
		j.dayPassed, j.alwaysShow = sj.DayPassed, sj.AlwaysShow
		j.limit = int(sj.CountLimit)
		j.order = sj.ShowingOrder
		j.conds = compileConds(src, sj)
		j.changes = compileChanges(sj.Changes, tc, where{kind: inJumpChange, id: id})
		if sj.FormulaToPass != "" {
			j.pass = *newExpr(sj.FormulaToPass, where{kind: inJumpCondition, id: id})
		}
		j.text, j.desc = sj.Text, sj.Description
		j.ttext, j.tdesc = tc.text(sj.Text, -1), tc.text(sj.Description, -1)
		j.media = mediaOf(sj.Media)
		if protoNames[sj.Text] {
			j.textKey = -1
		} else {
			k, ok := textKeys[sj.Text]
			if !ok {
				k = int32(len(textKeys))
				textKeys[sj.Text] = k
			}
			j.textKey = k
		}
		outByID[int(sj.From)] = append(outByID[int(sj.From)], int32(i))
	}
	q.textKeys = len(textKeys)

	q.jumpByID.freeze()
	countedLocs := make(map[int]bool)
	for i := range q.locs {
		l := &q.locs[i]
		l.out = outByID[l.id]
		if l.maxVisits != 0 || (!l.byFormula && len(l.nonEmpty) > 1) {
			countedLocs[l.id] = true
		}
	}
	for i := range q.locs {
		q.locs[i].counted = countedLocs[q.locs[i].id]
	}
	countedJumps := make(map[int]bool)
	for i := range q.jumps {
		if q.jumps[i].limit != 0 {
			countedJumps[q.jumps[i].id] = true
		}
	}
	for i := range q.jumps {
		j := &q.jumps[i]
		j.counted = countedJumps[j.id]
		dest := outByID[j.toID]
		limited := len(dest) > 0
		for _, k := range dest {
			if q.jumps[k].limit == 0 {
				limited = false
			}
		}
		if limited {
			j.dest = dest
		}
	}
	q.candidates()
	return q, nil
}

// candidates fills what the locations keep about their outgoing jumps as candidates.
func (q *Quest) candidates() {
	for i := range q.locs {
		l := &q.locs[i]
		l.allOut, l.oneOrder, l.oneKey, l.plain, l.switchOn = true, true, -1, true, -1
		if len(l.out) > 0 {
			l.oneKey = q.jumps[l.out[0]].textKey
		}
		for len(q.positions) < len(l.out) {
			q.positions = append(q.positions, int32(len(q.positions)))
		}
		l.outOrder = make([]int32, len(l.out))
		l.exits = make([]exit, len(l.out))
		for n, k := range l.out {
			j := &q.jumps[k]
			l.outOrder[n] = j.order
			l.exits[n] = q.newExit(k)
			l.plain = l.plain && l.exits[n].plain()
			if j.order != l.outOrder[0] {
				l.oneOrder = false
			}
			if j.textKey != l.oneKey {
				l.oneKey = -1
			}
			if (j.to >= 0 && q.locs[j.to].maxVisits != 0) || (q.oldTGE && j.dest != nil) {
				l.allOut = false
			}
		}
		if l.plain {
			l.switchOn, l.cases = switchOf(l.exits)
		}
	}
}

// switchOf returns the parameter N-1 and the values x when every exit's formula is
// "[pN] = x" for one N, else -1 and nil.
func switchOf(exits []exit) (int, []float64) {
	if len(exits) == 0 {
		return -1, nil
	}
	on := -1
	cases := make([]float64, len(exits))
	for k := range exits {
		if !exits[k].isTest {
			return -1, nil
		}
		p, x, ok := exits[k].test.Equality()
		if !ok || (on >= 0 && p != on) {
			return -1, nil
		}
		on, cases[k] = p, x
	}
	return on, cases
}

// compileChanges keeps the changes that differ from the default, in parameter order, and parses
// their formulas.
func compileChanges(src []qmm.ParamChange, tc *textCompiler, w where) changeSet {
	nParams := tc.nParams
	var out []change
	for k := range src {
		c := &src[k]
		p := int(c.Param)
		if p < 0 || p >= nParams || c.IsDefault() {
			continue
		}
		cc := change{
			param:    p,
			show:     c.Showing,
			amount:   int(c.Change),
			critText: tc.text(c.CritText, -1),
			media:    mediaOf(c.Media),
		}
		switch {
		case c.IsValue:
			cc.kind = changeValue
		case c.IsPercentage:
			cc.kind = changePercent
		case c.IsFormula:
			cc.kind = changeFormula
			if c.Formula != "" {
				w.param = p
				cc.formula = newExpr(c.Formula, w)
			}
			// A formula that reads no parameter, draws nothing and cannot fail ("400") always
			// gives the same value: the change sets that value.
			if x := cc.formula; x != nil && x.err == nil && x.e.Pure(0) {
				if v, err := x.e.Eval(nil, nil); err == nil {
					cc.kind, cc.amount, cc.formula = changeValue, v, nil
				}
			}
		default:
			cc.kind = changeAdd
		}
		// Keep the list sorted and free of duplicates even for a hand-made model: a later
		// record for the same parameter replaces the earlier one, as in the reference reader.
		if m := len(out); m > 0 && out[m-1].param >= p {
			i := m
			for i > 0 && out[i-1].param > p {
				i--
			}
			if i > 0 && out[i-1].param == p {
				out[i-1] = cc
				continue
			}
			out = append(out, change{})
			copy(out[i+1:], out[i:])
			out[i] = cc
			continue
		}
		out = append(out, cc)
	}
	cs := changeSet{list: out}
	for _, c := range out {
		if c.formula != nil {
			cs.formulas = true
		}
	}
	return cs
}

// compileConds builds the conditions of a jump that can fail. The player checks conditions only
// for active parameters, and only after the location's changes have clamped every parameter to
// [min, max] (or to min when min > max), so a condition is dropped when every such value meets
// it.
func compileConds(src *qmm.Quest, sj *qmm.Jump) []cond {
	var out []cond
	for p := range src.Params {
		sp := &src.Params[p]
		if !sp.Active {
			continue
		}
		c := src.Condition(sj, p)
		lo, hi := int(sp.Min), int(sp.Max)
		if lo > hi {
			hi = lo // the only value the parameter can hold
		}
		if int(c.MustFrom) <= lo && int(c.MustTo) >= hi && len(c.MustEqualValues) == 0 &&
			len(c.MustModValues) == 0 {
			continue
		}
		cc := cond{param: p, from: int(c.MustFrom), to: int(c.MustTo), eqIn: c.MustEqual,
			modIn: c.MustMod}
		for _, v := range c.MustEqualValues {
			cc.eq = append(cc.eq, int(v))
		}
		for _, v := range c.MustModValues {
			cc.mod = append(cc.mod, int(v))
		}
		out = append(out, cc)
	}
	return out
}

// ParamsCount returns the number of parameters of the quest.
func (q *Quest) ParamsCount() int { return len(q.params) }
