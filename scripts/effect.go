package scripts

import "time"

// Effect is something the interpreter asks its caller to do. Effects are carried out in the
// order Run returns them.
type Effect interface{ isEffect() }

// SendText sends an HTML text to the user.
type SendText struct {
	Text string
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

// DeleteMessage deletes a message of the chat: a pressed menu, or the answer to a hidden
// prompt.
type DeleteMessage struct {
	MessageID int
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
func (CallProcedure) isEffect() {}
func (HTTPRequest) isEffect()   {}
func (LaunchQuest) isEffect()   {}
func (RefreshQuest) isEffect()  {}
func (CancelQuest) isEffect()   {}
func (RetryQuest) isEffect()    {}
