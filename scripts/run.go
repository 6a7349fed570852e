package scripts

import (
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/casbin/govaluate"
)

// Limits of the interpreter.
const (
	// maxSteps bounds the actions one Run executes. The walk only moves forward, so a tree of
	// fewer actions never reaches it; reaching it is ErrStepLimit.
	maxSteps = 1000
	// maxValueLen bounds a parameter value, in bytes; longer answers are cut (at a character
	// boundary).
	maxValueLen = 4096
	// defaultHTTPTimeout bounds an HTTP action without a timeout of its own.
	defaultHTTPTimeout = 10 * time.Second
	// maxHTTPTimeout bounds every HTTP action.
	maxHTTPTimeout = 30 * time.Second
)

// Errors of Run.
var (
	// ErrUnexpected means the input is not what the dialogue waits for (a text while a menu
	// waits, a result while nothing was called); the state is unchanged.
	ErrUnexpected = errors.New("scripts: input not expected now")
	// ErrStale means a menu press does not belong to the menu the dialogue waits on (an old
	// or forged button); the state is unchanged.
	ErrStale = errors.New("scripts: stale or unknown menu choice")
	// ErrStepLimit means a run executed maxSteps actions.
	ErrStepLimit = errors.New("scripts: step limit reached")
	// ErrGone means the state refers to an action the tree no longer has (the command was
	// changed or removed meanwhile).
	ErrGone = errors.New("scripts: the dialogue's action no longer exists")
)

// State is a running dialogue of one user: the command, where the walk is, and the values
// gathered. The caller persists it between updates.
type State struct {
	// ID identifies the running context; it is part of its menus' callback data.
	ID      int64 `json:"id"`
	Command int64 `json:"command"`
	// Next is the action to run next; 0 when nothing is left.
	Next int64 `json:"next,omitempty"`
	// Waiting is the input or menu action waiting for the user.
	Waiting int64 `json:"waiting,omitempty"`
	// Pending is the call waiting for its result.
	Pending int64 `json:"pending,omitempty"`
	// Menu counts the menus shown; a press names the menu it belongs to.
	Menu int `json:"menu,omitempty"`
	// Values are the parameters, by name.
	Values map[string]string `json:"-"`
	// used are the hidden parameters the walk has read since it last stopped for the user.
	used map[string]bool
}

// Done reports whether the dialogue has ended.
func (s *State) Done() bool { return s.Next == 0 && s.Waiting == 0 && s.Pending == 0 }

// Env is who runs a command.
type Env struct {
	User      int64
	Service   int
	Lang      string
	Name      string
	Developer bool
	Admin     bool
}

// Start returns the state of command cmd started with the argument text args: built-in
// parameters from env, the command's parameters from the arguments (in order, the last one
// taking the rest of the text; a missing one gets its default). id identifies the context.
func Start(t *Tree, cmd *Command, id int64, args string, env Env) *State {
	st := &State{ID: id, Command: cmd.ID, Values: map[string]string{
		paramUser:      strconv.FormatInt(env.User, 10),
		paramService:   strconv.Itoa(env.Service),
		ParamLang:      env.Lang,
		paramName:      clip(env.Name),
		paramDeveloper: strconv.FormatBool(env.Developer),
		paramAdmin:     strconv.FormatBool(env.Admin),
		paramArgs:      clip(strings.TrimSpace(args)),
	}}
	fields := strings.Fields(args)
	for i, p := range cmd.Params {
		v := ""
		switch {
		case i == len(cmd.Params)-1 && i < len(fields):
			v = strings.Join(fields[i:], " ")
		case i < len(fields):
			v = fields[i]
		}
		if v == "" {
			v = p.Default
		}
		if v == "" && t.Params[p.Param] != nil {
			v = t.Params[p.Param].Default
		}
		st.Values[p.Param] = clip(v)
	}
	if len(cmd.Actions) > 0 {
		st.Next = cmd.Actions[0].ID
	}
	return st
}

// InputKind says what an Input carries.
type InputKind int

// The kinds of input.
const (
	// InputNone continues a dialogue that has just started.
	InputNone InputKind = iota
	// InputText is the user's message, the answer to a prompt.
	InputText
	// InputChoice is a press of a menu button.
	InputChoice
	// InputResult is the result of a call.
	InputResult
)

