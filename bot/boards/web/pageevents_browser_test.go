package web_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/questbot/questbot/bot/boards"
	"github.com/questbot/questbot/bot/testkit/wait"
	"github.com/questbot/questbot/engine"
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

// recordedMove plays the first legal move of seat 1, Ann's opponent, and announces it as the
// web server does: the record's event of the move alone, which carries the position Ann's page
// draws (the picture's version, her legal moves, who may undo), and no "board" event. Without
// the position (legal false: an event recorded before it was kept), the event says only the
// move.
func (a *pagesAPI) recordedMove(legal bool) string {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.game.ToMove() != engine.Second {
		a.t.Fatalf("the opponent is not to move")
	}
	mv := a.game.LegalMoves()[0]
	if err := a.playLocked(mv.String()); err != nil {
		a.t.Fatal(err)
	}
	ply := a.game.Ply()
	a.unseen = append(a.unseen, ply)
	a.canUndo = false
	a.revision++
	a.recordID++
	sep := ". "
	if (ply-1)%2 == 1 {
		sep = "… "
	}
	d := boards.EventData{Move: mv.String(), Written: fmt.Sprintf("%d%s%s", (ply-1)/2+1, sep, a.game.Record()[ply-1]),
		Status: a.status, ToMove: int(a.game.ToMove()), Revision: a.revision, Picture: fmt.Sprint(ply)}
	if legal {
		d.Legal = boards.LegalMoves(a.game)
		d.CanUndo = &[2]bool{false, false}
	}
	ev := boards.Event{ID: a.recordID, Board: pagesGameID, Kind: boards.EventKindMoved, Seat: 1, Actor: 1, By: "web",
		Ply: ply, Heard: [2]string{"now", "now"}, At: time.Now(), Data: d}
	data, err := json.Marshal(ev)
	if err != nil {
		a.t.Fatal(err)
	}
	a.sendLocked(fmt.Sprintf("id: %d\nevent: record\ndata: %s\n\n", ev.ID, data))
	return mv.String()
}

