package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"testing"
	"time"

	"github.com/questbot/questbot/bot/boards"
	"github.com/questbot/questbot/bot/boards/web"
)

// chessGameOf opens a game of chess at 10 minutes and 5 seconds a move (Fischer) between two web players, the first waiting for the
// second, and returns it with the clients by seat.
func (e *env) chessGameOf(t *testing.T, a, b *client) (int64, [2]*client) {
	t.Helper()
	var created, joined struct{ ID int64 }
	a.must(t, "POST", "/api/v1/games", map[string]string{"variant": "chess", "control": "blitz10+5"}, http.StatusCreated, &created)
	b.must(t, "POST", "/api/v1/games", map[string]string{"variant": "chess", "control": "blitz10+5"}, http.StatusCreated, &joined)
	if joined.ID != created.ID {
		t.Fatalf("the second player opened game %d, the first waits in %d", joined.ID, created.ID)
	}
	var by [2]*client
	st := a.state(t, created.ID)
	by[st.Seat], by[1-st.Seat] = a, b
	return created.ID, by
}

// lastOf is the last event of kind among evs; it fails the test when there is none.
func lastOf(t *testing.T, evs []boards.Event, kind string) boards.Event {
	t.Helper()
	for i := len(evs) - 1; i >= 0; i-- {
		if evs[i].Kind == kind {
			return evs[i]
		}
	}
	t.Fatalf("no %s event among %s", kind, describe(evs))
	return boards.Event{}
}

// wantRendersState checks that an event of a move or an undo says what each seat's state of the
// board after it says: the ply, status and side to move, the legal moves of the player to move,
// who may take a move back, the offer, the picture's version, the revision and the clocks.
func wantRendersState(t *testing.T, what string, ev boards.Event, id int64, by [2]*client) {
	t.Helper()
	d := ev.Data
	for seat, c := range by {
		st := c.state(t, id)
		if ev.Ply != st.Ply || d.Status != st.Status || d.ToMove != st.ToMove || d.Revision != st.Revision {
			t.Errorf("%s, seat %d: the event says ply %d, %s, seat %d to move, revision %d; the state ply %d, %s, seat %d, revision %d",
				what, seat, ev.Ply, d.Status, d.ToMove, d.Revision, st.Ply, st.Status, st.ToMove, st.Revision)
		}
		if seat == d.ToMove && !reflect.DeepEqual(d.Legal, st.Legal) {
			t.Errorf("%s, seat %d: the event's legal moves %v, the state's %v", what, seat, d.Legal, st.Legal)
		}
		if d.CanUndo == nil || d.CanUndo[seat] != st.CanUndo {
			t.Errorf("%s, seat %d: the event says can undo %v, the state %v", what, seat, d.CanUndo, st.CanUndo)
		}
		if (d.Offer == nil) != (st.Offer == nil) {
			t.Errorf("%s, seat %d: the event's offer %v, the state's %+v", what, seat, d.Offer, st.Offer)
		}
		u, err := url.Parse(st.Picture.URL)
		if err != nil {
			t.Fatal(err)
		}
		if v := u.Query().Get("v"); d.Picture != v {
			t.Errorf("%s, seat %d: the event's picture %q, the state's %q", what, seat, d.Picture, v)
		}
		// The clock is frozen: the running clock has not been charged since the turn began.
		if d.ClocksMS == nil || d.ClocksMS[0] != st.Seats[0].ClockMS || d.ClocksMS[1] != st.Seats[1].ClockMS {
			t.Errorf("%s, seat %d: the event's clocks %v, the state's %d and %d", what, seat, d.ClocksMS,
				st.Seats[0].ClockMS, st.Seats[1].ClockMS)
		}
		if d.Deadline == nil || st.Deadline == nil || !d.Deadline.Equal(*st.Deadline) {
			t.Errorf("%s, seat %d: the event's deadline %v, the state's %v", what, seat, d.Deadline, st.Deadline)
		}
	}
}

