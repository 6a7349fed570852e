package qmm_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/questbot/questbot/qmm"
)

// FuzzDecode checks that Decode never panics, fails only with a *FormatError, and that a quest
// it accepts survives Encode: decoding the encoding gives the model as Encode documents it, and
// from then on decode and encode are stable, to the byte.
//
// The seeds are the project's quests and, when the corpus is there, its quests of up to 64 KB
// (the fuzzer mutates, and minimizes, small inputs much faster), and hand-made files, among them
// the only QM_2 one.
func FuzzDecode(f *testing.F) {
	for _, c := range someQuests(f) {
		if len(c.Data) <= 64<<10 {
			f.Add(c.Data)
		}
	}
	f.Add(minimalQM2())
	f.Add((&fileBuilder{}).header(0).stringsBlock(0, 0).b)
	f.Add((&fileBuilder{}).header(2).param("a", 0, 10).param("b", -5, 5).stringsBlock(1, 1).
		location(1, 2).change(2, 1).change(1, 3).endLocation().
		jump(2, 2).condition(2, -1, 1).condition(1, 0, 3).i32(1).change(1, 5).endJump().b)

	f.Fuzz(func(t *testing.T, data []byte) {
		q, err := qmm.DecodeBytes(data)
		if err != nil {
			var fe *qmm.FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("error is not a *qmm.FormatError: %v", err)
			}
			return
		}
		enc1 := encodeOrFail(t, q)
		q2, err := qmm.DecodeBytes(enc1)
		if err != nil {
			t.Fatalf("decode the encoding: %v", err)
		}
		checkEqual(t, asWritten(q), q2)
		// From here on the model is stable. (The first encoding may still hold records that
		// decode to defaults, such as a .qm change whose showing type has a zero low byte:
		// the reference writer writes them, the reader drops them.)
		enc2 := encodeOrFail(t, q2)
		q3, err := qmm.DecodeBytes(enc2)
		if err != nil {
			t.Fatalf("decode the second encoding: %v", err)
		}
		checkEqual(t, q2, q3)
		if !bytes.Equal(enc2, encodeOrFail(t, q3)) {
			t.Fatalf("third encoding differs from the second")
		}
	})
}

// encodeOrFail encodes q; a quest that Decode returned must always be encodable.
func encodeOrFail(t *testing.T, q *qmm.Quest) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := qmm.Encode(&buf, q); err != nil {
		t.Fatalf("encode a decoded quest: %v", err)
	}
	return buf.Bytes()
}
