package bot

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
)

// Ensure no more files are drawn at once than the places of drawing (GOMAXPROCS-1, at least
// one), however many senders draw, and that a drawing waiting for a place gives up when its
// context ends.
func TestDrawingBounded(t *testing.T) {
	const name = "drawing-bounded-test"
	var inside, most atomic.Int64
	release := make(chan struct{})
	entered := make(chan struct{}, cap(drawing)+4)
	err := RegisterDrawer(name, func(ctx context.Context, key, path string) error {
		n := inside.Add(1)
		defer inside.Add(-1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		entered <- struct{}{}
		<-release
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	req := Request{FilePath: "unused.png", Draw: &Drawing{Drawer: name, Key: "k"}}
	places := cap(drawing)
	var wg sync.WaitGroup
	errs := make(chan error, places+4)
	for range places + 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- drawFile(context.Background(), req)
		}()
	}
	// Every place taken: a drawing waiting for one gives up with its context.
	for range places {
		<-entered
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := drawFile(ctx, req); !errors.Is(err, context.Canceled) {
		t.Errorf("a drawing waiting for a place after its context ended: %v, want context.Canceled", err)
	}
	close(release)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if got := most.Load(); got > int64(places) || got < 1 {
		t.Errorf("%d files drawn at once, want 1 to %d", got, places)
	}
}
