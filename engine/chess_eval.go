package engine

import "math/bits"

// The chess evaluation: a tapered score, the weighted mean of a middlegame
// and an endgame score by the material left on the board (the game phase).
// Its terms are material, piece-square tables, mobility, pawn structure
// (doubled, isolated and passed pawns), the bishop pair, rooks on open
// files, king safety (the pawn shield and the pieces bearing on the squares
// round the king), threats (pieces attacked by lesser ones, or attacked
// and not defended), a tempo bonus, and in pawnless endings a drive of the
// lone king to the edge so that the search finds the mate. The position
// is read as bitboards (chessBits), so each term is a few masks and
// population counts.
//
// Squares are numbered a1 = 0 to h8 = 63, rank by rank; White's tables are
// read for Black with the rank mirrored (sq ^ 56).

// phaseWeight is each kind's share of the game phase: 24 with every piece
// on the board (the middlegame), 0 with pawns and kings alone.
var phaseWeight = [7]int{kindKnight: 1, kindBishop: 1, kindRook: 2, kindQueen: 4}

const phaseFull = 24

// Material in centipawns, middlegame and endgame.
var (
	materialMG = [7]int{kindPawn: 85, kindKnight: 325, kindBishop: 335, kindRook: 480, kindQueen: 975}
	materialEG = [7]int{kindPawn: 105, kindKnight: 310, kindBishop: 330, kindRook: 535, kindQueen: 990}
)

// Passed pawn bonus by the pawn's rank counted from its own side (0-7).
var (
	passedMG = [8]int{0, 5, 8, 14, 26, 45, 70, 0}
	passedEG = [8]int{0, 12, 18, 32, 56, 92, 140, 0}
)

// Mobility: per kind, the bonus per reachable square, counted from the
// square count the piece has on average (so a typical piece scores 0).
var (
	mobilityMG   = [7]int{kindKnight: 4, kindBishop: 5, kindRook: 3, kindQueen: 1}
	mobilityEG   = [7]int{kindKnight: 4, kindBishop: 5, kindRook: 4, kindQueen: 2}
	mobilityBase = [7]int{kindKnight: 4, kindBishop: 6, kindRook: 6, kindQueen: 12}
)

// The threats (see threats): a piece attacked by a pawn, a rook or queen
// by a minor piece, a queen by a rook, a piece and a pawn left hanging.
var (
	threatMG = [5]int{55, 40, 40, 30, 6}
	threatEG = [5]int{40, 35, 30, 20, 12}
)

// kingAttackWeight is the weight of a piece that bears on the squares
// round the enemy king; kingDanger turns the summed weights into a
// middlegame penalty that grows faster than linearly.
var kingAttackWeight = [7]int{kindKnight: 2, kindBishop: 2, kindRook: 3, kindQueen: 5}

// chessEvalTables holds the precomputed tables of the evaluation.
type chessEvalTables struct {
	pstMG, pstEG [7][64]int
	kingZone     [64]uint64 // the king's square and its neighbours
	adjacent     [8]uint64  // the files next to a file
	fileMask     [8]uint64
}

var evalTables = newChessEvalTables()

