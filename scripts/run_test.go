package scripts_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/questbot/questbot/scripts"
)

func ptr(s string) *string { return &s }

// def builds a definition of one command "c" (id 1) from actions, with English texts.
func def(params []scripts.CommandParam, actions ...*scripts.Action) scripts.Definition {
	for _, a := range actions {
		a.Command = 1
		if a.Width == 0 {
			a.Width = 1
		}
		if a.TypeName == "" {
			a.TypeName = a.Kind.String()
		}
	}
	return scripts.Definition{
		Revision: 1,
		Commands: []*scripts.Command{{ID: 1, Name: "c", Params: params, Descriptions: map[string]string{"en": "C"}}},
		Actions:  actions,
		Params: []*scripts.ParamType{{Name: "A"}, {Name: "B", Default: "dflt"}, {Name: "PIN", Hidden: true},
			{Name: "L"}, {Name: "RC"}},
	}
}

func en(s string) map[string]string { return map[string]string{"en": s} }

func texts(effects []scripts.Effect) []string {
	var out []string
	for _, e := range effects {
		switch e := e.(type) {
		case scripts.SendText:
			out = append(out, e.Text)
		case scripts.ShowMenu:
			out = append(out, "menu:"+e.Text)
		default:
			out = append(out, strings.TrimPrefix(reflect.TypeOf(e).String(), "scripts."))
		}
	}
	return out
}

func start(t *testing.T, tree *scripts.Tree, args string, env scripts.Env) *scripts.State {
	t.Helper()
	if env.Lang == "" {
		env.Lang = "en"
	}
	c := tree.Commands["c"]
	if c == nil {
		t.Fatalf("command refused: %v", tree.Problems)
	}
	return scripts.Start(tree, c, 7, args, env)
}

// Ensure arguments fill the parameters in order, the last one greedy, with defaults, and outputs
// show them escaped.
func TestArgumentsAndOutput(t *testing.T) {
	tree := scripts.Build(def([]scripts.CommandParam{{Param: "A"}, {Param: "B"}},
		&scripts.Action{ID: 1, Kind: scripts.KindOutput, Texts: en("a={A} b={B} x={X} user={USER}")}))
	for _, c := range []struct{ args, want string }{
		{"one two  three", "a=one b=two three x={X} user=5"},
		{"<one>", "a=&lt;one&gt; b=dflt x={X} user=5"},
		{"", "a= b=dflt x={X} user=5"},
	} {
		st := start(t, tree, c.args, scripts.Env{User: 5})
		effects, err := scripts.Run(tree, st, scripts.Input{})
		if err != nil || !reflect.DeepEqual(texts(effects), []string{c.want}) || !st.Done() {
			t.Errorf("args %q: got %q, %v, done %v; want %q", c.args, texts(effects), err, st.Done(), c.want)
		}
	}
}

// Ensure a menu waits, a choice runs one option only and then what follows the menu; a stale or
// forged choice changes nothing; text does not answer a menu.
func TestMenuAlternatives(t *testing.T) {
	tree := scripts.Build(def(nil,
		&scripts.Action{ID: 1, Kind: scripts.KindMenu, Width: 2, Texts: en("pick")},
		&scripts.Action{ID: 2, Parent: 1, Order: 1, Kind: scripts.KindFolder, Texts: en("one")},
		&scripts.Action{ID: 3, Parent: 2, Kind: scripts.KindOutput, Texts: en("chose one")},
		&scripts.Action{ID: 4, Parent: 1, Order: 2, Kind: scripts.KindOutput, Texts: en("two")},
		&scripts.Action{ID: 5, Parent: 1, Order: 3, Kind: scripts.KindOutput, Texts: en("dev"), Guard: "DEVELOPER == true"},
		&scripts.Action{ID: 6, Order: 2, Kind: scripts.KindOutput, Texts: en("after")}))
	st := start(t, tree, "", scripts.Env{})
	effects, err := scripts.Run(tree, st, scripts.Input{})
	if err != nil || len(effects) != 1 {
		t.Fatalf("got %v, %v", effects, err)
	}
	menu := effects[0].(scripts.ShowMenu)
	if len(menu.Rows) != 1 || len(menu.Rows[0]) != 2 {
		t.Fatalf("menu %+v: want the two options a non-developer may see, in one row", menu)
	}
	saved := *st
	for _, data := range []string{"m:7:0:2", "m:8:1:2", "m:7:1:5", "m:7:1:3", "m:7:1", "q:1"} {
		if _, err := scripts.Run(tree, st, scripts.Input{Kind: scripts.InputChoice, Data: data}); !errors.Is(err, scripts.ErrStale) {
			t.Errorf("choice %q: %v, want ErrStale", data, err)
		}
	}
	if _, err := scripts.Run(tree, st, scripts.Input{Kind: scripts.InputText, Text: "2"}); !errors.Is(err, scripts.ErrUnexpected) {
		t.Errorf("text to a menu: %v", err)
	}
	if st.Waiting != saved.Waiting || st.Menu != saved.Menu {
		t.Fatal("a refused input changed the state")
	}
	effects, err = scripts.Run(tree, st, scripts.Input{Kind: scripts.InputChoice, Data: menu.Rows[0][0].Data, MessageID: 99})
	want := []string{"DeleteMessage", "chose one", "after"}
	if err != nil || !reflect.DeepEqual(texts(effects), want) || !st.Done() {
		t.Errorf("got %q, %v; want %q", texts(effects), err, want)
	}
	dev := start(t, tree, "", scripts.Env{Developer: true})
	effects, _ = scripts.Run(tree, dev, scripts.Input{})
	if m := effects[0].(scripts.ShowMenu); len(m.Rows[0])+len(m.Rows[1]) != 3 {
		t.Errorf("a developer sees %+v", m.Rows)
	}
}

