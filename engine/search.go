package engine

// Alpha-beta player: negamax with principal-variation search, iterative
// deepening, a transposition table on the Zobrist hash, killer and history
// move ordering, and a quiescence search chosen by the game (forced
// captures for draughts, captures with stand-pat for chess and Chase).
//
// Chess and Chess960 (the games with a check rule) also get the selective
// search of chess programs, in search_chess.go: check extensions, null-move
// pruning, reverse futility and futility pruning, late move reductions,
// aspiration windows at the root, and a quiescence search that answers
// checks and skips captures that lose material. The other games search
// every move to the full depth, as they always have. Limits.Refine adds the
// refinements of search_refine.go to the chess search.

const (
	scoreInf  = 1 << 30
	scoreMate = 1 << 24 // a win at the root; mates further away score less
	maxPly    = 96
	ttBits    = 18
	maxQDepth = 32
)

// TT entry bounds.
const (
	ttExact uint8 = iota + 1
	ttLower
	ttUpper
)

type ttEntry struct {
	hash  uint64
	move  uint64 // id of the best move
	score int32
	depth int8
	flag  uint8
}

// searcher holds the scratch state of one alpha-beta search.
type searcher struct {
	r       *rules
	c       *ctx
	b       *budget
	bufs    [maxPly + 1][]move
	order   [maxPly + 1][]int32
	states  [maxPly + 2]State // child positions, one per ply (kept off the stack)
	tt      []ttEntry
	killers [maxPly + 1][2]uint64
	history [maxSquares][maxSquares]int32
	// line holds the hashes of the game since its last irreversible move
	// followed by the current search path, for repetition checks.
	line []uint64
	// chess turns on the selective search (see search_chess.go).
	chess bool
	// refine turns on the refinements of the chess search and ttMask is
	// the index mask of tt (see search_refine.go).
	refine bool
	ttMask uint64
	// evals caches the chess evaluation (see search_evalcache.go).
	evals []evalEntry
	refined
}

// id identifies a move within a position (TT and killer slots).
func (m *move) id() uint64 {
	return m.key ^ uint64(m.path[0])<<56 ^ uint64(m.path[m.npath-1])<<48 ^ uint64(m.tag)<<40 ^ uint64(m.npath)<<32
}

// runAlphaBeta searches g's position with iterative deepening until the
// budget runs out or maxDepth (0 = no cap) is done.
func runAlphaBeta(g *Game, b *budget, maxDepth int, refine bool, info *SearchInfo) move {
	r := g.r
	sr := &searcher{r: r, c: r.newCtx(), b: b, chess: r.inCheck != nil}
	sr.refine = refine && sr.chess && r.topo.n() == 64
	bits, evalBits := ttBits, evalCacheBits
	if sr.refine {
		bits, evalBits = refineTTBits, refineEvalCacheBits
		sr.prev[0] = noPrev
	}
	sr.tt, sr.ttMask = make([]ttEntry, 1<<bits), 1<<bits-1
	if sr.chess {
		sr.evals = make([]evalEntry, 1<<evalBits)
	}
	for i := range sr.bufs {
		sr.bufs[i] = make([]move, 0, 64)
	}
	s := *g.cur()
	lo := len(g.hist) - 1 - int(s.Clock)
	for i := max(lo, 0); i < len(g.hist)-1; i++ {
		sr.line = append(sr.line, g.hist[i].Hash)
	}
	if maxDepth <= 0 || maxDepth > maxPly-8 {
		maxDepth = maxPly - 8
	}
	root := append([]move(nil), r.generate(&s, sr.c, nil)...)
	best := root[0]
	prev := 0
	for depth := 1; depth <= maxDepth; depth++ {
		score, m, ok := sr.aspire(&s, root, depth, prev)
		if !ok {
			// Interrupted: keep the last complete iteration, unless this
			// one had already proved another move better.
			if m.npath > 0 {
				best = m
			}
			break
		}
		best, prev = m, score
		info.Depth, info.Score = depth, score
		info.PV = sr.pv(&s, depth)
		if score > scoreMate/2 || score < -scoreMate/2 || len(root) == 1 {
			break
		}
	}
	return best
}

