package engine

// Player is a side of a two-player game, by its place in the game's
// player list: First is White in draughts and chess, Red in Chase and the
// geese in Fox and Geese; Second is the other side. Which side moves first
// is a property of the position (English checkers starts with Second).
type Player uint8

// The two sides.
const (
	First  Player = 0
	Second Player = 1
)

// other returns the opponent of p.
func (p Player) other() Player { return p ^ 1 }

// Kind is a piece type within one game (man, king, pawn, a die showing 3,
// ...). Zero means "no piece"; kinds go up to 15.
type Kind uint8

// Piece is a piece on a square: a kind and an owner packed in one byte.
// The zero Piece is an empty square.
type Piece uint8

// makePiece packs an owner and a kind.
func makePiece(p Player, k Kind) Piece { return Piece(k&15) | Piece(p&1)<<4 }

// Kind returns the piece's kind (0 for an empty square).
func (pc Piece) Kind() Kind { return Kind(pc & 15) }

// Owner returns the piece's owner; meaningless for an empty square.
func (pc Piece) Owner() Player { return Player(pc >> 4 & 1) }

// pieceCodes is the number of distinct Piece values (Zobrist table width).
const pieceCodes = 32

// numAux is the number of small game variables a State carries.
const numAux = 2

// State is one position of a game: the board, the side to move, a few game
// variables and counters, and the Zobrist hash of everything that matters
// for repetition (board, side to move, game variables).
//
// States are plain values: copying one is how the engine keeps history, so
// undo is a copy and search never needs to unmake a move.
type State struct {
	// Board holds the piece on every square, indexed in board order.
	Board [maxSquares]Piece
	// Aux holds game variables: for chess the en passant square plus one
	// (0 = none) and the castling rights; unused by the other games.
	Aux [numAux]uint8
	// Turn is the side to move.
	Turn Player
	// Clock counts plies since the last irreversible move: a capture or a
	// man (pawn) move. Draw rules read it.
	Clock uint16
	// Ply counts the plies played since the game's start position.
	Ply uint32
	// Hash is the incremental Zobrist hash of Board, Turn and Aux.
	Hash uint64
}

// zobrist holds the random keys of one game's hash.
type zobrist struct {
	sq   []uint64 // sq[square*pieceCodes+piece]; the empty piece has key 0
	turn uint64
	aux  [numAux][256]uint64
}

// splitmix64 is a small deterministic mixer used to derive Zobrist keys
// and AI random streams from fixed seeds.
func splitmix64(x *uint64) uint64 {
	*x += 0x9e3779b97f4a7c15
	z := *x
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// newZobrist derives the keys for n squares from a fixed seed, so hashes
// are identical from run to run.
func newZobrist(n int) zobrist {
	seed := uint64(0x51ab5e0de5eed)
	z := zobrist{sq: make([]uint64, n*pieceCodes)}
	for i := range z.sq {
		if i%pieceCodes == 0 {
			continue
		}
		z.sq[i] = splitmix64(&seed)
	}
	z.turn = splitmix64(&seed)
	for i := range z.aux {
		for v := 1; v < 256; v++ {
			z.aux[i][v] = splitmix64(&seed)
		}
	}
	return z
}

// hashOf recomputes a state's hash from scratch; tests compare it with
// the incrementally maintained one.
func (z *zobrist) hashOf(s *State, n int) uint64 {
	var h uint64
	for sq := 0; sq < n; sq++ {
		h ^= z.sq[sq*pieceCodes+int(s.Board[sq])]
	}
	if s.Turn == Second {
		h ^= z.turn
	}
	for i, v := range s.Aux {
		h ^= z.aux[i][v]
	}
	return h
}

// bitset is a set of squares.
type bitset [maxSquares / 64]uint64

func (b *bitset) has(sq int) bool { return b[sq>>6]>>(sq&63)&1 != 0 }
func (b *bitset) set(sq int)      { b[sq>>6] |= 1 << (sq & 63) }
func (b *bitset) clear(sq int)    { b[sq>>6] &^= 1 << (sq & 63) }
