package sessions

import (
	"slices"
	"testing"
	"time"
)

// Ensure the names of a session ended by a player's leaving stay those of the rounds played for
// the players still seated, the seat left named by the player who left: the first player's game
// was over first (the loser pressed on), and the second still sees them. Once the last player
// leaves there are none.
func TestNamesAfterAPlayerLeft(t *testing.T) {
	t.Parallel()
	for _, gone := range []int{1, 2} {
		s := session(pair, 2)
		if rs := s.Leave(int64(100+gone), t0); len(rs) != 0 || s.Status != QuestEnded {
			t.Fatalf("player %d leaving: %+v, session %v", gone, rs, s.Status)
		}
		if got := s.Names(); !slices.Equal(got, []string{"U1", "U2"}) {
			t.Errorf("player %d left: names %q, want U1, U2", gone, got)
		}
		s.Leave(int64(100+3-gone), t0)
		if got := s.Names(); got != nil {
			t.Errorf("nobody seated: names %q", got)
		}
	}
	// A player who went on against the bot leaves an empty seat.
	trio := Type{ID: 2, Min: 2, Max: 3, Index: 1, Start: 2, Count: 1}
	s := session(trio, 3)
	s.Post(102, []int{2, 5}, t0, 30*time.Second)
	s.Leave(101, t0)
	if got := s.Names(); !slices.Equal(got, []string{"", "", "U3"}) {
		t.Errorf("names %q, want the seats of U1 and U2 empty", got)
	}
}

// Ensure a player quitting a session being played ends it: a player waiting for the quitter goes
// on against the bot at once, told why; one who does not wait is told at once (a Resume that only
// tells), keeps the session's names, and goes on against the bot at its next multiplayer jump
// without being told again. Quitting an open session tells nobody.
func TestQuit(t *testing.T) {
	t.Parallel()
	left := Notice{Reason: ReasonLeft, By: "U1"}
	s := session(pair, 2)
	rs := s.Quit(101, t0)
	if len(rs) != 1 || rs[0].Game != 102 || !rs[0].Tell || *rs[0].Notice != left || s.Status != QuestEnded {
		t.Fatalf("the other does not wait: %+v", rs)
	}
	if got := s.Names(); !slices.Equal(got, []string{"U1", "U2"}) {
		t.Errorf("names %q", got)
	}
	if out := s.Post(102, []int{2, 1, 0, 0}, t0, 30*time.Second); !out.Proceed || out.Notice != nil || len(s.Players) != 0 {
		t.Errorf("the other at its next jump: %+v", out)
	}

	s = session(pair, 2)
	s.Post(102, []int{2, 1, 0, 0}, t0, 30*time.Second)
	rs = s.Quit(101, t0)
	if len(rs) != 1 || rs[0].Game != 102 || rs[0].Tell || rs[0].Kind != Barrier || *rs[0].Notice != left || len(s.Players) != 0 {
		t.Fatalf("the other waits: %+v", rs)
	}

	s = session(pair, 1)
	if rs := s.Quit(101, t0); len(rs) != 0 || len(s.Players) != 0 {
		t.Errorf("quitting an open session: %+v", rs)
	}
}
