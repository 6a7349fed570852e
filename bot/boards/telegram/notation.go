package telegram

import (
	"regexp"
	"strings"
	"unicode"

	"github.com/questbot/questbot/engine"
)

// # Typed moves
//
// The engine reads moves leniently: each game's notation ("c3-d4", "g5:e3:c5", "32-28", "e2e4",
// "A3>A4:2"), "c3d4", a capture by its ends, a single square when one move ends there, chess in
// standard algebraic notation ("Nf3", "exd5", "e8=Q", "O-O", "bxc5" with a lowercase piece
// letter where no pawn move fits), and Cyrillic letters: the file letters read by their sound
// and the letters that look like Latin ones ("с3-д4" typed on a Russian keyboard). The bot adds the Russian chess piece letters at the start of a
// move (Кр king, Ф queen, Л rook, С bishop, К knight, followed by a file), tried before the
// look-alike reading (which reads К as the king).
//
// A text is taken as a move, rather than as a message for the admins, when it reads as one
// (looksLikeMove): square names, numbers, piece letters and move punctuation, with at least one
// square ("e4", "c3", "A3") or two numbers ("32-28"), or a castling; and while a game waits for
// the user's move, when it looks like an attempt at one (looksLikeAttempt: "c3-d9", "55-60").

// lookalikes maps the Cyrillic letters a player may type for Latin ones to those, as the engine
// reads them: the file letters by their sound (а б ц/с д е ф г х: a b c d e f g h) and the
// letters that look like Latin ones (к м н о р т у); "в" is not "b". Here "х" is the capture
// sign x; looksLikeMove tries it as the file h too.
var lookalikes = map[rune]rune{
	'а': 'a', 'б': 'b', 'ц': 'c', 'с': 'c', 'д': 'd', 'е': 'e', 'ф': 'f', 'г': 'g', 'х': 'x',
	'к': 'k', 'м': 'm', 'н': 'h', 'о': 'o', 'р': 'p', 'т': 't', 'у': 'y',
	'А': 'A', 'Б': 'B', 'Ц': 'C', 'С': 'C', 'Д': 'D', 'Е': 'E', 'Ф': 'F', 'Г': 'G', 'Х': 'X',
	'К': 'K', 'М': 'M', 'Н': 'H', 'О': 'O', 'Р': 'P', 'Т': 'T', 'У': 'Y',
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

// readings returns the texts a typed move may stand for, the likeliest first: in chess the
// Russian piece-letter reading, then the text as typed (which the engine reads with its
// look-alikes).
func readings(text string, chess bool) []string {
	text = strings.TrimSpace(text)
	if isPass(text) {
		return []string{"pass"} // Othello's pass, in either language
	}
	if chess {
		for _, p := range russianPieces {
			if rest, ok := strings.CutPrefix(text, p.ru); ok {
				rest = strings.TrimLeft(latin(rest), " ")
				if rest != "" && strings.ContainsRune("abcdefghx", rune(rest[0])) {
					return []string{p.en + rest, text}
				}
				break
			}
		}
	}
	return []string{text}
}

// parseTyped finds the legal move a typed text means, trying its readings in turn. The error is
// that of the last reading, the text as typed: an *engine.MoveError.
func parseTyped(g *engine.Game, text string) (engine.Move, error) {
	var last error
	for _, r := range readings(text, g.Variant() == "chess") {
		m, err := g.ParseMove(r)
		if err == nil {
			return m, nil
		}
		last = err
	}
	return engine.Move{}, last
}

// isPass reports whether a text is the word for a pass (Othello): "pass", "пас" or "пасс".
func isPass(text string) bool {
	switch strings.ToLower(text) {
	case "pass", "пас", "пасс":
		return true
	}
	return false
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
	if isPass(t) {
		return true
	}
	if len(t) < 2 || len(t) > 80 {
		return false
	}
	t = readings(t, true)[0]
	return readsAsMove(latin(t)) || readsAsMove(latin(strings.NewReplacer("х", "h", "Х", "H").Replace(t)))
}

// readsAsMove is looksLikeMove of a text in Latin letters.
func readsAsMove(t string) bool {
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

// attemptRE matches a text made of what moves are written with (in Latin letters): file letters
// and piece letters in runs of at most three, digits, and move punctuation, with a digit.
var attemptRE = regexp.MustCompile(`^[a-jA-JKQRNkqrnOo0-9 .,:;>=+#!?()/x\-]*[0-9][a-jA-JKQRNkqrnOo0-9 .,:;>=+#!?()/x\-]*$`)

// letterRun finds the runs of letters of a text.
var letterRun = regexp.MustCompile(`[A-Za-z]+`)

// looksLikeAttempt reports whether a text is an attempt at a move, however wrong: squares or
// numbers with dashes, colons or x, SAN-like chess text ("Qh9", "e9", "Кр7"), Cyrillic letters
// read as looksLikeMove reads them. It is wider than looksLikeMove and is asked only while a game
// waits for the user's move, when such a text is answered as a move rather than passed on.
func looksLikeAttempt(text string) bool {
	t := strings.TrimSpace(text)
	if looksLikeMove(t) {
		return true
	}
	if len(t) < 2 || len(t) > 80 {
		return false
	}
	t = latin(readings(t, true)[0])
	if !attemptRE.MatchString(t) {
		return false
	}
	for _, run := range letterRun.FindAllString(t, -1) {
		if len(run) > 3 {
			return false
		}
	}
	return true
}