// Ensure a call suspends the walk, its result picks exactly one branch (or the default), fields
// are stored, and the walk continues after the call.
func TestCallBranches(t *testing.T) {
	tree := scripts.Build(def(nil,
		&scripts.Action{ID: 1, Kind: scripts.KindProcedure, Request: "f",
			RequestParams:  []scripts.RequestParam{{Param: "USER"}, {Param: "B"}, {Default: "k"}},
			ResponseParams: []scripts.ResponseParam{{Name: "a", Param: "A"}, {Name: "result_code", Param: "RC"}}},
		&scripts.Action{ID: 2, Parent: 1, Order: 1, Kind: scripts.KindOutput, ResultCode: ptr("1"), Texts: en("one {A}")},
		&scripts.Action{ID: 3, Parent: 1, Order: 2, Kind: scripts.KindOutput, ResultCode: ptr("2"), Texts: en("two")},
		&scripts.Action{ID: 4, Parent: 1, Order: 3, Kind: scripts.KindOutput, Texts: en("other {RC}")},
		&scripts.Action{ID: 5, Order: 2, Kind: scripts.KindOutput, Texts: en("after")}))
	for _, c := range []struct {
		code string
		want []string
	}{
		{"1", []string{"one [1,2]", "after"}},
		{"2", []string{"two", "after"}},
		{"error", []string{"other error", "after"}},
	} {
		st := start(t, tree, "", scripts.Env{User: 3})
		effects, err := scripts.Run(tree, st, scripts.Input{})
		call, ok := effects[len(effects)-1].(scripts.CallProcedure)
		if err != nil || !ok || !reflect.DeepEqual(call.Args, []string{"3", "dflt", "k"}) || st.Pending != 1 {
			t.Fatalf("got %+v, %v", effects, err)
		}
		res := &scripts.Result{Code: c.code, Fields: map[string]json.RawMessage{"a": json.RawMessage(`[1,2]`)}}
		effects, err = scripts.Run(tree, st, scripts.Input{Kind: scripts.InputResult, Result: res})
		if err != nil || !reflect.DeepEqual(texts(effects), c.want) || !st.Done() {
			t.Errorf("code %s: got %q, %v; want %q", c.code, texts(effects), err, c.want)
		}
	}
}

// Ensure a built-in call passes its arguments by name, suspends the walk, and branches on its
// result as a procedure does; a built-in the bot does not implement refuses the command.
func TestBuiltin(t *testing.T) {
	d := def(nil,
		&scripts.Action{ID: 1, Kind: scripts.KindBuiltin, Request: "quest.show",
			RequestParams:  []scripts.RequestParam{{Name: "what", Param: "ARGS"}, {Name: "user", Param: "USER"}},
			ResponseParams: []scripts.ResponseParam{{Name: "text", Param: "A"}}},
		&scripts.Action{ID: 2, Parent: 1, Kind: scripts.KindOutput, ResultCode: ptr("denied"), Texts: en("no")},
		&scripts.Action{ID: 3, Parent: 1, Order: 1, Kind: scripts.KindOutput, Texts: en("ok {A}")})
	if tree := scripts.Build(d); tree.Commands["c"] != nil || !strings.Contains(tree.Problems.Error(), `built-in "quest.show"`) {
		t.Fatalf("an unknown built-in: problems %q", tree.Problems.Error())
	}
	d.Builtins = []string{"quest.show"}
	tree := scripts.Build(d)
	if tree.Commands["c"] == nil {
		t.Fatalf("refused: %v", tree.Problems)
	}
	for code, want := range map[string][]string{"denied": {"no"}, "": {"ok params"}} {
		st := start(t, tree, "params", scripts.Env{User: 4})
		effects, err := scripts.Run(tree, st, scripts.Input{})
		call, ok := effects[len(effects)-1].(scripts.CallBuiltin)
		if err != nil || !ok || call.Name != "quest.show" || !reflect.DeepEqual(call.Args, map[string]string{"what": "params", "user": "4"}) {
			t.Fatalf("got %+v, %v", effects, err)
		}
		res := &scripts.Result{Code: code, Fields: map[string]json.RawMessage{"text": json.RawMessage(`"params"`)}}
		effects, err = scripts.Run(tree, st, scripts.Input{Kind: scripts.InputResult, Result: res})
		if err != nil || !reflect.DeepEqual(texts(effects), want) || !st.Done() {
			t.Errorf("code %q: got %q, %v; want %q", code, texts(effects), err, want)
		}
	}
}

