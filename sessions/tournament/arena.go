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
		w, b := g.Scores()
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
// free), after the past games (in the order they finished): nearest in points first, never
// against the opponent of one's last game while another choice exists, colours to whoever had
// fewer whites. It returns the games and the player left waiting (0 when none): with an odd
// number, the one who became free last waits for the next to finish.
func PairArena(waiting []Player, past []Game, round int) ([]Game, int64) {
	if len(waiting) < 2 {
		if len(waiting) == 1 {
			return nil, waiting[0].ID
		}
		return nil, 0
	}
	var left int64
	if len(waiting)%2 == 1 {
		left = waiting[len(waiting)-1].ID
		waiting = waiting[:len(waiting)-1]
	}
	h := histories(waiting, past)
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
	var games []Game
	for len(order) > 0 {
		p := order[0]
		j := 1
		for k := 1; k < len(order); k++ {
			if last[p.ID] != order[k].ID {
				j = k
				break
			}
		}
		q := order[j]
		order = slices.Delete(order, j, j+1)[1:]
		if whites(h[q.ID]) < whites(h[p.ID]) {
			p, q = q, p
		}
		games = append(games, Game{Round: round, White: p.ID, Black: q.ID})
	}
	return games, left
}

// whites counts a player's surplus of whites over blacks.
func whites(h *history) int {
	n := 0
	for _, c := range h.colours {
		n += int(c)
	}
	return n
}
