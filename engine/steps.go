package engine

import (
	"fmt"
	"sort"
)

// StepInfo tells a chat keyboard what to offer after the player has tapped
// some squares: a move is entered by tapping its origin and then each
// landing square in turn (a chess move: origin, destination; a draughts
// capture: origin and every landing square).
type StepInfo struct {
	// Next lists, in board order, the squares that may be tapped next:
	// each continues the tapped squares towards at least one legal move.
	Next []string
	// Moves lists the legal moves whose whole path has been tapped. One
	// move with no Next squares means the input is complete; several
	// moves (a chess promotion, a Chase exchange of 1 or 2 pips) mean
	// the player must choose among them.
	Moves []Move
}

// Done returns the move when the tapped squares identify exactly one
// legal move and nothing longer could still be meant.
func (si StepInfo) Done() (Move, bool) {
	if len(si.Next) == 0 && len(si.Moves) == 1 {
		return si.Moves[0], true
	}
	return Move{}, false
}

// Steps returns what may be tapped next after the given squares. With no
// squares tapped, Next lists the pieces that can move. Returns ErrGameOver
// once the game has ended and ErrIllegalMove if the tapped squares do not
// begin any legal move (the keyboard should then start over).
func (g *Game) Steps(tapped []string) (StepInfo, error) {
	var si StepInfo
	if st := g.Status(); st.Result != Ongoing {
		return si, fmt.Errorf("%w: %s", ErrGameOver, st.Reason)
	}
	sqs := make([]int, len(tapped))
	for i, name := range tapped {
		sq, ok := g.r.topo.square(name)
		if !ok {
			return si, fmt.Errorf("%w: no square %q", ErrIllegalMove, name)
		}
		sqs[i] = sq
	}
	next := map[int]bool{}
	found := false
	for _, m := range g.legalMoves() {
		p := &m.m
		if int(p.npath) < len(sqs) {
			continue
		}
		match := true
		for i, sq := range sqs {
			if int(p.path[i]) != sq {
				match = false
				break
			}
		}
		if !match {
			continue
		}
		found = true
		if int(p.npath) == len(sqs) {
			si.Moves = append(si.Moves, m)
		} else {
			next[int(p.path[len(sqs)])] = true
		}
	}
	if !found {
		return si, fmt.Errorf("%w: no legal move starts %v", ErrIllegalMove, tapped)
	}
	keys := make([]int, 0, len(next))
	for sq := range next {
		keys = append(keys, sq)
	}
	sort.Ints(keys)
	for _, sq := range keys {
		si.Next = append(si.Next, g.r.topo.names[sq])
	}
	return si, nil
}
