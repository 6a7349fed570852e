package qmm

import (
	"encoding/binary"
	"slices"
)

// The records after the strings block: locations, jumps and their change and condition lists.

func (d *decoder) locationQM(l *Location) {
	l.DayPassed = d.i32() != 0
	l.X = d.i32()
	l.Y = d.i32()
	l.ID = d.i32()
	l.IsStarting = d.flag()
	l.IsSuccess = d.flag()
	l.IsFail = d.flag()
	l.IsDeadly = d.flag()
	l.IsEmpty = d.flag()
	changes := d.changes[:0]
	for i := range d.params {
		var c ParamChange
		c.Param = int32(i)
		d.skip(12)
		c.Change = d.i32()
		c.Showing = ShowingType(d.u8())
		d.skip(4)
		c.IsPercentage = d.flag()
		c.IsValue = d.flag()
		c.IsFormula = d.flag()
		c.Formula = d.str()
		d.skip(10)
		c.CritText = d.str()
		if !c.IsDefault() {
			changes = append(changes, c)
		}
	}
	d.changes = changes
	l.Changes = cloneOrNil(changes)
	l.Texts = make([]LocationText, qmLocationText)
	for i := range l.Texts {
		l.Texts[i].Text = d.str()
	}
	l.TextByFormula = d.flag()
	d.skip(4)
	d.str()
	d.str()
	l.TextSelectFormula = d.str()
}

func (d *decoder) locationQMM(l *Location) {
	l.DayPassed = d.i32() != 0
	l.X = d.i32()
	l.Y = d.i32()
	l.ID = d.i32()
	l.MaxVisits = d.i32()
	switch LocationType(d.u8()) {
	case LocationStarting:
		l.IsStarting = true
	case LocationEmpty:
		l.IsEmpty = true
	case LocationSuccess:
		l.IsSuccess = true
	case LocationFail:
		l.IsFail = true
	case LocationDeadly:
		l.IsDeadly = true
	}
	l.Changes = d.changesQMM()
	if n := d.count("texts", minTextQMM); n > 0 {
		l.Texts = make([]LocationText, n)
		for i := range l.Texts {
			t := &l.Texts[i]
			t.Text = d.str()
			t.Media = d.media()
		}
	}
	l.TextByFormula = d.flag()
	l.TextSelectFormula = d.str()
}

// badParam records that record i of a list starting at offset start names a parameter that
// does not exist; p is the file's number minus 1.
func (d *decoder) badParam(what string, start, i int, p int32) {
	d.fail(start, nil, "%s %d: parameter number %d out of range 1..%d", what, i, int64(p)+1, len(d.params))
}

// changesQMM reads a .qmm change list and returns its sparse form. Records may come in any
// order; the last record of a parameter wins, as in the reference reader, and records equal
// to the default are dropped.
func (d *decoder) changesQMM() []ParamChange {
	n := d.count("parameter changes", minChangeQMM)
	if n == 0 {
		return nil
	}
	start := d.pos
	// The records usually become the list as they are, so they are read straight into it.
	out := make([]ParamChange, n)
	for i := range out {
		c := &out[i]
		c.Param = d.i32() - 1
		c.Change = d.i32()
		c.Showing = ShowingType(d.u8())
		switch ChangeKind(d.u8()) {
		case ChangeValue:
			c.IsValue = true
		case ChangePercentage:
			c.IsPercentage = true
		case ChangeFormula:
			c.IsFormula = true
		}
		c.Formula = d.str()
		c.CritText = d.str()
		c.Media = d.media()
	}
	if d.failed() {
		return nil
	}
	ascending := true
	for i := range out {
		if p := out[i].Param; uint32(p) >= uint32(len(d.params)) {
			d.badParam("parameter change", start, i, p)
			return nil
		} else if i > 0 && p <= out[i-1].Param {
			ascending = false
		}
	}
	if !ascending {
		slices.SortStableFunc(out, func(a, b ParamChange) int { return int(a.Param - b.Param) })
	}
	k := 0
	for i := range out {
		if i+1 < len(out) && out[i+1].Param == out[i].Param || out[i].IsDefault() {
			continue
		}
		if k != i {
			out[k] = out[i]
		}
		k++
	}
	return shrink(out, k)
}

// shrink returns s[:k], copied to a slice of its own when that saves much memory, or nil when
// k is 0, so that equal models compare equal with reflect.DeepEqual.
func shrink[T any](s []T, k int) []T {
	switch {
	case k == 0:
		return nil
	case k < len(s)/2:
		return slices.Clone(s[:k])
	}
	clear(s[k:])
	return s[:k:k]
}

// cloneOrNil returns a copy of s that does not share the decoder's scratch memory, or nil when
// s is empty.
func cloneOrNil[T any](s []T) []T {
	if len(s) == 0 {
		return nil
	}
	return slices.Clone(s)
}

