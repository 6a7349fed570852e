package engine

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// refChase is a second Chase generator, written from the rules (chase.go's
// summary of the printed rules and the Zillions file) for the tests and
// sharing nothing with the engine's: the hexes are points of a doubled
// coordinate grid, x from 0 to 17 around the cylinder and y the row, and
// a diagonal step off the top or bottom row is reflected back into the
// board.
type refChase struct {
	b   [9][9]int8 // [row][cell]: 0, 1..6 a Red die, -1..-6 a White die
	red bool       // Red is to move
}

// refHexDirs are the six directions as (dx, dy) steps of the doubled grid,
// counterclockwise from east: e, ne, nw, w, sw, se. The direction 120
// degrees to the left of direction i is i+2.
var refHexDirs = [6][2]int{{2, 0}, {1, 1}, {-1, 1}, {-2, 0}, {-1, -1}, {1, -1}}

// refChamber is the Chamber, E5.
var refChamber = [2]int{4, 4}

// refHexStep takes one step from the cell (row, cell) in direction d and
// returns the new cell and the direction in force after a ricochet: the
// rows A, C, E, G and I sit at odd x, the others at even x.
func refHexStep(at [2]int, d int) ([2]int, int) {
	x := 2*at[1] + 1 - at[0]%2
	dx, dy := refHexDirs[d][0], refHexDirs[d][1]
	if y := at[0] + dy; y < 0 || y > 8 {
		// Reflect: the same dx with the opposite dy.
		for i, v := range refHexDirs {
			if v == [2]int{dx, -dy} {
				d = i
			}
		}
		dy = -dy
	}
	y := at[0] + dy
	x = ((x+dx)%18 + 18) % 18
	return [2]int{y, (x - 1 + y%2) / 2}, d
}

// readRefChase reads the public position format: rows A to I separated
// by "/", then "r" or "w".
func readRefChase(tb testing.TB, pos string) refChase {
	tb.Helper()
	f := strings.Fields(pos)
	rows := strings.Split(f[0], "/")
	if len(f) != 2 || len(rows) != 9 {
		tb.Fatalf("position %q", pos)
	}
	g := refChase{red: f[1] == "r"}
	for r, row := range rows {
		for c := 0; c < 9; c++ {
			switch ch := row[c]; {
			case ch >= '1' && ch <= '6':
				g.b[r][c] = int8(ch - '0')
			case ch >= 'a' && ch <= 'f':
				g.b[r][c] = -int8(ch - 'a' + 1)
			}
		}
	}
	return g
}

// String writes the position in the public format.
func (g refChase) String() string {
	var sb strings.Builder
	for r := 0; r < 9; r++ {
		if r > 0 {
			sb.WriteByte('/')
		}
		for c := 0; c < 9; c++ {
			switch v := g.b[r][c]; {
			case v > 0:
				sb.WriteByte(byte('0' + v))
			case v < 0:
				sb.WriteByte(byte('a' - 1 - v))
			default:
				sb.WriteByte('.')
			}
		}
	}
	if g.red {
		sb.WriteString(" r")
	} else {
		sb.WriteString(" w")
	}
	return sb.String()
}

// dice counts the dice of Red (sign 1) or White (sign -1).
func (g *refChase) dice(sign int8) int {
	n := 0
	for r := 0; r < 9; r++ {
		for c := 0; c < 9; c++ {
			if g.b[r][c]*sign > 0 {
				n++
			}
		}
	}
	return n
}

// refChaseKey is a move by its effect: the cell of the die moved, the
// cell it stops on (E5 for the Chamber) or the neighbour of an exchange,
// whether it is an exchange, and the board after the move (81 cells from
// A1, as in refChase.b).
type refChaseKey [84]byte

