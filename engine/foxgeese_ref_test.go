package engine

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// refFox is a second Fox and Geese generator, written from the rules for
// the tests and sharing nothing with the engine's: the cross is a 7x7
// grid without its corners, read from the position string; the fox's
// capture chains are found by a plain recursive search.
type refFox struct {
	b    [7][7]byte // [column][row], row 0 at the bottom: 0, 'G' or 'F'
	fox  bool       // the fox is to move
	opts refFoxOptions
}

// refFoxOptions are the game's options as the reference reads them.
type refFoxOptions struct {
	diagonals, longest, mustCapture, backward bool
}

// refOnCross reports whether (x, y) is a point of the cross.
func refOnCross(x, y int) bool {
	return x >= 0 && x < 7 && y >= 0 && y < 7 && (x >= 2 && x <= 4 || y >= 2 && y <= 4)
}

// readRefFox reads the public position format: the rows from the top,
// "." "G" "F" for each point of the row from the left, then "g" or "f".
func readRefFox(tb testing.TB, pos string, opts refFoxOptions) refFox {
	tb.Helper()
	f := strings.Fields(pos)
	rows := strings.Split(f[0], "/")
	if len(f) != 2 || len(rows) != 7 {
		tb.Fatalf("position %q", pos)
	}
	g := refFox{fox: f[1] == "f", opts: opts}
	for i, row := range rows {
		y := 6 - i
		x0 := 2
		if y >= 2 && y <= 4 {
			x0 = 0
		}
		for j := 0; j < len(row); j++ {
			if row[j] != '.' {
				g.b[x0+j][y] = row[j]
			}
		}
	}
	return g
}

// readFoxState reads the board of s point by point, by the coordinates
// of the points (faster than the position string, for the positions
// after every move).
func readFoxState(g *Game, s *State, opts refFoxOptions) refFox {
	f := refFox{fox: s.Turn == Second, opts: opts}
	t := g.r.topo
	for sq := 0; sq < t.n(); sq++ {
		if pc := s.Board[sq]; pc != 0 {
			f.b[t.col[sq]][t.row[sq]] = glyphFox(pc)
		}
	}
	return f
}

// String writes the board row by row from the top and the side to move.
func (g refFox) String() string {
	var sb strings.Builder
	for y := 6; y >= 0; y-- {
		for x := 0; x < 7; x++ {
			switch {
			case !refOnCross(x, y):
				sb.WriteByte(' ')
			case g.b[x][y] == 0:
				sb.WriteByte('.')
			default:
				sb.WriteByte(g.b[x][y])
			}
		}
		sb.WriteByte('/')
	}
	if g.fox {
		sb.WriteByte('f')
	} else {
		sb.WriteByte('g')
	}
	return sb.String()
}

// lines are the directions the board has: orthogonal, and with the
// diagonals option the four diagonals too.
func (g *refFox) lines() [][2]int {
	d := [][2]int{{0, 1}, {1, 0}, {0, -1}, {-1, 0}}
	if g.opts.diagonals {
		d = append(d, [2]int{1, 1}, [2]int{1, -1}, [2]int{-1, -1}, [2]int{-1, 1})
	}
	return d
}

// refFoxMove is a move by its effect: the position after it and how many
// geese it took.
type refFoxMove struct {
	after refFox
	taken int
}

// key packs a move's effect into a number: the geese as bits of the 7x7
// grid, the fox's point and the geese taken.
func (m refFoxMove) key() uint64 {
	var k uint64
	for x := 0; x < 7; x++ {
		for y := 0; y < 7; y++ {
			switch m.after.b[x][y] {
			case 'G':
				k |= 1 << (x*7 + y)
			case 'F':
				k |= uint64(x*7+y) << 49
			}
		}
	}
	return k | uint64(m.taken)<<56
}

// moves lists the legal moves' effects, each once, sorted.
func (g refFox) moves() []refFoxMove {
	var out []refFoxMove
	next := g
	next.fox = !g.fox
	if !g.fox {
		for x := 0; x < 7; x++ {
			for y := 0; y < 7; y++ {
				if g.b[x][y] != 'G' {
					continue
				}
				for _, d := range g.lines() {
					if d[1] < 0 && !g.opts.backward {
						continue // geese go forwards or sideways
					}
					tx, ty := x+d[0], y+d[1]
					if refOnCross(tx, ty) && g.b[tx][ty] == 0 {
						n := next
						n.b[x][y], n.b[tx][ty] = 0, 'G'
						out = append(out, refFoxMove{n, 0})
					}
				}
			}
		}
		return out
	}
	var fx, fy int
	for x := 0; x < 7; x++ {
		for y := 0; y < 7; y++ {
			if g.b[x][y] == 'F' {
				fx, fy = x, y
			}
		}
	}
	// Captures: the fox leaves its point, jumps a goose not yet taken to
	// the free point right behind it, and goes on while it can; the geese
	// taken stay on the board until the move ends.
	board := g.b
	board[fx][fy] = 0
	var taken [7][7]bool
	var captures []refFoxMove
	var jump func(x, y, n int)
	jump = func(x, y, n int) {
		more := false
		for _, d := range g.lines() {
			ox, oy, tx, ty := x+d[0], y+d[1], x+2*d[0], y+2*d[1]
			if !refOnCross(tx, ty) || board[ox][oy] != 'G' || taken[ox][oy] || board[tx][ty] != 0 {
				continue
			}
			more = true
			taken[ox][oy] = true
			jump(tx, ty, n+1)
			taken[ox][oy] = false
		}
		if !more && n > 0 {
			after := next
			after.b = board
			for cx := 0; cx < 7; cx++ {
				for cy := 0; cy < 7; cy++ {
					if taken[cx][cy] {
						after.b[cx][cy] = 0
					}
				}
			}
			after.b[x][y] = 'F'
			captures = append(captures, refFoxMove{after, n})
		}
	}
	jump(fx, fy, 0)
	if g.opts.longest {
		best := 0
		for _, m := range captures {
			best = max(best, m.taken)
		}
		captures = slices.DeleteFunc(captures, func(m refFoxMove) bool { return m.taken < best })
	}
	out = append(out, captures...)
	if len(captures) == 0 || !g.opts.mustCapture {
		for _, d := range g.lines() {
			tx, ty := fx+d[0], fy+d[1]
			if refOnCross(tx, ty) && g.b[tx][ty] == 0 {
				n := next
				n.b[fx][fy], n.b[tx][ty] = 0, 'F'
				out = append(out, refFoxMove{n, 0})
			}
		}
	}
	return out
}

