package board

import (
	"fmt"
	"math"
	"testing"
	"time"
)

// Ensure the update equals Glickman's worked example ("Example of the Glicko-2 system"): a
// player rated 1500, RD 200, σ 0.06 beats one of 1400 (RD 30), loses to 1550 (RD 100) and to
// 1700 (RD 300), and ends at 1464.06, RD 151.52, σ 0.05999. The paper works its steps with
// figures rounded to four places and prints its results from them, so the exact values
// (1464.0507, 151.5165, 0.0599960) agree with each printed figure to within a unit of its last
// digit; its figures on the Glicko-2 scale (μ' −0.2069, φ' 0.8722) are met exactly.
func TestGlickmanExample(t *testing.T) {
	p := Glicko{Rating: 1500, RD: 200, Vol: 0.06}
	got := p.Rate([]GameScore{
		{Opponent: Glicko{Rating: 1400, RD: 30, Vol: 0.06}, Score: 1},
		{Opponent: Glicko{Rating: 1550, RD: 100, Vol: 0.06}, Score: 0},
		{Opponent: Glicko{Rating: 1700, RD: 300, Vol: 0.06}, Score: 0},
	})
	for _, c := range []struct {
		name       string
		got, paper float64
		lastDigit  float64
	}{
		{"rating", got.Rating, 1464.06, 0.01},
		{"RD", got.RD, 151.52, 0.01},
		{"volatility", got.Vol, 0.05999, 0.00001},
	} {
		if math.Abs(c.got-c.paper) >= c.lastDigit {
			t.Errorf("%s: %v, the paper prints %v", c.name, c.got, c.paper)
		}
	}
	mu, phi := (got.Rating-1500)/glickoScale, got.RD/glickoScale
	if s := fmt.Sprintf("%.4f %.4f", mu, phi); s != "-0.2069 0.8722" {
		t.Errorf("μ' φ' = %s, the paper prints -0.2069 0.8722", s)
	}
}

// Ensure one game rates both players symmetrically: the winner gains what an equal loser loses,
// both deviations shrink, and a draw between equals moves neither rating.
func TestRateGame(t *testing.T) {
	a, b := RateGame(NewGlicko(), NewGlicko(), 1)
	if a.Rating <= GlickoStart || b.Rating >= GlickoStart || math.Abs((a.Rating-GlickoStart)+(b.Rating-GlickoStart)) > 1e-9 {
		t.Errorf("a win between newcomers: %+v, %+v", a, b)
	}
	if a.RD >= GlickoStartRD || b.RD >= GlickoStartRD || !a.Provisional() {
		t.Errorf("deviations after one game: %v, %v (provisional %v)", a.RD, b.RD, a.Provisional())
	}
	// Lichess's figure for a first game between newcomers: about ±162.
	if math.Abs(a.Rating-1662.3) > 0.1 {
		t.Errorf("a newcomer's first win: %.2f, want about 1662.3", a.Rating)
	}
	d1, d2 := RateGame(Glicko{1700, 60, 0.06}, Glicko{1700, 60, 0.06}, 0.5)
	if math.Abs(d1.Rating-1700) > 1e-9 || math.Abs(d2.Rating-1700) > 1e-9 {
		t.Errorf("a draw between equals moved the ratings: %v, %v", d1.Rating, d2.Rating)
	}
	// An established player who beats a newcomer gains little; the newcomer loses much.
	e, n := RateGame(Glicko{1800, 50, 0.06}, NewGlicko(), 1)
	if e.Rating-1800 > 5 || 1500-n.Rating < 50 {
		t.Errorf("an established player beats a newcomer: %+v, %+v", e, n)
	}
	// About a dozen games against established players of 1500, won and lost in turn, make a
	// newcomer established, near 1500.
	p := NewGlicko()
	for i := range 14 {
		p, _ = RateGame(p, Glicko{1500, 60, 0.06}, float64(i%2))
	}
	if p.Provisional() || math.Abs(p.Rating-1500) > 40 {
		t.Errorf("after 14 games: %+v", p)
	}
}

// Ensure a deviation grows with idle time by step 6 (σ²·t per RatingPeriod), never past the
// start's.
func TestAge(t *testing.T) {
	g := Glicko{Rating: 1600, RD: 50, Vol: 0.06}
	if g.Age(0) != g || g.Age(-time.Hour) != g {
		t.Error("no idle time changed the rating")
	}
	one := g.Age(RatingPeriod)
	want := glickoScale * math.Sqrt(math.Pow(50/glickoScale, 2)+0.06*0.06)
	if math.Abs(one.RD-want) > 1e-9 || one.Rating != 1600 || one.Vol != 0.06 {
		t.Errorf("one period: %+v, want RD %v", one, want)
	}
	if y := g.Age(365 * 24 * time.Hour); y.RD < 95 || y.RD > 110 {
		t.Errorf("a year idle: RD %.1f, want about 100", y.RD)
	}
	if y := g.Age(540 * 24 * time.Hour); !y.Provisional() {
		t.Errorf("a year and a half idle: RD %.1f, still established", y.RD)
	}
	if c := g.Age(100 * 365 * 24 * time.Hour); c.RD != GlickoStartRD {
		t.Errorf("a century idle: RD %v, want %v", c.RD, GlickoStartRD)
	}
	if r := g.Rate(nil); math.Abs(r.RD-one.RD) > 1e-9 {
		t.Errorf("a period without games: RD %v, want %v", r.RD, one.RD)
	}
}
