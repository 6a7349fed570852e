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

// bound says how far the games bound an entrant's rating.
type bound int

const (
	// bounded: the games give a finite estimate.
	bounded bound = iota
	// above: the entrant scored against every opponent it met that the games bound from above
	// (won or drew every such game), so its rating has no upper bound; Rating is the best
	// rating it scored against.
	above
	// below: the entrant never scored against the opponents that bound it from below; Rating is
	// the worst rating it failed to beat.
	below
	// unconnected: no chain of games links the entrant to an anchor.
	unconnected
)

// estimate is an entrant's rating as the games give it.
type estimate struct {
	Name   string
	Rating float64
	// Err is one standard error of the rating, from the Fisher information of all the games
	// fitted jointly (so a rung's uncertainty counts in the levels measured against it); +Inf
	// when the games do not bound it.
	Err float64
	// ErrGiven is the standard error the entrant's own games give with its opponents' ratings
	// taken as known: where it stands among them, the part of Err its own games decide.
	ErrGiven float64
	// Bound says whether the rating is an estimate or only a bound.
	Bound bound
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
	case e.Bound == above:
		return fmt.Sprintf("%s unbounded by these games (above %.0f) %s", e.Name, e.Rating, rec)
	case e.Bound == below:
		return fmt.Sprintf("%s unbounded by these games (below %.0f) %s", e.Name, e.Rating, rec)
	case e.Bound == unconnected:
		return fmt.Sprintf("%s not linked to an anchor by these games %s", e.Name, rec)
	}
	return fmt.Sprintf("%s ≈%.0f ± %.0f (± %.0f given its opponents' ratings) %s", e.Name, e.Rating, e.Err, e.ErrGiven, rec)
}

// eloScale turns a rating difference into the natural logarithm of the odds: the Elo curve is
// 1/(1+10^(−d/400)).
const eloScale = math.Ln10 / 400

// expected is the score an entrant rated r is expected to make against one rated o.
func expected(r, o float64) float64 { return 1 / (1 + math.Pow(10, (o-r)/400)) }