func newChessEvalTables() *chessEvalTables {
	t := &chessEvalTables{}
	for f := 0; f < 8; f++ {
		for r := 0; r < 8; r++ {
			t.fileMask[f] |= 1 << (r*8 + f)
		}
	}
	for f := 0; f < 8; f++ {
		if f > 0 {
			t.adjacent[f] |= t.fileMask[f-1]
		}
		if f < 7 {
			t.adjacent[f] |= t.fileMask[f+1]
		}
	}
	for sq := 0; sq < 64; sq++ {
		f, r := sq%8, sq/8
		for df := -1; df <= 1; df++ {
			for dr := -1; dr <= 1; dr++ {
				if nf, nr := f+df, r+dr; nf >= 0 && nf < 8 && nr >= 0 && nr < 8 {
					t.kingZone[sq] |= 1 << (nr*8 + nf)
				}
			}
		}
		// Distances from the centre: 0 on the four middle files (ranks)
		// ... 3 on the edge.
		cf, cr := 3-min(f, 7-f), 3-min(r, 7-r)
		centre := 6 - cf - cr // 0 in a corner, 6 in the middle
		edge := max(cf, cr)   // 0 in the middle, 3 on the edge
		// Pawns: a little for each step forward, more in the endgame; the
		// middle pawns gain for standing on the fourth and fifth ranks and
		// lose for staying at home, where they block the bishops.
		if r >= 1 && r <= 6 {
			t.pstMG[kindPawn][sq] = 3 * (r - 1)
			t.pstEG[kindPawn][sq] = 6 * (r - 1)
			if f == 3 || f == 4 {
				switch r {
				case 1:
					t.pstMG[kindPawn][sq] -= 12
				case 3, 4:
					t.pstMG[kindPawn][sq] += 14
				}
			}
			if (f == 2 || f == 5) && r >= 2 && r <= 4 {
				t.pstMG[kindPawn][sq] += 5
			}
		}
		// Knights want the middle, and hate the rim.
		t.pstMG[kindKnight][sq] = 7*centre - 22 - 8*max(0, edge-2)
		t.pstEG[kindKnight][sq] = 5*centre - 15
		// Bishops: the middle and the long diagonals.
		t.pstMG[kindBishop][sq] = 3*centre - 8
		t.pstEG[kindBishop][sq] = 3*centre - 9
		if f == r || f+r == 7 {
			t.pstMG[kindBishop][sq] += 6
		}
		// Rooks: the seventh rank and the middle files.
		t.pstMG[kindRook][sq] = 4 - 2*cf
		if r == 6 {
			t.pstMG[kindRook][sq] += 18
			t.pstEG[kindRook][sq] += 10
		}
		// The queen: a little centralisation, no early excursions.
		t.pstMG[kindQueen][sq] = 2*centre - 6
		if r >= 5 {
			t.pstMG[kindQueen][sq] -= 4
		}
		t.pstEG[kindQueen][sq] = 4*centre - 12
		// The king hides behind its pawns in the middlegame (castled on
		// either wing best) and walks to the middle in the endgame.
		switch {
		case r == 0 && (f <= 2 || f >= 6):
			t.pstMG[kindChessKing][sq] = 22
		case r == 0:
			t.pstMG[kindChessKing][sq] = 0
		default:
			t.pstMG[kindChessKing][sq] = -18*r - 4
		}
		t.pstEG[kindChessKing][sq] = 9*centre - 27
	}
	return t
}

// evalChess returns the evaluation from the side to move's point of view.
func evalChess(_ *rules, s *State) int {
	return chessScore(&s.Board, s.Turn)
}

// evalSide collects one side's figures during an evaluation.
type evalSide struct {
	mg, eg     int
	phase      int
	pawns      uint64 // squares of the side's pawns
	pieces     uint64 // squares of every piece of the side
	bishops    int
	pawnCount  int
	nonPawn    int // material of the pieces other than pawns and king (endgame values)
	king       int // king square (-1: none)
	attackers  int // pieces bearing on the enemy king's zone
	attackSum  int // their weights
	pawnAttack uint64
	// The squares the side's pieces attack: all of them (pawns and the
	// king included), the knights' and bishops', and the rooks'.
	attacks, minorAttack, rookAttack uint64
}

