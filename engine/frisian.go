package engine

import (
	"fmt"
	"strconv"
	"strings"
)

// frisianRules: Frisian draughts (Fries dammen, Frysk damjen).
//
// Sources: the rules of the Dambûn Frysk Spul, the Frisian draughts
// association, as given in the Frisian "spulrigels" printed in Swingel 3
// (2000), by Mindsports ("Frisian", among the draughts variants), by
// lidraughts.org (its Frisian rules: the value of a capture, the three
// moves rule as a rule of each king, the draws of small endings) and by
// the "Frisian draughts" article of the English Wikipedia; the value of a
// capture as the association's article 11 puts it, n kings weighing more
// than 2n-1 men and less than 2n, in R. Halbersma's reading (damforum.nl,
// "Perft for all recognized draughts variants", 2010). As implemented:
//
//   - the International board: 10x10, the 50 dark squares numbered 1-50
//     from the top left (PDN), 20 men each on the first four ranks, White
//     moves first;
//   - a man moves one square diagonally forward; a king moves any
//     distance along a diagonal (never orthogonally when not capturing);
//   - men and kings capture in eight directions: diagonally, as in
//     International draughts, and along files and ranks over the squares
//     of their own colour, so that an orthogonal jump spans two squares of
//     the same colour (a man jumps the piece on the next dark square of
//     its file or rank and lands on the dark square behind it; a king
//     flies along the line, over free squares, one enemy piece, onto any
//     free square beyond); the capture goes on while it can, captured
//     pieces are removed when the move ends and cannot be jumped twice;
//   - capturing is mandatory and the capture of the highest value must be
//     played: a man is worth one, a king less than two men but more than
//     one, so that n kings outweigh 2n-1 men and 2n men outweigh n kings
//     (two men before one king, a king and a man before two men, two
//     kings before three men); between captures of equal value, one made
//     by a king must be played;
//   - a man is crowned only when its move ends on the far rank (one that
//     passes it during a capture goes on as a man);
//   - the three moves rule: a player who has men besides kings may not
//     make more than three non-capturing moves in a row with the same
//     king; after the third, that king may only capture, and the player
//     moves another piece otherwise (any move but a non-capturing move of
//     that king frees it). A player without men is not restricted. A
//     player whose only moves are those of the restricted king has no
//     legal move and loses, as any player without a legal move;
//   - a side without a legal move loses;
//   - draws: one king against one king is a draw at once, unless the side
//     to move can capture the other king, or every move of the side to
//     move lets the other capture it (the game then goes on to that
//     capture); two kings against one king (no men) are a draw when the
//     stronger side has not won within 7 moves each, counted from the
//     moment that ending arose (RuleSevenMoves); threefold repetition; the
//     platform's ply limit. The rules have no count of king moves
//     otherwise.
//
// The three moves rule needs a memory the board does not show: State.Aux
// holds, for each side, the square of the king that made its last
// non-capturing moves and how many it made in a row (frisianRun). The
// position string writes it after the pieces as a field "K" followed by
// the runs, e.g. "B:W28,K46:B12:KW2@46" (White's king on 46 has made two
// non-capturing moves in a row); the field is left out when no run is
// counted.
func frisianRules() *rules {
	diag, orth := allDiagonals, []int{dirN, dirE, dirS, dirW}
	eight := append(append([]int(nil), diag...), orth...)
	man := pieceSpec{kind: kindMan, name: "man", letter: 'M', value: 100, promotesTo: kindKing, irreversible: true,
		moves:    []pattern{{kind: patStep, dirs: forwardDiagonals}},
		captures: []pattern{{kind: patJump, dirs: eight}}}
	king := pieceSpec{kind: kindKing, name: "king", letter: 'K', value: 300, king: true,
		moves:    []pattern{{kind: patSlide, dirs: diag}},
		captures: []pattern{{kind: patFlyingJump, dirs: eight}}}
	r := compile(description{
		name: "frisian", title: "Frisian draughts", players: [2]string{"White", "Black"},
		board:     boardSpec{width: 10, height: 10, squares: darkSquares, numbered: true, orthogonal: true},
		pieces:    []pieceSpec{man, king},
		startRows: 4, startKind: kindMan, first: First,
		capture: captureSpec{mandatory: true, prefer: []preference{preferValue, preferKingCaptures}},
		promo:   promoAtEnd,
		end:     endSpec{repetition: 3, endings: frisianEndings},
		quiesce: qForced,
	})
	r.filters = append(r.filters, filterThreeMoves)
	r.rested = frisianRested
	r.encode, r.decode = encodeFrisian, decodeFrisian
	return r
}