// Input is what Run continues a dialogue with.
type Input struct {
	Kind InputKind
	// Text is the user's message (InputText).
	Text string
	// MessageID is the user's message (InputText) or the message with the pressed menu
	// (InputChoice).
	MessageID int
	// Data is the pressed button's callback data (InputChoice).
	Data string
	// Result is the result of the pending call (InputResult).
	Result *Result
}

// Result is the result of a call: its result code (the "result_code" of a procedure's JSON, the
// status of an HTTP answer, "error" when the call failed) and its JSON object's fields.
type Result struct {
	Code   string
	Fields map[string]json.RawMessage
}

// WaitingKind returns the kind of action the state waits on, or 0.
func (t *Tree) WaitingKind(st *State) Kind {
	if a := t.actions[st.Waiting]; a != nil {
		return a.Kind
	}
	return 0
}

// Run continues the dialogue st with the input and returns what to do. It changes st: when
// Run returns, the dialogue waits for the user (st.Waiting), for a call's result (st.Pending;
// the last effect is the call), or has ended (st.Done()). ErrUnexpected and ErrStale leave st
// as it was.
//
// A hidden parameter's answer is dropped from st.Values as soon as it has been used: when the
// walk that read it (in a guard, a placeholder, a call's argument, a quest launch) stops for the
// user or ends. The actions between the answer and that stop, the call's branches included, see
// it; a hidden answer not read yet is kept until it is.
func Run(t *Tree, st *State, in Input) ([]Effect, error) {
	if st.Values == nil {
		st.Values = map[string]string{}
	}
	r := &run{t: t, st: st}
	if err := r.accept(in); err != nil {
		return nil, err
	}
	defer r.forgetUsed()
	for steps := 0; st.Next != 0; steps++ {
		if steps == maxSteps {
			return r.effects, fmt.Errorf("%w: command %d", ErrStepLimit, st.Command)
		}
		a := t.actions[st.Next]
		if a == nil || a.Command != st.Command {
			st.Next = 0
			return r.effects, ErrGone
		}
		if !r.allowed(a) {
			st.Next = r.after(a)
			continue
		}
		if stop := r.exec(a); stop {
			break
		}
	}
	return r.effects, nil
}

type run struct {
	t       *Tree
	st      *State
	effects []Effect
}

func (r *run) emit(e Effect) { r.effects = append(r.effects, e) }

// get reads a parameter's value, noting the use of a hidden one.
func (r *run) get(name string) (string, bool) {
	v, ok := r.st.Values[name]
	if ok {
		r.use(name)
	}
	return v, ok
}

// use notes that the walk read parameter name, if it is hidden.
func (r *run) use(name string) {
	if p := r.t.Params[name]; p != nil && p.Hidden {
		if r.st.used == nil {
			r.st.used = map[string]bool{}
		}
		r.st.used[name] = true
	}
}

// forgetUsed drops the hidden answers the walk has read, once it no longer runs on: it waits
// for the user or has ended. While a call is pending its branches may still read them.
func (r *run) forgetUsed() {
	if r.st.Pending != 0 {
		return
	}
	for name := range r.st.used {
		delete(r.st.Values, name)
	}
	r.st.used = nil
}

// accept applies the input to the action waiting for it.
func (r *run) accept(in Input) error {
	st := r.st
	switch {
	case st.Waiting != 0:
		a := r.t.actions[st.Waiting]
		if a == nil || a.Command != st.Command {
			return ErrGone
		}
		switch in.Kind {
		case InputText:
			if a.Kind != KindInput {
				return ErrUnexpected
			}
			st.Values[a.Param] = clip(in.Text)
			if r.hidden(a) {
				// Neither the question nor the secret stays in the chat.
				r.emit(DeleteRef{Ref: promptRef(st, a)})
				if in.MessageID != 0 {
					r.emit(DeleteMessage{MessageID: in.MessageID})
				}
			}
			st.Waiting, st.Next = 0, r.after(a)
		case InputChoice:
			if a.Kind != KindMenu && a.Kind != KindListMenu {
				return ErrUnexpected
			}
			opt, err := r.choice(a, in.Data)
			if err != nil {
				return err
			}
			if in.MessageID != 0 {
				r.emit(DeleteMessage{MessageID: in.MessageID})
			}
			st.Waiting = 0
			if a.Kind == KindMenu {
				st.Next = opt
			} else {
				st.Next = r.after(a)
			}
		default:
			return ErrUnexpected
		}
	case st.Pending != 0:
		a := r.t.actions[st.Pending]
		if a == nil || a.Command != st.Command {
			return ErrGone
		}
		if in.Kind != InputResult || in.Result == nil {
			return ErrUnexpected
		}
		st.Pending, st.Next = 0, r.branch(a, in.Result)
	case in.Kind != InputNone:
		return ErrUnexpected
	}
	return nil
}

