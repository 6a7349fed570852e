package sessions

import (
	"fmt"
	"slices"
	"testing"
	"time"
)

// t0 is the tests' clock origin; every time is t0 plus an offset, never the wall clock.
var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// pair is the two-player type of the reference's spock.qmm: [p1] the player's number, [p2] the
// move, [p3] and [p4] the moves of players 1 and 2.
var pair = Type{ID: 1, Min: 2, Max: 2, Index: 1, Start: 2, Count: 1}

func member(n int) Member {
	return Member{Service: 1, User: int64(n), Chat: int64(n), Game: int64(100 + n), Name: fmt.Sprintf("U%d", n), Lang: "en"}
}

// session returns a session of type t with players 1..n joined (started when full), stored as
// session 7.
func session(t Type, n int) *QuestSession {
	s := NewQuestSession(1, t, "q", false, t0.Add(time.Minute))
	s.ID = 7
	for i := 1; i <= n; i++ {
		s.Add(member(i))
	}
	return s
}

func TestParsePoint(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		text string
		want Point
		ok   bool
	}{
		{"!session 120000", Point{Join, 2 * time.Minute}, true},
		{"  !wait 30000 ", Point{Barrier, 30 * time.Second}, true},
		{"!session", Point{Join, 0}, true},
		{"!WAIT", Point{Barrier, 0}, true},
		{"!wait soon", Point{Barrier, 0}, true},
		{"!wait 10", Point{Barrier, MinTimeout}, true},
		{"!wait 999999999999", Point{Barrier, MaxTimeout}, true},
		{"!sessions 5", Point{}, false},
		{"!waiting", Point{}, false},
		{"wait 5", Point{}, false},
		{"", Point{}, false},
	} {
		got, ok := ParsePoint(tc.text)
		if got != tc.want || ok != tc.ok {
			t.Errorf("ParsePoint(%q) = %+v, %v; want %+v, %v", tc.text, got, ok, tc.want, tc.ok)
		}
	}
}

// Ensure a type fits only quests with every parameter it uses, and its fallback and exchange
// write the right parameters.
func TestType(t *testing.T) {
	t.Parallel()
	for n, want := range map[int]bool{3: false, 4: true, 8: true} {
		if got := pair.Fits(n); got != want {
			t.Errorf("pair fits %d parameters: %v", n, got)
		}
	}
	if got := fmt.Sprint(pair.Fallback()); got != fmt.Sprint(Values{0: 0, 2: 0, 3: 0}) {
		t.Errorf("fallback %s", got)
	}
	trio := Type{Min: 2, Max: 3, Index: 1, Start: 2, Count: 2}
	got := trio.exchange(map[int][]int{1: {5, 6}, 3: {7, 8, 9}})
	if fmt.Sprint(got) != fmt.Sprint(Values{3: 5, 4: 6, 7: 7, 8: 8}) {
		t.Errorf("exchange %v", got)
	}
}

// Ensure the joins: a player waits until the session is full, the one who fills it proceeds with
// its number and the others are resumed with theirs; a game seated again gets what its session
// says.
func TestAddAndRejoin(t *testing.T) {
	t.Parallel()
	s := session(pair, 0)
	a := s.Add(member(1))
	if a.Proceed || a.Wait == nil || a.Wait.Kind != Join || !slices.Equal(a.Wait.Joined, []string{"U1"}) ||
		a.Wait.Need != 2 || !a.Wait.Deadline.Equal(t0.Add(time.Minute)) || a.Wait.Ref != "mpw:2t:7:0" {
		t.Fatalf("first: %+v (wait %+v)", a, a.Wait)
	}
	if again := s.Rejoin(101); again.Proceed || again.Wait.Ref != a.Wait.Ref {
		t.Errorf("the first again while open: %+v", again)
	}
	b := s.Add(member(2))
	if !b.Proceed || b.Set[0] != 2 || len(b.Resume) != 1 || s.Status != QuestPlaying || !s.Deadline.IsZero() {
		t.Fatalf("second: %+v, session %v", b, s.Status)
	}
	if r := b.Resume[0]; r.Game != 101 || r.Kind != Join || r.Set[0] != 1 || r.Ref != a.Wait.Ref {
		t.Errorf("resume of the first: %+v", r)
	}
	if again := s.Rejoin(101); !again.Proceed || again.Set[0] != 1 {
		t.Errorf("the first again while playing: %+v", again)
	}
	if w := s.Waiting(101); w != nil {
		t.Errorf("a player of a started session waits: %+v", w)
	}
	if !slices.Equal(s.Names(), []string{"U1", "U2"}) {
		t.Errorf("names %v", s.Names())
	}
}