// Ensure the events of the record of a move and of an undo carry what the state of the board
// after them says, for each seat (the position as the page draws it: the legal moves of the
// player to move with their paths, the undo button, the picture, the clocks), and a seen event
// who may still take a move back; a chess move's event stays small. It logs the sizes.
func TestRecordEventsRenderTheState(t *testing.T) {
	t.Parallel()
	e := newEnv(t, web.Config{})
	// Frozen on a whole millisecond, which the database keeps as it is.
	e.clock.frozen.Store(e.clock.now().Truncate(time.Millisecond).UnixNano())
	ann, boris := e.login(t, 1, "Ann"), e.login(t, 2, "Boris")
	id, by := e.chessGameOf(t, ann, boris)
	var last int64
	sizes := map[string]int{}
	for ply := range 6 {
		st := by[0].state(t, id)
		mover := by[st.ToMove]
		st = mover.state(t, id)
		mover.must(t, "POST", fmt.Sprintf("/api/v1/games/%d/moves", id), map[string]any{"move": st.Legal[0].Text, "ply": ply},
			http.StatusOK, nil)
		evs := e.recorded(t, id, last)
		last = evs[len(evs)-1].ID
		ev := lastOf(t, evs, boards.EventKindMoved)
		wantRendersState(t, fmt.Sprintf("move %d", ply+1), ev, id, by)
		data, err := json.Marshal(ev)
		if err != nil {
			t.Fatal(err)
		}
		if ply == 0 {
			sizes["the first move (20 legal answers)"] = len(data)
		}
		sizes["the largest move"] = max(sizes["the largest move"], len(data))
		// The opponent has not seen the move: the mover may take it back.
		if !ev.Data.CanUndo[ev.Seat] || len(ev.Data.Legal) == 0 {
			t.Errorf("move %d: the mover may undo %v, %d legal answers", ply+1, ev.Data.CanUndo, len(ev.Data.Legal))
		}
		if ply == 4 {
			mover.must(t, "POST", fmt.Sprintf("/api/v1/games/%d/undo", id), map[string]any{"ply": ply + 1}, http.StatusOK, nil)
			evs := e.recorded(t, id, last)
			last = evs[len(evs)-1].ID
			un := lastOf(t, evs, boards.EventKindUndone)
			if un.Ply != ply || un.Data.Undone != 1 {
				t.Fatalf("the undo's event at ply %d takes back %d", un.Ply, un.Data.Undone)
			}
			wantRendersState(t, "the undo", un, id, by)
			mover.must(t, "POST", fmt.Sprintf("/api/v1/games/%d/moves", id), map[string]any{"move": st.Legal[0].Text, "ply": ply},
				http.StatusOK, nil)
			evs = e.recorded(t, id, last)
			last = evs[len(evs)-1].ID
		}
		// The opponent sees the move: the mover can no longer take it back.
		other := by[1-ev.Seat]
		other.must(t, "POST", fmt.Sprintf("/api/v1/games/%d/seen", id), map[string]any{"ply": ply + 1}, http.StatusOK, nil)
		evs = e.recorded(t, id, last)
		last = evs[len(evs)-1].ID
		seen := lastOf(t, evs, boards.EventKindSeen)
		if seen.Seat != ev.Seat || seen.Actor != 1-ev.Seat || seen.Data.Seen != ply+1 || seen.Data.CanUndo == nil ||
			seen.Data.CanUndo[ev.Seat] {
			t.Errorf("move %d: the seen event of seat %d by %d up to %d, can undo %v", ply+1, seen.Seat, seen.Actor,
				seen.Data.Seen, seen.Data.CanUndo)
		}
		if st := by[ev.Seat].state(t, id); st.CanUndo {
			t.Errorf("move %d: the mover may undo after the opponent saw the move", ply+1)
		}
	}
	t.Logf("a chess move's event: %v bytes", sizes)
	if n := sizes["the largest move"]; n > 3000 {
		t.Errorf("a chess move's event is %d bytes, want under 3000", n)
	}
}

