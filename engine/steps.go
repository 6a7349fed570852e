package engine

import (
	"fmt"
	"sort"
)

// StepInfo tells a chat keyboard what to offer after the player has tapped
// some squares: a move is entered by tapping its origin and then each
// landing square in turn (a chess move, castling included: the king's
// origin and destination; a draughts capture: the origin and every
// landing square, one press per jump; a Chase move: the die and the cell
// where it stops). With nothing tapped, Next lists the pieces that can
// move; a "back" button offers Back.
type StepInfo struct {
	// Next lists, in board order, the squares that may be tapped next:
	// each continues the tapped squares towards at least one legal move.
	Next []string
	// Moves lists the legal moves whose whole path has been tapped. One
	// move with no Next squares means the input is complete; several
	// moves (a chess promotion, a Chase exchange of 1 or 2 pips) mean
	// the player must choose among them.
	Moves []Move
	// Choices labels Moves for buttons when there are several: the
	// promotion piece in chess ("Q", "R", "B", "N"), the notation
	// otherwise (a Chase die move "A3-A4" against the exchanges
	// "A3>A4:1", ...).
	Choices []Choice
	// Remaining lists every legal move that begins with the tapped
	// squares, so that the player sees the whole paths still possible
	// (the branches of a multi-capture).
	Remaining []Move
	// Back is what was tapped before the last tap: the squares to pass
	// to Steps for a "back" button (nil when nothing was tapped).
	Back []string
}

// Choice is a button for one of several moves with the same path.
type Choice struct {
	Label string
	Move  Move
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
		si.Remaining = append(si.Remaining, m)
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
	if len(si.Moves) > 1 {
		for _, m := range si.Moves {
			label := m.text
			if (g.r.name == "chess" || g.r.name == "chess960") && m.m.tag != 0 {
				label = string("?PNBRQK"[m.m.tag%7])
			}
			si.Choices = append(si.Choices, Choice{Label: label, Move: m})
		}
	}
	if len(tapped) > 0 {
		si.Back = append([]string{}, tapped[:len(tapped)-1]...)
	}
	return si, nil
}
