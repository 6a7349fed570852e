package board

import (
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/questbot/questbot/engine"
)

func TestDrawOffers(t *testing.T) {
	b := openHuman(t, "russian", TimeControl{}, Options{})
	ev, err := b.OfferDraw(alice, at(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if want := []Event{{Kind: EventDrawOffered, Seat: 0}}; !reflect.DeepEqual(ev, want) {
		t.Errorf("events %+v", ev)
	}
	if b.Offer == nil || *b.Offer != (DrawOffer{Seat: 0, Ply: 0}) {
		t.Errorf("offer %+v", b.Offer)
	}
	steps := []struct {
		name string
		do   func() ([]Event, error)
		err  error
		want []EventKind
	}{
		{"second offer", func() ([]Event, error) { return b.OfferDraw(alice, at(2*time.Second)) }, ErrOffered, nil},
		{"accept own offer", func() ([]Event, error) { return b.AcceptDraw(alice, at(2*time.Second)) }, ErrNoOffer, nil},
		{"decline own offer", func() ([]Event, error) { return b.DeclineDraw(alice, at(2*time.Second)) }, ErrNoOffer, nil},
		{"stranger", func() ([]Event, error) { return b.AcceptDraw(carol, at(2*time.Second)) }, ErrNotSeated, nil},
		{"declined", func() ([]Event, error) { return b.DeclineDraw(bob, at(3*time.Second)) }, nil, []EventKind{EventDrawDeclined}},
		{"nothing to decline", func() ([]Event, error) { return b.DeclineDraw(bob, at(3*time.Second)) }, ErrNoOffer, nil},
		{"once a move", func() ([]Event, error) { return b.OfferDraw(alice, at(4*time.Second)) }, ErrOffered, nil},
		{"move", func() ([]Event, error) { return b.Move(alice, "c3-d4", 0, at(5*time.Second)) }, nil, []EventKind{EventMoved}},
		{"bob offers", func() ([]Event, error) { return b.OfferDraw(bob, at(6*time.Second)) }, nil, []EventKind{EventDrawOffered}},
		{"bob's own move keeps it", func() ([]Event, error) { return b.Move(bob, "f6-g5", 1, at(7*time.Second)) }, nil, []EventKind{EventMoved}},
		{"alice's move declines it", func() ([]Event, error) { return b.Move(alice, "g3-f4", 2, at(8*time.Second)) }, nil, []EventKind{EventMoved, EventDrawDeclined}},
		{"bob offers again", func() ([]Event, error) { return b.OfferDraw(bob, at(9*time.Second)) }, nil, []EventKind{EventDrawOffered}},
		{"crossing offers agree", func() ([]Event, error) { return b.OfferDraw(alice, at(10*time.Second)) }, nil, []EventKind{EventFinished}},
		{"over", func() ([]Event, error) { return b.OfferDraw(alice, at(11*time.Second)) }, ErrFinished, nil},
	}
	for _, s := range steps {
		ev, err := s.do()
		if s.err != nil {
			if !errors.Is(err, s.err) || ev != nil {
				t.Fatalf("%s: %v %v, want %v", s.name, ev, err, s.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if got := kinds(ev); !reflect.DeepEqual(got, s.want) {
			t.Fatalf("%s: events %v, want %v", s.name, got, s.want)
		}
	}
	if o := *b.Outcome; o != (Outcome{Draw: true, End: EndAgreement}) || o.Score(0) != 0.5 || o.Score(1) != 0.5 {
		t.Errorf("outcome %+v", o)
	}
}

func TestAcceptDraw(t *testing.T) {
	b := openHuman(t, "chase", TimeControl{}, Options{})
	if _, err := b.OfferDraw(bob, t0); err != nil {
		t.Fatal(err)
	}
	ev, err := b.AcceptDraw(alice, at(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	if len(ev) != 1 || ev[0].Kind != EventFinished || ev[0].Seat != 0 || !b.Outcome.Draw || b.Offer != nil {
		t.Errorf("events %+v, outcome %+v", ev, b.Outcome)
	}
}

func TestUndoWithdrawsOffer(t *testing.T) {
	b := openHuman(t, "russian", TimeControl{}, Options{})
	play(t, b, t0, "c3-d4")
	if _, err := b.OfferDraw(alice, t0); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Undo(alice, t0); err != nil {
		t.Fatal(err)
	}
	if b.Offer != nil || b.Seats[0].Offered {
		t.Errorf("offer %+v after undo", b.Offer)
	}
}

func TestDrawAgainstBot(t *testing.T) {
	tests := []struct {
		name  string
		start string
		want  []EventKind
	}{
		{"the bot is behind: accepts", "4k3/8/8/8/8/8/8/3QK3 w - - 0 1", []EventKind{EventDrawOffered, EventFinished}},
		{"the bot is ahead: declines", "3qk3/8/8/8/8/8/8/4K3 w - - 0 1", []EventKind{EventDrawOffered, EventDrawDeclined}},
		{"level, too early: declines", "", []EventKind{EventDrawOffered, EventDrawDeclined}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, _, err := Open(Spec{Service: 1, Creator: alice, Variant: "chess", Bot: BotNormal, Options: Options{Start: tt.start}}, t0)
			if err != nil {
				t.Fatal(err)
			}
			ev, err := b.OfferDraw(alice, t0)
			if err != nil {
				t.Fatal(err)
			}
			wantKinds(t, ev, tt.want...)
			if ev[1].Seat != 1 || b.Offer != nil {
				t.Errorf("answered by seat %d, offer %+v", ev[1].Seat, b.Offer)
			}
			if _, err := b.OfferDraw(alice, t0); b.Status == Active && !errors.Is(err, ErrOffered) {
				t.Errorf("second offer: %v, want ErrOffered", err)
			}
		})
	}
	g, err := engine.NewGame("chess")
	if err != nil {
		t.Fatal(err)
	}
	if !botAcceptsDraw(g, 1, drawEqualPlies) {
		t.Error("the bot declines a level position late in the game")
	}
}
