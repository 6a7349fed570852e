package engine

import (
	"errors"
	"strings"
	"testing"
)

// Typed moves: every accepted form, and every kind of refusal.

func TestParseForms(t *testing.T) {
	for _, tc := range []struct {
		variant, pos, text, want string
	}{
		{"russian", "", "e3-f4", "e3-f4"},
		{"russian", "", "E3F4", "e3-f4"},
		{"russian", "", "с3-d4", "c3-d4"}, // Cyrillic с
		{"russian", "", "е3-f4", "e3-f4"}, // Cyrillic е
		{"russian", "", "а3-б4", "a3-b4"}, // Cyrillic а and б
		{"russian", "", "с3-д4", "c3-d4"}, // Cyrillic с and д, read phonetically
		{"russian", "", "Ц3-Д4", "c3-d4"}, // capitals
		{"russian", "", "е3-ф4", "e3-f4"}, // ф is f
		{"russian", "", "г3-х4", "g3-h4"}, // г is g, х is h
		{"russian", "", "Г3-Х4", "g3-h4"},
		{"russian", "", "С3 — D4", "c3-d4"}, // Cyrillic С, a dash
		{"russian", "", "h4", "g3-h4"},      // the only move to h4
		{"russian", "W:Wc3:Bd4,f6,f4", "c3:e5:g7", "c3:e5:g7"},
		{"russian", "W:Wc3:Bd4,f6,f4", "c3xe5xg3", "c3:e5:g3"},
		{"russian", "W:Wc3:Bd4,f6,f4", "c3хe5хg7", "c3:e5:g7"}, // Cyrillic х
		{"russian", "W:Wc3:Bd4", "c3xe5", "c3:e5"},
		{"russian", "W:Wc3:Bd4", "c3:e5", "c3:e5"},
		{"russian", "W:Wc3:Bd4,f6,f4", "c3xg7", "c3:e5:g7"},
		{"international", "", "32-28", "32-28"},
		{"international", "B:W24:B19", "19x30", "19x30"},
		{"international", "B:W24:B19", "19х30", "19x30"}, // Cyrillic х
		{"chess", "", "Nf3", "g1f3"},
		{"chess", "", "nf3", "g1f3"}, // a lowercase piece letter
		{"chess", "", "e4", "e2e4"},
		{"chess", "", "е4", "e2e4"}, // Cyrillic е
		{"chess", "", "e2-e4", "e2e4"},
		{"chess", "", "e2e4", "e2e4"},
		{"chess", "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", "O-O", "e1g1"},
		{"chess", "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", "0-0", "e1g1"},
		{"chess", "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", "О-О-О", "e1c1"}, // Cyrillic О
		{"chess", "r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1", "o-o", "e8g8"},
		{"chess", "4k3/1P6/8/8/8/8/8/4K3 w - -", "b8=Q", "b7b8q"},
		{"chess", "4k3/1P6/8/8/8/8/8/4K3 w - -", "b8N+", "b7b8n"},
		{"chess", "4k3/1P6/8/8/8/8/8/4K3 w - -", "b7b8r", "b7b8r"},
		{"chess", "4k3/8/8/2p5/1P6/B7/8/4K3 w - - 0 1", "bxc5", "b4c5"},                           // the pawn can
		{"chess", "4k3/8/8/2p5/8/B7/8/4K3 w - - 0 1", "bxc5", "a3c5"},                             // no pawn: the bishop
		{"chess", "", "ф2-ф4", "f2f4"},                                                            // phonetic files
		{"chess", "", "х2х4", "h2h4"},                                                             // х as the file h
		{"chess", "rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2", "ехд5", "e4d5"}, // х as the capture sign
		{"chess", "4k3/8/8/8/8/8/8/R3K2R w - - 0 1", "Rhf1", "h1f1"},
		{"chess", "4k3/8/8/8/8/8/8/R3K2R w - - 0 1", "Кd2", "e1d2"}, // Cyrillic К
		{"chase", "", "A3>A4:2", "A3>A4:2"},
		{"chase", "", "А1-А2", "A1-A2"}, // Cyrillic А
		{"foxgeese13", "", "c3-c4", "c3-c4"},
	} {
		var opts []Option
		if tc.pos != "" {
			opts = append(opts, WithPosition(tc.pos))
		}
		g := mustGame(t, tc.variant, opts...)
		before := g.Position()
		m, err := g.Play(tc.text)
		if err != nil || m.String() != tc.want {
			t.Errorf("%s %q: got %v, %v; want %s", tc.variant, tc.text, m, err, tc.want)
			continue
		}
		if g.Position() == before || g.Ply() != 1 {
			t.Errorf("%s %q: the move was not played", tc.variant, tc.text)
		}
	}
}

// moveError parses text and returns the refusal, failing if there is none.
func moveError(t *testing.T, g *Game, text string) *MoveError {
	t.Helper()
	before := g.Position()
	_, err := g.Play(text)
	if err == nil {
		t.Fatalf("%q was accepted", text)
	}
	if g.Position() != before || g.Ply() != 0 {
		t.Fatalf("%q changed the game", text)
	}
	var me *MoveError
	if !errors.As(err, &me) {
		t.Fatalf("%q: %v is not a *MoveError", text, err)
	}
	if me.Input != text {
		t.Errorf("%q: Input %q", text, me.Input)
	}
	return me
}

