package qmm

import (
	"math/rand/v2"
	"os"
	"testing"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/questbot/questbot/quest/questtrace/corpus"
)

// TestUTF16 checks both conversions against unicode/utf16 on valid text, and the handling of
// lone surrogates.
func TestUTF16(t *testing.T) {
	t.Parallel()
	cases := []struct {
		units []uint16
		want  string
	}{
		{nil, ""},
		{utf16.Encode([]rune("abc")), "abc"},
		{utf16.Encode([]rune("Ёжик в тумане")), "Ёжик в тумане"},
		{utf16.Encode([]rune("€ 😀 𝄞 \u07FF\u0800\uFFFF")), "€ 😀 𝄞 \u07FF\u0800\uFFFF"},
		{[]uint16{0xD800}, "\xed\xa0\x80"},
		{[]uint16{'a', 0xDBFF, 'b'}, "a\xed\xaf\xbfb"},
		{[]uint16{0xDC00, 0xD800}, "\xed\xb0\x80\xed\xa0\x80"},
		{[]uint16{0xD800, 0xD800, 0xDC00}, "\xed\xa0\x80\U00010000"},
	}
	for _, c := range cases {
		b := make([]byte, 0, 2*len(c.units))
		for _, u := range c.units {
			b = append(b, byte(u), byte(u>>8))
		}
		if got := string(appendUTF8(nil, b)); got != c.want {
			t.Errorf("%x: got %q, want %q", c.units, got, c.want)
		}
		back, n := appendUTF16(nil, c.want)
		if string(back) != string(b) || n != len(c.units) {
			t.Errorf("%q: got % x (%d units), want % x", c.want, back, n, b)
		}
	}
}

// TestUTF16Blocks compares the four-unit fast path with the one-unit path on random texts
// drawn from the boundaries of each case.
func TestUTF16Blocks(t *testing.T) {
	t.Parallel()
	alphabet := []uint16{0, ' ', 'a', 0x7F, 0x80, 0xFF, 0x100, 0x401, 0x44F, 0x7FF, 0x800, 0xD7FF,
		0xD800, 0xDBFF, 0xDC00, 0xDFFF, 0xE000, 0xFFFF}
	r := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		b := make([]byte, 2*r.IntN(24))
		for i := 0; i < len(b); i += 2 {
			u := alphabet[r.IntN(len(alphabet))]
			if r.IntN(3) > 0 { // mostly ASCII and Cyrillic, as in quests
				u = []uint16{'a', 0x410, ' ', 0x44F}[r.IntN(4)]
			}
			b[i], b[i+1] = byte(u), byte(u>>8)
		}
		want := make([]byte, len(b)/2*3+8)
		j := 0
		for i := 0; i+1 < len(b); {
			j = appendUnit(want, j, b, &i)
		}
		if got := appendUTF8([]byte("x"), b); string(got) != "x"+string(want[:j]) {
			t.Fatalf("% x: got %q, want %q", b, got[1:], want[:j])
		}
	}
}

// FuzzUTF16 checks that decoding any code units and encoding them again is exact.
func FuzzUTF16(f *testing.F) {
	f.Add([]byte("a\x00\x3d\xd8\x00\xde\x00\xd8"))
	f.Fuzz(func(t *testing.T, b []byte) {
		b = b[:len(b)&^1]
		s := appendUTF8(nil, b)
		back, n := appendUTF16(nil, string(s))
		if string(back) != string(b) || n != len(b)/2 {
			t.Fatalf("% x -> %q -> % x", b, s, back)
		}
		if utf8.Valid(s) != validUTF16(b) {
			t.Fatalf("% x: valid UTF-8 %v", b, utf8.Valid(s))
		}
	})
}

// validUTF16 reports whether b holds no lone surrogate.
func validUTF16(b []byte) bool {
	for i := 0; i+1 < len(b); i += 2 {
		u := uint16(b[i]) | uint16(b[i+1])<<8
		switch {
		case u >= surrLow && u < surrEnd:
			return false
		case u >= surrHigh && u < surrLow:
			if i+3 >= len(b) {
				return false
			}
			v := uint16(b[i+2]) | uint16(b[i+3])<<8
			if v < surrLow || v >= surrEnd {
				return false
			}
			i += 2
		}
	}
	return true
}

// BenchmarkAppendUTF8 converts the texts of a large Russian quest.
func BenchmarkAppendUTF8(b *testing.B) {
	data, err := os.ReadFile(corpus.Path(b, "quests", "dagazbot", "univ28.qmm"))
	if err != nil {
		b.Fatal(err)
	}
	q, err := DecodeBytes(data)
	if err != nil {
		b.Fatal(err)
	}
	var texts [][]byte
	total := 0
	for _, l := range q.Locations {
		for _, t := range l.Texts {
			u, _ := appendUTF16(nil, t.Text)
			texts = append(texts, u)
			total += len(u)
		}
	}
	for _, j := range q.Jumps {
		for _, s := range []string{j.Text, j.Description, j.FormulaToPass} {
			u, _ := appendUTF16(nil, s)
			texts = append(texts, u)
			total += len(u)
		}
	}
	b.SetBytes(int64(total))
	var buf []byte
	for b.Loop() {
		for _, t := range texts {
			buf = appendUTF8(buf[:0], t)
		}
	}
}