// The three moves rule's memory, one byte of State.Aux per side: 0 when
// no run is counted, else the count (1-3) times 64 plus the square of the
// king that made the run (the squares are 0-49).
const (
	frisianMaxRun = 3
	frisianRunSq  = 63
)

// frisianRun returns the king's square and the length of p's run of
// non-capturing moves with one king (0 when none is counted).
func frisianRun(s *State, p Player) (sq, n int) {
	v := int(s.Aux[p])
	return v & frisianRunSq, v >> 6
}

// frisianMen counts each side's men.
func frisianMen(r *rules, s *State) (men [2]int) {
	for sq := 0; sq < r.topo.n(); sq++ {
		if pc := s.Board[sq]; pc != 0 && pc.Kind() == kindMan {
			men[pc.Owner()]++
		}
	}
	return men
}

// frisianRested reports whether the mover's king on sq has made three
// non-capturing moves in a row while its side has men.
func frisianRested(r *rules, s *State, sq int) bool {
	runSq, n := frisianRun(s, s.Turn)
	return n >= frisianMaxRun && runSq == sq && s.Board[sq] == makePiece(s.Turn, kindKing) && frisianMen(r, s)[s.Turn] > 0
}

// filterThreeMoves applies the three moves rule to a legal list: it drops
// the non-capturing moves of a king that has made three in a row (while
// its side has men) and writes into every move the runs it leaves behind
// (move.aux): the mover's run grows by a non-capturing move of the same
// king, starts again at one with another king, and ends with any other
// move or once the side has no men; the opponent's run ends when the move
// takes the king that made it or the opponent's last man.
func filterThreeMoves(r *rules, s *State, ms []move) []move {
	me, opp := s.Turn, s.Turn.other()
	men := frisianMen(r, s)
	runSq, runLen := frisianRun(s, me)
	blocked := none
	if men[me] > 0 && runLen >= frisianMaxRun {
		blocked = runSq
	}
	oppSq, oppLen := frisianRun(s, opp)
	k := 0
	for i := range ms {
		m := &ms[i]
		from := m.from()
		if m.ncap == 0 && from == blocked {
			continue
		}
		var mine uint8
		if men[me] > 0 && m.ncap == 0 && s.Board[from].Kind() == kindKing {
			n := 1
			if runLen > 0 && runSq == from {
				n = runLen + 1
			}
			mine = uint8(n<<6 | m.to())
		}
		theirs := s.Aux[opp]
		if m.ncap > 0 {
			menTaken := int(m.ncap) - int(m.nking)
			if men[opp]-menTaken <= 0 {
				theirs = 0
			}
			for j := 0; j < int(m.ncap) && oppLen > 0; j++ {
				if m.capturedAt(j) == oppSq {
					theirs = 0
				}
			}
		}
		m.auxMask = 1<<me | 1<<opp
		m.aux[me], m.aux[opp] = mine, theirs
		if k != i {
			ms[k] = *m
		}
		k++
	}
	return ms[:k]
}

// encodeFrisian writes the position string of the draughts family and,
// when a run of king moves is counted, the "K" field of the runs.
func encodeFrisian(r *rules, s *State) string {
	out := encodeDraughts(r, s)
	var runs []string
	for p := First; p <= Second; p++ {
		if sq, n := frisianRun(s, p); n > 0 {
			runs = append(runs, fmt.Sprintf("%c%d@%s", "WB"[p], n, r.topo.names[sq]))
		}
	}
	if len(runs) > 0 {
		out += ":K" + strings.Join(runs, ",")
	}
	return out
}

