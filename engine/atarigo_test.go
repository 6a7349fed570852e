package engine

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// refGo is a second Atari Go generator, written from the rules for the
// tests and sharing nothing with goData: the board is read from the
// position string, groups are found by a fresh flood fill each, and a
// placement removes every enemy group it leaves without a liberty before
// its own group's liberties are counted (so a stone that captures is
// never a suicide).
type refGo struct {
	b    [9][9]byte // [column][row]: 0, 'w' or 'b'
	turn byte       // 'w' or 'b'
}

// readRefGo reads a position written as "9/9/.../9 b" (ranks from the
// 9th down), the engine's public position format.
func readRefGo(tb testing.TB, pos string) refGo {
	tb.Helper()
	var g refGo
	f := strings.Fields(pos)
	if len(f) < 2 {
		tb.Fatalf("position %q", pos)
	}
	for i, rank := range strings.Split(f[0], "/") {
		c := 0
		for _, ch := range rank {
			if ch >= '1' && ch <= '9' {
				c += int(ch - '0')
				continue
			}
			g.b[c][8-i] = byte(ch)
			c++
		}
	}
	g.turn = f[1][0]
	return g
}

// libertiesOf returns the stones of the group on (c, r) and its number of
// liberties.
func (g *refGo) libertiesOf(c, r int) ([][2]int, int) {
	colour := g.b[c][r]
	var in, libs [9][9]bool
	stones := [][2]int{{c, r}}
	in[c][r] = true
	n := 0
	for i := 0; i < len(stones); i++ {
		for _, d := range [][2]int{{0, 1}, {1, 0}, {0, -1}, {-1, 0}} {
			x, y := stones[i][0]+d[0], stones[i][1]+d[1]
			if x < 0 || x > 8 || y < 0 || y > 8 {
				continue
			}
			switch {
			case g.b[x][y] == 0 && !libs[x][y]:
				libs[x][y] = true
				n++
			case g.b[x][y] == colour && !in[x][y]:
				in[x][y] = true
				stones = append(stones, [2]int{x, y})
			}
		}
	}
	return stones, n
}

// place tries colour's stone on (c, r): it returns the board after the
// move, the number of stones captured and whether the move is legal.
func (g refGo) place(c, r int, colour byte) (refGo, int, bool) {
	enemy := byte('w')
	if colour == 'w' {
		enemy = 'b'
	}
	g.b[c][r] = colour
	taken := 0
	for _, d := range [][2]int{{0, 1}, {1, 0}, {0, -1}, {-1, 0}} {
		x, y := c+d[0], r+d[1]
		if x < 0 || x > 8 || y < 0 || y > 8 || g.b[x][y] != enemy {
			continue
		}
		if stones, libs := g.libertiesOf(x, y); libs == 0 {
			for _, s := range stones {
				g.b[s[0]][s[1]] = 0
			}
			taken += len(stones)
		}
	}
	if taken == 0 {
		if _, libs := g.libertiesOf(c, r); libs == 0 {
			return g, 0, false // suicide
		}
	}
	g.turn = enemy
	return g, taken, true
}

// refGoMove is a legal move of refGo: the point ("pass" for a pass),
// the stones it captures and the position after it.
type refGoMove struct {
	name  string
	taken int
	after refGo
}

// moves lists the legal moves of the side to move by point; a side
// without a placement passes if the opponent has one.
func (g refGo) moves() []refGoMove {
	var out []refGoMove
	other := byte('w')
	if g.turn == 'w' {
		other = 'b'
	}
	for _, colour := range []byte{g.turn, other} {
		for r := 0; r < 9; r++ {
			for c := 0; c < 9; c++ {
				if g.b[c][r] != 0 {
					continue
				}
				after, taken, ok := g.place(c, r, colour)
				if !ok {
					continue
				}
				if colour != g.turn {
					after := g
					after.turn = colour
					return []refGoMove{{"pass", 0, after}}
				}
				out = append(out, refGoMove{string([]byte{byte('a' + c), byte('1' + r)}), taken, after})
			}
		}
		if out != nil {
			break
		}
	}
	slices.SortFunc(out, func(a, b refGoMove) int { return strings.Compare(a.name, b.name) })
	return out
}

// String writes the board as one line per rank, from the 9th, and the
// side to move.
func (g refGo) String() string {
	var sb strings.Builder
	for r := 8; r >= 0; r-- {
		for c := 0; c < 9; c++ {
			if g.b[c][r] == 0 {
				sb.WriteByte('.')
			} else {
				sb.WriteByte(g.b[c][r])
			}
		}
		sb.WriteByte('/')
	}
	sb.WriteByte(g.turn)
	return sb.String()
}