// root searches every root move at depth within (alpha, beta) and returns
// the best; ok is false if the budget ran out before the iteration
// finished, and the move is then the one that had beaten the first move
// searched, if any (a zero move otherwise). A score at or below alpha or
// at or above beta is only a bound.
func (sr *searcher) root(s *State, moves []move, depth, alpha, beta int) (int, move, bool) {
	sr.orderMoves(s, moves, 0, sr.ttMove(s))
	for i := range moves {
		sr.pick(moves, 0, i)
	}
	var best, better move
	sr.line = append(sr.line, s.Hash)
	defer func() { sr.line = sr.line[:len(sr.line)-1] }()
	child := &sr.states[1]
	for i := range moves {
		m := &moves[i]
		*child = *s
		sr.r.apply(child, m)
		sr.played(1, m)
		var score int
		if i == 0 {
			score = -sr.negamax(child, depth-1, 1, -beta, -alpha, true)
		} else {
			score = -sr.negamax(child, depth-1, 1, -alpha-1, -alpha, true)
			if score > alpha && !sr.b.stopped {
				score = -sr.negamax(child, depth-1, 1, -beta, -alpha, true)
			}
		}
		if sr.b.stopped {
			return 0, better, false
		}
		if score > alpha || i == 0 {
			alpha, best = score, *m
			if i > 0 {
				better = *m
			}
		}
		if alpha >= beta {
			break
		}
	}
	sr.store(s, depth, alpha, ttExact, best.id())
	return alpha, best, true
}

// repeated reports whether the position has occurred before on the game
// line or the search path (scored as a draw: the side ahead avoids it).
func (sr *searcher) repeated(h uint64) bool {
	for i := len(sr.line) - 2; i >= 0; i -= 2 {
		if sr.line[i] == h {
			return true
		}
	}
	return false
}

// negamax is the main alpha-beta search. nullOK is false right after a
// null move (two in a row would prove nothing).
func (sr *searcher) negamax(s *State, depth, ply, alpha, beta int, nullOK bool) int {
	if sr.b.tick() {
		return 0
	}
	if sr.repeated(s.Hash) || (sr.r.clockLimit > 0 && int(s.Clock) >= sr.r.clockLimit) {
		return 0
	}
	// The games without a check rule see the end of the game before the
	// horizon: their quiescence may not look for it. Chess generates the
	// moves only once neither the transposition table nor the pruning of
	// the node has answered, as its quiescence finds mates and stalemates
	// itself.
	var moves []move
	if !sr.chess {
		moves = sr.r.generate(s, sr.c, sr.bufs[ply])
		sr.bufs[ply] = moves
		if over, res := sr.r.terminalResult(s, len(moves)); over {
			return res * (scoreMate - ply)
		}
	}
	inCheck := sr.chess && sr.r.inCheck(s)
	if inCheck && ply < maxPly/2 {
		depth++ // a check is answered at full depth
	}
	if depth <= 0 || ply >= maxPly-1 {
		return sr.quiesce(s, ply, alpha, beta, 0)
	}
	var ttm uint64
	if e := sr.probe(s.Hash); e != nil {
		ttm = e.move
		if int(e.depth) >= depth {
			sc := scoreFromTT(int(e.score), ply)
			switch {
			case e.flag == ttExact:
				return sc
			case e.flag == ttLower && sc >= beta:
				return sc
			case e.flag == ttUpper && sc <= alpha:
				return sc
			}
		}
	}
	if sr.refine && ttm == 0 && depth >= iirMin {
		depth-- // no move from the table: a cheaper search finds one first
	}
	pv := beta-alpha > 1
	static := -scoreInf
	if sr.chess && !inCheck && (!pv || sr.refine) {
		static = sr.evaluate(s) // the refined search also compares it along the principal variation
	}
	if sr.refine {
		sr.statics[ply] = static
	}
	if sr.chess && !inCheck && !pv {
		if sc, ok := sr.prune(s, depth, ply, beta, static, nullOK); ok {
			return sc
		}
	}
	if sr.chess {
		moves = sr.r.generate(s, sr.c, sr.bufs[ply])
		sr.bufs[ply] = moves
		if over, res := sr.r.terminalResult(s, len(moves)); over {
			return res * (scoreMate - ply)
		}
	}
	sr.orderMoves(s, moves, ply, ttm)
	sr.line = append(sr.line, s.Hash)
	defer func() { sr.line = sr.line[:len(sr.line)-1] }()
	origAlpha := alpha
	best, bestID := -scoreInf, uint64(0)
	child := &sr.states[ply+1]
	for i := range moves {
		sr.pick(moves, ply, i)
		m := &moves[i]
		if sr.refine && i > 0 && !pv && !inCheck && best > -scoreMate/2 && sr.seePruned(s, m, depth) {
			continue
		}
		*child = *s
		sr.r.apply(child, m)
		sr.played(ply+1, m)
		newDepth, red := depth-1, 0
		if sr.chess && i > 0 && !inCheck {
			var skip bool
			red, skip = sr.reduce(child, m, depth, ply, i, pv, static, alpha)
			if skip {
				if best == -scoreInf {
					best = static
				}
				continue
			}
		}
		var score int
		if i == 0 {
			score = -sr.negamax(child, newDepth, ply+1, -beta, -alpha, true)
		} else {
			score = -sr.negamax(child, newDepth-red, ply+1, -alpha-1, -alpha, true)
			if red > 0 && score > alpha && !sr.b.stopped {
				score = -sr.negamax(child, newDepth, ply+1, -alpha-1, -alpha, true)
			}
			if score > alpha && score < beta && !sr.b.stopped {
				score = -sr.negamax(child, newDepth, ply+1, -beta, -alpha, true)
			}
		}
		if sr.b.stopped {
			return 0
		}
		if score > best {
			best, bestID = score, m.id()
		}
		if score > alpha {
			alpha = score
		}
		if alpha >= beta {
			switch {
			case sr.refine:
				sr.cutoff(moves, i, ply, depth)
			case m.ncap == 0:
				k := &sr.killers[ply]
				if k[0] != m.id() {
					k[1], k[0] = k[0], m.id()
				}
				sr.history[m.path[0]][m.path[m.npath-1]] += int32(depth * depth)
			}
			break
		}
	}
	flag := ttExact
	switch {
	case best <= origAlpha:
		flag = ttUpper
	case best >= beta:
		flag = ttLower
	}
	sr.storeAt(s, depth, ply, best, flag, bestID)
	return best
}

