package engine_test

// A second opinion on the draughts variants: a move generator written
// again from each variant's published rules, in the external test package
// so that it cannot reach (and so cannot share) a line of the engine's
// generator. It sees the engine only through the exported API: NewGame,
// Position (compared with the rules' own writing of the position),
// LegalMoves, Describe, Apply and Undo. Random games are played with the
// engine and compared position by position: the position itself, the
// legal moves as effects (origin, destination, the squares taken, the
// piece that arrives), the path the engine gives each move (which must be
// one of the routes of that effect), and the position each move leads to.
//
// The rules, as the sources cited at each variant state them:
//   - Pieces: men step forward and capture by a short jump over an
//     adjacent enemy piece; kings step or fly, and a flying king captures a
//     piece at any distance along a free line, landing on any free square
//     beyond it (or, in Thai draughts, on the square right behind it).
//   - A capture goes on while it can. With captured pieces removed at the
//     end of the move they block the way and cannot be taken twice; with
//     immediate removal (Turkish, Armenian, Thai) their squares are free at
//     once.
//   - A flying king that may land on several squares after a jump, and can
//     capture again from some of them, must land on one of those (the
//     Russian rules, the pool rules; in the variants with a majority rule
//     it follows from the majority).
//   - Crowning: at once, going on as a king (Russian); on arrival, ending
//     the move (English, Italian, Thai); or only when the move ends on the
//     far rank, a man passing it going on as a man (the others).
//   - Among the captures the variant's precedence keeps the best ones.

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/questbot/questbot/engine"
)

// Which squares of the board are played.
const (
	darkA1  = iota // a1 (the first player's near left corner) is played
	lightA1        // a1 is not played: the near right corner is
	every          // all 64 squares (Turkish, Armenian)
)

// How a king captures.
const (
	shortJump = iota // over an adjacent piece onto the square behind
	flyAny           // at any distance, onto any free square beyond
	flyNext          // at any distance, onto the square right behind
)

// When a man reaching the far rank is crowned.
const (
	crownAtEnd = iota // only if the move ends there
	crownStop         // on arrival; the move ends
	crownNow          // on arrival; it goes on capturing as a king
)

type vec struct{ x, y int }

// rulebook is one variant's rules. Vectors are in the mover's frame:
// y > 0 is forward, and they are mirrored for the side at the top.
type rulebook struct {
	variant   string
	w, h      int
	squares   int
	numbered  bool // squares numbered 1.. from the top left as White sees the board
	rows      int  // rows of men each side starts with
	skipBack  bool // the back rank starts empty
	topFirst  bool // the side at the top (Black) moves first
	manSteps  []vec
	manJumps  []vec // the victim's offset; the man lands twice as far
	kingSteps []vec
	kingFlies bool
	kingJumps []vec
	kingJump  int
	immediate bool // captured pieces leave the board at once
	noReverse bool // a king may not turn back along its line between jumps
	menSpare  bool // men may not capture kings
	crown     int
	// mustLand: a flying king lands where it can go on capturing, if it can.
	mustLand bool
	// rank scores a capture for the precedence rules (compared
	// lexicographically, larger first); nil: free choice.
	rank func(c *chain) []int
	// threeMoves: Frisian; a king that has made three non-capturing moves
	// in a row may not make a fourth while its side has men.
	threeMoves bool
	// tabled: the engine's moves are also checked against a published
	// perft table to depth 5 or more in the default run (perft_test.go),
	// so the default run plays fewer games here.
	tabled bool

	nameOf  []string // by y*w+x; filled by init
	numbers []vec    // the played squares by number, on numbered boards
	order   []vec    // the played squares in the order position strings list them
}

