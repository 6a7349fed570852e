package engine

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// # Importing games
//
// Import reads a game written as PGN (chess) or PDN (draughts), or a bare position string (FEN
// in chess, the "W:W...:B..." position of draughts), into the engine's start position and the
// moves played from it. Of a PGN/PDN text it reads the tags ([Key "value"]), the start position
// of a [FEN "..."] tag, and the main line: comments ({...} and ; to the line's end), variations
// (parenthesised, nested, skipped), NAGs ($1) and annotation marks (!, ?), move numbers (12.,
// 12...) and the result (1-0, 0-1, 1/2-1/2, 2-0, 0-2, 1-1, *) are read past. Only the first
// game of a text is read. A text that cannot be read is an *ImportError saying where and why,
// wrapping ErrBadImport; no input makes it panic.

// ErrBadImport: an imported game or position cannot be read.
var ErrBadImport = errors.New("bad import")

// MaxImportBytes and MaxImportMoves bound what Import reads.
const (
	MaxImportBytes = 256 << 10
	MaxImportMoves = 2000
)

// ImportError is a refusal of Import: Line (from 1) where the text goes wrong, 0 when it is not
// one place; Ply (from 1) the move that cannot be played, 0 when it is not a move; Token the
// text read there; Err the reason (wrapping ErrBadImport, and the move's *MoveError or the
// position's ErrBadPosition when there is one).
type ImportError struct {
	Line  int
	Ply   int
	Token string
	Err   error
}

func (e *ImportError) Error() string {
	var b strings.Builder
	b.WriteString("import")
	if e.Line > 0 {
		fmt.Fprintf(&b, ": line %d", e.Line)
	}
	if e.Ply > 0 {
		fmt.Fprintf(&b, ": move %d", e.Ply)
	}
	if e.Token != "" {
		fmt.Fprintf(&b, " %q", e.Token)
	}
	fmt.Fprintf(&b, ": %v", e.Err)
	return b.String()
}

func (e *ImportError) Unwrap() []error { return []error{ErrBadImport, e.Err} }

// ImportedMove is a move of an imported game: Text as the player wrote it, Move in the engine's
// notation (Move.String), Display as people read it (Game.LastDisplay), and Position the
// position after it.
type ImportedMove struct {
	Text     string
	Move     string
	Display  string
	Position string
}

// Imported is an imported game: its variant, its start position (Game.Position's string), its
// tags (none for a bare position) and its moves.
type Imported struct {
	Variant string
	Start   string
	Tags    map[string]string
	Moves   []ImportedMove
}

// Import reads text, a game of variant in PGN/PDN or a bare position string (see the section
// comment), and plays its moves on the engine.
func Import(variant, text string) (*Imported, error) {
	if len(text) > MaxImportBytes {
		return nil, &ImportError{Err: fmt.Errorf("%w: the text is longer than %d bytes", ErrBadImport, MaxImportBytes)}
	}
	if !utf8.ValidString(text) {
		return nil, &ImportError{Err: fmt.Errorf("%w: the text is not UTF-8", ErrBadImport)}
	}
	if _, err := NewGame(variant); err != nil {
		return nil, &ImportError{Err: err}
	}
	t := strings.TrimSpace(text)
	if t == "" {
		return nil, &ImportError{Err: fmt.Errorf("%w: the text is empty", ErrBadImport)}
	}
	if isPositionText(t) {
		g, err := NewGame(variant, WithPosition(t))
		if err != nil {
			return nil, &ImportError{Line: 1, Err: err}
		}
		return &Imported{Variant: g.Variant(), Start: g.Position(), Tags: map[string]string{}, Moves: []ImportedMove{}}, nil
	}
	toks, tags, err := scanGameText(t)
	if err != nil {
		return nil, err
	}
	var opts []Option
	if fen, ok := tags["FEN"]; ok {
		opts = append(opts, WithPosition(fen))
	}
	g, err := NewGame(variant, opts...)
	if err != nil {
		return nil, &ImportError{Token: tags["FEN"], Err: fmt.Errorf("%w: the FEN tag: %w", ErrBadImport, err)}
	}
	im := &Imported{Variant: g.Variant(), Start: g.Position(), Tags: tags, Moves: []ImportedMove{}}
	for _, tk := range toks {
		if len(im.Moves) >= MaxImportMoves {
			return nil, &ImportError{Line: tk.line, Err: fmt.Errorf("%w: more than %d moves", ErrBadImport, MaxImportMoves)}
		}
		m, err := g.Play(tk.text)
		if err != nil {
			return nil, &ImportError{Line: tk.line, Ply: len(im.Moves) + 1, Token: tk.text, Err: err}
		}
		im.Moves = append(im.Moves, ImportedMove{Text: tk.text, Move: m.String(), Display: g.LastDisplay(), Position: g.Position()})
	}
	return im, nil
}