// quiesce resolves captures before trusting the static evaluation.
func (sr *searcher) quiesce(s *State, ply, alpha, beta, qd int) int {
	if sr.b.tick() {
		return 0
	}
	r := sr.r
	if sr.chess {
		return sr.quiesceChess(s, ply, alpha, beta, qd)
	}
	eval := r.eval(r, s)
	if r.quiescence == qNone || ply >= maxPly || qd >= maxQDepth {
		return eval
	}
	moves := r.generate(s, sr.c, sr.bufs[ply])
	sr.bufs[ply] = moves
	if over, res := r.terminalResult(s, len(moves)); over {
		return res * (scoreMate - ply)
	}
	best := -scoreInf
	if r.quiescence == qForced {
		if moves[0].ncap == 0 {
			return eval // no capture pending: quiet position
		}
	} else {
		if eval >= beta {
			return eval
		}
		best = eval
		if eval > alpha {
			alpha = eval
		}
	}
	sr.orderMoves(s, moves, ply, 0)
	for i := range moves {
		sr.pick(moves, ply, i)
		m := &moves[i]
		if m.ncap == 0 {
			break // captures are ordered first
		}
		child := &sr.states[ply+1]
		*child = *s
		r.apply(child, m)
		score := -sr.quiesce(child, ply+1, -beta, -alpha, qd+1)
		if sr.b.stopped {
			return 0
		}
		if score > best {
			best = score
		}
		if score > alpha {
			alpha = score
		}
		if alpha >= beta {
			break
		}
	}
	if best == -scoreInf {
		return eval
	}
	return best
}

// store writes the TT entry of the root.
func (sr *searcher) store(s *State, depth, score int, flag uint8, id uint64) {
	sr.storeAt(s, depth, 0, score, flag, id)
}