func init() {
	for i := range rulebooks {
		rb := &rulebooks[i]
		rb.nameOf = make([]string, rb.w*rb.h)
		n := 0
		for y := rb.h - 1; y >= 0; y-- {
			for x := 0; x < rb.w; x++ {
				p := vec{x, y}
				if !rb.played(p) {
					continue
				}
				n++
				name := strconv.Itoa(n)
				if !rb.numbered {
					name = string(rune('a'+x)) + strconv.Itoa(y+1)
				}
				rb.nameOf[y*rb.w+x] = name
				if rb.numbered {
					rb.numbers = append(rb.numbers, p)
					rb.order = append(rb.order, p)
				}
			}
		}
		for y := 0; y < rb.h && !rb.numbered; y++ {
			for x := 0; x < rb.w; x++ {
				if p := (vec{x, y}); rb.played(p) {
					rb.order = append(rb.order, p)
				}
			}
		}
	}
}

var (
	forwardDiag = []vec{{-1, 1}, {1, 1}}
	allDiag     = []vec{{-1, 1}, {1, 1}, {-1, -1}, {1, -1}}
	orthogonal  = []vec{{0, 1}, {1, 0}, {0, -1}, {-1, 0}}
	turkishMan  = []vec{{0, 1}, {1, 0}, {-1, 0}}
	queenLines  = append(append([]vec(nil), allDiag...), orthogonal...)
	// Frisian captures also run along files and ranks, over the squares
	// of the board's colour: the next one is two squares away.
	frisianLines = append(append([]vec(nil), allDiag...), vec{0, 2}, vec{2, 0}, vec{0, -2}, vec{-2, 0})
)

// chain is one capture (or, with no captures, one quiet move).
type chain struct {
	path   []vec // origin and every landing square
	taken  []vec // in the order they are jumped
	kings  []bool
	byKing bool
	final  int // 1 a man arrives, 2 a king
}

func takenCount(c *chain) int { return len(c.taken) }

