package boards

import (
	"errors"
	"regexp"
	"strings"
	"unicode"

	"github.com/questbot/questbot/engine"
)

// # Typed moves
//
// The engine reads moves leniently ("c3-d4", "c3d4", "g5:e3:c5", "32-28", "e2e4", "Nf3", "O-O",
// "e8=Q", "A3>A4:2"). The bot adds what players type in a chat:
//
//   - Cyrillic letters that look like Latin ones, as a Russian keyboard types them: "с3-d4",
//     "е2-е4", "Кр е1" (see lookalikes).
//   - In chess, the Russian piece letters at the start of a move (Кр king, Ф queen, Л rook,
//     С bishop, К knight, followed by a file), tried before the look-alike reading.
//   - In chess, a lowercase piece letter where no pawn move fits ("bxc5" is the b-pawn's capture
//     when there is one, else the bishop's; "nf3" is the knight's).
//
// A text is taken as a move, rather than as a message for the admins, only when it reads as one
// (looksLikeMove): square names, numbers, piece letters and move punctuation, with at least one
// square ("e4", "c3", "A3") or two numbers ("32-28"), or a castling.

// lookalikes maps the Cyrillic letters that look like Latin ones to those.
var lookalikes = map[rune]rune{
	'а': 'a', 'в': 'b', 'с': 'c', 'е': 'e', 'к': 'k', 'м': 'm', 'н': 'h', 'о': 'o', 'р': 'p', 'т': 't',
	'у': 'y', 'х': 'x', 'А': 'A', 'В': 'B', 'С': 'C', 'Е': 'E', 'К': 'K', 'М': 'M', 'Н': 'H', 'О': 'O',
	'Р': 'P', 'Т': 'T', 'Х': 'X',
}

// russianPieces are the Russian chess piece letters and the English ones they stand for, the
// two-letter king first.
var russianPieces = []struct{ ru, en string }{
	{"Кр", "K"}, {"КР", "K"}, {"Ф", "Q"}, {"Л", "R"}, {"С", "B"}, {"К", "N"},
}

// latin replaces the Cyrillic look-alikes of a text by Latin letters and the typographic
// dashes and multiplication signs by their ASCII forms.
func latin(s string) string {
	return strings.Map(func(r rune) rune {
		if l, ok := lookalikes[r]; ok {
			return l
		}
		switch r {
		case '–', '—', '‑', '−':
			return '-'
		case '×':
			return 'x'
		}
		return r
	}, s)
}

// readings returns the texts a typed move may stand for, the likeliest first: the Russian
// piece-letter reading (chess), the look-alike reading, and the reading with a lowercase piece
// letter made uppercase (chess).
func readings(text string, chess bool) []string {
	text = strings.TrimSpace(text)
	var out []string
	add := func(s string) {
		for _, o := range out {
			if o == s {
				return
			}
		}
		out = append(out, s)
	}
	if chess {
		for _, p := range russianPieces {
			if rest, ok := strings.CutPrefix(text, p.ru); ok {
				rest = strings.TrimLeft(latin(rest), " ")
				if rest != "" && strings.ContainsRune("abcdefghx", rune(rest[0])) {
					add(p.en + rest)
				}
				break
			}
		}
	}
	l := latin(text)
	add(l)
	if chess && len(l) >= 2 && strings.ContainsRune("nbrqk", rune(l[0])) {
		add(strings.ToUpper(l[:1]) + l[1:])
	}
	return out
}

// parseTyped finds the legal move a typed text means, trying its readings in turn. The error is
// that of the first reading: engine.ErrIllegalMove, engine.ErrAmbiguousMove or
// engine.ErrGameOver.
func parseTyped(g *engine.Game, text string) (engine.Move, error) {
	var first error
	for _, r := range readings(text, g.Variant() == "chess") {
		m, err := g.ParseMove(r)
		if err == nil {
			return m, nil
		}
		if first == nil {
			first = err
		}
	}
	if first == nil {
		first = engine.ErrIllegalMove
	}
	return engine.Move{}, first
}

// moveToken is one word of a move: an optional piece letter and file hint, up to two squares
// or numbers, an optional promotion letter.
var moveToken = regexp.MustCompile(`^[KQRBNkqrbn]?[a-i]?([a-iA-I]?[0-9]{1,2}){0,2}[QRBNqrbn]?$`)

// squareToken finds the squares named with a letter in a word ("e2e4": e2, e4).
var squareToken = regexp.MustCompile(`[a-iA-I][0-9]{1,2}`)

// castling matches O-O and O-O-O, with letters or zeros.
var castling = regexp.MustCompile(`^(?i)[o0](-?[o0]){1,2}[+#!?]*$`)

