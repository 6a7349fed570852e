package web

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/questbot/questbot/sessions/board"
)

// # Export
//
// A game's moves as text: PGN for chess (the seven-tag roster, then the moves in standard
// algebraic notation with their check and mate marks, engine.Game.Record; castling O-O and
// O-O-O), and for Chess960 the same with the tags of a game that does not start from chess's
// start: [Variant "Chess960"], [SetUp "1"] and [FEN] with the start position, whose castling
// rights are written Shredder-FEN's way, by the files of the castling rooks ("HAha", which
// Chess960 readers take as X-FEN takes "KQkq"), PDN for the draughts
// (the same roster and GameType, the moves in the engine's notation, which is the usual one of
// each game), and a list of the moves numbered by moves (one ply of each side) for the other
// games. The players' names are written on one line,
// without control or bidi characters (oneLine), so that a name cannot forge a tag or a line.

// pdnGameType is the PDN GameType of each draughts variant.
var pdnGameType = map[string]int{"international": 20, "italian": 22, "pool": 23, "spanish": 24, "russian": 25,
	"brazilian": 26, "canadian": 27, "czech": 29, "turkish": 30, "thai": 31, "frisian": 40}

// exportGame writes a game's moves; ext is the file's usual extension.
func exportGame(bd *board.Board, st *GameState, publicURL string) (text, ext string, err error) {
	g, err := bd.Rebuild()
	if err != nil {
		return "", "", fmt.Errorf("web: export: %w", err)
	}
	switch bd.Variant {
	case "chess":
		return tagged(bd, st, publicURL, "1-0", "0-1", "1/2-1/2", nil, g.Record()), "pgn", nil
	case "chess960":
		setup := [][2]string{{"Variant", "Chess960"}, {"SetUp", "1"}, {"FEN", bd.Start}}
		return tagged(bd, st, publicURL, "1-0", "0-1", "1/2-1/2", setup, g.Record()), "pgn", nil
	}
	if gt, ok := pdnGameType[bd.Variant]; ok {
		var moves []string
		for _, m := range bd.Moves {
			moves = append(moves, m.Text)
		}
		return tagged(bd, st, publicURL, "2-0", "0-2", "1-1", [][2]string{{"GameType", fmt.Sprint(gt)}}, moves), "pdn", nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n%s — %s\n", oneLine(st.Title), oneLine(st.Seats[0].Name), oneLine(st.Seats[1].Name))
	for i, m := range st.Moves {
		if i == 0 || m.Number != st.Moves[i-1].Number {
			if i > 0 {
				b.WriteString("\n")
			}
			fmt.Fprintf(&b, "%d.", m.Number)
		}
		fmt.Fprintf(&b, " %s", oneLine(m.Text))
	}
	if len(st.Moves) > 0 {
		b.WriteString("\n")
	}
	if st.Result != nil {
		fmt.Fprintf(&b, "%s\n", oneLine(st.Result.Text))
	}
	return b.String(), "txt", nil
}

// tagged writes a game in PGN's shape: the seven-tag roster (and extra tags), then the moves,
// numbered by full move, and the result, in lines of at most 80 characters.
func tagged(bd *board.Board, st *GameState, publicURL, first, second, draw string, extra [][2]string, moves []string) string {
	res := "*"
	if o := bd.Outcome; bd.Status == board.Finished && o != nil {
		switch {
		case o.Draw:
			res = draw
		case o.Winner == 0:
			res = first
		default:
			res = second
		}
	}
	date := "????.??.??"
	if !bd.Started.IsZero() {
		date = bd.Started.UTC().Format("2006.01.02")
	}
	site := fmt.Sprintf("%s/play/%d", publicURL, bd.ID)
	tags := [][2]string{{"Event", fmt.Sprintf("Questbot game %d", bd.ID)}, {"Site", site}, {"Date", date}, {"Round", "-"},
		{"White", name(st.Seats[0].Name)}, {"Black", name(st.Seats[1].Name)}, {"Result", res}}
	tags = append(tags, extra...)
	var b strings.Builder
	for _, t := range tags {
		fmt.Fprintf(&b, "[%s \"%s\"]\n", t[0], strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(t[1]))
	}
	b.WriteString("\n")
	var tokens []string
	for i, m := range moves {
		if i%2 == 0 {
			tokens = append(tokens, fmt.Sprintf("%d.", i/2+1))
		}
		tokens = append(tokens, m)
	}
	tokens = append(tokens, res)
	line := 0
	for i, t := range tokens {
		if i > 0 {
			if line+1+len(t) > 80 {
				b.WriteString("\n")
				line = 0
			} else {
				b.WriteString(" ")
				line++
			}
		}
		b.WriteString(t)
		line += len(t)
	}
	b.WriteString("\n")
	return b.String()
}

// name is a player's name for a tag ("?" when unknown), on one line (see oneLine).
func name(s string) string {
	s = oneLine(s)
	if s == "" {
		return "?"
	}
	return s
}

// oneLine makes a text that comes from a user (a player's name) safe to write into a line of an
// export: every control character (newlines, tabs, NUL...) and line or paragraph separator
// becomes a space, the characters that change the direction of text (bidi embeddings,
// overrides, isolates and marks) are dropped, and runs of spaces become one. So a name can
// neither start a line (a forged tag or move) nor turn the text after it around.
func oneLine(s string) string {
	var b strings.Builder
	space := false
	for _, r := range strings.ToValidUTF8(s, "\uFFFD") {
		switch {
		case bidiControl(r):
			continue
		case unicode.IsControl(r), unicode.IsSpace(r), unicode.In(r, unicode.Zl, unicode.Zp):
			space = true
			continue
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		b.WriteRune(r)
	}
	return b.String()
}

// bidiControl reports whether r is one of Unicode's explicit directional formatting characters:
// the marks (ALM, LRM, RLM), the embeddings and overrides (LRE..RLO, PDF) and the isolates
// (LRI..PDI).
func bidiControl(r rune) bool {
	return r == '\u061c' || r == '\u200e' || r == '\u200f' || (r >= '\u202a' && r <= '\u202e') || (r >= '\u2066' && r <= '\u2069')
}
