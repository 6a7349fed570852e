// Package questlog is the log of a game: everything done to it from its start (the actions taken,
// the values a multiplayer session or a developer wrote into its parameters, the reseeding of its
// random generator, the state a saved game was restored to), from which the game replays exactly.
// The bot keeps the log of every running game (quest/questpg) and gives it to a quest's developer
// as a file (/log), which questbot replay plays again; the locations a game walked through
// (/positions) are counted by replaying it.
//
// A log file is JSON lines: a header ({"type": "header", "quest": the file's name, "sha256", the
// seed, the dialect and the language}), then one line per move ({"type": "move", "action": 12},
// {"type": "move", "set": {"3": 5}}, {"type": "move", "seed": "…"}, {"type": "move", "state":
// {…}}, {"type": "move", "offer": true}, {"type": "move", "goto": 12}).
package questlog

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/questbot/questbot/formula/alea"
	"github.com/questbot/questbot/quest"
)

// Move is one thing done to a game. Exactly one of its fields is set.
type Move struct {
	// Action is an action taken: a jump id or a pseudo id (quest.JumpIAgree, …).
	Action *int `json:"action,omitempty"`
	// Set are values written into parameters, by 0-based index: a multiplayer session's (the
	// player's number, the round's moves), or a developer's (/set).
	Set map[int]int `json:"set,omitempty"`
	// Seed reseeds the game's random generator: a multiplayer round's shared seed.
	Seed string `json:"seed,omitempty"`
	// State replaces the whole state: the state a saved game was restored to.
	State *quest.State `json:"state,omitempty"`
	// Offer offers the choices of the screen again from the parameters as they are
	// (quest.Reoffer): a developer's /set is followed by one, so that the choices its value
	// opens are there.
	Offer bool `json:"offer,omitempty"`
	// Goto is a location a developer entered by hand (/goto, quest.Goto).
	Goto *int `json:"goto,omitempty"`
}

// Act returns the move of an action.
func Act(action int) Move { return Move{Action: &action} }

// Header says what game a log file is of.
type Header struct {
	// Quest is the quest file's name, SHA256 the hex digest of its bytes.
	Quest  string `json:"quest"`
	SHA256 string `json:"sha256,omitempty"`
	// Seed is the seed the game started with.
	Seed string `json:"seed"`
	// Dialect is the dialect the game is played in (reference or dagazbot; see Rules).
	Dialect string `json:"dialect,omitempty"`
	// Lang is the quest's language, "en" or "ru".
	Lang string `json:"lang,omitempty"`
}

// Log is a game's log.
type Log struct {
	Header Header
	Moves  []Move
}

// ErrFormat reports a log file that is not one.
var ErrFormat = errors.New("questlog: not a game log")

// Write writes l as a log file.
func Write(w io.Writer, l *Log) error {
	enc := json.NewEncoder(w)
	if err := enc.Encode(struct {
		Type string `json:"type"`
		Header
	}{"header", l.Header}); err != nil {
		return fmt.Errorf("questlog: %w", err)
	}
	for _, m := range l.Moves {
		if err := enc.Encode(struct {
			Type string `json:"type"`
			Move
		}{"move", m}); err != nil {
			return fmt.Errorf("questlog: %w", err)
		}
	}
	return nil
}

// maxLine bounds a line of a log file (a restored state is the longest).
const maxLine = 4 << 20

// Read reads a log file; errors match ErrFormat.
func Read(r io.Reader) (*Log, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxLine)
	var l Log
	n := 0
	for sc.Scan() {
		if len(sc.Bytes()) == 0 {
			continue
		}
		n++
		var kind struct {
			Type string `json:"type"`
		}
		err := json.Unmarshal(sc.Bytes(), &kind)
		switch {
		case err != nil:
		case n == 1 && kind.Type == "header":
			err = json.Unmarshal(sc.Bytes(), &l.Header)
		case n > 1 && kind.Type == "move":
			var m Move
			if err = json.Unmarshal(sc.Bytes(), &m); err == nil && kinds(m) != 1 {
				err = fmt.Errorf("a move of %d kinds", kinds(m))
			}
			l.Moves = append(l.Moves, m)
		default:
			err = fmt.Errorf("unexpected %q", kind.Type)
		}
		if err != nil {
			return nil, fmt.Errorf("%w: line %d: %v", ErrFormat, n, err)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrFormat, err)
	}
	if n == 0 {
		return nil, fmt.Errorf("%w: empty", ErrFormat)
	}
	return &l, nil
}

