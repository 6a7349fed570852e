package engine

import (
	"math"
	"math/bits"
)

// The selective search of the chess games (those with a check rule). Every
// piece of it trades a little accuracy for depth: the node budget of a
// level goes into the moves that matter.
//
//   - Check extension (in negamax): a side in check searches one ply more.
//   - Reverse futility: a quiet position whose static score beats beta by
//     a margin that grows with depth is cut at once.
//   - Null move: if passing the move still leaves the side to move above
//     beta after a reduced search, the node is cut. Not in check, not
//     without pieces (zugzwang is common in pawn endings).
//   - Futility: near the horizon, quiet moves of a position far below alpha
//     are not searched.
//   - Late move reductions: quiet moves late in the order are searched
//     shallower first, and again at full depth only if they beat alpha.
//   - Aspiration windows: from depth 5 on the root is searched in a window
//     round the last score, widened when the score falls outside.
//   - Quiescence answers checks with every evasion and leaves out the
//     captures that lose material at once (a defended piece taken by a
//     more valuable one) or cannot bring the score near alpha.

// Pruning and reduction parameters.
const (
	aspirationStart    = 5   // the first depth searched in a window
	aspirationWindow   = 30  // its half-width, centipawns
	reverseFutilityMax = 6   // reverse futility up to this depth
	reverseFutilityPer = 85  // its margin per ply
	nullMoveMin        = 3   // null move from this depth
	futilityMax        = 3   // futility pruning up to this depth
	futilityBase       = 100 // its margin: base plus per ply
	futilityPer        = 120
	deltaMargin        = 200 // quiescence: a capture must bring the score this near alpha
)

// lmrTable[d][i] is the reduction of the i-th move (in search order) at
// depth d: it grows with the logarithms of both.
var lmrTable = func() (t [64][64]int8) {
	for d := 1; d < 64; d++ {
		for i := 1; i < 64; i++ {
			t[d][i] = int8(0.5 + math.Log(float64(d))*math.Log(float64(i))/2.2)
		}
	}
	return t
}()

// aspire runs the root search at depth in a window round the score of the
// previous iteration (chess from aspirationStart on; a full window
// otherwise), widening it until the score falls inside.
func (sr *searcher) aspire(s *State, moves []move, depth, prev int) (int, move, bool) {
	if !sr.chess || depth < aspirationStart || prev > scoreMate/2 || prev < -scoreMate/2 {
		return sr.root(s, moves, depth, -scoreInf, scoreInf)
	}
	delta := aspirationWindow
	alpha, beta := prev-delta, prev+delta
	for {
		score, m, ok := sr.root(s, moves, depth, alpha, beta)
		if !ok {
			return score, m, false
		}
		switch {
		case score <= alpha && alpha > -scoreInf:
			alpha = max(score-delta, -scoreInf)
		case score >= beta && beta < scoreInf:
			beta = min(score+delta, scoreInf)
		default:
			return score, m, true
		}
		delta *= 3
		if delta > 600 {
			alpha, beta = -scoreInf, scoreInf
		}
	}
}

// prune tries the cut-offs of a non-PV node not in check before its moves
// are searched: reverse futility, then the null move. ok says the node is
// cut with the score returned.
func (sr *searcher) prune(s *State, depth, ply, beta, static int, nullOK bool) (int, bool) {
	if beta > scoreMate/2 || beta < -scoreMate/2 {
		return 0, false
	}
	if depth <= reverseFutilityMax {
		margin := reverseFutilityPer * depth
		if sr.refine && sr.improving(ply) {
			margin -= reverseFutilityPer
		}
		if static-margin >= beta {
			return static - margin, true
		}
	}
	if !nullOK || depth < nullMoveMin || static < beta || !hasPieces(s) {
		return 0, false
	}
	r := sr.r
	child := &sr.states[ply+1]
	*child = *s
	child.Turn ^= 1
	child.Hash ^= r.z.turn
	if ep := child.Aux[auxEP]; ep != 0 {
		child.Hash ^= r.z.aux[auxEP][ep]
		child.Aux[auxEP] = 0
	}
	child.Ply++
	if child.Clock < 0xffff {
		child.Clock++
	}
	red := 3 + depth/6 + min((static-beta)/200, 2)
	sr.prev[ply+1] = noPrev
	sr.line = append(sr.line, s.Hash)
	score := -sr.negamax(child, depth-1-red, ply+1, -beta, -beta+1, false)
	sr.line = sr.line[:len(sr.line)-1]
	if sr.b.stopped {
		return 0, true
	}
	if score >= beta {
		if score > scoreMate/2 {
			score = beta // a mate found after passing is no mate
		}
		return score, true
	}
	return 0, false
}

