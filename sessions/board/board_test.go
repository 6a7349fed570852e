package board

import (
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/questbot/questbot/engine"
)

// t0 is the tests' clock origin; every time is t0 plus an offset, never the wall clock.
var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// at returns t0 plus d.
func at(d time.Duration) time.Time { return t0.Add(d) }

const (
	alice int64 = 101
	bob   int64 = 202
	carol int64 = 303
)

// openHuman opens a board of alice (seat 0) and lets bob join at t0.
func openHuman(t *testing.T, variant string, tc TimeControl, opts Options) *Board {
	t.Helper()
	b, _, err := Open(Spec{Service: 1, Creator: alice, Variant: variant, Options: opts, Seed: 7, Control: tc}, t0)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	if _, err := b.Join(bob, t0); err != nil {
		t.Fatalf("Join: %v", err)
	}
	return b
}

// play makes moves alternately from the side to move, all at now.
func play(t *testing.T, b *Board, now time.Time, moves ...string) []Event {
	t.Helper()
	var all []Event
	for _, m := range moves {
		user := b.Seats[b.ToMove].User
		ev, err := b.Move(user, m, b.Ply(), now)
		if err != nil {
			t.Fatalf("move %s: %v", m, err)
		}
		all = append(all, ev...)
	}
	return all
}

// kinds lists the kinds of events.
func kinds(ev []Event) []EventKind {
	var ks []EventKind
	for _, e := range ev {
		ks = append(ks, e.Kind)
	}
	return ks
}

func wantKinds(t *testing.T, ev []Event, want ...EventKind) {
	t.Helper()
	if got := kinds(ev); !reflect.DeepEqual(got, want) {
		t.Fatalf("events %v, want %v", got, want)
	}
}

func TestOpen(t *testing.T) {
	corr, _ := ControlByName("corr1d")
	tests := []struct {
		name     string
		spec     Spec
		status   Status
		seat     int
		deadline time.Time
		events   []EventKind
	}{
		{"waits for an opponent", Spec{Service: 1, Creator: alice, Variant: "russian", Control: corr},
			Waiting, 0, time.Time{}, []EventKind{EventOpened}},
		{"second side", Spec{Service: 1, Creator: alice, Variant: "chess", Side: SideSecond},
			Waiting, 1, time.Time{}, []EventKind{EventOpened}},
		{"random side from the seed", Spec{Service: 1, Creator: alice, Variant: "chess", Side: SideRandom, Seed: 1 << 32},
			Waiting, 1, time.Time{}, []EventKind{EventOpened}},
		{"against the bot starts at once", Spec{Service: 1, Creator: alice, Variant: "chess", Bot: BotEasy, Control: corr},
			Active, 0, at(24 * time.Hour), []EventKind{EventStarted}},
		{"the bot moves first: no deadline", Spec{Service: 1, Creator: alice, Variant: "chess", Bot: BotEasy, Side: SideSecond, Control: corr},
			Active, 1, time.Time{}, []EventKind{EventStarted}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, ev, err := Open(tt.spec, t0)
			if err != nil {
				t.Fatal(err)
			}
			wantKinds(t, ev, tt.events...)
			if b.Status != tt.status {
				t.Errorf("status %v, want %v", b.Status, tt.status)
			}
			if got, err := b.SeatOf(alice); err != nil || got != tt.seat {
				t.Errorf("alice's seat %d (%v), want %d", got, err, tt.seat)
			}
			if !b.Deadline.Equal(tt.deadline) {
				t.Errorf("deadline %v, want %v", b.Deadline, tt.deadline)
			}
			if b.Rated {
				t.Error("a game against the bot or waiting is not rated")
			}
			if b.Start == "" || b.Position != b.Start || b.Ply() != 0 {
				t.Errorf("start %q, position %q, ply %d", b.Start, b.Position, b.Ply())
			}
		})
	}
}

