package tournament

import (
	"slices"
	"testing"
)

// Two wins running light the streak: the third win scores 4, a draw on fire 2, and a loss
// puts it out.
func TestArenaStreaks(t *testing.T) {
	players := field(2)
	var finished []Game
	for _, r := range []Result{WhiteWins, WhiteWins, WhiteWins, Draw, WhiteWins, WhiteWins, WhiteWins, BlackWins, WhiteWins} {
		// Player 1 is white in odd games, black in even ones; the results are player 1's.
		n := len(finished)
		g := Game{Round: n + 1, White: 1, Black: 2, Result: r}
		if n%2 == 1 {
			g.White, g.Black = 2, 1
			switch r {
			case WhiteWins:
				g.Result = BlackWins
			case BlackWins:
				g.Result = WhiteWins
			}
		}
		finished = append(finished, g)
	}
	// Player 1: W W W(4) D(2, on fire) W W W(4) L W → 2+2+4+2+2+2+4+0+2 = 20.
	// Player 2: L L L D(1) L L L W L → 1+2 = 3.
	got := ArenaStandings(players, finished)
	if got[0].Player != 1 || got[0].Points != 20 || got[0].Fire || got[0].Wins != 7 || got[0].Draws != 1 || got[0].Games != 9 {
		t.Fatalf("player 1: %+v", got[0])
	}
	if got[1].Player != 2 || got[1].Points != 3 || got[1].Rank != 2 {
		t.Fatalf("player 2: %+v", got[1])
	}
}

// Free players meet the nearest in points, not their last opponent when another is free, and
// the one left over waits.
func TestArenaPairing(t *testing.T) {
	players := field(5)
	past := []Game{
		{1, 1, 2, WhiteWins}, {1, 4, 3, BlackWins},
	}
	games, left := PairArena(players, past, 2)
	if left != 5 {
		t.Fatalf("left %d, want the last to come (5)", left)
	}
	// Points: 1 and 3 have 2, 2 and 4 have 0. 1 meets 3; 2 meets 4; those who had black
	// have white.
	pairs := [][2]int64{}
	for _, g := range games {
		pairs = append(pairs, [2]int64{min(g.White, g.Black), max(g.White, g.Black)})
	}
	slices.SortFunc(pairs, func(a, b [2]int64) int { return int(a[0] - b[0]) })
	if !slices.Equal(pairs, [][2]int64{{1, 3}, {2, 4}}) {
		t.Fatalf("pairs %v", pairs)
	}
	for _, g := range games {
		if g.White != 3 && g.White != 2 {
			t.Errorf("%v: the player who had white should have black", g)
		}
	}
	// Only the last opponent is free: they meet again rather than wait.
	games, left = PairArena(field(2), past[:1], 2)
	if len(games) != 1 || left != 0 {
		t.Fatalf("two free players: %v, %d", games, left)
	}
}
