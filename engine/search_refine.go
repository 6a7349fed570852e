package engine

// The refinements of the chess search, turned on by Limits.Refine (the
// bot's strong chess level) for chess and Chess960. Without them the chess
// search is the one the easy and normal levels were measured with, and the
// refinements change nothing in the other games. Each of them spends the
// node budget better; none of them changes what the search may return (a
// legal move, the same one for the same position and node limit).
//
//   - Transposition table: four times the entries, in buckets of two: the
//     first slot keeps the deeper search, the second the most recent one,
//     so that the deep entries near the root survive the flood of shallow
//     ones a long search writes.
//   - Move order: the table's move; captures that do not lose material
//     (and queen promotions) by the value taken; the two killers; the
//     countermove (the quiet move that last refuted the opponent's move);
//     the other quiet moves by history; last, the captures that lose
//     material in the exchange on their square (static exchange
//     evaluation, chess_see.go).
//   - Exchange pruning: near the horizon, in a node off the principal
//     variation, a move other than the first that loses material in the
//     exchange on its square (a capture more than seeCapturePer a ply of
//     depth, a quiet move more than seeQuietPer times the depth squared)
//     is not searched.
//   - History with gravity: the quiet move that causes a cut-off gains, the
//     quiet moves searched before it lose, and every score stays within
//     ±historyMax, so that the history follows the search rather than the
//     moves that happened to be good early on.
//   - Late move pruning: near the horizon, in a node off the principal
//     variation, quiet moves that come late in that order are not searched.
//   - Improving: a node whose static evaluation is better than that of the
//     same side's node two plies up is cut by reverse futility with a
//     margin one ply smaller; in a node that is not improving, late quiet
//     moves are reduced one ply more.
//   - Reductions: late quiet moves are reduced one ply less when their
//     history is good and one more when it is bad; a node at depth iirMin
//     or more without a move from the table is searched one ply shallower
//     (its search fills the table for the next iteration).

const (
	refineTTBits  = ttBits + 2 // 1M entries (24 MB)
	historyMax    = 16384      // the bound of a history score
	iirMin        = 4          // the least depth of the reduction for a node without a table move
	lmpMax        = 4          // late move pruning up to this depth
	seePruneMax   = 6          // pruning of moves that lose material up to this depth
	seeCapturePer = 100        // a capture is pruned when it loses more than this a ply of depth
	seeQuietPer   = 30         // a quiet move when it loses more than this times the depth squared
	noPrev        = -1         // prev of a node reached by a null move, or the root
)

// lmpCount[d] is the number of moves searched at depth d before late move
// pruning skips the quiet ones.
var lmpCount = [lmpMax + 1]int{0, 4, 7, 12, 19}

// refined is the scratch state only the refinements use.
type refined struct {
	// prev[ply] is the move that led to the node at ply, as from*64+to
	// (noPrev after a null move, and at the root).
	prev [maxPly + 2]int32
	// counter[from][to] is the id of the quiet move that last refuted the
	// move from-to.
	counter [64][64]uint64
	// bits is the board of the position with hash bitsOf as bitboards,
	// read once for the exchange evaluations of its moves.
	bits   chessBits
	bitsOf uint64
	// statics[ply] is the static evaluation of the node at ply (-scoreInf
	// in check).
	statics [maxPly + 2]int
}

// improving reports whether the static evaluation of the node at ply is
// better than that of the side's node before it, two plies up (a node in
// check has no static evaluation: it is not improving, and the node after
// it compares with nothing and is).
func (sr *searcher) improving(ply int) bool {
	if ply < 2 {
		return true
	}
	now, before := sr.statics[ply], sr.statics[ply-2]
	return now != -scoreInf && (before == -scoreInf || now > before)
}

// played records m as the move that leads to the node at ply.
func (sr *searcher) played(ply int, m *move) {
	if sr.refine {
		sr.prev[ply] = int32(m.path[0])*64 + int32(m.path[m.npath-1])
	}
}

// probeRefined returns the entry of hash h in its bucket, or nil.
func (sr *searcher) probeRefined(h uint64) *ttEntry {
	i := h & sr.ttMask &^ 1
	if e := &sr.tt[i]; e.hash == h {
		return e
	}
	if e := &sr.tt[i+1]; e.hash == h {
		return e
	}
	return nil
}

// storeRefined writes e into its bucket: over the entry of the same
// position if there is one; else into the first slot if e was searched at
// least as deep as the entry there (which moves to the second slot); else
// into the second slot.
func (sr *searcher) storeRefined(e ttEntry) {
	i := e.hash & sr.ttMask &^ 1
	first, second := &sr.tt[i], &sr.tt[i+1]
	switch {
	case first.hash == e.hash:
		*first = e
	case second.hash == e.hash:
		if e.depth >= first.depth {
			*second, *first = *first, e
		} else {
			*second = e
		}
	case e.depth >= first.depth:
		*second, *first = *first, e
	default:
		*second = e
	}
}

