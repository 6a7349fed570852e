package bot

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
)

// # Files drawn when they are sent
//
// A request may carry the description of its file instead of the file (Request.Draw): a
// board's picture, say, whose drawing costs tens of milliseconds of CPU. The sender draws it
// when the request's turn comes, in the sender's goroutine, so that the transaction that queued
// it (an update's, or a web request's) pays nothing for it, and a request superseded by a newer
// state of its object (Request.State) is dropped before anything is drawn for it.
//
// The drawers are registered by name, once per process, by the packages whose requests carry
// them (RegisterDrawer), as image formats are: a drawer is a function of its key and the file's
// path alone, so that any process running the sender draws any row of the outbox, whoever
// queued it.

// Drawing describes the file of a request that is drawn when it is sent (Request.Draw).
type Drawing struct {
	// Drawer names the registered drawer that draws it (RegisterDrawer).
	Drawer string `json:"drawer"`
	// Key is what to draw, in the drawer's own terms.
	Key string `json:"key"`
}

// Drawer draws the file key describes and writes it, whole or not at all, at path (the
// request's FilePath), unless path holds it already. ctx bounds the drawing.
type Drawer func(ctx context.Context, key, path string) error

// ErrNoDrawer is the failure of a request whose drawer this process does not know.
var ErrNoDrawer = errors.New("bot: no drawer registered under the name")

var drawers sync.Map // of string to Drawer

// RegisterDrawer makes d the drawer of the requests whose Draw names name; a later
// registration of the name replaces it (with the same function, when several services of one
// process register it). A drawer must be safe for concurrent use.
func RegisterDrawer(name string, d Drawer) error {
	if name == "" || d == nil {
		return errors.New("bot: a drawer needs a name and a function")
	}
	drawers.Store(name, d)
	return nil
}

// drawing holds a place for each file being drawn: at most GOMAXPROCS-1 (at least one) at
// once, so that however many senders draw, a processor is left for the process's other work
// (the web requests, the handlers of updates), which would otherwise wait behind the drawings
// for the scheduler to preempt one.
var drawing = make(chan struct{}, max(1, runtime.GOMAXPROCS(0)-1))

// drawFile draws the file of req (Request.Draw) at its FilePath.
func drawFile(ctx context.Context, req Request) error {
	if req.FilePath == "" {
		return fmt.Errorf("bot: drawer %q: the request names no file to draw", req.Draw.Drawer)
	}
	d, ok := drawers.Load(req.Draw.Drawer)
	if !ok {
		return fmt.Errorf("%w %q", ErrNoDrawer, req.Draw.Drawer)
	}
	select {
	case drawing <- struct{}{}:
	case <-ctx.Done():
		return fmt.Errorf("bot: drawer %q: %w", req.Draw.Drawer, ctx.Err())
	}
	err := d.(Drawer)(ctx, req.Draw.Key, req.FilePath)
	<-drawing
	if err != nil {
		return fmt.Errorf("bot: drawer %q: %w", req.Draw.Drawer, err)
	}
	return nil
}
