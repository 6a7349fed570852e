package tournament

import (
	"cmp"
	"fmt"
	"slices"
)

// searchBudget bounds the pairing search of one level of strictness (the nodes it may visit):
// past it, the next, looser level is tried. Fields of a few hundred players pair well within it.
const searchBudget = 200_000

// PairSwiss pairs round `round` of a Swiss tournament between the players after the past games
// (every earlier round's, pending ones included: the players have met). It returns the round's
// games, the bye (if any) last.
//
// The pairing follows the Dutch system's aims in order of importance:
//
//  1. Nobody meets the same opponent twice. Only when no pairing avoids it (more rounds than a
//     field allows) is a rematch made, the fewest possible.
//  2. Nobody gets a colour that would make three alike running or a surplus of two (an absolute
//     colour clash), when a pairing without one exists.
//  3. Players meet others of the same score; those left over float to the nearest score.
//  4. Within a score group, the top half meets the bottom half in order (1 v 5, 2 v 6, ...),
//     by rating for equal scores.
//
// The bye (with an odd field) goes to the lowest ranked player who has had the fewest byes and
// whose sitting out leaves a pairing of the others. Colours go by preference: a player who had
// more blacks gets white, one who had the same colour twice gets the other, and when both
// prefer the same colour the stronger preference wins, then the one whose colours alternate
// from the last round in which the two had different colours, then the higher ranked. In the
// first round the top seed has white on odd boards.
func PairSwiss(players []Player, past []Game, round int) ([]Game, error) {
	if len(players) < 2 {
		return nil, fmt.Errorf("%w: a Swiss round needs 2 players, not %d", ErrPlayers, len(players))
	}
	if err := distinct(players); err != nil {
		return nil, err
	}
	h := histories(players, past, Swiss.ByeScore())
	ranked := rank(players, h)
	// A second bye and a rematch are both last resorts: a fresh bye is tried at each level of
	// strictness before any player sits out twice.
	tiers := []struct {
		level  strictness
		repeat bool // a player who sat out before may sit out again
	}{{strict, false}, {noRematch, false}, {strict, true}, {noRematch, true}, {loose, false}, {loose, true}}
	for _, tier := range tiers {
		s := &swiss{h: h, level: tier.level}
		if len(ranked)%2 == 0 {
			if tier.repeat {
				continue
			}
			if pairs, ok := s.pairAll(ranked); ok {
				return s.games(pairs, 0, round), nil
			}
			continue
		}
		fewest := h[byeOrder(ranked, h)[0]].byes
		for _, bye := range byeOrder(ranked, h) {
			if !tier.repeat && h[bye].byes > fewest {
				break
			}
			rest := make([]Player, 0, len(ranked)-1)
			for _, p := range ranked {
				if p.ID != bye {
					rest = append(rest, p)
				}
			}
			s.budget = 0
			if pairs, ok := s.pairAll(rest); ok {
				return s.games(pairs, bye, round), nil
			}
		}
	}
	// The loose level pairs anything with anything: it cannot fail.
	return nil, fmt.Errorf("%w: no pairing found", ErrPlayers)
}

// rank orders players by score, then rating, then id.
func rank(players []Player, h map[int64]*history) []Player {
	ranked := slices.Clone(players)
	slices.SortStableFunc(ranked, func(a, b Player) int {
		return cmp.Or(cmp.Compare(h[b.ID].score, h[a.ID].score), cmp.Compare(b.Rating, a.Rating), cmp.Compare(a.ID, b.ID))
	})
	return ranked
}

// byeOrder lists who may sit out, in order of preference: the fewest byes first, then from the
// bottom of the ranking.
func byeOrder(ranked []Player, h map[int64]*history) []int64 {
	ids := make([]int64, 0, len(ranked))
	for i := len(ranked) - 1; i >= 0; i-- {
		ids = append(ids, ranked[i].ID)
	}
	slices.SortStableFunc(ids, func(a, b int64) int { return cmp.Compare(h[a].byes, h[b].byes) })
	return ids
}

// strictness is what a pairing may allow.
type strictness int

const (
	strict    strictness = iota // no rematch, no absolute colour clash
	noRematch                   // no rematch
	loose                       // anything; rematches cost most
)

type swiss struct {
	h      map[int64]*history
	level  strictness
	budget int
}