func kingsTaken(c *chain) int {
	n := 0
	for _, k := range c.kings {
		if k {
			n++
		}
	}
	return n
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

var rulebooks = []rulebook{
	// Russian: the Rules of the sport "Draughts" of the Russian Ministry of
	// Sport (men capture backwards, kings fly, free choice of capture, a
	// man reaching the far rank in a capture goes on as a king, a king
	// must land where it can capture again).
	{variant: "russian", tabled: true, w: 8, h: 8, squares: darkA1, rows: 3, manSteps: forwardDiag, manJumps: allDiag,
		kingSteps: allDiag, kingFlies: true, kingJumps: allDiag, kingJump: flyAny, crown: crownNow, mustLand: true},
	// International: the Official FMJD Rules for International Draughts
	// (articles 3 and 4: majority capture, kings counting as men; a man
	// is crowned only when its move ends on the far rank).
	{variant: "international", tabled: true, w: 10, h: 10, squares: darkA1, numbered: true, rows: 4, manSteps: forwardDiag,
		manJumps: allDiag, kingSteps: allDiag, kingFlies: true, kingJumps: allDiag, kingJump: flyAny,
		rank: func(c *chain) []int { return []int{takenCount(c)} }},
	// Brazilian: the FMJD rules on the 8x8 board.
	{variant: "brazilian", tabled: true, w: 8, h: 8, squares: darkA1, rows: 3, manSteps: forwardDiag, manJumps: allDiag,
		kingSteps: allDiag, kingFlies: true, kingJumps: allDiag, kingJump: flyAny,
		rank: func(c *chain) []int { return []int{takenCount(c)} }},
	// Canadian: the FMJD rules on the 12x12 board, 30 men each.
	{variant: "canadian", w: 12, h: 12, squares: darkA1, numbered: true, rows: 5, manSteps: forwardDiag,
		manJumps: allDiag, kingSteps: allDiag, kingFlies: true, kingJumps: allDiag, kingJump: flyAny,
		rank: func(c *chain) []int { return []int{takenCount(c)} }},
	// Pool: the rules of play of the American Pool Checkers Association
	// (Ramsey; Kaplan): Black moves first; men jump forward and backward;
	// a man reaching the far side in a capture that can jump on backwards
	// must do so and is crowned only if its move ends there; kings fly and
	// must go on capturing from a landing square where they can; any
	// capture may be chosen.
	{variant: "pool", w: 8, h: 8, squares: darkA1, numbered: true, rows: 3, topFirst: true, manSteps: forwardDiag,
		manJumps: allDiag, kingSteps: allDiag, kingFlies: true, kingJumps: allDiag, kingJump: flyAny, mustLand: true},
	// Czech: the rules of the Czech Draughts Federation: men move and
	// capture forward only; kings fly; capture with a king when one can;
	// otherwise any capture, made in full.
	{variant: "czech", w: 8, h: 8, squares: darkA1, rows: 3, manSteps: forwardDiag, manJumps: forwardDiag,
		kingSteps: allDiag, kingFlies: true, kingJumps: allDiag, kingJump: flyAny, mustLand: true,
		rank: func(c *chain) []int { return []int{boolInt(c.byKing)} }},
	// Spanish: the rules of the Federación Española de Damas: the played
	// squares are those of the near right corner; men forward only; kings
	// fly; the most pieces (quantity), then the most kings (quality).
	{variant: "spanish", w: 8, h: 8, squares: lightA1, rows: 3, manSteps: forwardDiag, manJumps: forwardDiag,
		kingSteps: allDiag, kingFlies: true, kingJumps: allDiag, kingJump: flyAny,
		rank: func(c *chain) []int { return []int{takenCount(c), kingsTaken(c)} }},
	// Italian: the Regolamento tecnico of the Federazione Italiana Dama,
	// articles 2 to 6: a dark square at each player's near right; men
	// move and capture forward only and may not take kings; kings step;
	// a man reaching the far rank is crowned and its move ends; the most
	// pieces (6.6), then with a king (6.7), then the most kings (6.8),
	// then the capture meeting a king first (6.9).
	{variant: "italian", w: 8, h: 8, squares: lightA1, rows: 3, manSteps: forwardDiag, manJumps: forwardDiag,
		kingSteps: allDiag, kingJumps: allDiag, kingJump: shortJump, menSpare: true, crown: crownStop,
		rank: func(c *chain) []int {
			first := -len(c.kings) - 1
			if i := slices.Index(c.kings, true); i >= 0 {
				first = -i
			}
			return []int{takenCount(c), boolInt(c.byKing), kingsTaken(c), first}
		}},
	// Thai (mak-hot): two rows of men; men forward only; kings fly and take
	// a piece at any distance landing right behind it, going on from
	// there, turning back too; captured pieces leave at once; any capture;
	// a man reaching the far rank in a capture is crowned and stops.
	{variant: "thai", w: 8, h: 8, squares: darkA1, rows: 2, manSteps: forwardDiag, manJumps: forwardDiag,
		kingSteps: allDiag, kingFlies: true, kingJumps: allDiag, kingJump: flyNext, immediate: true, crown: crownStop},
	// Turkish (dama): every square; men move and capture forward and
	// sideways; kings fly along ranks and files; captured pieces leave at
	// once; no turning back between two jumps; the most pieces.
	{variant: "turkish", w: 8, h: 8, squares: every, rows: 2, skipBack: true, manSteps: turkishMan, manJumps: turkishMan,
		kingSteps: orthogonal, kingFlies: true, kingJumps: orthogonal, kingJump: flyAny, immediate: true, noReverse: true,
		rank: func(c *chain) []int { return []int{takenCount(c)} }},
	// Armenian (tama): as Turkish, but men also step diagonally forward
	// and kings move like a chess queen; kings capture along ranks and
	// files only.
	{variant: "armenian", w: 8, h: 8, squares: every, rows: 2, skipBack: true,
		manSteps: []vec{{-1, 1}, {0, 1}, {1, 1}, {1, 0}, {-1, 0}}, manJumps: turkishMan,
		kingSteps: queenLines, kingFlies: true, kingJumps: orthogonal, kingJump: flyAny, immediate: true, noReverse: true,
		rank: func(c *chain) []int { return []int{takenCount(c)} }},
	// Frisian: the rules of the Dambûn Frysk Spul: men and kings capture
	// in eight directions; the capture of the highest value, a king
	// weighing less than two men and more than one (n kings above 2n-1
	// men, below 2n), then a king's capture; the three moves rule.
	{variant: "frisian", w: 10, h: 10, squares: darkA1, numbered: true, rows: 4, manSteps: forwardDiag,
		manJumps: frisianLines, kingSteps: allDiag, kingFlies: true, kingJumps: frisianLines, kingJump: flyAny,
		threeMoves: true,
		rank: func(c *chain) []int {
			return []int{100*takenCount(c) + 99*kingsTaken(c), boolInt(c.byKing)}
		}},
	// English (the engine's test configuration): Black first; men forward
	// only; kings step; any capture; a crowned man stops.
	{variant: "english", tabled: true, w: 8, h: 8, squares: darkA1, numbered: true, rows: 3, topFirst: true, manSteps: forwardDiag,
		manJumps: forwardDiag, kingSteps: allDiag, kingJumps: allDiag, kingJump: shortJump, crown: crownStop},
}

// board is a position: pieces by square (+1 a White man, +2 a White king,
// negative for Black), the side to move (+1 White) and, for Frisian, each
// side's run of non-capturing moves with one king.
type board struct {
	rb    *rulebook
	cells []int8
	side  int
	run   [2]kingRun // [0] White, [1] Black
}

type kingRun struct {
	at vec
	n  int
}

func (rb *rulebook) played(p vec) bool {
	if p.x < 0 || p.y < 0 || p.x >= rb.w || p.y >= rb.h {
		return false
	}
	switch rb.squares {
	case darkA1:
		return (p.x+p.y)%2 == 0
	case lightA1:
		return (p.x+p.y)%2 == 1
	}
	return true
}

// name writes a square as the engine's notation does: a number on the
// numbered boards (1 at the top left as White sees the board), algebraic
// otherwise.
func (rb *rulebook) name(p vec) string { return rb.nameOf[p.y*rb.w+p.x] }

func (rb *rulebook) squareOf(name string) (vec, error) {
	if rb.numbered {
		if n, err := strconv.Atoi(name); err == nil && n >= 1 && n <= len(rb.numbers) {
			return rb.numbers[n-1], nil
		}
	} else if len(name) >= 2 {
		y, err := strconv.Atoi(name[1:])
		if p := (vec{int(name[0]) - 'a', y - 1}); err == nil && rb.played(p) {
			return p, nil
		}
	}
	return vec{}, fmt.Errorf("no square %q", name)
}

func (b *board) at(p vec) int8     { return b.cells[p.y*b.rb.w+p.x] }
func (b *board) put(p vec, v int8) { b.cells[p.y*b.rb.w+p.x] = v }
func sideIndex(side int) int       { return (1 - side) / 2 }
func (b *board) clone() board      { c := *b; c.cells = slices.Clone(b.cells); return c }
func (rb *rulebook) lastRow(side int) int {
	if side > 0 {
		return rb.h - 1
	}
	return 0
}

// start sets up the men as the rules place them.
func (rb *rulebook) start() board {
	b := board{rb: rb, cells: make([]int8, rb.w*rb.h), side: 1}
	if rb.topFirst {
		b.side = -1
	}
	lo := 0
	if rb.skipBack {
		lo = 1
	}
	for y := lo; y < lo+rb.rows; y++ {
		for x := 0; x < rb.w; x++ {
			if p := (vec{x, y}); rb.played(p) {
				b.put(p, 1)
			}
			if p := (vec{x, rb.h - 1 - y}); rb.played(p) {
				b.put(p, -1)
			}
		}
	}
	return b
}

func (b *board) men(side int) int {
	n := 0
	for _, v := range b.cells {
		if int(v) == side {
			n++
		}
	}
	return n
}

// effective is the side's run as far as the three moves rule can still
// use it: its king still on its square and the side still with men.
func (b *board) effective(i int) kingRun {
	side := 1 - 2*i
	r := b.run[i]
	if r.n == 0 || int(b.at(r.at)) != 2*side || b.men(side) == 0 {
		return kingRun{}
	}
	return r
}

// encode writes the position in the engine's format: the side to move,
// White's and Black's pieces by square in the board's order with kings
// marked K ("W:W21,K30:B5") and, in Frisian, the runs the three moves
// rule counts (":KW2@46").
func (b *board) encode() string {
	rb := b.rb
	out := []byte{"BW"[(b.side+1)/2]}
	for _, side := range []int{1, -1} {
		out = append(out, ':', "BW"[(side+1)/2])
		first := true
		for _, p := range rb.order {
			v := int(b.at(p)) * side
			if v <= 0 {
				continue
			}
			if !first {
				out = append(out, ',')
			}
			first = false
			if v == 2 {
				out = append(out, 'K')
			}
			out = append(out, rb.name(p)...)
		}
	}
	if rb.threeMoves {
		sep := ":K"
		for i := range b.run {
			if r := b.effective(i); r.n > 0 {
				out = append(out, sep...)
				out = append(out, "WB"[i])
				out = strconv.AppendInt(out, int64(r.n), 10)
				out = append(out, '@')
				out = append(out, rb.name(r.at)...)
				sep = ","
			}
		}
	}
	return string(out)
}

// String draws the board as White sees it: w and W White's men and
// kings, b and B Black's, "." a free played square.
func (b *board) String() string {
	var sb strings.Builder
	for y := b.rb.h - 1; y >= 0; y-- {
		for x := 0; x < b.rb.w; x++ {
			p := vec{x, y}
			switch v := b.at(p); {
			case !b.rb.played(p):
				sb.WriteByte(' ')
			case v == 0:
				sb.WriteByte('.')
			default:
				sb.WriteByte(map[int8]byte{1: 'w', 2: 'W', -1: 'b', -2: 'B'}[v])
			}
		}
		sb.WriteByte('\n')
	}
	return sb.String()
}

// moves lists every legal move of the side to move.
func (b *board) moves() []chain {
	rb := b.rb
	side := b.side
	frame := func(vs []vec) []vec {
		out := make([]vec, len(vs))
		for i, v := range vs {
			out[i] = vec{v.x, v.y * side}
		}
		return out
	}
	manSteps, manJumps := frame(rb.manSteps), frame(rb.manJumps)
	taken := make([]bool, rb.w*rb.h)
	var caps, quiet []chain
	for y := 0; y < rb.h; y++ {
		for x := 0; x < rb.w; x++ {
			from := vec{x, y}
			v := int(b.at(from)) * side
			if v <= 0 {
				continue
			}
			caps = append(caps, b.capturesFrom(from, v, manJumps, taken)...)
			steps := manSteps
			if v == 2 {
				steps = rb.kingSteps
				if rb.threeMoves {
					if r := b.effective(sideIndex(side)); r.n >= 3 && r.at == from {
						continue // this king may only capture
					}
				}
			}
			for _, d := range steps {
				for to := (vec{from.x + d.x, from.y + d.y}); rb.played(to) && b.at(to) == 0; to = (vec{to.x + d.x, to.y + d.y}) {
					final := v
					if to.y == rb.lastRow(side) {
						final = 2
					}
					quiet = append(quiet, chain{path: []vec{from, to}, final: final})
					if v == 1 || !rb.kingFlies {
						break
					}
				}
			}
		}
	}
	if len(caps) == 0 {
		return quiet
	}
	if rb.rank != nil {
		var best []int
		for i := range caps {
			if r := rb.rank(&caps[i]); best == nil || slices.Compare(r, best) > 0 {
				best = r
			}
		}
		caps = slices.DeleteFunc(caps, func(c chain) bool { return slices.Compare(rb.rank(&c), best) < 0 })
	}
	return caps
}

// capturesFrom finds every complete capture of the piece on from (kind 1
// a man, 2 a king). It works on the board itself and leaves it as it
// found it; taken is all false on entry and on return.
func (b *board) capturesFrom(from vec, kind int, manJumps []vec, taken []bool) []chain {
	rb := b.rb
	side := b.side
	work := b
	piece := b.at(from)
	work.put(from, 0) // the piece is lifted: its square is free
	defer work.put(from, piece)
	var out []chain
	var walk func(at vec, kind int, c chain, last vec)
	walk = func(at vec, kind int, c chain, last vec) {
		dirs, fly := manJumps, false
		if kind == 2 {
			dirs, fly = rb.kingJumps, rb.kingJump != shortJump
		}
		jumped := false
		for _, d := range dirs {
			if kind == 2 && rb.noReverse && len(c.taken) > 0 && d == (vec{-last.x, -last.y}) {
				continue
			}
			victim := vec{at.x + d.x, at.y + d.y}
			for fly && rb.played(victim) && work.at(victim) == 0 {
				victim = vec{victim.x + d.x, victim.y + d.y}
			}
			if !rb.played(victim) || int(work.at(victim))*side >= 0 || taken[victim.y*rb.w+victim.x] {
				continue
			}
			isKing := work.at(victim) == 2 || work.at(victim) == -2
			if kind == 1 && rb.menSpare && isKing {
				continue
			}
			var landings []vec
			for l := (vec{victim.x + d.x, victim.y + d.y}); rb.played(l) && work.at(l) == 0; l = (vec{l.x + d.x, l.y + d.y}) {
				landings = append(landings, l)
				if !fly || rb.kingJump == flyNext {
					break
				}
			}
			if len(landings) == 0 {
				continue
			}
			jumped = true
			saved := work.at(victim)
			if rb.immediate {
				work.put(victim, 0)
			} else {
				taken[victim.y*rb.w+victim.x] = true
			}
			var found [][]chain
			goesOn := false
			for _, l := range landings {
				next := chain{
					path:   append(slices.Clone(c.path), l),
					taken:  append(slices.Clone(c.taken), victim),
					kings:  append(slices.Clone(c.kings), isKing),
					byKing: c.byKing,
				}
				before := len(out)
				switch {
				case kind == 1 && l.y == rb.lastRow(side) && rb.crown == crownStop:
					next.final = 2
					out = append(out, next)
				case kind == 1 && l.y == rb.lastRow(side) && rb.crown == crownNow:
					walk(l, 2, next, d)
				default:
					walk(l, kind, next, d)
				}
				these := slices.Clone(out[before:])
				out = out[:before]
				for _, t := range these {
					goesOn = goesOn || len(t.taken) > len(next.taken)
				}
				found = append(found, these)
			}
			for _, these := range found {
				// A flying king that could go on from another landing
				// square may not stop here.
				if rb.mustLand && fly && goesOn && len(these) > 0 && len(these[0].taken) == len(c.taken)+1 {
					continue
				}
				out = append(out, these...)
			}
			if rb.immediate {
				work.put(victim, saved)
			} else {
				taken[victim.y*rb.w+victim.x] = false
			}
		}
		if !jumped && len(c.taken) > 0 {
			c.final = kind
			if kind == 1 && at.y == rb.lastRow(side) {
				c.final = 2
			}
			out = append(out, c)
		}
	}
	walk(from, kind, chain{path: []vec{from}, byKing: kind == 2}, vec{})
	return out
}

// after returns the position a move leads to, the three moves rule's
// runs included.
func (b *board) after(c *chain) board {
	n := b.clone()
	from, to := c.path[0], c.path[len(c.path)-1]
	wasKing := b.at(from) == int8(2*b.side)
	n.put(from, 0)
	for _, t := range c.taken {
		n.put(t, 0)
	}
	n.put(to, int8(c.final*b.side))
	me, opp := sideIndex(b.side), sideIndex(-b.side)
	switch {
	case wasKing && len(c.taken) == 0 && b.run[me].n > 0 && b.run[me].at == from:
		n.run[me] = kingRun{to, b.run[me].n + 1}
	case wasKing && len(c.taken) == 0:
		n.run[me] = kingRun{to, 1}
	default:
		n.run[me] = kingRun{}
	}
	if slices.Contains(c.taken, b.run[opp].at) {
		n.run[opp] = kingRun{} // the king that made the run is gone
	}
	n.side = -b.side
	return n
}

// effect names a move by what it does, whatever its route: its origin,
// its destination and the squares of the pieces it takes. (Which piece
// arrives is read from the position the move leads to.)
type effect struct {
	from, to vec
	taken    [3]uint64 // by square, y*w+x (boards up to 12x12)
}

func (rb *rulebook) effectOf(path, taken []vec) effect {
	e := effect{from: path[0], to: path[len(path)-1]}
	for _, p := range taken {
		i := p.y*rb.w + p.x
		e.taken[i/64] |= 1 << (i % 64)
	}
	return e
}

func (rb *rulebook) describe(e effect) string {
	var taken []string
	for y := 0; y < rb.h; y++ {
		for x := 0; x < rb.w; x++ {
			if i := y*rb.w + x; e.taken[i/64]>>(i%64)&1 != 0 {
				taken = append(taken, rb.name(vec{x, y}))
			}
		}
	}
	return rb.name(e.from) + "-" + rb.name(e.to) + " x" + strings.Join(taken, ",")
}

func (rb *rulebook) names(ps []vec) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = rb.name(p)
	}
	return out
}

