package quest

import (
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/questbot/questbot/formula"
	"github.com/questbot/questbot/formula/alea"
	"github.com/questbot/questbot/qmm"
)

// maxAutoJumps bounds the automatic jumps made inside one action. The reference player has no
// bound and follows a chain by recursion, so an endless chain of empty jumps ends there with a
// stack overflow; real quests run chains of a few thousand jumps (lunolet_2.qmm does over 3,000
// in one step). The bound is far above any chain the reference can complete and only turns an
// endless chain into [ErrAutoJumpLimit] instead of a hang.
const maxAutoJumps = 1_000_000

// Pseudo jump ids of the choices that are not jumps of the quest.
const (
	JumpIAgree     = -1 // "I agree": accept the task and enter the starting location
	JumpNext       = -2 // "Next": continue after a description or a critical message
	JumpBackToShip = -3 // "Go back to ship": end the quest with a win
)

// daysToPassQuest is the deadline, in days, that the player's <Day> and <Date> tags count to.
const daysToPassQuest = 35

// trackResetDefault is the track name that means "back to the default music".
const trackResetDefault = "Quest"

// engine performs one action on a state. It carries the scratch buffers of the step, pooled
// between actions so that a step allocates almost nothing.
type engine struct {
	q    *Quest
	s    *State
	rnd  *alea.Alea
	rndv alea.Alea // the step's generator, which rnd points to
	st   State     // the step's state, which s points to

	old    []int   // parameter values before the current set of changes
	crits  []int32 // parameters that became critical in the current set of changes
	cand   []int32 // candidate jumps of the current location (positions in its out), sorted
	active []bool  // their active flags, parallel to cand
	kept   []int32 // positions in cand kept after grouping by text
	act    []int32 // positions in cand of the active members of a text group
	ord    []int32 // showing orders, parallel to cand while sorting
	ties   []int32 // positions of tied jumps while sorting
	keys   []int32 // text keys, parallel to cand while grouping
	// groups describes the text groups of the candidates by text key; an entry whose stamp
	// is not groupStamp is left from an earlier grouping.
	groups     []textGroup
	groupStamp uint32

	// topPriority and passed are the step's options (see Options).
	topPriority bool
	passed      func(Passage)
	// entered is the text index selected as the last location was entered.
	entered int

	// clamped tells that every parameter value lies within its bounds (see applyChanges).
	clamped bool
	// autos counts the automatic jumps of the action.
	autos int

	// The state's slices are shared with the state given to Perform until the step first
	// writes to them (copy on write); these tell which ones the step already owns.
	ownParams, ownShown, ownJumps, ownJumped, ownVisits bool
}

var enginePool = sync.Pool{New: func() any { return new(engine) }}

func (e *engine) release() {
	e.q, e.s, e.rnd, e.clamped, e.st = nil, nil, nil, false, State{}
	e.topPriority, e.passed = false, nil
	e.ownParams, e.ownShown, e.ownJumps, e.ownJumped, e.ownVisits = false, false, false, false, false
	enginePool.Put(e)
}

// grown returns a copy of list with room for extra more elements.
func grown[T any](list []T, extra int) []T {
	return append(make([]T, 0, len(list)+extra), list...)
}

// setParam sets the value of parameter i.
func (e *engine) setParam(i, v int) {
	if !e.ownParams {
		e.s.Params = grown(e.s.Params, 0)
		e.ownParams = true
	}
	e.s.Params[i] = v
}

// setShown shows or hides parameter i.
func (e *engine) setShown(i int, v bool) {
	if !e.ownShown {
		e.s.Shown = grown(e.s.Shown, 0)
		e.ownShown = true
	}
	e.s.Shown[i] = v
}

// countJump counts a use of jump id.
func (e *engine) countJump(id int) {
	if !e.ownJumped {
		e.s.Jumped = grown(e.s.Jumped, 1)
		e.ownJumped = true
	}
	e.s.Jumped = e.s.Jumped.inc(id)
}

// countVisit counts a visit of location id.
func (e *engine) countVisit(id int) {
	if !e.ownVisits {
		e.s.Visits = grown(e.s.Visits, 1)
		e.ownVisits = true
	}
	e.s.Visits = e.s.Visits.inc(id)
}

