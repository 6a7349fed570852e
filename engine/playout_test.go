package engine

import (
	"math/rand/v2"
	"testing"
)

// playoutConfigs are the games and options the random-playout properties
// run over.
var playoutConfigs = []struct {
	name    string
	variant string
	opts    []Option
}{
	{"russian", "russian", nil},
	{"turkish", "turkish", nil},
	{"international", "international", nil},
	{"brazilian", "brazilian", nil},
	{"english", "english", nil},
	{"chess", "chess", nil},
	{"chase", "chase", nil},
	{"chase white first", "chase", []Option{WithFirstPlayer(Second)}},
	{"foxgeese13", "foxgeese13", nil},
	{"foxgeese13 diagonal longest", "foxgeese13", []Option{WithDiagonals(true), WithLongestCapture(true)}},
	{"foxgeese15 must capture", "foxgeese15", []Option{WithFoxMustCapture(true)}},
	{"foxgeese17 backward", "foxgeese17", []Option{WithGeeseBackward(true)}},
	{"othello", "othello", nil},
	{"breakthrough", "breakthrough", nil},
	{"canadian", "canadian", nil},
	{"pool", "pool", nil},
	{"czech", "czech", nil},
	{"spanish", "spanish", nil},
	{"italian", "italian", nil},
	{"thai", "thai", nil},
	{"armenian", "armenian", nil},
	{"atarigo", "atarigo", nil},
	{"gardner", "gardner", nil},
	{"chess960", "chess960", []Option{WithSeed(311)}},
	{"frisian", "frisian", nil},
}

// TestRandomPlayouts plays random games and checks after every move: the
// incremental hash equals a recomputed one, the position string and every
// legal move's notation round-trip, undo restores the position, pieces
// are never created (draughts) and Chase's pip invariants hold; every game
// ends within the ply limit. By default six short games per
// configuration; with -deep 250 full-length games each (3,000 in all).
func TestRandomPlayouts(t *testing.T) {
	games, plies := 6, 120
	if *deep {
		games, plies = 250, DefaultPlyLimit
	}
	for ci, cfg := range playoutConfigs {
		t.Run(cfg.name, func(t *testing.T) {
			t.Parallel()
			rng := rand.New(rand.NewPCG(uint64(ci), 42))
			for i := 0; i < games; i++ {
				opts := append([]Option{WithPlyLimit(plies)}, cfg.opts...)
				g := mustGame(t, cfg.variant, opts...)
				playRandom(t, g, cfg.variant, opts, rng, plies)
				if t.Failed() {
					return
				}
			}
		})
	}
}

func playRandom(t *testing.T, g *Game, variant string, opts []Option, rng *rand.Rand, plies int) {
	t.Helper()
	for g.Status().Result == Ongoing {
		if g.Ply() > plies {
			t.Fatalf("game did not end at the ply limit")
		}
		checkPosition(t, g, variant, opts)
		ms := g.LegalMoves()
		checkNotation(t, g, ms)
		m := ms[rng.IntN(len(ms))]
		before := g.State()
		if err := g.Apply(m); err != nil {
			t.Fatalf("Apply(%v): %v", m, err)
		}
		checkMove(t, g, variant, &before, m)
		if rng.IntN(8) == 0 {
			if err := g.Undo(); err != nil {
				t.Fatal(err)
			}
			if g.State() != before {
				t.Fatalf("undo of %v did not restore the position", m)
			}
			if err := g.Apply(m); err != nil {
				t.Fatalf("re-apply %v: %v", m, err)
			}
		}
		if t.Failed() {
			t.Logf("moves: %v\n%s", g.History(), g.Diagram(First))
			return
		}
	}
	if g.Ply() > plies {
		t.Errorf("game ran %d plies, limit %d", g.Ply(), plies)
	}
}

// checkPosition: hash and position string.
func checkPosition(t *testing.T, g *Game, variant string, opts []Option) {
	t.Helper()
	s := g.State()
	if h := g.r.z.hashOf(&s, g.r.topo.n()); h != s.Hash {
		t.Errorf("incremental hash %x, recomputed %x", s.Hash, h)
	}
	pos := g.Position()
	g2, err := NewGame(variant, append([]Option{WithPosition(pos)}, opts...)...)
	if err != nil {
		t.Errorf("position %q does not load: %v", pos, err)
		return
	}
	s2 := g2.State()
	if s2.Board != s.Board || s2.Turn != s.Turn || s2.Aux != s.Aux || s2.Hash != s.Hash {
		t.Errorf("position %q does not round-trip", pos)
	}
	if variant == "chess" && (s2.Clock != s.Clock || s2.Ply/2 != s.Ply/2) {
		t.Errorf("FEN counters do not round-trip: %q", pos)
	}
}

// checkNotation: every legal move's notation is unique and parses back.
func checkNotation(t *testing.T, g *Game, ms []Move) {
	t.Helper()
	seen := map[string]bool{}
	for _, m := range ms {
		if seen[m.String()] {
			t.Errorf("two moves written %q", m)
		}
		seen[m.String()] = true
		pm, err := g.ParseMove(m.String())
		if err != nil || !pm.m.equal(&m.m) {
			t.Errorf("ParseMove(%q) = %v, %v", m, pm, err)
		}
	}
}

// checkMove: material and game-specific invariants after a move.
func checkMove(t *testing.T, g *Game, variant string, before *State, m Move) {
	t.Helper()
	s := g.State()
	count := func(st *State) (n [2]int) {
		for sq := 0; sq < g.r.topo.n(); sq++ {
			if pc := st.Board[sq]; pc != 0 {
				n[pc.Owner()]++
			}
		}
		return n
	}
	a, b := count(before), count(&s)
	if variant == "atarigo" {
		// A placement adds one stone; a capture ends the game.
		if m.String() != "pass" && b[before.Turn] != a[before.Turn]+1 {
			t.Errorf("%v: stones %v -> %v", m, a, b)
		}
		return
	}
	if variant == "othello" {
		// A placement adds one disc and turns the flipped ones over.
		if m.String() == "pass" && s.Board != before.Board || m.String() != "pass" && b[0]+b[1] != a[0]+a[1]+1 {
			t.Errorf("%v: discs %v -> %v", m, a, b)
		}
		return
	}
	if variant != "chase" && (b[0] > a[0] || b[1] > a[1]) {
		t.Errorf("%v created pieces: %v -> %v", m, a, b)
	}
	if m.isCapture() != (b[before.Turn.other()] < a[before.Turn.other()]) && variant != "chase" {
		t.Errorf("%v: capture flag %v but pieces %v -> %v", m, m.isCapture(), a, b)
	}
	if variant == "chase" {
		sum, dice := pipTotals(&s)
		for p := 0; p < 2; p++ {
			if dice[p] > 10 || dice[p] >= 5 && sum[p] != 25 {
				t.Errorf("after %v side %d has %d dice, %d pips", m, p, dice[p], sum[p])
			}
		}
		if s.Board[4*9+4] != 0 {
			t.Errorf("after %v a die is in the Chamber", m)
		}
	}
}
