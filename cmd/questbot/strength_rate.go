package main

import (
	"fmt"
	"math"
	"sort"
)

// result is one game of a strength match: the two entrants (by name) and what the first scored
// (1, 0.5 or 0).
type result struct {
	a, b  string
	score float64
}

// estimate is an entrant's rating as the games give it.
type estimate struct {
	Name   string
	Rating float64
	// Err is one standard error of the rating (from the Fisher information of the games),
	// +Inf when the games cannot bound it (all won or all lost).
	Err float64
	// Fixed marks an anchor, whose rating was given.
	Fixed              bool
	Wins, Draws, Games int
}

// String writes "name ≈1650 ± 80 (+12 =5 -23)".
func (e estimate) String() string {
	rec := fmt.Sprintf("(+%d =%d -%d)", e.Wins, e.Draws, e.Games-e.Wins-e.Draws)
	switch {
	case e.Fixed:
		return fmt.Sprintf("%s %.0f (anchor) %s", e.Name, e.Rating, rec)
	case math.IsInf(e.Err, 1):
		return fmt.Sprintf("%s unbounded by these games (%s) %s", e.Name, bound(e), rec)
	}
	return fmt.Sprintf("%s ≈%.0f ± %.0f %s", e.Name, e.Rating, e.Err, rec)
}

func bound(e estimate) string {
	if e.Wins == e.Games {
		return fmt.Sprintf("above %.0f", e.Rating)
	}
	return fmt.Sprintf("below %.0f", e.Rating)
}

// eloScale turns a rating difference into the natural logarithm of the odds: the Elo curve is
// 1/(1+10^(−d/400)).
const eloScale = math.Ln10 / 400

// expected is the score an entrant rated r is expected to make against one rated o.
func expected(r, o float64) float64 { return 1 / (1 + math.Pow(10, (o-r)/400)) }

// rate finds the ratings that make the games most likely under the Elo model (Bradley–Terry on
// the Elo scale, draws counted as half a win each), holding the anchors at their ratings. It
// updates each free entrant in turn by a Newton step on its own likelihood until none moves by
// more than 0.01, which converges for a connected set of games. An entrant who won or lost
// every game has no finite estimate: it is placed 400 above (below) the best (worst) opponent
// it met, with an infinite error.
func rate(anchors map[string]float64, games []result) []estimate {
	ests := map[string]*estimate{}
	get := func(n string) *estimate {
		if ests[n] == nil {
			r, fixed := anchors[n]
			if !fixed {
				r = 1500
			}
			ests[n] = &estimate{Name: n, Rating: r, Fixed: fixed}
		}
		return ests[n]
	}
	for _, g := range games {
		a, b := get(g.a), get(g.b)
		a.Games++
		b.Games++
		switch g.score {
		case 1:
			a.Wins++
		case 0:
			b.Wins++
		default:
			a.Draws++
			b.Draws++
		}
	}
	// Entrants with a perfect record are left out of the fit, and placed after it.
	perfect := func(e *estimate) bool { return !e.Fixed && (e.Wins == e.Games || e.Wins+e.Draws == 0) }
	for iter := 0; iter < 10_000; iter++ {
		moved := 0.0
		for _, e := range ests {
			if e.Fixed || perfect(e) {
				continue
			}
			grad, info := 0.0, 0.0
			for _, g := range games {
				var o *estimate
				s := g.score
				switch e.Name {
				case g.a:
					o = ests[g.b]
				case g.b:
					o, s = ests[g.a], 1-g.score
				default:
					continue
				}
				if perfect(o) {
					continue
				}
				p := expected(e.Rating, o.Rating)
				grad += s - p
				info += p * (1 - p)
			}
			if info == 0 {
				continue
			}
			step := max(-200, min(200, grad/info/eloScale))
			e.Rating += step
			moved = max(moved, math.Abs(step))
		}
		if moved < 0.01 {
			break
		}
	}
	for _, e := range ests {
		if e.Fixed {
			continue
		}
		if perfect(e) {
			best, worst := math.Inf(-1), math.Inf(1)
			for _, g := range games {
				for _, pair := range [][2]string{{g.a, g.b}, {g.b, g.a}} {
					if pair[0] == e.Name && !perfect(ests[pair[1]]) {
						best, worst = max(best, ests[pair[1]].Rating), min(worst, ests[pair[1]].Rating)
					}
				}
			}
			if e.Wins == e.Games {
				e.Rating = best + 400
			} else {
				e.Rating = worst - 400
			}
			e.Err = math.Inf(1)
			continue
		}
		info := 0.0
		for _, g := range games {
			var o string
			switch e.Name {
			case g.a:
				o = g.b
			case g.b:
				o = g.a
			default:
				continue
			}
			p := expected(e.Rating, ests[o].Rating)
			info += p * (1 - p)
		}
		e.Err = 1 / math.Sqrt(info) / eloScale
	}
	out := make([]estimate, 0, len(ests))
	for _, e := range ests {
		out = append(out, *e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Rating > out[j].Rating })
	return out
}