// choice checks a press against the waiting menu a and returns the chosen option (KindMenu), or
// stores the chosen value (KindListMenu).
func (r *run) choice(a *Action, data string) (int64, error) {
	id, menu, opt, ok := parseChoice(data)
	if !ok || id != r.st.ID || menu != r.st.Menu {
		return 0, ErrStale
	}
	if a.Kind == KindListMenu {
		v, _ := r.get(a.Param)
		items := listItems(v)
		if opt < 0 || opt >= int64(len(items)) {
			return 0, ErrStale
		}
		r.st.Values[a.Param] = items[opt].Value
		return 0, nil
	}
	for _, c := range a.children {
		if c.ID == opt && r.allowed(c) && r.text(c) != "" {
			return opt, nil
		}
	}
	return 0, ErrStale
}

// parseChoice splits menu callback data "m:<context>:<menu>:<option>".
func parseChoice(data string) (ctxID int64, menu int, opt int64, ok bool) {
	rest, found := strings.CutPrefix(data, "m:")
	if !found {
		return 0, 0, 0, false
	}
	parts := strings.Split(rest, ":")
	if len(parts) != 3 {
		return 0, 0, 0, false
	}
	var err1, err2, err3 error
	ctxID, err1 = strconv.ParseInt(parts[0], 10, 64)
	menu, err2 = strconv.Atoi(parts[1])
	opt, err3 = strconv.ParseInt(parts[2], 10, 64)
	return ctxID, menu, opt, err1 == nil && err2 == nil && err3 == nil
}

func (r *run) data(opt int64) string {
	return fmt.Sprintf("m:%d:%d:%d", r.st.ID, r.st.Menu, opt)
}

// exec runs action a and reports whether the walk stops to wait.
func (r *run) exec(a *Action) bool {
	st := r.st
	switch a.Kind {
	case KindFolder:
		if len(a.children) > 0 {
			st.Next = a.children[0].ID
		} else {
			st.Next = r.after(a)
		}
		return false
	case KindOutput:
		r.emit(SendText{Text: r.render(r.text(a))})
	case KindInput:
		prompt := SendText{Text: r.render(r.text(a))}
		if r.hidden(a) {
			prompt.Ref = promptRef(st, a)
		}
		r.emit(prompt)
		st.Waiting, st.Next = a.ID, 0
		return true
	case KindMenu:
		var opts []*Action
		for _, c := range a.children {
			if r.text(c) != "" && r.allowed(c) {
				opts = append(opts, c)
			}
		}
		if len(opts) == 0 {
			break // nothing to choose: go on after the menu
		}
		st.Menu++
		buttons := make([]Button, len(opts))
		for i, c := range opts {
			buttons[i] = Button{Label: plain(r.render(r.text(c))), Data: r.data(c.ID)}
		}
		r.emit(ShowMenu{Text: r.render(r.text(a)), Rows: rows(buttons, a.Width)})
		st.Waiting, st.Next = a.ID, 0
		return true
	case KindListMenu:
		v, _ := r.get(a.Param)
		items := listItems(v)
		if len(items) == 1 {
			st.Values[a.Param] = items[0].Value
		}
		if len(items) <= 1 {
			break
		}
		st.Menu++
		buttons := make([]Button, len(items))
		for i, it := range items {
			buttons[i] = Button{Label: it.Label, Data: r.data(int64(i))}
		}
		r.emit(ShowMenu{Text: r.render(r.text(a)), Rows: rows(buttons, a.Width)})
		st.Waiting, st.Next = a.ID, 0
		return true
	case KindProcedure:
		args := make([]string, len(a.RequestParams))
		for i, p := range a.RequestParams {
			args[i] = r.value(p)
		}
		r.emit(CallProcedure{Name: a.Request, Args: args})
		st.Pending, st.Next = a.ID, 0
		return true
	case KindHTTP:
		body := map[string]string{}
		for _, p := range a.RequestParams {
			body[p.Name] = r.value(p)
		}
		method := a.Method
		if method == "" {
			method = "POST"
		}
		timeout := time.Duration(a.TimeoutMS) * time.Millisecond
		if timeout <= 0 {
			timeout = defaultHTTPTimeout
		}
		r.emit(HTTPRequest{Method: method, URL: a.Request, Body: body, Timeout: min(timeout, maxHTTPTimeout)})
		st.Pending, st.Next = a.ID, 0
		return true
	case KindBuiltin:
		args := make(map[string]string, len(a.RequestParams))
		for _, p := range a.RequestParams {
			args[p.Name] = r.value(p)
		}
		r.emit(CallBuiltin{Name: a.Request, Args: args})
		st.Pending, st.Next = a.ID, 0
		return true
	case KindQuest:
		v, _ := r.get(a.Param)
		if id, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64); err == nil && id > 0 {
			r.emit(LaunchQuest{ScriptID: id})
		}
	case KindRefresh:
		r.emit(RefreshQuest{Lang: st.Values[ParamLang]})
	case KindCancelQuest:
		r.emit(CancelQuest{})
	case KindRetryQuest:
		r.emit(RetryQuest{})
	}
	st.Next = r.after(a)
	return false
}