// TestAtariGoAgreesWithReference plays random games (50, 2000 with -deep)
// and checks at every
// position that the engine's legal moves, the stones each one captures
// and the positions they lead to are those of the reference generator;
// and that a game ends exactly when a move captured.
func TestAtariGoAgreesWithReference(t *testing.T) {
	t.Parallel()
	games := 50
	if *deep {
		games = 2000
	}
	rng := rand.New(rand.NewPCG(43, 1))
	captures := 0
	for i := 0; i < games; i++ {
		g := mustGame(t, "atarigo")
		for g.Status().Result == Ongoing {
			ref := readRefGo(t, g.Position()).moves()
			ms := g.LegalMoves()
			var got, want []string
			for _, m := range ms {
				got = append(got, m.String()+" "+strconv.Itoa(m.Captures()))
			}
			for _, m := range ref {
				want = append(want, m.name+" "+strconv.Itoa(m.taken))
			}
			if !slices.Equal(got, want) {
				t.Fatalf("after %v: %s\n%s", g.History(), setDiff(got, want), g.Diagram(First))
			}
			// The position after every capture (rare) and after the move
			// played.
			k := rng.IntN(len(ms))
			for j, m := range ms {
				if m.Captures() == 0 {
					continue
				}
				s := g.State()
				g.r.apply(&s, &m.m)
				if after := readRefGo(t, encodeGo(g.r, &s)); after != ref[j].after {
					t.Fatalf("after %v, %v: engine %s, reference %s", g.History(), m, after, ref[j].after)
				}
			}
			m := ms[k]
			if err := g.Apply(m); err != nil {
				t.Fatal(err)
			}
			if after := readRefGo(t, g.Position()); after != ref[k].after {
				t.Fatalf("after %v: engine %s, reference %s", g.History(), after, ref[k].after)
			}
			if st := g.Status(); (m.Captures() > 0) != (st.Rule == RuleFirstCapture) {
				t.Fatalf("after %v: %d captured, status %+v", g.History(), m.Captures(), st)
			}
		}
		if g.Status().Rule == RuleFirstCapture {
			captures++
		}
	}
	if captures < games/2 {
		t.Errorf("only %d of %d games ended by a capture", captures, games)
	}
}

// TestAtariGoOneGroupTouchedTwice: a stone placed next to two stones of
// one enemy group captures it only when the whole group has no liberty.
func TestAtariGoOneGroupTouchedTwice(t *testing.T) {
	// White's c1, c2 and b2 are one group with the liberties a2, b3, c3
	// and d2: Black's b1 touches it at c1 and b2 and captures nothing.
	g := mustGame(t, "atarigo")
	mustPlay(t, g, "d1", "c1", "i9", "c2", "i8", "b2", "b1")
	if st := g.Status(); st.Result != Ongoing {
		t.Fatalf("after b1: %+v, want the game to go on", st)
	}
	if m := g.History()[6]; m.Captures() != 0 {
		t.Errorf("b1 captured %d stones", m.Captures())
	}
	if pos := g.Position(); pos != "8b/8b/9/9/9/9/9/1ww6/1bwb5 w" {
		t.Errorf("position after b1 %q", pos)
	}
	if n := len(g.LegalMoves()); n != 74 {
		t.Errorf("White has %d moves, want the 74 free points", n)
	}

	// The same group with b1 as its last liberty: b1 touches it at b2 and
	// c1 and takes its three stones, each once.
	g = mustGame(t, "atarigo", WithPosition("9/9/9/9/9/9/1bb6/bwwb5/2wb5 b"))
	m, err := g.Play("b1")
	if err != nil {
		t.Fatal(err)
	}
	if m.Captures() != 3 {
		t.Errorf("b1 captured %d stones, want 3", m.Captures())
	}
	if pos := g.Position(); pos != "9/9/9/9/9/9/1bb6/b2b5/1b1b5 w +" {
		t.Errorf("position after b1 %q", pos)
	}
	if st := g.Status(); st.Result != Win || st.Winner != Second || st.Rule != RuleFirstCapture {
		t.Errorf("status %+v, want Black wins by the first capture", st)
	}

	// A stone on the point that four White stones surround, each with
	// liberties of its own, has no liberty and captures nothing.
	g = mustGame(t, "atarigo", WithPosition("9/9/9/9/9/3w5/2w1w4/3w5/9 b"))
	if _, err := g.Play("d3"); err == nil {
		t.Errorf("d3 accepted: Black's stone there has no liberty and captures nothing")
	}
}

// TestAtariGoSuicide: by the rules of Go that Atari Go keeps, a placement
// that leaves its own group without a liberty is illegal unless it
// captures: the enemy stones come off first, and that capture wins.
func TestAtariGoSuicide(t *testing.T) {
	// Black's b1 would join a1-a2 on their last liberty; White's b2 keeps
	// b3 and c2, c1 keeps c2 and d1: a group suicide.
	g := mustGame(t, "atarigo", WithPosition("9/9/9/9/9/9/w8/bw7/b1w6 b"))
	if _, err := g.Play("b1"); err == nil {
		t.Errorf("b1, a group suicide, accepted")
	}
	if n := len(g.LegalMoves()); n != 75 {
		t.Errorf("%d moves, want the 75 free points but b1", n)
	}
	// The same point is legal when it takes White's b2, whose other
	// liberties Black holds.
	g = mustGame(t, "atarigo", WithPosition("9/9/9/9/9/9/wb7/bwb6/b1w6 b"))
	m, err := g.Play("b1")
	if err != nil {
		t.Fatalf("b1 refused: %v", err)
	}
	if m.Captures() != 1 || g.Status().Rule != RuleFirstCapture || g.Status().Winner != Second {
		t.Errorf("b1: %d captured, status %+v, want Black wins by taking b2", m.Captures(), g.Status())
	}
	// A stone without a free point next to it that joins a group with a
	// liberty (a1, which keeps a2) is legal and captures nothing.
	g = mustGame(t, "atarigo", WithPosition("9/9/9/9/9/9/9/1w7/b1w6 b"))
	if _, err := g.Play("b1"); err != nil {
		t.Errorf("b1 joining a1 refused: %v", err)
	}
	if st := g.Status(); st.Result != Ongoing {
		t.Errorf("status %+v after a quiet move", st)
	}
}

// BenchmarkAtariGoPerft counts the leaves of a middle-game position to
// depth 3: the placement generator's speed.
func BenchmarkAtariGoPerft(b *testing.B) {
	g := mustGame(b, "atarigo", WithPosition("9/2b2w3/1bww1b3/2bwb4/1w1b1w3/2w1b4/3w1b3/9/9 b"))
	p := newPerfter(g.r)
	s := g.State()
	var n uint64
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		n += p.count(&s, 3)
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds()/1e6, "Mnodes/s")
}
