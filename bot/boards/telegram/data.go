package telegram

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/questbot/questbot/engine"
	"github.com/questbot/questbot/sessions"
)

// CallbackPrefix is the prefix of the callback data of the board buttons:
// "g:<board>:<ply>:<op><args>" (see press).
const CallbackPrefix = "g"

// op is what a board button does.
type op byte

// The operations of the board buttons.
const (
	// opTap: the squares tapped so far (args: the path, see encodePath); an empty path is the
	// "back" button, a path that completes one move plays it.
	opTap op = 's'
	// opChoose: one of the moves that end on the tapped squares (args: the path, '.', the
	// move's index in engine.StepInfo.Moves).
	opChoose op = 'c'
	opUndo   op = 'u'
	opDraw   op = 'd'
	opAccept op = 'a'
	// opDecline declines the opponent's draw offer.
	opDecline op = 'n'
	// opResign asks to confirm a resignation; opResignYes resigns.
	opResign    op = 'r'
	opResignYes op = 'R'
	// opView brings the board back to the bottom of the chat (from /mygames), at any ply.
	opView op = 'v'
	// opCancel withdraws a waiting board.
	opCancel op = 'x'
)

// errForged is a press whose data no button of ours carries: it is answered like a stale one
// and changes nothing.
var errForged = sessions.Refusal(sessions.KindInvalid, "boards: malformed button data")

// pathAlphabet writes one step of a tapped path: the index of the square tapped in the list of
// squares offered at that step (engine.StepInfo.Next, in board order). One character a step keeps
// the longest capture chains of International draughts within Telegram's 64 bytes.
const pathAlphabet = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-_"

// maxOffered is the most squares a step can offer a button for (one character each).
const maxOffered = len(pathAlphabet)

// press is a board button's data, decoded.
type press struct {
	board  int64
	ply    int
	op     op
	path   []int // opTap, opChoose: the index tapped at each step
	choice int   // opChoose
}

// data returns the callback data of a press.
func (p press) data() string {
	var b strings.Builder
	b.WriteString(CallbackPrefix)
	b.WriteByte(':')
	b.WriteString(strconv.FormatInt(p.board, 10))
	b.WriteByte(':')
	b.WriteString(strconv.Itoa(p.ply))
	b.WriteByte(':')
	b.WriteByte(byte(p.op))
	switch p.op {
	case opTap:
		b.WriteString(encodePath(p.path))
	case opChoose:
		b.WriteString(encodePath(p.path))
		b.WriteByte('.')
		b.WriteString(strconv.Itoa(p.choice))
	}
	return b.String()
}

// encodePath writes a tapped path, one character a step.
func encodePath(path []int) string {
	out := make([]byte, len(path))
	for i, n := range path {
		out[i] = pathAlphabet[n]
	}
	return string(out)
}

// parsePress reads a board button's data; errForged for anything no button of ours carries.
func parsePress(data string) (press, error) {
	var p press
	parts := strings.Split(data, ":")
	if len(parts) != 4 || parts[0] != CallbackPrefix || parts[3] == "" {
		return p, fmt.Errorf("%w: %q", errForged, data)
	}
	var err error
	if p.board, err = strconv.ParseInt(parts[1], 10, 64); err != nil || p.board <= 0 {
		return p, fmt.Errorf("%w: board in %q", errForged, data)
	}
	if p.ply, err = strconv.Atoi(parts[2]); err != nil || p.ply < 0 || p.ply > 10*engine.DefaultPlyLimit {
		return p, fmt.Errorf("%w: ply in %q", errForged, data)
	}
	p.op, parts[3] = op(parts[3][0]), parts[3][1:]
	args := parts[3]
	switch p.op {
	case opTap:
		p.path, err = decodePath(args)
	case opChoose:
		path, choice, ok := strings.Cut(args, ".")
		if !ok {
			return p, fmt.Errorf("%w: choice in %q", errForged, data)
		}
		if p.path, err = decodePath(path); err == nil {
			p.choice, err = strconv.Atoi(choice)
			if err == nil && (p.choice < 0 || p.choice >= maxOffered || len(p.path) == 0) {
				err = errForged
			}
		}
	case opUndo, opDraw, opAccept, opDecline, opResign, opResignYes, opView, opCancel:
		if args != "" {
			err = errForged
		}
	default:
		err = errForged
	}
	if err != nil {
		return press{}, fmt.Errorf("%w: %q", errForged, data)
	}
	return p, nil
}

// decodePath reads a tapped path.
func decodePath(s string) ([]int, error) {
	if len(s) > 2*maxOffered {
		return nil, errForged
	}
	path := make([]int, len(s))
	for i := range len(s) {
		n := strings.IndexByte(pathAlphabet, s[i])
		if n < 0 {
			return nil, errForged
		}
		path[i] = n
	}
	return path, nil
}

// entry is the state of a move being entered with the buttons: the squares tapped so far and
// what may be tapped next.
type entry struct {
	path    []int    // the indices tapped, as in a press
	squares []string // the squares tapped
	steps   engine.StepInfo
}

// resolveEntry replays a tapped path on g: each index must be one of the squares offered at its
// step. Returns errForged for a path that no keyboard of this position offers.
func resolveEntry(g *engine.Game, path []int) (*entry, error) {
	e := &entry{path: path}
	si, err := g.Steps(nil)
	if err != nil {
		return nil, err
	}
	for _, n := range path {
		if n >= len(si.Next) {
			return nil, fmt.Errorf("%w: step %d of %d squares", errForged, n, len(si.Next))
		}
		e.squares = append(e.squares, si.Next[n])
		if si, err = g.Steps(e.squares); err != nil {
			return nil, fmt.Errorf("%w: %w", errForged, err)
		}
	}
	e.steps = si
	return e, nil
}