// String writes the key for a failure message: "A1-A3 <board>" or
// "A3>A4 <board>".
func (k refChaseKey) String() string {
	name := func(i byte) string { return string(rune('A'+i/9)) + strconv.Itoa(int(i%9)+1) }
	var g refChase
	for i := range 81 {
		g.b[i/9][i%9] = int8(k[3+i])
	}
	sep := "-"
	if k[2] != 0 {
		sep = ">"
	}
	return name(k[0]) + sep + name(k[1]) + " " + g.String()[:89]
}

// refChaseKeys sorts keys and keeps each once.
func refChaseKeys(ks []refChaseKey) []refChaseKey {
	slices.SortFunc(ks, func(a, b refChaseKey) int { return bytes.Compare(a[:], b[:]) })
	return slices.Compact(ks)
}

// refChaseStrings writes keys for a failure message.
func refChaseStrings(ks []refChaseKey) []string {
	var out []string
	for _, k := range ks {
		out = append(out, k.String())
	}
	return out
}

// moves lists the moves of the side to move by their effect, sorted,
// each once; none when a side has fewer than five dice. Moving different
// dice is a different move even where the positions after them are the
// same (the home row rotated by either end die).
func (g refChase) moves() []refChaseKey {
	sign := int8(1)
	if !g.red {
		sign = -1
	}
	if g.dice(1) < 5 || g.dice(-1) < 5 {
		return nil
	}
	var out []refChaseKey
	emit := func(n refChase, from, to [2]int, exchange bool, captured int) {
		n.restore(-sign, captured)
		k := refChaseKey{byte(from[0]*9 + from[1]), byte(to[0]*9 + to[1])}
		if exchange {
			k[2] = 1
		}
		for i := range 81 {
			k[3+i] = byte(n.b[i/9][i%9])
		}
		out = append(out, k)
	}
	for r := 0; r < 9; r++ {
		for c := 0; c < 9; c++ {
			v := g.b[r][c] * sign
			if v <= 0 {
				continue
			}
			from := [2]int{r, c}
			// Exchanges with each neighbour (no ricochet: the top and
			// bottom rows have no neighbours beyond them).
			for d := 0; d < 6; d++ {
				if y := r + refHexDirs[d][1]; y < 0 || y > 8 {
					continue
				}
				nb, _ := refHexStep(from, d)
				w := g.b[nb[0]][nb[1]] * sign
				for k := int8(1); w > 0 && k < v && w+k <= 6; k++ {
					n := g
					n.b[r][c], n.b[nb[0]][nb[1]] = (v-k)*sign, (w+k)*sign
					emit(n, from, nb, true, 0)
				}
			}
			// Moves of exactly v cells.
			for d0 := 0; d0 < 6; d0++ {
				n := g
				n.b[r][c] = 0
				at, d, ok := from, d0, true
				for i := 1; i <= int(v) && ok; i++ {
					at, d = refHexStep(at, d)
					ok = i == int(v) || at != refChamber && n.b[at[0]][at[1]] == 0
				}
				if !ok {
					continue
				}
				captured := 0
				if at != refChamber {
					if n.push(at, d, v*sign, &captured) {
						emit(n, from, at, false, captured)
					}
					continue
				}
				// The Chamber: two halves leave by the cells to the left and
				// to the right of the cell it was entered from; a 1, or any
				// die while all ten dice are on the board, leaves whole to the
				// left.
				left, right := (d+2)%6, (d+4)%6
				lc, _ := refHexStep(refChamber, left)
				rc, _ := refHexStep(refChamber, right)
				if v == 1 || g.dice(sign) == 10 {
					if n.push(lc, left, v*sign, &captured) {
						emit(n, from, refChamber, false, captured)
					}
					continue
				}
				if n.push(lc, left, (v+1)/2*sign, &captured) && n.push(rc, right, v/2*sign, &captured) {
					emit(n, from, refChamber, false, captured)
				}
			}
		}
	}
	return refChaseKeys(out)
}