// pairAll pairs the ranked players by depth-first search, trying for each highest unpaired
// player its candidates from the most to the least fitting.
func (s *swiss) pairAll(ranked []Player) ([][2]Player, bool) {
	ideal := ideals(ranked, s.h)
	paired := make([]bool, len(ranked))
	out := make([][2]Player, 0, len(ranked)/2)
	var try func() bool
	try = func() bool {
		i := slices.Index(paired, false)
		if i < 0 {
			return true
		}
		s.budget++
		if s.budget > searchBudget {
			return false
		}
		type cand struct {
			j    int
			cost [4]int
		}
		var cands []cand
		for j := i + 1; j < len(ranked); j++ {
			if paired[j] {
				continue
			}
			p, q := ranked[i], ranked[j]
			rematch := s.h[p.ID].opponents[q.ID]
			clash := colourClash(s.h[p.ID], s.h[q.ID])
			if rematch && s.level < loose || clash == 3 && s.level < noRematch {
				continue
			}
			d := int(s.h[p.ID].score - s.h[q.ID].score)
			cands = append(cands, cand{j, [4]int{b2i(rematch), abs(d), clash, abs(j - ideal[i])}})
		}
		slices.SortStableFunc(cands, func(a, b cand) int { return slices.Compare(a.cost[:], b.cost[:]) })
		paired[i] = true
		for _, c := range cands {
			paired[c.j] = true
			out = append(out, [2]Player{ranked[i], ranked[c.j]})
			if try() {
				return true
			}
			out = out[:len(out)-1]
			paired[c.j] = false
			if s.budget > searchBudget {
				break
			}
		}
		paired[i] = false
		return false
	}
	return out, try()
}

// ideals gives each ranked player the index of its ideal opponent: within its score group,
// the top half meets the bottom half in order; a lone or bottom-half player looks to the next.
func ideals(ranked []Player, h map[int64]*history) []int {
	ideal := make([]int, len(ranked))
	for start := 0; start < len(ranked); {
		end := start
		for end < len(ranked) && h[ranked[end].ID].score == h[ranked[start].ID].score {
			end++
		}
		half := (end - start) / 2
		for k := start; k < end; k++ {
			if k-start < half {
				ideal[k] = k + half
			} else {
				ideal[k] = k + 1
			}
		}
		start = end
	}
	return ideal
}

// preference is how much a player wants a colour: its sign is the colour, its size 1 (mild),
// 2 (strong) or 3 (absolute); 0 for none.
func preference(h *history) int {
	c := h.colours
	if len(c) == 0 {
		return 0
	}
	diff := 0
	for _, x := range c {
		diff += int(x)
	}
	last := c[len(c)-1]
	twice := len(c) >= 2 && c[len(c)-2] == last
	switch {
	case diff <= -2 || twice && last == black:
		return 3
	case diff >= 2 || twice && last == white:
		return -3
	case diff == -1:
		return 2
	case diff == 1:
		return -2
	}
	return -int(last) // mild: alternate
}

// colourClash is how badly two players want the same colour: the weaker of their two wishes
// for it (3 when both must have it, 0 when their wishes differ or one has none).
func colourClash(a, b *history) int {
	pa, pb := preference(a), preference(b)
	if pa*pb <= 0 {
		return 0
	}
	return min(abs(pa), abs(pb))
}

// games gives each pair its colours and appends the bye.
func (s *swiss) games(pairs [][2]Player, bye int64, round int) []Game {
	out := make([]Game, 0, len(pairs)+1)
	for board, pq := range pairs {
		p, q := pq[0], pq[1] // p is ranked higher
		if s.whiteFirst(p.ID, q.ID, board) {
			out = append(out, Game{Round: round, White: p.ID, Black: q.ID})
		} else {
			out = append(out, Game{Round: round, White: q.ID, Black: p.ID})
		}
	}
	if bye != 0 {
		out = append(out, Game{Round: round, White: bye})
	}
	return out
}

// whiteFirst decides whether the higher ranked p has white against q on the given board (from
// 0).
func (s *swiss) whiteFirst(p, q int64, board int) bool {
	hp, hq := s.h[p], s.h[q]
	pp, pq := preference(hp), preference(hq)
	switch {
	case pp == 0 && pq == 0:
		return board%2 == 0
	case pp*pq <= 0: // different wishes, or only one has any
		return pp > 0 || pq < 0
	case abs(pp) != abs(pq): // the stronger wish wins
		if abs(pp) > abs(pq) {
			return pp > 0
		}
		return pq < 0
	}
	// Equal wishes for the same colour: alternate from the last game in which the two had
	// different colours (counted from their last games back).
	cp, cq := hp.colours, hq.colours
	for i, j := len(cp)-1, len(cq)-1; i >= 0 && j >= 0; i, j = i-1, j-1 {
		if cp[i] != cq[j] {
			return cp[i] == black
		}
	}
	return pp > 0
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
