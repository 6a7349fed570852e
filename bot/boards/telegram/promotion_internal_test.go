package telegram

import (
	"slices"
	"testing"
	"time"

	"github.com/questbot/questbot/bot/boards"
	"github.com/questbot/questbot/bot/texts"
	"github.com/questbot/questbot/sessions/board"
)

// Ensure the buttons of a chess promotion show the pieces, drawn and named in the player's
// language, queen first, and each still plays its own piece.
func TestPromotionButtons(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tc, err := board.ControlByName("none")
	if err != nil {
		t.Fatal(err)
	}
	bd, _, err := board.Open(board.Spec{Service: 1, Creator: 1, Variant: "chess", Seed: 1, Control: tc, Side: board.SideFirst,
		Options: board.Options{Start: "4k3/1P6/8/8/8/8/8/4K3 w - - 0 1"}}, now)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bd.Join(2, now); err != nil {
		t.Fatal(err)
	}
	g, err := bd.Game()
	if err != nil {
		t.Fatal(err)
	}
	bd.ID = 7 // as if stored
	sc := &boards.Scene{Board: bd, Game: g}
	// The taps: the pawn on b7, then b8.
	var path []int
	for _, sq := range []string{"b7", "b8"} {
		ent, err := resolveEntry(g, path)
		if err != nil {
			t.Fatal(err)
		}
		i := slices.Index(ent.steps.Next, sq)
		if i < 0 {
			t.Fatalf("%s is not offered: %v", sq, ent.steps.Next)
		}
		path = append(path, i)
	}
	ent, err := resolveEntry(g, path)
	if err != nil {
		t.Fatal(err)
	}
	for lang, want := range map[string][]string{
		"en": {"♕ Queen", "♖ Rook", "♗ Bishop", "♘ Knight"},
		"ru": {"♕ Ферзь", "♖ Ладья", "♗ Слон", "♘ Конь"},
	} {
		kb := (&View{}).keyboard(texts.For(lang), sc, 0, ent, false)
		if len(kb) < 2 {
			t.Fatalf("%s: keyboard %v", lang, kb)
		}
		row := kb[len(kb)-2]
		var got []string
		for _, b := range row {
			got = append(got, b.Text)
			p, err := parsePress(b.Data)
			if err != nil {
				t.Fatalf("%s: %q: %v", lang, b.Data, err)
			}
			piece := map[string]string{"♕": "q", "♖": "r", "♗": "b", "♘": "n"}[string([]rune(b.Text)[0])]
			if m := ent.steps.Moves[p.choice].String(); m != "b7b8"+piece {
				t.Errorf("%s: %q plays %s", lang, b.Text, m)
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: the promotion buttons %q, want %q", lang, got, want)
		}
	}
}
