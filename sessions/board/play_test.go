package board

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/questbot/questbot/engine"
)

func TestMoveErrors(t *testing.T) {
	b := openHuman(t, "chess", TimeControl{}, Options{})
	play(t, b, at(time.Minute), "e4")
	before := *b
	beforeMoves := append([]PlayedMove(nil), b.Moves...)
	tests := []struct {
		name string
		user int64
		text string
		ply  int
		want []error
	}{
		{"not seated", carol, "e5", 1, []error{ErrNotSeated}},
		{"not your turn", alice, "d4", 1, []error{ErrNotYourTurn}},
		{"stale ply", bob, "e5", 0, []error{ErrStale}},
		{"future ply", bob, "e5", 2, []error{ErrStale}},
		{"illegal", bob, "e4", 1, []error{ErrIllegalMove, engine.ErrIllegalMove}},
		{"garbage", bob, "qq99", 1, []error{ErrIllegalMove, engine.ErrIllegalMove}},
		{"the bot is not here", BotUser, "e5", 1, []error{ErrNotSeated}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev, err := b.Move(tt.user, tt.text, tt.ply, at(2*time.Minute))
			for _, w := range tt.want {
				if !errors.Is(err, w) {
					t.Errorf("error %v, want %v", err, w)
				}
			}
			if ev != nil {
				t.Errorf("events %v on error", ev)
			}
			if b.Ply() != before.Ply() || b.Position != before.Position || b.ToMove != before.ToMove ||
				!reflect.DeepEqual(b.Moves, beforeMoves) || b.Seats != before.Seats {
				t.Errorf("the board changed")
			}
		})
	}
	var me *MoveError
	if _, err := b.Move(bob, "e4", 1, at(2*time.Minute)); !errors.As(err, &me) || me.Text != "e4" {
		t.Errorf("error %v is not a *MoveError for e4", err)
	}
}

func TestMoveAmbiguous(t *testing.T) {
	// A promotion must name its piece.
	b := openHuman(t, "chess", TimeControl{}, Options{Start: "4k3/1P6/8/8/8/8/8/4K3 w - - 0 1"})
	_, err := b.Move(alice, "b7b8", 0, t0)
	if !errors.Is(err, ErrIllegalMove) || !errors.Is(err, engine.ErrAmbiguousMove) {
		t.Fatalf("error %v, want ErrIllegalMove and engine.ErrAmbiguousMove", err)
	}
	play(t, b, t0, "b7-b8N")
	if b.Moves[0].Text != "b7b8n" {
		t.Errorf("stored %q, want the canonical b7b8n", b.Moves[0].Text)
	}
}

func TestFullGameReplayed(t *testing.T) {
	b := openHuman(t, "chess", TimeControl{}, Options{})
	ev := play(t, b, at(time.Minute), "f3", "e5", "g4")
	wantKinds(t, ev, EventMoved, EventMoved, EventMoved)
	if ev[2].Move != "g2g4" || ev[2].Ply != 3 || ev[2].Seat != 0 {
		t.Errorf("third event %+v", ev[2])
	}
	ev = play(t, b, at(2*time.Minute), "Qh4")
	wantKinds(t, ev, EventMoved, EventFinished)
	o := b.Outcome
	if b.Status != Finished || o == nil || o.Draw || o.Winner != 1 || o.End != EndRules || o.Detail != "checkmate" {
		t.Fatalf("status %v, outcome %+v", b.Status, o)
	}
	if ev[1].Seat != 1 || ev[1].Outcome == nil || *ev[1].Outcome != *o {
		t.Errorf("finished event %+v", ev[1])
	}
	if !b.Ended.Equal(at(2*time.Minute)) || !b.Deadline.IsZero() {
		t.Errorf("ended %v, deadline %v", b.Ended, b.Deadline)
	}
	texts := []string{}
	for _, m := range b.Moves {
		texts = append(texts, m.Text)
	}
	if want := []string{"f2f3", "e7e5", "g2g4", "d8h4"}; !reflect.DeepEqual(texts, want) {
		t.Errorf("moves %v, want %v", texts, want)
	}
	// A copy with only the stored data replays to the same game.
	c := *b
	c.game = nil
	g, err := c.Rebuild()
	if err != nil {
		t.Fatal(err)
	}
	if g.Position() != b.Position || g.Status().Reason != "checkmate" || g.Ply() != 4 {
		t.Errorf("replayed %q %+v", g.Position(), g.Status())
	}
	if _, err := b.Move(alice, "a3", 4, at(3*time.Minute)); !errors.Is(err, ErrFinished) {
		t.Errorf("move after the end: %v, want ErrFinished", err)
	}
	if _, err := b.Resign(alice, at(3*time.Minute)); !errors.Is(err, ErrFinished) {
		t.Errorf("resign after the end: %v, want ErrFinished", err)
	}
	if changed, err := b.Seen(alice, 4); err != nil || !changed {
		t.Errorf("seen a finished game: %v, %v", changed, err)
	}
}