// push puts die on the cell at, arriving in direction d: an enemy die
// there is captured (its pips added to captured), an own die is pushed
// one cell on in the direction in force, and so on. It reports false
// when a die would be pushed into the Chamber or the pushes never end.
func (g *refChase) push(at [2]int, d int, die int8, captured *int) bool {
	for range 12 {
		if at == refChamber {
			return false
		}
		occ := g.b[at[0]][at[1]]
		g.b[at[0]][at[1]] = die
		switch {
		case occ == 0:
			return true
		case occ*die < 0:
			*captured += int(max(occ, -occ))
			return true
		}
		die = occ
		at, d = refHexStep(at, d)
	}
	return false
}

// restore gives the side of the given sign its lost pips back: to its
// lowest die first, up to 6, then the next; equal dice in the order A1,
// A2, ..., I9.
func (g *refChase) restore(sign int8, pips int) {
	for pips > 0 {
		best := [2]int{-1, -1}
		for r := 0; r < 9; r++ {
			for c := 0; c < 9; c++ {
				v := g.b[r][c] * sign
				if v > 0 && v < 6 && (best[0] < 0 || v < g.b[best[0]][best[1]]*sign) {
					best = [2]int{r, c}
				}
			}
		}
		if best[0] < 0 {
			return
		}
		add := min(6-int(g.b[best[0]][best[1]]*sign), pips)
		g.b[best[0]][best[1]] += int8(add) * sign
		pips -= add
	}
}

// TestChaseAgreesWithReference plays random games of Chase (50, 2000 with
// -deep; to the
// end or 160 plies; Red first and White first) and checks at every
// position that the engine's legal moves, by the die moved, the cell it
// stops on and the position they lead to, are
// exactly the reference generator's, each move once; and that
// the game ends by the rules.
func TestChaseAgreesWithReference(t *testing.T) {
	t.Parallel()
	games := 50
	if *deep {
		games = 2000
	}
	rng := rand.New(rand.NewPCG(7, 25))
	for i := 0; i < games; i++ {
		g := mustGame(t, "chase", WithPlyLimit(160), WithFirstPlayer(Player(i%2)))
		for g.Status().Result == Ongoing {
			want := readRefChase(t, g.Position()).moves()
			ms := g.LegalMoves()
			var got []refChaseKey
			for _, m := range ms {
				s := g.State()
				g.r.apply(&s, &m.m)
				k := refChaseKey{m.m.path[0], m.m.path[1]}
				if m.m.flags&flagExchange != 0 {
					k[2] = 1
				}
				for i := range 81 {
					if pc := s.Board[i]; pc != 0 {
						v := int8(pc.Kind())
						if pc.Owner() == Second {
							v = -v
						}
						k[3+i] = byte(v)
					}
				}
				got = append(got, k)
			}
			slices.SortFunc(got, func(a, b refChaseKey) int { return bytes.Compare(a[:], b[:]) })
			if !slices.Equal(got, want) {
				t.Fatalf("after %v: %s\n%s", g.History(), setDiff(refChaseStrings(got), refChaseStrings(want)), g.Diagram(First))
			}
			if err := g.Apply(ms[rng.IntN(len(ms))]); err != nil {
				t.Fatal(err)
			}
		}
		st := g.Status()
		ref := readRefChase(t, g.Position())
		switch {
		case ref.dice(1) < 5 || ref.dice(-1) < 5:
			if st.Result != Win || st.Rule != RuleFewDice || (ref.dice(1) < 5) != (st.Winner == Second) {
				t.Fatalf("dice %d and %d, status %+v", ref.dice(1), ref.dice(-1), st)
			}
		case len(ref.moves()) == 0:
			if st.Result != Win || st.Winner == g.ToMove() {
				t.Fatalf("no move for the side to move, status %+v", st)
			}
		case st.Result != Draw:
			t.Fatalf("game over with moves left: %+v\n%s", st, g.Diagram(First))
		}
	}
}
