package engine

import (
	"math/rand/v2"
	"testing"
)

// Ensure the magic tables give the attacks the ray scans give, on every
// square with random occupancies sparse and dense.
func TestMagicsMatchRays(t *testing.T) {
	ct := chessTablesOnce()
	rng := rand.New(rand.NewPCG(1, 2))
	for sq := 0; sq < 64; sq++ {
		for i := 0; i < 2000; i++ {
			occ := rng.Uint64()
			switch i % 3 {
			case 1:
				occ &= rng.Uint64()
			case 2:
				occ &= rng.Uint64() & rng.Uint64()
			}
			if got, want := ct.rookAttacks(sq, occ), ct.rookRays(sq, occ); got != want {
				t.Fatalf("rook on %d, occupancy %#x: %#x, want %#x", sq, occ, got, want)
			}
			if got, want := ct.bishopAttacks(sq, occ), ct.bishopRays(sq, occ); got != want {
				t.Fatalf("bishop on %d, occupancy %#x: %#x, want %#x", sq, occ, got, want)
			}
		}
	}
}