// chessScore evaluates board b for the side turn. It reads the board into
// bitboards and walks each kind's pieces; every term is a sum, so the order
// in which the pieces are visited does not matter.
func chessScore(b *[maxSquares]Piece, turn Player) int {
	var cb chessBits
	cb.load(b)
	var sd [2]evalSide
	readSides(&cb, &sd)
	for p := range sd {
		s, o := &sd[p], &sd[p^1]
		if s.bishops >= 2 {
			s.mg += 28
			s.eg += 48
		}
		pawnStructure(s, o, Player(p))
		threats(s, o, &cb)
		kingSafety(s, o, Player(p))
	}
	phase := min(sd[0].phase+sd[1].phase, phaseFull)
	mg := sd[0].mg - sd[1].mg
	eg := sd[0].eg - sd[1].eg
	eg += mopUp(&sd)
	eg = scaleEndgame(&sd, eg)
	score := (mg*phase + eg*(phaseFull-phase)) / phaseFull
	if turn == Second {
		score = -score
	}
	return score + 12 // the side to move has the tempo
}

// readSides fills each side's figures from the board cb: material and
// tables, the sets of pawns and pieces, the squares attacked, and the
// terms scored piece by piece (mobility, attacks on the king, rooks on
// files).
func readSides(cb *chessBits, sd *[2]evalSide) {
	ct := chessTablesOnce()
	for p := First; p <= Second; p++ {
		s := &sd[p]
		own := cb.side[p]
		s.pieces = own
		s.pawns = cb.kind[kindPawn] & own
		s.pawnCount = bits.OnesCount64(s.pawns)
		s.king = -1
		if k := cb.kind[kindChessKing] & own; k != 0 {
			s.king = bits.TrailingZeros64(k)
		}
		if p == First {
			s.pawnAttack = (s.pawns&^fileA)<<7 | (s.pawns&^fileH)<<9
		} else {
			s.pawnAttack = (s.pawns&^fileA)>>9 | (s.pawns&^fileH)>>7
		}
		mirror := 0
		if p == Second {
			mirror = 56
		}
		for k := kindPawn; k <= kindChessKing; k++ {
			set := cb.kind[k] & own
			n := bits.OnesCount64(set)
			s.phase += phaseWeight[k] * n
			s.mg += materialMG[k] * n
			s.eg += materialEG[k] * n
			if k != kindPawn && k != kindChessKing {
				s.nonPawn += materialEG[k] * n
			}
			for ; set != 0; set &= set - 1 {
				t := bits.TrailingZeros64(set) ^ mirror
				s.mg += evalTables.pstMG[k][t]
				s.eg += evalTables.pstEG[k][t]
			}
		}
		s.bishops = bits.OnesCount64(cb.kind[kindBishop] & own)
	}
	occ := cb.occ
	for p := range sd {
		s := &sd[p]
		s.attacks = s.pawnAttack
		if s.king >= 0 {
			s.attacks |= ct.king[s.king]
		}
	}
	// Mobility, attacks on the king, rooks on files.
	for p := First; p <= Second; p++ {
		s, o := &sd[p], &sd[p^1]
		for k := kindKnight; k <= kindQueen; k++ {
			for set := cb.kind[k] & s.pieces; set != 0; set &= set - 1 {
				sq := bits.TrailingZeros64(set)
				var att uint64
				switch k {
				case kindKnight:
					att = ct.knight[sq]
				case kindBishop:
					att = ct.bishopAttacks(sq, occ)
				case kindRook:
					att = ct.rookAttacks(sq, occ)
				default:
					att = ct.rookAttacks(sq, occ) | ct.bishopAttacks(sq, occ)
				}
				s.attacks |= att
				switch k {
				case kindKnight, kindBishop:
					s.minorAttack |= att
				case kindRook:
					s.rookAttack |= att
				}
				// Squares the piece may go to that no enemy pawn guards.
				n := bits.OnesCount64(att &^ s.pieces &^ o.pawnAttack)
				s.mg += mobilityMG[k] * (n - mobilityBase[k])
				s.eg += mobilityEG[k] * (n - mobilityBase[k])
				if o.king >= 0 && att&evalTables.kingZone[o.king] != 0 {
					s.attackers++
					s.attackSum += kingAttackWeight[k] * bits.OnesCount64(att&evalTables.kingZone[o.king])
				}
				if k == kindRook {
					f := evalTables.fileMask[sq%8]
					switch {
					case f&(s.pawns|o.pawns) == 0:
						s.mg += 24
						s.eg += 10
					case f&s.pawns == 0:
						s.mg += 11
						s.eg += 6
					}
				}
			}
		}
	}
}

