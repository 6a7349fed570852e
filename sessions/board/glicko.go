package board

import (
	"math"
	"time"
)

// # Ratings: Glicko-2
//
// A player's strength in a game (per bot and variant) is a Glicko-2 rating (Glickman, "Example
// of the Glicko-2 system", glicko.net/glicko/glicko2.pdf): the rating, its deviation (RD, how
// uncertain it is: a 95% interval is about rating ± 2·RD) and the volatility σ (how erratic the
// player's results are). Every player starts at GlickoStart ± GlickoStartRD, σ GlickoStartVol.
//
// The rating period is one game, as Lichess rates: each rated game is rated on its own, at its
// end, with Glickman's steps 2 to 8 for one result (RateGame), so a player sees their rating
// move after every game. Between games a rating grows less certain with time: before a game
// each player's deviation grows, by Glickman's step 6 applied to the time since their last rated
// game counted in RatingPeriods, φ* = √(φ² + σ²·t) with t = idle / RatingPeriod (Age), and never
// beyond GlickoStartRD. RatingPeriod is five days (about Lichess's 0.21436 periods a day): a
// player of RD 50 who stops playing is provisional again after about a year and a half.
//
// τ, the system constant that bounds how fast the volatility may change, is GlickoTau = 0.5:
// Glickman advises 0.3 to 1.2, smaller for games whose results are steady; board games between
// people of any strength, with the odd blunder, sit at the lower middle of that range (Lichess
// uses 0.75 for its faster games, where results are more erratic).
//
// A rating is provisional while its deviation exceeds ProvisionalRD (110, as Lichess): about the
// first ten games of a new player against established ones. Leaderboards list provisional
// players apart.
//
// Which games are rated is the board's choice (Board.Rated): games between two users, people or
// programs playing through the web game server's API tokens (users too), never a game against
// the built-in bot. A tournament's games are rated the same way, one game at a time.

// Glicko-2's parameters (see above).
const (
	GlickoStart    = 1500.0
	GlickoStartRD  = 350.0
	GlickoStartVol = 0.06
	GlickoTau      = 0.5
	// ProvisionalRD is the deviation above which a rating is provisional.
	ProvisionalRD = 110.0
	// RatingPeriod is the time that counts as one rating period when a player's deviation grows
	// between games (Age).
	RatingPeriod = 5 * 24 * time.Hour
)

// glickoScale converts between the Glicko scale (ratings like 1500) and Glicko-2's internal
// one (μ = (r − 1500)/173.7178, φ = RD/173.7178); glickoEpsilon is the convergence tolerance
// of the volatility's iteration (step 5).
const (
	glickoScale   = 173.7178
	glickoEpsilon = 0.000001
)

// Glicko is a player's Glicko-2 rating: Rating ± RD, with volatility Vol.
type Glicko struct {
	Rating, RD, Vol float64
}

// NewGlicko is the rating of a player who has not played a rated game.
func NewGlicko() Glicko { return Glicko{Rating: GlickoStart, RD: GlickoStartRD, Vol: GlickoStartVol} }

// Provisional reports whether the rating is still provisional (RD above ProvisionalRD).
func (g Glicko) Provisional() bool { return g.RD > ProvisionalRD }

// Age returns the rating as it stands after idle without a rated game: the deviation grows by
// Glickman's step 6 for idle/RatingPeriod periods, up to GlickoStartRD. The rating and the
// volatility do not change. A zero or negative idle changes nothing.
func (g Glicko) Age(idle time.Duration) Glicko {
	if idle <= 0 {
		return g
	}
	t := float64(idle) / float64(RatingPeriod)
	phi := g.RD / glickoScale
	g.RD = min(glickoScale*math.Sqrt(phi*phi+g.Vol*g.Vol*t), GlickoStartRD)
	return g
}

// GameScore is one game of a rating period: the opponent's rating and the score (1 a win, 0.5 a
// draw, 0 a loss).
type GameScore struct {
	Opponent Glicko
	Score    float64
}

// Rate returns the rating after a rating period whose games were results (Glickman's steps 2 to
// 8). With no games only the deviation grows, by one period.
func (g Glicko) Rate(results []GameScore) Glicko {
	mu, phi, sigma := (g.Rating-GlickoStart)/glickoScale, g.RD/glickoScale, g.Vol
	if len(results) == 0 {
		g.RD = min(glickoScale*math.Sqrt(phi*phi+sigma*sigma), GlickoStartRD)
		return g
	}
	// Steps 3 and 4: the estimated variance v of the rating from the games alone, and the
	// estimated improvement Δ = v·Σ g(φj)(sj − E).
	var vInv, sum float64
	for _, r := range results {
		muJ, phiJ := (r.Opponent.Rating-GlickoStart)/glickoScale, r.Opponent.RD/glickoScale
		gJ := 1 / math.Sqrt(1+3*phiJ*phiJ/(math.Pi*math.Pi))
		e := 1 / (1 + math.Exp(-gJ*(mu-muJ)))
		vInv += gJ * gJ * e * (1 - e)
		sum += gJ * (r.Score - e)
	}
	v := 1 / vInv
	delta := v * sum
	// Step 5: the new volatility; steps 6 to 8: the new deviation and rating.
	sigma = volatility(delta, phi, v, sigma)
	phiStar := math.Sqrt(phi*phi + sigma*sigma)
	phi = 1 / math.Sqrt(1/(phiStar*phiStar)+1/v)
	mu += phi * phi * sum
	return Glicko{Rating: glickoScale*mu + GlickoStart, RD: min(glickoScale*phi, GlickoStartRD), Vol: sigma}
}

// volatility is step 5 of Glickman's paper: the σ' that solves f(x) = 0 by the Illinois
// algorithm, for the improvement delta, the deviation phi, the variance v and the volatility
// sigma.
func volatility(delta, phi, v, sigma float64) float64 {
	a := math.Log(sigma * sigma)
	tau2 := GlickoTau * GlickoTau
	f := func(x float64) float64 {
		ex := math.Exp(x)
		d := phi*phi + v + ex
		return ex*(delta*delta-phi*phi-v-ex)/(2*d*d) - (x-a)/tau2
	}
	A := a
	var B float64
	if delta*delta > phi*phi+v {
		B = math.Log(delta*delta - phi*phi - v)
	} else {
		k := 1.0
		for f(a-k*GlickoTau) < 0 {
			k++
		}
		B = a - k*GlickoTau
	}
	fA, fB := f(A), f(B)
	for i := 0; math.Abs(B-A) > glickoEpsilon && i < 100; i++ {
		C := A + (A-B)*fA/(fB-fA)
		fC := f(C)
		if fC*fB <= 0 {
			A, fA = B, fB
		} else {
			fA /= 2
		}
		B, fB = C, fC
	}
	return math.Exp(A / 2)
}

// RateGame rates one game, its own rating period: the first player, rated a, scored score
// against the second, rated b; both ratings should be aged to the game's end first (Age). It
// returns both new ratings.
func RateGame(a, b Glicko, score float64) (Glicko, Glicko) {
	return a.Rate([]GameScore{{Opponent: b, Score: score}}), b.Rate([]GameScore{{Opponent: a, Score: 1 - score}})
}
