package main

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

// Ensure the estimate is the rating whose expected score equals the score made: 75 % against a
// 1600 anchor is 1600 + 400·log10(3) ≈ 1790.8, with the binomial error of 40 games.
func TestRateAgainstAnchor(t *testing.T) {
	var games []result
	for i := 0; i < 40; i++ {
		s := 1.0
		if i%4 == 0 {
			s = 0
		}
		games = append(games, result{"strong", "stockfish-1600", s})
	}
	ests := rate(map[string]float64{"stockfish-1600": 1600}, games)
	e := find(t, ests, "strong")
	want := 1600 + 400*math.Log10(3)
	if math.Abs(e.Rating-want) > 0.1 {
		t.Errorf("rating %.2f, want %.2f", e.Rating, want)
	}
	// The error: 1/sqrt(n p (1-p)) on the log-odds scale, turned into Elo.
	wantErr := 1 / math.Sqrt(40*0.75*0.25) / eloScale
	if math.Abs(e.Err-wantErr) > 0.1 || e.Wins != 30 || e.Games != 40 {
		t.Errorf("error %.2f, want %.2f; %+v", e.Err, wantErr, e)
	}
	if a := find(t, ests, "stockfish-1600"); !a.Fixed || a.Rating != 1600 {
		t.Errorf("the anchor moved: %+v", a)
	}
}

// Ensure a ladder is fitted jointly: two rungs an even match apart, a level that scores half
// against the upper rung sits at its rating, and one that won everything has no finite bound.
func TestRateLadder(t *testing.T) {
	var games []result
	for i := 0; i < 20; i++ {
		games = append(games, result{"depth-2", "depth-1", []float64{1, 0}[i%2]})
		games = append(games, result{"normal", "depth-2", 0.5})
		games = append(games, result{"strong", "depth-2", 1})
	}
	ests := rate(map[string]float64{"depth-1": 1000}, games)
	if e := find(t, ests, "depth-2"); math.Abs(e.Rating-1000) > 0.5 {
		t.Errorf("depth-2 %+v, want 1000", e)
	}
	if e := find(t, ests, "normal"); math.Abs(e.Rating-1000) > 0.5 || e.Draws != 20 {
		t.Errorf("normal %+v, want 1000", e)
	}
	if e := find(t, ests, "strong"); !math.IsInf(e.Err, 1) || e.Bound != above || math.Abs(e.Rating-1000) > 0.5 {
		t.Errorf("strong %+v, want unbounded above depth-2's 1000", e)
	}
}

func find(t *testing.T, ests []estimate, name string) estimate {
	t.Helper()
	for _, e := range ests {
		if e.Name == name {
			return e
		}
	}
	t.Fatalf("no estimate of %s in %+v", name, ests)
	return estimate{}
}

// Ensure the errors of a ladder are joint: a rung two even links above the anchor is as
// uncertain as both links together (the variances add), while the error given its opponents'
// ratings counts its own games only.
func TestRateJointErrors(t *testing.T) {
	var games []result
	for i := 0; i < 40; i++ {
		s := []float64{1, 0}[i%2]
		games = append(games, result{"depth-2", "depth-1", s}, result{"depth-3", "depth-2", s})
	}
	ests := rate(map[string]float64{"depth-1": 1000}, games)
	link := 1 / math.Sqrt(40*0.25) / eloScale // one link: 40 games at even odds
	d2, d3 := find(t, ests, "depth-2"), find(t, ests, "depth-3")
	if math.Abs(d2.Rating-1000) > 0.5 || math.Abs(d3.Rating-1000) > 0.5 {
		t.Errorf("ratings %.1f and %.1f, want 1000", d2.Rating, d3.Rating)
	}
	if math.Abs(d2.Err-link) > 0.5 {
		t.Errorf("depth-2 error %.1f, want %.1f (one link)", d2.Err, link)
	}
	if want := link * math.Sqrt2; math.Abs(d3.Err-want) > 0.5 || math.Abs(d3.ErrGiven-link) > 0.5 {
		t.Errorf("depth-3 error %.1f (given %.1f), want %.1f (given %.1f)", d3.Err, d3.ErrGiven, want, link)
	}
}

// Ensure a ladder whose rungs beat the one below every time gives bounds, not ratings that
// run away: each rung is above the one below it, a level that lost every game is below the
// anchor, and entrants that never met the anchor's side are not linked to it.
func TestRateSeparated(t *testing.T) {
	var games []result
	for i := 0; i < 6; i++ {
		games = append(games, result{"depth-2", "depth-1", 1}, result{"depth-3", "depth-2", 1},
			result{"easy", "depth-1", 0}, result{"x", "y", 0.5})
	}
	ests := rate(map[string]float64{"depth-1": 1000}, games)
	for _, tc := range []struct {
		name   string
		bound  bound
		rating float64
	}{{"depth-2", above, 1000}, {"depth-3", above, 1000}, {"easy", below, 1000}} {
		e := find(t, ests, tc.name)
		if e.Bound != tc.bound || e.Rating != tc.rating || !math.IsInf(e.Err, 1) {
			t.Errorf("%s: %+v, want bound %d at %v", tc.name, e, tc.bound, tc.rating)
		}
	}
	for _, n := range []string{"x", "y"} {
		if e := find(t, ests, n); e.Bound != unconnected || !strings.Contains(e.String(), "not linked") {
			t.Errorf("%s: %+v (%s), want unconnected", n, e, e)
		}
	}
	if last := ests[len(ests)-1]; last.Bound != unconnected {
		t.Errorf("the unconnected are not listed last: %+v", ests)
	}
}

// Ensure the games of a log are read back (the lines the command writes, nothing else), with
// depth-1 and the Stockfish players as anchors, and a line that scores a third entrant refused.
func TestReadResults(t *testing.T) {
	log := `opening a3-b4 f6-g5
depth-2 v depth-1, depth-2 moving first: depth-2 wins (no legal moves)
depth-2 v depth-1, depth-1 moving first: depth-2 draws (threefold repetition)
strong v stockfish-1350, strong moving first: strong loses (checkmate)

russian: ratings from 3 games
  depth-1 1000 (anchor) (+0 =1 -1)
`
	games, err := readResults(strings.NewReader(log))
	if err != nil {
		t.Fatal(err)
	}
	want := []result{{"depth-2", "depth-1", 1}, {"depth-2", "depth-1", 0.5}, {"strong", "stockfish-1350", 0}}
	if fmt.Sprint(games) != fmt.Sprint(want) {
		t.Errorf("games %v, want %v", games, want)
	}
	if a := logAnchors(games); len(a) != 2 || a["depth-1"] != 1000 || a["stockfish-1350"] != 1350 {
		t.Errorf("anchors %v", a)
	}
	if _, err := readResults(strings.NewReader("a v b, a moving first: c wins (x)\n")); err == nil || !strings.Contains(err.Error(), "line 1") {
		t.Errorf("a third entrant scoring: %v", err)
	}
}
