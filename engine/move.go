package engine

// Capacity of a Move. A draughts capture of every enemy piece on a 10x10
// board needs 22 board changes and a 21-square path; Chase's longest moves
// (two bump chains and the victim's pip allocation) stay under 30 changes.
const (
	maxPath    = 32
	maxChanges = 40
)

// Move flags.
const (
	flagCapture   = 1 << iota // the move removes at least one enemy piece
	flagIrrevers              // capture or man/pawn move: resets State.Clock
	flagPromotion             // the moving piece changes kind
	flagCastle                // chess castling
	flagExchange              // Chase exchange (no die moves)
	flagChamber               // Chase chamber move
)

// Move is one legal move of a game, as returned by Game.LegalMoves and
// Game.ParseMove: one complete, atomic move (a whole draughts capture
// chain, a castling, a Chase bump chain with its pip reallocation) and its
// notation.
type Move struct {
	m    move
	text string
}

// String returns the move's notation, which ParseMove reads back.
func (m Move) String() string { return m.text }

// isCapture reports whether the move removes enemy pieces.
func (m Move) isCapture() bool { return m.m.flags&flagCapture != 0 }

// Captures returns the number of enemy pieces the move removes.
func (m Move) Captures() int { return int(m.m.ncap) }

// move is the engine's internal form of a move: a fixed-size value without
// pointers, so move lists and the search never allocate per move and the
// garbage collector never scans them.
//
// A move records its effect as a list of square assignments (square, new
// piece) applied in order, optional game-variable assignments, and the path
// of squares a player names or taps to play it (origin, landing squares).
type move struct {
	// key is the XOR of the Zobrist keys the board changes flip. It makes
	// applying a move one XOR and doubles as the move's effect fingerprint
	// when duplicates are merged.
	key     uint64
	nchg    uint8
	npath   uint8
	ncap    uint8 // number of enemy pieces captured
	nking   uint8 // how many of them were kings (queens, ...)
	flags   uint8
	tag     uint8 // game-specific detail (Chase exchange amount, chess promotion)
	dir     uint8 // direction of arrival, for notation only (Chase)
	auxMask uint8
	aux     [numAux]uint8
	sq      [maxChanges]uint8
	pc      [maxChanges]Piece
	path    [maxPath]uint8
}

// from returns the origin square.
func (m *move) from() int { return int(m.path[0]) }

// to returns the last square of the path.
func (m *move) to() int { return int(m.path[m.npath-1]) }

// capturedAt returns the i-th captured square of a move built by
// ctx.emit (draughts-style moves list their captures right after the
// origin, in capture order).
func (m *move) capturedAt(i int) int { return int(m.sq[1+i]) }

// sameEffect reports whether two moves have the same origin, destination
// and board changes; such moves are merged into one.
func (m *move) sameEffect(o *move) bool {
	if m.npath == 0 || o.npath == 0 {
		return m.npath == o.npath && m.key == o.key
	}
	return m.key == o.key && m.path[0] == o.path[0] && m.path[m.npath-1] == o.path[o.npath-1] &&
		m.auxMask == o.auxMask && m.aux == o.aux && m.tag == o.tag
}

// equal reports whether two moves are the same move (same effect and path).
func (m *move) equal(o *move) bool {
	if m.npath != o.npath || m.nchg != o.nchg || !m.sameEffect(o) {
		return false
	}
	for i := 0; i < int(m.npath); i++ {
		if m.path[i] != o.path[i] {
			return false
		}
	}
	return true
}

// apply plays m on s in place: board assignments, hash, game variables,
// side to move and counters. It does not check legality; the Game API only
// applies moves taken from the legal list.
func (r *rules) apply(s *State, m *move) {
	for i := 0; i < int(m.nchg); i++ {
		s.Board[m.sq[i]] = m.pc[i]
	}
	h := s.Hash ^ m.key ^ r.z.turn
	if m.auxMask != 0 {
		for i := 0; i < numAux; i++ {
			if m.auxMask&(1<<i) != 0 {
				h ^= r.z.aux[i][s.Aux[i]] ^ r.z.aux[i][m.aux[i]]
				s.Aux[i] = m.aux[i]
			}
		}
	}
	s.Hash = h
	s.Turn ^= 1
	s.Ply++
	if m.flags&flagIrrevers != 0 {
		s.Clock = 0
	} else if s.Clock < 0xffff {
		s.Clock++
	}
}