// stateNews is what a state says of the news of its seat: the unseen plies and whether its
// draw offer was declined.
type stateNews struct {
	Unseen   []int
	Declined bool
}

// storedNews is what the board as stored says of a seat's news: the opponent's moves past its
// mark of what it has seen, and its offer of this move no longer standing in a game in play.
func (e *env) storedNews(t *testing.T, id int64, seat int) stateNews {
	t.Helper()
	bd := e.board(t, id)
	n := stateNews{Unseen: []int{}}
	for _, m := range bd.Moves {
		if m.Seat != seat && m.Ply > bd.Seats[seat].Seen {
			n.Unseen = append(n.Unseen, m.Ply)
		}
	}
	n.Declined = bd.Status.String() == "active" && bd.Offer == nil && bd.Seats[seat].Offered
	return n
}

// wantNews checks that each seat's state says of its news what the board's record says
// (boards.NewsOf), what the board as stored says, and what want says.
func wantNews(t *testing.T, e *env, what string, id int64, by [2]*client, want [2]stateNews) {
	t.Helper()
	for seat, c := range by {
		if c == nil {
			continue
		}
		st := c.state(t, id)
		got := stateNews{Unseen: st.Unseen, Declined: st.Declined != nil}
		recorded, ok, err := boards.NewsOf(context.Background(), e.Pool, e.board(t, id), seat)
		if err != nil {
			t.Fatal(err)
		}
		if !ok || !reflect.DeepEqual(got, stateNews{Unseen: recorded.Unseen, Declined: recorded.Declined}) {
			t.Errorf("%s, seat %d: the state says %+v, the record %+v (kept: %v)", what, seat, got, recorded, ok)
		}
		if stored := e.storedNews(t, id, seat); !reflect.DeepEqual(got, stored) {
			t.Errorf("%s, seat %d: the state says %+v, the board as stored %+v", what, seat, got, stored)
		}
		if !reflect.DeepEqual(got, want[seat]) {
			t.Errorf("%s, seat %d: the state says %+v, want %+v", what, seat, got, want[seat])
		}
	}
}