func (d *decoder) jumpQM(j *Jump) {
	j.Priority = d.f64()
	j.DayPassed = d.i32() != 0
	j.ID = d.i32()
	j.From = d.i32()
	j.To = d.i32()
	d.skip(1) // the editor's colour
	j.AlwaysShow = d.flag()
	j.CountLimit = d.i32()
	j.ShowingOrder = d.i32()
	changes, conds := d.changes[:0], d.conds[:0]
	for i := range d.params {
		var c ParamChange
		var k Condition
		c.Param, k.Param = int32(i), int32(i)
		d.skip(4)
		k.MustFrom = d.i32()
		k.MustTo = d.i32()
		c.Change = d.i32()
		c.Showing = ShowingType(d.i32())
		d.skip(1)
		c.IsPercentage = d.flag()
		c.IsValue = d.flag()
		c.IsFormula = d.flag()
		c.Formula = d.str()
		k.MustEqualValues, k.MustEqual = d.values("equal values")
		k.MustModValues, k.MustMod = d.values("mod values")
		c.CritText = d.str()
		if !c.IsDefault() {
			changes = append(changes, c)
		}
		if !k.isDefaultFor(d.params[i].Min, d.params[i].Max) {
			conds = append(conds, k)
		}
	}
	d.changes, d.conds = changes, conds
	j.Changes = cloneOrNil(changes)
	j.Conditions = d.sharedConditions(conds)
	j.FormulaToPass = d.str()
	j.Text = d.str()
	j.Description = d.str()
}

func (d *decoder) jumpQMM(j *Jump) {
	j.Priority = d.f64()
	j.DayPassed = d.i32() != 0
	j.ID = d.i32()
	j.From = d.i32()
	j.To = d.i32()
	j.AlwaysShow = d.flag()
	j.CountLimit = d.i32()
	j.ShowingOrder = d.i32()
	j.Conditions = d.conditionsQMM()
	j.Changes = d.changesQMM()
	j.FormulaToPass = d.str()
	j.Text = d.str()
	j.Description = d.str()
	j.Media = d.media()
}

// conditionsQMM reads a .qmm condition list and returns its sparse form, as changesQMM does.
func (d *decoder) conditionsQMM() []Condition {
	n := d.count("parameter conditions", minCondQMM)
	if n == 0 {
		return nil
	}
	start := d.pos
	out := slices.Grow(d.conds[:0], n)[:n]
	d.conds = out
	for i := range out {
		k := &out[i]
		k.Param = d.i32() - 1
		k.MustFrom = d.i32()
		k.MustTo = d.i32()
		k.MustEqualValues, k.MustModValues = nil, nil
		if flag, ok := d.noValues(); ok {
			k.MustEqual = flag
		} else {
			k.MustEqualValues, k.MustEqual = d.values("equal values")
		}
		if flag, ok := d.noValues(); ok {
			k.MustMod = flag
		} else {
			k.MustModValues, k.MustMod = d.values("mod values")
		}
	}
	if d.failed() {
		return nil
	}
	// Equal records give equal lists: the bytes of the records are the key for sharing.
	raw := d.data[start:d.pos]
	if shared, ok := d.condLists[string(raw)]; ok {
		return shared
	}
	ascending := true
	for i := range out {
		if p := out[i].Param; uint32(p) >= uint32(len(d.params)) {
			d.badParam("parameter condition", start, i, p)
			return nil
		} else if i > 0 && p <= out[i-1].Param {
			ascending = false
		}
	}
	if !ascending {
		slices.SortStableFunc(out, func(a, b Condition) int { return int(a.Param - b.Param) })
	}
	k := 0
	for i := range out {
		p := &d.params[out[i].Param]
		if i+1 < len(out) && out[i+1].Param == out[i].Param || out[i].isDefaultFor(p.Min, p.Max) {
			continue
		}
		out[k] = out[i]
		k++
	}
	return d.shareConditions(raw, out[:k])
}

// shareConditions returns list, which is in the decoder's scratch memory, as a list of the
// model under the given key: a copy, remembered so that later jumps with the same key get the
// same list. Quests converted from .qm list a condition for every parameter in every jump, and
// most jumps repeat the same list; sharing them keeps the decoded model of such a quest several
// times smaller.
func (d *decoder) shareConditions(key []byte, list []Condition) []Condition {
	if d.condLists == nil {
		d.condLists = make(map[string][]Condition)
	}
	own := cloneOrNil(list)
	d.condLists[string(key)] = own
	return own
}

// sharedConditions is shareConditions for a .qm jump, whose conditions are not contiguous in
// the file: the key is made of the list's values.
func (d *decoder) sharedConditions(list []Condition) []Condition {
	if len(list) == 0 {
		return nil
	}
	key := d.key[:0]
	for i := range list {
		c := &list[i]
		key = binary.LittleEndian.AppendUint32(key, uint32(c.Param))
		key = binary.LittleEndian.AppendUint32(key, uint32(c.MustFrom))
		key = binary.LittleEndian.AppendUint32(key, uint32(c.MustTo))
		key = append(key, b2u(c.MustEqual)|b2u(c.MustMod)<<1)
		key = binary.LittleEndian.AppendUint32(key, uint32(len(c.MustEqualValues)))
		for _, v := range c.MustEqualValues {
			key = binary.LittleEndian.AppendUint32(key, uint32(v))
		}
		key = binary.LittleEndian.AppendUint32(key, uint32(len(c.MustModValues)))
		for _, v := range c.MustModValues {
			key = binary.LittleEndian.AppendUint32(key, uint32(v))
		}
	}
	d.key = key
	if shared, ok := d.condLists[string(key)]; ok {
		return shared
	}
	return d.shareConditions(key, list)
}

func b2u(b bool) byte {
	if b {
		return 1
	}
	return 0
}