func TestRebuildCorrupt(t *testing.T) {
	b := openHuman(t, "russian", TimeControl{}, Options{})
	play(t, b, t0, "c3-d4", "f6-g5", "g3-f4")
	tests := []struct {
		name   string
		change func(c *Board)
	}{
		{"position after a move", func(c *Board) { c.Moves[1].Position = "W:Wa1:Bh8" }},
		{"final position", func(c *Board) { c.Position = c.Start }},
		{"start position", func(c *Board) { c.Start = "x" }},
		{"illegal stored move", func(c *Board) { c.Moves[2].Text = "a1-h8" }},
		{"wrong seat", func(c *Board) { c.Moves[0].Seat = 1 }},
		{"numbering", func(c *Board) { c.Moves[1].Ply = 5 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := *b
			c.game = nil
			c.Moves = append([]PlayedMove(nil), b.Moves...)
			tt.change(&c)
			if _, err := c.Rebuild(); !errors.Is(err, ErrCorrupt) {
				t.Errorf("rebuild: %v, want ErrCorrupt", err)
			}
			if _, err := c.Move(bob, "b6-a5", 3, t0); !errors.Is(err, ErrCorrupt) {
				t.Errorf("move on a corrupt board: %v, want ErrCorrupt", err)
			}
		})
	}
}