// Ensure what the state says a player has not seen and whether their draw offer was declined,
// taken from the board's record, is what the board as stored says, through moves, seen marks
// (on the web and by an action), undos, draw offers declined by the opponent, by a move and by
// the bot.
func TestStateNewsFromRecord(t *testing.T) {
	t.Parallel()
	e := newEnv(t, web.Config{})
	ann, boris := e.login(t, 1, "Ann"), e.login(t, 2, "Boris")
	id, by := e.gameOf(t, ann, boris)
	game := fmt.Sprintf("/api/v1/games/%d", id)
	none := stateNews{Unseen: []int{}}
	post := func(seat int, op string, body map[string]any) {
		t.Helper()
		by[seat].must(t, "POST", game+op, body, http.StatusOK, nil)
	}
	move := func(seat int) {
		t.Helper()
		st := by[seat].state(t, id)
		post(seat, "/moves", map[string]any{"move": st.Legal[0].Text, "ply": st.Ply})
	}
	first := by[0].state(t, id).ToMove
	a, b := first, 1-first
	news := func(unseenA, unseenB []int, declinedA, declinedB bool) [2]stateNews {
		var n [2]stateNews
		n[a] = stateNews{Unseen: unseenA, Declined: declinedA}
		n[b] = stateNews{Unseen: unseenB, Declined: declinedB}
		return n
	}
	wantNews(t, e, "the start", id, by, [2]stateNews{none, none})
	move(a)
	wantNews(t, e, "a's first move", id, by, news([]int{}, []int{1}, false, false))
	move(b) // b's own move says b saw a's
	wantNews(t, e, "b's answer", id, by, news([]int{2}, []int{}, false, false))
	post(a, "/seen", map[string]any{"ply": 2})
	wantNews(t, e, "a saw it", id, by, [2]stateNews{none, none})
	move(a)
	// a takes the move back before b saw it; the game is at ply 2 again, which a had seen.
	post(a, "/undo", map[string]any{"ply": 3})
	wantNews(t, e, "a's undo", id, by, [2]stateNews{none, none})
	move(a)
	wantNews(t, e, "a's move again", id, by, news([]int{}, []int{3}, false, false))
	// b offers a draw (an action: it marks the move seen), a declines it.
	post(b, "/draw", map[string]any{"action": "offer", "ply": 3})
	wantNews(t, e, "b's offer", id, by, [2]stateNews{none, none})
	post(a, "/draw", map[string]any{"action": "decline", "ply": 3})
	wantNews(t, e, "a declined", id, by, news([]int{}, []int{}, false, true))
	move(b)
	wantNews(t, e, "b's move after the decline", id, by, news([]int{4}, []int{}, false, false))
	// b offers on a's turn, and a declines by moving: the offer was of the move before.
	post(b, "/draw", map[string]any{"action": "offer", "ply": 4})
	move(a)
	wantNews(t, e, "b's offer declined by a's move", id, by, news([]int{}, []int{5}, false, false))

	// Against the bot, which declines an offer at once.
	ann2 := e.login(t, 3, "Carol")
	var g struct{ ID int64 }
	ann2.must(t, "POST", "/api/v1/games", map[string]string{"variant": "russian", "bot": "easy"}, http.StatusCreated, &g)
	var st web.GameState
	e.WaitFor(t, "Carol's turn", func() bool {
		st = ann2.state(t, g.ID)
		return st.ToMove == st.Seat
	})
	var solo [2]*client
	solo[st.Seat] = ann2
	botNews := func(unseen []int, declined bool) [2]stateNews {
		var n [2]stateNews
		n[st.Seat] = stateNews{Unseen: unseen, Declined: declined}
		return n
	}
	wantNews(t, e, "the bot's game", g.ID, solo, botNews(st.Unseen, false))
	ann2.must(t, "POST", fmt.Sprintf("/api/v1/games/%d/seen", g.ID), map[string]any{"ply": st.Ply}, http.StatusOK, nil)
	wantNews(t, e, "Carol saw the bot's move", g.ID, solo, botNews([]int{}, false))
	ann2.must(t, "POST", fmt.Sprintf("/api/v1/games/%d/draw", g.ID), map[string]any{"action": "offer", "ply": st.Ply}, http.StatusOK, nil)
	wantNews(t, e, "the bot declined", g.ID, solo, botNews([]int{}, true))
	ply := st.Ply
	ann2.must(t, "POST", fmt.Sprintf("/api/v1/games/%d/moves", g.ID), map[string]any{"move": st.Legal[0].Text, "ply": ply}, http.StatusOK, nil)
	e.WaitFor(t, "the bot's reply", func() bool { st = ann2.state(t, g.ID); return st.Ply == ply+2 })
	wantNews(t, e, "the bot's reply", g.ID, solo, botNews([]int{ply + 2}, false))

	// A board begun before the record was kept: the state says what the board as stored says.
	e.Exec(t, `DELETE FROM board_event WHERE board_id = $1`, id)
	if _, ok, err := boards.NewsOf(context.Background(), e.Pool, e.board(t, id), 0); err != nil || ok {
		t.Fatalf("a board without its record: kept %v, %v", ok, err)
	}
	for seat, c := range by {
		st := c.state(t, id)
		if got, stored := (stateNews{Unseen: st.Unseen, Declined: st.Declined != nil}), e.storedNews(t, id, seat); !reflect.DeepEqual(got, stored) {
			t.Errorf("without the record, seat %d: the state says %+v, the board as stored %+v", seat, got, stored)
		}
	}
}
