package qms

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/questbot/questbot/qmm"
)

// subroutines is the sub-routine structure of a compiled quest: the stack parameter, the calls
// (jumps that push their return site on it) and the cases back (jumps that pop it), which the
// compiler makes from #return sites.
type subroutines struct {
	param   int            // index of the stack parameter
	declare bool           // write the stack parameter's #var (it is not the one the compiler makes)
	calls   map[int]int32  // jump index → the location id the call returns to
	backs   map[int]bool   // jump indexes of the cases back
	returns map[int32]bool // ids of the locations that end a sub-routine
}

var (
	pushRE = regexp.MustCompile(`^\[p(\d+)\]\*256\+(\d+)$`)
	popRE  = regexp.MustCompile(`^\(\[p(\d+)\] mod 256\)=(\d+)$`)
)

// findSubroutines finds the structure the compiler gives sub-routines: a parameter that only
// calls change, by $RRR*256+BACK, and only cases back read, each going to BACK when
// ($RRR mod 256)=BACK and changing nothing but $RRR = $RRR div 256. It returns nil when the
// quest has no such parameter, or uses it in any other way.
func findSubroutines(q *qmm.Quest) *subroutines {
	param := -1
	for k := range q.Jumps {
		for _, ch := range q.Jumps[k].Changes {
			if m := pushRE.FindStringSubmatch(ch.Formula); m != nil && ch.IsFormula && m[1] == strconv.Itoa(int(ch.Param)+1) {
				param = int(ch.Param)
				break
			}
		}
		if param >= 0 {
			break
		}
	}
	if param < 0 {
		return nil
	}
	ref := "[p" + strconv.Itoa(param+1) + "]"
	disp := "[d" + strconv.Itoa(param+1) + "]"
	uses := func(s string) bool { return strings.Contains(s, ref) || strings.Contains(s, disp) }
	ids := map[int32]bool{}
	for i := range q.Locations {
		ids[q.Locations[i].ID] = true
	}
	sub := &subroutines{param: param, calls: map[int]int32{}, backs: map[int]bool{}, returns: map[int32]bool{}}
	if uses(q.TaskText) || uses(q.SuccessText) {
		return nil
	}
	for i := range q.Params {
		p := &q.Params[i]
		if uses(p.Starting) || uses(p.CritText) {
			return nil
		}
		for _, r := range p.Ranges {
			if uses(r.Text) {
				return nil
			}
		}
	}
	for i := range q.Locations {
		l := &q.Locations[i]
		if uses(l.TextSelectFormula) {
			return nil
		}
		for _, t := range l.Texts {
			if uses(t.Text) {
				return nil
			}
		}
		for _, ch := range l.Changes {
			if int(ch.Param) == param || uses(ch.Formula) || uses(ch.CritText) {
				return nil
			}
		}
	}
	back := "[p" + strconv.Itoa(param+1) + "] div 256"
	for k := range q.Jumps {
		j := &q.Jumps[k]
		if m := popRE.FindStringSubmatch(j.FormulaToPass); m != nil && m[1] == strconv.Itoa(param+1) {
			t, err := strconv.Atoi(m[2])
			if err != nil || int32(t) != j.To || !ids[j.To] || !ids[j.From] || !plainBack(q, j, param, back) {
				return nil
			}
			sub.backs[k] = true
			sub.returns[j.From] = true
			continue
		}
		if uses(j.Text) || uses(j.Description) || uses(j.FormulaToPass) {
			return nil
		}
		for _, c := range j.Conditions {
			if int(c.Param) == param && !trivialCond(q, c) {
				return nil
			}
		}
		for _, ch := range j.Changes {
			if uses(ch.CritText) {
				return nil
			}
			if int(ch.Param) != param {
				if uses(ch.Formula) {
					return nil
				}
				continue
			}
			m := pushRE.FindStringSubmatch(ch.Formula)
			if m == nil || !ch.IsFormula || m[1] != strconv.Itoa(param+1) || ch.Showing != qmm.ShowingUnchanged ||
				ch.CritText != "" || !ch.Media.IsZero() {
				return nil
			}
			t, err := strconv.Atoi(m[2])
			if err != nil || !ids[int32(t)] || t <= 0 || t > 255 {
				return nil
			}
			sub.calls[k] = int32(t)
		}
	}
	if len(sub.calls) == 0 || len(sub.backs) == 0 {
		return nil
	}
	return sub
}

// plainBack reports whether jump j is only a case back: no text, no other condition or change,
// the default order and priority.
func plainBack(q *qmm.Quest, j *qmm.Jump, param int, back string) bool {
	if j.Text != "" || j.Description != "" || j.DayPassed || j.AlwaysShow || j.CountLimit != 0 ||
		j.Priority != 1 || j.ShowingOrder != 5 || !j.Media.IsZero() || len(j.Changes) != 1 {
		return false
	}
	ch := j.Changes[0]
	if int(ch.Param) != param || !ch.IsFormula || ch.Formula != back || ch.Showing != qmm.ShowingUnchanged ||
		ch.CritText != "" || !ch.Media.IsZero() {
		return false
	}
	for _, c := range j.Conditions {
		if !trivialCond(q, c) {
			return false
		}
	}
	return true
}

// trivialCond reports whether a condition lets every value of its parameter pass, as the
// player reads it.
func trivialCond(q *qmm.Quest, c qmm.Condition) bool {
	if int(c.Param) >= len(q.Params) {
		return false
	}
	p := &q.Params[c.Param]
	lo, hi := p.Min, p.Max
	if lo > hi {
		hi = lo
	}
	return c.MustFrom <= lo && c.MustTo >= hi && len(c.MustEqualValues) == 0 && len(c.MustModValues) == 0
}

// mustDeclare reports whether the stack parameter differs from the one the compiler makes, so
// that the source must declare it.
func (s *subroutines) mustDeclare(q *qmm.Quest) bool {
	p := &q.Params[s.param]
	return s.param != 0 || p.Name != stackVar || p.Min != 0 || p.Max != 100000000 || p.Starting != "0" ||
		p.Type != qmm.ParamOrdinary || p.CritType != qmm.CritMax || p.CritText != "" || !p.ShowWhenZero ||
		!p.Active || p.IsMoney || len(p.Ranges) != 0 || !p.Media.IsZero()
}