// Ensure a player's page draws the opponent's move from its event of the record alone, with no
// fetch of the state: the move in the list as news, reported seen, the player's turn with the
// pieces the event's legal moves name, which the player then plays by tapping; an event recorded
// before events carried the position makes the page read the state once.
func TestPlayPageDrawsOpponentMovesFromEvents(t *testing.T) {
	t.Parallel()
	a := newPagesAPI(t, "russian", "", "en")
	url := a.serve(t)
	ctx := pagesBrowser(t)
	if err := chromedp.Do(ctx, chromedp.Navigate(fmt.Sprintf("%s/play/%d", url, pagesGameID)), pagesBoardReady,
		pagesUntil(`document.querySelectorAll("#marks .mark.piece").length > 0`)); err != nil {
		t.Fatalf("open the game: %v", err)
	}
	wait.For(t, wait.Hang, "the event stream", func() bool {
		return a.count(func() int { return len(a.subs) }) == 1 && a.count(func() int { return a.gets }) >= 1
	})
	moves := fmt.Sprintf("/games/%d/moves", pagesGameID)
	seen := fmt.Sprintf("/games/%d/seen", pagesGameID)
	for turn := range 3 {
		// Ann plays a move of one step, tapping its squares.
		a.mu.Lock()
		var path []string
		for _, mv := range a.game.LegalMoves() {
			if p, _ := a.game.Describe(mv); len(p) == 2 {
				path = p
				break
			}
		}
		a.mu.Unlock()
		if path == nil {
			t.Fatalf("turn %d: Ann has no move of one step", turn)
		}
		posted := len(a.postsTo(moves))
		pagesTapUntil(ctx, t, fmt.Sprintf("turn %d: the target %s of %s", turn, path[1], path[0]),
			func() { pagesTap(ctx, t, a, path[0], false) },
			fmt.Sprintf(`document.querySelector('#marks .mark.target[data-square=%q]') !== null`, path[1]))
		pagesTap(ctx, t, a, path[1], false)
		wait.For(t, wait.Hang, "Ann's move posted", func() bool { return len(a.postsTo(moves)) > posted })
		ply := 2*turn + 1
		if err := chromedp.Do(ctx, pagesUntil(fmt.Sprintf(`document.querySelectorAll("#moves li").length === %d &&
			document.querySelectorAll("#marks .mark.piece").length === 0`, ply))); err != nil {
			t.Fatalf("turn %d: Ann's move is not shown: %v", turn, err)
		}

		// The opponent answers: its event alone draws the move, the news, Ann's turn and her
		// pieces, and the page reports the move seen.
		reply := a.recordedMove(true)
		err := chromedp.Do(ctx, pagesUntil(fmt.Sprintf(`(() => {
			const li = document.querySelectorAll("#moves li"), i = document.getElementById("picture");
			return li.length === %d && li[li.length - 1].textContent === %q && li[li.length - 1].classList.contains("fresh") &&
				!document.getElementById("news").hidden && document.getElementById("news").textContent.includes(%q) &&
				document.getElementById("turn").textContent === "Your move." &&
				i.getAttribute("src").endsWith("ply=%d&v=%d") &&
				document.querySelectorAll("#marks .mark.piece").length > 0; })()`, ply+1, reply, reply, ply+1, ply+1)))
		if err != nil {
			t.Fatalf("turn %d: the opponent's move %s is not drawn: %v", turn, reply, err)
		}
		a.mu.Lock()
		steps, err := a.game.Steps(nil)
		a.mu.Unlock()
		if err != nil {
			t.Fatal(err)
		}
		got, want := pagesMarked(ctx, t, "piece"), slices.Clone(steps.Next)
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("turn %d: movable pieces marked %v, want %v", turn, got, want)
		}
		wait.For(t, wait.Hang, "the move reported seen", func() bool {
			p := a.postsTo(seen)
			return len(p) > turn && p[len(p)-1].Body["ply"] == float64(ply+1)
		})
		if gets := a.count(func() int { return a.gets }); gets != 1 {
			t.Fatalf("turn %d: %d fetches of the state, want 1 (the load)", turn, gets)
		}
	}

	// An event without the position (an old record): the page reads the state for it.
	a.mu.Lock()
	path, _ := a.game.Describe(a.game.LegalMoves()[0])
	a.mu.Unlock()
	pagesTapUntil(ctx, t, "the last move's target", func() { pagesTap(ctx, t, a, path[0], false) },
		fmt.Sprintf(`document.querySelector('#marks .mark.target[data-square=%q]') !== null`, path[len(path)-1]))
	for _, sq := range path[1:] {
		pagesTap(ctx, t, a, sq, false)
	}
	if err := chromedp.Do(ctx, pagesUntil(`document.querySelectorAll("#moves li").length === 7`)); err != nil {
		t.Fatalf("Ann's last move is not shown: %v", err)
	}
	reply := a.recordedMove(false)
	wait.For(t, wait.Hang, "the state read for an event without the position", func() bool { return a.count(func() int { return a.gets }) == 2 })
	if err := chromedp.Do(ctx, pagesUntil(fmt.Sprintf(`document.querySelectorAll("#moves li").length === 8 &&
		document.querySelector("#moves li:last-child").textContent === %q`, reply))); err != nil {
		t.Fatalf("the opponent's move of an old record is not drawn: %v", err)
	}
}

// recordedLocked sends an event of the record of kind by seat 1, Ann's opponent, at the game's
// ply, with d filled with the board after it (its status, side to move, offer, revision, who
// may undo), as the web server sends it, and no "board" event.
func (a *pagesAPI) recordedLocked(kind string, d boards.EventData) {
	a.revision++
	a.recordID++
	d.Status, d.ToMove, d.Revision = a.status, int(a.game.ToMove()), a.revision
	d.Offer = a.offer
	d.CanUndo = &[2]bool{a.canUndo, false}
	ev := boards.Event{ID: a.recordID, Board: pagesGameID, Kind: kind, Seat: 1, Actor: 1, By: "web", Ply: a.game.Ply(),
		Heard: [2]string{"now", "now"}, At: time.Now(), Data: d}
	data, err := json.Marshal(ev)
	if err != nil {
		a.t.Fatal(err)
	}
	a.sendLocked(fmt.Sprintf("id: %d\nevent: record\ndata: %s\n\n", ev.ID, data))
}