func TestOpenErrors(t *testing.T) {
	ok := Spec{Service: 1, Creator: alice, Variant: "chess"}
	tests := []struct {
		name   string
		change func(*Spec)
		want   []error
	}{
		{"unknown variant", func(s *Spec) { s.Variant = "go" }, []error{ErrInvalid, engine.ErrUnknownVariant}},
		{"fox option on chess", func(s *Spec) { s.Options.Diagonals = true }, []error{ErrInvalid, engine.ErrBadOption}},
		{"bad start position", func(s *Spec) { s.Options.Start = "nonsense" }, []error{ErrInvalid, engine.ErrBadPosition}},
		{"decided start position", func(s *Spec) { s.Options.Start = "k7/1Q6/1K6/8/8/8/8/8 b - - 0 1" }, []error{ErrInvalid}},
		{"bad time control", func(s *Spec) { s.Control = TimeControl{Mode: ClockFischer} }, []error{ErrInvalid}},
		{"bad bot level", func(s *Spec) { s.Bot = 9 }, []error{ErrInvalid}},
		{"no creator", func(s *Spec) { s.Creator = 0 }, []error{ErrInvalid}},
		{"no service", func(s *Spec) { s.Service = 0 }, []error{ErrInvalid}},
		{"bad first player", func(s *Spec) { s.Options.FirstPlayer = 3 }, []error{ErrInvalid}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := ok
			tt.change(&spec)
			_, _, err := Open(spec, t0)
			for _, w := range tt.want {
				if !errors.Is(err, w) {
					t.Errorf("error %v, want %v", err, w)
				}
			}
		})
	}
}