func TestUndoHuman(t *testing.T) {
	corr, _ := ControlByName("corr1d")
	b := openHuman(t, "russian", corr, Options{})
	play(t, b, at(time.Hour), "c3-d4")
	play(t, b, at(2*time.Hour), "f6-g5")
	if _, err := b.Undo(alice, at(3*time.Hour)); !errors.Is(err, ErrCannotUndo) {
		t.Fatalf("undo of the opponent's move: %v, want ErrCannotUndo", err)
	}
	if _, err := b.Undo(carol, at(3*time.Hour)); !errors.Is(err, ErrNotSeated) {
		t.Fatalf("stranger: %v, want ErrNotSeated", err)
	}
	ev, err := b.Undo(bob, at(3*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if want := []Event{{Kind: EventUndone, Seat: 1, Ply: 1, Undone: 1}}; !reflect.DeepEqual(ev, want) {
		t.Errorf("events %+v, want %+v", ev, want)
	}
	if b.Ply() != 1 || b.ToMove != 1 || b.Position != b.Moves[0].Position {
		t.Errorf("ply %d, to move %d, position %q", b.Ply(), b.ToMove, b.Position)
	}
	// Bob's turn resumes from when it began (alice's move), not from the undo.
	if !b.TurnStarted.Equal(at(time.Hour)) || !b.Deadline.Equal(at(25*time.Hour)) {
		t.Errorf("turn %v, deadline %v", b.TurnStarted, b.Deadline)
	}
	if _, err := b.Undo(bob, at(3*time.Hour)); !errors.Is(err, ErrCannotUndo) {
		t.Errorf("second undo: %v, want ErrCannotUndo", err)
	}
	// Once alice has seen bob's move, it stays.
	play(t, b, at(4*time.Hour), "f6-e5")
	if changed, err := b.Seen(alice, 2); err != nil || !changed {
		t.Fatalf("seen: %v %v", changed, err)
	}
	if changed, err := b.Seen(alice, 1); err != nil || changed {
		t.Errorf("seen an older ply: %v %v", changed, err)
	}
	if _, err := b.Seen(alice, 3); !errors.Is(err, ErrStale) {
		t.Errorf("seen a future ply: %v, want ErrStale", err)
	}
	if _, err := b.Seen(carol, 1); !errors.Is(err, ErrNotSeated) {
		t.Errorf("seen by a stranger: %v, want ErrNotSeated", err)
	}
	if _, err := b.Undo(bob, at(5*time.Hour)); !errors.Is(err, ErrCannotUndo) {
		t.Errorf("undo of a seen move: %v, want ErrCannotUndo", err)
	}
	// An undo that would leave the mover out of time is refused.
	c := openHuman(t, "russian", corr, Options{})
	play(t, c, at(23*time.Hour), "c3-d4")
	if _, err := c.Undo(alice, at(25*time.Hour)); !errors.Is(err, ErrCannotUndo) {
		t.Errorf("undo past the restored deadline: %v, want ErrCannotUndo", err)
	}
}

func TestUndoAgainstBot(t *testing.T) {
	blitz, _ := ControlByName("blitz10+5")
	b, _, err := Open(Spec{Service: 1, Creator: alice, Variant: "chess", Bot: BotEasy, Control: blitz}, t0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Undo(alice, t0); !errors.Is(err, ErrCannotUndo) {
		t.Fatalf("undo with no moves: %v, want ErrCannotUndo", err)
	}
	if _, err := b.Move(alice, "e4", 0, at(30*time.Second)); err != nil {
		t.Fatal(err)
	}
	if b.Seats[0].Clock != 10*time.Minute-30*time.Second+5*time.Second {
		t.Errorf("alice's clock %v", b.Seats[0].Clock)
	}
	if !b.Deadline.IsZero() {
		t.Errorf("a deadline %v on the bot's turn", b.Deadline)
	}
	// The bot's pending reply is dropped with the player's move.
	ev, err := b.Undo(alice, at(40*time.Second))
	if err != nil || b.Ply() != 0 || ev[0].Undone != 1 {
		t.Fatalf("undo before the reply: %v, ply %d, %+v", err, b.Ply(), ev)
	}
	if b.Seats[0].Clock != 10*time.Minute || !b.Deadline.Equal(at(10*time.Minute)) {
		t.Errorf("clock %v, deadline %v", b.Seats[0].Clock, b.Deadline)
	}
	play(t, b, at(time.Minute), "e4")
	if _, err := b.Move(BotUser, "e5", 1, at(time.Minute+time.Second)); err != nil {
		t.Fatal(err)
	}
	if b.Seats[1].Clock != 10*time.Minute {
		t.Errorf("the bot's clock moved: %v", b.Seats[1].Clock)
	}
	if _, err := b.Undo(BotUser, at(2*time.Minute)); !errors.Is(err, ErrCannotUndo) {
		t.Errorf("the bot undoes: %v, want ErrCannotUndo", err)
	}
	// Against the bot a seen move may be taken back, with the bot's reply.
	if _, err := b.Seen(alice, 2); err != nil {
		t.Fatal(err)
	}
	ev, err = b.Undo(alice, at(2*time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	if want := []Event{{Kind: EventUndone, Seat: 0, Ply: 0, Undone: 2}}; !reflect.DeepEqual(ev, want) {
		t.Errorf("events %+v, want %+v", ev, want)
	}
	if b.Ply() != 0 || b.ToMove != 0 || b.Position != b.Start || b.Seats[0].Seen != 0 {
		t.Errorf("ply %d, to move %d, seen %d", b.Ply(), b.ToMove, b.Seats[0].Seen)
	}
	if ch := b.Changes(); ch.Kept != 0 || len(ch.Added) != 0 {
		t.Errorf("changes %+v", ch)
	}
}

func TestResign(t *testing.T) {
	b := openHuman(t, "foxgeese13", TimeControl{}, Options{})
	if _, err := b.Resign(carol, t0); !errors.Is(err, ErrNotSeated) {
		t.Errorf("stranger resigns: %v", err)
	}
	// Either side may resign on either turn.
	ev, err := b.Resign(bob, at(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	want := Outcome{Winner: 0, End: EndResignation}
	if len(ev) != 1 || ev[0].Kind != EventFinished || ev[0].Seat != 1 || *ev[0].Outcome != want || *b.Outcome != want {
		t.Errorf("events %+v, outcome %+v", ev, b.Outcome)
	}
	if o := *b.Outcome; o.Score(0) != 1 || o.Score(1) != 0 {
		t.Errorf("scores %v %v", o.Score(0), o.Score(1))
	}
	if !b.Changes().Finished {
		t.Error("Changes does not report the end")
	}
}

func TestExpire(t *testing.T) {
	corr, _ := ControlByName("corr3d")
	tests := []struct {
		name    string
		variant string
		opts    Options
		moves   []string
		want    Outcome
	}{
		{"the side to move loses", "russian", Options{}, []string{"c3-d4"},
			Outcome{Winner: 0, End: EndTimeout}},
		{"a bare king cannot win: draw", "chess", Options{Start: "3qk3/8/8/8/8/8/8/4K3 w - - 0 1"}, []string{"Kf2"},
			Outcome{Draw: true, End: EndTimeout, Detail: "the opponent cannot win"}},
		{"a king and a queen can win", "chess", Options{Start: "3qk3/8/8/8/8/8/8/4K3 b - - 0 1"}, []string{"Qd7"},
			Outcome{Winner: 1, End: EndTimeout}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := openHuman(t, tt.variant, corr, tt.opts)
			play(t, b, at(time.Hour), tt.moves...)
			deadline := at(time.Hour + 72*time.Hour)
			if !b.Deadline.Equal(deadline) {
				t.Fatalf("deadline %v, want %v", b.Deadline, deadline)
			}
			if ev, err := b.Expire(deadline); err != nil || ev != nil {
				t.Fatalf("expire at the deadline: %v %v", ev, err)
			}
			ev, err := b.Expire(deadline.Add(time.Microsecond))
			if err != nil {
				t.Fatal(err)
			}
			if len(ev) != 1 || ev[0].Kind != EventFinished || ev[0].Seat != b.ToMove || *b.Outcome != tt.want {
				t.Errorf("events %+v, outcome %+v, want %+v", ev, b.Outcome, tt.want)
			}
			if ev, err := b.Expire(deadline.Add(time.Hour)); err != nil || ev != nil {
				t.Errorf("second expire: %v %v", ev, err)
			}
		})
	}
}

func TestLateActionsEndOnTime(t *testing.T) {
	corr, _ := ControlByName("corr1d")
	late := at(25*time.Hour + time.Second)
	actions := map[string]func(b *Board) ([]Event, error){
		"move":    func(b *Board) ([]Event, error) { return b.Move(bob, "f6-g5", 1, late) },
		"undo":    func(b *Board) ([]Event, error) { return b.Undo(alice, late) },
		"resign":  func(b *Board) ([]Event, error) { return b.Resign(alice, late) },
		"offer":   func(b *Board) ([]Event, error) { return b.OfferDraw(bob, late) },
		"accept":  func(b *Board) ([]Event, error) { return b.AcceptDraw(bob, late) },
		"decline": func(b *Board) ([]Event, error) { return b.DeclineDraw(bob, late) },
	}
	for name, act := range actions {
		t.Run(name, func(t *testing.T) {
			b := openHuman(t, "russian", corr, Options{})
			play(t, b, at(time.Hour), "c3-d4")
			if _, err := b.OfferDraw(alice, at(time.Hour)); err != nil {
				t.Fatal(err)
			}
			ev, err := act(b)
			if err != nil {
				t.Fatal(err)
			}
			wantKinds(t, ev, EventFinished)
			if o := b.Outcome; o.End != EndTimeout || o.Winner != 0 || b.Ply() != 1 {
				t.Errorf("outcome %+v, ply %d", o, b.Ply())
			}
		})
	}
}

func TestRemind(t *testing.T) {
	corr, _ := ControlByName("corr1d")
	b := openHuman(t, "russian", corr, Options{})
	play(t, b, at(time.Hour), "c3-d4") // bob's deadline: 25 h
	steps := []struct {
		at   time.Duration
		want bool
	}{
		{22*time.Hour + 59*time.Minute, false},
		{23 * time.Hour, true},
		{24 * time.Hour, false}, // once a ply
	}
	for _, s := range steps {
		if got := b.Remind(at(s.at)); got != s.want {
			t.Errorf("remind at %v: %v, want %v", s.at, got, s.want)
		}
	}
	play(t, b, at(24*time.Hour), "f6-g5") // alice's deadline: 48 h
	if b.Reminded {
		t.Error("a move keeps the reminder mark")
	}
	if b.Remind(at(48*time.Hour + time.Second)) {
		t.Error("reminded after the deadline")
	}
	if !b.Remind(at(48 * time.Hour)) {
		t.Error("not reminded at the deadline")
	}
	blitz := openHuman(t, "russian", Controls()[3], Options{})
	if blitz.Remind(at(9 * time.Minute)) {
		t.Error("reminder for a Fischer clock")
	}
}

func TestClockModes(t *testing.T) {
	tests := []struct {
		name string
		tc   TimeControl
		// alice thinks 30 s, bob 70 s, alice 20 s.
		clocks    [2]time.Duration // after the three moves
		deadline  time.Duration    // of bob's turn, from t0
		timeoutAt time.Duration    // bob's move at this time is too late
	}{
		{"none", TimeControl{}, [2]time.Duration{}, 0, 0},
		{"correspondence", TimeControl{Mode: ClockCorrespondence, PerMove: time.Hour},
			[2]time.Duration{}, 2*time.Minute + time.Hour, 2*time.Minute + time.Hour + time.Microsecond},
		{"fischer", TimeControl{Mode: ClockFischer, Main: 5 * time.Minute, Extra: 5 * time.Second},
			[2]time.Duration{5*time.Minute - 50*time.Second + 10*time.Second, 5*time.Minute - 70*time.Second + 5*time.Second},
			2*time.Minute + 5*time.Minute - 65*time.Second, 2*time.Minute + 5*time.Minute},
		{"byoyomi", TimeControl{Mode: ClockByoyomi, Main: time.Minute, Extra: 30 * time.Second},
			[2]time.Duration{10 * time.Second, 0},
			2*time.Minute + 30*time.Second, 2*time.Minute + 31*time.Second},
		{"sandglass", TimeControl{Mode: ClockSandglass, Main: 3 * time.Minute},
			[2]time.Duration{3*time.Minute - 50*time.Second + 70*time.Second, 3*time.Minute - 70*time.Second + 50*time.Second},
			2*time.Minute + 3*time.Minute - 20*time.Second, 2*time.Minute + 3*time.Minute},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.tc.Name = tt.name
			b := openHuman(t, "chess", tt.tc, Options{})
			play(t, b, at(30*time.Second), "e4")
			play(t, b, at(100*time.Second), "e5")
			play(t, b, at(120*time.Second), "Nf3")
			if got := [2]time.Duration{b.Seats[0].Clock, b.Seats[1].Clock}; got != tt.clocks {
				t.Errorf("clocks %v, want %v", got, tt.clocks)
			}
			if got := b.Moves[2].Clocks; got != tt.clocks {
				t.Errorf("recorded clocks %v, want %v", got, tt.clocks)
			}
			if b.Moves[1].Spent != 70*time.Second {
				t.Errorf("spent %v", b.Moves[1].Spent)
			}
			if tt.deadline == 0 {
				if !b.Deadline.IsZero() {
					t.Errorf("deadline %v without a clock", b.Deadline)
				}
				return
			}
			if !b.Deadline.Equal(at(tt.deadline)) {
				t.Errorf("deadline %v, want %v", b.Deadline, at(tt.deadline))
			}
			// The display clock of the side to move runs down.
			if c := b.Clocks(at(tt.deadline)); tt.tc.Mode != ClockCorrespondence && c[1] != 0 {
				t.Errorf("clock at the deadline %v", c)
			}
			ev, err := b.Move(bob, "Nc6", 3, at(tt.timeoutAt))
			if err != nil {
				t.Fatal(err)
			}
			wantKinds(t, ev, EventFinished)
			if b.Outcome.End != EndTimeout || b.Outcome.Winner != 0 || b.Ply() != 3 {
				t.Errorf("outcome %+v, ply %d", b.Outcome, b.Ply())
			}
		})
	}
}

func TestMoveKeepsMicroseconds(t *testing.T) {
	b := openHuman(t, "chess", TimeControl{}, Options{})
	now := time.Date(2026, 3, 1, 12, 0, 1, 123456789, time.FixedZone("X", 3600))
	play(t, b, now, "e4")
	if got := b.Moves[0].At; got.Nanosecond() != 123456000 || got.Location() != time.UTC {
		t.Errorf("stored time %v", got)
	}
	if !strings.HasPrefix(b.Moves[0].Position, "rnbqkbnr/pppppppp/8/8/4P3") {
		t.Errorf("position %q", b.Moves[0].Position)
	}
}

func TestGameKeptInStep(t *testing.T) {
	b := openHuman(t, "chess", TimeControl{}, Options{})
	play(t, b, t0, "e4")
	g, err := b.Game()
	if err != nil {
		t.Fatal(err)
	}
	if g.Ply() != 1 || g.Position() != b.Position {
		t.Fatalf("game at ply %d, %q", g.Ply(), g.Position())
	}
	// A caller that plays on the board's game does not move the board.
	if _, err := g.Play("e5"); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Move(bob, "d5", 1, t0); err != nil {
		t.Fatalf("move after the game was played on: %v", err)
	}
	if g2, _ := b.Game(); g2.Ply() != 2 || b.Moves[1].Text != "d7d5" || g2.Position() != b.Position {
		t.Errorf("game %q, board %q", g2.Position(), b.Position)
	}
	// Taken back and played again to the same ply: the position tells.
	g3, _ := b.Game()
	if err := g3.Undo(); err != nil {
		t.Fatal(err)
	}
	if _, err := g3.Play("c5"); err != nil {
		t.Fatal(err)
	}
	play(t, b, t0, "Nf3")
	if b.Moves[1].Text != "d7d5" || !strings.HasPrefix(b.Position, "rnbqkbnr/ppp1pppp/8/3p4/4P3/5N2") {
		t.Errorf("position %q", b.Position)
	}
}

// TestFinishStopsTheClock checks that a game ending during a turn charges that turn's
// thinking to the side to move, without the increment: the finished board shows the time
// each side had left, not the clock as it was when the turn began.
func TestFinishStopsTheClock(t *testing.T) {
	blitz := TimeControl{Name: "10+5", Mode: ClockFischer, Main: 10 * time.Minute, Extra: 5 * time.Second}
	short := TimeControl{Name: "5+0", Mode: ClockFischer, Main: 5 * time.Minute}
	sand := TimeControl{Name: "sand", Mode: ClockSandglass, Main: 3 * time.Minute}
	byo := TimeControl{Name: "byo", Mode: ClockByoyomi, Main: time.Minute, Extra: 30 * time.Second}
	corr, _ := ControlByName("corr1d")
	// In every case alice plays e4 10 s after the start; then bob thinks and the game ends.
	tests := []struct {
		name string
		tc   TimeControl
		end  func(b *Board) ([]Event, error)
		want [2]time.Duration
	}{
		{"resignation after 20 s of thought", blitz,
			func(b *Board) ([]Event, error) { return b.Resign(bob, at(30*time.Second)) },
			[2]time.Duration{10*time.Minute - 10*time.Second + 5*time.Second, 10*time.Minute - 20*time.Second}},
		{"the opponent resigns on the mover's turn", blitz,
			func(b *Board) ([]Event, error) { return b.Resign(alice, at(40*time.Second)) },
			[2]time.Duration{10*time.Minute - 5*time.Second, 10*time.Minute - 30*time.Second}},
		{"lost on time shows nothing left", short,
			func(b *Board) ([]Event, error) { return b.Expire(at(10*time.Second + 5*time.Minute + time.Second)) },
			[2]time.Duration{5*time.Minute - 10*time.Second, 0}},
		{"a late move ends on time", short,
			func(b *Board) ([]Event, error) { return b.Move(bob, "e5", 1, at(time.Hour)) },
			[2]time.Duration{5*time.Minute - 10*time.Second, 0}},
		{"a draw accepted", blitz,
			func(b *Board) ([]Event, error) {
				if _, err := b.OfferDraw(alice, at(12*time.Second)); err != nil {
					return nil, err
				}
				return b.AcceptDraw(bob, at(70*time.Second))
			},
			[2]time.Duration{10*time.Minute - 5*time.Second, 10*time.Minute - time.Minute}},
		{"sandglass gives the time to the opponent", sand,
			func(b *Board) ([]Event, error) { return b.Resign(bob, at(40*time.Second)) },
			[2]time.Duration{3*time.Minute - 10*time.Second + 30*time.Second, 3*time.Minute + 10*time.Second - 30*time.Second}},
		{"sandglass out of time", sand,
			func(b *Board) ([]Event, error) { return b.Expire(at(time.Hour)) },
			[2]time.Duration{6 * time.Minute, 0}},
		{"byo-yomi eats the main time first", byo,
			func(b *Board) ([]Event, error) { return b.Resign(bob, at(80*time.Second)) },
			[2]time.Duration{50 * time.Second, 0}},
		{"correspondence has no main time", corr,
			func(b *Board) ([]Event, error) { return b.Resign(bob, at(time.Hour)) },
			[2]time.Duration{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := openHuman(t, "chess", tt.tc, Options{})
			play(t, b, at(10*time.Second), "e4")
			ev, err := tt.end(b)
			if err != nil {
				t.Fatal(err)
			}
			wantKinds(t, ev[len(ev)-1:], EventFinished)
			if got := [2]time.Duration{b.Seats[0].Clock, b.Seats[1].Clock}; got != tt.want {
				t.Errorf("clocks %v, want %v", got, tt.want)
			}
			if got := b.Clocks(at(2 * time.Hour)); got != tt.want {
				t.Errorf("displayed clocks %v, want %v", got, tt.want)
			}
		})
	}

	t.Run("a mate charges the mover once, with the increment", func(t *testing.T) {
		b := openHuman(t, "chess", blitz, Options{})
		play(t, b, at(10*time.Second), "f3")
		play(t, b, at(20*time.Second), "e5")
		play(t, b, at(30*time.Second), "g4")
		ev := play(t, b, at(50*time.Second), "Qh4#")
		wantKinds(t, ev, EventMoved, EventFinished)
		want := [2]time.Duration{10*time.Minute - 20*time.Second + 10*time.Second, 10*time.Minute - 30*time.Second + 10*time.Second}
		if got := [2]time.Duration{b.Seats[0].Clock, b.Seats[1].Clock}; got != want {
			t.Errorf("clocks %v, want %v", got, want)
		}
	})

	t.Run("no clock runs on the bot's turn", func(t *testing.T) {
		b, _, err := Open(Spec{Service: 1, Creator: alice, Variant: "chess", Bot: BotEasy, Control: blitz}, t0)
		if err != nil {
			t.Fatal(err)
		}
		play(t, b, at(10*time.Second), "e4")
		if _, err := b.Resign(alice, at(time.Hour)); err != nil {
			t.Fatal(err)
		}
		want := [2]time.Duration{10*time.Minute - 5*time.Second, 10 * time.Minute}
		if got := [2]time.Duration{b.Seats[0].Clock, b.Seats[1].Clock}; got != want {
			t.Errorf("clocks %v, want %v", got, want)
		}
	})
}