// hasPieces reports whether the side to move has a piece other than pawns
// and the king.
func hasPieces(s *State) bool {
	for sq := 0; sq < 64; sq++ {
		if pc := s.Board[sq]; pc != 0 && pc.Owner() == s.Turn {
			if k := pc.Kind(); k != kindPawn && k != kindChessKing {
				return true
			}
		}
	}
	return false
}

// reduce decides how a move of a node not in check is searched, given
// child, the position after it, and i, its place in the search order (at
// least 1). skip says the move is pruned (futility); otherwise red is the
// number of plies its first search is reduced by.
func (sr *searcher) reduce(child *State, m *move, depth, ply, i int, pv bool, static, alpha int) (red int, skip bool) {
	if m.ncap > 0 || m.flags&flagPromotion != 0 || sr.r.inCheck(child) {
		return 0, false
	}
	if !pv && depth <= futilityMax && static != -scoreInf && alpha < scoreMate/2 && alpha > -scoreMate/2 &&
		static+futilityBase+futilityPer*depth <= alpha {
		return 0, true
	}
	if sr.refine && sr.lateMovePruned(m, depth, i, pv, alpha) {
		return 0, true
	}
	if depth < 3 || i < 3 {
		return 0, false
	}
	red = int(lmrTable[min(depth, 63)][min(i, 63)])
	id := m.id()
	if pv {
		red--
	}
	if id == sr.killers[ply][0] || id == sr.killers[ply][1] {
		red--
	}
	if sr.refine {
		red -= sr.historyReduction(m)
		if !sr.improving(ply) {
			red++
		}
	}
	return max(0, min(red, depth-2)), false
}

