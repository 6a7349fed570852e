package tournament

import (
	"cmp"
	"slices"
)

// ArenaScore is a player's standing in an arena.
type ArenaScore struct {
	Player int64
	Rank   int
	// Points: a win 2, a draw 1, a loss 0, each doubled while the player is on fire.
	Points int
	// Fire says the player's two last games were wins: the next one scores double.
	Fire               bool
	Wins, Draws, Games int
	Rating             float64
}

// ArenaStandings scores an arena's finished games, given in the order they finished (pending
// games are skipped), and ranks the players by points, then wins, then rating and id.
//
// A streak starts after two wins running: from the third win on, each game scores double
// (a win 4, a draw 2) until the player fails to win.
func ArenaStandings(players []Player, finished []Game) []ArenaScore {
	rows := make([]ArenaScore, 0, len(players))
	index := make(map[int64]int, len(players))
	for _, p := range players {
		index[p.ID] = len(rows)
		rows = append(rows, ArenaScore{Player: p.ID, Rating: p.Rating})
	}
	run := map[int64]int{} // wins running
	for _, g := range finished {
		if g.Bye() || g.Result == Pending {
			continue
		}
		w, b := g.Scores(0)
		for _, side := range [2]struct {
			id  int64
			got Score
		}{{g.White, w}, {g.Black, b}} {
			i, ok := index[side.id]
			if !ok {
				continue
			}
			r := &rows[i]
			r.Games++
			pts := int(side.got)
			if run[side.id] >= 2 {
				pts *= 2
			}
			r.Points += pts
			switch side.got {
			case 2:
				r.Wins++
				run[side.id]++
			case 1:
				r.Draws++
				run[side.id] = 0
			default:
				run[side.id] = 0
			}
			r.Fire = run[side.id] >= 2
		}
	}
	slices.SortStableFunc(rows, func(a, b ArenaScore) int {
		return cmp.Or(cmp.Compare(b.Points, a.Points), cmp.Compare(b.Wins, a.Wins),
			cmp.Compare(b.Rating, a.Rating), cmp.Compare(a.Player, b.Player))
	})
	for i := range rows {
		rows[i].Rank = i + 1
		if i > 0 && rows[i].Points == rows[i-1].Points && rows[i].Wins == rows[i-1].Wins && rows[i].Rating == rows[i-1].Rating {
			rows[i].Rank = rows[i-1].Rank
		}
	}
	return rows
}

// PairArena pairs the players who are free in an arena (waiting, in the order they became
// free), after the past games (in the order they finished), while busy other entrants are
// still in a game: nearest in points first, never against the opponent of one's last game
// while another choice exists, colours to whoever had fewer whites. It returns the games and
// the players left waiting, in the order they came.
//
// A player whose only free opponent is the one they just played waits rather than meet them
// again, as long as a game still running (busy > 0) will free somebody else: an arena is a
// tournament, not a match between whoever finishes together. With nobody busy the two meet
// again, as there is no one else to meet. With an odd number, the one who became free last
// waits for the next game to finish, unless leaving somebody else out is what lets everyone
// else play without such a rematch: then the latest of those to come waits instead.
func PairArena(waiting []Player, past []Game, round int, busy int) ([]Game, []int64) {
	h := histories(waiting, past, 0)
	last := map[int64]int64{}
	for _, g := range past {
		if !g.Bye() {
			last[g.White], last[g.Black] = g.Black, g.White
		}
	}
	points := map[int64]int{}
	for _, s := range ArenaStandings(waiting, past) {
		points[s.Player] = s.Points
	}
	order := slices.Clone(waiting)
	slices.SortStableFunc(order, func(a, b Player) int {
		return cmp.Or(cmp.Compare(points[b.ID], points[a.ID]), cmp.Compare(b.Rating, a.Rating), cmp.Compare(a.ID, b.ID))
	})
	a := arena{last: last, h: h, round: round, busy: busy}
	if len(order)%2 == 0 {
		games, left, _ := a.pair(order, waiting)
		return games, left
	}
	// Whom to leave out: the latest to come, unless another choice makes fewer rematches, or
	// as few and fewer players waiting.
	var games []Game
	var left []int64
	best := -1
	for i := len(waiting) - 1; i >= 0; i-- {
		out := waiting[i].ID
		g, l, again := a.pair(slices.DeleteFunc(slices.Clone(order), func(p Player) bool { return p.ID == out }), waiting)
		l = append(l, out)
		if cost := again*len(waiting) + len(l); best < 0 || cost < best {
			games, left, best = g, l, cost
		}
		if best == 1 {
			break
		}
	}
	return games, inOrder(left, waiting)
}

