package scripts

import (
	"github.com/casbin/govaluate"
)

// Kind is the type of an action. Its name in the database is the value of String.
type Kind int

// The kinds of action.
const (
	// KindFolder groups its children, which run in order.
	KindFolder Kind = iota + 1
	// KindInput sends its text as a prompt and waits for the user's next message, which is
	// stored in the action's parameter. For a hidden parameter the prompt and the answer are
	// both deleted from the chat once it is answered.
	KindInput
	// KindOutput sends its text, with {PARAM} placeholders replaced by parameter values.
	KindOutput
	// KindMenu sends its text with an inline keyboard of its children (their texts are the
	// labels, Width buttons a row) and waits for a press; the chosen child then runs.
	KindMenu
	// KindListMenu is a menu over the list in its parameter (a JSON array of {"value","label"}
	// objects, or of strings): the chosen value replaces the list in the parameter. A list of
	// one is chosen without asking; an empty list asks nothing.
	KindListMenu
	// KindProcedure calls the stored procedure named in Request with the request parameters,
	// maps the JSON object it returns into parameters, and runs the child whose ResultCode
	// equals its "result_code".
	KindProcedure
	// KindHTTP sends an HTTP request (Method, the URL in Request) with the request parameters
	// and waits for the answer; the status code selects the branch, as for a procedure.
	KindHTTP
	// KindQuest launches the quest whose script id is in the action's parameter.
	KindQuest
	// KindRefresh switches the user's running quest to the same quest in the language in LANG.
	KindRefresh
	// KindCancelQuest cancels the user's running quest.
	KindCancelQuest
	// KindRetryQuest shows the running quest's current screen again.
	KindRetryQuest
	// KindBuiltin calls the operation named in Request that the bot implements in Go (the
	// quest developers' tools, for example), with the request parameters by name; its answer
	// is mapped and branched on as a procedure's.
	KindBuiltin
)

var kindNames = map[Kind]string{
	KindFolder: "folder", KindInput: "input", KindOutput: "output", KindMenu: "menu",
	KindListMenu: "list_menu", KindProcedure: "procedure", KindHTTP: "http", KindQuest: "quest",
	KindRefresh: "refresh", KindCancelQuest: "cancel_quest", KindRetryQuest: "retry_quest",
	KindBuiltin: "builtin",
}

// String returns the kind's name as the database spells it.
func (k Kind) String() string {
	if s, ok := kindNames[k]; ok {
		return s
	}
	return "unknown"
}

// ParseKind returns the kind named s, or 0 and false.
func ParseKind(s string) (Kind, bool) {
	for k, n := range kindNames {
		if n == s {
			return k, true
		}
	}
	return 0, false
}

// branching reports whether the children of an action of this kind are alternatives, of which
// one runs, rather than a sequence.
func (k Kind) branching() bool {
	return k == KindMenu || k == KindProcedure || k == KindHTTP || k == KindBuiltin
}

// Built-in parameters, set when a command starts.
const (
	paramUser      = "USER"      // the user's Telegram id
	paramService   = "SERVICE"   // the bot's service id
	ParamLang      = "LANG"      // the user's language, "en" or "ru"; a call may change it
	paramName      = "NAME"      // the user's first name
	paramDeveloper = "DEVELOPER" // "true" for a developer of this bot
	paramAdmin     = "ADMIN"     // "true" for an admin
	paramArgs      = "ARGS"      // the command's whole argument text
)

// Tree is the command tree of one bot: its commands by name, and the problems found when it
// was loaded. Commands with problems are left out of Commands.
type Tree struct {
	// Revision identifies the stored definitions the tree was built from.
	Revision int64
	// Commands are the runnable commands, by name.
	Commands map[string]*Command
	// Params are the parameter types, by name.
	Params map[string]*ParamType
	// Problems are what Validate found; the commands concerned are not in Commands.
	Problems ErrorList
	// actions are all actions of the runnable commands, by id, cmds the commands by id, and
	// builtins the built-in operations the bot implements (Definition.Builtins).
	actions  map[int64]*Action
	cmds     map[int64]*Command
	builtins []string
}

// Command is a slash command: its name, its place in the bot's command menu, the parameters
// its arguments fill, and its actions.
type Command struct {
	ID      int64
	Name    string
	Visible bool
	Order   int
	// Descriptions are the command menu texts, by language; "en" is required for a visible
	// command.
	Descriptions map[string]string
	// Params are filled from the arguments in order; the last takes the rest of the text.
	Params []CommandParam
	// Actions are the top-level actions, in order.
	Actions []*Action
}

// CommandParam is a parameter a command's arguments fill.
type CommandParam struct {
	Param   string
	Default string
}

// ParamType is a named parameter.
type ParamType struct {
	Name    string
	Default string
	// Hidden parameters hold secrets: once the user answers, their answer and the prompt are
	// deleted from the chat, the answer is never relayed, and it is dropped from the dialogue
	// as soon as the walk that used it stops (see Run).
	Hidden bool
}

// Action is a node of a command's tree.
type Action struct {
	ID      int64
	Command int64
	// Parent is the id of the parent action, 0 for a top-level action.
	Parent int64
	Order  int
	Kind   Kind
	// Width is the number of buttons per row of a menu.
	Width int
	// Param is the parameter the action reads or writes.
	Param string
	// Request is the procedure name (KindProcedure), the URL (KindHTTP) or the built-in's name
	// (KindBuiltin).
	Request string
	// Method is the HTTP method (KindHTTP).
	Method string
	// TimeoutMS bounds an HTTP request, in milliseconds; 0 is the default.
	TimeoutMS int
	// ResultCode selects this action among the branches of a call; empty: the default branch.
	ResultCode *string
	// Guard is an expression over the parameters; when it is not true the action is skipped (a
	// menu option is not shown).
	Guard string
	// Texts are the prompt, caption or label, by language; "en" is required where a text is.
	Texts map[string]string
	// RequestParams are the arguments of a call, in order.
	RequestParams []RequestParam
	// ResponseParams map the keys of a call's JSON answer into parameters.
	ResponseParams []ResponseParam

	// TypeName is the kind as stored, kept to report an unknown kind.
	TypeName string

	children []*Action
	parent   *Action
	guard    *govaluate.EvaluableExpression
}

// RequestParam is an argument of a call: the value of Param, else Default. Name is the key of
// an HTTP request's JSON body or of a built-in's arguments; procedure arguments are positional.
type RequestParam struct {
	Name    string
	Param   string
	Default string
}

// ResponseParam stores the value under the JSON key Name into Param. The key "result_code" selects
// the branch and may be mapped too.
type ResponseParam struct {
	Name  string
	Param string
}