// kinds counts the fields set in a move.
func kinds(m Move) int {
	n := 0
	for _, set := range []bool{m.Action != nil, m.Set != nil, m.Seed != "", m.State != nil, m.Offer, m.Goto != nil} {
		if set {
			n++
		}
	}
	return n
}

// Rules returns the options of the rule of play of a dialect (its catalogue name): the dagazbot
// dialect plays by the original bot's rule for jumps that share a text (quest.Options.TopPriority);
// the others by the reference's.
func Rules(dialect string) quest.Options {
	if dialect == "dagazbot" {
		return quest.Options{TopPriority: true}
	}
	return quest.Options{}
}

// Replay plays l on q from its seed under the rules of its dialect, and returns the state it
// ends in. o may add an observer (o.Passed); its rule of play is the log's. step, when not nil,
// is told of each move (its index) and the state after it. An action that is not a choice of
// its screen fails the replay with the move's index.
func Replay(q *quest.Quest, l *Log, o quest.Options, step func(i int, s quest.State)) (quest.State, error) {
	o.TopPriority = Rules(l.Header.Dialect).TopPriority
	s, err := q.Start(l.Header.Seed)
	if err != nil {
		return s, err
	}
	for i, m := range l.Moves {
		switch {
		case m.Action != nil:
			if s, err = q.PerformWith(s, *m.Action, o); err != nil {
				return s, fmt.Errorf("move %d (action %d): %w", i+1, *m.Action, err)
			}
		case m.Set != nil:
			s.Params = slices.Clone(s.Params)
			for k, v := range m.Set {
				if k < 0 || k >= len(s.Params) {
					return s, fmt.Errorf("move %d: %w: no parameter p%d", i+1, quest.ErrBadState, k+1)
				}
				s.Params[k] = v
			}
		case m.Seed != "":
			s.Alea = alea.New(m.Seed).State()
		case m.State != nil:
			s = m.State.Clone()
		case m.Offer:
			if s, err = q.Reoffer(s, o); err != nil {
				return s, fmt.Errorf("move %d (offer): %w", i+1, err)
			}
		case m.Goto != nil:
			if s, err = q.Goto(s, *m.Goto, o); err != nil {
				return s, fmt.Errorf("move %d (go to location %d): %w", i+1, *m.Goto, err)
			}
		}
		if step != nil {
			step(i, s)
		}
	}
	return s, nil
}

// Visit is how often a game entered a location.
type Visit struct {
	Location, Count int
}

// Positions replays l on q and counts the locations the game entered, those it passed through
// without a screen of their own included, most visited first (then by id).
func Positions(q *quest.Quest, l *Log) ([]Visit, error) {
	counts := map[int]int{}
	o := quest.Options{Passed: func(p quest.Passage) { counts[p.LocationID]++ }}
	_, err := Replay(q, l, o, func(i int, s quest.State) {
		// An action (or a developer's /goto) that ends on a location's screen entered it.
		if m := l.Moves[i]; (m.Action != nil || m.Goto != nil) && (s.Phase == quest.PhaseLocation || s.Phase == quest.PhaseCritOnLocation) {
			counts[s.LocationID]++
		}
	})
	out := make([]Visit, 0, len(counts))
	for loc, n := range counts {
		out = append(out, Visit{Location: loc, Count: n})
	}
	slices.SortFunc(out, func(a, b Visit) int {
		if a.Count != b.Count {
			return b.Count - a.Count
		}
		return a.Location - b.Location
	})
	return out, err
}
