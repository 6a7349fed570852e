package engine

import (
	"errors"
	"testing"
)

func TestImportPGNWithCommentsVariationsNAGs(t *testing.T) {
	pgn := "[Event \"Test\"]\n[White \"A\"]\n\n1. e4 {best by test} e5 (1... c5 2. Nf3 (2. c3) d6) 2. Nf3 $1 Nc6!? 3. Bb5 a6 ; Ruy Lopez\n4. O-O 1-0\n"
	im, err := Import("chess", pgn)
	if err != nil {
		t.Fatal(err)
	}
	if got := len(im.Moves); got != 7 {
		t.Fatalf("moves = %d, want 7: %+v", got, im.Moves)
	}
	if im.Tags["Event"] != "Test" {
		t.Errorf("Event tag = %q", im.Tags["Event"])
	}
}

func TestImportFEN(t *testing.T) {
	fen := "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1"
	im, err := Import("chess", fen)
	if err != nil {
		t.Fatal(err)
	}
	if len(im.Moves) != 0 || im.Start == "" {
		t.Fatalf("got %+v", im)
	}
}

func TestImportRussianPDNMultiCapture(t *testing.T) {
	pdn := "[GameType \"25\"]\n[FEN \"W:Wc3:Bd4,f6\"]\n1. c3:e5:g7 *\n"
	im, err := Import("russian", pdn)
	if err != nil {
		t.Fatal(err)
	}
	if len(im.Moves) != 1 {
		t.Fatalf("moves = %+v", im.Moves)
	}
}

func TestImportBadInputNeverPanics(t *testing.T) {
	bad := []string{"", "   ", "1. e4 {open", "1. e4 (1... e5", ")", "[Event", "[Event x]", "1. e5", "xx/yy/8/8/8/8/8/8 w - - 0 1",
		"[FEN \"nonsense\"]\n1. e4", "1. e4 e5 2. Ke3 Ke6 3. Kz9", "\xff\xfe"}
	for _, s := range bad {
		if _, err := Import("chess", s); err == nil {
			t.Errorf("Import(%q) succeeded", s)
		} else if !errors.Is(err, ErrBadImport) {
			t.Errorf("Import(%q) = %v, not ErrBadImport", s, err)
		}
	}
	// Texts of annotations alone (NAG signs, a move number, empty variations and comments) are
	// games without moves, from the start position.
	start, err := Import("chess", "*")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"$$$", "1.", "(((())))", "{}{}{}"} {
		im, err := Import("chess", s)
		if err != nil {
			t.Errorf("Import(%q) = %v, want a game without moves", s, err)
		} else if len(im.Moves) != 0 || im.Start != start.Start {
			t.Errorf("Import(%q) = %d moves from %q, want none from the start", s, len(im.Moves), im.Start)
		}
	}
	// Every prefix of a good game reads or is refused, never panics.
	pgn := "[Event \"T\"]\n1. e4 {c} e5 (1... c5) 2. Nf3 $1 Nc6 1-0"
	for i := range len(pgn) + 1 {
		_, _ = Import("chess", pgn[:i])
	}
	if _, err := Import("nosuchgame", "1. e4"); !errors.Is(err, ErrBadImport) {
		t.Errorf("unknown variant: %v", err)
	}
}
