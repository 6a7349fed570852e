package main

import (
	"math"
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
	if e := find(t, ests, "strong"); !math.IsInf(e.Err, 1) || e.Rating < 1399 {
		t.Errorf("strong %+v, want unbounded above", e)
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