// clearJumps empties the list of offered jumps, ready to be filled again.
func (e *engine) clearJumps() {
	if !e.ownJumps {
		e.s.Jumps = make([]JumpOption, 0, max(4, len(e.s.Jumps)))
		e.ownJumps = true
	}
	e.s.Jumps = e.s.Jumps[:0]
}

// location returns the index of the location with the given id.
func (q *Quest) location(id int) (int32, bool) {
	k, ok := q.locByID.get(id)
	return k, ok
}

// jumpIndex returns the index of the first jump with the given id.
func (q *Quest) jumpIndex(id int) (int32, bool) {
	k, ok := q.jumpByID.get(id)
	return k, ok
}

// lastJump returns the index of the state's last jump, or -1.
func (q *Quest) lastJump(s *State) int32 {
	if !s.HasLastJump {
		return -1
	}
	if k, ok := q.jumpByID.get(s.LastJumpID); ok {
		return k
	}
	return -1
}

func resetTrack(name string) string {
	if name == trackResetDefault {
		return ""
	}
	return name
}

// applyMedia replaces the current media names by the non-empty ones of m.
func (s *State) applyMedia(m *media) {
	if m.image != "" {
		s.Image = m.image
	}
	if m.track != "" {
		s.Track = m.track
	}
	s.Track = resetTrack(s.Track)
	if m.sound != "" {
		s.Sound = m.sound
	}
}

// applyCritMedia applies the media of a critical parameter: the change's own media, else the
// parameter's, else the current ones — name by name.
func (s *State) applyCritMedia(ch *change, p *param) {
	var m media
	if ch != nil {
		m = ch.media
	}
	if m.image == "" {
		m.image = p.media.image
	}
	if m.track == "" {
		m.track = p.media.track
	}
	if m.sound == "" {
		m.sound = p.media.sound
	}
	s.applyMedia(&m)
}