// Order classes of the refined move order, from the first searched.
const (
	orderTT      = 1 << 30
	orderCapture = 1 << 26 // plus the value taken
	orderKiller  = 1 << 25 // minus the killer's rank
	orderCounter = 1<<25 - 2
	orderBad     = -(1 << 26) // captures that lose material, under every quiet move
)

// orderRefined scores the moves of ply for the refined move order (see the
// top of the file).
func (sr *searcher) orderRefined(s *State, moves []move, ply int, ttm uint64) {
	sc := sr.order[ply][:0]
	var counter uint64
	if p := sr.prev[ply]; p != noPrev {
		counter = sr.counter[p/64][p%64]
	}
	for i := range moves {
		m := &moves[i]
		id := m.id()
		var v int32
		switch {
		case id == ttm && ttm != 0:
			v = orderTT
		case m.ncap > 0:
			victim := sr.victims(s, m)
			attacker := sr.r.kinds[s.Board[m.path[0]].Kind()].value
			v = int32(victim*16 - attacker/16)
			if m.flags&flagPromotion == 0 && attacker > victim && sr.losesExchange(s, m) {
				v += orderBad
			} else {
				v += orderCapture
			}
		case m.flags&flagPromotion != 0:
			if m.tag == uint8(kindQueen) {
				v = orderCapture + int32(sr.r.kinds[kindQueen].value)
			} else {
				v = orderBad // an under-promotion is seldom the move
			}
		case id == sr.killers[ply][0]:
			v = orderKiller
		case id == sr.killers[ply][1]:
			v = orderKiller - 1
		case id == counter:
			v = orderCounter
		default:
			v = sr.history[m.path[0]][m.path[m.npath-1]]
		}
		sc = append(sc, v)
	}
	sr.order[ply] = sc
}

// cutoff updates the killers, the countermove and the history after
// moves[i] caused a beta cut-off at ply and depth: moves[:i] are the moves
// searched (or pruned) before it, in the order of the search.
func (sr *searcher) cutoff(moves []move, i, ply, depth int) {
	m := &moves[i]
	if m.ncap > 0 || m.flags&flagPromotion != 0 {
		return
	}
	id := m.id()
	k := &sr.killers[ply]
	if k[0] != id {
		k[1], k[0] = k[0], id
	}
	if p := sr.prev[ply]; p != noPrev {
		sr.counter[p/64][p%64] = id
	}
	bonus := min(16*depth*depth, historyMax/8)
	sr.addHistory(m, bonus)
	for j := 0; j < i; j++ {
		if q := &moves[j]; q.ncap == 0 && q.flags&flagPromotion == 0 {
			sr.addHistory(q, -bonus)
		}
	}
}

// addHistory adds bonus to m's history, damped as the score nears
// ±historyMax (which it never passes).
func (sr *searcher) addHistory(m *move, bonus int) {
	h := &sr.history[m.path[0]][m.path[m.npath-1]]
	abs := max(bonus, -bonus)
	*h += int32(bonus - int(*h)*abs/historyMax)
}

// lateMovePruned reports whether the quiet move m, the i-th searched in a
// node at depth, is skipped by late move pruning.
func (sr *searcher) lateMovePruned(m *move, depth, i int, pv bool, alpha int) bool {
	if pv || depth > lmpMax || i < lmpCount[depth] || alpha > scoreMate/2 || alpha < -scoreMate/2 {
		return false
	}
	return sr.history[m.path[0]][m.path[m.npath-1]] < historyMax/4
}

// historyReduction is how many plies less (more, when negative) than the
// table says a late quiet move is reduced by, given its history.
func (sr *searcher) historyReduction(m *move) int {
	h := sr.history[m.path[0]][m.path[m.npath-1]]
	switch {
	case h >= historyMax/2:
		return 1
	case h <= -historyMax/2:
		return -1
	}
	return 0
}

// losesExchange reports whether the capture m, of a piece worth less than
// the one that takes, loses material in the exchange that follows.
func (sr *searcher) losesExchange(s *State, m *move) bool {
	return seeBits(sr.boardBits(s), &s.Board, m, s.Turn) < 0
}

// seePruned reports whether the refined search skips move m, not the first
// of a node off the principal variation at depth near the horizon, because
// it loses material: a capture that loses more than seeCapturePer a ply of
// depth, a quiet move that loses more than seeQuietPer times the depth
// squared (the piece moved is taken for less than it is worth).
func (sr *searcher) seePruned(s *State, m *move, depth int) bool {
	if depth > seePruneMax {
		return false
	}
	if m.ncap > 0 || m.flags&flagPromotion != 0 {
		return seeBits(sr.boardBits(s), &s.Board, m, s.Turn) < -seeCapturePer*depth
	}
	return seeBits(sr.boardBits(s), &s.Board, m, s.Turn) < -seeQuietPer*depth*depth
}

// boardBits returns the board of s as bitboards, reading it only when s is
// not the position read last (the exchange evaluations of one node's moves
// share one reading; a search returning to a node after its children reads
// it again).
func (sr *searcher) boardBits(s *State) *chessBits {
	if sr.bitsOf != s.Hash || s.Hash == 0 {
		sr.bits.load(&s.Board)
		sr.bitsOf = s.Hash
	}
	return &sr.bits
}
