package scripts

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/casbin/govaluate"
)

// Problem is something wrong in a stored command tree.
type Problem struct {
	// Command is the name of the command concerned ("" when none can be named).
	Command string
	// Action is the id of the action concerned, 0 for the command itself.
	Action int64
	Msg    string
}

// Error describes the problem with its place.
func (p *Problem) Error() string {
	switch {
	case p.Action != 0:
		return fmt.Sprintf("scripts: command %q, action %d: %s", p.Command, p.Action, p.Msg)
	case p.Command != "":
		return fmt.Sprintf("scripts: command %q: %s", p.Command, p.Msg)
	}
	return "scripts: " + p.Msg
}

// ErrorList is every problem found in a tree.
type ErrorList []*Problem

// Error lists the problems, one a line.
func (l ErrorList) Error() string {
	msgs := make([]string, len(l))
	for i, p := range l {
		msgs[i] = p.Error()
	}
	return strings.Join(msgs, "\n")
}

// Definition is a command tree as stored: commands, their actions as a flat list (linked by
// Parent), and the parameter types.
type Definition struct {
	Revision int64
	Commands []*Command
	Actions  []*Action
	Params   []*ParamType
	// Builtins are the names of the built-in operations the running code implements; a
	// builtin action naming another is a problem of its command.
	Builtins []string
}

var (
	procedureName = regexp.MustCompile(`^[a-z_][a-z0-9_]*(\.[a-z_][a-z0-9_]*)?$`)
	httpMethod    = regexp.MustCompile(`^[A-Z]{1,16}$`)
	placeholder   = regexp.MustCompile(`\{([A-Z][A-Z0-9_]*)\}`)
)

// Build links the definition into a tree and validates it. A command with any problem (an
// unknown action type, a cycle, a missing English text, a reference to an action or parameter
// that does not exist, an expression that does not parse) is left out of the tree's Commands,
// and its problems are listed in the tree's Problems: a broken command is refused whole, never
// run in part. The definition's actions are linked in place.
func Build(d Definition) *Tree {
	t := &Tree{Revision: d.Revision, Commands: map[string]*Command{}, Params: map[string]*ParamType{},
		actions: map[int64]*Action{}, cmds: map[int64]*Command{}, builtins: d.Builtins}
	for _, p := range d.Params {
		t.Params[p.Name] = p
	}
	for _, name := range []string{paramUser, paramService, ParamLang, paramName, paramDeveloper, paramAdmin, paramArgs} {
		if t.Params[name] == nil {
			t.Params[name] = &ParamType{Name: name}
		}
	}
	cmds := map[int64]*Command{}
	for _, c := range d.Commands {
		c.Actions = nil
		cmds[c.ID] = c
	}
	byID := map[int64]*Action{}
	for _, a := range d.Actions {
		a.children, a.parent, a.guard = nil, nil, nil
		byID[a.ID] = a
	}
	bad := map[int64]bool{} // commands with problems
	report := func(cmd int64, action int64, format string, args ...any) {
		name := ""
		if c := cmds[cmd]; c != nil {
			name = c.Name
		}
		t.Problems = append(t.Problems, &Problem{Command: name, Action: action, Msg: fmt.Sprintf(format, args...)})
		bad[cmd] = true
	}
	// Link parents; a parent that is missing or belongs to another command is dangling.
	for _, a := range d.Actions {
		if cmds[a.Command] == nil {
			report(a.Command, a.ID, "belongs to command %d, which does not exist", a.Command)
			continue
		}
		if a.Parent == 0 {
			cmds[a.Command].Actions = append(cmds[a.Command].Actions, a)
			continue
		}
		p := byID[a.Parent]
		switch {
		case p == nil:
			report(a.Command, a.ID, "parent %d does not exist", a.Parent)
		case p.Command != a.Command:
			report(a.Command, a.ID, "parent %d belongs to another command", a.Parent)
			bad[p.Command] = true
		default:
			a.parent = p
			p.children = append(p.children, a)
		}
	}
	// Cycles: an action whose parent chain never reaches the top. Such actions are not
	// reachable from any command, but a command whose rows form a loop is broken.
	for _, a := range d.Actions {
		seen := map[int64]bool{}
		for p := a; p != nil; p = p.parent {
			if seen[p.ID] {
				report(a.Command, a.ID, "its parents form a cycle")
				break
			}
			seen[p.ID] = true
		}
	}
	byOrder := func(x, y *Action) int {
		if x.Order != y.Order {
			return x.Order - y.Order
		}
		return int(x.ID - y.ID)
	}
	for _, a := range d.Actions {
		slices.SortFunc(a.children, byOrder)
	}
	for _, c := range d.Commands {
		slices.SortFunc(c.Actions, byOrder)
		t.checkCommand(c, report)
	}
	for _, a := range d.Actions {
		if cmds[a.Command] != nil {
			t.checkAction(a, report)
		}
	}
	for _, c := range d.Commands {
		if bad[c.ID] {
			continue
		}
		if old := t.Commands[c.Name]; old != nil {
			t.Problems = append(t.Problems, &Problem{Command: c.Name, Msg: "defined twice"})
			continue
		}
		t.Commands[c.Name] = c
		t.cmds[c.ID] = c
	}
	for _, a := range d.Actions {
		if c := cmds[a.Command]; c != nil && t.Commands[c.Name] == c {
			t.actions[a.ID] = a
		}
	}
	return t
}