// looksLikeMove reports whether a text reads as a move, or as a clear attempt at one: see the
// comment at the top of this file.
func looksLikeMove(text string) bool {
	t := strings.TrimSpace(text)
	if len(t) < 2 || len(t) > 80 {
		return false
	}
	if r := readings(t, true); len(r) > 0 {
		t = r[0]
	}
	t = strings.TrimRight(t, "+#!?")
	if castling.MatchString(t) {
		return true
	}
	words := strings.FieldsFunc(t, func(r rune) bool {
		return unicode.IsSpace(r) || strings.ContainsRune("-:>=.,", r)
	})
	if len(words) == 0 || len(words) > 25 {
		return false
	}
	squares, numbers := 0, 0
	for _, w := range words {
		// "x" between two squares is a capture sign: "exd5", "c3xe5".
		w = strings.ReplaceAll(w, "x", " ")
		for _, part := range strings.Fields(w) {
			if !moveToken.MatchString(part) {
				return false
			}
			if n := len(squareToken.FindAllString(part, -1)); n > 0 {
				squares += n
			} else if strings.ContainsAny(part, "0123456789") {
				numbers++
			}
		}
	}
	return squares > 0 || numbers >= 2
}

// numbered finds the square names and numbers of a text ("e3-e5": e3, e5; "32-28": 32, 28).
var numbered = regexp.MustCompile(`[a-i]?[0-9]{1,2}`)

// named returns the squares a typed text names, in order ("e3-e5": e3, e5; "Nf3": f3): the
// square names of the game's kind (a letter and a number, or numbers on the boards numbered so),
// spelt as the game spells them when a legal move's path has them.
func named(g *engine.Game, legal []engine.Move, text string) []string {
	known := map[string]string{}
	numeric := true
	for _, m := range legal {
		path, _ := g.Describe(m)
		for _, sq := range path {
			known[strings.ToLower(sq)] = sq
			numeric = numeric && sq[0] >= '0' && sq[0] <= '9'
		}
	}
	var out []string
	for _, tok := range numbered.FindAllString(strings.ToLower(latin(text)), -1) {
		if isNumber := tok[0] >= '0' && tok[0] <= '9'; isNumber != numeric {
			continue
		}
		if sq, ok := known[tok]; ok {
			tok = sq
		}
		out = append(out, tok)
	}
	return out
}

// explanation says why a typed move was refused and what the player can play instead.
type explanation struct {
	// ambiguous lists the moves the text could be (ErrAmbiguousMove). from is the square whose
	// moves follow, fromMoves those moves (none: nothing moves from it); to is the square the
	// text names as a destination, toMoves the moves to it; all is every legal move, when the
	// text names no square of theirs and they are few.
	ambiguous []string
	from      string
	fromMoves []string
	to        string
	toMoves   []string
	all       []string
}

// maxListed bounds the moves an explanation lists.
const maxListed = 12

// explain builds the answer to a typed move refused with err in the current position of g.
func explain(g *engine.Game, text string, err error) explanation {
	var ex explanation
	legal := g.LegalMoves()
	squares := named(g, legal, text)
	pathOf := func(m engine.Move) []string { p, _ := g.Describe(m); return p }
	if len(squares) > 0 {
		for _, m := range legal {
			p := pathOf(m)
			if len(p) == 0 || p[0] != squares[0] {
				continue
			}
			ex.fromMoves = append(ex.fromMoves, m.String())
			if errors.Is(err, engine.ErrAmbiguousMove) && passes(p, squares) {
				ex.ambiguous = append(ex.ambiguous, m.String())
			}
		}
		if len(ex.fromMoves) > 0 || len(squares) > 1 {
			ex.from = squares[0]
		} else {
			// The one square named is no piece of the player's that can move: a destination
			// ("Nf3", "e4").
			for _, m := range legal {
				if p := pathOf(m); len(p) > 0 && p[len(p)-1] == squares[0] {
					ex.toMoves = append(ex.toMoves, m.String())
				}
			}
			if len(ex.toMoves) > 0 {
				ex.to = squares[0]
				if errors.Is(err, engine.ErrAmbiguousMove) {
					ex.ambiguous = ex.toMoves
				}
			} else {
				ex.from = squares[0]
			}
		}
	}
	if ex.from == "" && ex.to == "" && len(legal) <= maxListed {
		for _, m := range legal {
			ex.all = append(ex.all, m.String())
		}
	}
	return ex
}

// passes reports whether a path goes through the squares in order (the first is its origin).
func passes(path, squares []string) bool {
	j := 0
	for _, sq := range path {
		if j < len(squares) && sq == squares[j] {
			j++
		}
	}
	return j == len(squares)
}
