package web

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/questbot/questbot/engine"
	"github.com/questbot/questbot/sessions/board"
)

// # Export
//
// A game's moves as text: PGN for chess (the seven-tag roster, then the moves in standard
// algebraic notation; checks are not marked, a mate is), PDN for the draughts (the same roster
// and GameType, the moves in the engine's notation, which is the usual one of each game), and a
// numbered list of the moves for the other games. The players' names are written on one line,
// without control or bidi characters (oneLine), so that a name cannot forge a tag or a line.

// pdnGameType is the PDN GameType of each draughts variant.
var pdnGameType = map[string]int{"international": 20, "italian": 22, "pool": 23, "spanish": 24, "russian": 25,
	"brazilian": 26, "canadian": 27, "czech": 29, "turkish": 30, "thai": 31}

// exportGame writes a game's moves; ext is the file's usual extension.
func exportGame(bd *board.Board, st *GameState, publicURL string) (text, ext string, err error) {
	if bd.Variant == "chess" {
		moves, err := sanMoves(bd)
		if err != nil {
			return "", "", err
		}
		return tagged(bd, st, publicURL, "1-0", "0-1", "1/2-1/2", nil, moves), "pgn", nil
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
	for _, m := range bd.Moves {
		fmt.Fprintf(&b, "%d. %s\n", m.Ply, oneLine(m.Text))
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

// sanLetters are the letters of the chess pieces, by the engine's kinds (pawn, knight, bishop,
// rook, queen, king).
var sanLetters = []string{"", "", "N", "B", "R", "Q", "K"}

// sanMoves writes a chess game's moves in standard algebraic notation, replaying it.
func sanMoves(bd *board.Board) ([]string, error) {
	full, err := bd.Rebuild()
	if err != nil {
		return nil, err
	}
	g, err := engine.NewGame(bd.Variant)
	if err != nil {
		return nil, fmt.Errorf("web: export: %w", err)
	}
	if g.Position() != bd.Start {
		// A game from a set-up position has no SAN here: the engine's notation it is.
		var out []string
		for _, m := range full.History() {
			out = append(out, m.String())
		}
		return out, nil
	}
	index := map[string]int{}
	for i, sq := range g.ImageMap(engine.First).Squares {
		index[sq.Name] = i
	}
	var out []string
	for _, m := range full.History() {
		mv, err := g.ParseMove(m.String())
		if err != nil {
			return nil, fmt.Errorf("web: export: %w", err)
		}
		san := sanOf(g, index, mv)
		if err := g.Apply(mv); err != nil {
			return nil, fmt.Errorf("web: export: %w", err)
		}
		if st := g.Status(); st.Result == engine.Win {
			san += "#"
		}
		out = append(out, san)
	}
	return out, nil
}

// sanOf writes a legal chess move in standard algebraic notation (without the check mark).
func sanOf(g *engine.Game, index map[string]int, mv engine.Move) string {
	path, _ := g.Describe(mv)
	text := mv.String()
	if len(path) < 2 {
		return text
	}
	from, to := path[0], path[len(path)-1]
	state := g.State()
	pc := state.Board[index[from]]
	kind := int(pc.Kind())
	if kind <= 0 || kind >= len(sanLetters) {
		return text
	}
	if kind == 6 && abs(int(from[0])-int(to[0])) == 2 {
		if to[0] == 'g' {
			return "O-O"
		}
		return "O-O-O"
	}
	target := state.Board[index[to]]
	capture := target != 0 && target.Owner() != pc.Owner() || kind == 1 && from[0] != to[0]
	var b strings.Builder
	if kind == 1 {
		if capture {
			b.WriteByte(from[0])
		}
	} else {
		b.WriteString(sanLetters[kind])
		sameFile, sameRank, others := false, false, false
		for _, o := range g.LegalMoves() {
			op, _ := g.Describe(o)
			if len(op) < 2 || op[0] == from || op[len(op)-1] != to || state.Board[index[op[0]]] != pc {
				continue
			}
			others = true
			sameFile = sameFile || op[0][0] == from[0]
			sameRank = sameRank || op[0][1:] == from[1:]
		}
		switch {
		case others && !sameFile:
			b.WriteByte(from[0])
		case others && !sameRank:
			b.WriteString(from[1:])
		case others:
			b.WriteString(from)
		}
	}
	if capture {
		b.WriteByte('x')
	}
	b.WriteString(to)
	if kind == 1 && len(text) == 5 {
		b.WriteString("=" + strings.ToUpper(text[4:]))
	}
	return b.String()
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
