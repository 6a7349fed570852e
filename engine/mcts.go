package engine

import (
	"math"
	"math/rand/v2"
)

// Monte-Carlo tree search (UCT): the second player, better than alpha-beta
// where evaluation is hard and the branching factor high (Chase, Fox and
// Geese). Playouts are random with a bias towards captures and are cut
// after a fixed number of plies, where the static evaluation, squashed
// into a win probability, stands in for the result.

const (
	mctsExplore   = 1.41 // UCT exploration constant (about sqrt 2)
	mctsPlayout   = 12   // plies per playout before the evaluation decides
	mctsCaptureP  = 0.8  // probability of choosing a capture when one exists
	mctsEvalScale = 300.0
)

type mctsNode struct {
	parent   int32
	first    int32 // first child in the node slice; -1 until expanded
	nchild   int32
	visits   float64
	reward   float64 // total reward for the player who moved into this node
	mv       move
	terminal bool
	result   float64 // for terminal nodes: reward for the player who moved in
}

// runMCTS searches g's position with UCT until the budget runs out.
func runMCTS(g *Game, b *budget, seed uint64, info *SearchInfo) move {
	r := g.r
	rng := rand.New(rand.NewPCG(seed, seed^0x6d637473))
	c := r.newCtx()
	buf := make([]move, 0, 128)
	nodes := []mctsNode{{parent: -1, first: -1}}
	root := *g.cur()
	scale := mctsEvalScale
	if r.name == "chase" {
		scale = 1500
	}
	for iter := 0; ; iter++ {
		// Every iteration costs at least one node, also when selection
		// ends on a known terminal node, so the budget always runs out.
		if b.tick() && iter > 0 {
			break
		}
		s := root
		n := int32(0)
		// Selection.
		for nodes[n].first >= 0 && !nodes[n].terminal {
			n = selectChild(nodes, n, rng)
			r.apply(&s, &nodes[n].mv)
		}
		var reward float64 // for the player who moved into n
		if nodes[n].terminal {
			reward = nodes[n].result
		} else {
			// Expansion.
			ms := r.generate(&s, c, buf)
			buf = ms
			if over, res := r.terminalResult(&s, len(ms)); over {
				nodes[n].terminal = true
				nodes[n].result = (1 - float64(res)) / 2 // res is for the side to move
				reward = nodes[n].result
			} else {
				first := int32(len(nodes))
				for i := range ms {
					nodes = append(nodes, mctsNode{parent: n, first: -1, mv: ms[i]})
				}
				nodes[n].first, nodes[n].nchild = first, int32(len(ms))
				n = first + int32(rng.IntN(len(ms)))
				r.apply(&s, &nodes[n].mv)
				// Simulation: the result for the side to move after n's move.
				v := playout(r, c, &s, b, rng, scale)
				reward = 1 - v
			}
		}
		// Back-propagation.
		for ; n >= 0; n = nodes[n].parent {
			nodes[n].visits++
			nodes[n].reward += reward
			reward = 1 - reward
		}
	}
	rt := &nodes[0]
	if rt.first < 0 {
		return r.generate(&root, c, nil)[0]
	}
	best := rt.first
	for i := rt.first; i < rt.first+rt.nchild; i++ {
		if nodes[i].visits > nodes[best].visits ||
			nodes[i].visits == nodes[best].visits && nodes[i].reward > nodes[best].reward {
			best = i
		}
	}
	if nodes[best].visits > 0 {
		info.Score = int(1000 * nodes[best].reward / nodes[best].visits)
	}
	info.PV = mctsPV(r, nodes, best, root)
	return nodes[best].mv
}

// selectChild picks the child of n with the best UCT value; unvisited
// children first, in random order.
func selectChild(nodes []mctsNode, n int32, rng *rand.Rand) int32 {
	p := &nodes[n]
	logN := math.Log(p.visits + 1)
	best, bestV := int32(-1), -1.0
	for i := p.first; i < p.first+p.nchild; i++ {
		ch := &nodes[i]
		var v float64
		if ch.visits == 0 {
			v = 1e9 + rng.Float64()
		} else {
			v = ch.reward/ch.visits + mctsExplore*math.Sqrt(logN/ch.visits)
		}
		if v > bestV {
			best, bestV = i, v
		}
	}
	return best
}

// playout plays random moves from s and returns the result in [0, 1] for
// the side to move in s.
func playout(r *rules, c *ctx, s *State, b *budget, rng *rand.Rand, scale float64) float64 {
	me := s.Turn
	var buf [256]move
	for ply := 0; ply < mctsPlayout; ply++ {
		if b.tick() {
			break
		}
		ms := r.generate(s, c, buf[:0])
		if over, res := r.terminalResult(s, len(ms)); over {
			v := (1 + float64(res)) / 2
			if s.Turn != me {
				v = 1 - v
			}
			return v
		}
		caps := 0
		for i := range ms {
			if ms[i].ncap > 0 {
				caps++
			}
		}
		k := rng.IntN(len(ms))
		if caps > 0 && caps < len(ms) && rng.Float64() < mctsCaptureP {
			j := rng.IntN(caps)
			for i := range ms {
				if ms[i].ncap > 0 {
					if j == 0 {
						k = i
						break
					}
					j--
				}
			}
		}
		r.apply(s, &ms[k])
	}
	v := 1 / (1 + math.Exp(-float64(r.eval(r, s))/scale))
	if s.Turn != me {
		v = 1 - v
	}
	return v
}

// mctsPV follows the most visited children from the chosen root child.
func mctsPV(r *rules, nodes []mctsNode, n int32, root State) []string {
	var out []string
	s := root
	c := r.newCtx()
	for n >= 0 && len(out) < 8 {
		ms := r.generate(&s, c, nil)
		for i := range ms {
			if ms[i].equal(&nodes[n].mv) {
				out = append(out, string(r.moveText(&s, ms, i, nil)))
				break
			}
		}
		r.apply(&s, &nodes[n].mv)
		nd := &nodes[n]
		if nd.first < 0 {
			break
		}
		best := int32(-1)
		for i := nd.first; i < nd.first+nd.nchild; i++ {
			if best < 0 || nodes[i].visits > nodes[best].visits {
				best = i
			}
		}
		if best < 0 || nodes[best].visits == 0 {
			break
		}
		n = best
	}
	return out
}