// Ensure a list menu asks only with several items, chooses a single one itself, and a hidden
// input's answer is deleted.
func TestListMenuAndHiddenInput(t *testing.T) {
	tree := scripts.Build(def([]scripts.CommandParam{{Param: "L"}},
		&scripts.Action{ID: 1, Kind: scripts.KindListMenu, Param: "L", Width: 3, Texts: en("choose")},
		&scripts.Action{ID: 2, Order: 2, Kind: scripts.KindQuest, Param: "L"},
		&scripts.Action{ID: 3, Order: 3, Kind: scripts.KindInput, Param: "PIN", Texts: en("pin?")},
		&scripts.Action{ID: 4, Order: 4, Kind: scripts.KindOutput, Texts: en("ok")}))
	st := start(t, tree, `[{"value":"12","label":"X"}]`, scripts.Env{})
	effects, _ := scripts.Run(tree, st, scripts.Input{})
	if got := texts(effects); !reflect.DeepEqual(got, []string{"LaunchQuest", "pin?"}) || effects[0].(scripts.LaunchQuest).ScriptID != 12 {
		t.Errorf("single item: %q", got)
	}
	ref := effects[1].(scripts.SendText).Ref
	if ref == "" {
		t.Error("the hidden prompt has no ref")
	}
	effects, _ = scripts.Run(tree, st, scripts.Input{Kind: scripts.InputText, Text: "1234", MessageID: 50})
	if got := texts(effects); !reflect.DeepEqual(got, []string{"DeleteRef", "DeleteMessage", "ok"}) ||
		effects[0].(scripts.DeleteRef).Ref != ref || effects[1].(scripts.DeleteMessage).MessageID != 50 {
		t.Errorf("hidden answer: %q", got)
	}
	st = start(t, tree, `[{"value":"12","label":"X"},{"value":"13","label":"Y"},"14"]`, scripts.Env{})
	effects, _ = scripts.Run(tree, st, scripts.Input{})
	menu := effects[0].(scripts.ShowMenu)
	if len(menu.Rows) != 1 || len(menu.Rows[0]) != 3 || menu.Rows[0][2].Label != "14" {
		t.Fatalf("menu %+v", menu)
	}
	effects, _ = scripts.Run(tree, st, scripts.Input{Kind: scripts.InputChoice, Data: menu.Rows[0][1].Data})
	if effects[0].(scripts.LaunchQuest).ScriptID != 13 {
		t.Errorf("choice: %+v", effects)
	}
	st = start(t, tree, `not a list`, scripts.Env{})
	effects, _ = scripts.Run(tree, st, scripts.Input{})
	if got := texts(effects); !reflect.DeepEqual(got, []string{"pin?"}) {
		t.Errorf("no list: %q", got)
	}
}