// quiesceChess is the quiescence search of the chess games: in check,
// every evasion; otherwise stand pat, then captures and queen promotions
// that can matter.
func (sr *searcher) quiesceChess(s *State, ply, alpha, beta, qd int) int {
	r := sr.r
	if ply >= maxPly || qd >= maxQDepth {
		return sr.evaluate(s)
	}
	// The end of the game comes first: a position without a legal move
	// scores as checkmate or stalemate (the chess games' end test only
	// asks whether a legal move exists). A side not in check then stands
	// pat, and its moves are generated only if that does not cut.
	inCheck, hasMove := sr.standing(s, ply)
	var moves []move
	if inCheck {
		moves = sr.tactical(s, ply, true)
		hasMove = len(moves) > 0
	}
	if !hasMove {
		if over, res := r.terminalResult(s, 0); over {
			return res * (scoreMate - ply)
		}
	}
	best, eval := -scoreInf, 0
	if !inCheck {
		eval = sr.evaluate(s)
		if eval >= beta {
			return eval
		}
		best = eval
		alpha = max(alpha, eval)
		moves = sr.tactical(s, ply, false)
	}
	sr.orderMoves(s, moves, ply, 0)
	child := &sr.states[ply+1]
	for i := range moves {
		sr.pick(moves, ply, i)
		m := &moves[i]
		if !inCheck && m.ncap > 0 && m.flags&flagPromotion == 0 {
			victim := sr.victims(s, m)
			if eval+victim+deltaMargin <= alpha {
				continue
			}
			if r.kinds[s.Board[m.path[0]].Kind()].value > victim && sr.badCapture(s, m) {
				continue
			}
		}
		*child = *s
		r.apply(child, m)
		if sr.refine {
			sr.played(ply+1, m)
		}
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

// standing reports whether the side to move in s, searched at ply, is in
// check and, when it is not, whether it has a legal move: by the rules'
// standing hook, or else from the full list.
func (sr *searcher) standing(s *State, ply int) (inCheck, hasMove bool) {
	r := sr.r
	if r.standing != nil {
		return r.standing(r, s, sr.c, sr.bufs[ply])
	}
	if r.inCheck(s) {
		return true, false
	}
	moves := r.generate(s, sr.c, sr.bufs[ply])
	sr.bufs[ply] = moves
	return false, len(moves) > 0
}

// tactical returns the moves quiescence searches at ply: every legal move
// when the side to move is in check, else its captures and queen
// promotions. The rules' tactical hook generates the second list by
// itself; without it the full list is filtered.
func (sr *searcher) tactical(s *State, ply int, inCheck bool) []move {
	r := sr.r
	var moves []move
	if r.tactical != nil && !inCheck {
		moves = r.tactical(r, s, sr.c, sr.bufs[ply])
	} else if moves = r.generate(s, sr.c, sr.bufs[ply]); !inCheck {
		moves = keepTactical(moves)
	}
	sr.bufs[ply] = moves
	return moves
}

// badCapture reports whether the capture m, of a piece worth less than the
// one that takes, is left out of the quiescence search as losing: in the
// refined search when it loses the exchange on its square, otherwise when
// the piece taken is defended at all.
func (sr *searcher) badCapture(s *State, m *move) bool {
	if sr.refine {
		return sr.losesExchange(s, m)
	}
	return chessAttacked(&s.Board, m, int(m.path[m.npath-1]), s.Turn.other())
}

// chessAttacked reports whether side by attacks sq once move m has been
// played on b (the board before it).
func chessAttacked(b *[maxSquares]Piece, m *move, sq int, by Player) bool {
	var after [64]Piece
	copy(after[:], b[:64])
	for i := 0; i < int(m.nchg); i++ {
		after[m.sq[i]] = m.pc[i]
	}
	ct := chessTablesOnce()
	if holds(&after, ct.knight[sq], makePiece(by, kindKnight)) || holds(&after, ct.king[sq], makePiece(by, kindChessKing)) {
		return true
	}
	f, r := sq%8, sq/8
	pr := r - 1 // the rank the attacking pawns stand on
	if by == Second {
		pr = r + 1
	}
	if pr >= 0 && pr < 8 {
		pawn := makePiece(by, kindPawn)
		if (f > 0 && after[pr*8+f-1] == pawn) || (f < 7 && after[pr*8+f+1] == pawn) {
			return true
		}
	}
	queen := makePiece(by, kindQueen)
	for _, d := range [8][2]int{{1, 0}, {-1, 0}, {0, 1}, {0, -1}, {1, 1}, {1, -1}, {-1, 1}, {-1, -1}} {
		slider := makePiece(by, kindRook)
		if d[0] != 0 && d[1] != 0 {
			slider = makePiece(by, kindBishop)
		}
		for ff, rr := f+d[0], r+d[1]; ff >= 0 && ff < 8 && rr >= 0 && rr < 8; ff, rr = ff+d[0], rr+d[1] {
			if pc := after[rr*8+ff]; pc != 0 {
				if pc == slider || pc == queen {
					return true
				}
				break
			}
		}
	}
	return false
}

// holds reports whether one of the squares of mask holds pc on b.
func holds(b *[64]Piece, mask uint64, pc Piece) bool {
	for ; mask != 0; mask &= mask - 1 {
		if b[bits.TrailingZeros64(mask)] == pc {
			return true
		}
	}
	return false
}
