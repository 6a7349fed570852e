package telegram

import (
	"testing"

	"github.com/questbot/questbot/bot/texts"
	"github.com/questbot/questbot/engine"
)

// game plays moves from the start of a variant.
func game(t *testing.T, variant string, moves ...string) *engine.Game {
	t.Helper()
	g, err := engine.NewGame(variant)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range moves {
		if _, err := g.Play(m); err != nil {
			t.Fatalf("%s: %v", m, err)
		}
	}
	return g
}

// othello starts an Othello game from a position.
func othello(t *testing.T, pos string) *engine.Game {
	t.Helper()
	g, err := engine.NewGame("othello", engine.WithPosition(pos))
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// Ensure what players type is read as the move they mean: the engine's notations, Cyrillic
// look-alikes, Russian piece letters, lowercase piece letters where no pawn move fits.
func TestParseTyped(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		g          *engine.Game
		text, want string
	}{
		{game(t, "russian"), "c3-d4", "c3-d4"},
		{game(t, "russian"), "с3-d4", "c3-d4"},   // Cyrillic с
		{game(t, "russian"), "С3 – Д4", "c3-d4"}, // Cyrillic file letters, read by their sound
		{game(t, "russian"), "с3-д4", "c3-d4"},
		{game(t, "russian"), "г3-х4", "g3-h4"},             // х is the file h
		{game(t, "russian"), "а3-в4", ""},                  // в is not b
		{game(t, "chess", "e2e4", "d7d5"), "ехд5", "e4d5"}, // х as the capture sign
		{game(t, "chess"), "Кф3", "g1f3"},
		{game(t, "russian"), "е3-f4", "e3-f4"},   // Cyrillic е
		{game(t, "russian"), "  a3b4 ", "a3-b4"}, // spaces, no dash
		{game(t, "international"), "32-28", "32-28"},
		{game(t, "chess"), "e2-e4", "e2e4"},
		{game(t, "chess"), "е2-е4", "e2e4"},
		{game(t, "chess"), "Nf3", "g1f3"},
		{game(t, "chess"), "nf3", "g1f3"},
		{game(t, "chess"), "Кf3", "g1f3"}, // Russian: К is the knight
		{game(t, "chess", "e2e4", "d7d5"), "exd5", "e4d5"},
		{game(t, "chess", "e2e4", "d7d5"), "e4:d5", "e4d5"},
		// b: the b-pawn's capture when there is one, else the bishop.
		{game(t, "chess", "b2b4", "c7c5"), "bxc5", "b4c5"},
		{game(t, "chess", "e2e4", "d7d5", "f1b5", "c7c6", "g1f3", "c6b5"), "bxb5", ""},
		{game(t, "chess", "e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "f8c5"), "O-O", "e1g1"},
		{game(t, "chess", "e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "f8c5"), "0-0", "e1g1"},
		{game(t, "chess", "e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "f8c5"), "О-О", "e1g1"}, // Cyrillic О
		{game(t, "chess", "e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6"), "bxc6", "b5c6"},
		{game(t, "chess", "e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "g8f6"), "Сxf7", "c4f7"}, // Russian: С is the bishop
		{game(t, "othello"), "d3", "d3"},
		{game(t, "othello"), "pass", ""}, // Black has placements: no pass
		{othello(t, "8/8/8/8/8/8/8/bw6 w"), "Pass", "pass"},
		{othello(t, "8/8/8/8/8/8/8/bw6 w"), "пас", "pass"},
		{game(t, "pool"), "11-15", "11-15"},
		{game(t, "canadian"), "43-37", "43-37"},
		{game(t, "canadian"), "55-49", ""}, // 49 holds White's own man
		{game(t, "italian"), "d3-c4", "d3-c4"},
		{game(t, "italian"), "c3-b4", ""}, // not a square of the Italian board
	} {
		m, err := parseTyped(tc.g, tc.text)
		switch {
		case tc.want == "" && err == nil:
			t.Errorf("%s %q: played %s, want a refusal", tc.g.Variant(), tc.text, m)
		case tc.want != "" && (err != nil || m.String() != tc.want):
			t.Errorf("%s %q: %s, %v; want %s", tc.g.Variant(), tc.text, m, err, tc.want)
		}
	}
}

// Ensure texts are taken as moves when they read as one, and chat is left alone.
func TestLooksLikeMove(t *testing.T) {
	t.Parallel()
	for text, want := range map[string]bool{
		"e2-e4": true, "e4": true, "Nf3": true, "nf3": true, "O-O": true, "0-0-0": true, "exd5": true,
		"e8=Q": true, "e7e8q": true, "c3:e5:g7": true, "32-28": true, "A3>A4:2": true, "с3-d4": true,
		"Кf3": true, "Кр e1": true, "с3-д4": true, "ехд5": true, "Кф3": true, "х2-х4": true, "Bxc5+": true, "e9-e10": true, "Nbd7": true, "R1a3": true,
		"hello": false, "ok": false, "hi there": false, "2": false, "gg": false, "why not e4?": false,
		"pass": true, "Пас": true, "passed": false,
		"": false, "a": false, "100": false, "thanks!": false, "Привет": false, "нет": false,
	} {
		if got := looksLikeMove(text); got != want {
			t.Errorf("looksLikeMove(%q) = %v, want %v", text, got, want)
		}
	}
}

// Ensure any attempt at a move, however wrong, is recognised (it is answered as a move while a
// game waits for the user's move), and chat is not.
func TestLooksLikeAttempt(t *testing.T) {
	t.Parallel()
	for text, want := range map[string]bool{
		"с3-д4": true, "c3-d9": true, "Qh9": true, "55-60": true, "a1:z9": false, "12x": true, "д5": true,
		"e2 e4!": true, "0-0-0-0": true,
		"hello": false, "ok": false, "gg": false, "thanks!": false, "Привет": false, "нет": false,
		"see you at 5": false, "2": false, "": false, "hello 5": false,
	} {
		if got := looksLikeAttempt(text); got != want {
			t.Errorf("looksLikeAttempt(%q) = %v, want %v", text, got, want)
		}
	}
}

// Ensure a refused move is answered with why, and with the moves of the piece it names, the moves
// it could be, or all the moves when it names no piece and they are few.
func TestRefusal(t *testing.T) {
	t.Parallel()
	c := texts.For("en")
	rested, err := engine.NewGame("frisian", engine.WithPosition("W:WK21,45:B3,9,15:KW3@21"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		g    *engine.Game
		text string
		want string
	}{
		{game(t, "russian"), "c3-e5", "«c3-e5» is not a legal move here.\nMoves of the piece on c3: c3-b4, c3-d4."},
		{game(t, "russian"), "b2-c3", "«b2-c3» is not a legal move here.\nThe piece on b2 cannot move now.\n" +
			"Your moves: a3-b4, c3-b4, c3-d4, e3-d4, e3-f4, g3-f4, g3-h4."},
		{game(t, "russian"), "d4-e5", "«d4-e5» is not a legal move here.\nThere is no piece on d4.\n" +
			"Your moves: a3-b4, c3-b4, c3-d4, e3-d4, e3-f4, g3-f4, g3-h4."},
		{game(t, "russian"), "b6-a5", "«b6-a5» is not a legal move here.\nThe piece on b6 is not yours.\n" +
			"Your moves: a3-b4, c3-b4, c3-d4, e3-d4, e3-f4, g3-f4, g3-h4."},
		{game(t, "russian"), "b4", "«b4» could be several moves: a3-b4, c3-b4. Write it in full."},
		{game(t, "russian", "c3-d4", "f6-e5"), "g3-f4", "«g3-f4» is not a legal move here.\nA capture is compulsory.\n" +
			"The piece on g3 cannot move now.\nYour moves: d4:f6."},
		{game(t, "chess"), "e2-e5", "«e2-e5» is not a legal move here.\nMoves of the piece on e2: e3, e4."},
		// Frisian draughts: White's king on 21 has made three moves in a row.
		{rested, "21-26", "«21-26» is not a legal move here.\nThe king on 21 has made three moves in a row: move another piece.\n" +
			"The piece on 21 cannot move now.\nYour moves: 45-40."},
	} {
		_, err := parseTyped(tc.g, tc.text)
		if err == nil {
			t.Fatalf("%q was played", tc.text)
		}
		if got := refusal(c, tc.g, tc.text, err); got != tc.want {
			t.Errorf("%q:\n%s\nwant\n%s", tc.text, got, tc.want)
		}
	}
}