// Ensure a round: the first block starts the round's clock and the player waits for the others;
// posting again changes nothing; the last block gives every player every block, with one shared
// seed, and the next round starts empty.
func TestPostRound(t *testing.T) {
	t.Parallel()
	s := session(pair, 2)
	p1 := s.Post(101, []int{1, 3, 0, 0}, t0, 5*time.Second)
	if p1.Proceed || p1.Wait.Kind != Barrier || !slices.Equal(p1.Wait.For, []string{"U2"}) ||
		!p1.Wait.Deadline.Equal(t0.Add(5*time.Second)) || p1.Wait.Ref != "mpw:2t:7:1" {
		t.Fatalf("first post: %+v (wait %+v)", p1, p1.Wait)
	}
	if again := s.Post(101, []int{1, 1, 0, 0}, t0.Add(time.Second), 5*time.Second); again.Proceed ||
		!again.Wait.Deadline.Equal(p1.Wait.Deadline) || s.Blocks[1][0] != 3 {
		t.Errorf("posting again: %+v, blocks %v", again, s.Blocks)
	}
	p2 := s.Post(102, []int{2, 1, 0, 0}, t0.Add(2*time.Second), 5*time.Second)
	want := fmt.Sprint(Values{2: 3, 3: 1})
	if !p2.Proceed || fmt.Sprint(p2.Set) != want || len(p2.Resume) != 1 || p2.Seed == "" {
		t.Fatalf("second post: %+v", p2)
	}
	if r := p2.Resume[0]; r.Game != 101 || r.Kind != Barrier || fmt.Sprint(r.Set) != want || r.Seed != p2.Seed ||
		r.Ref != p1.Wait.Ref {
		t.Errorf("resume: %+v", r)
	}
	if s.Round != 2 || !s.Deadline.IsZero() || len(s.Blocks) != 0 || s.Players[0].Waiting {
		t.Errorf("after the round: round %d, deadline %v, blocks %v", s.Round, s.Deadline, s.Blocks)
	}
	// The next round has a seed of its own.
	s.Post(101, []int{1, 2, 0, 0}, t0.Add(time.Minute), 5*time.Second)
	if next := s.Post(102, []int{2, 2, 0, 0}, t0.Add(time.Minute), 5*time.Second); next.Seed == p2.Seed {
		t.Error("two rounds share a seed")
	}
}

