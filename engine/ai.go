package engine

import (
	"context"
	"fmt"
	"time"
)

// Algorithm selects the AI's search method.
type Algorithm uint8

// Search methods. Auto picks the one that played better in self-play for
// the game. Matches at 20,000 nodes a move (alpha-beta against MCTS,
// colours alternating) went to alpha-beta in every game: Chase 5-1, Fox
// and Geese 3-0 with 3 draws, Russian draughts 6-0; so Auto is alpha-beta
// everywhere for now, and MCTS must be asked for.
const (
	Auto Algorithm = iota
	AlphaBeta
	MCTS
)

// String names the algorithm.
func (a Algorithm) String() string {
	switch a {
	case AlphaBeta:
		return "alpha-beta"
	case MCTS:
		return "mcts"
	default:
		return "auto"
	}
}

// defaultNodes is the node budget of a search given neither Nodes nor
// Time.
const defaultNodes = 200_000

// Limits bound one AI search. The search stops at the first limit reached;
// with only Nodes (and Depth) set it is fully deterministic for a given
// Seed.
type Limits struct {
	// Nodes is the number of positions the search may visit (0 = no node
	// limit; defaultNodes if Time is zero too).
	Nodes int64
	// Time is the wall-clock budget (0 = none).
	Time time.Duration
	// Depth caps the alpha-beta depth in plies (0 = no cap).
	Depth int
	// Seed drives the random choices of MCTS (0 = the game's seed).
	Seed uint64
	// Algorithm forces a search method (Auto = the game's default).
	Algorithm Algorithm
	// Refine turns on the refinements of the chess search (search_refine.go:
	// a larger two-slot transposition table, captures ordered by whether
	// they lose material, countermoves, history with maluses, late move
	// pruning, reductions by history and for nodes without a table move).
	// They apply to the games with a check rule played on an 8x8 board
	// (chess and Chess960) and are ignored elsewhere. Off, the search is the
	// one the bot's easy and normal levels were measured with, move for
	// move.
	Refine bool
	// Now is the clock for the time limit (nil = time.Now); tests inject
	// a fake one.
	Now func() time.Time
}

// SearchInfo reports what a search did.
type SearchInfo struct {
	Algorithm Algorithm
	Depth     int   // deepest completed alpha-beta iteration
	Nodes     int64 // positions visited
	Score     int   // evaluation for the side to move (alpha-beta), or win rate in per mille (MCTS)
	PV        []string
}

// MateIn reports a forced end of the game that an alpha-beta search found: the plies to it,
// positive when the side to move wins and negative when it loses; 0 when the search saw none
// (or the search was MCTS, whose Score is a win rate).
func (i SearchInfo) MateIn() int {
	if i.Algorithm == MCTS {
		return 0
	}
	switch {
	case i.Score > scoreMate/2:
		return scoreMate - i.Score
	case i.Score < -scoreMate/2:
		return -(scoreMate + i.Score)
	}
	return 0
}

// BestMove searches the current position and returns the move the AI
// chooses. The search stops at the first limit reached or when ctx is
// cancelled, and then returns the best move found so far: the result is
// always a legal move. Returns ErrGameOver if the game has ended.
func (g *Game) BestMove(ctx context.Context, lim Limits) (Move, SearchInfo, error) {
	var info SearchInfo
	if st := g.Status(); st.Result != Ongoing {
		return Move{}, info, fmt.Errorf("%w: %s", ErrGameOver, st.Reason)
	}
	legal := g.legalMoves()
	if lim.Nodes <= 0 && lim.Time <= 0 {
		lim.Nodes = defaultNodes
	}
	if lim.Seed == 0 {
		lim.Seed = g.cfg.seed
	}
	if lim.Now == nil {
		lim.Now = time.Now
	}
	alg := lim.Algorithm
	if alg == Auto {
		alg = AlphaBeta
		if g.r.useMCTS {
			alg = MCTS
		}
	}
	info.Algorithm = alg
	if len(legal) == 1 {
		info.PV = []string{legal[0].text}
		return legal[0], info, nil
	}
	b := newBudget(ctx, lim)
	var best move
	switch alg {
	case MCTS:
		best = runMCTS(g, b, lim.Seed, &info)
	default:
		best = runAlphaBeta(g, b, lim.Depth, lim.Refine, &info)
	}
	info.Nodes = b.nodes
	for _, m := range legal {
		if m.m.equal(&best) {
			return m, info, nil
		}
	}
	return legal[0], info, nil // the search found nothing in time
}

// budget tracks the limits of one search.
type budget struct {
	ctx      context.Context
	nodes    int64
	maxNodes int64
	deadline time.Time
	now      func() time.Time
	stopped  bool
}

func newBudget(ctx context.Context, lim Limits) *budget {
	b := &budget{ctx: ctx, maxNodes: lim.Nodes, now: lim.Now}
	if lim.Time > 0 {
		b.deadline = lim.Now().Add(lim.Time)
	}
	return b
}

// tick counts a node and reports whether the search must stop. The node
// limit is exact (so node-bounded searches are deterministic); the clock
// and the context are polled every 1024 nodes.
func (b *budget) tick() bool {
	if b.stopped {
		return true
	}
	b.nodes++
	if b.maxNodes > 0 && b.nodes >= b.maxNodes {
		b.stopped = true
	}
	if b.nodes&1023 == 0 {
		if b.ctx != nil && b.ctx.Err() != nil {
			b.stopped = true
		}
		if !b.deadline.IsZero() && !b.now().Before(b.deadline) {
			b.stopped = true
		}
	}
	return b.stopped
}

// terminalResult tells whether a position with nMoves legal moves ends the
// game and the result for the side to move: 1 win, -1 loss, 0 draw. It
// covers the rule-based ends the search must see (no moves, Chase's five
// dice, the geese threshold); repetition and move counters are handled by
// the searches themselves.
func (r *rules) terminalResult(s *State, nMoves int) (bool, int) {
	if r.terminal != nil {
		return r.terminal(r, s, nMoves)
	}
	if nMoves > 0 {
		return false, 0
	}
	if r.noMovesDraw {
		return true, 0
	}
	return true, -1
}
