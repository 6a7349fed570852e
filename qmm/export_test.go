package qmm

// The helpers of the model the tests of package qmm_test use, under exported names.

var DenseChanges = denseChanges

func (m Magic) Known() bool      { return m.known() }
func (m Magic) IsQMM() bool      { return m.isQMM() }
func (m Magic) OldTGE() bool     { return m.oldTGE() }
func (m Magic) ParamsCount() int { return m.paramsCount() }

func (l *Location) Change(p int) ParamChange    { return l.change(p) }
func (j *Jump) Change(p int) ParamChange        { return j.change(p) }
func (q *Quest) Conditions(j *Jump) []Condition { return q.conditions(j) }