// pawnStructure scores s's pawns: doubled and isolated pawns cost, passed
// pawns gain by how far they have come (more when no piece stands in
// their way). The pawn sets are read as whole files and spans: a pawn is
// doubled when another of its side stands on its file, isolated when no
// pawn of its side stands on a neighbouring file, and passed when no enemy
// pawn stands ahead of it on its own or a neighbouring file.
func pawnStructure(s, o *evalSide, p Player) {
	doubled := s.pawns & (fillUp(s.pawns<<8) | fillDown(s.pawns>>8))
	files := fileSet(s.pawns)
	isolated := s.pawns & spreadFiles(files&^(files<<1|files>>1))
	nd, ni := bits.OnesCount64(doubled), bits.OnesCount64(isolated)
	s.mg -= 6*nd + 11*ni
	s.eg -= 12*nd + 14*ni
	var span uint64 // the squares an enemy pawn guards or blocks on its way
	if p == First {
		span = fillDown(o.pawns >> 8)
	} else {
		span = fillUp(o.pawns << 8)
	}
	span |= (span&^fileH)<<1 | (span&^fileA)>>1
	for pw := s.pawns &^ span; pw != 0; pw &= pw - 1 {
		sq := bits.TrailingZeros64(pw)
		rel := sq / 8
		if p == Second {
			rel = 7 - rel
		}
		s.mg += passedMG[rel]
		s.eg += passedEG[rel]
		if (s.pieces|o.pieces)&evalTables.fileMask[sq%8]&frontRanks(sq, p) == 0 {
			s.eg += passedEG[rel] / 3
		}
		// The enemy king far from the pawn's path cannot stop it.
		if o.king >= 0 {
			s.eg += 4 * (kingDistance(o.king, queeningSquare(sq, p)) - 1) * rel / 3
		}
	}
}

// fillUp adds to a set of squares every square above them on their files;
// fillDown every square below.
func fillUp(x uint64) uint64 {
	x |= x << 8
	x |= x << 16
	return x | x<<32
}

func fillDown(x uint64) uint64 {
	x |= x >> 8
	x |= x >> 16
	return x | x>>32
}

// fileSet is the set of files (bit f for file f) holding a square of x;
// spreadFiles turns a set of files back into their squares.
func fileSet(x uint64) uint64 { return fillDown(x) & 0xff }

func spreadFiles(files uint64) uint64 { return (files & 0xff) * fileA }

// threats scores the pieces of s that o attacks (after the attacks of
// both sides are known): a piece attacked by a pawn, a rook or queen
// attacked by a knight or bishop, a queen attacked by a rook, and a piece
// or pawn attacked and not defended at all. The search sees the captures
// of the side to move; these terms let a quiet position at the horizon
// tell a safe piece from one that is about to be lost.
func threats(s, o *evalSide, cb *chessBits) {
	pieces := s.pieces &^ s.pawns &^ cb.kind[kindChessKing]
	byPawn := pieces & o.pawnAttack
	byMinor := pieces & (cb.kind[kindRook] | cb.kind[kindQueen]) & o.minorAttack &^ byPawn
	byRook := pieces & cb.kind[kindQueen] & o.rookAttack &^ byPawn &^ byMinor
	loose := o.attacks &^ s.attacks
	hanging := bits.OnesCount64(pieces & loose &^ byPawn &^ byMinor &^ byRook)
	hangingPawns := bits.OnesCount64(s.pawns & loose)
	nPawn, nMinor, nRook := bits.OnesCount64(byPawn), bits.OnesCount64(byMinor), bits.OnesCount64(byRook)
	s.mg -= threatMG[0]*nPawn + threatMG[1]*nMinor + threatMG[2]*nRook + threatMG[3]*hanging + threatMG[4]*hangingPawns
	s.eg -= threatEG[0]*nPawn + threatEG[1]*nMinor + threatEG[2]*nRook + threatEG[3]*hanging + threatEG[4]*hangingPawns
}

