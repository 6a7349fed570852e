package web_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/questbot/questbot/bot/testkit/wait"
)

// Ensure a spectator's page reads the state once when it loads and then draws each move from
// its event of the record alone: the move list, the side to move and the new picture, with no
// fetch of the state; a "reset" of the stream makes it read the state once. It logs the bytes
// the page receives per move, beside what a fetch of the state per move would cost.
func TestPlayPageDrawsMovesFromEvents(t *testing.T) {
	t.Parallel()
	a := newPagesAPI(t, "chess", "", "en")
	a.seat = -1
	url := a.serve(t)
	ctx := pagesBrowser(t)
	if err := chromedp.Do(ctx, chromedp.Navigate(fmt.Sprintf("%s/play/%d", url, pagesGameID)), pagesBoardReady); err != nil {
		t.Fatalf("open the game: %v", err)
	}
	wait.For(t, wait.Hang, "the event stream", func() bool {
		return a.count(func() int { return len(a.subs) }) == 1 && a.count(func() int { return a.gets }) >= 1
	})
	bytesOf := func() map[string]int {
		a.mu.Lock()
		defer a.mu.Unlock()
		out := map[string]int{}
		for k, v := range a.bytes {
			out[k] = v
		}
		return out
	}
	const plies = 6
	var events, pictures, states, stateSize int
	for ply := 1; ply <= plies; ply++ {
		before := bytesOf()
		text := a.spectatedMove()
		err := chromedp.Do(ctx, pagesUntil(fmt.Sprintf(`(() => {
			const li = document.querySelectorAll("#moves li"), i = document.getElementById("picture");
			return li.length === %d && li[li.length - 1].textContent === %q &&
				i.getAttribute("src").endsWith("ply=%d&v=%d") && i.complete && i.naturalWidth > 0 &&
				document.querySelector("#players .player.to-move").dataset.seat === "%d"; })()`, ply, text, ply, ply, ply%2)))
		if err != nil {
			t.Fatalf("ply %d (%s) is not drawn: %v", ply, text, err)
		}
		after := bytesOf()
		events += after["events"] - before["events"]
		pictures += after["picture"] - before["picture"]
		states += after["state"] - before["state"]
		// What the page fetched per move before it drew from the events: the whole state.
		a.mu.Lock()
		data, err := json.Marshal(a.stateLocked())
		a.mu.Unlock()
		if err != nil {
			t.Fatal(err)
		}
		stateSize += len(data)
	}
	if gets := a.count(func() int { return a.gets }); gets != 1 {
		t.Fatalf("%d fetches of the state for a load and %d moves, want 1", gets, plies)
	}
	if got := pagesText(ctx, t, "#turn"); got == "" {
		t.Error("no turn shown")
	}
	t.Logf("per move: %d bytes of events, %d of the picture, %d of the state (a fetch of the state would be %d bytes)",
		events/plies, pictures/plies, states/plies, stateSize/plies)
	if states != 0 || events/plies > 1024 {
		t.Errorf("per move: %d bytes of events and %d of the state, want under 1 KB and none", events/plies, states/plies)
	}

	// The server cannot resume the stream: the page reads the state once.
	a.mu.Lock()
	a.sendLocked(fmt.Sprintf("id: 100\nevent: reset\ndata: {\"id\":%d,\"last\":100}\n\n", pagesGameID))
	a.mu.Unlock()
	wait.For(t, wait.Hang, "the state read after the reset", func() bool { return a.count(func() int { return a.gets }) == 2 })
}
