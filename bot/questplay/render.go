package questplay

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/questbot/questbot/bot"
	"github.com/questbot/questbot/quest"
)

// rangerMark stands for the player's name in the texts the quest player builds. The name is put
// in only after the quest markup has been converted, escaped, so that a name can never be read
// as markup or as HTML. (The character is from Unicode's private use area.)
const rangerMark = "\uE000"

// maxButtonText is the longest choice text shown on a button, in characters; Telegram clients
// cut longer labels. Longer choices are written in full in the message, numbered.
const maxButtonText = 40

// maxButtons is Telegram's limit of buttons in a keyboard; further choices are not offered.
const maxButtons = 100

// maxButtonsPerRow is Telegram's limit of buttons in a keyboard row.
const maxButtonsPerRow = 8

// maxPad bounds the column a <format=…,N> tag pads to.
const maxPad = 120

// screen is one screen of a game as Telegram content.
type screen struct {
	html  string
	kb    bot.Keyboard // nil when the screen has no choices
	image string       // local image file the screen shows (screenReqs), "" for none
}

// render builds the screen of view v of a game: text, parameter lines, the long choices, and
// one button per active choice carrying the game, the step and the action, width buttons a row
// (0: the reference's rule, a number in the view's image field). The screen of an ended game has
// no buttons: the game is over once it is shown.
func render(c *compiled, v quest.View, gameID int64, step int, name string, width int) screen {
	if v.Status.Over() {
		v.Choices = nil
	}
	nameHTML := escape(name)
	var b strings.Builder
	text := strings.TrimSpace(markupHTML(v.Text, nameHTML))
	b.WriteString(text)
	if p := paramsHTML(v.Params, nameHTML); p != "" {
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString(p)
	}
	// Quests for this bot's reference put the number of buttons per row in the image field of
	// a location's text (a number is no image name); one button per row otherwise.
	if width <= 0 {
		width = 1
		if n, err := strconv.Atoi(strings.TrimSpace(v.Image)); err == nil {
			width, v.Image = max(1, min(n, maxButtonsPerRow)), ""
		}
	}
	var kb bot.Keyboard
	long := 0
	buttons := 0
	for _, ch := range v.Choices {
		if !ch.Active || buttons == maxButtons {
			continue
		}
		buttons++
		label := plainText(ch.Text, name)
		if label == "" {
			label = "…"
		}
		if utf8.RuneCountInString(label) > maxButtonText {
			long++
			if long == 1 {
				b.WriteString("\n")
			}
			fmt.Fprintf(&b, "\n<b>%d.</b> %s", long, strings.TrimSpace(markupHTML(ch.Text, nameHTML)))
			label = strconv.Itoa(long) + ". " + cut(label, maxButtonText/2) + "…"
		}
		data := buttonData(gameID, step, ch.JumpID)
		btn := bot.Button{Text: label, Data: data}
		if n := len(kb); n > 0 && len(kb[n-1]) < width {
			kb[n-1] = append(kb[n-1], btn)
		} else {
			kb = append(kb, []bot.Button{btn})
		}
	}
	html := b.String()
	if strings.TrimSpace(html) == "" {
		html = "…"
	}
	sc := screen{html: html, kb: kb}
	if v.Image != "" {
		sc.image = c.Image(v.Image)
	}
	return sc
}

// cut returns the first n characters of s, without trailing space.
func cut(s string, n int) string {
	i := 0
	for k := range s {
		if i == n {
			return strings.TrimSpace(s[:k])
		}
		i++
	}
	return s
}

// paramsAction is the action of a screen's parameters button: it shows all the parameters on
// the screen (HandleCallback), and changes nothing of the game. The quest's own actions are its
// jump ids and a few small negative numbers (quest.JumpIAgree, ...), never this one.
const paramsAction = -1000

// panel says which parameter lines a screen shows.
type panel int

const (
	// panelAll: all of them (a game's first screen, /retry, the parameters button).
	panelAll panel = iota
	// panelChanged: those that changed since the screen before, and a button for all of them.
	panelChanged
	// panelNone: none (a screen left, kept as the story).
	panelNone
)

// changedParams returns the parameter lines of cur that are not as they were in prev: the lines
// are taken in groups, a group being the lines that <nobr> joins (a board a quest draws with its
// parameters) and a line alone otherwise, and a group shows whole when any of its lines is new.
func changedParams(cur, prev []string) []string {
	old := map[string]bool{}
	for _, g := range paramGroups(prev) {
		old[strings.Join(g, "\n")] = true
	}
	var out []string
	for _, g := range paramGroups(cur) {
		if !old[strings.Join(g, "\n")] {
			out = append(out, g...)
		}
	}
	return out
}

// paramGroups splits parameter lines into the groups that <nobr> joins.
func paramGroups(lines []string) [][]string {
	var out [][]string
	var g []string
	for _, l := range lines {
		g = append(g, l)
		if indexFold(l, "<nobr>") < 0 {
			out, g = append(out, g), nil
		}
	}
	if len(g) > 0 {
		out = append(out, g)
	}
	return out
}

