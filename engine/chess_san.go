package engine

import "strings"

// Chess moves in standard algebraic notation: "Nf3", "exd5", "e8=Q",
// "Nbd2", "R1a3", castling "O-O" / "0-0" / "O-O-O", with check marks and
// annotations ("+", "#", "!", "?") ignored. A lowercase piece letter is
// read as the piece when no pawn move fits ("bxc5" is the b-pawn taking
// on c5 if it can, else a bishop; "nf3" is a knight). Long algebraic
// notation ("e2e4", "e7e8q") is read by the generic parser.

// parseSAN reads castling and standard algebraic notation. It leaves
// texts naming two squares (long algebraic notation) to the generic
// parser.
func parseSAN(g *Game, legal []Move, text string) (Move, *MoveError, bool) {
	r, s := g.r, g.cur()
	t := strings.TrimRight(text, "+#!? ")
	home := sqE1
	if s.Turn == Second {
		home = sqE8
	}
	switch strings.ToUpper(strings.ReplaceAll(t, "0", "O")) {
	case "O-O", "OO":
		return castle(g, legal, home, home+2)
	case "O-O-O", "OOO":
		return castle(g, legal, home, home-2)
	}
	if len(r.tokenize(t).squares) != 1 {
		return Move{}, nil, false
	}
	san := strings.NewReplacer("x", "", "X", "", ":", "", "=", "", "-", "", " ", "").Replace(t)
	if len(san) < 2 {
		return Move{}, nil, false
	}
	var promo Kind
	if n := len(san); n >= 3 {
		if i := strings.IndexByte("NBRQnbrq", san[n-1]); i >= 0 && isDigit(san[n-2]) {
			promo = Kind(i%4 + 2)
			san = san[:n-1]
		}
	}
	kind, lower := kindPawn, false
	if i := strings.IndexByte("NBRQK", san[0]); i >= 0 {
		kind, san = Kind(i+2), san[1:]
	} else if i := strings.IndexByte("nbrqk", san[0]); i >= 0 && len(san) >= 3 {
		kind, san, lower = Kind(i+2), san[1:], true
	}
	if len(san) < 2 || len(san) > 4 {
		return Move{}, nil, false
	}
	to, ok := r.topo.square(san[len(san)-2:])
	if !ok {
		return Move{}, nil, false
	}
	hint := strings.ToLower(san[:len(san)-2])
	if lower && kind == kindBishop {
		// "bxc5": the b-pawn if a pawn move fits, else the bishop.
		if ms := sanMatches(g, legal, kindPawn, to, "b"+hint, promo); len(ms) > 0 {
			return sanResult(g, legal, ms, kindPawn, "b"+hint)
		}
	}
	return sanResult(g, legal, sanMatches(g, legal, kind, to, hint, promo), kind, hint)
}

// sanMatches returns the legal moves of a piece of the given kind to
// square to whose origin contains every character of hint (a file, a
// rank or both) and whose promotion is promo (0: any, so that "b8"
// matches the four promotions and is reported as ambiguous).
func sanMatches(g *Game, legal []Move, kind Kind, to int, hint string, promo Kind) []Move {
	var out []Move
	for _, lm := range legal {
		m := &lm.m
		from := int(m.path[0])
		if int(m.path[1]) != to || g.cur().Board[from].Kind() != kind || (promo != 0 && Kind(m.tag) != promo) {
			continue
		}
		if fitsHint(g.r.topo.names[from], hint) {
			out = append(out, lm)
		}
	}
	return out
}

// fitsHint reports whether a square name contains every character of
// a disambiguation hint.
func fitsHint(name, hint string) bool {
	for _, h := range hint {
		if !strings.ContainsRune(name, h) {
			return false
		}
	}
	return true
}

// sanResult turns the matching moves into the move or the error: none
// lists the legal moves of the pieces of that kind (restricted by the
// hint), several are ambiguous.
func sanResult(g *Game, legal []Move, ms []Move, kind Kind, hint string) (Move, *MoveError, bool) {
	switch len(ms) {
	case 1:
		return ms[0], nil, true
	case 0:
	default:
		return Move{}, &MoveError{Kind: MoveAmbiguous, Candidates: ms}, true
	}
	s := g.cur()
	own := makePiece(s.Turn, kind)
	e := &MoveError{Kind: MoveIllegal}
	pieces := 0
	for sq := 0; sq < 64; sq++ {
		if s.Board[sq] == own && fitsHint(g.r.topo.names[sq], hint) {
			pieces++
			e.Square = g.r.topo.names[sq]
		}
	}
	if pieces == 0 {
		return Move{}, &MoveError{Kind: MoveNoPiece}, true
	}
	if pieces > 1 {
		e.Square = "" // several pieces named: list the moves of all of them
	}
	for _, lm := range legal {
		if from := int(lm.m.path[0]); s.Board[from] == own && fitsHint(g.r.topo.names[from], hint) {
			e.Candidates = append(e.Candidates, lm)
		}
	}
	return Move{}, e, true
}

// castle finds the castling move of the king from home to to.
func castle(g *Game, legal []Move, home, to int) (Move, *MoveError, bool) {
	var kingMoves []Move
	for _, lm := range legal {
		if int(lm.m.path[0]) != home || g.cur().Board[home].Kind() != kindChessKing {
			continue
		}
		if int(lm.m.path[1]) == to && lm.m.flags&flagCastle != 0 {
			return lm, nil, true
		}
		kingMoves = append(kingMoves, lm)
	}
	e := &MoveError{Kind: MoveIllegal, Candidates: kingMoves}
	if g.cur().Board[home].Kind() == kindChessKing {
		e.Square = g.r.topo.names[home]
	}
	return Move{}, e, true
}
