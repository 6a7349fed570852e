package questfs

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"

	"github.com/questbot/questbot/formula"
	"github.com/questbot/questbot/qmm"
)

// # Warnings for a quest's author
//
// Lint finds what plays but is likely a mistake of the quest's author, and names the place of
// each: the upload (bot/devtools), /compile and the import (questbot quests add) show the
// warnings with the answer, and the quest is stored all the same.

// WarningKind is what a Warning is about.
type WarningKind string

// The kinds of warnings.
const (
	// WarnMissingImage: the quest names an image (Name) that is found nowhere; Place says where.
	WarnMissingImage WarningKind = "missing image"
	// WarnNoChoice: the quest has no jump at all, so it never offers a choice (a stub).
	WarnNoChoice WarningKind = "no choice"
	// WarnDefaultText: the task or the congratulation (Place) is the editor's default text,
	// which players are not shown.
	WarnDefaultText WarningKind = "default text"
	// WarnUnreachable: no jump leads to the location (Place) from the starting location,
	// whatever the conditions.
	WarnUnreachable WarningKind = "unreachable"
	// WarnDeadEnd: the location (Place) can be reached, ends nothing (it is no win, failure or
	// death) and no jump leaves it: a player who gets there is stuck.
	WarnDeadEnd WarningKind = "dead end"
	// WarnUnusedParam: the active parameter (Place; Name its name) is never changed, shown or
	// hidden, and never read by a condition, a formula or a text.
	WarnUnusedParam WarningKind = "unused parameter"
	// WarnFormulaSyntax: a formula (Formula at Place; Name its text) does not parse: it fails
	// whenever the game needs it. Detail is the parser's message (the reference's wording), At
	// the 1-based position of the error.
	WarnFormulaSyntax WarningKind = "formula syntax"
	// WarnNoSuchParam: a formula reads a parameter the quest does not have (Detail, "p9"): it
	// fails whenever the game needs it.
	WarnNoSuchParam WarningKind = "no such parameter"
	// WarnDivisionByZero: a formula divides by zero, or by a random value that may be zero
	// (Detail, the divisor: "0", "[0..3]"). It does not fail, but gives ±2 000 000 000, as the
	// reference does.
	WarnDivisionByZero WarningKind = "division by zero"
)

// IsStub reports whether warnings of Lint tell a stub: a quest that offers no choice at all.
func IsStub(warnings []Warning) bool {
	for _, w := range warnings {
		if w.Kind == WarnNoChoice {
			return true
		}
	}
	return false
}

// Warning is one thing Lint found.
type Warning struct {
	Kind WarningKind
	// Place is where the quest has it: "L12" for location 12, "J7" for jump 7, "P3" for
	// parameter 3 (1-based, as the editor numbers them), "task" or "success"; "" for the quest as
	// a whole.
	Place string
	// Name is what the warning is about (an image's name, a parameter's name, a formula's
	// text), "" when the kind says it all.
	Name string
	// Formula is which formula of the place a formula's warning is about: FormulaStart (a
	// parameter's starting value), FormulaSelect (a location's choice of text), FormulaPass (a
	// jump's condition), or "P3" for the change of parameter 3 (at a location or jump).
	Formula string
	// Detail and At are what is wrong with the formula (see the kinds).
	Detail string
	At     int
}

// The formulas of a place that are not a parameter's change (Warning.Formula).
const (
	FormulaStart  = "start"
	FormulaSelect = "select"
	FormulaPass   = "pass"
)

// maxWarnings bounds the warnings Lint returns: a quest with a hundred warnings of a kind does
// not need them all told.
const maxWarnings = 50

// Lint returns the warnings of a checked quest, at most maxWarnings, in order of kind and place.
// found tells whether an image name is found (nil: looked for in the folders Quest.Image looks in).
func Lint(q *Quest, found func(name string) bool) []Warning {
	if found == nil {
		dirs := q.imageDirs()
		found = func(name string) bool { return LookupImage(name, dirs...) != "" }
	}
	var out []Warning
	add := func(w Warning) {
		if len(out) < maxWarnings {
			out = append(out, w)
		}
	}
	if len(q.Doc.Jumps) == 0 {
		add(Warning{Kind: WarnNoChoice})
	}
	if IsEditorDefault(q.Doc.TaskText) {
		add(Warning{Kind: WarnDefaultText, Place: "task"})
	}
	if IsEditorDefault(q.Doc.SuccessText) {
		add(Warning{Kind: WarnDefaultText, Place: "success"})
	}
	d := q.Doc
	reach := reachable(d)
	for i := range d.Locations {
		l := &d.Locations[i]
		if !reach[l.ID] {
			add(Warning{Kind: WarnUnreachable, Place: "L" + strconv.Itoa(int(l.ID))})
		}
	}
	leaves := map[int32]bool{}
	for i := range d.Jumps {
		leaves[d.Jumps[i].From] = true
	}
	for i := range d.Locations {
		l := &d.Locations[i]
		if reach[l.ID] && !leaves[l.ID] && !l.IsSuccess && !l.IsFail && !l.IsDeadly && len(d.Jumps) > 0 {
			add(Warning{Kind: WarnDeadEnd, Place: "L" + strconv.Itoa(int(l.ID))})
		}
	}
	for _, i := range unusedParams(d) {
		add(Warning{Kind: WarnUnusedParam, Place: "P" + strconv.Itoa(i+1), Name: d.Params[i].Name})
	}
	for _, ref := range imageRefs(q) {
		if !found(ref.name) {
			add(Warning{Kind: WarnMissingImage, Place: ref.place, Name: ref.name})
		}
	}
	for _, w := range formulaWarnings(d) {
		add(w)
	}
	return out
}

