package botpg

import (
	"bytes"
	"unicode/utf8"
)

// cleanJSON returns raw with what a PostgreSQL jsonb (and text) value cannot hold replaced by
// U+FFFD, and reports whether it replaced anything: the escape \u0000, escapes of UTF-16
// surrogates that do not make a pair, and bytes that are not UTF-8. One character becomes one,
// so the UTF-16 offsets of Telegram's message entities stay right. raw need not be valid JSON;
// what is not is left for the decoder to reject.
func cleanJSON(raw []byte) ([]byte, bool) {
	if !needsCleaning(raw) {
		return raw, false
	}
	out := make([]byte, 0, len(raw))
	changed := false
	inString := false
	for i := 0; i < len(raw); {
		c := raw[i]
		switch {
		case c == '"':
			inString = !inString
			out = append(out, c)
			i++
		case c == '\\' && inString && i+1 < len(raw):
			if raw[i+1] != 'u' {
				out = append(out, c)
				i++
				if raw[i] < utf8.RuneSelf {
					// The escaped character, which must not end the string.
					out = append(out, raw[i])
					i++
				}
				continue
			}
			r, ok := hex4(raw, i+2)
			switch {
			case !ok:
				// Not a valid escape: the decoder will say so.
				out = append(out, c)
				i++
			case r == 0:
				out = append(out, `\ufffd`...)
				changed = true
				i += 6
			case r >= 0xD800 && r <= 0xDBFF:
				if i+12 <= len(raw) && raw[i+6] == '\\' && raw[i+7] == 'u' {
					if lo, ok := hex4(raw, i+8); ok && lo >= 0xDC00 && lo <= 0xDFFF {
						out = append(out, raw[i:i+12]...)
						i += 12
						continue
					}
				}
				out = append(out, `\ufffd`...)
				changed = true
				i += 6
			case r >= 0xDC00 && r <= 0xDFFF:
				out = append(out, `\ufffd`...)
				changed = true
				i += 6
			default:
				out = append(out, raw[i:i+6]...)
				i += 6
			}
		case c < utf8.RuneSelf:
			out = append(out, c)
			i++
		default:
			r, n := utf8.DecodeRune(raw[i:])
			if r == utf8.RuneError && n <= 1 {
				out = append(out, "\uFFFD"...)
				changed = true
				i++
				continue
			}
			out = append(out, raw[i:i+n]...)
			i += n
		}
	}
	return out, changed
}

// needsCleaning reports whether raw may hold something cleanJSON replaces: a \u escape of zero
// or of a surrogate, or bytes that are not UTF-8. It is the fast path: most updates have none.
func needsCleaning(raw []byte) bool {
	if !utf8.Valid(raw) {
		return true
	}
	for i := 0; ; {
		j := bytes.Index(raw[i:], []byte(`\u`))
		if j < 0 {
			return false
		}
		i += j + 2
		if r, ok := hex4(raw, i); ok && (r == 0 || (r >= 0xD800 && r <= 0xDFFF)) {
			return true
		}
	}
}

// hex4 reads the four hexadecimal digits at raw[i:].
func hex4(raw []byte, i int) (rune, bool) {
	if i+4 > len(raw) {
		return 0, false
	}
	var r rune
	for _, c := range raw[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}
