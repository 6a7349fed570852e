package engine

import "strings"

// Moves as people read them: chess in standard algebraic notation ("Nf3",
// "exd5", "O-O", "e8=Q", "Nbd2", with "+" for a check and "#" for a mate),
// every other game in its own notation, which is already the usual one
// ("c3-d4", "32-28", "A3>A4:2"). Move.String stays the engine's notation,
// which every reader of moves reads back; ParseMove reads both.

// Display returns how a legal move of the current position is written for
// people.
func (g *Game) Display(m Move) string {
	if g.r.inCheck == nil {
		return m.text
	}
	return g.san(m)
}

// Record returns the moves played so far as people read them (Display of
// each in its position), in order.
func (g *Game) Record() []string {
	out := make([]string, 0, len(g.moves))
	if g.r.inCheck == nil {
		for _, m := range g.moves {
			out = append(out, m.text)
		}
		return out
	}
	replay := &Game{r: g.r, cfg: g.cfg, hist: []State{g.hist[0]}, c: g.r.newCtx()}
	for _, m := range g.moves {
		out = append(out, replay.san(m))
		if replay.Apply(m) != nil {
			// Not reached: the history holds moves the game applied.
			return append(out[:len(out)-1], m.text)
		}
	}
	return out
}

// LastDisplay returns the last move played as people read it (Display of it in the position
// it was played in, as Record writes it), or "" before the first move.
func (g *Game) LastDisplay() string {
	n := len(g.moves)
	if n == 0 {
		return ""
	}
	if g.r.inCheck == nil {
		return g.moves[n-1].text
	}
	before := &Game{r: g.r, cfg: g.cfg, hist: []State{g.hist[len(g.hist)-2]}, c: g.r.newCtx()}
	return before.san(g.moves[n-1])
}

// san writes a legal chess move of the current position in standard
// algebraic notation, with its check or mate mark.
func (g *Game) san(mv Move) string {
	s, m := g.cur(), &mv.m
	if m.npath < 2 {
		return mv.text
	}
	from, to := m.from(), int(m.path[1])
	names := g.r.topo.names
	var b strings.Builder
	pc := s.Board[from]
	switch {
	case m.flags&flagCastle != 0 && to > from:
		b.WriteString("O-O")
	case m.flags&flagCastle != 0:
		b.WriteString("O-O-O")
	case pc.Kind() == kindPawn:
		if m.flags&flagCapture != 0 {
			b.WriteByte(names[from][0])
			b.WriteByte('x')
		}
		b.WriteString(names[to])
		if m.tag != 0 {
			b.WriteByte('=')
			b.WriteByte("?PNBRQK"[m.tag%7])
		}
	default:
		b.WriteByte("?PNBRQK"[pc.Kind()%7])
		others, sameFile, sameRank := false, false, false
		for _, o := range g.legalMoves() {
			of := o.m.from()
			if of == from || int(o.m.path[1]) != to || s.Board[of] != pc {
				continue
			}
			others = true
			sameFile = sameFile || names[of][0] == names[from][0]
			sameRank = sameRank || names[of][1:] == names[from][1:]
		}
		switch {
		case others && !sameFile:
			b.WriteByte(names[from][0])
		case others && !sameRank:
			b.WriteString(names[from][1:])
		case others:
			b.WriteString(names[from])
		}
		if m.flags&flagCapture != 0 {
			b.WriteByte('x')
		}
		b.WriteString(names[to])
	}
	after := *s
	g.r.apply(&after, m)
	if g.r.inCheck(&after) {
		mark := byte('+')
		if len(g.r.generate(&after, g.r.newCtx(), nil)) == 0 {
			mark = '#'
		}
		b.WriteByte(mark)
	}
	return b.String()
}