// hidden reports whether input action a asks for a hidden parameter.
func (r *run) hidden(a *Action) bool {
	p := r.t.Params[a.Param]
	return p != nil && p.Hidden
}

// promptRef names the prompt of input action a in dialogue st: unique in the chat, since the
// dialogue's id is fresh and the walk never runs an action twice.
func promptRef(st *State, a *Action) string {
	return "input:" + strconv.FormatInt(st.ID, 10) + ":" + strconv.FormatInt(a.ID, 10)
}

// branch picks the branch of call a for its result: the first allowed child whose result code
// matches, else the first allowed child without a result code, else nothing (the walk goes on
// after the call). The result's fields are stored first.
func (r *run) branch(a *Action, res *Result) int64 {
	for _, p := range a.ResponseParams {
		if p.Name == "result_code" {
			r.st.Values[p.Param] = res.Code
			continue
		}
		if raw, ok := res.Fields[p.Name]; ok {
			r.st.Values[p.Param] = clip(jsonText(raw))
		}
	}
	var fallback *Action
	for _, c := range a.children {
		if !r.allowed(c) {
			continue
		}
		if c.ResultCode == nil {
			if fallback == nil {
				fallback = c
			}
			continue
		}
		if *c.ResultCode == res.Code {
			return c.ID
		}
	}
	if fallback != nil {
		return fallback.ID
	}
	return r.after(a)
}

// after returns the action that follows a once a and its children are done: its next sibling,
// or what follows its parent. The children of a menu or a call are alternatives: when one is
// done the walk continues after the menu or call, never with the next alternative.
func (r *run) after(a *Action) int64 {
	for {
		p := a.parent
		if p != nil && p.Kind.branching() {
			a = p
			continue
		}
		var siblings []*Action
		if p == nil {
			c := r.t.cmds[a.Command]
			if c == nil {
				return 0
			}
			siblings = c.Actions
		} else {
			siblings = p.children
		}
		for i, s := range siblings {
			if s == a && i+1 < len(siblings) {
				return siblings[i+1].ID
			}
		}
		if p == nil {
			return 0
		}
		a = p
	}
}

// text returns the action's text in the dialogue's language, else in English.
func (r *run) text(a *Action) string {
	if s := a.Texts[r.st.Values[ParamLang]]; strings.TrimSpace(s) != "" {
		return s
	}
	return a.Texts["en"]
}

