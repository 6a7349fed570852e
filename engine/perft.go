package engine

// perfter counts the leaves of the legal-move tree (perft). It keeps one
// move buffer and one child state per depth, so after the first call it
// does not allocate. (The generation context keeps a pointer to the state
// it works on, so a child state on the stack would escape to the heap.)
type perfter struct {
	r      *rules
	c      *ctx
	bufs   [][]move
	states []State
}

func newPerfter(r *rules) *perfter {
	return &perfter{r: r, c: r.newCtx()}
}

// count returns perft(depth) of s. At depth 1 it counts the legal moves
// without playing them (bulk counting): with the rules' count hook where
// there is one and it counts the position, without building the moves,
// else as the length of the generated list. At depth 2 the rules'
// countBelow hook, where there is one, counts the moves below each move.
func (p *perfter) count(s *State, depth int) uint64 {
	if depth <= 0 {
		return 1
	}
	if depth == 1 && p.r.count != nil {
		if n := p.r.count(p.r, s, p.c); n >= 0 {
			return uint64(n)
		}
	}
	for len(p.bufs) <= depth {
		p.bufs = append(p.bufs, make([]move, 0, 64))
		p.states = append(p.states, State{})
	}
	ms := p.r.generate(s, p.c, p.bufs[depth])
	p.bufs[depth] = ms
	if depth == 1 {
		return uint64(len(ms))
	}
	child := &p.states[depth]
	if depth == 2 && p.r.countBelow != nil {
		if n := p.r.countBelow(p.r, s, p.c, ms, child); n >= 0 {
			return uint64(n)
		}
	}
	var n uint64
	for i := range ms {
		*child = *s
		p.r.apply(child, &ms[i])
		n += p.count(child, depth-1)
	}
	return n
}

// divideEntry is one root move of a divide report and the number of
// leaves below it.
type divideEntry struct {
	Move  string
	Nodes uint64
}

// perft returns the number of leaf nodes of the legal-move tree of the
// current position to the given depth (1 = the number of legal moves).
// Moves with the same effect count once, as in the engine's move lists.
func (g *Game) perft(depth int) uint64 {
	return newPerfter(g.r).count(g.cur(), depth)
}

// Perft returns the number of leaf nodes of the legal-move tree of the
// current position to the given depth, as perft does. It runs on the
// calling goroutine alone and does not allocate after its first ply, so
// the caller can time it by the CPU time of its thread.
func (g *Game) Perft(depth int) uint64 { return g.perft(depth) }

// divide returns perft(depth-1) below each legal move of the current
// position, in the order of LegalMoves; it is the standard tool to find
// the first subtree where two move generators disagree.
func (g *Game) divide(depth int) []divideEntry {
	p := newPerfter(g.r)
	var out []divideEntry
	for _, m := range g.LegalMoves() {
		child := *g.cur()
		g.r.apply(&child, &m.m)
		out = append(out, divideEntry{Move: m.text, Nodes: p.count(&child, depth-1)})
	}
	return out
}