// findChange returns the change for parameter p in a compiled change list, or nil.
func findChange(list []change, p int) *change {
	lo, hi := 0, len(list)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if list[m].param < p {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(list) && list[lo].param == p {
		return &list[lo]
	}
	return nil
}

// perform runs the reference's performJumpInternal for id. The reference follows automatic
// jumps by recursion (performJumpInternal → calculateLocation → performJumpInternal), always as
// the last thing each call does; this loop runs the same steps in the same order without the
// recursion.
func (e *engine) perform(id int) error {
	q, s := e.q, e.s
	for e.autos = 0; ; e.autos++ {
		via := 0 // the jump taken from a location in this round, which enters the next one
		if e.autos > maxAutoJumps {
			return ErrAutoJumpLimit
		}
		if id == JumpBackToShip {
			s.Phase = PhaseReturnedEnding
			return nil
		}
		if k, ok := q.jumpIndex(id); ok {
			s.applyMedia(&q.jumps[k].media)
		}

		switch s.Phase {
		case PhaseStarting:
			s.Phase = PhaseLocation

		case PhaseJump:
			k := q.lastJump(s)
			if k < 0 {
				return fmt.Errorf("%w: no last jump %d", ErrBadState, s.LastJumpID)
			}
			s.LocationID = q.jumps[k].toID
			s.Phase = PhaseLocation

		case PhaseLocation:
			found := false
			for _, o := range s.Jumps {
				if o.ID == id {
					found = true
					break
				}
			}
			if !found {
				return fmt.Errorf("%w: jump %d is not offered", ErrNotAChoice, id)
			}
			k, ok := q.jumpIndex(id)
			if !ok {
				return fmt.Errorf("%w: no jump %d", ErrBadState, id)
			}
			j := &q.jumps[k]
			s.LastJumpID, s.HasLastJump = id, true
			via = id
			if j.dayPassed {
				s.Days++
			}
			if j.counted {
				e.countJump(id)
			}
			if err := e.applyChanges(&j.changes); err != nil {
				return err
			}
			if j.to < 0 {
				return fmt.Errorf("%w: jump %d leads to missing location %d", ErrBrokenQuest,
					j.id, j.toID)
			}
			next := &q.locs[j.to]
			if j.desc == "" {
				if len(e.crits) > 0 {
					c := int(e.crits[0])
					s.Phase, s.CritParam = PhaseCritOnJump, c
					s.applyCritMedia(findChange(j.changes.list, c), &q.params[c])
					return nil
				}
			} else {
				if len(e.crits) > 0 {
					s.Phase, s.CritParam = PhaseJumpAndNextCrit, int(e.crits[0])
					return nil
				}
				if !next.empty {
					s.Phase = PhaseJump
					return nil
				}
			}
			s.LocationID = next.id
			s.Phase = PhaseLocation

		case PhaseJumpAndNextCrit:
			s.Phase = PhaseCritOnJump
			if c := s.CritParam; c >= 0 && c < len(q.params) {
				var ch *change
				if k := q.lastJump(s); k >= 0 {
					ch = findChange(q.jumps[k].changes.list, c)
				}
				s.applyCritMedia(ch, &q.params[c])
			}
			return nil

		case PhaseCritOnLocation:
			s.Phase = PhaseCritOnLocationLastMessage
			return nil

		default:
			return fmt.Errorf("%w: no action possible in phase %v", ErrNotAChoice, s.Phase)
		}

		next, auto, err := e.enterLocation()
		if err != nil || !auto {
			return err
		}
		if e.passed != nil {
			e.passed(e.passage(via, e.entered))
		}
		id = next
	}
}

// applyChanges applies a set of parameter changes to every parameter (the reference's
// calculateParamsUpdate) and leaves in e.crits the parameters that became critical, in order.
// Every parameter is clamped to its bounds even without a change of its own; formulas read the
// values from before the whole set.
//
// Once every value lies within its bounds (which holds after any set of changes; only starting
// values can be out of bounds), clamping a parameter without a change does nothing, so only the
// parameters with a change are visited.
func (e *engine) applyChanges(cs *changeSet) error {
	s := e.s
	e.crits = e.crits[:0]
	if !e.clamped {
		for i, b := range e.q.bounds {
			if b.clamp(s.Params[i]) != s.Params[i] {
				return e.applyAll(cs)
			}
		}
		e.clamped = true
	}
	old := s.Params
	if cs.formulas {
		e.old = append(e.old[:0], s.Params...)
		old = e.old
	}
	for ci := range cs.list {
		c := &cs.list[ci]
		i := c.param
		prev := s.Params[i] // the value before the set: no earlier change touched it
		v, err := e.changed(c, prev, old)
		if err != nil {
			return err
		}
		e.store(i, prev, v)
	}
	return nil
}

// applyAll is applyChanges visiting every parameter.
func (e *engine) applyAll(cs *changeSet) error {
	s := e.s
	e.old = append(e.old[:0], s.Params...)
	old := e.old
	ci := 0
	for i := range s.Params {
		v := old[i]
		if ci < len(cs.list) && cs.list[ci].param == i {
			var err error
			if v, err = e.changed(&cs.list[ci], old[i], old); err != nil {
				return err
			}
			ci++
		}
		e.store(i, old[i], v)
	}
	e.clamped = true
	return nil
}

// changed applies change c to the value prev of its parameter and returns the new value, not
// yet clamped; it also shows or hides the parameter. Formulas read old.
func (e *engine) changed(c *change, prev int, old []int) (int, error) {
	switch c.show {
	case qmm.ShowingShow:
		e.setShown(c.param, true)
	case qmm.ShowingHide:
		e.setShown(c.param, false)
	}
	switch c.kind {
	case changeValue:
		return c.amount, nil
	case changePercent:
		return jsRoundInt(float64(prev) * float64(100+c.amount) / 100), nil
	case changeFormula:
		if c.formula != nil {
			return c.formula.eval(old, e.rnd)
		}
		return prev, nil
	}
	return prev + c.amount, nil
}

// store clamps the new value v of parameter i, stores it and notes whether the parameter became
// critical: it changed and reached its critical bound.
func (e *engine) store(i, prev, v int) {
	p := &e.q.params[i]
	v = e.q.bounds[i].clamp(v)
	if v != prev {
		e.setParam(i, v)
	}
	if v != prev && p.typ != qmm.ParamOrdinary &&
		((p.critType == qmm.CritMax && v == p.max) || (p.critType == qmm.CritMin && v == p.min)) {
		e.crits = append(e.crits, int32(i))
	}
}

// jsRoundInt rounds like JavaScript's Math.round: halves go toward +∞.
func jsRoundInt(x float64) int {
	f := math.Floor(x)
	if x-f >= 0.5 {
		f++
	}
	return int(f)
}

// textIndex selects the text of location l to show (the reference's
// calculateLocationShowingTextId); it may draw from rnd.
func textIndex(l *location, s *State, rnd *alea.Alea) (int, error) {
	if l.byFormula {
		if l.textSel != nil {
			v, err := l.textSel.eval(s.Params, rnd)
			if err != nil {
				return 0, err
			}
			if i := v - 1; i >= 0 && i < len(l.texts) && l.texts[i] != "" {
				return i, nil
			}
			return 0, nil
		}
		n := rnd.Random(len(l.nonEmpty))
		if n >= 0 && n < len(l.nonEmpty) {
			return int(l.nonEmpty[n]), nil
		}
		return 0, nil
	}
	// Cyclic: the visit count (the reference's, which is 0 on the first visit) modulo the
	// number of non-empty texts. The location is the current one, so it has been entered;
	// visits are recorded only when there are several texts to cycle through.
	switch len(l.nonEmpty) {
	case 0:
		return 0, nil
	case 1:
		return int(l.nonEmpty[0]), nil
	}
	visits := s.Visits.get(l.id)
	if visits == 0 {
		return 0, nil
	}
	return int(l.nonEmpty[(visits-1)%len(l.nonEmpty)]), nil
}

// ownText returns the text of location l at index i, "" when there is none.
func (l *location) ownText(i int) string {
	if i >= 0 && i < len(l.texts) {
		return l.texts[i]
	}
	return ""
}

// enterLocation runs the reference's calculateLocation on the state's location (phase
// PhaseLocation). When the location must be left at once by an automatic jump it returns that
// jump's id and true; the caller then performs it.
func (e *engine) enterLocation() (int, bool, error) {
	q, s := e.q, e.s
	li, ok := q.location(s.LocationID)
	if !ok {
		return 0, false, fmt.Errorf("%w: no location %d", ErrBrokenQuest, s.LocationID)
	}
	l := &q.locs[li]

	// 1. Count the visit.
	if l.counted {
		e.countVisit(l.id)
	}

	// 2. The text to show decides the media.
	ti, err := textIndex(l, s, e.rnd)
	if err != nil {
		return 0, false, err
	}
	e.entered = ti
	if ti < len(l.media) {
		s.applyMedia(&l.media[ti])
	}

	// 3. Days and 4. the location's changes.
	if l.dayPassed {
		s.Days++
	}
	if err := e.applyChanges(&l.changes); err != nil {
		return 0, false, err
	}

	// 5.–9. The jumps offered.
	if err := e.offer(l); err != nil {
		return 0, false, err
	}

	// 10. Critical parameters: the last one wins.
	if len(e.crits) > 0 {
		anyActive := false
		for _, o := range s.Jumps {
			if o.Active {
				anyActive = true
				break
			}
		}
		for _, c := range e.crits {
			p := &q.params[c]
			if q.oldTGE && anyActive && (p.typ == qmm.ParamFail || p.typ == qmm.ParamDeath) {
				continue // old TGE: live on after a fail while there are choices
			}
			s.Phase = PhaseCritOnLocation
			if l.empty {
				lj := q.lastJump(s)
				if !(s.HasLastJump && s.LastJumpID != 0 && lj >= 0 && q.jumps[lj].desc != "") {
					s.Phase = PhaseCritOnLocationLastMessage
				}
			}
			s.CritParam = int(c)
			s.applyCritMedia(findChange(l.changes.list, int(c)), p)
		}
	}

	// 11. Automatic jump, or the critical message at once when there is nothing to show.
	switch {
	case s.Phase == PhaseLocation && len(s.Jumps) == 1:
		ti, err := textIndex(l, s, e.rnd)
		if err != nil {
			return 0, false, err
		}
		o := s.Jumps[0]
		k, ok := q.jumpIndex(o.ID)
		if !ok {
			return 0, false, fmt.Errorf("%w: no jump %d", ErrBadState, o.ID)
		}
		if o.Active && q.jumps[k].text == "" && q.noText(l, s, ti) {
			return o.ID, true, nil
		}
	case s.Phase == PhaseCritOnLocation:
		ti, err := textIndex(l, s, e.rnd)
		if err != nil {
			return 0, false, err
		}
		if q.noText(l, s, ti) {
			s.Phase = PhaseCritOnLocationLastMessage
		}
	}
	return 0, false, nil
}

// offer runs steps 5 to 9 of entering location l: it fills the state's list of offered jumps
// from the jumps leaving l, their order, conditions and texts.
func (e *engine) offer(l *location) error {
	q, s := e.q, e.s
	// 5. Candidate jumps, in file order.
	if l.allOut {
		e.cand = append(e.cand[:0], q.positions[:len(l.out)]...)
	} else {
		e.candidates(l)
	}

	// 6. Sort by showing order, ties broken at random.
	e.sortJumps(l)

	// 7. Which jumps can be taken.
	active := slices.Grow(e.active[:0], len(e.cand))[:len(e.cand)]
	e.active = active
	switch {
	case l.switchOn >= 0:
		v := float64(s.Params[l.switchOn])
		for i, pos := range e.cand {
			active[i] = l.cases[pos] == v
		}
	case l.plain:
		vals := s.Params
		for i, pos := range e.cand {
			x := &l.exits[pos]
			active[i] = x.pass == nil || x.test.Holds(vals)
		}
	default:
		for i, pos := range e.cand {
			a, err := e.jumpActive(&l.exits[pos])
			if err != nil {
				return err
			}
			active[i] = a
		}
	}

	// 8. One jump per text, 9. the offered list.
	e.groupJumps(l)
	e.clearJumps()
	withText := false
	for _, pos := range e.kept {
		if l.exits[e.cand[pos]].hasText {
			withText = true
			break
		}
	}
	for _, pos := range e.kept {
		x := &l.exits[e.cand[pos]]
		if withText {
			if x.hasText {
				s.Jumps = append(s.Jumps, JumpOption{ID: q.jumps[x.jump].id, Active: e.active[pos]})
			}
		} else if e.active[pos] && !x.hasText {
			s.Jumps = append(s.Jumps, JumpOption{ID: q.jumps[x.jump].id, Active: true})
			break
		}
	}

	return nil
}

// candidates leaves in e.cand the positions of the jumps leaving l that are not hidden by their
// target's visit limit or, under the old TGE rules, by the exhausted jumps of their target.
func (e *engine) candidates(l *location) {
	q, s := e.q, e.s
	e.cand = e.cand[:0]
	for pos, k := range l.out {
		j := &q.jumps[k]
		if j.to >= 0 {
			if max := q.locs[j.to].maxVisits; max != 0 {
				if n := s.Visits.get(j.toID); n > 0 && n >= max {
					continue
				}
			}
		}
		if q.oldTGE && j.dest != nil && e.exhausted(j.dest) {
			continue
		}
		e.cand = append(e.cand, int32(pos))
	}
}

// noText reports whether location l has nothing to show: an empty location entered without a
// jump description, or a location whose selected text (index ti) is empty.
func (q *Quest) noText(l *location, s *State, ti int) bool {
	if l.empty {
		lj := q.lastJump(s)
		return lj < 0 || q.jumps[lj].desc == ""
	}
	return l.ownText(ti) == ""
}

// exhausted reports whether every jump in list (all with a count limit) has reached its limit:
// the old-TGE rule hides jumps into a location whose outgoing jumps are all exhausted.
func (e *engine) exhausted(list []int32) bool {
	for _, k := range list {
		if !e.limitReached(&e.q.jumps[k]) {
			return false
		}
	}
	return true
}

// limitReached reports whether jump j has a count limit and was taken that often. A jump never
// taken has not reached even a negative limit: the reference compares an absent count, which
// is never greater or equal.
func (e *engine) limitReached(j *jump) bool {
	if j.limit == 0 {
		return false
	}
	n := e.s.Jumped.get(j.id)
	return n > 0 && n >= j.limit
}

// sortJumps orders the candidate jumps of location l by showing order (see sortByOrder).
func (e *engine) sortJumps(l *location) {
	if l.oneOrder {
		shuffleTies(e.cand, e.rnd)
		return
	}
	ord := e.ord[:0]
	if l.allOut {
		ord = append(ord, l.outOrder...)
	} else {
		for _, pos := range e.cand {
			ord = append(ord, l.outOrder[pos])
		}
	}
	e.ord = ord
	e.ties = sortByOrder(e.cand, ord, e.ties[:0], e.rnd)
}

// sortByOrder sorts items by their keys ord (parallel to items) with the reference's selection
// sort (_sortJumps): for each position i it collects the remaining items (positions ≥ i) with
// the lowest key, in position order, picks one of them with rnd (drawing only when there is
// more than one) and swaps it into position i. The swaps move other items around, so the
// result depends on them. ties is a scratch buffer; sortByOrder returns it for reuse.
//
// All items with the lowest key m end up in the next positions, one per step; the loop handles
// them as a group, keeping the sorted list of positions that hold key m up to date through the
// swaps instead of rescanning every remaining item at every step.
func sortByOrder(items, ord, ties []int32, rnd formula.Random) []int32 {
	for i := 0; i < len(items); {
		m := ord[i]
		for _, o := range ord[i+1:] {
			m = min(m, o)
		}
		t := ties[:0]
		for k := i; k < len(items); k++ {
			if ord[k] == m {
				t = append(t, int32(k))
			}
		}
		ties = t[:0]
		for len(t) > 0 {
			r := 0
			if len(t) > 1 {
				r = rnd.Random(len(t))
			}
			if r < 0 || r >= len(t) {
				r = 0 // only a broken random source gets here
			}
			at := int(t[r])
			switch {
			case at == i:
				t = t[1:]
			case t[0] == int32(i):
				// Position i holds a tie too: it moves to at, which stays a tie position.
				t = t[1:]
			default:
				// Position i holds a higher key: it moves to at, no longer a tie.
				t = append(t[:r], t[r+1:]...)
			}
			items[i], items[at] = items[at], items[i]
			ord[i], ord[at] = ord[at], ord[i]
			i++
		}
	}
	return ties
}

// shuffleTies is sortByOrder for items that all have the same key. The tied positions are then
// always i and every position after it, so the draw at position i picks position i+r.
func shuffleTies(items []int32, rnd *alea.Alea) {
	for i := 0; i < len(items)-1; i++ {
		r := rnd.Random(len(items) - i)
		if r < 0 || r >= len(items)-i {
			r = 0 // only a broken random source gets here
		}
		items[i], items[i+r] = items[i+r], items[i]
	}
}

// jumpActive reports whether the jump of exit x can be taken now (the reference's
// isJumpActive).
func (e *engine) jumpActive(x *exit) (bool, error) {
	vals := e.s.Params
	for ci := range x.conds {
		c := &x.conds[ci]
		v := vals[c.param]
		if v > c.to || v < c.from {
			return false, nil
		}
		if len(c.eq) > 0 {
			in := false
			for _, x := range c.eq {
				if x == v {
					in = true
					break
				}
			}
			if in != c.eqIn {
				return false, nil
			}
		}
		if len(c.mod) > 0 {
			in := false
			for _, m := range c.mod {
				if m != 0 && v%m == 0 {
					in = true
					break
				}
			}
			if in != c.modIn {
				return false, nil
			}
		}
	}
	switch {
	case x.pass != nil:
		ok, err := x.pass.Test(vals, e.rnd)
		if err != nil {
			return false, e.q.jumps[x.jump].pass.fail(err)
		}
		if !ok {
			return false, nil
		}
	case x.broken:
		_, err := e.q.jumps[x.jump].pass.eval(vals, e.rnd)
		return false, err
	}
	if x.limited && e.limitReached(&e.q.jumps[x.jump]) {
		return false, nil
	}
	return true, nil
}

// textGroup is what groupJumps counts of a text group: the position of its first member, its
// size and the number of its active members.
type textGroup struct {
	stamp               uint32
	first, size, active int32
}

// groupJumps keeps one jump per text (the reference groups by the raw text, "" included),
// visiting the sorted candidates in order and handling each text when first seen. A text used
// by one jump keeps it if it is active (after a draw when its priority is below 1) or always
// shown; a text used by several jumps keeps one active jump drawn by priority, or else the first
// always-shown one. It leaves the positions of the kept jumps in e.kept.
func (e *engine) groupJumps(l *location) {
	cand, active := e.cand, e.active
	e.kept = e.kept[:0]
	if key := l.oneKey; key >= 0 {
		// Every jump leaving l has the same text: the candidates form one group.
		if len(cand) == 0 {
			return
		}
		n := int32(0)
		for _, a := range active {
			if a {
				n++
			}
		}
		e.keepOne(l, 0, textGroup{size: int32(len(cand)), active: n}, nil, key)
		return
	}
	keys := e.keys[:0]
	for _, pos := range cand {
		keys = append(keys, l.exits[pos].textKey)
	}
	e.keys = keys
	if len(e.groups) < e.q.textKeys {
		e.groups = make([]textGroup, e.q.textKeys)
	}
	if e.groupStamp++; e.groupStamp == 0 {
		clear(e.groups)
		e.groupStamp = 1
	}
	// Count the groups first. Handling a group changes only the active flag of a group of
	// one, so the counts of the others hold when their turn comes.
	for i, key := range keys {
		if key < 0 {
			continue
		}
		g := &e.groups[key]
		if g.stamp != e.groupStamp {
			*g = textGroup{stamp: e.groupStamp, first: int32(i)}
		}
		g.size++
		if active[i] {
			g.active++
		}
	}
	for i, key := range keys {
		if key < 0 || e.groups[key].first != int32(i) {
			continue // a text the reference never handles, or one seen already
		}
		e.keepOne(l, i, e.groups[key], keys, key)
	}
}

// keepOne handles the text group g of the candidates of l whose first member is at position i
// (see groupJumps), adding the position of the jump it keeps, if any, to e.kept. The members
// are the positions p ≥ i with keys[p] == key, or every position when keys is nil.
func (e *engine) keepOne(l *location, i int, g textGroup, keys []int32, key int32) {
	cand, active := e.cand, e.active
	if g.size == 1 {
		x := &l.exits[cand[i]]
		if x.priority < 1 && active[i] {
			active[i] = float64(e.rnd.Random(1000)) < x.priority*1000
		}
		if active[i] || x.alwaysShow {
			e.kept = append(e.kept, int32(i))
		}
		return
	}
	if g.active == 0 {
		for p := i; p < len(cand); p++ {
			if (keys == nil || keys[p] == key) && l.exits[cand[p]].alwaysShow {
				e.kept = append(e.kept, int32(p))
				break
			}
		}
		return
	}
	// The active members, in order.
	act := e.act[:0]
	for p := i; p < len(cand); p++ {
		if active[p] && (keys == nil || keys[p] == key) {
			act = append(act, int32(p))
		}
	}
	e.act = act
	maxPrio := 0.0
	for _, p := range act {
		if pr := l.exits[cand[p]].priority; pr > maxPrio {
			maxPrio = pr
		}
	}
	// The jumps not too unlikely: active, priority·100 ≥ the maximum (under TopPriority,
	// priority = the maximum).
	sum, last := 0.0, int32(-1)
	for _, p := range act {
		if pr := l.exits[cand[p]].priority; e.likely(pr, maxPrio) {
			sum = pr + sum
			last = p
		}
	}
	r := float64(e.rnd.Random(1_000_000)) / 1_000_000 * sum
	for _, p := range act {
		pr := l.exits[cand[p]].priority
		if !e.likely(pr, maxPrio) {
			continue
		}
		if pr >= r || p == last {
			e.kept = append(e.kept, p)
			break
		}
		r -= pr
	}
}

// likely reports whether a jump of priority pr in a text group whose highest priority is
// maxPrio may be drawn: the reference's "not too unlikely" (at least a hundredth of the highest),
// or under TopPriority only the highest.
func (e *engine) likely(pr, maxPrio float64) bool {
	if e.topPriority {
		return pr == maxPrio
	}
	return pr*100 >= maxPrio
}