func (rb *rulebook) squaresOf(t *testing.T, names []string) []vec {
	t.Helper()
	out := make([]vec, len(names))
	for i, n := range names {
		p, err := rb.squareOf(n)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = p
	}
	return out
}

// outcome is one legal move by the rules: the routes that make it and
// the position it leads to.
type outcome struct {
	routes [][]vec
	move   chain // one of them
	final  int
	text   string // the position it leads to, written when needed
	seen   bool
}

func (o *outcome) child(b *board) string {
	if o.text == "" {
		c := b.after(&o.move)
		o.text = c.encode()
	}
	return o.text
}

// rulebookCheck compares the engine with the rulebook at the game's
// current position: the position itself and the legal moves (each effect
// once, on one of the effect's routes). With children it also plays each
// move on the engine's board and compares the position it leads to (and
// so the piece that arrives); the caller does so wherever a capture is
// possible and at every few other positions, and compares the position
// after the move played at every ply. It returns the rulebook's position
// after each legal move, in the order of legal. Once the game is over
// (legal is empty: a finished game has no legal moves) only the position
// is compared.
func rulebookCheck(t *testing.T, g *engine.Game, legal []engine.Move, mine *board, children bool) []*chain {
	t.Helper()
	rb := mine.rb
	fail := func(format string, args ...any) {
		t.Helper()
		t.Fatalf("%s after %v:\n%s\n%s", g.Variant(), g.History(), fmt.Sprintf(format, args...), mine)
	}
	if pos, want := g.Position(), mine.encode(); pos != want {
		fail("the engine's position is %q, the rules' %q", pos, want)
	}
	if len(legal) == 0 {
		return nil
	}
	// By effect, the moves of each arriving piece (a Russian man may
	// reach the same square over the same pieces crowned or not).
	want := map[effect][]*outcome{}
	for _, c := range mine.moves() {
		children = children || len(c.taken) > 0
		k := rb.effectOf(c.path, c.taken)
		var o *outcome
		for _, x := range want[k] {
			if x.final == c.final {
				o = x
			}
		}
		if o == nil {
			o = &outcome{move: c, final: c.final}
			want[k] = append(want[k], o)
		}
		o.routes = append(o.routes, c.path)
	}
	byMove := make([]*chain, len(legal))
	for i, m := range legal {
		pathNames, takenNames := g.Describe(m)
		path := rb.squaresOf(t, pathNames)
		k := rb.effectOf(path, rb.squaresOf(t, takenNames))
		var o *outcome
		childPos := ""
		if children || len(want[k]) > 1 {
			if err := g.Apply(m); err != nil {
				fail("Apply(%s): %v", m, err)
			}
			childPos = g.Position()
			if err := g.Undo(); err != nil {
				fail("Undo after %s: %v", m, err)
			}
			for _, x := range want[k] {
				if x.child(mine) == childPos {
					o = x
				}
			}
		} else if len(want[k]) == 1 {
			o = want[k][0]
		}
		switch {
		case len(want[k]) == 0:
			var legal []string
			for k := range want {
				legal = append(legal, rb.describe(k))
			}
			slices.Sort(legal)
			fail("the engine's move %s (%s) is not legal by the rules; the rules allow %v", m, rb.describe(k), legal)
		case o == nil:
			fail("after %s the engine has %q, the rules give %q", m, childPos, want[k][0].child(mine))
		case o.seen:
			fail("the engine lists the move %s twice", m)
		case !slices.ContainsFunc(o.routes, func(r []vec) bool { return slices.Equal(r, path) }):
			var routes []string
			for _, r := range o.routes {
				routes = append(routes, strings.Join(rb.names(r), " "))
			}
			fail("the engine's route %v for %s is none of the rules' routes %v", pathNames, m, routes)
		}
		o.seen = true
		byMove[i] = &o.move
	}
	for k, os := range want {
		for _, o := range os {
			if !o.seen {
				fail("the rules allow %s (leading to %q), the engine does not", rb.describe(k), o.child(mine))
			}
		}
	}
	return byMove
}

