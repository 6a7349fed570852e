package web

// Events are the live updates of boards.
type Events interface {
	// Subscribe returns a channel that receives a value each time board changes (a move, an
	// undo, a draw offer, the end...), coalesced, and a function that ends the subscription.
	Subscribe(board int64) (<-chan BoardChanged, func())
}

// BoardChanged says that a board has changed: Revision is its revision after the change.
type BoardChanged struct {
	Board    int64
	Revision int64
}
