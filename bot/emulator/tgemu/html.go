package tgemu

import (
	"fmt"
	"html"
	"strings"
	"unicode/utf16"
)

// htmlTags are the tags Telegram accepts in HTML parse mode.
var htmlTags = map[string]bool{
	"b": true, "strong": true, "i": true, "em": true, "u": true, "ins": true, "s": true,
	"strike": true, "del": true, "span": true, "tg-spoiler": true, "a": true, "code": true,
	"pre": true, "blockquote": true, "tg-emoji": true,
}

// parseHTML checks text the way Telegram checks a message in HTML parse mode and returns the plain
// text the user sees. The error is Telegram's description after "Bad Request: ".
func parseHTML(text string) (string, error) {
	var plain strings.Builder
	var stack []string
	for i := 0; i < len(text); {
		switch c := text[i]; c {
		case '<':
			end := strings.IndexByte(text[i:], '>')
			if end < 0 {
				return "", fmt.Errorf("can't parse entities: Unclosed start tag at byte offset %d", i)
			}
			tag := text[i+1 : i+end]
			if strings.HasPrefix(tag, "/") {
				name := strings.ToLower(strings.TrimSpace(tag[1:]))
				if len(stack) == 0 || stack[len(stack)-1] != name {
					return "", fmt.Errorf("can't parse entities: Unexpected end tag at byte offset %d", i)
				}
				stack = stack[:len(stack)-1]
			} else {
				name := strings.ToLower(strings.Fields(tag + " ")[0])
				if !htmlTags[name] {
					return "", fmt.Errorf("can't parse entities: Unsupported start tag \"%s\" at byte offset %d", name, i)
				}
				stack = append(stack, name)
			}
			i += end + 1
		case '&':
			end := strings.IndexByte(text[i:], ';')
			if end > 1 && end < 10 {
				if s := html.UnescapeString(text[i : i+end+1]); s != text[i:i+end+1] {
					plain.WriteString(s)
					i += end + 1
					continue
				}
			}
			plain.WriteByte(c)
			i++
		case '>':
			return "", fmt.Errorf("can't parse entities: Unexpected character '>' at byte offset %d", i)
		default:
			plain.WriteByte(c)
			i++
		}
	}
	if len(stack) > 0 {
		return "", fmt.Errorf("can't parse entities: Can't find end tag corresponding to start tag \"%s\"", stack[len(stack)-1])
	}
	return plain.String(), nil
}

// textLen is the length of s as Telegram counts it: in UTF-16 code units.
func textLen(s string) int { return len(utf16.Encode([]rune(s))) }