// decodeFrisian reads what encodeFrisian writes. A run must name a square
// holding a king of its side, be 1 to 3 moves long and belong to a side
// that has men; anything else is refused as a bad position.
func decodeFrisian(r *rules, text string) (State, error) {
	fields := strings.Split(strings.TrimSuffix(strings.Join(strings.Fields(text), ""), "."), ":")
	var runField string
	hasRuns := false
	if n := len(fields); n > 1 && strings.HasPrefix(strings.ToUpper(fields[n-1]), "K") {
		runField, fields, hasRuns = fields[n-1][1:], fields[:n-1], true
	}
	s, err := decodeDraughts(r, strings.Join(fields, ":"))
	if err != nil || !hasRuns {
		return s, err
	}
	men := frisianMen(r, &s)
	seen := [2]bool{}
	for _, run := range strings.Split(runField, ",") {
		bad := func(why string) (State, error) {
			return State{}, fmt.Errorf("%w: king moves %q: %s", ErrBadPosition, run, why)
		}
		if len(run) < 4 {
			return bad(`want side, count, "@" and square, as "W2@46"`)
		}
		var p Player
		switch run[0] {
		case 'W', 'w':
			p = First
		case 'B', 'b':
			p = Second
		default:
			return bad("the side is W or B")
		}
		at := strings.IndexByte(run, '@')
		if at < 0 {
			return bad(`no "@" before the square`)
		}
		n, err := strconv.Atoi(run[1:at])
		if err != nil || n < 1 || n > frisianMaxRun {
			return bad("the count is 1, 2 or 3")
		}
		sq, ok := r.topo.square(run[at+1:])
		if !ok {
			return bad("no such square")
		}
		switch {
		case seen[p]:
			return bad("the side has two runs")
		case s.Board[sq] != makePiece(p, kindKing):
			return bad("no king of that side on the square")
		case men[p] == 0:
			return bad("a side without men is not restricted")
		}
		seen[p] = true
		s.Aux[p] = uint8(n<<6 | sq)
	}
	return s, nil
}

// frisianEndings applies the Frisian draws of small endings: one king
// against one king, and two kings against one king after 7 moves each.
func frisianEndings(g *Game) Status {
	m := g.r.material(g.cur())
	if loneKing(m[0]) && loneKing(m[1]) {
		if frisianKingCanWin(g) {
			return Status{}
		}
		return end(Draw, 0, RuleLoneKings, "one king against one king")
	}
	twoOne := func(m [2][2]int) bool {
		return loneKing(m[0]) && m[1] == [2]int{0, 2} || loneKing(m[1]) && m[0] == [2]int{0, 2}
	}
	if !twoOne(m) {
		return Status{}
	}
	start := g.stretch(14, func(s *State) bool { return twoOne(g.r.material(s)) })
	if len(g.hist)-1-start >= 14 {
		return end(Draw, 0, RuleSevenMoves, "two kings did not take the lone king in 7 moves")
	}
	return Status{}
}

// frisianKingCanWin reports, in an ending of one king against one king,
// whether the side to move can capture the other king at once, or must
// let its own king be captured whatever it plays.
func frisianKingCanWin(g *Game) bool {
	ms := g.rawMoves()
	if len(ms) == 0 {
		return true // the side to move loses by the general rule
	}
	if ms[0].ncap > 0 {
		return true
	}
	c := g.r.newCtx()
	var replies []move
	for i := range ms {
		s := *g.cur()
		g.r.apply(&s, &ms[i])
		replies = g.r.generate(&s, c, replies)
		if len(replies) == 0 {
			return true // the other king is left without a move and loses
		}
		if replies[0].ncap == 0 {
			return false
		}
	}
	return true
}
