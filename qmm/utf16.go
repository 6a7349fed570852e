package qmm

import (
	"encoding/binary"
	"slices"
	"strings"
	"unicode/utf8"
)

// Strings in quest files are UTF-16LE; the model holds UTF-8. A surrogate code unit that is not
// part of a valid pair is kept as the 3-byte sequence that encodes its value (ED A0..BF 80..BF),
// so that encoding restores it; see the package documentation.

const (
	surrHigh = 0xD800 // first high surrogate
	surrLow  = 0xDC00 // first low surrogate
	surrEnd  = 0xE000 // one past the last low surrogate
)

// appendUTF8 appends the UTF-8 form of the little-endian UTF-16 code units in b to dst.
func appendUTF8(dst, b []byte) []byte {
	// At most 3 bytes per code unit (a pair takes 4 bytes for 2 units), plus slack for the
	// 8-byte stores below, so dst is grown once and written by index.
	start := len(dst)
	n := len(b)/2*3 + 8
	dst = slices.Grow(dst, n)
	out := dst[start : start+n]
	i, j := 0, 0
	// Quest texts are mostly ASCII and Cyrillic, all below U+0800, where a code unit takes one
	// or two bytes. Four such units are converted at once without branches: each 16-bit lane
	// of w gets its encoding, then the lanes are packed by their lengths. (Shift counts are
	// masked with 63 so that the compiler need not handle larger ones.)
	for i+8 <= len(b) && j+8 <= len(out) {
		w := binary.LittleEndian.Uint64(b[i:])
		if w&0xFF80FF80FF80FF80 == 0 { // four ASCII characters
			binary.LittleEndian.PutUint32(out[j:], uint32(w&0xFF|w>>8&0xFF00|w>>16&0xFF0000|w>>24&0xFF000000))
			i, j = i+8, j+4
			continue
		}
		if w&0xF800F800F800F800 != 0 {
			j = appendUnit(out, j, b, &i)
			continue
		}
		const lanes = 0x0001000100010001
		two := (w + 0x0780*lanes) >> 11 & lanes // 1 in the lanes at or above U+0080
		enc2 := w>>6&(0x1F*lanes) | (w&(0x3F*lanes))<<8 | 0x80C0*lanes
		mask := two * 0xFFFF
		enc := enc2&mask | w&^mask
		s1 := (8 + 8*two) & 63              // bit offset of lane 1's bytes
		s2 := (s1 + 8 + 8*(two>>16&1)) & 63 // of lane 2's
		s3 := (s2 + 8 + 8*(two>>32&1)) & 63 // of lane 3's
		v := enc&0xFFFF | (enc>>16&0xFFFF)<<s1 | (enc>>32&0xFFFF)<<s2 | (enc>>48)<<s3
		binary.LittleEndian.PutUint64(out[j:], v)
		i, j = i+8, j+int(s3/8+1+two>>48)
	}
	for i+1 < len(b) {
		j = appendUnit(out, j, b, &i)
	}
	return dst[:start+j]
}

// appendUnit writes the UTF-8 form of the code unit at b[*i] (with the next one if they form a
// surrogate pair) to out[j:], advances *i past them and returns the new j. out must have room.
func appendUnit(out []byte, j int, b []byte, i *int) int {
	k := *i
	u := uint32(b[k]) | uint32(b[k+1])<<8
	*i = k + 2
	switch {
	case u < 0x80:
		out[j] = byte(u)
		return j + 1
	case u < 0x800:
		out[j] = 0xC0 | byte(u>>6)
		out[j+1] = 0x80 | byte(u)&0x3F
		return j + 2
	case u >= surrHigh && u < surrLow && k+3 < len(b) && b[k+3] >= surrLow>>8 && b[k+3] < surrEnd>>8:
		v := uint32(b[k+2]) | uint32(b[k+3])<<8
		r := (u-surrHigh)<<10 | (v - surrLow) + 0x10000
		out[j] = 0xF0 | byte(r>>18)
		out[j+1] = 0x80 | byte(r>>12)&0x3F
		out[j+2] = 0x80 | byte(r>>6)&0x3F
		out[j+3] = 0x80 | byte(r)&0x3F
		*i = k + 4
		return j + 4
	}
	// Also the lone surrogates: the same bit layout as any other 3-byte sequence.
	out[j] = 0xE0 | byte(u>>12)
	out[j+1] = 0x80 | byte(u>>6)&0x3F
	out[j+2] = 0x80 | byte(u)&0x3F
	return j + 3
}

// stringArena hands out strings carved from shared buffers, so that decoding a quest makes one
// allocation per arenaChunk bytes of text instead of one per string. It relies on the contract
// of strings.Builder: a string returned by String stays unchanged while the builder grows,
// because the builder only appends.
type stringArena struct {
	b       strings.Builder
	chunk   int // size of the next shared buffer
	scratch []byte
}

const (
	arenaFirst = 1 << 10  // size of the first shared buffer; small quests need little
	arenaChunk = 16 << 10 // size of later shared buffers
	arenaLarge = 2 << 10  // strings at least this long get their own allocation
)

// decode returns the UTF-8 form of the little-endian UTF-16 code units in b.
func (a *stringArena) decode(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	a.scratch = appendUTF8(a.scratch[:0], b)
	n := len(a.scratch)
	if n >= arenaLarge {
		return string(a.scratch)
	}
	if a.b.Cap()-a.b.Len() < n {
		// The rest of the current buffer is left unused, at most arenaLarge bytes.
		a.chunk = min(max(2*a.chunk, arenaFirst), arenaChunk)
		a.b = strings.Builder{}
		a.b.Grow(max(a.chunk, n))
	}
	start := a.b.Len()
	a.b.Write(a.scratch)
	return a.b.String()[start:]
}

// appendUTF16 appends the UTF-16LE form of s to dst and returns it with the number of code
// units written. Lone surrogates kept by the decoder are restored; any other invalid UTF-8 byte
// becomes U+FFFD.
func appendUTF16(dst []byte, s string) ([]byte, int) {
	units := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			dst = append(dst, c, 0)
			units++
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 && c == 0xED && i+2 < len(s) &&
			s[i+1] >= 0xA0 && s[i+1] <= 0xBF && s[i+2] >= 0x80 && s[i+2] <= 0xBF {
			// A lone surrogate in its 3-byte form.
			r, size = rune(c&0x0F)<<12|rune(s[i+1]&0x3F)<<6|rune(s[i+2]&0x3F), 3
		}
		i += size
		if r >= 0x10000 {
			r -= 0x10000
			hi, lo := surrHigh+(r>>10), surrLow+(r&0x3FF)
			dst = append(dst, byte(hi), byte(hi>>8), byte(lo), byte(lo>>8))
			units += 2
			continue
		}
		dst = append(dst, byte(r), byte(r>>8))
		units++
	}
	return dst, units
}
