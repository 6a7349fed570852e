package scripts

import "time"

// Effect is something the interpreter asks its caller to do. Effects are carried out in the
// order Run returns them.
type Effect interface{ isEffect() }

// SendText sends an HTML text to the user.
type SendText struct {
	Text string
	// Ref, when set, names the message so that a later DeleteRef can delete it: the prompt of a
	// hidden parameter. It is unique in the chat (it holds the dialogue's id).
	Ref string
}

// ShowMenu sends an HTML text with an inline keyboard.
type ShowMenu struct {
	Text string
	Rows [][]Button
}

// Button is a menu button: its label (plain text) and its callback data ("m:...", at most 64
// bytes).
type Button struct {
	Label string
	Data  string
}

// DeleteMessage deletes a message of the chat by its id: a pressed menu, or the answer to a
// hidden prompt.
type DeleteMessage struct {
	MessageID int
}

// DeleteRef deletes the message sent under Ref (SendText.Ref): the prompt of a hidden parameter,
// once answered. It comes after the SendText in the chat, so the message is known by then.
type DeleteRef struct {
	Ref string
}

// CallProcedure calls a stored procedure with positional text arguments; the caller runs the
// interpreter again with the JSON it returned (Input.Result).
type CallProcedure struct {
	Name string
	Args []string
}

// HTTPRequest sends an HTTP request and waits at most Timeout for the answer; the caller runs
// the interpreter again with the status code and the JSON body (Input.Result). Body is sent as
// a JSON object, or as the query string of a GET.
type HTTPRequest struct {
	Method  string
	URL     string
	Body    map[string]string
	Timeout time.Duration
}

// CallBuiltin calls the bot's built-in operation Name with its arguments by name; the caller
// runs the interpreter again with its result (Input.Result).
type CallBuiltin struct {
	Name string
	Args map[string]string
}

// LaunchQuest starts the quest with this script id, replacing the user's running quest.
type LaunchQuest struct {
	ScriptID int64
}

// RefreshQuest switches the user's running quest to the same quest in language Lang.
type RefreshQuest struct {
	Lang string
}

// CancelQuest cancels the user's running quest.
type CancelQuest struct{}

// RetryQuest shows the running quest's current screen again, applying nothing.
type RetryQuest struct{}

func (SendText) isEffect()      {}
func (ShowMenu) isEffect()      {}
func (DeleteMessage) isEffect() {}
func (DeleteRef) isEffect()     {}
func (CallProcedure) isEffect() {}
func (HTTPRequest) isEffect()   {}
func (CallBuiltin) isEffect()   {}
func (LaunchQuest) isEffect()   {}
func (RefreshQuest) isEffect()  {}
func (CancelQuest) isEffect()   {}
func (RetryQuest) isEffect()    {}