// isPositionText tells a bare position string from a game: one line with no tag, comment or
// move number, a chess FEN's ranks or a draughts position's "W:"/"B:".
func isPositionText(t string) bool {
	if strings.ContainsAny(t, "\n[{;") {
		return false
	}
	return strings.Count(t, "/") >= 7 || strings.HasPrefix(t, "W:") || strings.HasPrefix(t, "B:")
}

// gameToken is a move of a game's main line and the line it is on.
type gameToken struct {
	text string
	line int
}

// scanGameText splits a PGN/PDN text into its tags and its main line's moves.
func scanGameText(t string) ([]gameToken, map[string]string, error) {
	tags := map[string]string{}
	var toks []gameToken
	line, depth, depthLine := 1, 0, 0
	bad := func(l int, tok, why string) error {
		return &ImportError{Line: l, Token: tok, Err: fmt.Errorf("%w: %s", ErrBadImport, why)}
	}
	for i := 0; i < len(t); {
		c := t[i]
		switch {
		case c == '\n':
			line++
			i++
		case c == ' ' || c == '\t' || c == '\r':
			i++
		case c == '{':
			end := strings.IndexByte(t[i:], '}')
			if end < 0 {
				return nil, nil, bad(line, "{", "a comment is not closed")
			}
			line += strings.Count(t[i:i+end], "\n")
			i += end + 1
		case c == ';':
			end := strings.IndexByte(t[i:], '\n')
			if end < 0 {
				end = len(t) - i
			}
			i += end
		case c == '%' && (i == 0 || t[i-1] == '\n'):
			// An escaped line, for programs only.
			end := strings.IndexByte(t[i:], '\n')
			if end < 0 {
				end = len(t) - i
			}
			i += end
		case c == '(':
			if depth == 0 {
				depthLine = line
			}
			depth++
			i++
		case c == ')':
			if depth == 0 {
				return nil, nil, bad(line, ")", "a variation closes that was not opened")
			}
			depth--
			i++
		case c == '[':
			end := strings.IndexByte(t[i:], ']')
			if end < 0 {
				return nil, nil, bad(line, "[", "a tag is not closed")
			}
			if depth == 0 && len(toks) > 0 {
				// The next game's tags: only the first game is read.
				return toks, tags, nil
			}
			k, v, ok := readTag(t[i+1 : i+end])
			if !ok {
				return nil, nil, bad(line, t[i:i+end+1], `a tag is [Name "value"]`)
			}
			tags[k] = v
			line += strings.Count(t[i:i+end], "\n")
			i += end + 1
		default:
			j := i
			for j < len(t) && !strings.ContainsRune(" \t\r\n{}();[]", rune(t[j])) {
				j++
			}
			if j == i {
				return nil, nil, bad(line, t[i:i+1], "unexpected character")
			}
			w := t[i:j]
			i = j
			if depth > 0 {
				continue
			}
			if mv, ok := moveWord(w); ok {
				toks = append(toks, gameToken{mv, line})
			} else if isResult(w) {
				return toks, tags, nil
			}
		}
	}
	if depth > 0 {
		return nil, nil, bad(depthLine, "(", "a variation is not closed")
	}
	return toks, tags, nil
}

// readTag reads the inside of a tag, Name "value" (with \" and \\ escapes).
func readTag(s string) (string, string, bool) {
	s = strings.TrimSpace(s)
	sp := strings.IndexAny(s, " \t")
	if sp <= 0 {
		return "", "", false
	}
	k, rest := s[:sp], strings.TrimSpace(s[sp:])
	if len(rest) < 2 || rest[0] != '"' || rest[len(rest)-1] != '"' {
		return "", "", false
	}
	var v strings.Builder
	in := rest[1 : len(rest)-1]
	for i := 0; i < len(in); i++ {
		if in[i] == '\\' && i+1 < len(in) {
			i++
		} else if in[i] == '"' {
			return "", "", false
		}
		v.WriteByte(in[i])
	}
	return k, v.String(), true
}

// moveWord is the move a word of the main line holds, without its move number and annotation
// marks; false for a word that holds none (a move number alone, a NAG, a result).
func moveWord(w string) (string, bool) {
	if w == "" || w[0] == '$' || isResult(w) {
		return "", false
	}
	// A move number, "12." or "12...", alone or before the move ("12.e4").
	j := 0
	for j < len(w) && isDigit(w[j]) {
		j++
	}
	if j > 0 && j < len(w) && w[j] == '.' {
		for j < len(w) && w[j] == '.' {
			j++
		}
		w = w[j:]
	} else if j == len(w) {
		return "", false
	}
	w = strings.TrimRight(w, "!?")
	if w == "" {
		return "", false
	}
	return w, true
}

func isResult(w string) bool {
	switch w {
	case "1-0", "0-1", "1/2-1/2", "½-½", "*", "2-0", "0-2", "1-1":
		return true
	}
	return false
}
