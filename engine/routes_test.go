package engine

import (
	"errors"
	"testing"
)

// ringPosition is an International draughts position where the white man on 43 takes 38 and
// then the ring 27, 17, 18, 28 either way round, ending on 32: two routes over the same pieces,
// one legal move.
const ringPosition = "W:W43:B27,17,18,28,38,35"

// Ensure a capture is accepted along every legal route over the same pieces, in full or
// abbreviated, in any order of the squares it names, and refused along no route.
func TestCaptureRoutes(t *testing.T) {
	g := mustGame(t, "international", WithPosition(ringPosition))
	legal := g.LegalMoves()
	if len(legal) != 1 {
		t.Fatalf("legal moves %v, want one", legal)
	}
	want := legal[0].String()
	for _, text := range []string{
		"43x32x21x12x23x32", "43x32x23x12x21x32", // the two routes in full
		"43:32:21:12:23:32", "43-32-23-12-21-32",
		"43x32", "43x12x32", "43x23x32", "43x21x12x32", "43x23x12x32", // abbreviated
		"43x21x23x32", "43x12x21x32", // landing squares in another order
		"43x38x27x17x18x28x32", "43x28x18x17x27x38x32", // the pieces taken
	} {
		m, err := g.ParseMove(text)
		if err != nil || m.String() != want {
			t.Errorf("%q: %v, %v; want %s", text, m, err, want)
		}
	}
	for _, text := range []string{"43x32x21x12x23x33", "43x32x22x32", "43x44x32"} {
		if _, err := g.ParseMove(text); !errors.Is(err, ErrIllegalMove) {
			t.Errorf("%q: %v, want a refusal", text, err)
		}
	}
}

// Ensure a text that names the squares of two different captures with the same ends is refused
// as ambiguous, with both, and that a square only one of them passes or takes decides.
func TestCaptureRoutesAmbiguous(t *testing.T) {
	// The man on 21 takes four pieces to 3 over 17 or over 27: 21x12x23x14x3, 21x32x23x14x3.
	g := mustGame(t, "international", WithPosition("W:W21:B28,17,18,19,9,27"))
	for _, text := range []string{"21x3", "21x23x3", "21x14x3"} {
		_, err := g.ParseMove(text)
		var me *MoveError
		if !errors.As(err, &me) || me.Kind != MoveAmbiguous || len(me.Candidates) != 2 {
			t.Errorf("%s: %v, want ambiguous between two", text, err)
		}
	}
	for text, want := range map[string]string{
		"21x12x3": "21x12x23x14x3", "21x32x3": "21x32x23x14x3", "21x17x3": "21x12x23x14x3", "21x27x14x3": "21x32x23x14x3",
	} {
		if m, err := g.ParseMove(text); err != nil || m.String() != want {
			t.Errorf("%s: %v, %v; want %s", text, m, err, want)
		}
	}
}
