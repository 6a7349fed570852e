// Package alea is the Alea pseudo-random generator (Johannes Baagøe's design) exactly as the
// reference Space Rangers quest player implements it in JavaScript.
//
// Quests replay bit for bit only if every draw matches the reference, so this code follows
// the JavaScript double arithmetic step by step, including JavaScript's integer conversions
// (ToUint32, ToInt32) and its string model (seeds are hashed per UTF-16 code unit). It imports
// nothing but the standard library; the formula evaluator and the quest player share it.
package alea

import (
	"math"
	"unicode/utf16"
)

// twoPow32 is 2^32, and twoPowMinus32 is 2^-32; both are exact doubles.
const (
	twoPow32      = 4294967296.0
	twoPowMinus32 = 2.3283064365386963e-10
)

// Alea is the generator state: three lagged values s0, s1, s2 in [0, 1) and the carry c.
//
// Alea is a plain value: `b := *a` gives an independent generator with the same state, which
// is how the player renders its UI without advancing the game's generator. The zero value is a
// valid (if degenerate) generator; use [New] or [FromState] to get a real one.
type Alea struct {
	s0, s1, s2, c float64
}

// New returns a generator seeded from seed the way the reference does: a fresh Mash hash gives
// s0, s1 and s2 from three hashes of " ", then every UTF-16 code unit of seed is subtracted
// (modulo 1) from s0, s1 and s2 in turn, each with its own Mash call; the carry starts at 1.
//
// Go strings are UTF-8; they are converted to UTF-16 first, so characters outside the Basic
// Multilingual Plane count as two units, as in JavaScript. Invalid UTF-8 bytes become U+FFFD.
func New(seed string) *Alea {
	m := mash{n: 0xefc8249d}
	space := []uint16{' '}
	a := &Alea{c: 1}
	a.s0 = m.hash(space)
	a.s1 = m.hash(space)
	a.s2 = m.hash(space)
	for _, u := range utf16.Encode([]rune(seed)) {
		unit := []uint16{u}
		a.s0 -= m.hash(unit)
		if a.s0 < 0 {
			a.s0++
		}
		a.s1 -= m.hash(unit)
		if a.s1 < 0 {
			a.s1++
		}
		a.s2 -= m.hash(unit)
		if a.s2 < 0 {
			a.s2++
		}
	}
	return a
}

// FromState returns a generator with the state [s0, s1, s2, c], as exported by [Alea.State]
// (the player's saved `aleaState`). Like the reference's import, NaN becomes 0.
func FromState(st [4]float64) *Alea {
	return &Alea{s0: importNumber(st[0]), s1: importNumber(st[1]), s2: importNumber(st[2]), c: importNumber(st[3])}
}

// importNumber mirrors JavaScript's `+x || 0`: NaN and -0 both become +0.
func importNumber(x float64) float64 {
	if x != x || x == 0 {
		return 0
	}
	return x
}

// State exports the state as [s0, s1, s2, c]; [FromState] restores it exactly.
func (a *Alea) State() [4]float64 {
	return [4]float64{a.s0, a.s1, a.s2, a.c}
}

// Float advances the generator and returns the new s2, a number in [0, 1) (for states made by
// [New] or by stepping one; an arbitrary imported state may give anything).
func (a *Alea) Float() float64 {
	// The explicit float64 conversion stops the compiler from fusing the multiply and the add
	// into one FMA instruction, which rounds once instead of twice and changes the last bit.
	t := float64(2091639*a.s0) + float64(a.c*twoPowMinus32)
	a.s0 = a.s1
	a.s1 = a.s2
	// Every state made by stepping has t in [0, 2091640): ToInt32 is then a truncation,
	// done here so that Float stays small enough to be inlined.
	if t >= 0 && t < 1<<31 {
		a.c = float64(int32(t))
	} else {
		a.c = toInt32(t)
	}
	a.s2 = t - a.c
	return a.s2
}

// Random advances the generator and returns floor(u*n) for the new u, the reference's
// random(n). It always consumes exactly one draw, also for n = 0 and n = 1 (which return 0), and
// it does not check n: a negative n gives a value in [n, 0], as in the reference.
//
// If the result cannot be an int (only possible with a corrupt imported state), Random returns 0.
func (a *Alea) Random(n int) int {
	x := a.Float() * float64(n)
	if x >= 0 && x < 1<<63 {
		return int(x) // the conversion truncates, which is floor for x ≥ 0
	}
	return floorInt(x)
}

// floorInt is floor(x) as an int, 0 when that is not an int: Random's rare case, kept out of it
// so that Random is inlined.
func floorInt(x float64) int {
	v := math.Floor(x)
	if !(v >= -(1<<63) && v < 1<<63) {
		return 0
	}
	return int(v)
}

// toInt32 is JavaScript's ToInt32 (what `x | 0` computes), returned as a double: NaN and
// infinities give 0, anything else is truncated toward zero and wrapped into [-2^31, 2^31).
func toInt32(x float64) float64 {
	// Every state made by stepping lands here: no wrapping needed, and math.Mod is costly.
	if x > -(1<<31) && x < 1<<31 {
		return float64(int32(x)) // truncated toward zero, and never -0
	}
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return 0
	}
	x = math.Mod(math.Trunc(x), twoPow32) // in (-2^32, 2^32), sign of x
	if x < 0 {
		x += twoPow32
	}
	if x >= 1<<31 {
		x -= twoPow32
	}
	return x + 0 // turn -0 into +0, as an int32 has no negative zero
}

// toUint32 is JavaScript's ToUint32 (what `x >>> 0` computes), returned as a double.
func toUint32(x float64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return 0
	}
	x = math.Mod(math.Trunc(x), twoPow32)
	if x < 0 {
		x += twoPow32
	}
	return x + 0
}

// mash is Baagøe's Mash string hash. Its state n carries over from one call to the next, so
// hashing the same text twice gives different results; the seeding order matters.
type mash struct {
	n float64
}

// hash feeds the UTF-16 code units to the hash and returns a number in [0, 1).
func (m *mash) hash(units []uint16) float64 {
	n := m.n
	for _, u := range units {
		n += float64(u)
		h := float64(0.02519603282416938 * n)
		n = toUint32(h)
		h -= n
		h *= n
		n = toUint32(h)
		h -= n
		n += float64(h * twoPow32)
	}
	m.n = n
	return float64(toUint32(n) * twoPowMinus32)
}
