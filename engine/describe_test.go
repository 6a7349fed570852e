package engine

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// The hand-written draughts of draughts.go written again as descriptions:
// the generic machinery must agree with the hand-written generators.
func describedRussian() *rules {
	return compile(description{
		name: "russian", title: "Russian draughts", players: [2]string{"White", "Black"},
		board:     boardSpec{width: 8, height: 8, squares: darkSquares},
		pieces:    draughtsPieces(allDiagonals, true, false),
		startRows: 3, startKind: kindMan, first: First,
		capture: captureSpec{mandatory: true, kingLanding: true},
		promo:   promoNow, end: endSpec{repetition: 3}, quiesce: qForced,
	})
}

func describedInternational(size int, numbered bool) *rules {
	return compile(description{
		name: "international", title: "International draughts", players: [2]string{"White", "Black"},
		board:     boardSpec{width: size, height: size, squares: darkSquares, numbered: numbered},
		pieces:    draughtsPieces(allDiagonals, true, false),
		startRows: size/2 - 1, startKind: kindMan, first: First,
		capture: captureSpec{mandatory: true, prefer: []preference{preferMostPieces}},
		promo:   promoAtEnd, end: endSpec{repetition: 3}, quiesce: qForced,
	})
}

func describedEnglish() *rules {
	return compile(description{
		name: "english", title: "English draughts", players: [2]string{"White", "Black"},
		board:     boardSpec{width: 8, height: 8, squares: darkSquares, numbered: true},
		pieces:    draughtsPieces(forwardDiagonals, false, false),
		startRows: 3, startKind: kindMan, first: Second,
		capture: captureSpec{mandatory: true},
		promo:   promoStop, end: endSpec{repetition: 3}, quiesce: qForced,
	})
}

func describedTurkish() *rules {
	orth := []int{dirN, dirE, dirS, dirW}
	men := []int{dirN, dirE, dirW}
	return compile(description{
		name: "turkish", title: "Turkish draughts", players: [2]string{"White", "Black"},
		board: boardSpec{width: 8, height: 8, squares: allSquares},
		pieces: []pieceSpec{
			{kind: kindMan, name: "man", letter: 'M', value: 100, promotesTo: kindKing, irreversible: true,
				moves: []pattern{{kind: patStep, dirs: men}}, captures: []pattern{{kind: patJump, dirs: men}}},
			{kind: kindKing, name: "king", letter: 'K', value: 300, king: true,
				moves: []pattern{{kind: patSlide, dirs: orth}}, captures: []pattern{{kind: patFlyingJump, dirs: orth}}},
		},
		startRows: 2, skipBack: true, startKind: kindMan, first: First,
		capture: captureSpec{mandatory: true, immediate: true, noReverse: true, prefer: []preference{preferMostPieces}},
		promo:   promoAtEnd, end: endSpec{repetition: 3}, quiesce: qForced,
	})
}

// gameOf starts a game of r from its start position.
func gameOf(tb testing.TB, r *rules, pos string) *Game {
	tb.Helper()
	if pos == "" {
		pos = r.start
	}
	s, err := r.load(pos)
	if err != nil {
		tb.Fatal(err)
	}
	return &Game{r: r, cfg: config{plyLimit: DefaultPlyLimit}, hist: []State{s}, c: r.newCtx()}
}

var describedPairs = []struct {
	variant   string
	described func() *rules
	depth     int
}{
	{"russian", describedRussian, 7},
	{"international", func() *rules { return describedInternational(10, true) }, 5},
	{"brazilian", func() *rules { return describedInternational(8, false) }, 6},
	{"english", describedEnglish, 7},
	{"turkish", describedTurkish, 5},
}

// TestDescribedPerftMatchesHandWritten: the described games count the
// published perft of the hand-written ones (perftTables).
func TestDescribedPerftMatchesHandWritten(t *testing.T) {
	for _, tc := range describedPairs {
		t.Run(tc.variant, func(t *testing.T) {
			t.Parallel()
			var want []uint64
			for _, pt := range perftTables {
				if pt.variant == tc.variant && pt.pos == "" {
					want = pt.want
				}
			}
			g := gameOf(t, tc.described(), "")
			if hand := mustGame(t, tc.variant); g.Position() != hand.Position() {
				t.Fatalf("start %q, hand-written %q", g.Position(), hand.Position())
			}
			depth := tc.depth
			if *deep {
				depth = len(want)
			}
			for d := 1; d <= depth && d <= len(want); d++ {
				if got := g.perft(d); got != want[d-1] {
					t.Fatalf("perft(%d) = %d, want %d", d, got, want[d-1])
				}
			}
		})
	}
}

