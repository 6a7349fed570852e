package board

import (
	"errors"
	"testing"
	"time"
)

// TestAbort checks that either player may call off a game until both sides have moved, that
// the aborted board has no outcome, and that the abort is refused afterwards and to strangers.
func TestAbort(t *testing.T) {
	blitz := TimeControl{Name: "3+2", Mode: ClockFischer, Main: 3 * time.Minute, Extra: 2 * time.Second}
	t.Run("before any move, by the side not to move", func(t *testing.T) {
		b := openHuman(t, "chess", blitz, Options{})
		ev, err := b.Abort(bob, at(5*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		wantKinds(t, ev, EventAborted)
		if ev[0].Seat != 1 || b.Status != Aborted || b.Outcome != nil || !b.Ended.Equal(at(5*time.Second)) || !b.Deadline.IsZero() {
			t.Errorf("event %+v, board status %v outcome %v ended %v deadline %v", ev[0], b.Status, b.Outcome, b.Ended, b.Deadline)
		}
		if b.Changes().Finished {
			t.Error("an aborted game counts as finished: its result would be recorded")
		}
		if _, err := b.Move(alice, "e4", 0, at(6*time.Second)); !errors.Is(err, ErrFinished) {
			t.Errorf("move on an aborted board: %v", err)
		}
	})
	t.Run("after one side moved, by that side", func(t *testing.T) {
		b := openHuman(t, "chess", blitz, Options{})
		play(t, b, at(time.Second), "e4")
		if _, err := b.OfferDraw(alice, at(2*time.Second)); err != nil {
			t.Fatal(err)
		}
		ev, err := b.Abort(alice, at(3*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		wantKinds(t, ev, EventAborted)
		if ev[0].Ply != 1 || b.Offer != nil {
			t.Errorf("event %+v, offer %+v", ev[0], b.Offer)
		}
	})
	t.Run("refused once both have moved", func(t *testing.T) {
		b := openHuman(t, "chess", blitz, Options{})
		play(t, b, at(time.Second), "e4", "e5")
		if _, err := b.Abort(alice, at(3*time.Second)); !errors.Is(err, ErrCannotAbort) {
			t.Errorf("abort after both moved: %v", err)
		}
		if b.Status != Active {
			t.Errorf("status %v", b.Status)
		}
	})
	t.Run("refused to a stranger and to the bot", func(t *testing.T) {
		b := openHuman(t, "chess", blitz, Options{})
		if _, err := b.Abort(999, at(time.Second)); !errors.Is(err, ErrNotSeated) {
			t.Errorf("abort by a stranger: %v", err)
		}
		vb, _, err := Open(Spec{Service: 1, Creator: alice, Variant: "chess", Bot: BotEasy, Side: SideSecond, Control: blitz}, t0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := vb.Abort(BotUser, at(time.Second)); !errors.Is(err, ErrNotSeated) {
			t.Errorf("abort by the bot: %v", err)
		}
	})
	t.Run("a waiting board is cancelled, not aborted", func(t *testing.T) {
		b, _, err := Open(Spec{Service: 1, Creator: alice, Variant: "chess", Control: blitz}, t0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := b.Abort(alice, at(time.Second)); !errors.Is(err, ErrNotStarted) {
			t.Errorf("abort of a waiting board: %v", err)
		}
	})
}
