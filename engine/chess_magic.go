package engine

import "math/bits"

// Sliding attacks by magic bitboards: the squares of a rook's (or a
// bishop's) lines that can block it, the mask, are multiplied by a
// number chosen for the square, the magic, and the product's top bits
// index a table of the attack sets of every occupancy of the mask. The
// magics are found when the tables are built, by trying sparse random
// numbers until one maps every occupancy to an entry holding its attack
// set (occupancies with the same attacks may share one). The random
// numbers come from a fixed seed a rank, so the search ends after a few
// thousand tries on every square.
//
// The ray scans (rookRays, bishopRays) give the attack sets the tables
// hold; TestMagicsMatchRays compares the two on random occupancies.

// magicSquare is one square's entry of a slider's magic table.
type magicSquare struct {
	mask, magic uint64
	shift       uint
	attacks     []uint64
}

// at returns the attacks from the square with the squares of occ
// occupied.
func (m *magicSquare) at(occ uint64) uint64 {
	return m.attacks[((occ&m.mask)*m.magic)>>m.shift]
}

// magicSeeds seed the search of each rank's squares: with them it ends
// after few tries (the seeds of Stockfish's magic search).
var magicSeeds = [8]uint64{728, 10316, 55013, 32803, 12281, 15100, 16645, 255}

// initMagics finds the magics of one slider (rays: its attacks by ray
// scan) and fills their tables.
func initMagics(magics *[64]magicSquare, rays func(sq int, occ uint64) uint64) {
	const (
		rank1, rank8 = 0xff, 0xff << 56
		fileA, fileH = 0x0101010101010101, 0x0101010101010101 << 7
	)
	var occupancy, reference [4096]uint64
	var epoch [4096]int
	try := 0
	for sq := 0; sq < 64; sq++ {
		m := &magics[sq]
		edges := (rank1|rank8)&^(uint64(rank1)<<(sq&^7)) | (fileA|fileH)&^(uint64(fileA)<<(sq&7))
		m.mask = rays(sq, 0) &^ edges
		m.shift = uint(64 - bits.OnesCount64(m.mask))
		size := 0
		for b := uint64(0); ; {
			occupancy[size], reference[size] = b, rays(sq, b)
			size++
			if b = (b - m.mask) & m.mask; b == 0 {
				break
			}
		}
		m.attacks = make([]uint64, size)
		rng := magicRand(magicSeeds[sq>>3])
		for done := false; !done; {
			for {
				m.magic = rng.sparse()
				if bits.OnesCount64((m.magic*m.mask)>>56) >= 6 {
					break
				}
			}
			try++
			done = true
			for i := 0; i < size; i++ {
				idx := ((occupancy[i] & m.mask) * m.magic) >> m.shift
				if epoch[idx] < try {
					epoch[idx] = try
					m.attacks[idx] = reference[i]
				} else if m.attacks[idx] != reference[i] {
					done = false
					break
				}
			}
		}
	}
}

// magicRand is the xorshift64* generator of the magic search.
type magicRand uint64

func (r *magicRand) next() uint64 {
	s := uint64(*r)
	s ^= s >> 12
	s ^= s << 25
	s ^= s >> 27
	*r = magicRand(s)
	return s * 2685821657736338717
}

// sparse returns a random number with about an eighth of its bits set:
// magics are among those.
func (r *magicRand) sparse() uint64 {
	a := r.next()
	b := r.next()
	return a & b & r.next()
}