// TestDescribedPlayoutsMatchHandWritten plays random games with the
// hand-written rules and checks at every position that the described
// rules give the same legal moves, notation included.
func TestDescribedPlayoutsMatchHandWritten(t *testing.T) {
	games := 20
	if *deep {
		games = 300
	}
	for ci, tc := range describedPairs {
		t.Run(tc.variant, func(t *testing.T) {
			t.Parallel()
			rng := rand.New(rand.NewPCG(uint64(ci), 7))
			dr := tc.described()
			for i := 0; i < games; i++ {
				g := mustGame(t, tc.variant, WithPlyLimit(300))
				for g.Status().Result == Ongoing {
					d := gameOf(t, dr, g.Position())
					if got, want := strings.Join(notations(d), " "), strings.Join(notations(g), " "); got != want {
						t.Fatalf("after %v:\n described   %s\n hand-written %s\n%s", g.History(), got, want, g.Diagram(First))
					}
					ms := g.LegalMoves()
					if err := g.Apply(ms[rng.IntN(len(ms))]); err != nil {
						t.Fatal(err)
					}
				}
			}
		})
	}
}

// refDraughts is a reference generator of the draughts family, written
// separately from the engine for the tests: a plain grid, a recursive
// search of capture chains and the capture preferences applied to the
// finished list. Moves are compared by their effect: origin, destination,
// the squares taken and the piece that arrives. Directions are (dx, dy)
// for White, forward is +dy; Black's are mirrored.
type refDraughts struct {
	w, h        int
	light       bool // a1 is not played
	all         bool // every square is played (Turkish, Armenian)
	manSteps    [][2]int
	manCaps     [][2]int
	kingSteps   [][2]int
	kingCaps    [][2]int
	flying      bool // kings fly
	landNext    bool // a flying capture lands right behind its victim
	immediate   bool // captured pieces leave at once
	noReverse   bool // a flying capture may not turn back
	spareKings  bool // men may not take kings
	promo       promoTiming
	kingLanding bool
	prefs       []preference
	// blocked: the king on this square may not make a non-capturing move
	// (Frisian's three moves rule, worked out from the game's history by
	// refThreeMoves).
	blocked    [2]int
	hasBlocked bool
}

var (
	refForward  = [][2]int{{-1, 1}, {1, 1}}
	refDiagonal = [][2]int{{1, 1}, {-1, 1}, {1, -1}, {-1, -1}}
)

type refCap struct {
	from, to   [2]int
	caps       [][2]int
	kingsTaken []bool
	byKing     bool
	final      int // 1 man, 2 king
}

