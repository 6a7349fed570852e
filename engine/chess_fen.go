package engine

import (
	"fmt"
	"strconv"
	"strings"
)

// Chess positions as FEN strings.

// encodeFEN writes a FEN string.
func encodeFEN(r *rules, s *State) string {
	var b strings.Builder
	for row := 7; row >= 0; row-- {
		empty := 0
		for col := 0; col < 8; col++ {
			pc := s.Board[row*8+col]
			if pc == 0 {
				empty++
				continue
			}
			if empty > 0 {
				b.WriteByte(byte('0' + empty))
				empty = 0
			}
			b.WriteByte(glyphChess(pc))
		}
		if empty > 0 {
			b.WriteByte(byte('0' + empty))
		}
		if row > 0 {
			b.WriteByte('/')
		}
	}
	b.WriteString([]string{" w ", " b "}[s.Turn])
	c := s.Aux[auxCastle]
	if c == 0 {
		b.WriteByte('-')
	}
	for i, l := range "KQkq" {
		if c&(1<<i) != 0 {
			b.WriteRune(l)
		}
	}
	if ep := int(s.Aux[auxEP]) - 1; ep >= 0 {
		b.WriteString(" " + r.topo.names[ep])
	} else {
		b.WriteString(" -")
	}
	fmt.Fprintf(&b, " %d %d", s.Clock, s.Ply/2+1)
	return b.String()
}

// decodeFEN reads a FEN string; the move counters may be omitted. It
// rejects positions a game cannot continue from: a missing or extra king,
// pawns on the first or last rank, or the side not to move in check.
func decodeFEN(r *rules, text string) (State, error) {
	var s State
	f := strings.Fields(text)
	if len(f) < 2 || len(f) > 6 {
		return s, fmt.Errorf("%w: FEN needs 2 to 6 fields", ErrBadPosition)
	}
	rows := strings.Split(f[0], "/")
	if len(rows) != 8 {
		return s, fmt.Errorf("%w: FEN needs 8 ranks", ErrBadPosition)
	}
	for i, row := range rows {
		rank, col := 7-i, 0
		for _, ch := range row {
			if ch >= '1' && ch <= '8' {
				col += int(ch - '0')
				continue
			}
			k := strings.IndexRune("PNBRQK", ch)
			p := First
			if k < 0 {
				k = strings.IndexRune("pnbrqk", ch)
				p = Second
			}
			if k < 0 || col > 7 {
				return s, fmt.Errorf("%w: bad rank %q", ErrBadPosition, row)
			}
			if Kind(k+1) == kindPawn && (rank == 0 || rank == 7) {
				return s, fmt.Errorf("%w: pawn on rank %d", ErrBadPosition, rank+1)
			}
			s.Board[rank*8+col] = makePiece(p, Kind(k+1))
			col++
		}
		if col != 8 {
			return s, fmt.Errorf("%w: rank %q is not 8 squares", ErrBadPosition, row)
		}
	}
	switch f[1] {
	case "w", "W":
		s.Turn = First
	case "b", "B":
		s.Turn = Second
	default:
		return s, fmt.Errorf("%w: side to move %q", ErrBadPosition, f[1])
	}
	if len(f) > 2 && f[2] != "-" {
		for _, ch := range f[2] {
			i := strings.IndexRune("KQkq", ch)
			if i < 0 {
				return s, fmt.Errorf("%w: castling %q", ErrBadPosition, f[2])
			}
			s.Aux[auxCastle] |= 1 << i
		}
	}
	// Drop castling rights whose king or rook is not at home.
	need := []struct {
		bit     uint8
		k, rook int
		p       Player
	}{{castleWK, sqE1, sqH1, First}, {castleWQ, sqE1, sqA1, First}, {castleBK, sqE8, sqH8, Second}, {castleBQ, sqE8, sqA8, Second}}
	for _, n := range need {
		if s.Board[n.k] != makePiece(n.p, kindChessKing) || s.Board[n.rook] != makePiece(n.p, kindRook) {
			s.Aux[auxCastle] &^= n.bit
		}
	}
	if len(f) > 3 && f[3] != "-" {
		sq, ok := r.topo.square(f[3])
		want := 5 // rank 6 when White is to move
		if s.Turn == Second {
			want = 2
		}
		if !ok || int(r.topo.row[sq]) != want {
			return s, fmt.Errorf("%w: en passant square %q", ErrBadPosition, f[3])
		}
		s.Aux[auxEP] = uint8(sq + 1)
	}
	if len(f) > 4 {
		n, err := strconv.Atoi(f[4])
		if err != nil || n < 0 || n > 10000 {
			return s, fmt.Errorf("%w: half-move clock %q", ErrBadPosition, f[4])
		}
		s.Clock = uint16(n)
	}
	if len(f) > 5 {
		n, err := strconv.Atoi(f[5])
		if err != nil || n < 1 || n > 100000 {
			return s, fmt.Errorf("%w: move number %q", ErrBadPosition, f[5])
		}
		s.Ply = uint32(2*(n-1)) + uint32(s.Turn)
	}
	kings := [2]int{}
	for sq := 0; sq < 64; sq++ {
		if s.Board[sq].Kind() == kindChessKing {
			kings[s.Board[sq].Owner()]++
		}
	}
	if kings != [2]int{1, 1} {
		return s, fmt.Errorf("%w: each side needs exactly one king", ErrBadPosition)
	}
	cd := newChessData(r.topo)
	if k := kingSquare(&s.Board, s.Turn.other()); cd.attacked(&s.Board, k, s.Turn) {
		return s, fmt.Errorf("%w: the side not to move is in check", ErrBadPosition)
	}
	return s, nil
}