func TestJoin(t *testing.T) {
	blitz, _ := ControlByName("blitz10+5")
	b, _, err := Open(Spec{Service: 1, Creator: alice, Variant: "chess", Control: blitz}, t0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Join(alice, at(time.Second)); !errors.Is(err, ErrAlreadySeated) {
		t.Errorf("creator joins: %v, want ErrAlreadySeated", err)
	}
	if _, err := b.Join(BotUser, at(time.Second)); !errors.Is(err, ErrInvalid) {
		t.Errorf("BotUser joins: %v, want ErrInvalid", err)
	}
	ev, err := b.Join(bob, at(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	wantKinds(t, ev, EventStarted)
	if ev[0].Seat != 0 {
		t.Errorf("started with seat %d to move, want 0", ev[0].Seat)
	}
	if b.Status != Active || !b.Rated || b.Seats[1].User != bob {
		t.Errorf("status %v, rated %v, seat 1 %+v", b.Status, b.Rated, b.Seats[1])
	}
	if !b.Started.Equal(at(time.Minute)) || !b.TurnStarted.Equal(at(time.Minute)) {
		t.Errorf("started %v, turn %v", b.Started, b.TurnStarted)
	}
	if want := at(time.Minute + 10*time.Minute); !b.Deadline.Equal(want) {
		t.Errorf("deadline %v, want %v", b.Deadline, want)
	}
	for i, s := range b.Seats {
		if s.Clock != 10*time.Minute {
			t.Errorf("seat %d clock %v, want 10m", i, s.Clock)
		}
	}
	if _, err := b.Join(carol, at(time.Hour)); !errors.Is(err, ErrFull) {
		t.Errorf("third player: %v, want ErrFull", err)
	}
	if _, err := b.Cancel(alice, at(time.Hour)); !errors.Is(err, ErrFull) {
		t.Errorf("cancel a started game: %v, want ErrFull", err)
	}
}

func TestCancel(t *testing.T) {
	b, _, err := Open(Spec{Service: 1, Creator: alice, Variant: "russian"}, t0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Cancel(bob, at(time.Second)); !errors.Is(err, ErrNotSeated) {
		t.Errorf("stranger cancels: %v, want ErrNotSeated", err)
	}
	if _, err := b.Move(alice, "c3-d4", 0, at(time.Second)); !errors.Is(err, ErrNotStarted) {
		t.Errorf("move while waiting: %v, want ErrNotStarted", err)
	}
	ev, err := b.Cancel(alice, at(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	wantKinds(t, ev, EventAborted)
	if b.Status != Aborted || !b.Ended.Equal(at(time.Minute)) {
		t.Errorf("status %v, ended %v", b.Status, b.Ended)
	}
	if _, err := b.Join(bob, at(time.Hour)); !errors.Is(err, ErrFinished) {
		t.Errorf("join aborted: %v, want ErrFinished", err)
	}
	if _, err := b.Cancel(alice, at(time.Hour)); !errors.Is(err, ErrFinished) {
		t.Errorf("cancel twice: %v, want ErrFinished", err)
	}
	if _, err := b.Seen(alice, 0); !errors.Is(err, ErrFinished) {
		t.Errorf("seen aborted: %v, want ErrFinished", err)
	}
}

func TestStatusNames(t *testing.T) {
	for s := Waiting; s <= Aborted; s++ {
		if got, err := ParseStatus(s.String()); err != nil || got != s {
			t.Errorf("status %v: parsed %v, %v", s, got, err)
		}
	}
	for e := EndRules; e <= EndAgreement; e++ {
		if got, err := ParseEnd(e.String()); err != nil || got != e {
			t.Errorf("end %v: parsed %v, %v", e, got, err)
		}
	}
	for l := NoBot; l <= BotStrong; l++ {
		if got, err := ParseBotLevel(l.String()); err != nil || got != l {
			t.Errorf("level %v: parsed %v, %v", l, got, err)
		}
	}
	for _, bad := range []func() error{
		func() error { _, err := ParseStatus("done"); return err },
		func() error { _, err := ParseEnd("flag"); return err },
		func() error { _, err := ParseBotLevel("godlike"); return err },
		func() error { _, err := ParseClockMode("hourglass"); return err },
	} {
		if err := bad(); !errors.Is(err, ErrInvalid) {
			t.Errorf("bad name: %v, want ErrInvalid", err)
		}
	}
	for _, variant := range []string{"chess", "chess960", "russian"} {
		if BotEasy.Limits(variant).Nodes >= BotNormal.Limits(variant).Nodes || BotNormal.Limits(variant).Nodes >= BotStrong.Limits(variant).Nodes {
			t.Errorf("%s: bot levels do not grow in strength", variant)
		}
	}
}

// Ensure only the strong level of chess has its own limits: the refined search and a larger
// budget; every other game and level keeps the limits its figures were measured with.
func TestBotLevelLimitsByGame(t *testing.T) {
	for _, variant := range []string{"chess", "chess960", "gardner", "russian", "othello"} {
		for _, level := range []BotLevel{BotEasy, BotNormal, BotStrong} {
			got := level.Limits(variant)
			want := map[BotLevel]engine.Limits{
				BotEasy:   {Nodes: 2_000, Depth: 2},
				BotNormal: {Nodes: 40_000},
				BotStrong: {Nodes: 400_000},
			}[level]
			if variant == "chess" && level == BotStrong {
				want = engine.Limits{Nodes: strongChessNodes, Refine: true}
			}
			if got.Nodes != want.Nodes || got.Depth != want.Depth || got.Refine != want.Refine || got.Time != 0 {
				t.Errorf("%s, %s: limits %+v, want %+v", variant, level, got, want)
			}
		}
	}
}

func TestChanges(t *testing.T) {
	b := openHuman(t, "russian", TimeControl{}, Options{})
	if _, ok := b.BotSeat(); ok {
		t.Error("a bot seat between two users")
	}
	play(t, b, t0, "c3-d4", "f6-g5")
	b.MarkStored(7)
	if ch := b.Changes(); ch.Revision != 7 || ch.Ply != 2 || ch.Kept != 2 || len(ch.Added) != 0 || ch.Status != Active || ch.Finished {
		t.Fatalf("fresh: %+v", ch)
	}
	// bob takes his move back before alice sees it, and plays another: one stored move is
	// invalid, one is new.
	if _, err := b.Undo(bob, t0); err != nil {
		t.Fatal(err)
	}
	play(t, b, t0, "f6-e5")
	ch := b.Changes()
	if ch.Kept != 1 || len(ch.Added) != 1 || ch.Added[0].Text != "f6-e5" || ch.Added[0].Ply != 2 {
		t.Errorf("after undo and move: %+v", ch)
	}
	if _, err := b.Resign(alice, t0); err != nil {
		t.Fatal(err)
	}
	if ch := b.Changes(); !ch.Finished || ch.Status != Active {
		t.Errorf("after resigning: %+v", ch)
	}
	b.MarkStored(8)
	if ch := b.Changes(); ch.Finished || b.Revision() != 8 {
		t.Errorf("stored again: %+v", ch)
	}
	bot, _, err := Open(Spec{Service: 1, Creator: alice, Variant: "chase", Bot: BotStrong, Side: SideSecond}, t0)
	if err != nil {
		t.Fatal(err)
	}
	if s, ok := bot.BotSeat(); !ok || s != 0 {
		t.Errorf("bot seat %d %v", s, ok)
	}
	if s, err := bot.SeatOf(BotUser); err != nil || s != 0 {
		t.Errorf("SeatOf(BotUser) = %d, %v", s, err)
	}
}