func (rd refDraughts) moves(grid map[[2]int]int, side int) []string {
	or := func(d, def [][2]int) [][2]int {
		if d == nil {
			return def
		}
		return d
	}
	manSteps, manCaps := or(rd.manSteps, refForward), or(rd.manCaps, refForward)
	kingSteps, kingCaps := or(rd.kingSteps, refDiagonal), or(rd.kingCaps, refDiagonal)
	mirror := func(ds [][2]int) [][2]int {
		out := make([][2]int, len(ds))
		for i, d := range ds {
			out[i] = [2]int{d[0], d[1] * side}
		}
		return out
	}
	manSteps, manCaps = mirror(manSteps), mirror(manCaps)
	on := func(p [2]int) bool {
		return p[0] >= 0 && p[0] < rd.w && p[1] >= 0 && p[1] < rd.h && (rd.all || ((p[0]+p[1])%2 == 1) == rd.light)
	}
	lastRow := rd.h - 1
	if side < 0 {
		lastRow = 0
	}
	var caps []refCap
	var from [2]int
	var byKing bool
	var walk func(at [2]int, kind int, taken [][2]int, kings []bool, last [2]int)
	walk = func(at [2]int, kind int, taken [][2]int, kings []bool, last [2]int) {
		found := false
		empty := func(p [2]int) bool {
			return on(p) && (grid[p] == 0 || p == from || rd.immediate && slices.Contains(taken, p))
		}
		dirs := manCaps
		if kind == 2 {
			dirs = kingCaps
		}
		for _, d := range dirs {
			if kind == 2 && rd.flying && rd.noReverse && d == [2]int{-last[0], -last[1]} {
				continue
			}
			p := [2]int{at[0] + d[0], at[1] + d[1]}
			if kind == 2 && rd.flying {
				for empty(p) {
					p = [2]int{p[0] + d[0], p[1] + d[1]}
				}
			}
			if !on(p) || grid[p]*side >= 0 || slices.Contains(taken, p) {
				continue
			}
			victimKing := grid[p] == 2 || grid[p] == -2
			if kind == 1 && rd.spareKings && victimKing {
				continue
			}
			t2 := append(append([][2]int{}, taken...), p)
			var landings [][2]int
			for l := [2]int{p[0] + d[0], p[1] + d[1]}; on(l) && (grid[l] == 0 || l == from || rd.immediate && slices.Contains(t2, l)); l = [2]int{l[0] + d[0], l[1] + d[1]} {
				landings = append(landings, l)
				if kind == 1 || !rd.flying || rd.landNext {
					break
				}
			}
			// The Russian landing rule: land where the capture goes on,
			// if any landing allows it.
			var chains [][]refCap
			for _, l := range landings {
				before := len(caps)
				nk := kind
				stop := false
				if kind == 1 && l[1] == lastRow && rd.promo != promoAtEnd {
					nk = 2
					stop = rd.promo == promoStop
				}
				k2 := append(append([]bool{}, kings...), victimKing)
				if stop {
					caps = append(caps, refCap{from: from, to: l, caps: t2, kingsTaken: k2, byKing: byKing, final: 2})
				} else {
					walk(l, nk, t2, k2, d)
				}
				chains = append(chains, slices.Clone(caps[before:]))
				caps = caps[:before]
			}
			cont := false
			for _, ch := range chains {
				if len(ch) > 0 && len(ch[0].caps) > len(taken)+1 {
					cont = true
				}
			}
			for _, ch := range chains {
				if rd.kingLanding && cont && len(ch) > 0 && len(ch[0].caps) == len(taken)+1 {
					continue
				}
				caps = append(caps, ch...)
			}
			found = found || len(landings) > 0
		}
		if !found && len(taken) > 0 {
			final := kind
			if kind == 1 && at[1] == lastRow {
				final = 2
			}
			caps = append(caps, refCap{from: from, to: at, caps: taken, kingsTaken: kings, byKing: byKing, final: final})
		}
	}
	var quiet []refCap
	for p, v := range grid {
		if v*side <= 0 {
			continue
		}
		kind := v * side
		from, byKing = p, kind == 2
		walk(p, kind, nil, nil, [2]int{})
		dirs := manSteps
		if kind == 2 {
			dirs = kingSteps
		}
		if rd.hasBlocked && p == rd.blocked {
			dirs = nil
		}
		for _, d := range dirs {
			for q := [2]int{p[0] + d[0], p[1] + d[1]}; on(q) && grid[q] == 0; q = [2]int{q[0] + d[0], q[1] + d[1]} {
				final := kind
				if q[1] == lastRow {
					final = 2
				}
				quiet = append(quiet, refCap{from: p, to: q, final: final})
				if kind == 1 || !rd.flying {
					break
				}
			}
		}
	}
	list := quiet
	if len(caps) > 0 {
		list = caps
		for _, pr := range rd.prefs {
			val := func(c refCap) int {
				switch pr {
				case preferMostPieces:
					return len(c.caps)
				case preferKingCaptures:
					if c.byKing {
						return 1
					}
				case preferMostKings:
					n := 0
					for _, k := range c.kingsTaken {
						if k {
							n++
						}
					}
					return n
				case preferEarlyKing:
					if i := slices.Index(c.kingsTaken, true); i >= 0 {
						return -i
					}
					return -maxPath
				case preferValue:
					v := 0
					for _, k := range c.kingsTaken {
						v += 100
						if k {
							v += 99
						}
					}
					return v
				}
				return 0
			}
			best := -1 << 30
			for _, c := range list {
				best = max(best, val(c))
			}
			var kept []refCap
			for _, c := range list {
				if val(c) == best {
					kept = append(kept, c)
				}
			}
			list = kept
		}
	}
	seen := map[string]bool{}
	var out []string
	for _, c := range list {
		var cs []string
		for _, p := range c.caps {
			cs = append(cs, fmt.Sprint(p))
		}
		sort := slices.Sorted(slices.Values(cs))
		k := fmt.Sprint(c.from, c.to, sort, c.final)
		if !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// engineEffects writes the engine's legal moves as refDraughts does.
func engineEffects(g *Game) (map[[2]int]int, int, []string) {
	t := g.r.topo
	s := g.cur()
	grid := map[[2]int]int{}
	pos := func(sq int) [2]int { return [2]int{int(t.col[sq]), int(t.row[sq])} }
	for sq := 0; sq < t.n(); sq++ {
		if pc := s.Board[sq]; pc != 0 {
			v := int(pc.Kind())
			if pc.Owner() == Second {
				v = -v
			}
			grid[pos(sq)] = v
		}
	}
	side := 1
	if s.Turn == Second {
		side = -1
	}
	var out []string
	for _, m := range g.legalMoves() {
		var cs []string
		for i := 0; i < int(m.m.ncap); i++ {
			cs = append(cs, fmt.Sprint(pos(m.m.capturedAt(i))))
		}
		sort := slices.Sorted(slices.Values(cs))
		out = append(out, fmt.Sprint(pos(m.m.from()), pos(m.m.to()), sort, int(m.m.pc[m.m.nchg-1].Kind())))
	}
	slices.Sort(out)
	return grid, side, out
}

var referencePairs = []struct {
	variant string
	ref     refDraughts
}{
	{"russian", refDraughts{w: 8, h: 8, manCaps: refDiagonal, flying: true, promo: promoNow, kingLanding: true}},
	{"international", refDraughts{w: 10, h: 10, manCaps: refDiagonal, flying: true, promo: promoAtEnd, prefs: []preference{preferMostPieces}}},
	{"canadian", refDraughts{w: 12, h: 12, manCaps: refDiagonal, flying: true, promo: promoAtEnd, prefs: []preference{preferMostPieces}}},
	{"pool", refDraughts{w: 8, h: 8, manCaps: refDiagonal, flying: true, promo: promoAtEnd, kingLanding: true}},
	{"czech", refDraughts{w: 8, h: 8, flying: true, promo: promoAtEnd, kingLanding: true, prefs: []preference{preferKingCaptures}}},
	{"spanish", refDraughts{w: 8, h: 8, light: true, flying: true, promo: promoAtEnd, prefs: []preference{preferMostPieces, preferMostKings}}},
	{"italian", refDraughts{w: 8, h: 8, light: true, spareKings: true, promo: promoStop,
		prefs: []preference{preferMostPieces, preferKingCaptures, preferMostKings, preferEarlyKing}}},
	{"turkish", refDraughts{w: 8, h: 8, all: true, manSteps: refTurkishMen, manCaps: refTurkishMen, kingSteps: refOrthogonal,
		kingCaps: refOrthogonal, flying: true, immediate: true, noReverse: true, promo: promoAtEnd, prefs: []preference{preferMostPieces}}},
	{"thai", refDraughts{w: 8, h: 8, flying: true, landNext: true, immediate: true, promo: promoStop}},
	{"armenian", refDraughts{w: 8, h: 8, all: true, manSteps: [][2]int{{-1, 1}, {0, 1}, {1, 1}, {1, 0}, {-1, 0}}, manCaps: refTurkishMen,
		kingSteps: refQueen, kingCaps: refOrthogonal, flying: true, immediate: true, noReverse: true, promo: promoAtEnd,
		prefs: []preference{preferMostPieces}}},
	{"frisian", refDraughts{w: 10, h: 10, manCaps: refFrisian, kingCaps: refFrisian, flying: true, promo: promoAtEnd,
		prefs: []preference{preferValue, preferKingCaptures}}},
}

// refFrisian are the capture directions of Frisian draughts on the grid:
// the diagonals and, along files and ranks, two squares at a time (the
// next square of the same colour).
var refFrisian = [][2]int{{1, 1}, {-1, 1}, {1, -1}, {-1, -1}, {0, 2}, {2, 0}, {0, -2}, {-2, 0}}

// refThreeMoves works out Frisian's three moves rule from the positions
// of the game, apart from the engine's memory of it (State.Aux): while
// the side to move has men, a king that made each of the side's last
// three moves, none of them a capture, may not make a fourth. It returns
// that king's square.
func refThreeMoves(g *Game) ([2]int, bool) {
	t := g.r.topo
	pos := func(sq int) [2]int { return [2]int{int(t.col[sq]), int(t.row[sq])} }
	me := g.cur().Turn
	count := func(s *State, p Player, k Kind) int {
		n := 0
		for sq := 0; sq < t.n(); sq++ {
			if s.Board[sq] == makePiece(p, k) {
				n++
			}
		}
		return n
	}
	if count(g.cur(), me, kindMan) == 0 {
		return [2]int{}, false
	}
	last, expect, run := none, none, 0
	for i := len(g.hist) - 3; i >= 0 && run < 3; i -= 2 {
		before, after := &g.hist[i], &g.hist[i+1]
		if before.Turn != me || count(before, me.other(), kindMan)+count(before, me.other(), kindKing) !=
			count(after, me.other(), kindMan)+count(after, me.other(), kindKing) {
			break
		}
		from, to := none, none
		for sq := 0; sq < t.n(); sq++ {
			if before.Board[sq] != after.Board[sq] {
				if before.Board[sq] == makePiece(me, kindKing) {
					from = sq
				} else if after.Board[sq] == makePiece(me, kindKing) {
					to = sq
				}
			}
		}
		if from == none || to == none || expect != none && to != expect {
			break
		}
		if last == none {
			last = to
		}
		expect = from
		run++
	}
	if run == 3 {
		return pos(last), true
	}
	return [2]int{}, false
}

var (
	refOrthogonal = [][2]int{{0, 1}, {1, 0}, {0, -1}, {-1, 0}}
	refTurkishMen = [][2]int{{0, 1}, {1, 0}, {-1, 0}}
	refQueen      = [][2]int{{0, 1}, {1, 1}, {1, 0}, {1, -1}, {0, -1}, {-1, -1}, {-1, 0}, {-1, 1}}
)

// TestDraughtsFamilyAgreesWithReference plays random games of each
// variant and checks at every position that the engine's legal moves are
// the reference generator's.
func TestDraughtsFamilyAgreesWithReference(t *testing.T) {
	games := 15
	if *deep {
		games = 200
	}
	for ci, tc := range referencePairs {
		t.Run(tc.variant, func(t *testing.T) {
			t.Parallel()
			rng := rand.New(rand.NewPCG(uint64(ci), 11))
			for i := 0; i < games; i++ {
				g := mustGame(t, tc.variant, WithPlyLimit(400))
				for g.Status().Result == Ongoing {
					grid, side, got := engineEffects(g)
					ref := tc.ref
					if tc.variant == "frisian" {
						ref.blocked, ref.hasBlocked = refThreeMoves(g)
					}
					want := ref.moves(grid, side)
					if !slices.Equal(got, want) {
						t.Fatalf("after %v:\n engine    %v\n reference %v\n%s", g.History(), got, want, g.Diagram(First))
					}
					ms := g.LegalMoves()
					if err := g.Apply(ms[rng.IntN(len(ms))]); err != nil {
						t.Fatal(err)
					}
				}
			}
		})
	}
}

// refBreakthrough is the reference generator of Breakthrough: every move
// as origin, destination and whether it captures.
func refBreakthrough(grid map[[2]int]int, side int) []string {
	var out []string
	for p, v := range grid {
		if v != side {
			continue
		}
		for dx := -1; dx <= 1; dx++ {
			q := [2]int{p[0] + dx, p[1] + side}
			if q[0] < 0 || q[0] > 7 || q[1] < 0 || q[1] > 7 {
				continue
			}
			switch {
			case grid[q] == 0:
				out = append(out, fmt.Sprint(p, q, false))
			case grid[q] == -side && dx != 0:
				out = append(out, fmt.Sprint(p, q, true))
			}
		}
	}
	slices.Sort(out)
	return out
}

// TestBreakthroughAgreesWithReference compares the described Breakthrough
// with the reference generator on random games (50, 1000 with -deep),
// and checks how they end.
func TestBreakthroughAgreesWithReference(t *testing.T) {
	t.Parallel()
	games := 50
	if *deep {
		games = 1000
	}
	rng := rand.New(rand.NewPCG(3, 5))
	for i := 0; i < games; i++ {
		g := mustGame(t, "breakthrough")
		for g.Status().Result == Ongoing {
			grid, side, _ := engineEffects(g)
			var got []string
			topo := g.r.topo
			pos := func(sq int) [2]int { return [2]int{int(topo.col[sq]), int(topo.row[sq])} }
			for _, m := range g.LegalMoves() {
				got = append(got, fmt.Sprint(pos(m.m.from()), pos(m.m.to()), m.isCapture()))
			}
			slices.Sort(got)
			if want := refBreakthrough(grid, side); !slices.Equal(got, want) {
				t.Fatalf("after %v:\n engine    %v\n reference %v", g.History(), got, want)
			}
			ms := g.LegalMoves()
			if err := g.Apply(ms[rng.IntN(len(ms))]); err != nil {
				t.Fatal(err)
			}
		}
		st := g.Status()
		if st.Result != Win || (st.Rule != RuleGoal && st.Rule != RuleNoMoves) {
			t.Fatalf("game ended %+v", st)
		}
		if st.Rule == RuleGoal && goalReached(g.r, g.cur()) != int(st.Winner) {
			t.Fatalf("goal win for %v without its piece on the far rank", st.Winner)
		}
	}
}
