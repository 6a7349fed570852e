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
	games, left := PairArena(players, past, 2, 0)
	if !slices.Equal(left, []int64{5}) {
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
	// Only the last opponent is free and nobody else plays: they meet again rather than wait.
	games, left = PairArena(field(2), past[:1], 2, 0)
	if len(games) != 1 || len(left) != 0 {
		t.Fatalf("two free players: %v, %v", games, left)
	}
	// Only the last opponent is free while others play: both wait for them.
	games, left = PairArena(field(2), past[:1], 2, 3)
	if len(games) != 0 || !slices.Equal(left, []int64{1, 2}) {
		t.Fatalf("two free players, three busy: %v, %v", games, left)
	}
	// Three free, two of whom just met, the third came last: the third plays one of them
	// rather than leave the two to a rematch.
	games, left = PairArena(field(3), past[:1], 2, 2)
	if len(games) != 1 || len(left) != 1 || (games[0].White != 3 && games[0].Black != 3) {
		t.Fatalf("three free players: %v, %v", games, left)
	}
}

// An arena played as its players finish, games of random lengths: nobody meets the same
// opponent twice running while the field has others, and nobody waits while a pairing
// without a rematch is possible.
func TestArenaNoRematchesRunning(t *testing.T) {
	for _, n := range []int{3, 4, 5, 6, 7, 8} {
		players := field(n)
		rnd := uint64(n)
		next := func(k int) int {
			rnd = rnd*6364136223846793005 + 1442695040888963407
			return int(rnd>>33) % k
		}
		type running struct {
			g    Game
			ends int
		}
		var past []Game
		var live []running
		free := slices.Clone(players)
		lastOpp := map[int64]int64{}
		for tick, round := 0, 1; tick < 400; tick++ {
			games, left := PairArena(free, past, round, n-len(free))
			round++
			if len(games) == 0 && len(live) == 0 && len(free) >= 2 {
				t.Fatalf("n=%d tick %d: %d free, nobody playing, nobody paired", n, tick, len(free))
			}
			for _, g := range games {
				for _, pair := range [][2]int64{{g.White, g.Black}, {g.Black, g.White}} {
					if lastOpp[pair[0]] == pair[1] {
						t.Fatalf("n=%d tick %d: %d meets %d twice running (free %v, past %v)", n, tick, pair[0], pair[1], free, past[max(0, len(past)-4):])
					}
				}
				live = append(live, running{g, tick + 1 + next(5)})
			}
			free = free[:0]
			for _, id := range left {
				free = append(free, Player{ID: id, Rating: players[id-1].Rating})
			}
			kept := live[:0]
			for _, r := range live {
				if r.ends != tick {
					kept = append(kept, r)
					continue
				}
				r.g.Result = Result(1 + next(3))
				past = append(past, r.g)
				lastOpp[r.g.White], lastOpp[r.g.Black] = r.g.Black, r.g.White
				free = append(free, Player{ID: r.g.White, Rating: players[r.g.White-1].Rating},
					Player{ID: r.g.Black, Rating: players[r.g.Black-1].Rating})
			}
			live = kept
		}
		if len(past) < 40 {
			t.Fatalf("n=%d: only %d games in 400 ticks", n, len(past))
		}
	}
}
