package tournament

import (
	"errors"
	"testing"
)

func field(n int) []Player {
	ps := make([]Player, n)
	for i := range ps {
		ps[i] = Player{ID: int64(i + 1), Rating: float64(2000 - 10*i)}
	}
	return ps
}

// Every pair meets exactly once, every player plays once a round, byes are fair, and colours
// balance with no three alike in a row.
func TestRoundRobinTables(t *testing.T) {
	for n := 2; n <= MaxRoundRobin; n++ {
		rounds, err := RoundRobin(field(n))
		if err != nil {
			t.Fatal(err)
		}
		wantRounds := n - 1
		if n%2 == 1 {
			wantRounds = n
		}
		if len(rounds) != wantRounds {
			t.Fatalf("n=%d: %d rounds, want %d", n, len(rounds), wantRounds)
		}
		met := map[[2]int64]int{}
		byes := map[int64]int{}
		colours := map[int64][]colour{}
		for r, round := range rounds {
			seen := map[int64]bool{}
			for _, g := range round {
				if g.Round != r+1 {
					t.Fatalf("n=%d: game %+v in round %d", n, g, r+1)
				}
				for _, id := range []int64{g.White, g.Black} {
					if id == 0 {
						continue
					}
					if seen[id] {
						t.Fatalf("n=%d round %d: player %d twice", n, r+1, id)
					}
					seen[id] = true
				}
				if g.Bye() {
					byes[g.White]++
					continue
				}
				a, b := min(g.White, g.Black), max(g.White, g.Black)
				met[[2]int64{a, b}]++
				colours[g.White] = append(colours[g.White], white)
				colours[g.Black] = append(colours[g.Black], black)
			}
			if len(seen) != n {
				t.Fatalf("n=%d round %d: %d players, want %d", n, r+1, len(seen), n)
			}
		}
		if len(met) != n*(n-1)/2 {
			t.Fatalf("n=%d: %d pairs met, want %d", n, len(met), n*(n-1)/2)
		}
		for p, k := range met {
			if k != 1 {
				t.Fatalf("n=%d: %v met %d times", n, p, k)
			}
		}
		for id := int64(1); id <= int64(n); id++ {
			if want := n % 2; byes[id] != want {
				t.Fatalf("n=%d: player %d has %d byes, want %d", n, id, byes[id], want)
			}
			sum, run, longest := 0, 0, 0
			for i, c := range colours[id] {
				sum += int(c)
				if i > 0 && c == colours[id][i-1] {
					run++
				} else {
					run = 1
				}
				longest = max(longest, run)
			}
			if sum < -1 || sum > 1 {
				t.Errorf("n=%d: player %d colours %v unbalanced", n, id, colours[id])
			}
			if longest > 2 {
				t.Errorf("n=%d: player %d has %d same colours running: %v", n, id, longest, colours[id])
			}
		}
	}
}

func TestRoundRobinRefuses(t *testing.T) {
	for _, ps := range [][]Player{nil, field(1), field(MaxRoundRobin + 1), {{ID: 1}, {ID: 1}}, {{ID: 0}, {ID: 2}}} {
		if _, err := RoundRobin(ps); !errors.Is(err, ErrPlayers) {
			t.Errorf("%d players: %v, want ErrPlayers", len(ps), err)
		}
	}
}

// A round robin's sit-out scores nothing, a Swiss bye a full point: with three players who draw
// every game, each has 1 point in the round robin (two draws) and 1½ in the Swiss.
func TestByeScores(t *testing.T) {
	players := field(3)
	rounds, err := RoundRobin(players)
	if err != nil {
		t.Fatal(err)
	}
	var games []Game
	for _, round := range rounds {
		for _, g := range round {
			if !g.Bye() {
				g.Result = Draw
			}
			games = append(games, g)
		}
	}
	for _, tc := range []struct {
		system System
		want   Score
		byes   int
	}{{RoundRobinSystem, 2, 1}, {Swiss, 4, 1}} {
		for _, s := range Standings(tc.system, players, games) {
			if s.Score != tc.want || s.Byes != tc.byes || s.Draws != 2 {
				t.Errorf("%s: %+v, want score %v with %d bye and 2 draws", tc.system, s, tc.want, tc.byes)
			}
		}
	}
}
