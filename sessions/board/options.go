package board

import (
	"fmt"
	"net/url"
	"strconv"

	"github.com/questbot/questbot/engine"
)

// Options are the engine options of a board, as data: they are stored with the board, compared
// by matchmaking (two players meet only in the same game under the same rules) and turned into
// engine.Option values when the game is built. The zero value is the game's standard rules.
type Options struct {
	// Start is a start position in the game's own format (engine.WithPosition); empty for the
	// standard start.
	Start string
	// FirstPlayer is the side that moves first from the standard start: 1 for engine.First,
	// 2 for engine.Second, 0 for the game's own rule (engine.WithFirstPlayer).
	FirstPlayer int
	// PlyLimit is the number of plies after which the game is drawn; 0 for
	// engine.DefaultPlyLimit.
	PlyLimit int
	// Fox and Geese only (the engine refuses them for other games).
	Diagonals       bool // engine.WithDiagonals
	LongestCapture  bool // engine.WithLongestCapture
	FoxMustCapture  bool // engine.WithFoxMustCapture
	GeeseBackward   bool // engine.WithGeeseBackward
	FoxWinThreshold int  // engine.WithFoxWinThreshold; 0 for the game's default
}

// maxOptionsLen bounds the encoded options (a start position is the longest part).
const maxOptionsLen = 1024

// Option keys of the encoded form.
const (
	optStart     = "start"
	optFirst     = "first"
	optPlyLimit  = "plies"
	optDiagonals = "diagonals"
	optLongest   = "longest"
	optMustTake  = "mustcapture"
	optBackward  = "backward"
	optThreshold = "foxwins"
)

// String returns the canonical text of the options: URL query syntax with the keys in order
// and only the values that differ from the defaults ("" for the standard rules), so equal
// options give equal text. ParseOptions reads it back.
func (o Options) String() string {
	v := url.Values{}
	set := func(k string, on bool, val string) {
		if on {
			v.Set(k, val)
		}
	}
	set(optStart, o.Start != "", o.Start)
	set(optFirst, o.FirstPlayer != 0, strconv.Itoa(o.FirstPlayer))
	set(optPlyLimit, o.PlyLimit != 0, strconv.Itoa(o.PlyLimit))
	set(optDiagonals, o.Diagonals, "1")
	set(optLongest, o.LongestCapture, "1")
	set(optMustTake, o.FoxMustCapture, "1")
	set(optBackward, o.GeeseBackward, "1")
	set(optThreshold, o.FoxWinThreshold != 0, strconv.Itoa(o.FoxWinThreshold))
	return v.Encode()
}

// ParseOptions reads options written as String writes them (booleans may also be written
// "true" or "false"). Returns ErrInvalid for unknown or repeated keys and bad values; whether
// the options suit a game is the engine's to say, when a board is opened with them.
func ParseOptions(s string) (Options, error) {
	var o Options
	if len(s) > maxOptionsLen {
		return o, fmt.Errorf("%w: options longer than %d bytes", ErrInvalid, maxOptionsLen)
	}
	v, err := url.ParseQuery(s)
	if err != nil {
		return o, fmt.Errorf("%w: options %q: %v", ErrInvalid, s, err)
	}
	for k, vals := range v {
		if len(vals) != 1 {
			return o, fmt.Errorf("%w: option %q given %d times", ErrInvalid, k, len(vals))
		}
		val := vals[0]
		bad := func(err error) error { return fmt.Errorf("%w: option %s=%q: %v", ErrInvalid, k, val, err) }
		switch k {
		case optStart:
			o.Start = val
		case optFirst, optPlyLimit, optThreshold:
			n, err := strconv.Atoi(val)
			if err != nil {
				return o, bad(err)
			}
			switch k {
			case optFirst:
				o.FirstPlayer = n
			case optPlyLimit:
				o.PlyLimit = n
			default:
				o.FoxWinThreshold = n
			}
		case optDiagonals, optLongest, optMustTake, optBackward:
			on, err := strconv.ParseBool(val)
			if err != nil {
				return o, bad(err)
			}
			switch k {
			case optDiagonals:
				o.Diagonals = on
			case optLongest:
				o.LongestCapture = on
			case optMustTake:
				o.FoxMustCapture = on
			default:
				o.GeeseBackward = on
			}
		default:
			return o, fmt.Errorf("%w: unknown option %q", ErrInvalid, k)
		}
	}
	if err := o.check(); err != nil {
		return Options{}, err
	}
	return o, nil
}

// check verifies the ranges the engine does not (it reads a non-positive ply limit as the
// default, and any first player as a bad option only when it is set).
func (o Options) check() error {
	if o.FirstPlayer < 0 || o.FirstPlayer > 2 {
		return fmt.Errorf("%w: first player %d (1 or 2)", ErrInvalid, o.FirstPlayer)
	}
	if o.PlyLimit < 0 || o.PlyLimit > 10*engine.DefaultPlyLimit {
		return fmt.Errorf("%w: ply limit %d", ErrInvalid, o.PlyLimit)
	}
	if o.FoxWinThreshold < 0 {
		return fmt.Errorf("%w: fox win threshold %d", ErrInvalid, o.FoxWinThreshold)
	}
	return nil
}

// engineOptions returns the engine options that build the game these options describe.
func (o Options) engineOptions() []engine.Option {
	var opts []engine.Option
	if o.Start != "" {
		opts = append(opts, engine.WithPosition(o.Start))
	}
	if o.FirstPlayer != 0 {
		opts = append(opts, engine.WithFirstPlayer(engine.Player(o.FirstPlayer-1)))
	}
	if o.PlyLimit != 0 {
		opts = append(opts, engine.WithPlyLimit(o.PlyLimit))
	}
	if o.Diagonals {
		opts = append(opts, engine.WithDiagonals(true))
	}
	if o.LongestCapture {
		opts = append(opts, engine.WithLongestCapture(true))
	}
	if o.FoxMustCapture {
		opts = append(opts, engine.WithFoxMustCapture(true))
	}
	if o.GeeseBackward {
		opts = append(opts, engine.WithGeeseBackward(true))
	}
	if o.FoxWinThreshold != 0 {
		opts = append(opts, engine.WithFoxWinThreshold(o.FoxWinThreshold))
	}
	return opts
}

// newGame builds the engine game of a variant under these options and seed. Engine errors
// (engine.ErrUnknownVariant, engine.ErrBadOption, engine.ErrBadPosition) are wrapped with
// ErrInvalid.
func (o Options) newGame(variant string, seed uint64) (*engine.Game, error) {
	if err := o.check(); err != nil {
		return nil, err
	}
	g, err := engine.NewGame(variant, append(o.engineOptions(), engine.WithSeed(seed))...)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	return g, nil
}
