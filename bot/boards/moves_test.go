package boards

import (
	"testing"
	"time"

	"github.com/questbot/questbot/bot/texts"
	"github.com/questbot/questbot/sessions/board"
)

// playedBoard opens a chess board between users 1 (White) and 2 and plays moves on it.
func playedBoard(t *testing.T, moves ...string) *board.Board {
	t.Helper()
	return playedFrom(t, "chess", "", moves...)
}

// playedFrom opens a board of a variant (from a position when start is not empty) between users
// 1 (the first side) and 2 and plays moves on it.
func playedFrom(t *testing.T, variant, start string, moves ...string) *board.Board {
	t.Helper()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tc, err := board.ControlByName("none")
	if err != nil {
		t.Fatal(err)
	}
	bd, _, err := board.Open(board.Spec{Service: 1, Creator: 1, Variant: variant, Seed: 1, Control: tc, Side: board.SideFirst,
		Options: board.Options{Start: start}}, now)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bd.Join(2, now); err != nil {
		t.Fatal(err)
	}
	for i, m := range moves {
		if _, err := bd.Move(bd.Seats[bd.ToMove].User, m, i, now); err != nil {
			t.Fatalf("%s: %v", m, err)
		}
	}
	return bd
}

// scene is a board's scene as the views get it (without the players).
func scene(t *testing.T, bd *board.Board) *Scene {
	t.Helper()
	g, err := bd.Game()
	if err != nil {
		t.Fatal(err)
	}
	return &Scene{Board: bd, Game: g}
}

// Ensure a caption's move number is the move being played while the game goes on, and the last
// move played once it is over: after a mate, a draw agreed and a resignation, not one more.
func TestCurrentMove(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 2, 3, 5, 0, 0, time.UTC)
	on := playedBoard(t, "e2e4", "e7e5", "g1f3")
	if n := scene(t, on).CurrentMove(); n != 2 {
		t.Errorf("at ply 3 in play: move %d, want 2", n)
	}
	if n := scene(t, playedBoard(t)).CurrentMove(); n != 1 {
		t.Errorf("at the start: move %d, want 1", n)
	}

	mate := playedBoard(t, "f2f3", "e7e5", "g2g4", "d8h4")
	if mate.Status != board.Finished || mate.Outcome == nil || mate.Outcome.Winner != 1 {
		t.Fatalf("the mate: %v %+v", mate.Status, mate.Outcome)
	}
	if n := scene(t, mate).CurrentMove(); n != 2 {
		t.Errorf("won on Black's second move: move %d, want 2", n)
	}

	draw := playedBoard(t, "e2e4", "e7e5")
	if _, err := draw.OfferDraw(1, now); err != nil {
		t.Fatal(err)
	}
	if _, err := draw.AcceptDraw(2, now); err != nil {
		t.Fatal(err)
	}
	if draw.Status != board.Finished || draw.Outcome == nil || !draw.Outcome.Draw {
		t.Fatalf("the draw: %v %+v", draw.Status, draw.Outcome)
	}
	if n := scene(t, draw).CurrentMove(); n != 1 {
		t.Errorf("drawn after move 1: move %d, want 1", n)
	}

	resigned := playedBoard(t, "d2d4", "d7d5")
	if _, err := resigned.Resign(1, now); err != nil {
		t.Fatal(err)
	}
	if resigned.Status != board.Finished {
		t.Fatalf("the resignation: %v", resigned.Status)
	}
	if n := scene(t, resigned).CurrentMove(); n != 1 {
		t.Errorf("resigned after move 1: move %d, want 1", n)
	}
}

// Ensure a move is written as people read it and numbered by moves.
func TestNumbered(t *testing.T) {
	t.Parallel()
	sc := scene(t, playedBoard(t, "e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "g8f6", "e1g1"))
	want := []string{"1. e4", "1… e5", "2. Nf3", "2… Nc6", "3. Bb5", "3… Nf6", "4. O-O"}
	for i, w := range want {
		if got := sc.Numbered(i + 1); got != w {
			t.Errorf("ply %d: %q, want %q", i+1, got, w)
		}
	}
}

// Ensure a side that cannot move because it has no pieces left is said to have no pieces left,
// and one whose pieces are blocked to have no moves left.
func TestEndReasonNoPieces(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		start, move, en, ru string
	}{
		{"W:Wc3:Bd4", "c3:e5", "no pieces left", "фигур не осталось"},
		{"W:Wb2,c1,h2:Ba3", "h2-g3", "no moves left", "ходов не осталось"},
	} {
		bd := playedFrom(t, "russian", tc.start, tc.move)
		if bd.Status != board.Finished || bd.Outcome == nil || bd.Outcome.Winner != 0 {
			t.Fatalf("%s %s: %v %+v", tc.start, tc.move, bd.Status, bd.Outcome)
		}
		sc := scene(t, bd)
		if got := sc.EndReason(texts.For("en")); got != tc.en {
			t.Errorf("%s: %q, want %q", tc.start, got, tc.en)
		}
		if got := sc.EndReason(texts.For("ru")); got != tc.ru {
			t.Errorf("%s: %q, want %q", tc.start, got, tc.ru)
		}
	}
}
