package tournament

import (
	"errors"
	"fmt"
)

// MaxRoundRobin is the most players a round robin takes: 12 players play 11 rounds.
const MaxRoundRobin = 12

// ErrPlayers is returned for a field a system cannot pair (too few or too many players, or a
// player entered twice).
var ErrPlayers = errors.New("tournament: the players cannot be paired")

// RoundRobin returns the rounds of a round robin between the players, in their order (seeds):
// n−1 rounds for n players, or n rounds when n is odd, each player then sitting out one round
// with a bye. Pairs come from the circle method (the first seed stays, the others turn), and
// colours alternate so that every player's whites and blacks differ by at most one and nobody
// has the same colour three games running.
func RoundRobin(players []Player) ([][]Game, error) {
	n := len(players)
	if n < 2 || n > MaxRoundRobin {
		return nil, fmt.Errorf("%w: a round robin takes 2 to %d players, not %d", ErrPlayers, MaxRoundRobin, n)
	}
	if err := distinct(players); err != nil {
		return nil, err
	}
	ids := make([]int64, 0, n+1)
	if n%2 == 1 {
		// The bye takes the seat that never turns: whoever faces it sits out, and the
		// turning seats keep the colour pattern of an even field.
		ids = append(ids, 0)
	}
	for _, p := range players {
		ids = append(ids, p.ID)
	}
	m := len(ids)
	circle := make([]int, m) // positions → seeds; circle[0] never moves
	for i := range circle {
		circle[i] = i
	}
	rounds := make([][]Game, 0, m-1)
	for r := 0; r < m-1; r++ {
		var round []Game
		for i := 0; i < m/2; i++ {
			a, b := circle[i], circle[m-1-i]
			// The fixed seed alternates colours by round; on the other tables the player
			// on the turning side of the circle alternates, table by table and round by
			// round, which is the Berger tables' pattern.
			var w, bl int
			if i == 0 {
				w, bl = a, b
				if r%2 == 1 {
					w, bl = b, a
				}
			} else {
				w, bl = b, a
				if i%2 == 1 {
					w, bl = a, b
				}
			}
			switch {
			case ids[w] == 0:
				round = append(round, Game{Round: r + 1, White: ids[bl]})
			case ids[bl] == 0:
				round = append(round, Game{Round: r + 1, White: ids[w]})
			default:
				round = append(round, Game{Round: r + 1, White: ids[w], Black: ids[bl]})
			}
		}
		rounds = append(rounds, round)
		// Turn every position but the first one step.
		last := circle[m-1]
		copy(circle[2:], circle[1:m-1])
		circle[1] = last
	}
	return rounds, nil
}

// distinct refuses a field with a player twice or a player without an id.
func distinct(players []Player) error {
	seen := make(map[int64]bool, len(players))
	for _, p := range players {
		if p.ID == 0 || seen[p.ID] {
			return fmt.Errorf("%w: player %d twice or without an id", ErrPlayers, p.ID)
		}
		seen[p.ID] = true
	}
	return nil
}
