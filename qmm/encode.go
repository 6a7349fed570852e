package qmm

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"slices"
)

// Encode writes q to w as a .qmm file, the way the reference writer (qmwriter.ts) does:
//
//   - The magic is [MagicQMM7OldTGE] for quests whose Magic asks for the old rules (the .qm
//     magics and MagicQMM7OldTGE itself) and [MagicQMM7] otherwise, so a quest decoded from .qm
//     keeps its player rules.
//   - The version is q's for magics that store one, else 1.0.
//   - Only changes and conditions that change something are written. Like the reference writer,
//     a change whose media names are all absent or "" and that changes nothing else is dropped,
//     so a present but empty media name on such a change reads back as absent.
//   - What .qmm stores in one byte is written as one byte: a change with several kind flags
//     (possible only in .qm files) gets one kind, preferring formula, then value, then
//     percentage; a location with several kind flags gets the one [Location.Type] picks; a
//     showing type (an int32 in .qm jumps) is written as its low byte.
//   - Data that .qmm cannot hold (.qm Parsec and Artefact strings) is left out.
//
// Decoding the output gives back q, apart from these normalisations. Encode returns an error
// wrapping [ErrInvalidQuest] when q cannot be written: a nil q, an unknown Magic, or a change or
// condition for a parameter index outside q.Params or listed twice. Errors from w are returned
// as they are. Encode writes to w once.
func Encode(w io.Writer, q *Quest) error {
	b, err := appendQuest(make([]byte, 0, sizeBound(q)), q)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// sizeBound returns a size that the encoding of q rarely exceeds, so that the output buffer is
// allocated once: the fixed part of each record plus 8 + 2*len(s) for each string, which is
// exact for ASCII and twice the need for Cyrillic text.
func sizeBound(q *Quest) int {
	if q == nil {
		return 0
	}
	n := 0
	str := func(s string) { n += 8 + 2*len(s) }
	media := func(m *Media) { str(m.Image.Value); str(m.Sound.Value); str(m.Track.Value) }
	changes := func(list []ParamChange) {
		for i := range list {
			n += 10
			str(list[i].Formula)
			str(list[i].CritText)
			media(&list[i].Media)
		}
	}
	n += 128
	str(q.ChangeLog.Value)
	for i := range q.Params {
		p := &q.Params[i]
		n += 32
		str(p.Name)
		str(p.CritText)
		str(p.Starting)
		media(&p.Media)
		for _, r := range p.Ranges {
			n += 8
			str(r.Text)
		}
	}
	s := &q.Strings
	for _, v := range []string{s.ToStar, s.ToPlanet, s.Date, s.Money, s.FromPlanet, s.FromStar, s.Ranger,
		q.SuccessText, q.TaskText} {
		str(v)
	}
	for i := range q.Locations {
		l := &q.Locations[i]
		n += 40
		changes(l.Changes)
		for k := range l.Texts {
			str(l.Texts[k].Text)
			media(&l.Texts[k].Media)
		}
		str(l.TextSelectFormula)
	}
	for i := range q.Jumps {
		j := &q.Jumps[i]
		n += 48
		changes(j.Changes)
		for _, c := range j.Conditions {
			n += 22 + 4*len(c.MustEqualValues) + 4*len(c.MustModValues)
		}
		str(j.FormulaToPass)
		str(j.Text)
		str(j.Description)
		media(&j.Media)
	}
	return n
}

// encoder appends the .qmm form of a quest to buf; the first error wins.
type encoder struct {
	buf []byte
	err error
	q   *Quest
}

func (e *encoder) fail(format string, args ...any) {
	if e.err == nil {
		e.err = fmt.Errorf("%w: %s", ErrInvalidQuest, fmt.Sprintf(format, args...))
	}
}

func (e *encoder) u8(v uint8) { e.buf = append(e.buf, v) }

func (e *encoder) flag(v bool) {
	if v {
		e.buf = append(e.buf, 1)
	} else {
		e.buf = append(e.buf, 0)
	}
}

func (e *encoder) i32(v int32) { e.buf = binary.LittleEndian.AppendUint32(e.buf, uint32(v)) }

func (e *encoder) bool32(v bool) {
	if v {
		e.i32(1)
	} else {
		e.i32(0)
	}
}

func (e *encoder) f64(v float64) {
	e.buf = binary.LittleEndian.AppendUint64(e.buf, math.Float64bits(v))
}

func (e *encoder) count(what string, n int) {
	if n > math.MaxInt32 {
		e.fail("%d %s do not fit in a .qmm file", n, what)
	}
	e.i32(int32(n))
}

// str writes a present string.
func (e *encoder) str(s string) {
	e.i32(1)
	at := len(e.buf)
	e.i32(0)
	var units int
	e.buf, units = appendUTF16(e.buf, s)
	if units > math.MaxInt32 {
		e.fail("string of %d code units does not fit in a .qmm file", units)
	}
	binary.LittleEndian.PutUint32(e.buf[at:], uint32(units))
}

func (e *encoder) optStr(s OptString) {
	if !s.Valid {
		e.i32(0)
		return
	}
	e.str(s.Value)
}

func (e *encoder) media(m *Media) {
	e.optStr(m.Image)
	e.optStr(m.Sound)
	e.optStr(m.Track)
}

func appendQuest(buf []byte, q *Quest) ([]byte, error) {
	if q == nil {
		return nil, fmt.Errorf("%w: nil quest", ErrInvalidQuest)
	}
	e := encoder{buf: buf, q: q}
	switch {
	case !q.Magic.known():
		return nil, fmt.Errorf("%w: unknown magic %v", ErrInvalidQuest, q.Magic)
	case q.Magic.oldTGE():
		e.i32(int32(MagicQMM7OldTGE))
	default:
		e.i32(int32(MagicQMM7))
	}
	if q.Magic.HasVersion() {
		e.i32(q.MajorVersion)
		e.i32(q.MinorVersion)
	} else {
		e.i32(1)
		e.i32(0)
	}
	e.optStr(q.ChangeLog)
	e.u8(q.GivingRace)
	e.u8(q.WhenDone)
	e.u8(q.PlanetRace)
	e.u8(q.PlayerCareer)
	e.u8(q.PlayerRace)
	e.i32(q.ReputationChange)
	e.i32(q.ScreenSizeX)
	e.i32(q.ScreenSizeY)
	e.i32(q.WidthSize)
	e.i32(q.HeightSize)
	e.i32(q.DefaultJumpCountLimit)
	e.i32(q.Hardness)

	e.count("parameters", len(q.Params))
	for i := range q.Params {
		e.param(&q.Params[i])
	}

	s := &q.Strings
	e.str(s.ToStar)
	e.str(s.ToPlanet)
	e.str(s.Date)
	e.str(s.Money)
	e.str(s.FromPlanet)
	e.str(s.FromStar)
	e.str(s.Ranger)
	e.count("locations", len(q.Locations))
	e.count("jumps", len(q.Jumps))
	e.str(q.SuccessText)
	e.str(q.TaskText)

	for i := range q.Locations {
		e.location(i, &q.Locations[i])
	}
	for i := range q.Jumps {
		e.jump(i, &q.Jumps[i])
	}
	if e.err != nil {
		return nil, e.err
	}
	return e.buf, nil
}

func (e *encoder) param(p *Param) {
	e.i32(p.Min)
	e.i32(p.Max)
	e.u8(uint8(p.Type))
	e.u8(0)
	e.u8(0)
	e.u8(0)
	e.flag(p.ShowWhenZero)
	e.u8(uint8(p.CritType))
	e.flag(p.Active)
	e.count("display ranges", len(p.Ranges))
	e.flag(p.IsMoney)
	e.str(p.Name)
	for _, r := range p.Ranges {
		e.i32(r.From)
		e.i32(r.To)
		e.str(r.Text)
	}
	e.str(p.CritText)
	e.media(&p.Media)
	e.str(p.Starting)
}

func (e *encoder) location(i int, l *Location) {
	e.bool32(l.DayPassed)
	e.i32(l.X)
	e.i32(l.Y)
	e.i32(l.ID)
	e.i32(l.MaxVisits)
	e.u8(uint8(l.Type()))
	e.changes("location", i, l.Changes)
	e.count("texts", len(l.Texts))
	for k := range l.Texts {
		e.str(l.Texts[k].Text)
		e.media(&l.Texts[k].Media)
	}
	e.flag(l.TextByFormula)
	e.str(l.TextSelectFormula)
}

func (e *encoder) jump(i int, j *Jump) {
	e.f64(j.Priority)
	e.bool32(j.DayPassed)
	e.i32(j.ID)
	e.i32(j.From)
	e.i32(j.To)
	e.flag(j.AlwaysShow)
	e.i32(j.CountLimit)
	e.i32(j.ShowingOrder)
	e.conditions(i, j.Conditions)
	e.changes("jump", i, j.Changes)
	e.str(j.FormulaToPass)
	e.str(j.Text)
	e.str(j.Description)
	e.media(&j.Media)
}

// written reports whether the reference writer writes change c: whether it changes anything,
// with "" media names counting as absent.
func written(c *ParamChange) bool {
	return c.Change != 0 || c.Showing != ShowingUnchanged || c.IsFormula || c.IsValue ||
		c.IsPercentage || c.Formula != "" || c.CritText != "" || c.Media.Image.Value != "" ||
		c.Media.Sound.Value != "" || c.Media.Track.Value != ""
}

// sortedByParam returns list, or a sorted copy when it is not sorted by parameter; ok is false,
// with the offending index, when a parameter is out of range or listed twice. It serves both the
// change lists and the condition lists.
func sortedByParam[T any](list []T, param func(*T) int32, nParams int) (sorted []T, bad int32, ok bool) {
	for i := 1; i < len(list); i++ {
		if param(&list[i]) <= param(&list[i-1]) {
			list = slices.Clone(list)
			slices.SortStableFunc(list, func(a, b T) int { return cmp.Compare(param(&a), param(&b)) })
			break
		}
	}
	for i := range list {
		p := param(&list[i])
		if p < 0 || int(p) >= nParams || i > 0 && param(&list[i-1]) == p {
			return nil, p, false
		}
	}
	return list, 0, true
}

func changeParam(c *ParamChange) int32  { return c.Param }
func conditionParam(c *Condition) int32 { return c.Param }

func (e *encoder) changes(owner string, index int, list []ParamChange) {
	list, bad, ok := sortedByParam(list, changeParam, len(e.q.Params))
	if !ok {
		e.fail("%s %d: change for parameter index %d: out of range or listed twice", owner, index, bad)
		e.i32(0)
		return
	}
	n := 0
	for i := range list {
		if written(&list[i]) {
			n++
		}
	}
	e.i32(int32(n))
	for i := range list {
		c := &list[i]
		if !written(c) {
			continue
		}
		e.i32(c.Param + 1)
		e.i32(c.Change)
		e.u8(uint8(c.Showing))
		switch {
		case c.IsFormula:
			e.u8(uint8(ChangeFormula))
		case c.IsValue:
			e.u8(uint8(ChangeValue))
		case c.IsPercentage:
			e.u8(uint8(ChangePercentage))
		default:
			e.u8(uint8(ChangeAdd))
		}
		e.str(c.Formula)
		e.str(c.CritText)
		e.media(&c.Media)
	}
}

func (e *encoder) conditions(jump int, list []Condition) {
	list, bad, ok := sortedByParam(list, conditionParam, len(e.q.Params))
	if !ok {
		e.fail("jump %d: condition for parameter index %d: out of range or listed twice", jump, bad)
		e.i32(0)
		return
	}
	n := 0
	for i := range list {
		p := &e.q.Params[list[i].Param]
		if !list[i].isDefaultFor(p.Min, p.Max) {
			n++
		}
	}
	e.i32(int32(n))
	for i := range list {
		c := &list[i]
		p := &e.q.Params[c.Param]
		if c.isDefaultFor(p.Min, p.Max) {
			continue
		}
		e.i32(c.Param + 1)
		e.i32(c.MustFrom)
		e.i32(c.MustTo)
		e.count("equal values", len(c.MustEqualValues))
		e.flag(c.MustEqual)
		for _, v := range c.MustEqualValues {
			e.i32(v)
		}
		e.count("mod values", len(c.MustModValues))
		e.flag(c.MustMod)
		for _, v := range c.MustModValues {
			e.i32(v)
		}
	}
}
