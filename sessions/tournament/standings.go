package tournament

import (
	"cmp"
	"slices"
)

// Standing is one player's line of the standings.
type Standing struct {
	Player int64
	// Rank is the place, from 1; players equal on every tie-break share it.
	Rank  int
	Score Score
	// Buchholz is the sum of the final scores of the opponents met (byes and pending games
	// count nothing).
	Buchholz Score
	// SonnebornBerger is, in quarter points, the sum of the final scores of the opponents
	// beaten plus half those of the opponents drawn.
	SonnebornBerger           int
	Wins, Draws, Losses, Byes int
	// Rating is the player's rating as entered, the last tie-break.
	Rating float64
}

// SB returns the Sonneborn–Berger score in points.
func (s Standing) SB() float64 { return float64(s.SonnebornBerger) / 4 }

// Standings ranks the players after the games. A round robin breaks ties by Sonneborn–Berger,
// then wins; a Swiss by Buchholz, then Sonneborn–Berger, then wins (an arena ranks by its own
// points: see ArenaStandings). Players still equal are ordered by rating and id and share the
// rank.
func Standings(system System, players []Player, games []Game) []Standing {
	h := histories(players, games, system.ByeScore())
	rows := make([]Standing, 0, len(players))
	index := make(map[int64]int, len(players))
	for _, p := range players {
		index[p.ID] = len(rows)
		rows = append(rows, Standing{Player: p.ID, Score: h[p.ID].score, Rating: p.Rating})
	}
	for _, g := range games {
		w, b := g.Scores(system.ByeScore())
		if g.Bye() {
			if i, ok := index[g.White]; ok {
				rows[i].Byes++
			}
			continue
		}
		if g.Result == Pending {
			continue
		}
		for _, side := range [2]struct {
			me, opp int64
			got     Score
		}{{g.White, g.Black, w}, {g.Black, g.White, b}} {
			i, ok := index[side.me]
			if !ok {
				continue
			}
			r := &rows[i]
			opp := h[side.opp].score
			r.Buchholz += opp
			switch side.got {
			case 2:
				r.Wins++
				r.SonnebornBerger += 2 * int(opp)
			case 1:
				r.Draws++
				r.SonnebornBerger += int(opp)
			default:
				r.Losses++
			}
		}
	}
	keys := func(s Standing) []int {
		switch system {
		case Swiss:
			return []int{int(s.Score), int(s.Buchholz), s.SonnebornBerger, s.Wins}
		default:
			return []int{int(s.Score), s.SonnebornBerger, s.Wins}
		}
	}
	slices.SortStableFunc(rows, func(a, b Standing) int {
		return cmp.Or(slices.Compare(keys(b), keys(a)), cmp.Compare(b.Rating, a.Rating), cmp.Compare(a.Player, b.Player))
	})
	for i := range rows {
		rows[i].Rank = i + 1
		if i > 0 && slices.Equal(keys(rows[i]), keys(rows[i-1])) && rows[i].Rating == rows[i-1].Rating {
			rows[i].Rank = rows[i-1].Rank
		}
	}
	return rows
}

// System is a tournament's system.
type System string

// The systems.
const (
	RoundRobinSystem System = "roundrobin"
	Swiss            System = "swiss"
	Arena            System = "arena"
)

// ByeScore is what sitting out a round is worth in the system. In a Swiss the bye is a full
// point, as FIDE's Swiss rules score it: the field is paired by score, and the player left out
// was ready to play. In a round robin a sit-out scores nothing: it is a round without a game,
// which every player of an odd field has once, so it is no result (the crosstables of round
// robins leave it blank). An arena has no byes.
func (s System) ByeScore() Score {
	if s == Swiss {
		return 2
	}
	return 0
}