// arena is what one pairing of an arena's free players reads.
type arena struct {
	last  map[int64]int64
	h     map[int64]*history
	round int
	busy  int
}

// arenaBudget bounds the search for a pairing of everyone without a rematch (the nodes it may
// visit); past it the greedy pairing is taken.
const arenaBudget = 20_000

// pair pairs the players in order (by points). It first looks for a pairing of everyone in
// which nobody meets the opponent they just played (either way round), each player taking the
// nearest in points that allows it. When there is none, it pairs greedily: each player with
// the first after them who did not just meet them; a player with none waits while others are
// busy, and meets their last opponent again when nobody is. It returns the games, who waits
// (in the order they came) and how many rematches were made.
func (a arena) pair(order []Player, came []Player) ([]Game, []int64, int) {
	budget := arenaBudget
	if games, ok := a.match(order, nil, &budget); ok {
		return games, nil, 0
	}
	var games []Game
	var left []int64
	again := 0
	for len(order) > 0 {
		p := order[0]
		j := -1
		for k := 1; k < len(order); k++ {
			if !a.met(p.ID, order[k].ID) {
				j = k
				break
			}
		}
		if j < 0 {
			if a.busy > 0 || len(order) < 2 {
				left = append(left, p.ID)
				order = order[1:]
				continue
			}
			j, again = 1, again+1
		}
		games = append(games, a.game(p, order[j]))
		order = slices.Delete(slices.Clone(order), j, j+1)[1:]
	}
	return games, inOrder(left, came), again
}

// match pairs all the players in order without a rematch, by a depth-first search within the
// budget; ok is false when it finds none (or runs out).
func (a arena) match(order []Player, games []Game, budget *int) ([]Game, bool) {
	if len(order) == 0 {
		return games, true
	}
	if len(order)%2 == 1 {
		return nil, false
	}
	p := order[0]
	for k := 1; k < len(order); k++ {
		if *budget--; *budget < 0 {
			return nil, false
		}
		if a.met(p.ID, order[k].ID) {
			continue
		}
		rest := make([]Player, 0, len(order)-2)
		rest = append(rest, order[1:k]...)
		rest = append(rest, order[k+1:]...)
		if g, ok := a.match(rest, append(games, a.game(p, order[k])), budget); ok {
			return g, true
		}
	}
	return nil, false
}

// met says whether the two players' last games were against each other (either's).
func (a arena) met(p, q int64) bool { return a.last[p] == q || a.last[q] == p }

// game is the game between p and q, white to whoever had fewer whites (p when equal).
func (a arena) game(p, q Player) Game {
	if whites(a.h[q.ID]) < whites(a.h[p.ID]) {
		p, q = q, p
	}
	return Game{Round: a.round, White: p.ID, Black: q.ID}
}

// inOrder returns the ids in the order the players came.
func inOrder(ids []int64, came []Player) []int64 {
	var out []int64
	for _, p := range came {
		if slices.Contains(ids, p.ID) {
			out = append(out, p.ID)
		}
	}
	return out
}

// whites counts a player's surplus of whites over blacks.
func whites(h *history) int {
	n := 0
	for _, c := range h.colours {
		n += int(c)
	}
	return n
}