// render replaces {PARAM} placeholders with the parameters' values, HTML-escaped. Unknown names
// are left as they are.
func (r *run) render(s string) string {
	return placeholder.ReplaceAllStringFunc(s, func(m string) string {
		name := m[1 : len(m)-1]
		v, ok := r.get(name)
		if !ok {
			return m
		}
		return html.EscapeString(v)
	})
}

// value is a call argument: the parameter's value, else the request parameter's default, else
// the parameter type's default.
func (r *run) value(p RequestParam) string {
	if p.Param != "" {
		if v, ok := r.get(p.Param); ok && v != "" {
			return v
		}
	}
	if p.Default != "" {
		return p.Default
	}
	if t := r.t.Params[p.Param]; t != nil {
		return t.Default
	}
	return ""
}

// allowed evaluates the action's guard: true without one; a guard that fails to evaluate, or
// gives anything but true, skips the action.
func (r *run) allowed(a *Action) (ok bool) {
	if a.guard == nil {
		return true
	}
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	params := make(map[string]any, len(r.st.Values))
	for k, v := range r.st.Values {
		params[k] = guardValue(v)
	}
	for _, name := range a.guard.Vars() {
		r.use(name)
	}
	res, err := a.guard.Evaluate(params)
	if err != nil {
		return false
	}
	b, isBool := res.(bool)
	return isBool && b
}

// guardValue is a parameter as a guard sees it: a number or a boolean when it reads as one,
// else the text.
func guardValue(v string) any {
	switch v {
	case "true":
		return true
	case "false":
		return false
	}
	if f, err := strconv.ParseFloat(v, 64); err == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
		return f
	}
	return v
}

// guardFunctions are the functions guards may call besides govaluate's operators.
var guardFunctions = map[string]govaluate.ExpressionFunction{
	// len(s) is the length of a text in characters.
	"len": func(args ...any) (any, error) {
		if len(args) != 1 {
			return nil, errors.New("len takes one argument")
		}
		s, ok := args[0].(string)
		if !ok {
			s = fmt.Sprint(args[0])
		}
		return float64(utf8.RuneCountInString(s)), nil
	},
}

// item is an entry of a list menu.
type item struct {
	Value string
	Label string
}

// listItems reads a list menu's parameter: a JSON array of {"value", "label"} objects (or
// {"id", "name"}), or of strings. Anything else is an empty list.
func listItems(v string) []item {
	var raw []json.RawMessage
	if json.Unmarshal([]byte(v), &raw) != nil {
		return nil
	}
	var items []item
	for _, e := range raw {
		var s string
		if json.Unmarshal(e, &s) == nil {
			if s != "" {
				items = append(items, item{Value: s, Label: s})
			}
			continue
		}
		var obj map[string]json.RawMessage
		if json.Unmarshal(e, &obj) != nil {
			continue
		}
		it := item{Value: jsonText(first(obj, "value", "id")), Label: jsonText(first(obj, "label", "name"))}
		if it.Label == "" {
			it.Label = it.Value
		}
		if strings.TrimSpace(it.Label) != "" {
			items = append(items, it)
		}
	}
	if len(items) > 100 {
		items = items[:100] // Telegram's limit of buttons under a message
	}
	return items
}

func first(obj map[string]json.RawMessage, keys ...string) json.RawMessage {
	for _, k := range keys {
		if v, ok := obj[k]; ok {
			return v
		}
	}
	return nil
}

// jsonText is a JSON value as a parameter holds it: a string's content, null as "", anything
// else as its JSON text.
func jsonText(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	if string(raw) == "null" {
		return ""
	}
	return string(raw)
}

// rows lays buttons out width to a row.
func rows(buttons []Button, width int) [][]Button {
	if width < 1 {
		width = 1
	}
	var out [][]Button
	for len(buttons) > 0 {
		n := min(width, len(buttons))
		out = append(out, buttons[:n:n])
		buttons = buttons[n:]
	}
	return out
}

// plain turns rendered HTML back into plain text, for button labels.
func plain(s string) string { return html.UnescapeString(s) }

// clip bounds a value to maxValueLen bytes, cutting at a character boundary.
func clip(s string) string {
	if len(s) <= maxValueLen {
		return s
	}
	cut := maxValueLen
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut]
}