// Ensure a hidden answer is dropped once used: the actions after it in the same walk (a guard, a
// call's argument, the call's branch) read it, and when the walk stops for the user again it is
// gone from the state; an answer not read yet when the walk stops is kept until it is.
func TestHiddenAnswerDroppedOnceUsed(t *testing.T) {
	tree := scripts.Build(def(nil,
		&scripts.Action{ID: 1, Kind: scripts.KindInput, Param: "PIN", Texts: en("pin?")},
		&scripts.Action{ID: 2, Order: 2, Kind: scripts.KindMenu, Texts: en("sure?")},
		&scripts.Action{ID: 3, Parent: 2, Kind: scripts.KindOutput, Texts: en("yes")},
		&scripts.Action{ID: 4, Order: 3, Kind: scripts.KindProcedure, Request: "check",
			RequestParams: []scripts.RequestParam{{Name: "pin", Param: "PIN"}}},
		&scripts.Action{ID: 5, Parent: 4, Kind: scripts.KindOutput, Guard: "len(PIN) == 4", Texts: en("four")},
		&scripts.Action{ID: 6, Order: 4, Kind: scripts.KindInput, Param: "A", Texts: en("name?")},
		&scripts.Action{ID: 7, Order: 5, Kind: scripts.KindOutput, Texts: en("bye {A}")}))
	if len(tree.Problems) > 0 {
		t.Fatal(tree.Problems)
	}
	st := start(t, tree, "", scripts.Env{})
	scripts.Run(tree, st, scripts.Input{})
	effects, _ := scripts.Run(tree, st, scripts.Input{Kind: scripts.InputText, Text: "1234"})
	menu := effects[len(effects)-1].(scripts.ShowMenu)
	if st.Values["PIN"] != "1234" {
		t.Fatal("an answer not used yet was dropped while the menu waits")
	}
	effects, _ = scripts.Run(tree, st, scripts.Input{Kind: scripts.InputChoice, Data: menu.Rows[0][0].Data})
	call, ok := effects[len(effects)-1].(scripts.CallProcedure)
	if !ok || len(call.Args) != 1 || call.Args[0] != "1234" {
		t.Fatalf("the call got %+v", effects)
	}
	if st.Values["PIN"] != "1234" {
		t.Fatal("the answer was dropped before the call's branches ran")
	}
	effects, _ = scripts.Run(tree, st, scripts.Input{Kind: scripts.InputResult, Result: &scripts.Result{Code: "ok"}})
	if got := texts(effects); !reflect.DeepEqual(got, []string{"four", "name?"}) {
		t.Errorf("after the call: %q", got)
	}
	if v, ok := st.Values["PIN"]; ok {
		t.Errorf("the used hidden answer %q is still in the state while it waits", v)
	}
	effects, _ = scripts.Run(tree, st, scripts.Input{Kind: scripts.InputText, Text: "Ann"})
	if got := texts(effects); !reflect.DeepEqual(got, []string{"bye Ann"}) || !st.Done() {
		t.Errorf("the end: %q", got)
	}
}

// Ensure Build refuses broken commands with every problem listed.
func TestValidate(t *testing.T) {
	for _, c := range []struct {
		name    string
		actions []*scripts.Action
		want    string
	}{
		{"unknown type", []*scripts.Action{{ID: 1, TypeName: "teleport"}}, "unknown action type"},
		{"cycle", []*scripts.Action{{ID: 1, Kind: scripts.KindFolder}, {ID: 2, Parent: 3, Kind: scripts.KindFolder},
			{ID: 3, Parent: 2, Kind: scripts.KindFolder}}, "cycle"},
		{"no english", []*scripts.Action{{ID: 1, Kind: scripts.KindOutput, Texts: map[string]string{"ru": "да"}}}, "English"},
		{"dangling parent", []*scripts.Action{{ID: 1, Kind: scripts.KindOutput, Texts: en("x")},
			{ID: 2, Parent: 9, Kind: scripts.KindOutput, Texts: en("x")}}, "parent 9"},
		{"unknown param", []*scripts.Action{{ID: 1, Kind: scripts.KindInput, Param: "NOPE", Texts: en("x")}}, "NOPE"},
		{"bad guard", []*scripts.Action{{ID: 1, Kind: scripts.KindOutput, Texts: en("x"), Guard: "A == ("}}, "guard"},
		{"bad procedure", []*scripts.Action{{ID: 1, Kind: scripts.KindProcedure, Request: "f(); DROP"}}, "procedure name"},
		{"empty menu", []*scripts.Action{{ID: 1, Kind: scripts.KindMenu, Texts: en("x")}}, "options"},
		{"output with children", []*scripts.Action{{ID: 1, Kind: scripts.KindOutput, Texts: en("x")},
			{ID: 2, Parent: 1, Kind: scripts.KindOutput, Texts: en("y")}}, "cannot have children"},
	} {
		tree := scripts.Build(def(nil, c.actions...))
		if tree.Commands["c"] != nil || !strings.Contains(tree.Problems.Error(), c.want) {
			t.Errorf("%s: problems %q, want one with %q and the command refused", c.name, tree.Problems.Error(), c.want)
		}
	}
}

// Ensure a large tree runs to its end without looping, and the step bound holds.
func TestLongTree(t *testing.T) {
	var actions []*scripts.Action
	for i := 1; i <= scripts.MaxSteps+5; i++ {
		actions = append(actions, &scripts.Action{ID: int64(i), Order: i, Kind: scripts.KindFolder})
	}
	tree := scripts.Build(def(nil, actions...))
	st := start(t, tree, "", scripts.Env{})
	if _, err := scripts.Run(tree, st, scripts.Input{}); !errors.Is(err, scripts.ErrStepLimit) {
		t.Errorf("got %v, want ErrStepLimit", err)
	}
}
