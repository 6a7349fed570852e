package engine

// The endgame draw rules of the draughts family. Each rule looks back
// along the game's history for the run of positions it counts (a
// position loaded with WithPosition starts the count afresh), so undo
// and replay need no extra state.
//
// Russian draughts: the rules of the Russian Draughts Federation, as
// published in the Rules of the sport "Draughts" of the Russian Ministry
// of Sport (section "Russian draughts", the kinds of draw):
//   - a player with three kings (or more) against a lone king who has not
//     taken it with the 15th move counted from the moment that balance of
//     forces arose: draw (RuleThreeKings);
//   - both sides have kings and the balance of forces has not changed (no
//     capture, no man crowned) for 30 moves in endings of 4 and 5 pieces,
//     or 60 moves in endings of 6 and 7 pieces: draw (RuleBalance);
//   - for 15 moves the players have moved only kings, without moving a man
//     and without capturing: draw (RuleKingMoves).
//
// International and Brazilian draughts: the Official FMJD Rules for
// International Draughts, article 6 (the draw), which the Brazilian rules
// apply on the 64-square board:
//   - 6.3: 25 successive moves by each player with only kings moving,
//     without a man moving and without a capture (RuleKingMoves);
//   - 6.4: three kings, two kings and a man, or a king and two men against
//     a lone king: a draw after each player has made at most 16 further
//     moves (RuleSixteenMoves); a capture inside those 16 moves does not
//     start the count again;
//   - 6.5: two kings, a king and a man, or a king against a lone king: a
//     draw after each player has made at most 5 further moves
//     (RuleFiveMoves), counted from the moment that ending arose, and
//     never beyond the 16 moves of 6.4 if the game came from there.
//
// "A move" in both rule books is one move of each player, so N moves are
// 2N plies; RuleThreeKings counts the stronger side's own moves.

// material counts each side's men ([p][0]) and kings ([p][1]).
func (r *rules) material(s *State) (m [2][2]int) {
	for sq := 0; sq < r.topo.n(); sq++ {
		pc := s.Board[sq]
		switch {
		case pc == 0:
		case pc.Kind() == kindKing:
			m[pc.Owner()][1]++
		default:
			m[pc.Owner()][0]++
		}
	}
	return m
}

// loneKing reports whether a side's material is a single king.
func loneKing(side [2]int) bool { return side == [2]int{0, 1} }

// fmjdClass sorts a material balance into the FMJD small endings: 5 for
// the five-move endings (up to two pieces with a king against a lone
// king), 16 for the sixteen-move endings (three pieces with a king against
// a lone king), 0 for anything else.
func fmjdClass(m [2][2]int) int {
	for p := 0; p < 2; p++ {
		o := m[1-p]
		if !loneKing(m[p]) || o[1] == 0 {
			continue
		}
		switch o[0] + o[1] {
		case 1, 2:
			return 5
		case 3:
			return 16
		}
	}
	return 0
}

// fmjdEndings applies articles 6.4 and 6.5 of the FMJD rules.
func fmjdEndings(g *Game) Status {
	class := func(s *State) int { return fmjdClass(g.r.material(s)) }
	c := class(g.cur())
	if c == 0 {
		return Status{}
	}
	last := len(g.hist) - 1
	if c == 5 {
		start := g.stretch(10, func(s *State) bool { return class(s) == 5 })
		if last-start >= 10 {
			return end(Draw, 0, RuleFiveMoves, "5 moves each in a small ending (two pieces against a lone king)")
		}
	}
	start := g.stretch(32, func(s *State) bool { return class(s) != 0 })
	if last-start >= 32 {
		return end(Draw, 0, RuleSixteenMoves, "16 moves each in a small ending (three pieces against a lone king)")
	}
	return Status{}
}

// russianEndings applies the Russian rules on three kings against one and
// on an unchanged balance of forces.
func russianEndings(g *Game) Status {
	m := g.r.material(g.cur())
	same := func(s *State) bool { return g.r.material(s) == m }
	last := len(g.hist) - 1
	for p := 0; p < 2; p++ {
		strong := Player(1 - p)
		if !loneKing(m[p]) || m[strong][1] < 3 {
			continue
		}
		start := g.stretch(31, same)
		moves := 0
		for j := start + 1; j <= last; j++ {
			if g.hist[j-1].Turn == strong {
				moves++
			}
		}
		if moves >= 15 {
			return end(Draw, 0, RuleThreeKings, "three kings did not take the lone king in 15 moves")
		}
	}
	if m[0][1] == 0 || m[1][1] == 0 {
		return Status{}
	}
	limit := 0
	switch m[0][0] + m[0][1] + m[1][0] + m[1][1] {
	case 4, 5:
		limit = 60
	case 6, 7:
		limit = 120
	default:
		return Status{}
	}
	if last-g.stretch(limit, same) >= limit {
		return end(Draw, 0, RuleBalance, "the balance of forces has not changed for "+
			[]string{"30", "60"}[limit/120]+" moves")
	}
	return Status{}
}

// turkishEndings: one king against one king is a draw at once. Neither
// king can ever be forced onto a line where the other may jump it (a
// king always has a square off the other king's rank and file), so the
// game could only end by the move counters.
func turkishEndings(g *Game) Status {
	m := g.r.material(g.cur())
	if loneKing(m[0]) && loneKing(m[1]) {
		return end(Draw, 0, RuleLoneKings, "one king against one king")
	}
	return Status{}
}