func (t *Tree) checkCommand(c *Command, report func(int64, int64, string, ...any)) {
	if c.Visible && strings.TrimSpace(c.Descriptions["en"]) == "" {
		report(c.ID, 0, "a visible command needs an English description")
	}
	if len(c.Actions) == 0 {
		report(c.ID, 0, "has no actions")
	}
	for _, p := range c.Params {
		if t.Params[p.Param] == nil {
			report(c.ID, 0, "parameter %q does not exist", p.Param)
		}
	}
}

// needsText reports whether an action of kind k shows a text of its own.
func needsText(a *Action) bool {
	switch a.Kind {
	case KindInput, KindOutput, KindMenu, KindListMenu:
		return true
	}
	// A menu's options are labelled by their texts.
	return a.parent != nil && a.parent.Kind == KindMenu
}

func (t *Tree) checkAction(a *Action, report func(int64, int64, string, ...any)) {
	r := func(format string, args ...any) { report(a.Command, a.ID, format, args...) }
	if a.Kind.String() == "unknown" {
		r("unknown action type %q", a.TypeName)
		return
	}
	if needsText(a) && strings.TrimSpace(a.Texts["en"]) == "" {
		r("needs an English text")
	}
	if a.Width < 1 || a.Width > 8 {
		r("width %d is not between 1 and 8", a.Width)
	}
	switch a.Kind {
	case KindInput, KindListMenu, KindQuest:
		if a.Param == "" {
			r("a %s action needs a parameter", a.Kind)
		}
	case KindProcedure:
		if !procedureName.MatchString(a.Request) {
			r("procedure name %q is not a plain (schema-qualified) lower-case name", a.Request)
		}
	case KindBuiltin:
		if !slices.Contains(t.builtins, a.Request) {
			r("built-in %q is not implemented by this bot", a.Request)
		}
	case KindHTTP:
		if !strings.HasPrefix(a.Request, "http://") && !strings.HasPrefix(a.Request, "https://") {
			r("URL %q is not http or https", a.Request)
		}
		if a.Method != "" && !httpMethod.MatchString(a.Method) {
			r("HTTP method %q is invalid", a.Method)
		}
	}
	if len(a.children) > 0 && a.Kind != KindFolder && !a.Kind.branching() {
		r("a %s action cannot have children", a.Kind)
	}
	if a.Kind == KindMenu && len(a.children) == 0 {
		r("a menu needs options")
	}
	if a.Param != "" && t.Params[a.Param] == nil {
		r("parameter %q does not exist", a.Param)
	}
	for _, p := range a.RequestParams {
		if p.Param != "" && t.Params[p.Param] == nil {
			r("request parameter %q reads parameter %q, which does not exist", p.Name, p.Param)
		}
	}
	for _, p := range a.ResponseParams {
		if t.Params[p.Param] == nil {
			r("response key %q maps to parameter %q, which does not exist", p.Name, p.Param)
		}
	}
	if a.Guard != "" {
		g, err := govaluate.NewEvaluableExpressionWithFunctions(a.Guard, guardFunctions)
		if err != nil {
			r("guard %q: %v", a.Guard, err)
		} else {
			a.guard = g
		}
	}
}