// refFoxKeys returns the keys of the moves, sorted, each effect once.
func refFoxKeys(ms []refFoxMove) []uint64 {
	keys := make([]uint64, len(ms))
	for i, m := range ms {
		keys[i] = m.key()
	}
	slices.Sort(keys)
	return slices.Compact(keys)
}

// refFoxStrings writes moves for a failure message: the position after
// each and the geese taken.
func refFoxStrings(ms []refFoxMove) []string {
	var out []string
	for _, m := range ms {
		out = append(out, m.after.String()+" x"+strconv.Itoa(m.taken))
	}
	slices.Sort(out)
	return out
}

// TestFoxGeeseAgreesWithReference plays random games of each Fox and
// Geese variant (60 each with the default rules, 20 with each option
// the bot offers; ten times as many with -deep) and checks at every position that the engine's legal
// moves have exactly the effects the reference generator finds, each
// once; and that the game ends by the rules (too few geese, or the side
// to move blocked).
func TestFoxGeeseAgreesWithReference(t *testing.T) {
	t.Parallel()
	type config struct {
		variant string
		opts    refFoxOptions
		games   int
	}
	var configs []config
	for _, v := range []string{"foxgeese13", "foxgeese15", "foxgeese17"} {
		configs = append(configs, config{v, refFoxOptions{}, 60})
	}
	for _, o := range []refFoxOptions{{diagonals: true}, {longest: true}, {mustCapture: true}, {backward: true},
		{diagonals: true, longest: true, mustCapture: true, backward: true}} {
		configs = append(configs, config{"foxgeese13", o, 20})
	}
	threshold := map[string]int{"foxgeese13": 6, "foxgeese15": 7, "foxgeese17": 8}
	for ci, tc := range configs {
		rng := rand.New(rand.NewPCG(uint64(ci), 17))
		games := tc.games
		if *deep {
			games *= 10
		}
		for i := 0; i < games; i++ {
			g := mustGame(t, tc.variant, WithPlyLimit(200), WithDiagonals(tc.opts.diagonals), WithLongestCapture(tc.opts.longest),
				WithFoxMustCapture(tc.opts.mustCapture), WithGeeseBackward(tc.opts.backward))
			for g.Status().Result == Ongoing {
				ref := readFoxState(g, g.cur(), tc.opts).moves()
				ms := g.LegalMoves()
				var got []refFoxMove
				for _, m := range ms {
					s := g.State()
					g.r.apply(&s, &m.m)
					got = append(got, refFoxMove{readFoxState(g, &s, tc.opts), m.Captures()})
				}
				if gk, wk := refFoxKeys(got), refFoxKeys(ref); len(gk) != len(got) || !slices.Equal(gk, wk) {
					t.Fatalf("%s %+v after %v: %s\n%s", tc.variant, tc.opts, g.History(),
						setDiff(refFoxStrings(got), refFoxStrings(ref)), g.Diagram(First))
				}
				if err := g.Apply(ms[rng.IntN(len(ms))]); err != nil {
					t.Fatal(err)
				}
			}
			st := g.Status()
			ref := readRefFox(t, g.Position(), tc.opts)
			geese := strings.Count(g.Position(), "G")
			switch {
			case geese < threshold[tc.variant]:
				if st.Result != Win || st.Winner != Second || st.Rule != RuleFewGeese {
					t.Fatalf("%s: %d geese left, status %+v", tc.variant, geese, st)
				}
			case len(ref.moves()) == 0:
				if st.Result != Win || st.Winner == g.ToMove() {
					t.Fatalf("%s: the side to move is blocked, status %+v\n%s", tc.variant, st, g.Diagram(First))
				}
			case st.Result != Draw:
				t.Fatalf("%s: game over with moves left: %+v\n%s", tc.variant, st, g.Diagram(First))
			}
		}
	}
}
