package engine

// The chess search evaluates most positions more than once: a move
// reduced by late move reductions is searched again at full depth, a null
// window search is repeated with an open one, and each iteration of the
// iterative deepening walks the tree of the one before. The evaluation
// (chessScore) is the largest single cost of a node, so the chess search
// keeps the scores it computed in a small table indexed by the position's
// hash. A hit returns exactly the score the evaluation would compute: the
// entry keeps the whole 64-bit hash, and the evaluation reads nothing but
// the board and the side to move, which the hash covers.

// The cache's size in bits of the index: 256K entries (4 MB) for the
// refined search, whose long searches fill it, 32K (512 KB) otherwise.
const (
	evalCacheBits       = 15
	refineEvalCacheBits = 18
)

// evalEntry is one cached evaluation.
type evalEntry struct {
	hash  uint64
	score int32
	ok    bool
}

// evaluate returns the static evaluation of s, from the cache when the
// search has one.
func (sr *searcher) evaluate(s *State) int {
	if sr.evals == nil {
		return sr.r.eval(sr.r, s)
	}
	e := &sr.evals[s.Hash&uint64(len(sr.evals)-1)]
	if e.ok && e.hash == s.Hash {
		return int(e.score)
	}
	v := sr.r.eval(sr.r, s)
	*e = evalEntry{hash: s.Hash, score: int32(v), ok: true}
	return v
}