// Ensure the ways out to the bot, each with its notice: a missed round ends the session (the
// waiting player goes on at once, told who was late; the late one when they reach the barrier,
// told it was them); nobody joining in time; a player leaving a session being played; a barrier
// before the session started.
func TestFallbacks(t *testing.T) {
	t.Parallel()
	fallback := fmt.Sprint(pair.Fallback())
	t.Run("timeout", func(t *testing.T) {
		s := session(pair, 2)
		s.Post(101, []int{1, 3, 0, 0}, t0, 5*time.Second)
		if rs := s.Settle(t0.Add(4 * time.Second)); len(rs) != 0 || s.Status != QuestPlaying {
			t.Fatalf("before the deadline: %+v", rs)
		}
		rs := s.Settle(t0.Add(5 * time.Second))
		if len(rs) != 1 || rs[0].Game != 101 || rs[0].Kind != Barrier || fmt.Sprint(rs[0].Set) != fallback ||
			*rs[0].Notice != (Notice{Reason: ReasonTimeout, By: "U2"}) || rs[0].Ref != "mpw:2t:7:1" {
			t.Fatalf("at the deadline: %+v", rs)
		}
		if s.Status != QuestEnded || s.Reason != ReasonTimeout || s.EndedBy != "U2" || len(s.Players) != 1 {
			t.Errorf("session %v %q %q, %d players", s.Status, s.Reason, s.EndedBy, len(s.Players))
		}
		late := s.Post(102, []int{2, 1, 0, 0}, t0.Add(time.Minute), 5*time.Second)
		if !late.Proceed || fmt.Sprint(late.Set) != fallback || *late.Notice != (Notice{Reason: ReasonTimeout, By: "U2", Self: true}) {
			t.Errorf("the late player: %+v", late)
		}
		if len(s.Players) != 0 || s.Names() != nil {
			t.Errorf("players left %v", s.Players)
		}
	})
	t.Run("alone", func(t *testing.T) {
		s := session(pair, 1)
		rs := s.Settle(t0.Add(time.Minute))
		if len(rs) != 1 || rs[0].Kind != Join || rs[0].Set[0] != 0 || rs[0].Notice.Reason != ReasonAlone || len(s.Players) != 0 {
			t.Fatalf("nobody joined: %+v", rs)
		}
	})
	t.Run("left", func(t *testing.T) {
		s := session(pair, 2)
		s.Post(102, []int{2, 1, 0, 0}, t0, 5*time.Second)
		s.Players[0].Gone = true
		rs := s.Settle(t0)
		if len(rs) != 1 || rs[0].Game != 102 || *rs[0].Notice != (Notice{Reason: ReasonLeft, By: "U1"}) ||
			fmt.Sprint(rs[0].Set) != fallback || s.Status != QuestEnded {
			t.Fatalf("a player left: %+v", rs)
		}
	})
	t.Run("rejoin ended", func(t *testing.T) {
		s := session(pair, 2)
		s.Players[0].Gone = true
		s.Settle(t0) // nobody waited: the other is told when they reach a point
		out := s.Rejoin(102)
		if !out.Proceed || out.Set[0] != 0 || *out.Notice != (Notice{Reason: ReasonLeft, By: "U1"}) || len(s.Players) != 0 {
			t.Errorf("at !session of an ended session: %+v", out)
		}
	})
	t.Run("barrier while open", func(t *testing.T) {
		s := session(Type{ID: 1, Min: 2, Max: 3, Index: 1, Start: 2, Count: 1}, 2)
		out := s.Post(101, []int{1, 1, 0, 0, 0}, t0, time.Second)
		if !out.Proceed || fmt.Sprint(out.Set) != fmt.Sprint(Values{0: 0, 2: 0, 3: 0, 4: 0}) || s.Player(101) != nil ||
			s.Players[0].Num != 1 {
			t.Errorf("a barrier before the start: %+v, players %+v", out, s.Players)
		}
	})
	t.Run("outside", func(t *testing.T) {
		s := session(pair, 2)
		if out := s.Post(999, []int{1, 1, 0, 0}, t0, time.Second); !out.Proceed || fmt.Sprint(out.Set) != fallback || out.Notice != nil {
			t.Errorf("a game outside the session: %+v", out)
		}
	})
}

// Ensure a type with a minimum starts at its joining deadline with what it has, and a player
// leaving an open session moves the later ones up a number.
func TestMinimumAndLeaving(t *testing.T) {
	t.Parallel()
	trio := Type{ID: 2, Min: 2, Max: 3, Index: 1, Start: 2, Count: 1}
	s := session(trio, 3)
	if s.Status != QuestPlaying {
		t.Fatalf("three of three: %v", s.Status)
	}
	s = session(trio, 2)
	s.Players[0].Gone = true
	if rs := s.Settle(t0); len(rs) != 0 || len(s.Players) != 1 || s.Players[0].Num != 1 || s.Status != QuestOpen {
		t.Fatalf("a player left an open session: %+v, players %+v", rs, s.Players)
	}
	s.Add(member(3))
	rs := s.Settle(t0.Add(time.Minute))
	slices.SortFunc(rs, func(a, b Resume) int { return int(a.Game - b.Game) })
	if len(rs) != 2 || rs[0].Game != 102 || rs[0].Set[0] != 1 || rs[1].Game != 103 || rs[1].Set[0] != 2 ||
		rs[0].Notice != nil || s.Status != QuestPlaying {
		t.Fatalf("at the deadline with two of three: %+v", rs)
	}
}

// Ensure what a waiting player is told it waits for.
func TestWaiting(t *testing.T) {
	t.Parallel()
	s := session(Type{ID: 2, Min: 2, Max: 3, Index: 1, Start: 2, Count: 1}, 2)
	if w := s.Waiting(102); w == nil || !slices.Equal(w.Joined, []string{"U1", "U2"}) || w.Need != 3 {
		t.Errorf("while joining: %+v", w)
	}
	if w := s.Waiting(999); w != nil {
		t.Errorf("a game not in the session waits: %+v", w)
	}
	s.Add(member(3))
	s.Post(101, []int{1, 1, 0, 0, 0}, t0, time.Second)
	if w := s.Waiting(101); w == nil || w.Kind != Barrier || !slices.Equal(w.For, []string{"U2", "U3"}) {
		t.Errorf("at the barrier: %+v", w)
	}
	if w := s.Waiting(102); w != nil {
		t.Errorf("a player who has not posted waits: %+v", w)
	}
}