func TestParseErrors(t *testing.T) {
	ru := mustGame(t, "russian")
	for _, text := range []string{"", "hello", "###", "ж3-d4", "в3-d4", "c3-d4ж", strings.Repeat("c3", 200), "\xff\xfe"} {
		if e := moveError(t, ru, text); e.Kind != MoveUnreadable || !errors.Is(e, ErrIllegalMove) {
			t.Errorf("%q: %v, want unreadable", text, e)
		}
	}
	e := moveError(t, ru, "d4-e5")
	if e.Kind != MoveNoPiece || e.Square != "d4" {
		t.Errorf("d4-e5: %+v", e)
	}
	e = moveError(t, ru, "f6-g5")
	if e.Kind != MoveNotYours || e.Square != "f6" {
		t.Errorf("f6-g5: %+v", e)
	}
	e = moveError(t, ru, "c3-c4")
	if e.Kind != MoveIllegal || e.Square != "c3" || moveList(e.Candidates) != "c3-b4, c3-d4" {
		t.Errorf("c3-c4: %+v", e)
	}
	if !strings.Contains(e.Error(), "c3-b4, c3-d4") {
		t.Errorf("message %q lacks the candidates", e.Error())
	}
	e = moveError(t, ru, "c3") // an origin alone
	if e.Kind != MoveIllegal || len(e.Candidates) != 2 {
		t.Errorf("c3: %+v", e)
	}
	e = moveError(t, ru, "b2-c3") // a blocked man
	if e.Kind != MoveIllegal || e.Square != "b2" || len(e.Candidates) != 0 {
		t.Errorf("b2-c3: %+v", e)
	}
	e = moveError(t, ru, "d4") // c3-d4 or e3-d4
	if e.Kind != MoveAmbiguous || moveList(e.Candidates) != "c3-d4, e3-d4" || !errors.Is(e, ErrAmbiguousMove) {
		t.Errorf("d4: %+v", e)
	}
	e = moveError(t, ru, "e5")
	if e.Kind != MoveIllegal || e.Square != "" {
		t.Errorf("e5: %+v", e)
	}
	// A compulsory capture.
	forced := mustGame(t, "russian", WithPosition("W:Wc3,g3:Bd4"))
	e = moveError(t, forced, "g3-h4")
	if e.Kind != MoveIllegal || !e.MustCapture || len(e.Candidates) != 0 || !strings.Contains(e.Error(), "compulsory") {
		t.Errorf("g3-h4 with a capture: %+v", e)
	}
	// Chess.
	ch := mustGame(t, "chess")
	e = moveError(t, ch, "Nf5")
	if e.Kind != MoveIllegal || e.Square != "" || moveList(e.Candidates) != "b1a3, b1c3, g1f3, g1h3" {
		t.Errorf("Nf5: %+v", e)
	}
	e = moveError(t, ch, "Ngf5")
	if e.Kind != MoveIllegal || e.Square != "g1" || moveList(e.Candidates) != "g1f3, g1h3" {
		t.Errorf("Ngf5: %+v", e)
	}
	e = moveError(t, ch, "Qd4")
	if e.Kind != MoveIllegal || e.Square != "d1" || len(e.Candidates) != 0 {
		t.Errorf("Qd4: %+v", e)
	}
	e = moveError(t, ch, "O-O")
	if e.Kind != MoveIllegal || e.Square != "e1" {
		t.Errorf("O-O at the start: %+v", e)
	}
	e = moveError(t, ch, "e2-e5")
	if e.Kind != MoveIllegal || e.Square != "e2" || moveList(e.Candidates) != "e2e3, e2e4" {
		t.Errorf("e2-e5: %+v", e)
	}
	noQueen := mustGame(t, "chess", WithPosition("4k3/8/8/8/8/8/8/R3K3 w - -"))
	if e = moveError(t, noQueen, "Qd4"); e.Kind != MoveNoPiece {
		t.Errorf("Qd4 without a queen: %+v", e)
	}
	promo := mustGame(t, "chess", WithPosition("4k3/1P6/8/8/8/8/8/4K3 w - -"))
	if e = moveError(t, promo, "b8"); e.Kind != MoveAmbiguous || len(e.Candidates) != 4 {
		t.Errorf("b8: %+v", e)
	}
	// Game over.
	over := mustGame(t, "chess")
	mustPlay(t, over, "f3", "e5", "g4", "Qh4")
	_, err := over.Play("a2a3")
	var me *MoveError
	if !errors.As(err, &me) || me.Kind != MoveGameOver || me.Reason != "checkmate" || !errors.Is(err, ErrGameOver) {
		t.Errorf("after mate: %v", err)
	}
	if err := over.Apply(Move{}); !errors.Is(err, ErrGameOver) {
		t.Errorf("Apply after mate: %v", err)
	}
	// Apply of a move that is not legal here.
	stale := mustGame(t, "russian").LegalMoves()[0]
	g := mustGame(t, "russian")
	mustPlay(t, g, stale.String())
	err = g.Apply(stale)
	if !errors.As(err, &me) || me.Kind != MoveIllegal || !errors.Is(err, ErrIllegalMove) {
		t.Errorf("stale Apply: %v", err)
	}
}

func TestMoveErrorKinds(t *testing.T) {
	for k := MoveUnreadable; k <= MoveGameOver; k++ {
		if s := k.String(); s == "" || s == "unknown" {
			t.Errorf("kind %d has no name", k)
		}
		if (&MoveError{Kind: k}).Error() == "" {
			t.Errorf("kind %v has no message", k)
		}
	}
	if MoveErrorKind(0).String() != "unknown" {
		t.Errorf("zero kind named")
	}
}
