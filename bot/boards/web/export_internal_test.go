package web

import (
	"strings"
	"testing"

	"github.com/questbot/questbot/engine"
	"github.com/questbot/questbot/sessions/board"
)

// Ensure a Chess960 game exports as PGN with the tags of its start (Variant, SetUp and the FEN
// with Shredder-FEN castling) and its moves in standard algebraic notation, castling as O-O.
func TestExportChess960(t *testing.T) {
	const seed = 518 // Scharnagl's number of chess's own start
	g, err := engine.NewGame("chess960", engine.WithSeed(seed))
	if err != nil {
		t.Fatal(err)
	}
	bd := &board.Board{ID: 7, Variant: "chess960", Seed: seed, Status: board.Active, Start: g.Position()}
	for i, mv := range []string{"e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "g8f6", "e1h1"} {
		if _, err := g.Play(mv); err != nil {
			t.Fatal(err)
		}
		bd.Moves = append(bd.Moves, board.PlayedMove{Ply: i + 1, Seat: i % 2, Text: g.History()[i].String(), Position: g.Position()})
	}
	bd.Position = g.Position()
	st := &GameState{Seats: [2]SeatState{{Name: "Ann"}, {Name: "Boris"}}}
	text, ext, err := exportGame(bd, st, "https://example.org")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`[Variant "Chess960"]`, `[SetUp "1"]`,
		`[FEN "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w HAha - 0 1"]`,
		"\n\n1. e4 e5 2. Nf3 Nc6 3. Bc4 Nf6 4. O-O *\n"} {
		if !strings.Contains(text, want) {
			t.Errorf("the export has no %q:\n%s", want, text)
		}
	}
	if ext != "pgn" {
		t.Errorf("extension %q, want pgn", ext)
	}
	// The FEN tag reads back as the game's start.
	fen := text[strings.Index(text, `[FEN "`)+6:]
	fen = fen[:strings.IndexByte(fen, '"')]
	if h, err := engine.NewGame("chess960", engine.WithPosition(fen)); err != nil || h.Position() != bd.Start {
		t.Errorf("the FEN %q reads back as %v, %v", fen, h, err)
	}
}
