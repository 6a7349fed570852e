package questtrace

import (
	"encoding/json"
	"slices"
	"time"

	"github.com/questbot/questbot/quest"
)

// shortestNow is the clock of the views Shortest looks at; a game's way does not depend on it.
var shortestNow = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// Shortest finds a shortest sequence of actions that takes a game from s to an ending whose
// status want accepts (other endings are dead ends of the search), breadth first with equal
// states visited once, exploring at most maxStates states. The tests use it to play quests to
// their ends through the bot.
func Shortest(q *quest.Quest, s quest.State, maxStates int, want func(quest.Status) bool) ([]int, bool) {
	return ShortestWith(q, s, maxStates, want, quest.Options{})
}

// ShortestWith is Shortest for a game played under options o (only their rule of play matters).
func ShortestWith(q *quest.Quest, s quest.State, maxStates int, want func(quest.Status) bool, o quest.Options) ([]int, bool) {
	return search(q, s, maxStates, func(_ quest.State, v quest.View) bool { return want(v.Status) }, o)
}

// search finds a shortest sequence of actions that takes a game played under options o from s
// to a state that goal accepts (given the state and its view), as Shortest does; endings goal
// does not accept are dead ends.
func search(q *quest.Quest, s quest.State, maxStates int, goal func(quest.State, quest.View) bool, o quest.Options) ([]int, bool) {
	type node struct {
		s    quest.State
		path []int
	}
	o.Passed = nil
	seen := map[string]bool{}
	queue := []node{{s: s}}
	for len(queue) > 0 && len(seen) < maxStates {
		n := queue[0]
		queue = queue[1:]
		key, _ := json.Marshal(n.s)
		if seen[string(key)] {
			continue
		}
		seen[string(key)] = true
		v, err := q.ViewWith(n.s, quest.DefaultPlayer(quest.English, shortestNow), o)
		if err != nil {
			continue
		}
		if goal(n.s, v) {
			return n.path, true
		}
		if v.Status.Over() {
			continue
		}
		for _, c := range v.Choices {
			if !c.Active {
				continue
			}
			if next, err := q.PerformWith(n.s, c.JumpID, o); err == nil {
				queue = append(queue, node{s: next, path: append(slices.Clone(n.path), c.JumpID)})
			}
		}
	}
	return nil, false
}