// paramsHTML converts the parameter lines. A line holding <nobr> is continued by the next one
// on the same line (quests draw boards this way). Lines without any formatting of their own are
// set in italics, apart from the text.
func paramsHTML(lines []string, nameHTML string) string {
	if len(lines) == 0 {
		return ""
	}
	var raw strings.Builder
	for i, l := range lines {
		joined := false
		if k := indexFold(l, "<nobr>"); k >= 0 {
			l = l[:k] + l[k+len("<nobr>"):]
			joined = true
		}
		raw.WriteString(l)
		if !joined && i < len(lines)-1 {
			raw.WriteString("\n")
		}
	}
	src := raw.String()
	out := strings.TrimRight(markupHTML(src, nameHTML), "\n ")
	if out == "" {
		return ""
	}
	if indexFold(src, "<clr") >= 0 || indexFold(src, "<fix") >= 0 || indexFold(src, "<format") >= 0 {
		return out
	}
	return "<i>" + out + "</i>"
}

// indexFold is strings.Index ignoring ASCII case.
func indexFold(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if strings.EqualFold(s[i:i+len(sub)], sub) {
			return i
		}
	}
	return -1
}

// escape escapes text for Telegram's HTML parse mode.
func escape(s string) string {
	var b strings.Builder
	for _, r := range s {
		writeEscaped(&b, r)
	}
	return b.String()
}

func writeEscaped(b *strings.Builder, r rune) {
	switch r {
	case '&':
		b.WriteString("&amp;")
	case '<':
		b.WriteString("&lt;")
	case '>':
		b.WriteString("&gt;")
	case '"':
		b.WriteString("&quot;")
	case utf8.RuneError:
		b.WriteRune('\uFFFD')
	default:
		b.WriteRune(r)
	}
}

// markupHTML converts quest markup to Telegram HTML:
//
//   - <clr>…<clrEnd> (highlighted values) become bold;
//   - <fix>…</fix> (fixed-width text) becomes <code>, without bold inside (Telegram allows no
//     entity within code);
//   - <br> and line breaks become newlines;
//   - <format=left,N> (or right, center) pads the current line with spaces to column N (tags do
//     not count), which lines up the columns of tables; <format> and </format> are dropped;
//   - <nobr> is dropped (it matters only between parameter lines, see paramsHTML);
//   - everything else, unknown tags included, is escaped.
//
// rangerMark is replaced by nameHTML, which must be escaped already. The result's tags are
// always balanced.
func markupHTML(s, nameHTML string) string {
	var b strings.Builder
	b.Grow(len(s) + 16)
	col := 0
	bold, code := false, false // bold: inside <clr>; code: inside <fix>
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\r':
			if i+1 < len(s) && s[i+1] == '\n' {
				i++
			}
			fallthrough
		case c == '\n':
			b.WriteByte('\n')
			col = 0
			i++
			continue
		case c == '<':
			end := strings.IndexByte(s[i:], '>')
			if end > 0 && end < 32 {
				tag := strings.ToLower(s[i+1 : i+end])
				known := true
				switch {
				case tag == "clr":
					if !bold && !code {
						b.WriteString("<b>")
					}
					bold = true
				case tag == "clrend":
					if bold && !code {
						b.WriteString("</b>")
					}
					bold = false
				case tag == "fix":
					if !code {
						if bold {
							b.WriteString("</b>")
						}
						b.WriteString("<code>")
					}
					code = true
				case tag == "/fix":
					if code {
						b.WriteString("</code>")
						if bold {
							b.WriteString("<b>")
						}
					}
					code = false
				case tag == "br":
					b.WriteByte('\n')
					col = 0
				case tag == "nobr", tag == "format", tag == "/format":
				case strings.HasPrefix(tag, "format="):
					if k := strings.LastIndexByte(tag, ','); k >= 0 {
						if n, err := strconv.Atoi(strings.TrimSpace(tag[k+1:])); err == nil {
							for n = min(n, maxPad); col < n; col++ {
								b.WriteByte(' ')
							}
						}
					}
				default:
					known = false
				}
				if known {
					i += end + 1
					continue
				}
			}
		case strings.HasPrefix(s[i:], rangerMark):
			b.WriteString(nameHTML)
			col += utf8.RuneCountInString(nameHTML)
			i += len(rangerMark)
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		writeEscaped(&b, r)
		col++
		i += size
	}
	if code {
		b.WriteString("</code>")
	} else if bold {
		b.WriteString("</b>")
	}
	return b.String()
}

// plainText is a choice text for a button: markup removed, the player's name put in, spaces
// collapsed. Buttons are plain text, so nothing is escaped.
func plainText(s, name string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		if s[i] == '<' {
			if end := strings.IndexByte(s[i:], '>'); end > 0 && end < 32 {
				tag := strings.ToLower(s[i+1 : i+end])
				if tag == "clr" || tag == "clrend" || tag == "fix" || tag == "/fix" || tag == "br" ||
					tag == "nobr" || tag == "format" || tag == "/format" || strings.HasPrefix(tag, "format=") {
					b.WriteByte(' ')
					i += end + 1
					continue
				}
			}
		}
		if strings.HasPrefix(s[i:], rangerMark) {
			b.WriteString(name)
			i += len(rangerMark)
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError {
			r = '\uFFFD'
		}
		b.WriteRune(r)
		i += size
	}
	return strings.Join(strings.Fields(b.String()), " ")
}