// frontRanks is the set of squares on the ranks in front of sq, as seen by p.
func frontRanks(sq int, p Player) uint64 {
	r := sq / 8
	if p == First {
		if r == 7 {
			return 0
		}
		return ^uint64(0) << uint(8*(r+1))
	}
	if r == 0 {
		return 0
	}
	return ^uint64(0) >> uint(8*(8-r))
}

// queeningSquare is the square where a pawn of p on sq promotes.
func queeningSquare(sq int, p Player) int {
	if p == First {
		return 56 + sq%8
	}
	return sq % 8
}

// kingDistance is the king's distance between two squares.
func kingDistance(a, b int) int {
	df, dr := a%8-b%8, a/8-b/8
	return max(df, -df, dr, -dr)
}

// kingSafety scores s's king in the middlegame: own pawns in front of it,
// open files next to it, and the enemy pieces bearing on its zone.
func kingSafety(s, o *evalSide, p Player) {
	if s.king < 0 {
		return
	}
	f, r := s.king%8, s.king/8
	rel := r
	if p == Second {
		rel = 7 - r
	}
	if rel <= 1 {
		for df := -1; df <= 1; df++ {
			ff := f + df
			if ff < 0 || ff > 7 {
				continue
			}
			file := evalTables.fileMask[ff]
			shield := s.pawns & file & frontRanks(s.king, p)
			switch {
			case shield == 0:
				s.mg -= 18
				if o.pawns&file == 0 {
					s.mg -= 12 // a fully open file toward the king
				}
			case shield&evalTables.kingZone[s.king] == 0 && shield&evalTables.kingZone[s.king+pawnStep(p)] == 0:
				s.mg -= 8 // the shield pawn has advanced two squares or more
			}
		}
	}
	if o.attackers >= 2 && o.phase >= 4 {
		// The danger grows with the square of the weight: one piece near
		// the king is no attack, a queen and two helpers are.
		w := o.attackSum * (o.attackers - 1)
		s.mg -= min(w*w/12+w*3, 500)
	}
}

// pawnStep is the square step of p's pawns.
func pawnStep(p Player) int {
	if p == First {
		return 8
	}
	return -8
}

// mopUp helps the search finish won pawnless endings: the side that is a
// rook or more ahead in pieces and whose opponent has no pawns gains for
// driving the lone king to the edge and bringing its own king close.
func mopUp(sd *[2]evalSide) int {
	score := 0
	for p := range sd {
		s, o := &sd[p], &sd[p^1]
		if o.pawnCount == 0 && s.nonPawn >= o.nonPawn+materialEG[kindRook] && s.king >= 0 && o.king >= 0 {
			f, r := o.king%8, o.king/8
			edge := max(3-f, f-4) + max(3-r, r-4) // 0..6, growing toward a corner
			v := 12*edge + 6*(7-kingDistance(s.king, o.king))
			if p == 0 {
				score += v
			} else {
				score -= v
			}
		}
	}
	return score
}

// scaleEndgame damps the endgame score of a side that is ahead but cannot
// win: without pawns and less than a rook up (a minor piece against
// nothing, rook against bishop, ...), the side ahead seldom wins.
func scaleEndgame(sd *[2]evalSide, eg int) int {
	strong := 0
	if eg < 0 {
		strong = 1
	}
	s, o := &sd[strong], &sd[strong^1]
	if s.pawnCount == 0 && s.nonPawn-o.nonPawn < materialEG[kindRook] {
		return eg / 8
	}
	return eg
}