// deepRun reports the engine tests' -deep flag.
func deepRun() bool {
	f := flag.Lookup("deep")
	return f != nil && f.Value.String() == "true"
}

// TestDraughtsAgreeWithRulebook plays random games of every draughts
// variant with the engine and checks every position against the rulebook
// generator (rulebookCheck). By default: 60 games a variant (15 for the
// four whose published perft tables run to depth 5 or more by default),
// one in twenty played to the platform's ply limit and the others to 80
// plies, the positions every move leads to compared wherever a capture
// is possible and at every 32nd position besides. With -deep: 1000 full
// games a variant, every move's position compared everywhere. The seeds
// are fixed, so a failure replays.
func TestDraughtsAgreeWithRulebook(t *testing.T) {
	plies, every := 80, 32
	if deepRun() {
		plies, every = engine.DefaultPlyLimit, 1
	}
	for vi := range rulebooks {
		rb := &rulebooks[vi]
		t.Run(rb.variant, func(t *testing.T) {
			t.Parallel()
			games := 60
			switch {
			case deepRun():
				games = 1000
			case rb.tabled:
				games = 15
			}
			rng := rand.New(rand.NewPCG(uint64(vi)+1, 43))
			start := rb.start()
			positions, captures, kingMoves := 0, 0, 0
			for i := 0; i < games; i++ {
				limit := plies
				if i%20 == 0 {
					limit = engine.DefaultPlyLimit
				}
				g, err := engine.NewGame(rb.variant, engine.WithPlyLimit(limit))
				if err != nil {
					t.Fatal(err)
				}
				mine := start.clone()
				for {
					ms := g.LegalMoves()
					next := rulebookCheck(t, g, ms, &mine, positions%every == 0)
					positions++
					if len(ms) == 0 {
						st := g.Status()
						switch {
						case st.Result == engine.Ongoing:
							t.Fatalf("after %v: no legal move, yet the game goes on", g.History())
						case st.Rule == engine.RuleNoMoves && len(mine.moves()) > 0:
							t.Fatalf("after %v: the engine finds no legal move, the rules find %d", g.History(), len(mine.moves()))
						case len(mine.moves()) == 0 && (st.Result != engine.Win || st.Winner == g.ToMove()):
							// A side without a legal move has lost.
							t.Fatalf("after %v: no legal move, yet %+v", g.History(), st)
						}
						break
					}
					pick := rng.IntN(len(ms))
					m := ms[pick]
					path, taken := g.Describe(m)
					if from, _ := rb.squareOf(path[0]); len(taken) > 0 {
						captures++
					} else if mine.at(from) == int8(2*mine.side) {
						kingMoves++
					}
					if err := g.Apply(m); err != nil {
						t.Fatal(err)
					}
					mine = mine.after(next[pick])
				}
			}
			// The games must reach the rules that matter, captures and
			// the kings' moves, not only the opening.
			if captures < games || kingMoves < games/4 {
				t.Errorf("%d positions, only %d captures and %d quiet king moves played", positions, captures, kingMoves)
			}
			t.Logf("%d games, %d positions, %d captures, %d quiet king moves", games, positions, captures, kingMoves)
		})
	}
}