// rate finds the ratings that make the games most likely under the Elo model (Bradley–Terry on
// the Elo scale, draws counted as half a win each), holding the anchors at their ratings.
//
// The most likely ratings are finite only for the entrants the games bound both ways: bounded
// from above by a game it did not win against an entrant bounded from above, and from below by
// a game it did not lose against one bounded from below, the anchors being bounded both ways.
// (A ladder whose every rung beat the one below it every time has no finite estimate: each
// rung could be as far above the last as one likes.) Those are fitted, on the games among
// them, by a Newton step on each entrant in turn until none moves by more than 0.01; the
// others are reported as bounds. The standard errors come from the inverse of the Fisher
// information matrix of the fitted entrants.
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
	up, down := boundedSets(ests, games)
	fitted := func(n string) bool { return up[n] && down[n] }
	var free []*estimate
	for _, e := range ests {
		if !e.Fixed && fitted(e.Name) {
			free = append(free, e)
		}
	}
	sort.Slice(free, func(i, j int) bool { return free[i].Name < free[j].Name })
	// opponents lists each game from one entrant's side: the opponent and the score made.
	type side struct {
		o string
		s float64
	}
	opponents := map[string][]side{}
	for _, g := range games {
		if fitted(g.a) && fitted(g.b) {
			opponents[g.a] = append(opponents[g.a], side{g.b, g.score})
			opponents[g.b] = append(opponents[g.b], side{g.a, 1 - g.score})
		}
	}
	for iter := 0; iter < 10_000; iter++ {
		moved := 0.0
		for _, e := range free {
			grad, info := 0.0, 0.0
			for _, g := range opponents[e.Name] {
				p := expected(e.Rating, ests[g.o].Rating)
				grad += g.s - p
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
	// The Fisher information of the free ratings (on the log-odds scale): each game adds
	// p(1-p) to both players' diagonal entries and takes it from their shared entry.
	index := map[string]int{}
	for i, e := range free {
		index[e.Name] = i
	}
	fisher := make([][]float64, len(free))
	for i := range fisher {
		fisher[i] = make([]float64, len(free))
	}
	for _, e := range free {
		i := index[e.Name]
		for _, g := range opponents[e.Name] {
			p := expected(e.Rating, ests[g.o].Rating)
			fisher[i][i] += p * (1 - p)
			if j, ok := index[g.o]; ok {
				fisher[i][j] -= p * (1 - p)
			}
		}
	}
	cov, ok := invert(fisher)
	for i, e := range free {
		e.Bound = bounded
		e.Err, e.ErrGiven = math.Inf(1), math.Inf(1)
		if fisher[i][i] > 0 {
			e.ErrGiven = 1 / math.Sqrt(fisher[i][i]) / eloScale
		}
		if ok && cov[i][i] > 0 {
			e.Err = math.Sqrt(cov[i][i]) / eloScale
		}
	}
	// The others are bounded by the fitted ratings they met, or by the bounds of entrants
	// bounded before them (a ladder whose rungs all beat the one below are above each other).
	placed := map[string]bool{}
	for e := range ests {
		placed[e] = ests[e].Fixed || fitted(e)
	}
	for changed := true; changed; {
		changed = false
		for _, e := range ests {
			if !placed[e.Name] && placeBound(e, ests, games, placed, up, down) {
				placed[e.Name], changed = true, true
			}
		}
	}
	for _, e := range ests {
		if !placed[e.Name] {
			e.Bound, e.Rating, e.Err, e.ErrGiven = unconnected, math.NaN(), math.Inf(1), math.Inf(1)
		}
	}
	out := make([]estimate, 0, len(ests))
	for _, e := range ests {
		out = append(out, *e)
	}
	sort.Slice(out, func(i, j int) bool {
		if ni, nj := math.IsNaN(out[i].Rating), math.IsNaN(out[j].Rating); ni || nj {
			return nj && !ni
		}
		if out[i].Rating != out[j].Rating {
			return out[i].Rating > out[j].Rating
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// boundedSets returns the entrants the games bound from above (up) and from below (down): the
// anchors, then whoever did not win a game against one bounded from above (up), or did not
// lose one against one bounded from below (down), until no more join.
func boundedSets(ests map[string]*estimate, games []result) (up, down map[string]bool) {
	up, down = map[string]bool{}, map[string]bool{}
	for n, e := range ests {
		if e.Fixed {
			up[n], down[n] = true, true
		}
	}
	for changed := true; changed; {
		changed = false
		for _, g := range games {
			for _, s := range [2]struct {
				me, o string
				score float64
			}{{g.a, g.b, g.score}, {g.b, g.a, 1 - g.score}} {
				if s.score < 1 && up[s.o] && !up[s.me] {
					up[s.me], changed = true, true
				}
				if s.score > 0 && down[s.o] && !down[s.me] {
					down[s.me], changed = true, true
				}
			}
		}
	}
	return up, down
}

// placeBound bounds an entrant the games do not bound both ways, by the entrants already
// placed that it met: bounded from below only, it is above the best of them it scored
// against; bounded from above only, below the worst of them it failed to beat. It reports
// whether it could.
func placeBound(e *estimate, ests map[string]*estimate, games []result, placed, up, down map[string]bool) bool {
	best, worst := math.Inf(-1), math.Inf(1)
	for _, g := range games {
		var o string
		s := g.score
		switch e.Name {
		case g.a:
			o = g.b
		case g.b:
			o, s = g.a, 1-g.score
		default:
			continue
		}
		if !placed[o] {
			continue
		}
		r := ests[o].Rating
		if s > 0 && ests[o].Bound != below {
			best = max(best, r)
		}
		if s < 1 && ests[o].Bound != above {
			worst = min(worst, r)
		}
	}
	switch {
	case down[e.Name] && !up[e.Name] && !math.IsInf(best, -1):
		e.Bound, e.Rating = above, best
	case up[e.Name] && !down[e.Name] && !math.IsInf(worst, 1):
		e.Bound, e.Rating = below, worst
	default:
		return false
	}
	e.Err, e.ErrGiven = math.Inf(1), math.Inf(1)
	return true
}

// invert returns the inverse of the square matrix m by Gauss–Jordan elimination with partial
// pivoting; ok is false when m is singular.
func invert(m [][]float64) (inv [][]float64, ok bool) {
	n := len(m)
	a := make([][]float64, n)
	for i := range a {
		a[i] = make([]float64, 2*n)
		copy(a[i], m[i])
		a[i][n+i] = 1
	}
	for c := 0; c < n; c++ {
		p := c
		for r := c + 1; r < n; r++ {
			if math.Abs(a[r][c]) > math.Abs(a[p][c]) {
				p = r
			}
		}
		if math.Abs(a[p][c]) < 1e-12 {
			return nil, false
		}
		a[c], a[p] = a[p], a[c]
		pivot := a[c][c]
		for k := range a[c] {
			a[c][k] /= pivot
		}
		for r := 0; r < n; r++ {
			if r == c || a[r][c] == 0 {
				continue
			}
			f := a[r][c]
			for k := range a[r] {
				a[r][k] -= f * a[c][k]
			}
		}
	}
	inv = make([][]float64, n)
	for i := range inv {
		inv[i] = a[i][n:]
	}
	return inv, true
}