// Ensure a player's page draws the opponent's answer to the player's draw offer and the
// opponent's undo from their events alone: the offer's answer in the words of the board, the
// move taken back off the list and the board, with no fetch of the state.
func TestPlayPageDrawsDeclineAndUndoFromEvents(t *testing.T) {
	t.Parallel()
	a := newPagesAPI(t, "russian", "", "en")
	url := a.serve(t)
	ctx := pagesBrowser(t)
	if err := chromedp.Do(ctx, chromedp.Navigate(fmt.Sprintf("%s/play/%d", url, pagesGameID)), pagesBoardReady,
		pagesUntil(`document.querySelectorAll("#marks .mark.piece").length > 0`)); err != nil {
		t.Fatalf("open the game: %v", err)
	}
	wait.For(t, wait.Hang, "the event stream", func() bool {
		return a.count(func() int { return len(a.subs) }) == 1 && a.count(func() int { return a.gets }) >= 1
	})
	// Ann offers a draw; the opponent declines it.
	if err := chromedp.Do(ctx, chromedp.Click("#draw-offer"), pagesUntil(`document.getElementById("offer").textContent === "You offered a draw."`)); err != nil {
		t.Fatalf("the offer: %v", err)
	}
	a.mu.Lock()
	a.offer = nil
	a.declined = map[string]any{"seat": 1, "text": "The bot declines the draw."}
	a.recordedLocked(boards.EventKindDrawDeclined, boards.EventData{})
	a.mu.Unlock()
	if err := chromedp.Do(ctx, pagesUntil(`document.getElementById("offer").textContent === "The bot declines the draw." &&
		document.getElementById("draw-offer").hidden`)); err != nil {
		t.Fatalf("the decline is not drawn: %v (offer %q)", err, pagesText(ctx, t, "#offer"))
	}

	// Ann moves, the opponent answers and takes its answer back.
	a.mu.Lock()
	mv := a.game.LegalMoves()[0]
	path, _ := a.game.Describe(mv)
	a.mu.Unlock()
	pagesTapUntil(ctx, t, "the target of Ann's move", func() { pagesTap(ctx, t, a, path[0], false) },
		fmt.Sprintf(`document.querySelector('#marks .mark.target[data-square=%q]') !== null`, path[len(path)-1]))
	for _, sq := range path[1:] {
		pagesTap(ctx, t, a, sq, false)
	}
	if err := chromedp.Do(ctx, pagesUntil(`document.querySelectorAll("#moves li").length === 1`)); err != nil {
		t.Fatalf("Ann's move is not shown: %v", err)
	}
	reply := a.recordedMove(true)
	if err := chromedp.Do(ctx, pagesUntil(fmt.Sprintf(`document.querySelectorAll("#moves li").length === 2 &&
		document.querySelector("#moves li:last-child").textContent === %q &&
		document.getElementById("turn").textContent === "Your move."`, reply))); err != nil {
		t.Fatalf("the opponent's move is not drawn: %v", err)
	}
	a.mu.Lock()
	if err := a.game.Undo(); err != nil {
		a.t.Fatal(err)
	}
	a.movers = a.movers[:len(a.movers)-1]
	a.unseen = nil
	a.recordedLocked(boards.EventKindUndone, boards.EventData{Undone: 1, Picture: fmt.Sprint(a.game.Ply())})
	a.mu.Unlock()
	if err := chromedp.Do(ctx, pagesUntil(`(() => { const i = document.getElementById("picture");
		return document.querySelectorAll("#moves li").length === 1 && document.getElementById("turn").textContent !== "Your move." &&
			document.querySelectorAll("#marks .mark.piece").length === 0 && i.getAttribute("src").endsWith("ply=1&v=1"); })()`)); err != nil {
		t.Fatalf("the undo is not drawn: %v (turn %q)", err, pagesText(ctx, t, "#turn"))
	}
	if gets := a.count(func() int { return a.gets }); gets != 1 {
		t.Fatalf("%d fetches of the state, want 1 (the load)", gets)
	}
}
