package tournament

import "fmt"

// Score counts half points: a win is 2, a draw 1, a loss 0.
type Score int

// String writes a score in points, with ½ for a half: "3½".
func (s Score) String() string {
	if s%2 == 0 {
		return fmt.Sprint(int(s) / 2)
	}
	if s == 1 {
		return "½"
	}
	return fmt.Sprintf("%d½", int(s)/2)
}

// Result is the outcome of a game, from white's side.
type Result int8

// The results. Pending is a game not finished yet; it counts for pairing (the players have
// met) but not for scores.
const (
	Pending Result = iota
	WhiteWins
	Draw
	BlackWins
)

// Player is an entrant: an id (a user's) and the rating used to seed and to order equal scores.
type Player struct {
	ID     int64
	Rating float64
}

// Game is one pairing of a round: white and black, or a bye when Black is 0 (White is then the
// player who sits out and scores the system's ByeScore).
type Game struct {
	Round  int
	White  int64
	Black  int64
	Result Result
}

// Bye reports whether the game is a bye.
func (g Game) Bye() bool { return g.Black == 0 }

// Scores returns what white and black scored, a bye being worth bye to white (see
// System.ByeScore); a pending game scores 0 and 0.
func (g Game) Scores(bye Score) (white, black Score) {
	if g.Bye() {
		return bye, 0
	}
	switch g.Result {
	case WhiteWins:
		return 2, 0
	case Draw:
		return 1, 1
	case BlackWins:
		return 0, 2
	}
	return 0, 0
}

// colour is a player's colour in a game.
type colour int8

const (
	white colour = 1
	black colour = -1
)

// history is what the past games say about one player.
type history struct {
	score     Score
	opponents map[int64]bool
	colours   []colour // the colours of the games played, in order (byes excluded)
	byes      int
}

// histories reads the past games, a bye being worth bye: each player's score, opponents,
// colours and byes.
func histories(players []Player, games []Game, bye Score) map[int64]*history {
	h := make(map[int64]*history, len(players))
	of := func(id int64) *history {
		if h[id] == nil {
			h[id] = &history{opponents: map[int64]bool{}}
		}
		return h[id]
	}
	for _, p := range players {
		of(p.ID)
	}
	for _, g := range games {
		w, b := g.Scores(bye)
		hw := of(g.White)
		hw.score += w
		if g.Bye() {
			hw.byes++
			continue
		}
		hb := of(g.Black)
		hb.score += b
		hw.opponents[g.Black], hb.opponents[g.White] = true, true
		hw.colours = append(hw.colours, white)
		hb.colours = append(hb.colours, black)
	}
	return h
}
