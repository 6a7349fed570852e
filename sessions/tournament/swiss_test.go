package tournament

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// The first round pairs the top half against the bottom half, colours alternating by board.
func TestSwissFirstRound(t *testing.T) {
	games, err := PairSwiss(field(8), nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	want := []Game{{1, 1, 5, Pending}, {1, 6, 2, Pending}, {1, 3, 7, Pending}, {1, 8, 4, Pending}}
	if !slices.Equal(games, want) {
		t.Fatalf("round 1: %v, want %v", games, want)
	}
	games, err = PairSwiss(field(5), nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	if last := games[len(games)-1]; !last.Bye() || last.White != 5 {
		t.Fatalf("odd field: the lowest seed sits out, got %v", games)
	}
}

// The second round pairs winners with winners, losers with losers, and gives everyone the
// other colour.
func TestSwissScoreGroups(t *testing.T) {
	r1, _ := PairSwiss(field(8), nil, 1)
	// The top seeds win: 1 and 3 with white, 2 and 4 with black.
	for i := range r1 {
		r1[i].Result = WhiteWins
		if i%2 == 1 {
			r1[i].Result = BlackWins
		}
	}
	r2, err := PairSwiss(field(8), r1, 2)
	if err != nil {
		t.Fatal(err)
	}
	h := histories(field(8), r1, Swiss.ByeScore())
	for _, g := range r2 {
		if h[g.White].score != h[g.Black].score {
			t.Errorf("%v pairs scores %v and %v", g, h[g.White].score, h[g.Black].score)
		}
		if h[g.White].colours[0] == white || h[g.Black].colours[0] == black {
			t.Errorf("%v repeats a colour", g)
		}
		if h[g.White].opponents[g.Black] {
			t.Errorf("%v is a rematch", g)
		}
	}
}

// Random tournaments: nobody meets twice, everyone plays once a round, nobody gets a second
// bye while others have none, colours stay balanced.
func TestSwissRandomTournaments(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for n := 2; n <= 24; n++ {
		rounds := min(n-1, 7)
		for trial := 0; trial < 20; trial++ {
			players := field(n)
			rng.Shuffle(len(players), func(i, j int) { players[i].Rating, players[j].Rating = players[j].Rating, players[i].Rating })
			var past []Game
			for r := 1; r <= rounds; r++ {
				games, err := PairSwiss(players, past, r)
				if err != nil {
					t.Fatalf("n=%d round %d: %v", n, r, err)
				}
				seen := map[int64]bool{}
				h := histories(players, past, Swiss.ByeScore())
				for _, g := range games {
					for _, id := range []int64{g.White, g.Black} {
						if id != 0 && seen[id] {
							t.Fatalf("n=%d round %d: %d twice in %v", n, r, id, games)
						}
						seen[id] = true
					}
					if g.Bye() {
						if h[g.White].byes > 0 && pairingWithoutRematch(players, h, false) {
							t.Fatalf("n=%d round %d: second bye for %d", n, r, g.White)
						}
						continue
					}
					if h[g.White].opponents[g.Black] && pairingWithoutRematch(players, h, true) {
						t.Fatalf("n=%d round %d: rematch %v", n, r, g)
					}
				}
				if len(seen) != n+n%2 && !(n%2 == 1 && len(seen) == n) {
					t.Fatalf("n=%d round %d: %d players paired", n, r, len(seen))
				}
				for i := range games {
					if !games[i].Bye() {
						games[i].Result = Result(1 + rng.IntN(3))
					}
				}
				past = append(past, games...)
			}
			// A Swiss plays well fewer rounds than it has players; when it plays nearly as many,
			// avoiding rematches comes first and a colour may go three times.
			limit := 2
			if 2*rounds > n {
				limit = 3
			}
			for id, hh := range histories(players, past, Swiss.ByeScore()) {
				if d := whites(hh); d > limit || d < -limit {
					t.Errorf("n=%d: player %d colours %v", n, id, hh.colours)
				}
			}
		}
	}
}

// When every pairing of a round is a rematch (a third round among three players), the fewest
// rematches are made rather than none at all.
func TestSwissMoreRoundsThanOpponents(t *testing.T) {
	players := field(2)
	var past []Game
	for r := 1; r <= 3; r++ {
		games, err := PairSwiss(players, past, r)
		if err != nil || len(games) != 1 {
			t.Fatalf("round %d: %v, %v", r, games, err)
		}
		games[0].Result = Draw
		past = append(past, games...)
	}
	if past[0].White == past[1].White {
		t.Errorf("colours did not alternate: %v", past)
	}
}

// Buchholz and Sonneborn–Berger computed by hand for a four-player, two-round event.
func TestStandingsTieBreaks(t *testing.T) {
	players := field(4)
	games := []Game{
		{1, 1, 3, WhiteWins}, {1, 4, 2, Draw},
		{2, 2, 1, WhiteWins}, {2, 3, 4, BlackWins},
	}
	// Scores (half points): 1: 2, 2: 1+2 = 3, 3: 0, 4: 1+2 = 3.
	// Buchholz: 1: s3+s2 = 0+3 = 3; 2: s4+s1 = 3+2 = 5; 3: s1+s4 = 5; 4: s2+s3 = 3.
	// SB (quarter points): 1: beat 3 (0) → 0; 2: drew 4 (3) + beat 1 (2·2) → 3+4 = 7;
	// 4: drew 2 (3) + beat 3 (0) → 3; 3: 0.
	got := Standings(Swiss, players, games)
	want := []Standing{
		{Player: 2, Rank: 1, Score: 3, Buchholz: 5, SonnebornBerger: 7, Wins: 1, Draws: 1, Rating: 1990},
		{Player: 4, Rank: 2, Score: 3, Buchholz: 3, SonnebornBerger: 3, Wins: 1, Draws: 1, Rating: 1970},
		{Player: 1, Rank: 3, Score: 2, Buchholz: 3, SonnebornBerger: 0, Wins: 1, Losses: 1, Rating: 2000},
		{Player: 3, Rank: 4, Score: 0, Buchholz: 5, SonnebornBerger: 0, Losses: 2, Rating: 1980},
	}
	if !slices.Equal(got, want) {
		t.Fatalf("standings\n got %+v\nwant %+v", got, want)
	}
	if got[0].SB() != 1.75 || Score(3).String() != "1½" || Score(4).String() != "2" || Score(1).String() != "½" {
		t.Errorf("formatting: SB %v, scores %v %v %v", got[0].SB(), Score(3), Score(4), Score(1))
	}
}

// pairingWithoutRematch reports, by trying every matching, whether the players can pair
// without a rematch, some player sitting out in an odd field (any player when anyBye, else one
// without a bye yet).
func pairingWithoutRematch(players []Player, h map[int64]*history, anyBye bool) bool {
	var ids []int64
	for _, p := range players {
		ids = append(ids, p.ID)
	}
	var match func(rest []int64) bool
	match = func(rest []int64) bool {
		if len(rest) == 0 {
			return true
		}
		for j := 1; j < len(rest); j++ {
			if h[rest[0]].opponents[rest[j]] {
				continue
			}
			next := append(append([]int64{}, rest[1:j]...), rest[j+1:]...)
			if match(next) {
				return true
			}
		}
		return false
	}
	if len(ids)%2 == 0 {
		return match(ids)
	}
	for i, id := range ids {
		if h[id].byes > 0 && !anyBye {
			continue
		}
		rest := append(append([]int64{}, ids[:i]...), ids[i+1:]...)
		if match(rest) {
			return true
		}
	}
	return false
}