// storeAt writes a TT entry for a position ply plies below the root
// (always replacing: simple and good enough for searches of a second or
// two). Mate scores are stored as distances from this position, so that
// the entry reads right wherever the position comes up again.
func (sr *searcher) storeAt(s *State, depth, ply, score int, flag uint8, id uint64) {
	e := ttEntry{hash: s.Hash, move: id, score: int32(scoreToTT(score, ply)), depth: int8(depth), flag: flag}
	if sr.refine {
		sr.storeRefined(e)
		return
	}
	sr.tt[s.Hash&sr.ttMask] = e
}

// scoreToTT turns a score from the root's point of view of mate distances
// into one counted from the position ply plies down; scoreFromTT undoes it.
func scoreToTT(score, ply int) int {
	switch {
	case score > scoreMate/2:
		return score + ply
	case score < -scoreMate/2:
		return score - ply
	}
	return score
}

func scoreFromTT(score, ply int) int {
	switch {
	case score > scoreMate/2:
		return score - ply
	case score < -scoreMate/2:
		return score + ply
	}
	return score
}

// ttMove returns the TT move id of s, or 0.
func (sr *searcher) ttMove(s *State) uint64 {
	if e := sr.probe(s.Hash); e != nil {
		return e.move
	}
	return 0
}

// probe returns the TT entry of the position with hash h, or nil.
func (sr *searcher) probe(h uint64) *ttEntry {
	if sr.refine {
		return sr.probeRefined(h)
	}
	if e := &sr.tt[h&sr.ttMask]; e.hash == h {
		return e
	}
	return nil
}

// orderMoves scores the moves of ply for ordering: TT move, then captures
// by the value taken, then killers, then history.
func (sr *searcher) orderMoves(s *State, moves []move, ply int, ttm uint64) {
	if sr.refine {
		sr.orderRefined(s, moves, ply, ttm)
		return
	}
	sc := sr.order[ply][:0]
	for i := range moves {
		m := &moves[i]
		id := m.id()
		var v int32
		switch {
		case id == ttm && ttm != 0:
			v = 1 << 30
		case m.ncap > 0:
			v = 1<<26 + int32(sr.victims(s, m))*16 - int32(sr.r.kinds[s.Board[m.path[0]].Kind()].value)/16
		case id == sr.killers[ply][0]:
			v = 1 << 25
		case id == sr.killers[ply][1]:
			v = 1<<25 - 1
		default:
			v = sr.history[m.path[0]][m.path[m.npath-1]]
			if m.flags&flagPromotion != 0 {
				v += 1 << 24
			}
		}
		sc = append(sc, v)
	}
	sr.order[ply] = sc
}

// victims sums the values of the enemy pieces a move removes.
func (sr *searcher) victims(s *State, m *move) int {
	v := 0
	for i := 0; i < int(m.nchg); i++ {
		old, now := s.Board[m.sq[i]], m.pc[i]
		if old != 0 && old.Owner() != s.Turn && (now == 0 || now.Owner() == s.Turn) {
			v += sr.r.kinds[old.Kind()].value + 1
		}
	}
	return v
}

// pick moves the best-scored remaining move to position i (selection
// sort: cut-offs usually come early, so sorting everything is wasted).
func (sr *searcher) pick(moves []move, ply, i int) {
	sc := sr.order[ply]
	best := i
	for j := i + 1; j < len(moves); j++ {
		if sc[j] > sc[best] {
			best = j
		}
	}
	if best != i {
		moves[i], moves[best] = moves[best], moves[i]
		sc[i], sc[best] = sc[best], sc[i]
	}
}

// pv follows the TT from s to recover the principal variation.
func (sr *searcher) pv(s *State, depth int) []string {
	var out []string
	cur := *s
	c := sr.r.newCtx()
	for i := 0; i < depth; i++ {
		id := sr.ttMove(&cur)
		if id == 0 {
			break
		}
		ms := sr.r.generate(&cur, c, nil)
		k := -1
		for j := range ms {
			if ms[j].id() == id {
				k = j
				break
			}
		}
		if k < 0 {
			break
		}
		out = append(out, string(sr.r.moveText(&cur, ms, k, nil)))
		sr.r.apply(&cur, &ms[k])
	}
	return out
}