// formulaWarnings checks every formula the player evaluates (the starting values, the choices of
// text, the jumps' conditions and the changes by formula), in the order of the file: a formula
// that does not parse, one that reads a parameter the quest lacks, one that divides by what is
// or may be zero. The formulas inside texts ({…}) are not checked.
func formulaWarnings(d *qmm.Quest) []Warning {
	var out []Warning
	check := func(place, which, src string) {
		shown := clipFormula(src)
		e, err := formula.Parse(src)
		var se *formula.SyntaxError
		if errors.As(err, &se) {
			out = append(out, Warning{Kind: WarnFormulaSyntax, Place: place, Formula: which, Name: shown,
				Detail: se.Msg, At: se.Pos + 1})
			return
		}
		if err != nil {
			return
		}
		for _, p := range e.Params() {
			if p < 0 || p >= len(d.Params) {
				out = append(out, Warning{Kind: WarnNoSuchParam, Place: place, Formula: which, Name: shown,
					Detail: "p" + strconv.Itoa(p+1)})
			}
		}
		for _, z := range e.ZeroDivisors() {
			out = append(out, Warning{Kind: WarnDivisionByZero, Place: place, Formula: which, Name: shown, Detail: z})
		}
	}
	changes := func(place string, list []qmm.ParamChange) {
		for _, c := range list {
			if c.IsFormula && c.Formula != "" {
				check(place, "P"+strconv.Itoa(int(c.Param)+1), c.Formula)
			}
		}
	}
	for i := range d.Params {
		if p := &d.Params[i]; p.Active && !p.IsMoney {
			// The player reads "[0h10]" as "[0..10]", an old way of writing a range.
			check("P"+strconv.Itoa(i+1), FormulaStart, strings.Replace(p.Starting, "h", "..", 1))
		}
	}
	for i := range d.Locations {
		l := &d.Locations[i]
		place := "L" + strconv.Itoa(int(l.ID))
		if l.TextByFormula && l.TextSelectFormula != "" {
			check(place, FormulaSelect, l.TextSelectFormula)
		}
		changes(place, l.Changes)
	}
	for i := range d.Jumps {
		j := &d.Jumps[i]
		place := "J" + strconv.Itoa(int(j.ID))
		if j.FormulaToPass != "" {
			check(place, FormulaPass, j.FormulaToPass)
		}
		changes(place, j.Changes)
	}
	return out
}

// clipFormula is a formula's text on one line, at most 80 characters, for a warning.
func clipFormula(src string) string {
	s := strings.Join(strings.Fields(src), " ")
	if r := []rune(s); len(r) > 80 {
		return string(r[:80]) + "…"
	}
	return s
}

// reachable returns the locations a jump path leads to from the starting one (conditions aside).
func reachable(d *qmm.Quest) map[int32]bool {
	next := map[int32][]int32{}
	for i := range d.Jumps {
		next[d.Jumps[i].From] = append(next[d.Jumps[i].From], d.Jumps[i].To)
	}
	seen := map[int32]bool{}
	var stack []int32
	for i := range d.Locations {
		if d.Locations[i].IsStarting {
			seen[d.Locations[i].ID] = true
			stack = append(stack, d.Locations[i].ID)
		}
	}
	for len(stack) > 0 {
		at := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, to := range next[at] {
			if !seen[to] {
				seen[to] = true
				stack = append(stack, to)
			}
		}
	}
	return seen
}

// unusedParams returns the 0-based indices of the active parameters nothing changes, shows,
// hides or reads (see WarnUnusedParam).
func unusedParams(d *qmm.Quest) []int {
	used := make([]bool, len(d.Params))
	changes := func(list []qmm.ParamChange) {
		for _, c := range list {
			if int(c.Param) < len(used) && (c.Change != 0 || c.IsValue || c.IsFormula || c.Showing != qmm.ShowingUnchanged) {
				used[c.Param] = true
			}
		}
	}
	for i := range d.Locations {
		changes(d.Locations[i].Changes)
	}
	for i := range d.Jumps {
		j := &d.Jumps[i]
		changes(j.Changes)
		for _, c := range j.Conditions {
			if int(c.Param) >= len(used) {
				continue
			}
			p := &d.Params[c.Param]
			if c.MustFrom > p.Min || c.MustTo < p.Max || len(c.MustEqualValues) > 0 || len(c.MustModValues) > 0 {
				used[c.Param] = true
			}
		}
	}
	// Texts and formulas read a parameter as [pN]: every string of the quest is in its JSON.
	all, err := json.Marshal(d)
	if err != nil {
		return nil
	}
	text := strings.ToLower(string(all))
	var out []int
	for i := range d.Params {
		if d.Params[i].Active && !used[i] && !strings.Contains(text, "[p"+strconv.Itoa(i+1)+"]") {
			out = append(out, i)
		}
	}
	return out
}

// editorDefaults are the texts the quest editor puts into a new quest's task and congratulation,
// which an author who wrote none leaves in the file.
var editorDefaults = []string{"Описание задания", "Описание поздравления"}

// IsEditorDefault reports whether a task or congratulation text is the editor's default (spaces
// and case aside).
func IsEditorDefault(s string) bool {
	s = strings.Join(strings.Fields(s), " ")
	for _, d := range editorDefaults {
		if strings.EqualFold(s, d) {
			return true
		}
	}
	return false
}
