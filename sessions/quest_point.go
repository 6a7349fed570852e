package sessions

import (
	"strconv"
	"strings"
	"time"
)

// Kind is the kind of a multiplayer jump of a quest.
type Kind uint8

// The multiplayer jumps.
const (
	// Join is "!session [T]": join or open a session and wait for it to start.
	Join Kind = iota + 1
	// Barrier is "!wait [T]": post the outgoing block and wait for the others'.
	Barrier
)

// Timeouts of the jumps that give none, and the bounds of those that do.
const (
	DefaultJoinTimeout  = 2 * time.Minute
	DefaultRoundTimeout = time.Minute
	MinTimeout          = time.Second
	MaxTimeout          = 24 * time.Hour
)

// Point is a multiplayer jump as its text says: the kind and the timeout (0 for the default).
type Point struct {
	Kind    Kind
	Timeout time.Duration
}

// ParsePoint reads a jump text: "!session", "!wait", each optionally followed by a timeout in
// milliseconds ("!session 120000"). Anything else is not a point. A timeout that is not a
// number is ignored (the default applies); one out of bounds is clamped to them.
func ParsePoint(text string) (Point, bool) {
	text = strings.TrimSpace(text)
	var p Point
	var rest string
	switch {
	case hasWord(text, "!session"):
		p.Kind, rest = Join, text[len("!session"):]
	case hasWord(text, "!wait"):
		p.Kind, rest = Barrier, text[len("!wait"):]
	default:
		return Point{}, false
	}
	if f := strings.Fields(rest); len(f) > 0 {
		if ms, err := strconv.ParseInt(f[0], 10, 64); err == nil && ms > 0 {
			p.Timeout = time.Duration(min(ms, int64(MaxTimeout/time.Millisecond))) * time.Millisecond
			p.Timeout = max(p.Timeout, MinTimeout)
		}
	}
	return p, true
}

// hasWord reports whether s starts with word, followed by the end or a space.
func hasWord(s, word string) bool {
	if len(s) < len(word) || !strings.EqualFold(s[:len(word)], word) {
		return false
	}
	return len(s) == len(word) || s[len(word)] == ' ' || s[len(word)] == '\t'
}

// timeout is the point's timeout, or def when it gives none.
func (p Point) timeout(def time.Duration) time.Duration {
	if p.Timeout > 0 {
		return p.Timeout
	}
	return def
}
